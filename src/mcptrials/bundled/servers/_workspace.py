"""Workspace helpers the stateful business servers share: confined paths and JSON state files.

Every path goes through ``_runtime.confined`` and any refusal becomes a ``ToolError`` whose
message the agent can read. State files are written atomically inside the sandbox only.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from mcptrials.bundled.servers._runtime import SandboxError, confined


def workspace_path(path: str, *, must_exist: bool = False) -> Path:
    """Resolve ``path`` inside the sandbox or raise a ToolError that says why it was refused."""
    try:
        return confined(path, must_exist=must_exist)
    except (SandboxError, FileNotFoundError) as exc:
        raise ToolError(str(exc)) from None


def relative(path: Path) -> str:
    """Show a confined path relative to the sandbox, with forward slashes."""
    root = confined(".")
    return "." if path == root else path.relative_to(root).as_posix()


def read_state(rel: str, initial: Callable[[], Any]) -> Any:
    """Load the JSON state file ``rel``; when it does not exist yet, return ``initial()`` unsaved."""
    target = workspace_path(rel)
    if not target.exists():
        return initial()
    if not target.is_file():
        raise ToolError(f"state path {rel!r} is not a file")
    try:
        return json.loads(target.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ToolError(f"state file {rel!r} is not valid JSON: {exc}") from None


def write_state(rel: str, data: Any) -> None:
    """Write ``data`` as JSON to ``rel`` inside the sandbox, atomically."""
    target = workspace_path(rel)
    write_text(target, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def fresh_temp(target: Path) -> tuple[int, Path]:
    """A new, empty file beside ``target`` (descriptor and path), created exclusively under a random name.

    Never a fixed name: a symlink planted on a predictable temporary name would redirect the write outside
    the sandbox. ``O_EXCL`` creation does not follow links, and the rename then replaces ``target`` itself.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    workspace_path(relative(target.parent))  # the parent must still resolve inside the sandbox
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    return fd, Path(name)


def write_text(target: Path, text: str) -> None:
    """Write ``text`` to an already confined path via a fresh temporary file and a rename."""
    fd, tmp = fresh_temp(target)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
