"""The mutation proxy as real stdio subprocesses: in front of the toy server and mcp-server-time.

The time server is evolved for three rounds, one plan per round, chained through ``parent``:
v1 (O6) tightens ``convert_time.time``, v2 (O2) replaces ``get_current_time`` by ``now``, v3 (O3)
retires ``convert_time`` into ``now``. Each version is served by the proxy, the served tool
lists are diffed and checked against the round's operator, and v0 reference calls rewritten
for each version still work through the proxy.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from mcptrials.evolve.diff import diff_tool_lists
from mcptrials.evolve.operators import get_operator
from mcptrials.evolve.plan import load_plan_chain

TIME_PLANS = Path(__file__).parent / "plans" / "time"
TIME_SERVER = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def proxy_command(plans: list[Path], upstream: list[str], *extra: str) -> list[str]:
    args = [sys.executable, "-m", "mcptrials.evolve.proxy", *extra]
    for plan in plans:
        args += ["--plan", str(plan)]
    return [*args, "--upstream-command", *upstream]


@asynccontextmanager
async def proxy(plans: list[Path], upstream: list[str]) -> AsyncIterator[Client]:
    command = proxy_command(plans, upstream)
    async with Client(StdioServerParameters(command=command[0], args=command[1:]), cache=None) as client:
        yield client


async def wire_tools(client: Client) -> list[dict[str, Any]]:
    return [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in (await client.list_tools()).tools]


def text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


TOY_PLAN = """
version: v1
operations:
  - {op: rename_tool, operator: O2, tool: greet, new_name: salute}
  - {op: constrain_param, operator: O6, tool: add, param: a, set: {minimum: 0, maximum: 9}}
  - {op: add_tool, operator: O1, name: shout, description: Echo in capitals., alias_of: echo,
     fixed_args: {upper: true}}
"""


async def test_proxy_subprocess_in_front_of_the_toy_server(tmp_path: Path, toy_server_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(TOY_PLAN)
    async with proxy([plan], [sys.executable, str(toy_server_path)]) as client:
        names = [t["name"] for t in await wire_tools(client)]
        assert names == ["add", "salute", "echo", "count_chars", "shout"]
        assert text(await client.call_tool("salute", {"name": "Ada"})) == "Hello, Ada!"
        assert text(await client.call_tool("shout", {"text": "hi"})) == "HI"
        result = await client.call_tool("add", {"a": 12, "b": 1})
        assert result.is_error
        assert text(result) == "Invalid arguments for tool 'add': parameter 'a': 12 is greater than the maximum of 9"
        ok = await client.call_tool("add", {"a": 2, "b": 1})
        assert (text(ok), ok.structured_content) == ("3", {"result": 3})
        unknown = await client.call_tool("greet", {"name": "Ada"})
        assert unknown.is_error and text(unknown) == "Unknown tool: greet"


def run_proxy_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcptrials.evolve.proxy", *args], capture_output=True,
                          text=True, timeout=60, check=False)


@pytest.mark.slow
def test_proxy_cli_reports_bad_input(tmp_path: Path, toy_server_path: Path) -> None:
    upstream = ["--upstream-command", sys.executable, str(toy_server_path)]
    missing = run_proxy_cli("--plan", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "give exactly one of --upstream-command" in missing.stderr
    absent = run_proxy_cli("--plan", str(tmp_path / "nope.yaml"), *upstream)
    assert absent.returncode == 2 and "nope.yaml: no such plan file" in absent.stderr
    misfit = tmp_path / "misfit.yaml"
    misfit.write_text("version: v1\noperations: [{op: remove_tool, operator: O3, tool: nothing}]\n")
    result = run_proxy_cli("--plan", str(misfit), *upstream)
    assert result.returncode == 2
    assert "plan v1, operation 1 (remove_tool, O3): no tool named 'nothing'" in result.stderr
    broken = run_proxy_cli("--upstream-command", sys.executable, "-c", "import sys; sys.exit(3)")
    assert broken.returncode == 1 and "upstream server failed" in broken.stderr


# --------------------------------------------------------------------------- mcp-server-time, 3 rounds

needs_time_server = pytest.mark.skipif(importlib.util.find_spec("mcp_server_time") is None,
                                       reason="mcp-server-time is not installed")

ROUNDS = {"v1": [TIME_PLANS / "round1.yaml"], "v2": [TIME_PLANS / "round2.yaml"],
          "v3": [TIME_PLANS / "round3.yaml"]}
CONVERT = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
CURRENT = {"timezone": "Europe/Paris"}


@needs_time_server
@pytest.mark.slow
async def test_time_server_evolved_for_three_rounds() -> None:
    chain = load_plan_chain(ROUNDS["v3"])
    async with Client(StdioServerParameters(command=TIME_SERVER[0], args=TIME_SERVER[1:]), cache=None) as raw:
        v0_direct = await wire_tools(raw)
    served: dict[str, list[dict[str, Any]]] = {}
    async with proxy([], TIME_SERVER) as client:
        served["v0"] = await wire_tools(client)
        assert "+9.0h" in text(await client.call_tool("convert_time", CONVERT))
    assert served["v0"] == v0_direct

    for version, plans in ROUNDS.items():
        async with proxy(plans, TIME_SERVER) as client:
            served[version] = await wire_tools(client)
            tools = {t["name"]: t for t in served[version]}
            versioned = chain.upto(version)
            # v0 reference calls, rewritten for this version, still work through the proxy
            for old_tool, args in (("convert_time", CONVERT), ("get_current_time", CURRENT)):
                tool, new_args = versioned.rewrite_call(old_tool, args)
                assert tool in tools
                result = await client.call_tool(tool, new_args)
                assert not result.is_error, (version, tool, text(result))
                assert ("+9.0h" if old_tool == "convert_time" else "Europe/Paris") in text(result)
            if version == "v1":
                assert list(tools) == ["get_current_time", "convert_time"]
                bad = await client.call_tool("convert_time", {**CONVERT, "time": "9:00"})
                assert bad.is_error and "parameter 'time': '9:00' does not match" in text(bad)
            if version == "v2":
                assert list(tools) == ["now", "convert_time"]
                assert list(tools["now"]["inputSchema"]["properties"]) == ["tz"]
                stale = await client.call_tool("now", {"timezone": "UTC"})
                assert stale.is_error and "unexpected parameter(s) timezone" in text(stale)
            if version == "v3":
                assert list(tools) == ["now"]
                props = tools["now"]["inputSchema"]["properties"]
                assert list(props) == ["mode", "tz", "source_timezone", "time", "target_timezone"]
                assert props["mode"]["enum"] == ["current", "convert"]
                gone = await client.call_tool("convert_time", CONVERT)
                assert gone.is_error and text(gone) == "Unknown tool: convert_time"
                missing = await client.call_tool("now", {"mode": "convert", "time": "12:00"})
                assert missing.is_error and "source_timezone, target_timezone (needed when mode='convert')" in (
                    text(missing))
                late = await client.call_tool("now", {**CONVERT, "mode": "convert", "time": "25:00"})
                assert late.is_error and "does not match" in text(late)  # round-1 constraint survives

    expected = {"v1": ["P9"], "v2": ["P5"], "v3": ["P6", "P13", "P16", "P17"]}
    order = ["v0", "v1", "v2", "v3"]
    for before, after in itertools.pairwise(order):
        hints = chain.upto(after).replacements() if after == "v2" else None  # the round that renamed
        report = diff_tool_lists(served[before], served[after], replacements=hints)
        assert report.patterns == expected[after], (after, report.patterns)
        operator = get_operator(chain.operators_applied()[after][0])
        assert operator.check(report) == [], (after, operator.check(report))


@needs_time_server
@pytest.mark.slow
def test_dump_tools_writes_the_evolved_list(tmp_path: Path) -> None:
    out = tmp_path / "v3.json"
    result = subprocess.run(proxy_command([TIME_PLANS / "round3.yaml"], TIME_SERVER, "--dump-tools", str(out)),
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert [t["name"] for t in json.loads(out.read_text())["tools"]] == ["now"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.slow
async def test_proxy_in_front_of_an_http_upstream(tmp_path: Path, toy_server_path: Path) -> None:
    port = _free_port()
    upstream = subprocess.Popen([sys.executable, str(toy_server_path), "--http", str(port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        plan = tmp_path / "plan.yaml"
        plan.write_text(TOY_PLAN)
        command = [sys.executable, "-m", "mcptrials.evolve.proxy", "--plan", str(plan),
                   "--upstream-url", f"http://127.0.0.1:{port}/mcp"]
        async with Client(StdioServerParameters(command=command[0], args=command[1:]), cache=None) as client:
            assert "salute" in [t["name"] for t in await wire_tools(client)]
            assert text(await client.call_tool("salute", {"name": "Ada"})) == "Hello, Ada!"
    finally:
        upstream.terminate()
        upstream.wait(timeout=10)
