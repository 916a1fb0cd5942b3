"""No process of a server outlives its episode: children, daemons, SIGTERM-ignoring servers, forked or not."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from faults import alive, describe, hostile_spec, marked, wait_gone

from mcptrials.servers import forkserver
from mcptrials.servers.guard import enabled as guard_enabled
from mcptrials.servers.toolbox import open_toolbox

pytestmark = pytest.mark.skipif(not guard_enabled(), reason="process guards need Linux /proc")


def _pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.mark.parametrize("forked", [False, True], ids=["cold", "forked"])
async def test_episode_end_kills_server_children_and_escaped_daemons(tmp_path: Path, mark: str,
                                                                     forked: bool) -> None:
    if forked and not forkserver.enabled():
        pytest.skip("this platform has no fork/send_fds")
    pidfile = tmp_path / "pids"
    spec = hostile_spec(forked=forked, HOSTILE_CHILDREN="1", HOSTILE_PIDFILE=str(pidfile))
    box_dir = tmp_path / "box"
    box_dir.mkdir()
    async with open_toolbox([spec], box_dir) as box:
        assert not box.failures, box.failures
        _, _, out = await box.call("hostile__pids", {})
        assert not out.is_error
        started = _pids(pidfile)
        assert len(started) == 3 and len(alive(started)) == 3  # the server, its child, the setsid daemon
    t0 = time.monotonic()
    left = wait_gone(mark)
    assert left == [], describe(left)
    assert alive(started) == []
    assert time.monotonic() - t0 < 8


@pytest.mark.parametrize("forked", [False, True], ids=["cold", "forked"])
async def test_a_server_ignoring_sigterm_and_stdin_eof_is_killed(tmp_path: Path, mark: str, forked: bool) -> None:
    if forked and not forkserver.enabled():
        pytest.skip("this platform has no fork/send_fds")
    pidfile = tmp_path / "pids"
    spec = hostile_spec(forked=forked, HOSTILE_STUBBORN="1", HOSTILE_CHILDREN="1", HOSTILE_PIDFILE=str(pidfile))
    t0 = time.monotonic()
    async with open_toolbox([spec], tmp_path) as box:
        assert not box.failures, box.failures
        if forked:
            assert box.connections["hostile"]._forks is not None
        _, _, out = await box.call("hostile__echo", {"text": "hi"})
        assert out.content == "hi"
    closed = time.monotonic() - t0
    started = _pids(pidfile)
    assert len(started) == 3
    left = wait_gone(mark, timeout=10)
    assert left == [], describe(left)
    assert alive(started) == []
    assert closed < 12  # stdin close 2 s + SIGTERM 2 s + the guard's grace, never unbounded


def test_no_marked_process_before_a_test(mark: str) -> None:
    """The census itself works: this process carries the mark, and is the only one."""
    assert os.environ["MCPTRIALS_FAULT_MARK"] == mark
    assert marked(mark) == []


def test_a_guarded_server_outlives_the_thread_that_spawned_it(tmp_path: Path, mark: str) -> None:
    """The parent-death signal fires when the spawning *thread* ends; the guard checks the process is gone."""
    import subprocess
    import sys
    import threading

    from mcptrials.servers.guard import guarded

    command, args = guarded("sleep", ["600"], os.environ)
    procs: list[subprocess.Popen[bytes]] = []
    spawner = threading.Thread(target=lambda: procs.append(subprocess.Popen(
        [command, *args], stdin=subprocess.PIPE, start_new_session=True)))
    spawner.start()
    spawner.join()
    time.sleep(1.5)  # three of the guard's polls after the thread ended
    (proc,) = procs
    assert proc.poll() is None and len(marked(mark)) == 2  # the guard and the sleeping server
    assert command == sys.executable
    proc.terminate()  # a stop request: the server gets its grace, then everything goes
    assert proc.wait(10) == 128 + 15  # the guard reports the server's death by SIGTERM
    left = wait_gone(mark)
    assert left == [], describe(left)
