"""``evolve`` starts servers exactly as ``run`` does: a sandbox for a working directory, our interpreter for
``python``, the config's HTTP headers, for the original server and for the proxy serving each version."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from faults import HOSTILE, MARK_VAR, describe, hostile_http, wait_gone
from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.evolve.lineage import version_server_spec
from mcptrials.servers.config import load_servers
from mcptrials.servers.toolbox import open_toolbox

TOKEN = "Bearer evolve-header-check"


@pytest.fixture
def authed_http_server() -> Iterator[int]:
    """The hostile server over HTTP, answering 401 to requests without the Authorization header."""
    yield from hostile_http(HOSTILE_REQUIRE_AUTH=TOKEN)


def test_evolve_starts_a_stdio_server_like_run(tmp_path: Path, mark: str, monkeypatch: pytest.MonkeyPatch) -> None:
    caller, shims = tmp_path / "caller", tmp_path / "shims"
    caller.mkdir()
    shims.mkdir()
    wrong = shims / "python"  # the first `python` on PATH is not ours
    wrong.write_text("#!/bin/sh\necho 'wrong interpreter' >&2\nexit 9\n")
    wrong.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(caller)
    where = tmp_path / "where.json"
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"hostile": {
        "command": "python", "args": [str(HOSTILE)],
        "env": {"HOSTILE_WHEREFILE": str(where), MARK_VAR: "${" + MARK_VAR + "}"}}}}))
    result = CliRunner().invoke(app, ["evolve", "--server", "hostile", "--servers", str(servers), "--out",
                                      str(tmp_path / "evo"), "--rounds", "2"])
    assert result.exit_code == 0, result.output
    seen = json.loads(where.read_text())
    assert seen["executable"] == sys.executable
    assert Path(seen["cwd"]).name == "sandbox" and Path(seen["cwd"]) != caller
    assert not Path(seen["cwd"]).exists()  # the sandbox was removed afterwards
    assert list(caller.iterdir()) == []
    left = wait_gone(mark)
    assert left == [], describe(left)


def test_evolve_passes_http_headers_to_the_server_and_the_proxy(tmp_path: Path, authed_http_server: int,
                                                                mark: str) -> None:
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"web": {"url": f"http://127.0.0.1:{authed_http_server}/mcp",
                                                          "headers": {"Authorization": TOKEN}}}}))
    result = CliRunner().invoke(app, ["evolve", "--server", "web", "--servers", str(servers), "--out",
                                      str(tmp_path / "evo"), "--rounds", "1"])
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "evo" / "v1" / "tools.json").read_text())["tools"]
    spec = version_server_spec(load_servers(servers)["web"], tmp_path / "evo", "v1")
    assert TOKEN not in json.dumps(spec.public_view())  # the headers travel in the masked env
    box_dir = tmp_path / "box"
    box_dir.mkdir()

    async def served() -> list[str]:
        async with open_toolbox([spec], box_dir) as box:
            assert not box.failures, box.failures
            return sorted(t.name for t in box.tools)

    assert anyio.run(served) == sorted(t["name"] for t in written)
    left = wait_gone(mark)
    assert left == [], describe(left)
