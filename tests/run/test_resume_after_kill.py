"""Kill the runner with SIGKILL mid-run, re-run the same command: every episode exactly once."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("select count(*) from episodes").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_sigkill_mid_run_then_resume(tmp_path: Path, example_tasks_path: Path) -> None:
    db = tmp_path / "runs.db"
    cmd = [sys.executable, "-m", "mcptrials.cli", "run", "--model", "scripted:reference", "--agent", "react",
           "--tasks", str(example_tasks_path),
           "--servers", str(example_tasks_path.with_name("servers.json")),
           "--attempts", "5", "--concurrency", "2", "--db", str(db)]
    env = {**os.environ, "COLUMNS": "120"}
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            start_new_session=True)
    deadline = time.time() + 120
    while _count(db) < 3 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed; make it longer"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    stored_at_kill = _count(db)
    assert 3 <= stored_at_kill < 15

    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"resuming, {stored_at_kill} episode(s) already stored" in done.stderr
    with sqlite3.connect(db) as conn:
        keys = conn.execute("select task_id, attempt from episodes").fetchall()
        scored = conn.execute("select count(distinct episode_id) from scores where scorer='effects'").fetchone()[0]
    assert len(keys) == 15 and len(set(keys)) == 15
    assert scored == 15
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 0 and "resuming, 15 episode(s) already stored, 0 to run" in again.stderr
    assert _count(db) == 15
