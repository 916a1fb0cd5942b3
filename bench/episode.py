"""Seconds per episode of mcptrials vs a bare ``mcp`` client that starts one server per episode.

Measured in one run, modes interleaved so machine noise hits all alike:

1. ``mcp-server-time``, one-call episodes at concurrency 1 with an instant model (a local
   OpenAI-compatible endpoint over real HTTP that asks for one call, then answers; it closes each
   connection, since the test endpoint's keep-alive replies wait ~40 ms on delayed ACKs):
   bare SDK (server started per episode, same two model requests) vs mcptrials with the server
   marked ``"reuse": true`` vs mcptrials with ``"reuse": false`` (a fresh server per episode).
2. The bundled world, reference agent (no model): bare SDK (each of the task's servers started
   per episode with a plain client, the reference calls made) vs mcptrials without reuse vs
   mcptrials with reuse (the default), as episodes/s.
3. Memory: peak PSS summed over this process and all its descendants while 50 bundled
   episodes are open at once (the model answers after a delay so they overlap).

    python bench/episode.py [--episodes 20] [--repeats 3] [--bundled 0] [--concurrency 4] [--pss 50]

``--bundled 0`` (the default) runs every bundled task with a reference plan (198); ``--concurrency``
defaults to ``mcptrials run``'s own default, 4.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import psutil
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from fake_openai import FakeOpenAI, Reply, completion

from mcptrials.agents.react import ReactAgent
from mcptrials.agents.reference import ReferenceAgent
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.model import ServerSpec, Task, split_qualified
from mcptrials.models.openai_provider import OpenAIModel
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store
from mcptrials.tasks.loader import parse_tasks

TIME_TOOL = "time__get_current_time"


def time_tasks(n: int, tag: str) -> list[Task]:
    """``n`` one-call tasks on the time server (distinct ids, so none is skipped as already run)."""
    return parse_tasks([(f"bench:{i}", {
        "id": f"{tag}-{i}", "prompt": "What time is it in UTC right now?", "servers": ["time"], "category": "single",
        "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": [TIME_TOOL]}]},
        "reference": [{"tool": TIME_TOOL, "args": {"timezone": "UTC"}}]}) for i in range(n)])


def instant_reply(request: dict[str, Any]) -> Reply:
    """One tool call, then an answer: the instant model every mode talks to."""
    if request["messages"][-1]["role"] == "tool":
        return completion("It is the time the tool said.")
    return completion("", [(TIME_TOOL, {"timezone": "UTC"})])


def time_spec(reuse: bool) -> ServerSpec:
    command = shutil.which("mcp-server-time")
    if command is None:
        raise SystemExit("mcp-server-time is not installed (pip install mcp-server-time)")
    return ServerSpec(name="time", command=command, reuse=reuse, faketime=False)


async def mcptrials_time(fake: FakeOpenAI, n: int, reuse: bool, tmp: Path, tag: str) -> float:
    """Seconds per episode of ``execute`` (store included) on ``n`` one-call episodes."""
    model = OpenAIModel(model="fake", base_url=fake.base_url, api_key="none")
    plan = RunPlan(servers={"time": time_spec(reuse)}, tasks=time_tasks(n, tag), agent=ReactAgent(max_turns=3),
                   model=model, concurrency=1)
    store = Store(tmp / f"{tag}.db")
    t0 = time.perf_counter()
    result = await execute(plan, store)
    elapsed = time.perf_counter() - t0
    if result.counts["passed"] != n:
        raise SystemExit(f"mcptrials time run did not pass every episode: {result.counts}")
    return elapsed / n


async def bare_time(fake: FakeOpenAI, n: int) -> float:
    """Seconds per episode of a plain client: start the server, list, two model requests, one call, stop."""
    command = time_spec(False).command
    assert command is not None
    params = StdioServerParameters(command=command, args=[])
    t0 = time.perf_counter()
    async with httpx.AsyncClient(base_url=fake.base_url) as http:
        for _ in range(n):
            async with Client(params, cache=None) as client:
                tools = await client.list_tools()
                body: dict[str, Any] = {"model": "fake", "messages": [{"role": "user", "content": "time?"}],
                                        "tools": [{"type": "function", "function": {"name": t.name}}
                                                  for t in tools.tools]}
                reply = (await http.post("/chat/completions", json=body)).json()
                call = reply["choices"][0]["message"]["tool_calls"][0]["function"]
                result = await client.call_tool(split_qualified(call["name"])[1], json.loads(call["arguments"]))
                body["messages"].append({"role": "tool", "content": str(result.content)})
                (await http.post("/chat/completions", json=body)).raise_for_status()
    return (time.perf_counter() - t0) / n


async def bare_bundled(tasks: list[Task], specs: dict[str, ServerSpec], concurrency: int) -> float:
    """Episodes/s of a plain client per episode: every server of the task started cold, reference calls made."""
    limiter = anyio.Semaphore(concurrency)

    async def one(task: Task) -> None:
        async with limiter:
            with tempfile.TemporaryDirectory() as tmp:
                for rel, content in task.fixtures.files.items():
                    (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
                    (Path(tmp) / rel).write_text(content, encoding="utf-8")
                env = {"MCPTRIALS_SANDBOX": tmp, **({"MCPTRIALS_NOW": task.now.isoformat()} if task.now else {})}
                clients: dict[str, Client] = {}
                async with anyio.create_task_group():
                    from contextlib import AsyncExitStack

                    async with AsyncExitStack() as stack:
                        for name in task.servers:
                            spec = specs[name]
                            params = StdioServerParameters(command=sys.executable, args=spec.args, env=env, cwd=tmp)
                            clients[name] = await stack.enter_async_context(Client(params, cache=None))
                            await clients[name].list_tools()
                        for step in task.reference:
                            server, tool = split_qualified(step.tool)
                            await clients[server].call_tool(tool, step.args)

    t0 = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for task in tasks:
            tg.start_soon(one, task)
    return len(tasks) / (time.perf_counter() - t0)


async def mcptrials_bundled(tasks: list[Task], specs: dict[str, ServerSpec], concurrency: int, reuse: bool,
                            tmp: Path, tag: str) -> tuple[float, dict[str, int]]:
    plan = RunPlan(servers=specs, tasks=tasks, agent=ReferenceAgent(), model=None, concurrency=concurrency,
                   reuse=reuse, version=tag)
    t0 = time.perf_counter()
    result = await execute(plan, Store(tmp / f"{tag}.db"))
    return len(tasks) / (time.perf_counter() - t0), result.counts


def tree_pss() -> int:
    """PSS in bytes of this process and every descendant (processes that vanish meanwhile are skipped)."""
    total = 0
    me = psutil.Process()
    for proc in [me, *me.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            total += proc.memory_full_info().pss
    return total


def tree_size() -> int:
    return 1 + len(psutil.Process().children(recursive=True))


async def peak_pss(tasks: list[Task], specs: dict[str, ServerSpec], tmp: Path, reuse: bool) -> tuple[int, int]:
    """Peak PSS and process count while ``len(tasks)`` episodes are open at once."""
    with FakeOpenAI(responder=lambda _r: Reply(body=completion("done.").body, delay=3.0)) as fake:
        model = OpenAIModel(model="fake", base_url=fake.base_url, api_key="none")
        plan = RunPlan(servers=specs, tasks=tasks, agent=ReactAgent(max_turns=2), model=model,
                       concurrency=len(tasks), reuse=reuse, version=f"pss-{reuse}")
        peak = [0, 0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(0.25):
                peak[0] = max(peak[0], tree_pss())
                peak[1] = max(peak[1], tree_size())

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        await execute(plan, Store(tmp / f"pss-{reuse}.db"))
        stop.set()
        sampler.join()
    return peak[0], peak[1]


async def interleaved(rounds: int, modes: dict[str, Callable[[int], Awaitable[float]]]) -> dict[str, float]:
    out: dict[str, list[float]] = {name: [] for name in modes}
    for r in range(rounds):
        for name, run in modes.items():
            out[name].append(await run(r))
    return {name: statistics.median(values) for name, values in out.items()}


async def main(ns: argparse.Namespace) -> None:
    print(f"machine: {psutil.cpu_count()} CPUs, load average {psutil.getloadavg()} at start "
          "(shared with other work: figures are noisy)")
    with tempfile.TemporaryDirectory() as tmp_name, FakeOpenAI(responder=instant_reply) as fake:
        tmp = Path(tmp_name)
        # warm-up: the first run pays one-off imports and the fork server start
        await mcptrials_time(fake, 2, True, tmp, "warm")
        t = await interleaved(ns.repeats, {
            "bare mcp client, server per episode": lambda r: bare_time(fake, ns.episodes),
            "mcptrials, reuse: true": lambda r: mcptrials_time(fake, ns.episodes, True, tmp, f"reuse{r}"),
            "mcptrials, reuse: false (fresh)": lambda r: mcptrials_time(fake, ns.episodes, False, tmp, f"fresh{r}"),
        })
        base = t["bare mcp client, server per episode"]
        print(f"\nmcp-server-time: {ns.episodes} one-call episodes, concurrency 1, instant model over HTTP, "
              f"median of {ns.repeats} interleaved rounds")
        print(f"{'mode':<40}{'s/episode':>10}{'vs bare':>9}  goal")
        goals = {"mcptrials, reuse: true": "<= 0.12", "mcptrials, reuse: false (fresh)": "<= 0.30"}
        for name, value in t.items():
            print(f"{name:<40}{value:>10.3f}{base / value:>8.1f}x  {goals.get(name, '')}")

        specs = bundled_servers()
        tasks = [task for task in bundled_tasks() if task.reference][:ns.bundled or None]
        b = await interleaved(1, {
            "bare mcp client, servers per episode": lambda r: bare_bundled(tasks, specs, ns.concurrency),
            "mcptrials, no reuse (forked fresh)": lambda r: _rate(mcptrials_bundled(
                tasks, specs, ns.concurrency, False, tmp, "b-fresh")),
            "mcptrials, reuse (default)": lambda r: _rate(mcptrials_bundled(
                tasks, specs, ns.concurrency, True, tmp, "b-reuse")),
        })
        base = b["bare mcp client, servers per episode"]
        print(f"\nbundled world: reference agent on {len(tasks)} tasks, concurrency {ns.concurrency}")
        print(f"{'mode':<40}{'episodes/s':>11}{'s/episode':>10}{'vs bare':>9}  goal")
        for name, value in b.items():
            goal = ">= 50 episodes/s" if name == "mcptrials, reuse (default)" else ""
            print(f"{name:<40}{value:>11.1f}{1 / value:>10.3f}{value / base:>8.1f}x  {goal}")

        if ns.pss:
            chosen = [task for task in bundled_tasks()][:ns.pss]
            for reuse in (True, False):
                pss, procs = await peak_pss(chosen, specs, tmp, reuse)
                print(f"\n{len(chosen)} concurrent bundled episodes (reuse {'on' if reuse else 'off'}): peak PSS "
                      f"{pss / 1e9:.2f} GB ({pss / 2**30:.2f} GiB) over {procs} processes (goal < 1.5 GB)")


async def _rate(run: Awaitable[tuple[float, dict[str, int]]]) -> float:
    rate, counts = await run
    if counts.get("infra_error"):
        raise SystemExit(f"infrastructure errors in a bundled run: {counts}")
    return rate


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--bundled", type=int, default=0, help="bundled tasks run per mode (0: all)")
    parser.add_argument("--concurrency", type=int, default=4, help="bundled-world concurrency (run's default)")
    parser.add_argument("--pss", type=int, default=50, help="concurrent episodes for the memory figure (0: skip)")
    anyio.run(main, parser.parse_args())
