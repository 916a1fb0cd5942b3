"""Stopping the runner (SIGTERM, SIGINT, SIGKILL) leaves no server process behind and loses or doubles nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults import describe, marked, nap_task, run_command, stored, wait_gone, write_world

from mcptrials.servers.guard import enabled as guard_enabled

pytestmark = pytest.mark.skipif(not guard_enabled(), reason="process guards need Linux /proc")


def _start(tmp_path: Path, seconds: float = 30.0) -> tuple[subprocess.Popen[str], list[str], Path, Path]:
    tasks = [nap_task("quick-0", 0.0), nap_task("quick-1", 0.0), nap_task("slow", seconds)]
    tasks_path, servers_path = write_world(tmp_path, tasks)
    db = tmp_path / "runs.db"
    temp = tmp_path / "tmp"
    temp.mkdir()
    cmd = run_command(tasks_path, servers_path, db, "--concurrency", "3")
    env = {**os.environ, "TMPDIR": str(temp), "COLUMNS": "120"}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return proc, cmd, db, temp


def _wait_for(db: Path, count: int, proc: subprocess.Popen[str], mark: str, servers: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if len(stored(db)) >= count and len([p for p in marked(mark) if "sleep" in p.name()]) >= servers:
            return
        time.sleep(0.1)
    raise AssertionError(f"run did not reach {count} stored episodes (exit {proc.poll()})")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_runner_stopped_by_a_signal_cleans_up_and_resumes(tmp_path: Path, mark: str, sig: int) -> None:
    proc, cmd, db, temp = _start(tmp_path)
    _wait_for(db, 2, proc, mark, servers=2)  # the slow episode's server and its children are running
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + sig, err
    assert "interrupted: finished episodes are stored" in err
    assert "Traceback" not in err
    left = wait_gone(mark)
    assert left == [], describe(left)
    assert sorted(stored(db)) == [("quick-0", 0), ("quick-1", 0)]  # the interrupted episode is not stored
    assert [p.name for p in temp.iterdir() if p.name.startswith("mcptrials-")] == []  # sandboxes, fork dir

    tasks_file = Path(cmd[cmd.index("--tasks") + 1])
    tasks_file.write_text(tasks_file.read_text().replace('"seconds": 30.0', '"seconds": 0.0'))
    # a shorter nap changes no key: the agent-visible prompt is the same, the reference is scoring-only
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "TMPDIR": str(temp)})
    assert again.returncode == 0, again.stderr
    assert "resuming, 2 episode(s) already stored, 1 to run" in again.stderr
    assert sorted(stored(db)) == [("quick-0", 0), ("quick-1", 0), ("slow", 0)]
    assert wait_gone(mark) == []


@pytest.mark.slow
def test_servers_die_with_a_sigkilled_runner(tmp_path: Path, mark: str) -> None:
    proc, _, db, _ = _start(tmp_path)
    _wait_for(db, 2, proc, mark, servers=2)
    before = marked(mark)
    assert any("hostile_server" in " ".join(p.cmdline()) for p in before)
    proc.kill()
    proc.communicate(timeout=10)
    t0 = time.monotonic()
    left = wait_gone(mark, timeout=10)
    assert left == [], describe(left)
    assert time.monotonic() - t0 < 5  # the guards notice within their half-second poll, or at once
    assert sorted(stored(db)) == [("quick-0", 0), ("quick-1", 0)]


@pytest.mark.slow
def test_the_next_command_sweeps_the_temp_folders_a_sigkilled_runner_left(tmp_path: Path, mark: str) -> None:
    """SIGKILL skips every clean-up: the next command removes that process's temp folders, and only those."""
    proc, _, db, temp = _start(tmp_path)
    _wait_for(db, 2, proc, mark, servers=2)
    proc.kill()
    proc.communicate(timeout=10)
    left = sorted(p.name for p in temp.iterdir())
    assert left and all(name.startswith("mcptrials-") for name in left), left  # sandboxes, pool, fork server
    live = temp / f"mcptrials-episode-{os.getpid()}-running"  # a folder of this (live) test process
    live.mkdir()
    foreign = temp / "mcptrials-abcd1234"  # named otherwise (an older version's): not ours to judge
    foreign.mkdir()
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.txt").write_text("not a temp folder")
    link = temp / f"mcptrials-episode-{proc.pid}-link"  # named like the dead run's, but a symlink: never followed
    link.symlink_to(target)

    done = subprocess.run([sys.executable, "-m", "mcptrials.cli", "tasks", "list"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "TMPDIR": str(temp)})
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in temp.iterdir()) == sorted([live.name, foreign.name, link.name])
    assert (target / "keep.txt").read_text() == "not a temp folder"
    assert wait_gone(mark) == []
