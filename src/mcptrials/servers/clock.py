"""A frozen clock for third-party stdio servers: the task's ``now`` through libfaketime."""

from __future__ import annotations

import glob
import os
import shutil
from datetime import datetime, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# Where distributions put the preload library (Debian/Ubuntu multiarch first, then source installs).
_LIBRARY_PATTERNS = ("/usr/lib/*/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1",
                     "/usr/local/lib/faketime/libfaketime.so.1", "/usr/lib64/faketime/libfaketime.so.1")


@cache
def _library() -> str | None:
    """The libfaketime preload library on this machine, if any."""
    for pattern in _LIBRARY_PATTERNS:
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


def faketime_available() -> bool:
    """Whether libfaketime (Debian package ``faketime``) is installed."""
    return _library() is not None or shutil.which("faketime") is not None


def _local_zone(env: dict[str, str]) -> tzinfo | None:
    """The zone the child will read its local time in (its ``TZ``; else this process's)."""
    name = env.get("TZ", "").lstrip(":")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            return None
    return None


def frozen_clock(command: str, args: list[str], now: str, env: dict[str, str]) -> tuple[str, list[str]]:
    """Make ``command`` see a wall clock standing still at ``now`` (an ISO time with offset).

    The library is preloaded directly (``LD_PRELOAD`` + ``FAKETIME``) rather than through the
    ``faketime`` wrapper: the wrapper names a POSIX semaphore after its own pid and cannot remove
    it when the process guard kills it, so a later wrapper given the same pid failed to start.
    libfaketime reads the timestamp in the child's local zone, so ``now`` is converted to it.
    Monotonic clocks and file times stay real, so timers, event loops and start-up speed are unaffected.
    Without libfaketime on the machine the command is returned unchanged (the server sees the real clock).
    """
    moment = datetime.fromisoformat(now)
    zone = _local_zone(env)
    stamp = (moment.astimezone(zone) if zone is not None else moment.astimezone()).strftime("%Y-%m-%d %H:%M:%S")
    env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
    env.setdefault("NO_FAKE_STAT", "1")  # file times stay real; faking stat() makes Python's start-up 2x slower
    library = _library()
    if library is not None:
        preload = env.get("LD_PRELOAD", os.environ.get("LD_PRELOAD", ""))
        env["LD_PRELOAD"] = f"{library}:{preload}" if preload else library
        env["FAKETIME"] = stamp
        return command, args
    wrapper = shutil.which("faketime")
    if wrapper is None:
        return command, args
    return wrapper, ["-f", stamp, command, *args]
