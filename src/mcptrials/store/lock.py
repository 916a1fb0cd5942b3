"""The run lock: one run at a time executes a given set of run settings on a store.

A second run with the same settings on the same store is refused with a message naming the
holder, instead of running every episode twice. The holder refreshes a heartbeat; a lock whose
holder is gone (a dead process on this machine, or no heartbeat for ``STALE_AFTER_S`` from any
machine) is taken over, so a run killed with SIGKILL resumes at once on the same machine.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import anyio
from sqlalchemy import Connection, select

from mcptrials.store.db import Store, run_locks, runs
from mcptrials.store.engine import StoreUnreachableError

HEARTBEAT_S = 15.0
STALE_AFTER_S = 90.0
"""A holder on another machine is presumed dead after this long without a heartbeat (allows some clock skew)."""


class RunLockedError(Exception):
    """Another live run holds the lock for these settings on this store."""


@cache
def machine_id() -> str:
    """This machine (and boot): a pid is only meaningful on the machine and boot that issued it."""
    for source in (Path("/proc/sys/kernel/random/boot_id"), Path("/etc/machine-id")):
        try:
            return f"{socket.gethostname()}/{source.read_text().strip()}"
        except OSError:
            continue
    return socket.gethostname()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def process_started(pid: int) -> str | None:
    """When the process ``pid`` started (clock ticks since boot, from /proc), or None where unknown.

    With the pid it names one process: a pid reused by a later process has another start time.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
        return stat[stat.rindex(")") + 2:].split()[19]  # field 22; the name in parentheses may hold spaces
    except (OSError, ValueError, IndexError):
        return None


def process_alive(pid: int, started: str | None) -> bool:
    """Whether the process that had ``pid`` (and start time ``started``, when known) still runs on this machine."""
    if not _alive(pid):
        return False
    now = process_started(pid)
    return started is None or now is None or now == started


def owner(label: str) -> dict[str, object]:
    """This process as the owner of a run: what ``Store.save_run`` records to tell later whether it still runs."""
    return {"status": "running", "label": label[:500], "machine": machine_id(), "host": socket.gethostname(),
            "pid": os.getpid(), "pid_started": process_started(os.getpid())}


@dataclass
class RunLock:
    """A held lock; ``release`` gives it back (only if still ours)."""

    store: Store
    key: str
    run_id: str

    def beat(self) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(run_locks.update().where((run_locks.c.key == self.key) & (run_locks.c.run_id == self.run_id))
                         .values(heartbeat_at=time.time()))

    def release(self) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(run_locks.delete().where((run_locks.c.key == self.key)
                                                  & (run_locks.c.run_id == self.run_id)))


def acquire(store: Store, key: str, run_id: str, label: str) -> RunLock:
    """Take the lock for ``key`` or raise RunLockedError naming the live holder."""
    row = {"key": key, "run_id": run_id, "machine": machine_id(), "host": socket.gethostname(), "pid": os.getpid(),
           "label": label[:500], "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
           "heartbeat_at": time.time()}
    for _ in range(5):  # a concurrent taker can win a race; look again
        with store.engine.begin() as conn:
            if conn.execute(store._insert_ignore(run_locks, [row], ["key"]).returning(run_locks.c.key)).first():
                return RunLock(store, key, run_id)
            holder = conn.execute(select(run_locks).where(run_locks.c.key == key)).first()
            if holder is None:
                continue
            if not stale(holder.machine, holder.pid, holder.heartbeat_at, _started(conn, holder.run_id)):
                age = max(0.0, time.time() - holder.heartbeat_at)
                raise RunLockedError(
                    f"another run holds {store.url} for these settings ({holder.label}): "
                    f"pid {holder.pid} on {holder.host}, started {holder.started_at}, last heartbeat {age:.0f}s ago. "
                    "Wait for it to finish (then re-run to pick up anything left), or stop it; a lock whose run "
                    f"died is taken over at once on its machine, or after {STALE_AFTER_S:.0f}s without heartbeat.")
            taken = conn.execute(run_locks.update().where(
                (run_locks.c.key == key) & (run_locks.c.run_id == holder.run_id)).values(**row)
                .returning(run_locks.c.key)).first()
            if taken is not None:
                _mark_gone(conn, [holder.run_id])
                return RunLock(store, key, run_id)
    raise RunLockedError(f"could not take the run lock on {store.url}: other runs keep taking it")


def stale(machine: str, pid: int, heartbeat_at: float, started: str | None = None) -> bool:
    """Whether a lock's holder is gone: a dead process on this machine (``started``: its start time, when
    known, so a reused pid does not pass for it), or no heartbeat for too long from another machine."""
    if machine == machine_id():
        return not process_alive(pid, started)
    return time.time() - heartbeat_at > STALE_AFTER_S


def _started(conn: Connection, run_id: str) -> str | None:
    """The start time of the process that runs ``run_id``, as its run row records it."""
    return conn.execute(select(runs.c.pid_started).where(runs.c.id == run_id)).scalar()


def _mark_gone(conn: Connection, run_ids: list[str]) -> None:
    """Runs whose process died while they ran (their lock was found dead): status ``gone``."""
    if run_ids:
        conn.execute(runs.update().where(runs.c.id.in_(run_ids) & (runs.c.status == "running"))
                     .values(status="gone", ended_at=datetime.now(UTC).isoformat(timespec="seconds")))


def sweep(store: Store) -> int:
    """Remove the locks of runs whose process is gone (any settings) and mark those runs ``gone``.

    Called when a run starts, so a crash leaves no lock behind for long; returns how many were removed.
    """
    with store.engine.begin() as conn:
        dead = [r for r in conn.execute(select(run_locks).where(run_locks.c.machine == machine_id()))
                if stale(r.machine, r.pid, r.heartbeat_at, _started(conn, r.run_id))]
        for r in dead:
            conn.execute(run_locks.delete().where((run_locks.c.key == r.key) & (run_locks.c.run_id == r.run_id)))
        _mark_gone(conn, [r.run_id for r in dead])
    return len(dead)


@asynccontextmanager
async def hold_run_lock(store: Store, key: str, run_id: str, label: str) -> AsyncIterator[RunLock]:
    """Hold the lock for the body's duration; a thread beats the heart (so the body's errors pass unwrapped)."""
    with contextlib.suppress(Exception):  # housekeeping only: a store that refuses it still runs
        sweep(store)
    lock = acquire(store, key, run_id, label)
    stop = threading.Event()

    def heartbeat() -> None:
        while not stop.wait(HEARTBEAT_S):
            with contextlib.suppress(Exception):  # a missed beat only ages the lock; the next one retries
                lock.beat()

    beater = threading.Thread(target=heartbeat, name="mcptrials-run-lock", daemon=True)
    beater.start()
    try:
        yield lock
    finally:
        stop.set()
        with anyio.CancelScope(shield=True):  # a cancelled run (Ctrl-C) must still give its lock back
            await anyio.to_thread.run_sync(beater.join)
        with contextlib.suppress(StoreUnreachableError):  # a server that went away: the next run sweeps the lock
            lock.release()
