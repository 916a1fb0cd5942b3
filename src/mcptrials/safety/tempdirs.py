"""Temporary folders named after the process that owns them, and the sweep that removes a dead process's.

A command killed outright (SIGKILL, the OOM killer) never runs its clean-up, so its episode
sandboxes, server pool and fork-server folders would stay in the temp folder for good. Every temp
folder mcptrials makes is named ``mcptrials-<kind>-<pid>-<random>`` (``temp_prefix``); each command
starts by removing the ones whose process is gone and that belong to this user (``sweep_stale``).
A folder of a running process, another user's, or one named otherwise is never touched.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

PREFIX = "mcptrials-"
_OURS = re.compile(r"^mcptrials-([a-z]+)-([1-9]\d*)-[a-z0-9_]+$")
"""``temp_prefix`` plus what ``tempfile`` appends (lower-case letters, digits and ``_``)."""


def temp_prefix(kind: str) -> str:
    """The ``prefix=`` for ``tempfile.mkdtemp`` / ``TemporaryDirectory``: ``mcptrials-<kind>-<pid>-``."""
    if not kind.isalpha() or not kind.islower():
        raise ValueError(f"temp folder kind {kind!r}: lower-case letters only")
    return f"{PREFIX}{kind}-{os.getpid()}-"


def owner_pid(name: str) -> int | None:
    """The pid a folder name says made it (None for a name ``temp_prefix`` did not give)."""
    found = _OURS.match(name)
    return int(found.group(2)) if found else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process holds that pid: alive
        return True
    return True


def sweep_stale(root: str | Path | None = None) -> list[Path]:
    """Remove our temp folders in ``root`` (default: the temp folder) whose owning process is dead; return them."""
    folder = Path(root) if root is not None else Path(tempfile.gettempdir())
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    removed = []
    for entry in entries:
        pid = owner_pid(entry.name)
        if pid is None or pid == os.getpid() or _alive(pid):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed
