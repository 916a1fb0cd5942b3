"""Checks on paths a task names inside its sandbox (fixture files), applied when the task is loaded.

Stdlib only: ``mcptrials.model`` validates with it, so a task with a bad path never reaches a run.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

MAX_COMPONENT_BYTES = 255
MAX_PATH_BYTES = 1024


def sandbox_path_problem(rel: str) -> str | None:
    """Why ``rel`` cannot name a file inside the sandbox (None when it can)."""
    if "\x00" in rel:
        return f"path {rel!r} contains a NUL byte"
    pure = PurePosixPath(rel)
    if not pure.parts or rel.strip() in {"", "."}:
        return f"path {rel!r} is empty"
    if pure.is_absolute() or (len(rel) > 1 and rel[1] == ":") or rel.startswith("\\"):
        return f"path {rel!r} is absolute; give a path relative to the sandbox"
    if ".." in pure.parts or ".." in rel.split("\\"):
        return f"path {rel!r} contains '..' and could leave the sandbox"
    if len(rel.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        return f"path {rel[:40]!r}... is longer than {MAX_PATH_BYTES} bytes"
    long = next((p for p in pure.parts if len(p.encode("utf-8", "surrogatepass")) > MAX_COMPONENT_BYTES), None)
    if long is not None:
        return f"path {rel!r} has a name longer than {MAX_COMPONENT_BYTES} bytes"
    return None


def fixture_paths_problem(paths: Iterable[str]) -> str | None:
    """The first problem among fixture paths: a bad path, or one file also used as another's folder."""
    normal: dict[str, str] = {}
    for rel in paths:
        problem = sandbox_path_problem(rel)
        if problem is not None:
            return problem
        key = PurePosixPath(rel).as_posix()
        if key in normal:
            return f"paths {normal[key]!r} and {rel!r} name the same file"
        normal[key] = rel
    for key, rel in normal.items():
        for parent in PurePosixPath(key).parents:
            if parent.as_posix() in normal:
                return f"path {normal[parent.as_posix()]!r} is a file, so {rel!r} cannot be inside it"
    return None
