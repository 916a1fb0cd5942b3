"""The server layer against real MCP servers over stdio and streamable HTTP, and every fault."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from mcptrials.model import INFRA_ERROR_KINDS, ServerSpec
from mcptrials.servers.toolbox import Limits, open_toolbox


async def test_stdio_servers_start_together_and_namespace_tools(example_specs, tmp_path: Path) -> None:
    async with open_toolbox(example_specs.values(), tmp_path, now="2026-04-13T09:00:00+08:00") as box:
        names = {t.qualified_name for t in box.tools}
        assert {"rail__get_tickets", "notes__write_file"} <= names
        server, tool, out = await box.call("notes__write_file", {"path": "a.md", "content": "hi"})
        assert (server, tool, out.is_error) == ("notes", "write_file", False)
        assert (tmp_path / "a.md").read_text() == "hi"
        _, _, out = await box.call("notes__read_file", {"path": "a.md"})
        assert out.content == "hi"


async def test_one_session_per_server_for_the_whole_episode(faulty_spec, tmp_path: Path) -> None:
    async with open_toolbox([faulty_spec], tmp_path) as box:
        conn = box.connections["faulty"]
        client = conn._client
        for i in range(3):
            _, _, out = await box.call("faulty__echo", {"text": str(i)})
            assert out.content == str(i)
        assert conn._client is client


async def test_unknown_tool_is_a_structured_error(faulty_spec, tmp_path: Path) -> None:
    async with open_toolbox([faulty_spec], tmp_path) as box:
        for name in ("faulty__nope", "nope", "other__echo"):
            _, _, out = await box.call(name, {})
            assert out.is_error and out.error_kind == "unknown_tool"
            assert "faulty__echo" in out.content


async def test_tool_error_is_returned_not_raised(faulty_spec, tmp_path: Path) -> None:
    async with open_toolbox([faulty_spec], tmp_path) as box:
        _, _, out = await box.call("faulty__fail", {"reason": "because"})
        assert out.is_error and out.error_kind == "tool_error" and "because" in out.content


async def test_server_crash_mid_call(faulty_spec, tmp_path: Path) -> None:
    async with open_toolbox([faulty_spec], tmp_path) as box:
        _, _, out = await box.call("faulty__crash", {})
        assert out.is_error and out.error_kind == "server_crash"
        _, _, later = await box.call("faulty__echo", {"text": "x"})
        assert later.error_kind == "server_unavailable"


@pytest.mark.parametrize("tool", ["faulty__hang", "faulty__slow"])
async def test_slow_call_on_a_live_server_is_a_timeout_the_agent_sees(faulty_spec, tmp_path: Path,
                                                                       tool: str) -> None:
    async with open_toolbox([faulty_spec], tmp_path, limits=Limits(call_timeout=1.0)) as box:
        t0 = time.perf_counter()
        _, _, out = await box.call(tool, {"seconds": 30})
        assert time.perf_counter() - t0 < 5
        assert (out.is_error, out.error_kind) == (True, "timeout")
        assert out.error_kind not in INFRA_ERROR_KINDS
        assert "timed out after 1 s" in out.content
        _, _, after = await box.call("faulty__echo", {"text": "still here"})
        assert (after.is_error, after.content) == (False, "still here")


async def test_timeout_on_a_stuck_server_is_infra(faulty_spec, tmp_path: Path) -> None:
    async with open_toolbox([faulty_spec], tmp_path, limits=Limits(call_timeout=1.0)) as box:
        t0 = time.perf_counter()
        _, _, out = await box.call("faulty__freeze", {"seconds": 8})
        assert time.perf_counter() - t0 < 10
        assert (out.is_error, out.error_kind) == (True, "server_unresponsive")
        assert out.error_kind in INFRA_ERROR_KINDS and "timed out after 1 s" in out.content
        _, _, later = await box.call("faulty__echo", {"text": "x"})
        assert later.error_kind == "server_unavailable"


async def test_huge_result_is_capped_and_size_recorded(faulty_spec, tmp_path: Path) -> None:
    async with open_toolbox([faulty_spec], tmp_path, limits=Limits(output_cap=1000)) as box:
        _, _, out = await box.call("faulty__huge", {"size": 500_000})
        assert out.truncated and out.result_bytes == 500_000
        assert "output truncated" in out.content and len(out.content) < 1200


async def test_garbage_on_stdout_does_not_kill_the_episode(faulty_spec, tmp_path: Path) -> None:
    async with open_toolbox([faulty_spec], tmp_path, limits=Limits(call_timeout=5)) as box:
        _, _, out = await box.call("faulty__garbage", {})
        assert (out.is_error, out.content) == (False, "answered after garbage")
        _, _, after = await box.call("faulty__echo", {"text": "still here"})
        assert (after.is_error, after.content) == (False, "still here")


async def test_server_that_fails_to_start_is_reported_with_stderr(tmp_path: Path) -> None:
    bad = ServerSpec(name="bad", command=sys.executable,
                     args=[str(Path(__file__).parents[1] / "support" / "faulty_server.py")],
                     env={"FAULTY_FAIL_START": "1"})
    missing = ServerSpec(name="missing", command="/no/such/binary")
    async with open_toolbox([bad, missing], tmp_path, limits=Limits(start_timeout=20)) as box:
        assert set(box.failures) == {"bad", "missing"}
        assert "missing configuration" in str(box.failures["bad"])
        _, _, out = await box.call("bad__echo", {"text": "x"})
        assert out.error_kind == "server_unavailable"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve_http(*command: str) -> Iterator[str]:
    """Start an MCP server over streamable HTTP on a free port; yield its URL; stop it after."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, *command, "--http", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)


@pytest.fixture
def http_rail_server() -> Iterator[str]:
    yield from _serve_http("-m", "mcptrials.examples.trains_server")


async def test_streamable_http_server(http_rail_server: str, tmp_path: Path) -> None:
    spec = ServerSpec(name="rail", transport="http", url=http_rail_server, headers={"X-Test": "1"})
    async with open_toolbox([spec], tmp_path) as box:
        assert "rail__get_tickets" in {t.qualified_name for t in box.tools}
        _, _, out = await box.call("rail__get_tickets", {"from_station": "VNP", "to_station": "SHH",
                                                         "date": "2026-04-15", "train_type": "G"})
        assert not out.is_error and "G7" in out.content


async def test_concurrent_episodes_do_not_share_state(example_specs, tmp_path: Path) -> None:
    results: dict[int, str] = {}

    async def episode(i: int) -> None:
        box_dir = tmp_path / f"ep{i}"
        box_dir.mkdir()
        async with open_toolbox([example_specs["notes"]], box_dir) as box:
            await box.call("notes__write_file", {"path": "x.md", "content": f"episode {i}"})
            _, _, out = await box.call("notes__list_files", {})
            results[i] = out.content

    async with anyio.create_task_group() as tg:
        for i in range(3):
            tg.start_soon(episode, i)
    assert all(results[i] == "x.md" for i in range(3)), results
    assert {(tmp_path / f"ep{i}" / "x.md").read_text() for i in range(3)} == {f"episode {i}" for i in range(3)}


@pytest.fixture
def http_faulty_server() -> Iterator[str]:
    yield from _serve_http(str(Path(__file__).parents[1] / "support" / "faulty_server.py"))


async def test_http_500_on_a_tool_call_is_infra(http_faulty_server: str, tmp_path: Path) -> None:
    spec = ServerSpec(name="faulty", transport="http", url=http_faulty_server)
    async with open_toolbox([spec], tmp_path, limits=Limits(call_timeout=10)) as box:
        assert not box.failures
        _, _, fine = await box.call("faulty__echo", {"text": "over http"})
        assert (fine.is_error, fine.content) == (False, "over http")
        _, _, tool_failure = await box.call("faulty__fail", {"reason": "agent's fault"})
        assert tool_failure.error_kind == "tool_error"
        _, _, out = await box.call("faulty__http_500", {})
        assert out.is_error and out.error_kind in INFRA_ERROR_KINDS
        assert out.error_kind == "server_crash" and "HTTP 500" in out.content


def test_a_correct_run_on_a_streamable_http_server_prints_only_its_own_lines(http_rail_server: str,
                                                                             tmp_path: Path) -> None:
    """Sessions are closed and their HTTP client with them: no unclosed sockets, no SDK output (``-X dev`` shows
    every ResourceWarning)."""
    import json
    import os

    from mcptrials.model import PlannedCall, Task, TaskSpec, ValueCheckpoint

    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"rail": {"type": "http", "url": http_rail_server}}}))
    task = Task(id="rail-1", prompt="Station codes of Shanghai.", servers=["rail"],
                spec=TaskSpec(checkpoints=[ValueCheckpoint(id="c1", contains=["SHH"])]),
                reference=[PlannedCall(tool="rail__get_station_codes", args={"city": "Shanghai"})],
                reference_answer="SHH")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(task.model_dump_json() + "\n")
    env = {**os.environ, "COLUMNS": "200"}
    for args in (["servers", "list", "--servers", str(config)],
                 ["run", "--servers", str(config), "--tasks", str(tasks), "--agent", "reference", "--attempts", "3",
                  "--db", str(tmp_path / "r.db")]):
        done = subprocess.run([sys.executable, "-X", "dev", "-m", "mcptrials.cli", *args], capture_output=True,
                              text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        for noise in ("ResourceWarning", "unclosed", "Traceback", "Error"):
            assert noise not in done.stderr, (args[0], done.stderr)


def test_sdk_log_records_never_reach_the_terminal_unless_logging_is_configured() -> None:
    """The SDK logs transport hiccups with tracebacks (``logger.exception``) and no handler: they stay quiet."""
    code = ("import logging, mcptrials.servers.connection\n"
            "try:\n    raise RuntimeError('stream closed')\n"
            "except RuntimeError:\n"
            "    logging.getLogger('mcp.client.streamable_http').exception('Error in post_writer')\n")
    quiet = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (quiet.returncode, quiet.stderr) == (0, "")
    configured = subprocess.run([sys.executable, "-c", "import logging; logging.basicConfig()\n" + code],
                                capture_output=True, text=True, timeout=60)
    assert "Error in post_writer" in configured.stderr  # a program that configures logging still sees them
