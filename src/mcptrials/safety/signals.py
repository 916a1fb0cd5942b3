"""Treat SIGTERM and SIGHUP like Ctrl-C while a run is under way, so it unwinds the same clean way.

On Ctrl-C the event loop cancels the run: servers are stopped (their process groups killed), sandboxes
removed, finished episodes are already stored. A plain SIGTERM would end the process on the spot and leave
all of that behind; here it is turned into a SIGINT, and the caller learns which signal arrived.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_CAUGHT = (signal.SIGTERM, signal.SIGHUP)


@contextmanager
def termination_as_interrupt() -> Iterator[list[int]]:
    """Inside the block SIGTERM/SIGHUP raise a SIGINT; the yielded list collects the signals received."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def handler(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)
        os.kill(os.getpid(), signal.SIGINT)

    previous = {sig: signal.signal(sig, handler) for sig in _CAUGHT}
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # a job started in the background inherits SIGINT ignored: the SIGINT a SIGTERM becomes must still land
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield received
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def exit_code(received: list[int]) -> int:
    """The shell's exit code for an interrupted run: 128 + the first signal (130 for Ctrl-C)."""
    return 128 + (received[0] if received else signal.SIGINT)
