"""A run that dies leaves a trace a user can act on: the store says how it ended, `report` and `view` say so
and how to resume, and no lock is left to stand in the way of the re-run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from starlette.testclient import TestClient

from mcptrials.agents.react import ReactAgent
from mcptrials.models.scripted import ScriptedModel
from mcptrials.run.runner import RunPlan, execute
from mcptrials.store.db import Store, run_locks, runs
from mcptrials.store.lock import machine_id, process_started
from mcptrials.store.run_status import run_states
from mcptrials.tasks.loader import load_tasks
from mcptrials.view.app import create_app, open_store

ENDED = "ended abnormally (process gone)"
RESUME = "re-run the same command to resume"


def _count(db: Path, table: str = "episodes") -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute(f"select count(*) from {table}").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcptrials.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "250"}, timeout=300)


def _runs_page(db: Path) -> str:
    with TestClient(create_app(*open_store(str(db))), base_url="http://127.0.0.1") as client:
        page = client.get("/")
    assert page.status_code == 200
    return " ".join(page.text.split())


def test_sigkill_mid_run_is_reported_by_report_and_view_and_the_rerun_resumes(
        tmp_path: Path, example_tasks_path: Path) -> None:
    db = tmp_path / "runs.db"
    run = ["run", "--model", "scripted:reference", "--agent", "react", "--tasks", str(example_tasks_path),
           "--servers", str(example_tasks_path.with_name("servers.json")), "--attempts", "5", "--concurrency", "1",
           "--db", str(db)]
    proc = subprocess.Popen([sys.executable, "-m", "mcptrials.cli", *run], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 120
    while _count(db) < 1 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed; make it longer"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert _count(db, "run_locks") == 1  # what SIGKILL leaves: it is no obstacle (below)

    report = _cli("report", "--db", str(db))
    assert report.returncode == 0, report.stderr
    lines = [line for line in report.stdout.splitlines() if ENDED in line]
    assert len(lines) == 1 and RESUME in lines[0] and "scripted:reference / react / v0" in lines[0]
    data = json.loads(_cli("report", "--db", str(db), "--format", "json").stdout)
    [ended] = data["runs_ended_early"]
    assert ended["status"] == "gone" and ended["hint"] == RESUME
    html = _cli("report", "--db", str(db), "--format", "html", "--out", str(tmp_path / "r.html"))
    assert html.returncode == 0 and "Runs that ended early" in (tmp_path / "r.html").read_text()
    page = _runs_page(db)
    assert ENDED in page and RESUME in page

    again = _cli(*run)
    assert again.returncode == 0, again.stderr
    assert "another run holds" not in again.stderr and "resuming," in again.stderr
    assert _count(db) == 15 and _count(db, "run_locks") == 0
    with sqlite3.connect(db) as conn:
        statuses = [r[0] for r in conn.execute("select status from runs order by created_at, id")]
    assert statuses == ["gone", "finished"]  # the re-run marked the dead one when it took its lock
    after = _cli("report", "--db", str(db))
    assert ENDED not in after.stdout  # resumed to the end: nothing left to act on
    page = _runs_page(db)
    assert ENDED in page and "resumed by run" in page


def _plan(example_specs: dict, example_tasks_path: Path, executor: object = None) -> RunPlan:
    tasks = load_tasks(example_tasks_path)[:2]
    plan = RunPlan(servers=example_specs, tasks=tasks, model=ScriptedModel(source="reference"), agent=ReactAgent(),
                   concurrency=1)
    plan.executor = executor  # type: ignore[assignment]
    return plan


def test_an_exception_marks_the_run_failed_and_releases_its_lock(
        tmp_path: Path, example_specs: dict, example_tasks_path: Path) -> None:
    async def broken(*_args: object) -> None:
        raise RuntimeError("the disk is full")

    store = Store(tmp_path / "r.db")
    with pytest.raises(Exception, match=r"unhandled errors|the disk is full"):  # raised through a task group
        anyio.run(execute, _plan(example_specs, example_tasks_path, broken), store)
    [state] = run_states(store)
    assert state.status == "failed" and state.note == "RuntimeError: the disk is full"
    assert state.line().endswith(f"stopped on an error: RuntimeError: the disk is full; fix the cause and {RESUME}")
    assert _count(tmp_path / "r.db", "run_locks") == 0


def test_a_cancelled_run_is_marked_interrupted(tmp_path: Path, example_specs: dict, example_tasks_path: Path) -> None:
    async def forever(*_args: object) -> None:
        await anyio.sleep_forever()

    store = Store(tmp_path / "r.db")

    async def main() -> None:
        with anyio.move_on_after(1):
            await execute(_plan(example_specs, example_tasks_path, forever), store)

    anyio.run(main)
    [state] = run_states(store)
    assert (state.status, state.hint) == ("interrupted", RESUME)
    assert _count(tmp_path / "r.db", "run_locks") == 0


def _row(store: Store, run_id: str, created: str, **owner: object) -> None:
    store.save_run(run_id, "same-settings", {}, {"status": "running", "label": "m / react / v0", **owner})
    with store.engine.begin() as conn:
        conn.execute(runs.update().where(runs.c.id == run_id).values(created_at=created))


def test_liveness_by_process_here_and_by_heartbeat_elsewhere(tmp_path: Path) -> None:
    store = Store(tmp_path / "r.db")
    me = os.getpid()
    _row(store, "a-live-here", "2026-12-01T00:00:01", machine=machine_id(), pid=me, pid_started=process_started(me))
    _row(store, "b-reused-pid", "2026-12-01T00:00:02", machine=machine_id(), pid=me, pid_started="1")
    _row(store, "c-beating-there", "2026-12-01T00:00:03", machine="other/boot", pid=1)
    _row(store, "d-silent-there", "2026-12-01T00:00:04", machine="other/boot", pid=1)
    with store.engine.begin() as conn:
        for run_id, age in (("c-beating-there", 5.0), ("d-silent-there", 3600.0)):
            conn.execute(run_locks.insert().values(key=run_id, run_id=run_id, machine="other/boot", host="there",
                                                   pid=1, label="x", started_at="2026-12-01T00:00:00+00:00",
                                                   heartbeat_at=time.time() - age))
    states = {s.id: s for s in run_states(store)}
    assert states["a-live-here"].status == "running"
    assert states["b-reused-pid"].status == "gone"  # the pid is alive, but it is another process now
    assert states["c-beating-there"].status == "running"
    assert states["d-silent-there"].status == "gone"
    assert states["b-reused-pid"].hint == "being resumed by run c-beating-there"  # same settings, later, running
