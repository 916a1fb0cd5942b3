"""What long work is doing right now (running episodes' turns and tool calls, weight assembly), for progress bars.

Producers register cheaply and never wait on a display: an episode registers its trajectory
(held weakly, so a finished episode drops out by itself) and a slow one-off step sets a note.
A progress bar reads ``describe()`` when it redraws.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_lock = threading.Lock()
_running: dict[int, tuple[str, Any]] = {}
_order = itertools.count()
_notes: dict[int, str] = {}


def track(label: str, trajectory: Any) -> None:
    """Show ``trajectory`` (anything with ``steps``) as running under ``label`` until it is garbage or ``done``."""
    key = next(_order)
    ref = weakref.ref(trajectory, lambda _r: _forget(key))
    with _lock:
        _running[key] = (label, ref)


def done(label: str) -> None:
    """Stop showing the episode ``label`` (its result is in)."""
    with _lock:
        for key in [k for k, (lab, _) in _running.items() if lab == label]:
            del _running[key]


def _forget(key: int) -> None:
    with _lock:
        _running.pop(key, None)


@contextmanager
def note(text: str) -> Iterator[None]:
    """Show ``text`` (e.g. "joining the model weights") while the block runs."""
    key = next(_order)
    with _lock:
        _notes[key] = text
    try:
        yield
    finally:
        with _lock:
            _notes.pop(key, None)


def _step_text(steps: list[Any]) -> str:
    turns = sum(1 for s in steps if getattr(s, "kind", "") == "model" and getattr(s, "role", "agent") == "agent")
    calls = sum(1 for s in steps if getattr(s, "kind", "") == "tool")
    last = steps[-1] if steps else None
    if last is None:
        doing = "servers starting or first model turn"
    elif getattr(last, "kind", "") == "model" and getattr(last, "tool_calls", None):
        doing = "calling " + ", ".join(c.name for c in last.tool_calls[:2]) + (" ..." if len(last.tool_calls) > 2
                                                                                else "")
    elif getattr(last, "kind", "") == "tool":
        doing = f"model reads {last.name}"
    else:
        doing = "model thinking"
    return f"turn {turns}, {calls} call(s): {doing}"


def describe(limit: int = 2) -> str:
    """One line: the notes, then up to ``limit`` running episodes with their turn and current tool call."""
    with _lock:
        notes = list(_notes.values())
        running = [(label, ref()) for label, ref in _running.values()]
    alive = [(label, t) for label, t in running if t is not None]
    parts = list(notes)
    for label, trajectory in alive[:limit]:
        parts.append(f"{label} {_step_text(list(trajectory.steps))}")
    if len(alive) > limit:
        parts.append(f"+{len(alive) - limit} more running")
    return "; ".join(parts)
