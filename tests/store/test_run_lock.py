"""The run lock: a second run with the same settings on the same store is refused; a dead holder's lock is taken."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fake_openai import FakeOpenAI, Reply, completion

from mcptrials.store.db import Store, run_locks
from mcptrials.store.lock import STALE_AFTER_S, RunLockedError, acquire, machine_id


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _plant(store: Store, key: str, *, machine: str, pid: int, age_s: float) -> None:
    with store.engine.begin() as conn:
        conn.execute(run_locks.insert().values(key=key, run_id="other", machine=machine, host="elsewhere", pid=pid,
                                               label="m / react / v0", started_at="2026-12-01T00:00:00+00:00",
                                               heartbeat_at=time.time() - age_s))


def test_lock_is_exclusive_per_settings_and_released(any_store_url: str) -> None:
    store = Store(any_store_url)
    held = acquire(store, "settings-a", "run-1", "m / react / v0")
    with pytest.raises(RunLockedError, match=r"another run holds .* \(m / react / v0\): pid \d+"):
        acquire(store, "settings-a", "run-2", "m / react / v0")
    acquire(store, "settings-b", "run-3", "other settings").release()  # other settings: no conflict
    held.release()
    acquire(store, "settings-a", "run-2", "m / react / v0").release()


def test_dead_or_silent_holders_are_taken_over_live_ones_are_not(any_store_url: str) -> None:
    store = Store(any_store_url)
    _plant(store, "dead-here", machine=machine_id(), pid=_dead_pid(), age_s=1)
    acquire(store, "dead-here", "mine", "x").release()  # its process is gone: taken at once
    _plant(store, "silent-there", machine="other-host/boot", pid=1, age_s=STALE_AFTER_S + 5)
    acquire(store, "silent-there", "mine", "x").release()  # no heartbeat for too long
    _plant(store, "alive-there", machine="other-host/boot", pid=1, age_s=5)
    with pytest.raises(RunLockedError, match="pid 1 on elsewhere"):
        acquire(store, "alive-there", "mine", "x")
    _plant(store, "alive-here", machine=machine_id(), pid=os.getpid(), age_s=STALE_AFTER_S * 3)
    with pytest.raises(RunLockedError):  # alive on this machine: never stale, whatever the heartbeat
        acquire(store, "alive-here", "mine", "x")


def _run_cmd(example_tasks_path: Path, db: str, *extra: str, who: tuple[str, ...] = ("--agent", "reference")
             ) -> list[str]:
    return [sys.executable, "-m", "mcptrials.cli", "run", *who, "--tasks", str(example_tasks_path),
            "--servers", str(example_tasks_path.with_name("servers.json")), "--concurrency", "1", "--db", db, *extra]


@pytest.mark.slow
def test_second_identical_run_is_told_another_run_holds_the_store(tmp_path: Path, example_tasks_path: Path) -> None:
    """The first run is held inside its first model request until the second has been refused: no race."""
    db = str(tmp_path / "runs.db")
    release = threading.Event()

    def held(_request: dict[str, Any]) -> Reply:
        release.wait(120)
        return completion("Done.")

    with FakeOpenAI(responder=held) as fake:
        model = ("--model", "openai:m", "--base-url", fake.base_url)
        cmd = _run_cmd(example_tasks_path, db, "--attempts", "3", who=model)
        env = {**os.environ, "COLUMNS": "200", "OPENAI_API_KEY": "sk-test"}
        first = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        try:
            deadline = time.time() + 60
            while time.time() < deadline and not fake.requests:  # the first run holds the lock and waits on us
                time.sleep(0.1)
            assert fake.requests, "the first run never asked its model"
            second = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
            assert first.poll() is None
        finally:
            release.set()
            first.wait(120)
    assert second.returncode == 2, second.stderr
    assert "another run holds" in second.stderr and f"pid {first.pid}" in second.stderr
    assert "Traceback" not in second.stderr
    other = subprocess.run(_run_cmd(example_tasks_path, db, "--attempts", "1", "--call-timeout", "30"),
                           capture_output=True, text=True, env=env, timeout=120)
    assert other.returncode == 0, other.stderr  # other settings run alongside
    _, stderr = first.communicate(timeout=180)
    assert first.returncode == 0, stderr
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 0 and "9 episode(s) already stored, 0 to run" in again.stderr
    store = Store(db)
    keys = [e.key() for e in store.episodes()]
    assert len(keys) == len(set(keys)) == 9 + 3
    with store.engine.connect() as conn:
        assert conn.execute(run_locks.select()).first() is None  # every lock released


async def test_held_lock_beats_and_lets_the_body_errors_through_unwrapped(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import anyio

    from mcptrials.run.runner import FatalRunError
    from mcptrials.store import lock

    monkeypatch.setattr(lock, "HEARTBEAT_S", 0.1)
    store = Store(tmp_path / "r.db")

    def heartbeat() -> float:
        with store.engine.connect() as conn:
            return float(conn.execute(run_locks.select()).one().heartbeat_at)

    with pytest.raises(FatalRunError, match="quota"):  # the CLI maps it to exit 3: it must not be wrapped
        async with lock.hold_run_lock(store, "k", "run-1", "x"):
            first = heartbeat()
            await anyio.sleep(0.4)
            assert heartbeat() > first
            raise FatalRunError("quota exhausted")
    with store.engine.connect() as conn:
        assert conn.execute(run_locks.select()).first() is None
