"""A frozen clock for third-party stdio servers: the task's ``now`` through libfaketime."""

from __future__ import annotations

import shutil
from datetime import datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def faketime_available() -> bool:
    """Whether the ``faketime`` wrapper (Debian package ``faketime``) is installed."""
    return shutil.which("faketime") is not None


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
    """Wrap ``command`` so its wall clock stands still at ``now`` (an ISO time with offset).

    libfaketime reads the timestamp in the child's local zone, so ``now`` is converted to it.
    Monotonic clocks and file times stay real, so timers, event loops and start-up speed are unaffected.
    Without ``faketime`` on the machine the command is returned unchanged (the server sees the real clock).
    """
    path = shutil.which("faketime")
    if path is None:
        return command, args
    moment = datetime.fromisoformat(now)
    zone = _local_zone(env)
    local = moment.astimezone(zone) if zone is not None else moment.astimezone()
    env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
    env.setdefault("NO_FAKE_STAT", "1")  # file times stay real; faking stat() makes Python's start-up 2x slower
    return path, ["-f", local.strftime("%Y-%m-%d %H:%M:%S"), command, *args]
