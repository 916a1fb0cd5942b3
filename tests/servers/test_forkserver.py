"""Forked servers behave like cold-started ones: own sandbox, env, crash reporting, clean exit."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from mcptrials.model import ServerSpec
from mcptrials.servers import forkserver
from mcptrials.servers.clock import faketime_available
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


# --------------------------------------------------------------------------- third-party Python servers

WHOAMI = '''import json, os, random, sys
from mcp.server import MCPServer

mcp = MCPServer("whoami", log_level="WARNING")
calls = []


@mcp.tool()
def whoami() -> str:
    """What this process is and sees."""
    calls.append(1)
    return json.dumps({"pid": os.getpid(), "cwd": os.getcwd(), "path0": sys.path[0], "argv": sys.argv[1:],
                       "colour": os.environ.get("COLOUR"), "calls": len(calls), "draw": random.random(),
                       "main": __name__})


if __name__ == "__main__":
    mcp.run()
'''


def console_script(folder: Path, shebang: str, body: str = WHOAMI) -> Path:
    """A file like the ones pip writes into an environment's bin folder."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "whoami-server"
    script.write_text(f"#!{shebang}\n{body}")
    script.chmod(0o755)
    return script


def test_only_what_this_interpreter_would_run_is_forked(tmp_path: Path) -> None:
    here = sys.executable
    mine = console_script(tmp_path / "bin", here)
    target = forkserver.python_target
    assert target(str(mine), ["--port", "1"], {}) == (forkserver.SCRIPT_PREFIX + str(mine), ["--port", "1"])
    assert target(here, ["-m", "pkg.server", "-v"], {}) == ("pkg.server", ["-v"])
    assert target(here, [str(mine)], {}) is None  # not a .py file: python would still run it, but say so plainly
    plain = tmp_path / "srv.py"
    plain.write_text(WHOAMI)
    assert target(here, [str(plain), "x"], {}) == (forkserver.SCRIPT_PREFIX + str(plain), ["x"])
    assert target(here, ["-c", "print(1)"], {}) is None
    assert target(here, ["-X", "dev", "-m", "pkg"], {}) is None  # interpreter options act at start-up
    # another environment's Python, options on the #! line, another language: a cold start
    assert target(str(console_script(tmp_path / "other", "/opt/elsewhere/bin/python3")), [], {}) is None
    assert target(str(console_script(tmp_path / "flags", f"{here} -I")), [], {}) is None
    assert target(str(console_script(tmp_path / "node", "/usr/bin/env node", "console.log(1)\n")), [], {}) is None
    # variables that only act when an interpreter starts, and a preload of the user's own
    for env in ({"PYTHONHASHSEED": "0"}, {"PYTHONOPTIMIZE": "1"}, {"LD_PRELOAD": "/lib/x.so"}):
        assert target(str(mine), [], env) is None, env
    assert target(str(mine), [], {"PYTHONPATH": "/x", "PYTHONUNBUFFERED": "1"}) is not None


def test_a_pythonpath_with_its_own_copy_of_a_loaded_package_starts_cold(tmp_path: Path) -> None:
    """An old release installed with ``pip install --target`` next to the mcp it needs: a forked child would import
    the template's mcp instead (and fail), so it starts cold."""
    import mcp  # noqa: F401 - the template and this process have it loaded

    pinned, plain = tmp_path / "pinned", tmp_path / "plain"
    (pinned / "mcp").mkdir(parents=True)
    (pinned / "mcp_server_time").mkdir()
    (plain / "mcp_server_time").mkdir(parents=True)
    target = forkserver.python_target
    assert target(sys.executable, ["-m", "mcp_server_time"], {"PYTHONPATH": str(pinned)}) is None
    assert target(sys.executable, ["-m", "mcp_server_time"], {"PYTHONPATH": f"/gone:{plain}"}) == (
        "mcp_server_time", [])


async def test_a_third_party_console_script_is_forked_and_behaves_like_a_cold_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = console_script(tmp_path / "bin", sys.executable)
    spec = ServerSpec(name="who", command=str(script), args=["--flag", "v"], env={"COLOUR": "teal"})
    seen = []
    for forking in ("1", "1", "0"):
        monkeypatch.setenv("MCPTRIALS_FORKSERVER", forking)
        sandbox = tmp_path / f"sandbox{len(seen)}"
        sandbox.mkdir()
        async with open_toolbox([spec], sandbox) as box:
            assert not box.failures, box.failures
            assert (box.connections["who"]._forks is not None) == (forking == "1")
            _, _, out = await box.call("who__whoami", {})
        seen.append(json.loads(out.content))
    assert len({s.pop("pid") for s in seen}) == 3  # a fresh process every time
    assert len({s.pop("draw") for s in seen}) == 3  # and its own random state, as a cold start has
    for one, sandbox in zip(seen, ("sandbox0", "sandbox1", "sandbox2"), strict=True):
        assert one.pop("cwd") == str(tmp_path / sandbox)
    assert seen[0] == seen[1] == seen[2] == {"path0": str(script.parent), "argv": ["--flag", "v"], "colour": "teal",
                                              "calls": 1, "main": "__main__"}


@pytest.mark.skipif(not faketime_available(), reason="libfaketime (Debian package faketime) not installed")
async def test_each_frozen_clock_has_its_own_template_up_to_a_cap(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked child cannot be given libfaketime, so it comes from a template started under its clock;
    past the cap a new clock means a cold start, which must tell the same time."""
    monkeypatch.setattr(forkserver, "MAX_CLOCK_TEMPLATES", 1)
    monkeypatch.setattr(forkserver, "_instances", {})
    script = Path(__file__).with_name("adversarial_server.py")
    spec = ServerSpec(name="clock", command=sys.executable, args=[str(script)])
    plan = [("2026-04-13T09:00:00+08:00", True, "2026-04-13T01:00:00"),
            ("2026-05-01T12:00:00+00:00", False, "2026-05-01T12:00:00"),
            ("2026-04-13T09:00:00+08:00", True, "2026-04-13T01:00:00")]
    try:
        for i, (now, forked, utc) in enumerate(plan):
            sandbox = tmp_path / f"s{i}"
            sandbox.mkdir()
            async with open_toolbox([spec], sandbox, now=now) as box:
                assert not box.failures, box.failures
                assert (box.connections["clock"]._forks is not None) == forked, now
                _, _, out = await box.call("clock__now", {})
            assert out.content.replace("+00:00", "Z").startswith(utc), (now, out.content)
    finally:
        for server in forkserver._instances.values():
            server.close()
