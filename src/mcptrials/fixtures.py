"""Copied fixtures: files and folders a task puts byte for byte into the sandbox, and the digest of their bytes.

Stdlib only: ``mcptrials.model`` hashes a task's copied fixtures by content (so a resume key stays
the same wherever the task folder lies), and the sandbox copies them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

_DIGESTS: dict[tuple[str, int, int, int], str] = {}
"""(resolved path, size, mtime, inode) of a source file -> its sha256, so a big fixture is read once per process."""


class CopySourceError(ValueError):
    """A fixture source that cannot be copied: missing, unreadable, or a link out of its folder."""


def _file_digest(path: Path) -> str:
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns, stat.st_ino)
    found = _DIGESTS.get(key)
    if found is None:
        h = hashlib.sha256()
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        found = _DIGESTS[key] = h.hexdigest()
    return found


def _tree_files(root: Path) -> list[Path]:
    """Every regular file under ``root`` (links are not followed), sorted by relative path."""
    out = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        out += [Path(folder, name) for name in sorted(files) if Path(folder, name).is_file()
                and not Path(folder, name).is_symlink()]
    return sorted(out, key=lambda p: p.relative_to(root).as_posix())


def tree_digest(source: str | Path) -> str:
    """The sha256 of a file's bytes, or of a folder's relative file names and their bytes' digests.

    A source that does not exist digests as ``missing:<path>`` (the task loader refuses it first).
    """
    path = Path(source)
    if path.is_file():
        return _file_digest(path.resolve())
    if not path.is_dir():
        return f"missing:{source}"
    h = hashlib.sha256()
    for file in _tree_files(path):
        h.update(file.relative_to(path).as_posix().encode("utf-8", "surrogateescape") + b"\0")
        h.update(_file_digest(file.resolve()).encode() + b"\n")
    return h.hexdigest()


def copy_source_problem(source: str | Path) -> str | None:
    """Why ``source`` cannot be copied into a sandbox (one phrase), or None when it can."""
    path = Path(source)
    if not path.exists():
        return f"{source} does not exist"
    if not (path.is_file() or path.is_dir()):
        return f"{source} is neither a file nor a folder"
    if not os.access(path, os.R_OK):
        return f"{source} is not readable"
    return None


def copy_into(root: Path, dest: str, source: str | Path) -> None:
    """Copy a file or a folder (regular files only, no links followed) to ``root/dest``."""
    from pathlib import PurePosixPath

    problem = copy_source_problem(source)
    if problem is not None:
        raise CopySourceError(f"fixture copy {dest!r}: {problem}")
    target = root.joinpath(*PurePosixPath(dest).parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    path = Path(source)
    if path.is_file():
        shutil.copyfile(path, target)
        return
    for file in _tree_files(path):
        out = target / file.relative_to(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, out)
    target.mkdir(parents=True, exist_ok=True)


# --------------------------------------------------------------------------- absolute paths mapped into the sandbox


def sandbox_prefixes(path_map: dict[str, str], sandbox: Path) -> dict[str, str]:
    """Each ``path_map`` prefix -> the real path it stands for in ``sandbox`` (a trailing ``/`` kept), longest first."""
    out = {}
    for prefix in sorted(path_map, key=len, reverse=True):
        rel = path_map[prefix].strip().strip("/")
        real = str(sandbox if rel in {"", "."} else sandbox.joinpath(*rel.split("/")))
        out[prefix] = real + "/" if prefix.endswith("/") else real
    return out


def map_paths(text: str, prefixes: dict[str, str]) -> str:
    """``text`` with every mapped absolute prefix replaced by its real path (longest prefix first, one pass)."""
    if not prefixes or not any(p in text for p in prefixes):
        return text
    import re

    pattern = re.compile("|".join(re.escape(p) for p in prefixes))  # alternation in longest-first order
    return pattern.sub(lambda m: prefixes[m.group(0)], text)


def map_argument_paths(value: object, prefixes: dict[str, str]) -> object:
    """Arguments with mapped absolute prefixes in every string (keys untouched) replaced by real paths."""
    if not prefixes:
        return value
    if isinstance(value, str):
        return map_paths(value, prefixes)
    if isinstance(value, dict):
        return {k: map_argument_paths(v, prefixes) for k, v in value.items()}
    if isinstance(value, list):
        return [map_argument_paths(v, prefixes) for v in value]
    return value
