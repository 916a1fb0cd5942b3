"""Wrap a stdio server's command in ``_server_guard.py`` so none of its processes outlives the episode or the runner."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

GUARD = Path(__file__).with_name("_server_guard.py")


def enabled() -> bool:
    """Guards run on Linux (they read /proc) unless ``MCPTRIALS_GUARD=0``."""
    return sys.platform.startswith("linux") and os.environ.get("MCPTRIALS_GUARD", "1") != "0"


def guarded(command: str, args: list[str], env: Mapping[str, str]) -> tuple[str, list[str]]:
    """The (command, args) that run ``command args`` under a guard; a bare name missing from PATH is refused."""
    if "/" not in command:
        found = shutil.which(command, path=env.get("PATH", os.environ.get("PATH", os.defpath)))
        if found is None:
            raise FileNotFoundError(f"command {command!r} not found on PATH")
        command = found
    if not enabled():
        return command, args
    return sys.executable, ["-S", str(GUARD), command, *args]
