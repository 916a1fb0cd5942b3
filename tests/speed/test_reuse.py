"""Server reuse: which servers are pooled, and that a pooled process can never change what an episode sees."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.model import Episode, ServerSpec, Task
from mcptrials.run.runner import RunPlan, execute, run_episode
from mcptrials.scoring.effects import score_effects
from mcptrials.servers.clock import faketime_available
from mcptrials.servers.config import parse_servers
from mcptrials.servers.pool import current_pool, reuse_reason, server_pool
from mcptrials.store.db import Store
from mcptrials.tasks.check import tool_results
from mcptrials.tasks.loader import parse_tasks

PROBE = str(Path(__file__).with_name("reuse_server.py"))


def probe(reuse: bool | None = True, **extra: Any) -> ServerSpec:
    return ServerSpec(**{"name": "probe", "command": sys.executable, "args": [PROBE], "reuse": reuse,
                         "faketime": False, **extra})


def tasks(*steps: list[tuple[str, dict[str, Any]]], now: list[str | None] | None = None) -> list[Task]:
    return parse_tasks([(f"t{i}", {
        "id": f"t{i}", "prompt": "probe", "servers": ["probe"], "category": "single",
        **({"now": now[i]} if now and now[i] else {}),
        "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": [f"probe__{steps[i][0][0]}"]}]},
        "reference": [{"tool": f"probe__{tool}", "args": args} for tool, args in plan]})
        for i, plan in enumerate(steps)])


async def run(spec: ServerSpec, chosen: list[Task], tmp: Path, *, reuse: bool = True,
              concurrency: int = 1) -> list[Episode]:
    plan = RunPlan(servers={spec.name: spec}, tasks=chosen, agent=ReferenceAgent(), model=None,
                   concurrency=concurrency, reuse=reuse)
    store = Store(tmp / f"run-{reuse}-{len(list(tmp.iterdir()))}.db")
    await execute(plan, store)
    by_id = {e.task_id: e for e in store.episodes()}
    return [by_id[t.id] for t in chosen]


def results(episode: Episode) -> list[str]:
    return [c.content for c in episode.tool_calls]


# --------------------------------------------------------------------------- which servers are pooled


def test_reuse_is_decided_by_marking_and_kind() -> None:
    world = bundled_servers()
    assert reuse_reason(world["encyclopedia"])[0] and reuse_reason(world["weather"])[0]  # static, live_read
    ok, why = reuse_reason(world["files"])  # state lives in the sandbox, which each call names
    assert ok and "each call names" in why
    assert not reuse_reason(probe(None))[0]  # third-party, unmarked: safe default
    assert not reuse_reason(probe(False))[0]
    assert reuse_reason(probe(True))[0]
    marked_bundled = world["encyclopedia"].model_copy(update={"reuse": False})
    assert not reuse_reason(marked_bundled)[0]
    # a spec naming a per-episode variable is per-episode, whatever it is marked
    per_episode = probe(True, env={"DATA_DIR": "${MCPTRIALS_SANDBOX}/data"})
    ok, why = reuse_reason(per_episode)
    assert not ok and "MCPTRIALS_SANDBOX" in why
    assert not reuse_reason(probe(True, args=[PROBE, "--run", "${MCPTRIALS_EPISODE}"]))[0]
    assert not reuse_reason(ServerSpec(name="web", transport="http", url="http://127.0.0.1:9/mcp", reuse=True))[0]


def test_config_reads_the_reuse_key() -> None:
    specs = parse_servers({"mcpServers": {"a": {"command": "x", "reuse": True}, "b": {"command": "y"}}}, "cfg.json")
    assert specs["a"].reuse is True and specs["b"].reuse is None
    with pytest.raises(ValueError, match="reuse"):
        parse_servers({"mcpServers": {"a": {"command": "x", "reuse": "sometimes"}}}, "cfg.json")


def test_reuse_is_recorded_but_not_in_the_resume_key() -> None:
    world = bundled_servers()
    chosen = {"units": world["units"]}
    on = RunPlan(servers=chosen, tasks=[], agent=ReferenceAgent(), model=None, reuse=True)
    off = RunPlan(servers=chosen, tasks=[], agent=ReferenceAgent(), model=None, reuse=False)
    marked = RunPlan(servers={"units": world["units"].model_copy(update={"reuse": False})}, tasks=[],
                     agent=ReferenceAgent(), model=None)
    assert on.settings() == off.settings() == marked.settings()
    assert on.record()["reuse"] is True and off.record()["reuse"] is False
    assert "bundled static" in on.record()["server_reuse"]["units"]


# --------------------------------------------------------------------------- a reused process changes nothing


@pytest.mark.slow
async def test_reused_process_serves_episodes_one_at_a_time(tmp_path: Path) -> None:
    chosen = tasks(*[[("pid", {})] for _ in range(4)])
    reused = [results(e)[0] for e in await run(probe(True), chosen, tmp_path)]
    fresh = [results(e)[0] for e in await run(probe(False), chosen, tmp_path)]
    assert len(set(reused)) == 1  # one process served all four
    assert len(set(fresh)) == 4  # a process per episode
    # concurrent episodes never share a process: each holds its own while its call is open
    overlapping = tasks(*[[("slow", {"seconds": 0.5})] for _ in range(3)])
    pids = [results(e)[0] for e in await run(probe(True), overlapping, tmp_path, concurrency=3)]
    assert len(set(pids)) == 3


async def test_a_process_never_serves_another_frozen_clock(tmp_path: Path) -> None:
    nows = ["2026-01-01T00:00:00+00:00", "2026-06-01T12:00:00+00:00", "2026-01-01T00:00:00+00:00"]
    chosen = tasks(*[[("now", {}), ("pid", {})] for _ in nows], now=nows)
    episodes = await run(probe(True), chosen, tmp_path)
    assert [results(e)[0] for e in episodes] == nows
    pids = [results(e)[1] for e in episodes]
    assert pids[0] == pids[2] != pids[1]


@pytest.mark.slow
async def test_server_that_writes_a_file_is_caught_and_the_episode_rerun(tmp_path: Path) -> None:
    """Marked reusable, but it keeps state in a file: the episode that shows it is not scored."""
    chosen = tasks(*[[("note", {"text": f"n{i}"})] for i in range(3)])
    reused = await run(probe(True), chosen, tmp_path)
    fresh = await run(probe(False), chosen, tmp_path)
    assert reused[0].infra_error is not None and reused[0].infra_error.kind == "server_reuse"
    assert "notes.txt" in reused[0].infra_error.message
    # after that the key is not pooled again: the rest match fresh servers exactly
    assert [results(e) for e in reused[1:]] == [results(e) for e in fresh[1:]] == [["1"], ["1"]]
    assert [e.state for e in reused[1:]] == [e.state for e in fresh[1:]]


async def test_crashed_process_is_replaced(tmp_path: Path) -> None:
    spec = probe(True)
    first, second, third = tasks([("pid", {})], [("die", {})], [("pid", {})])
    plan = RunPlan(servers={"probe": spec}, tasks=[first, second, third], agent=ReferenceAgent(), model=None)
    async with server_pool() as pool:
        assert pool is not None and current_pool() is pool
        a, _ = await run_episode(plan, first, 0, "r", "c")
        crashed, _ = await run_episode(plan, second, 0, "r", "c")  # the process dies mid-call
        b, _ = await run_episode(plan, third, 0, "r", "c")
        os.kill(int(results(b)[0]), signal.SIGKILL)  # and one dies between episodes
        c, _ = await run_episode(plan, third, 1, "r", "c")
        assert crashed.infra_error is not None and crashed.infra_error.kind == "server_crash"
        assert b.infra_error is None and c.infra_error is None
        assert len({results(a)[0], results(b)[0], results(c)[0]}) == 3
        assert pool.stats.replaced == 1 and pool.stats.retired == 1


async def test_bundled_sample_identical_with_and_without_reuse(tmp_path: Path) -> None:
    """Tool results, final state and verdicts of bundled tasks (several servers, clocks, versions)."""
    world = bundled_servers()
    pooled = {name for name, spec in world.items() if reuse_reason(spec)[0]}
    candidates = [t for t in bundled_tasks() if t.reference and set(t.servers) & pooled]
    sample = [t for now in sorted({str(t.now) for t in candidates}) for t in
              [c for c in candidates if str(c.now) == now][:2]][:10]  # tasks under different frozen clocks
    assert len(sample) >= 8 and len({t.now for t in sample}) >= 4
    seen: dict[bool, list[tuple[Any, ...]]] = {}
    for reuse in (False, True):
        plan = RunPlan(servers=world, tasks=sample, agent=ReferenceAgent(), model=None, reuse=reuse, concurrency=2)
        async with server_pool(reuse) as pool:
            rows = []
            for task in sample:
                episode, tools = await run_episode(plan, task, 0, "r", "c")
                rows.append((task.id, episode.infra_error, tool_results(episode),
                             json.dumps(episode.state, sort_keys=True),
                             score_effects(task, episode, tools).passed, episode.tool_hashes, episode.servers))
            seen[reuse] = rows
            if reuse:
                assert pool is not None and pool.stats.reused > 0
    assert seen[True] == seen[False]
    assert all(row[1] is None and row[4] for row in seen[True])


# --------------------------------------------------------------------------- pre-started fresh servers


@pytest.mark.slow
async def test_prestarted_servers_start_in_the_episode_sandbox_with_its_fixtures(tmp_path: Path) -> None:
    """A fresh server started ahead sees what a cold one sees: its own sandbox, fixtures already there."""
    chosen = parse_tasks([(f"t{i}", {
        "id": f"t{i}", "prompt": "probe", "servers": ["probe"], "category": "single",
        "fixtures": {"files": {f"input{i}.txt": "x"}},
        "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": ["probe__seen_at_start"]}]},
        "reference": [{"tool": "probe__seen_at_start", "args": {}}, {"tool": "probe__note", "args": {"text": "a"}},
                      {"tool": "probe__pid", "args": {}}]}) for i in range(4)])
    spec = probe(False)
    plan = RunPlan(servers={"probe": spec}, tasks=chosen, agent=ReferenceAgent(), model=None, concurrency=1)
    async with server_pool() as pool:
        assert pool is not None
        pool.expect([(t, 0, [spec]) for t in chosen], plan.limits, depth=2)
        episodes = [(await run_episode(plan, t, 0, "r", "c"))[0] for t in chosen]
        assert pool.prestarter is not None and pool.prestarter.adopted == 4
    for i, episode in enumerate(episodes):
        seen, notes, _ = results(episode)
        files, _, where = seen.partition(" in ")
        assert files == f"input{i}.txt" and where.split(" at ")[0].endswith("/sandbox")
        assert notes == "1"  # a never-used process, in a sandbox of its own
        assert episode.state["files"]["notes.txt"]["text"] == "a\n"  # written where the episode's state is read
    assert len({results(e)[2] for e in episodes}) == 4
    async with server_pool() as pool:  # the same episodes with nothing started ahead
        assert pool is not None and pool.prestarter is None
        alone = [(await run_episode(plan, t, 0, "r", "c"))[0] for t in chosen]
    assert [results(e)[1] for e in alone] == [results(e)[1] for e in episodes]
    assert [e.state for e in alone] == [e.state for e in episodes]
    # through the runner: same results
    store = Store(tmp_path / "pre.db")
    await execute(plan, store)
    assert sorted(results(e)[1] for e in store.episodes()) == ["1"] * 4


async def test_tasks_check_repeat_compares_fresh_with_reused_servers() -> None:
    """``tasks check --repeat``: the first run starts servers fresh, the repeat reuses them; a difference shows."""
    from mcptrials.tasks.check import check_references

    honest = tasks([("now", {})], now=["2026-03-01T08:00:00+00:00"])
    stateful = tasks([("note", {"text": "x"})])
    spec = probe(True)
    same = await check_references({"probe": spec}, honest, runs=2)
    assert same[0].passed and same[0].deterministic is True
    caught = await check_references({"probe": spec}, stateful, runs=2)
    assert caught[0].deterministic is False  # the reused run flags the file its server wrote


@pytest.mark.slow
async def test_reused_third_party_clock_server_reads_each_tasks_frozen_time(tmp_path: Path) -> None:
    """``mcp-server-time`` under libfaketime: a reused process tells the same time as a fresh one, per task."""
    import shutil

    if not faketime_available() or shutil.which("mcp-server-time") is None:
        pytest.skip("needs faketime (Debian package) and mcp-server-time (installed by .ci/run)")
    nows = ["2026-02-03T04:05:06+00:00", "2026-08-09T10:11:12+00:00", "2026-02-03T04:05:06+00:00"]
    chosen = parse_tasks([(f"c{i}", {
        "id": f"c{i}", "prompt": "time?", "servers": ["time"], "category": "single", "now": now,
        "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": ["time__get_current_time"]}]},
        "reference": [{"tool": "time__get_current_time", "args": {"timezone": "UTC"}}]}) for i, now in enumerate(nows)])
    seen = {}
    for reuse in (True, False):
        spec = ServerSpec(name="time", command=str(shutil.which("mcp-server-time")), reuse=reuse)
        seen[reuse] = [results(e)[0] for e in await run(spec, chosen, tmp_path, reuse=True)]
    assert seen[True] == seen[False]
    assert [now[:19] in text for now, text in zip(nows, seen[True], strict=True)] == [True] * 3


async def test_concurrent_bundled_episodes_share_read_only_processes_without_changing_results(tmp_path: Path) -> None:
    world = bundled_servers()
    sample = [t for t in bundled_tasks() if t.reference and "units" in t.servers][:6]
    assert len(sample) >= 3
    seen: dict[bool, list[tuple[Any, ...]]] = {}
    for reuse in (False, True):
        plan = RunPlan(servers=world, tasks=sample, agent=ReferenceAgent(), model=None, reuse=reuse)
        async with server_pool(reuse) as pool:
            rows: dict[str, tuple[Any, ...]] = {}

            async def one(task: Task, plan: RunPlan = plan, rows: dict[str, tuple[Any, ...]] = rows) -> None:
                episode, _ = await run_episode(plan, task, 0, "r", "c")
                rows[task.id] = (episode.infra_error, tool_results(episode), json.dumps(episode.state, sort_keys=True))

            async with anyio.create_task_group() as tg:
                for task in sample:
                    tg.start_soon(one, task)
            if reuse:
                assert pool is not None and pool.stats.shared > 0 and pool.stats.started < len(sample)
            seen[reuse] = [rows[t.id] for t in sample]
    assert seen[True] == seen[False]
