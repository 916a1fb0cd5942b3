"""What became of each stored run, for `report` and `view`: finished, running, or ended and how to resume.

A run records its status when it ends (finished, interrupted, failed). A run killed outright
(SIGKILL, a segfault, the machine going down) cannot, and stays ``running``; it is told apart
from a live run by its process (this machine: the pid and its start time) or, for a run on
another machine, by its run lock's heartbeat. Reading never writes: the next run on the store
removes the dead run's lock and marks it ``gone`` (``store/lock.py``).

A run that ended early is resumed by re-running the same command (stored episodes are skipped);
once a later run with the same settings has finished, the early end needs no more attention.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import select

from mcptrials.store.db import Store, run_locks, runs
from mcptrials.store.lock import STALE_AFTER_S, machine_id, process_alive

RESUME_HINT = "re-run the same command to resume"


@dataclass
class RunState:
    """One run's status in words."""

    id: str
    created_at: str
    label: str | None
    status: str
    """finished | running | gone (ended abnormally: the process died) | interrupted | failed | unknown."""
    text: str
    """The status as a reader sees it, e.g. 'ended abnormally (process gone)'."""
    hint: str
    """What to do about it ('' when nothing), e.g. 're-run the same command to resume'."""
    note: str | None = None
    resumed_by: str | None = None
    pid: int | None = None
    host: str | None = None

    @property
    def ended_early(self) -> bool:
        return self.status in {"gone", "interrupted", "failed"}

    @property
    def needs_attention(self) -> bool:
        """Ended early and not yet resumed to the end by a later run with the same settings."""
        return self.ended_early and self.resumed_by is None

    def line(self) -> str:
        """One line for a terminal: run id, what ran, its status and what to do."""
        what = f" ({self.label})" if self.label else ""
        said = f": {self.note}" if self.note and self.status == "failed" else ""
        return f"run {self.id}{what} {self.text}{said}" + (f"; {self.hint}" if self.hint else "")

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ended_early": self.ended_early, "needs_attention": self.needs_attention}


TEXT = {
    "finished": "finished",
    "running": "is running",
    "gone": "ended abnormally (process gone)",
    "interrupted": "was interrupted",
    "failed": "stopped on an error",
    "unknown": "has no recorded status",
}


def run_states(store: Store) -> list[RunState]:
    """Every run's state, oldest first."""
    with store.engine.connect() as conn:
        rows = conn.execute(select(runs.c.id, runs.c.created_at, runs.c.config_hash, runs.c.status, runs.c.label,
                                   runs.c.machine, runs.c.host, runs.c.pid, runs.c.pid_started, runs.c.note)
                            .order_by(runs.c.created_at, runs.c.id)).all()
        beats = {r.run_id: r.heartbeat_at for r in conn.execute(select(run_locks.c.run_id, run_locks.c.heartbeat_at))}
    here = machine_id()
    found: list[RunState] = []
    for r in rows:
        status = r.status or "unknown"
        if status == "running":
            if r.machine == here and r.pid is not None:
                alive = process_alive(int(r.pid), r.pid_started)
            else:  # another machine: its lock's heartbeat is the only sign of life
                alive = r.id in beats and time.time() - beats[r.id] <= STALE_AFTER_S
            status = "running" if alive else "gone"
        found.append(RunState(id=r.id, created_at=r.created_at, label=r.label, status=status, text=TEXT[status],
                              hint="", note=r.note, pid=r.pid, host=r.host))
    hashes = {r.id: r.config_hash for r in rows}
    for i, state in enumerate(found):
        if not state.ended_early:
            continue
        later = [s for s in found[i + 1:] if hashes[s.id] == hashes[state.id] and s.status in {"finished", "running"}]
        if later:
            state.resumed_by = later[-1].id
            state.hint = (f"resumed by run {state.resumed_by}" if later[-1].status == "finished"
                          else f"being resumed by run {state.resumed_by}")
        elif state.status == "failed":
            state.hint = f"fix the cause and {RESUME_HINT}"
        else:
            state.hint = RESUME_HINT
    return found


def attention(store: Store) -> dict[str, Any]:
    """The report's run section: runs that ended early and were not resumed yet, and runs still going."""
    states = run_states(store)
    ended = [s.as_dict() | {"line": s.line()} for s in states if s.needs_attention]
    running = [s.as_dict() | {"line": s.line()} for s in states if s.status == "running"]
    return {k: v for k, v in {"runs_ended_early": ended, "runs_running": running}.items() if v}
