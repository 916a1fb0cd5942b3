"""Real third-party servers (PyPI and npm) through the whole client: isolation, clock, transports."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from mcptrials.agents.reference import ReferenceAgent
from mcptrials.cli import app
from mcptrials.model import PlannedCall, ServerSpec, Task, TaskSpec, ValueCheckpoint
from mcptrials.run.runner import RunPlan, execute
from mcptrials.servers.clock import faketime_available
from mcptrials.servers.config import parse_servers
from mcptrials.servers.isolation import probe
from mcptrials.servers.sandbox import episode_sandbox
from mcptrials.servers.toolbox import open_toolbox
from mcptrials.store.db import Store

ENTITY = {"entities": [{"name": "Ada", "entityType": "person", "observations": ["likes tea"]}]}


def memory_task() -> Task:
    return Task(id="mem-1", prompt="Remember Ada.", servers=["mem"],
                spec=TaskSpec(checkpoints=[ValueCheckpoint(id="c1", contains=["Ada"])]),
                reference=[PlannedCall(tool="mem__create_entities", args=ENTITY),
                           PlannedCall(tool="mem__read_graph", args={})])


def memory_spec(npm_bin: Path, memory_file: str) -> dict[str, ServerSpec]:
    return parse_servers({"mcpServers": {"mem": {"command": str(npm_bin / "mcp-server-memory"),
                                                 "env": {"MEMORY_FILE_PATH": memory_file}}}}, "cfg", environ={})


async def _three_attempts(specs: dict[str, ServerSpec], db: Path) -> list[list[str]]:
    store = Store(db)
    plan = RunPlan(servers=specs, tasks=[memory_task()], agent=ReferenceAgent(), model=None, attempts=3,
                   concurrency=1)
    result = await execute(plan, store)
    assert result.completed == 3 and result.counts["infra_error"] == 0
    episodes = sorted(store.episodes(), key=lambda e: e.attempt)
    return [[call.content for call in e.tool_calls] for e in episodes]


@pytest.mark.slow
def test_memory_state_is_isolated_per_attempt_with_the_sandbox_variable(npm_bin: Path, tmp_path: Path) -> None:
    isolated = anyio.run(_three_attempts, memory_spec(npm_bin, "${MCPTRIALS_SANDBOX}/memory.jsonl"),
                         tmp_path / "a.db")
    # every attempt creates Ada afresh and sees only its own graph
    assert all(calls == isolated[0] for calls in isolated)
    assert '"name": "Ada"' in isolated[0][0] and isolated[0][1].count('"name": "Ada"') == 1
    # the same server with a fixed path outside the sandbox leaks attempt 1 into attempts 2 and 3
    leaky = anyio.run(_three_attempts, memory_spec(npm_bin, str(tmp_path / "shared.jsonl")), tmp_path / "b.db")
    assert '"name": "Ada"' in leaky[0][0] and '"name": "Ada"' not in leaky[1][0]


def test_isolation_probe_flags_a_server_with_state_outside_the_sandbox(npm_bin: Path, tmp_path: Path) -> None:
    task = memory_task()
    leaks, problems, probed = anyio.run(probe, [task], memory_spec(npm_bin, str(tmp_path / "shared.jsonl")))
    assert probed == 1 and not problems
    assert [(leak.server, leak.tool, leak.call) for leak in leaks] == [("mem", "create_entities", 0)]
    assert "server 'mem' keeps state outside the sandbox" in leaks[0].line()
    leaks, problems, probed = anyio.run(probe, [task], memory_spec(npm_bin, "${MCPTRIALS_SANDBOX}/memory.jsonl"))
    assert probed == 1 and leaks == [] and not problems


def test_isolation_probe_command(npm_bin: Path, tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"mem": {"command": str(npm_bin / "mcp-server-memory"),
                                                         "env": {"MEMORY_FILE_PATH": str(tmp_path / "m.jsonl")}}}}))
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(memory_task().model_dump_json() + "\n")
    result = CliRunner().invoke(app, ["servers", "check", "--isolation", "--servers", str(config),
                                      "--tasks", str(tasks)])
    assert result.exit_code == 1, result.output
    assert "LEAK" in result.output and "server 'mem'" in result.output and "create_entities" in result.output


NOW = "2026-04-13T09:00:00+08:00"


@pytest.mark.skipif(not faketime_available(), reason="libfaketime (Debian package faketime) not installed")
@pytest.mark.parametrize("frozen", [True, False])
def test_time_server_answers_with_the_tasks_now(tmp_path: Path, frozen: bool) -> None:
    spec = ServerSpec(name="time", command="mcp-server-time", faketime=frozen)

    async def ask() -> str:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([spec], sandbox, now=NOW) as box:
                assert not box.failures, box.failures
                _, _, outcome = await box.call("time__get_current_time", {"timezone": "Asia/Shanghai"})
                return outcome.content

    answer = json.loads(anyio.run(ask))
    assert (answer["datetime"] == NOW) is frozen, answer


@pytest.mark.parametrize("everything_http", ["sse", "streamableHttp"], indirect=True)
def test_everything_server_over_http_transports(everything_http: str, tmp_path: Path, request) -> None:
    mode = request.node.callspec.params["everything_http"]
    entry = {"type": "sse", "url": f"{everything_http}/sse"} if mode == "sse" else \
        {"type": "http", "url": f"{everything_http}/mcp"}
    specs = parse_servers({"servers": {"every": entry}}, "cfg", environ={})
    assert _echo(specs["every"], tmp_path) == "Echo: over the wire"


def test_everything_server_over_stdio(npm_bin: Path, tmp_path: Path) -> None:
    spec = ServerSpec(name="every", command=str(npm_bin / "mcp-server-everything"), args=["stdio"])
    assert _echo(spec, tmp_path) == "Echo: over the wire"


def _echo(spec: ServerSpec, tmp_path: Path) -> str:
    async def go() -> str:
        with episode_sandbox(parent=tmp_path) as sandbox:
            async with open_toolbox([spec], sandbox) as box:
                assert not box.failures, box.failures
                _, _, outcome = await box.call("every__echo", {"message": "over the wire"})
                return outcome.content
    return anyio.run(go)


def test_isolation_probe_undoes_what_its_plays_wrote(npm_bin: Path, tmp_path: Path) -> None:
    """The probe's writes to a shared file are undone: a new file is removed, an existing one put back as it was."""
    shared = tmp_path / "shared.jsonl"
    leaks, _, probed = anyio.run(probe, [memory_task()], memory_spec(npm_bin, str(shared)))
    assert probed == 1 and [leak.server for leak in leaks] == ["mem"]
    assert not shared.exists()  # the next real run's first attempt starts from nothing, as it would have

    earlier = '{"type":"entity","name":"Bob","entityType":"person","observations":["likes coffee"]}\n'
    shared.write_text(earlier)
    leaks, _, _ = anyio.run(probe, [memory_task()], memory_spec(npm_bin, str(shared)))
    assert [leak.server for leak in leaks] == ["mem"]
    assert shared.read_text() == earlier


def _run_memory(npm_bin: Path, tmp_path: Path, memory_file: str, db: str) -> str:
    """``mcptrials run`` of the memory task, three attempts; its stderr."""
    import os
    import subprocess
    import sys

    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"mem": {"command": str(npm_bin / "mcp-server-memory"),
                                                         "env": {"MEMORY_FILE_PATH": memory_file}}}}))
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(memory_task().model_dump_json() + "\n")
    done = subprocess.run([sys.executable, "-m", "mcptrials.cli", "run", "--servers", str(config), "--tasks",
                           str(tasks), "--agent", "reference", "--attempts", "3", "--concurrency", "1", "--db",
                           str(tmp_path / db)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "400"})
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_run_warns_once_when_a_server_keeps_state_across_attempts(npm_bin: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared.jsonl"
    err = _run_memory(npm_bin, tmp_path, str(shared), "a.db")
    warned = [line for line in err.splitlines() if line.startswith("warning:")]
    assert warned == [f"warning: server 'mem' changed {shared} (named in its config) outside the episode sandbox: "
                      "later attempts start from that state; give it a per-episode path such as "
                      "${MCPTRIALS_SANDBOX}/... (check: mcptrials servers check --isolation)"]
    isolated = _run_memory(npm_bin, tmp_path, "${MCPTRIALS_SANDBOX}/memory.jsonl", "b.db")
    assert "warning:" not in isolated
