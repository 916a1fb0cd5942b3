"""Adversarial reuse cases: state a pooled process could carry from one episode to the next."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from tests.speed.test_reuse import results, run

from mcptrials.model import ServerSpec, Task
from mcptrials.tasks.check import check_references
from mcptrials.tasks.loader import parse_tasks

ADVERSARY = str(Path(__file__).with_name("adversary_server.py"))


def adversary(reuse: bool | None = True) -> ServerSpec:
    return ServerSpec(name="adv", command=sys.executable, args=[ADVERSARY], reuse=reuse, faketime=False)


def adv_tasks(n: int, tool: str, args: dict[str, Any], fixtures: list[dict[str, str]] | None = None) -> list[Task]:
    return parse_tasks([(f"a{i}", {
        "id": f"a{i}", "prompt": "probe", "servers": ["adv"], "category": "single",
        **({"fixtures": {"files": fixtures[i]}} if fixtures else {}),
        "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": [f"adv__{tool}"]}]},
        "reference": [{"tool": f"adv__{tool}", "args": args}]}) for i in range(n)])


async def test_repeat_catches_a_server_marked_reusable_that_keeps_state_in_memory() -> None:
    """One task, one server that counts its calls in memory: the repeat must run on a process that
    already served an episode, else a newly started pooled process answers like a fresh one."""
    checked = await check_references({"adv": adversary(True)}, adv_tasks(1, "count", {}), concurrency=1, runs=2)
    assert checked[0].deterministic is False
    honest = await check_references({"adv": adversary(False)}, adv_tasks(1, "count", {}), concurrency=1, runs=2)
    assert honest[0].passed and honest[0].deterministic is True


async def test_reusable_server_reading_fixtures_from_its_working_directory_sees_them(tmp_path: Path) -> None:
    """A fresh server runs in the episode sandbox (fixtures in it); a pooled one in an empty directory
    of its own. For a task with fixtures, a reusable server must therefore get a fresh process."""
    chosen = adv_tasks(3, "read", {"name": "input.txt"}, fixtures=[{"input.txt": f"task {i}"} for i in range(3)])
    reused = [results(e) for e in await run(adversary(True), chosen, tmp_path)]
    fresh = [results(e) for e in await run(adversary(False), chosen, tmp_path)]
    assert fresh == [["task 0"], ["task 1"], ["task 2"]]
    assert reused == fresh


async def test_reusable_server_without_fixtures_is_still_reused(tmp_path: Path) -> None:
    """The fixture rule must not turn reuse off for tasks without fixtures (the common, fast case)."""
    chosen = adv_tasks(3, "count", {})
    assert [results(e) for e in await run(adversary(True), chosen, tmp_path)] == [["1"], ["2"], ["3"]]


async def test_isolation_probe_flags_a_reusable_server_that_keeps_state_in_memory() -> None:
    """``servers check --isolation`` plays a task of a server marked reusable on a process that already
    served it: two fresh plays agree (counter 1 both times), the reused one does not."""
    from mcptrials.servers.isolation import probe

    leaks, problems, probed = await probe(adv_tasks(1, "count", {}), {"adv": adversary(True)})
    assert (probed, problems, len(leaks)) == (1, [], 1)
    assert leaks[0].reused and (leaks[0].first, leaks[0].second) == ("1", "2")
    assert "reuse" in leaks[0].line() and leaks[0].as_dict()["reused"] is True
    # an honest reusable server (its answer depends only on its input) is not flagged
    leaks, problems, probed = await probe(adv_tasks(1, "read", {"name": "absent.txt"}), {"adv": adversary(True)})
    assert (leaks, problems, probed) == ([], [], 1)
    # unmarked, the same counting server gets a fresh process per episode: nothing to flag
    leaks, _, _ = await probe(adv_tasks(1, "count", {}), {"adv": adversary(None)})
    assert leaks == []


FORBIDDEN_MODULES = {"os", "time", "random", "pathlib", "shutil", "sqlite3", "mcptrials.bundled.servers._workspace"}
FORBIDDEN_NAMES = {"sandbox", "confined", "open", "getcwd"}
"""What a tool reaching the episode's sandbox, the real clock or unseeded randomness would use."""


def _reaches_outside(tree: object) -> list[str]:
    import ast

    found = []
    for node in ast.walk(tree):  # type: ignore[arg-type]
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] in FORBIDDEN_MODULES]
        elif isinstance(node, ast.ImportFrom):
            found += [node.module or ""] if node.module in FORBIDDEN_MODULES else []
            found += [a.name for a in node.names if a.name in FORBIDDEN_NAMES]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_NAMES:
            found.append(node.func.id + "()")
        elif isinstance(node, ast.Attribute) and node.attr in {"today", "utcnow"} | (
                {"now"} if isinstance(node.value, ast.Name) and node.value.id in {"datetime", "date"} else set()):
            found.append(node.attr)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            found.append("global state")
    return found


def test_shared_bundled_servers_read_no_sandbox_real_clock_or_process_state() -> None:
    """Concurrent episodes (other fixtures, other sandboxes) share one process of a bundled read-only
    server: that is only right while its answers depend on shipped data, arguments and ``now`` alone.
    A new such server, or an edit that reads the sandbox or keeps state between calls, fails here."""
    import ast
    import importlib

    from mcptrials.bundled.world import bundled_servers
    from mcptrials.servers.pool import bound_spec, shareable_spec

    shared = [name for name, spec in bundled_servers().items() if shareable_spec(spec) and not bound_spec(spec)]
    assert len(shared) >= 8
    for name in shared:
        source = Path(importlib.import_module(f"mcptrials.bundled.servers.{name}").__file__ or "").read_text()
        assert _reaches_outside(ast.parse(source)) == [], name
    # and the check does see such a server: the sandboxed file server
    files = Path(importlib.import_module("mcptrials.bundled.servers.files").__file__ or "").read_text()
    assert _reaches_outside(ast.parse(files))


PROCESS_WIDE = {"getcwd", "environ", "cwd", "chdir", "today", "utcnow", "putenv"}
"""What a shared stateful server must not touch: the process's own directory, environment and the real clock
(its sandbox and time come from each call, through ``_runtime.sandbox()``/``confined()`` and ``now()``)."""


def _process_wide(tree: object) -> list[str]:
    import ast

    found = []
    for node in ast.walk(tree):  # type: ignore[arg-type]
        if isinstance(node, ast.Attribute) and (node.attr in PROCESS_WIDE or (
                node.attr == "now" and isinstance(node.value, ast.Name) and node.value.id in {"datetime", "date"})):
            found.append(node.attr)  # os.getcwd, os.environ, Path.cwd, date.today, datetime.now ...
        elif isinstance(node, ast.ImportFrom) and any(a.name in PROCESS_WIDE for a in node.names):
            found += [a.name for a in node.names if a.name in PROCESS_WIDE]  # from os import getcwd, environ
        elif isinstance(node, ast.Global | ast.Nonlocal):
            found.append("global state")
        elif isinstance(node, ast.Import | ast.ImportFrom) and any(a.name == "random" for a in node.names):
            found.append("random")
    return found


def test_shared_stateful_bundled_servers_take_sandbox_and_time_from_each_call() -> None:
    """A stateful bundled process serves several episodes at once: a tool reading its working directory, its
    environment, the real clock or process-wide state would answer for the wrong episode. Fails on such an edit."""
    import ast
    import importlib

    from mcptrials.bundled.world import bundled_servers
    from mcptrials.servers.pool import bound_spec, shareable_spec

    stateful = [name for name, spec in bundled_servers().items() if bound_spec(spec)]
    assert len(stateful) >= 8 and all(shareable_spec(bundled_servers()[name]) for name in stateful)
    for name in [*stateful, "_workspace"]:
        source = Path(importlib.import_module(f"mcptrials.bundled.servers.{name}").__file__ or "").read_text()
        assert _process_wide(ast.parse(source)) == [], name
    assert _process_wide(ast.parse("import os\ndef t():\n    return os.getcwd()\n")) == ["getcwd"]
    assert _process_wide(ast.parse("from datetime import date\nday = date.today()\n")) == ["today"]


def test_evolved_versions_and_clocks_are_pooled_apart() -> None:
    """A process serving v1 of a server never serves v4 (another proxy plan) or v0; a bundled server behind the
    mutation proxy stays shareable, under any frozen clock (each call names it); a stateful one only when it
    runs the shipped module."""
    from mcptrials.bundled.world import LINEAGES_DIR, bundled_servers
    from mcptrials.evolve.versions import Lineages, versioned_servers
    from mcptrials.servers.pool import bound_spec, pool_key, reuse_reason, shareable_spec
    from mcptrials.servers.toolbox import Limits

    world, lineages, limits = bundled_servers(), Lineages(LINEAGES_DIR), Limits()
    at = {v: versioned_servers(world, lineages, v) for v in ("v0", "v1", "v4")}
    for name in ("weather", "units", "files"):
        keys = {pool_key(at[v][name], "2026-04-13T09:00:00+00:00", limits) for v in at}
        assert len(keys) == 3, name
        assert all(shareable_spec(at[v][name]) for v in at)
        assert pool_key(at["v1"][name], "2026-04-13T09:00:00+00:00", limits) == pool_key(
            at["v1"][name], "2026-04-14T09:00:00+00:00", limits)
    files = [at[v]["files"] for v in at]
    assert all(reuse_reason(spec)[0] and bound_spec(spec) for spec in files)
    # the same name and tag on another program, or a config marking it, is not the shipped server
    elsewhere = files[0].model_copy(update={"args": ["-m", "my_files_server"]})
    other_python = files[0].model_copy(update={"command": "/opt/other/bin/python"})
    assert not reuse_reason(other_python)[0] and not shareable_spec(other_python)
    marked = files[0].model_copy(update={"reuse": False})
    assert not reuse_reason(elsewhere)[0] and not bound_spec(elsewhere) and not shareable_spec(elsewhere)
    assert not reuse_reason(marked)[0] and not bound_spec(marked)
    # a user's reusable server is still pooled per frozen clock (its clock is libfaketime's, fixed at start)
    mine = ServerSpec(name="mine", command="mine-server", reuse=True)
    assert pool_key(mine, "2026-04-13T09:00:00+00:00", limits) != pool_key(mine, "2026-04-14T09:00:00+00:00", limits)


async def test_process_whose_tool_listing_changed_is_replaced() -> None:
    """A pooled process whose tools changed during an episode is not handed to the next one."""
    from mcptrials.agents.reference import ReferenceAgent
    from mcptrials.run.runner import RunPlan, run_episode
    from mcptrials.servers.pool import server_pool

    grow, pid = adv_tasks(1, "grow", {})[0], adv_tasks(1, "pid", {})[0]
    plan = RunPlan(servers={"adv": adversary(True)}, tasks=[grow, pid], agent=ReferenceAgent(), model=None)
    async with server_pool() as pool:
        assert pool is not None
        first, _ = await run_episode(plan, pid, 0, "r", "c")
        await run_episode(plan, grow, 0, "r", "c")  # same process (reused), which now lists one tool more
        second, tools = await run_episode(plan, pid, 1, "r", "c")
        assert pool.stats.reused == 1 and pool.stats.replaced == 1
    assert results(first) != results(second) and "adv__extra" not in tools


def _files_tasks() -> list[Task]:
    """Episodes on the bundled file server that would see each other's files if a process carried them over."""
    write = {"tool": "files__write_file", "args": {"path": "notes/secret.txt", "content": "episode zero"}}
    listing = {"tool": "files__list_directory", "args": {"path": ".", "recursive": True}}
    read_seed = {"tool": "files__read_file", "args": {"path": "seed.txt"}}
    plans = [([write, listing], None), ([listing], None), ([read_seed, listing], {"seed.txt": "fixture text"}),
             ([listing, write, listing], None)]
    return parse_tasks([(f"f{i}", {
        "id": f"f{i}", "prompt": "probe", "servers": ["files"], "category": "single",
        **({"fixtures": {"files": fixtures}} if fixtures else {}),
        "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": [plan[0]["tool"]]}]},
        "reference": plan}) for i, (plan, fixtures) in enumerate(plans)])


@pytest.mark.parametrize("version", ["v0", "v4"])
async def test_a_pooled_stateful_server_shows_each_episode_only_its_own_sandbox(version: str) -> None:
    """One bundled file-server process (v4: behind the evolution proxy) serves episode after episode, and
    two running episodes at once: none sees a file another wrote, each sees its fixtures."""
    import json

    import anyio

    from mcptrials.agents.reference import ReferenceAgent
    from mcptrials.bundled.world import LINEAGES_DIR, bundled_servers
    from mcptrials.evolve.versions import Lineages, versioned_servers
    from mcptrials.run.runner import RunPlan, run_episode
    from mcptrials.servers.pool import server_pool
    from mcptrials.tasks.check import tool_results

    world = {"files": versioned_servers(bundled_servers(), Lineages(LINEAGES_DIR), version)["files"]}
    chosen = _files_tasks()
    seen: dict[tuple[bool, int], list[Any]] = {}
    for reuse, concurrency in ((False, 1), (True, 1), (True, 2)):
        plan = RunPlan(servers=world, tasks=chosen, agent=ReferenceAgent(), model=None, reuse=reuse)
        limiter = anyio.Semaphore(concurrency)
        rows: dict[str, Any] = {}
        async with server_pool(reuse) as pool:
            async def one(task: Task, plan: RunPlan = plan, rows: dict[str, Any] = rows,
                          limiter: anyio.Semaphore = limiter) -> None:
                async with limiter:
                    episode, _ = await run_episode(plan, task, 0, "r", "c")
                    rows[task.id] = (episode.infra_error, tool_results(episode),
                                     json.dumps(episode.state, sort_keys=True))

            async with anyio.create_task_group() as tg:
                for task in chosen:
                    tg.start_soon(one, task)
            if reuse:  # one process, shared by the running episodes, each call naming its episode's sandbox
                assert pool is not None and pool.stats.reused == 3 and pool.stats.started == 1 and not pool.unsafe
                assert pool.stats.shared >= concurrency - 1
        seen[reuse, concurrency] = [rows[t.id] for t in chosen]
    assert seen[True, 1] == seen[False, 1] == seen[True, 2]
    fresh = seen[False, 1]
    assert all(row[0] is None for row in fresh)
    assert "secret.txt" not in fresh[1][1][0] and "secret.txt" not in fresh[2][1][1]
    assert "fixture text" in fresh[2][1][0] and "secret.txt" not in fresh[3][1][0]
