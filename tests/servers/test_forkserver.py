"""Forked servers behave like cold-started ones: own sandbox, env, crash reporting, clean exit."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mcptrials.model import ServerSpec
from mcptrials.servers import forkserver
from mcptrials.servers.toolbox import open_toolbox

pytestmark = pytest.mark.skipif(not forkserver.enabled(), reason="this platform has no fork/send_fds")


def bundled_notes() -> ServerSpec:
    return ServerSpec(name="notes", command=sys.executable, args=["-m", "mcptrials.examples.notes_server"],
                      tags=["bundled"])


async def test_forked_servers_are_isolated_per_sandbox(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    async with open_toolbox([bundled_notes()], a) as box_a, open_toolbox([bundled_notes()], b) as box_b:
        assert box_a.connections["notes"]._forks is not None
        await box_a.call("notes__write_file", {"path": "x.md", "content": "from a"})
        _, _, listing = await box_b.call("notes__list_files", {})
        assert listing.content == ""
        _, _, escape = await box_b.call("notes__read_file", {"path": "../a/x.md"})
        assert escape.is_error and "not allowed" in escape.content
    assert (a / "x.md").read_text() == "from a" and not (b / "x.md").exists()


async def test_forked_server_sees_the_episode_environment(tmp_path: Path) -> None:
    spec = ServerSpec(name="rail", command=sys.executable, args=["-m", "mcptrials.examples.trains_server"],
                      tags=["bundled"], env={"EXTRA": "1"})
    async with open_toolbox([spec], tmp_path, now="2026-04-13T09:00:00+08:00") as box:
        conn = box.connections["rail"]
        assert conn._forks is not None
        _, _, out = await box.call("rail__get_station_codes", {"city": "Beijing"})
        assert not out.is_error


async def test_crash_of_a_forked_server_is_reported(tmp_path: Path) -> None:
    crashy = ServerSpec(name="faulty", command=sys.executable, args=["-m", "faulty_server"], tags=["bundled"],
                        env={"PYTHONPATH": str(Path(__file__).parents[1] / "support")})
    async with open_toolbox([crashy], tmp_path) as box:
        if "faulty" in box.failures:
            pytest.fail(str(box.failures["faulty"]))
        _, _, out = await box.call("faulty__crash", {})
        assert out.error_kind == "server_crash"


def test_fork_server_stops_when_its_parent_lets_go() -> None:
    server = forkserver.ForkServer()
    assert server.alive and os.path.exists(server.socket_path)
    server.close()
    assert not server.alive and not os.path.exists(server.socket_path)
