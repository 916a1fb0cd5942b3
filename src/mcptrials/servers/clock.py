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


def _stamp(now: str, env: dict[str, str]) -> str:
    """``now`` as the local wall time libfaketime expects, in the child's zone (its ``TZ``; else ours)."""
    moment = datetime.fromisoformat(now)
    zone = _local_zone(env)
    return (moment.astimezone(zone) if zone is not None else moment.astimezone()).strftime("%Y-%m-%d %H:%M:%S")


def faketime_vars(now: str, env: dict[str, str]) -> dict[str, str] | None:
    """The environment that preloads libfaketime standing still at ``now`` (an ISO time with offset).

    libfaketime reads the timestamp in the child's local zone (its ``TZ`` in ``env``), so ``now`` is
    converted to it. Monotonic clocks and file times stay real, so timers, event loops and start-up
    speed are unaffected. None when the library is not on this machine.
    """
    library = _library()
    if library is None:
        return None
    preload = env.get("LD_PRELOAD", os.environ.get("LD_PRELOAD", ""))
    return {"LD_PRELOAD": f"{library}:{preload}" if preload else library, "FAKETIME": _stamp(now, env),
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            "NO_FAKE_STAT": env.get("NO_FAKE_STAT", "1")}  # faking stat() makes Python's start-up 2x slower


def frozen_clock(command: str, args: list[str], now: str, env: dict[str, str]) -> tuple[str, list[str]]:
    """Make ``command`` see a wall clock standing still at ``now``: ``env`` gets ``faketime_vars``.

    The library is preloaded directly rather than through the ``faketime`` wrapper: the wrapper names
    a POSIX semaphore after its own pid and cannot remove it when the process guard kills it, so a
    later wrapper given the same pid failed to start. The wrapper is used only when the library is
    not where distributions put it; without either, the command is returned unchanged (real clock).
    """
    found = faketime_vars(now, env)
    if found is not None:
        env.update(found)
        return command, args
    wrapper = shutil.which("faketime")
    if wrapper is None:
        return command, args
    env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
    env.setdefault("NO_FAKE_STAT", "1")
    return wrapper, ["-f", _stamp(now, env), command, *args]
