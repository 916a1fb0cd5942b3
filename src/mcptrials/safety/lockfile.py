"""A lock file that lets one process at a time work on an output, and that a dead holder never keeps.

The lock is an OS lock (``flock``) on the file, which the kernel drops when its process ends however it
ends (SIGKILL included): a lock file left by a dead process is stale and is taken over at once, and a pid
reused by another process cannot pass for the holder. The file names its holder (pid, host, start time)
so a refusal can say who holds it; it is left in place (removing it would let two processes lock two files).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path


class LockHeldError(Exception):
    """Another live process holds the lock file (the message names it and what to do)."""


@contextlib.contextmanager
def hold_lock_file(path: Path, what: str, *, wait: bool = False) -> Iterator[None]:
    """Hold ``path`` locked for the body's duration, or raise ``LockHeldError`` naming the live holder
    (with ``wait``, wait until the holder is done instead).

    ``what`` says what the lock guards, for the refusal (e.g. "generation into tasks.jsonl").
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 512, 0).decode("utf-8", "replace").strip() or "another process"
            raise LockHeldError(f"{path}: {what} is already running ({holder}); wait for it to finish or stop "
                                "it (a lock whose process died is taken over at once)") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}, started "
                      f"{datetime.now(UTC).isoformat(timespec='seconds')}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock
