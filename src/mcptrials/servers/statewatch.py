"""Files outside the sandbox that a server could keep state in, and whether an episode changed them.

The isolation probe compares what a task's reference gets back in two fresh episodes. A store that
was already full before the probe (a fixed ``MEMORY_FILE_PATH`` left by an earlier run) answers both
plays alike, so comparing results misses it. Watching the places a server's config names outside the
sandbox (absolute paths in ``args``, ``env`` and ``cwd``) and its program's own folder (where servers
keep a default data file) catches it: a reference that writes there changes what every later episode
starts from.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mcptrials.model import ServerSpec
from mcptrials.safety.tempdirs import temp_prefix

MAX_FILES = 5_000
"""Most files recorded per watched folder (a huge folder is watched only in part)."""
MAX_DEPTH = 3
MAX_KEPT_BYTES = 64 * 1024 * 1024
"""Most bytes ``kept`` copies aside before a probe (larger files are watched, not restored)."""
_PATH = re.compile(r"(?:^|(?<=[=:\s,]))(/[^\s,;'\"=]+)")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://(?!/)\S*")
"""A network URL (``file:///`` ones are kept: they name a path)."""
_INFRA_ENV = re.compile(r"^(HOME|PATH|PWD|SHELL|USER|LANG|TZ|TMPDIR|TMP|TEMP|VIRTUAL_ENV|PYTHON\w*|NODE_\w*|LD_\w*"
                        r"|XDG_\w*|npm_config_\w*|UV_\w*|PIP_\w*|\w*CACHE\w*)$", re.IGNORECASE)
"""Environment variables that name the machine's setup (home, caches, search paths), not a data store."""
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/proc", "/sys", "/dev", "/etc", "/run", "/var/lib",
           "/nix")
_SKIP_DIRS = {"__pycache__", ".cache", "node_modules"}
_SKIP_SUFFIXES = (".pyc", ".log")
_TOO_WIDE = {Path("/"), Path("/tmp"), Path("/var/tmp"), Path("/home"), Path("/root"), Path.home()}
"""Folders too shared to watch as a whole (other programs write there): only named files inside them."""

Stamp = tuple[int, int, int]


@dataclass(frozen=True)
class Watched:
    """One place a server could keep state in, and why it is watched."""

    path: Path
    why: str


def watched_places(spec: ServerSpec) -> list[Watched]:
    """The places outside any sandbox named by ``spec`` (paths built from ``${MCPTRIALS_...}`` are per episode)."""
    if spec.transport != "stdio":
        return []
    found: dict[Path, str] = {}
    env = [value for key, value in spec.env.items() if not _INFRA_ENV.match(key)]
    values = [*spec.args, *env, *([spec.cwd] if spec.cwd else [])]
    for value in values:
        if "${MCPTRIALS_" in value:
            continue
        for match in _PATH.finditer(_URL.sub("", value).replace("file://", "")):
            path = Path(os.path.normpath(match.group(1)))
            if not _system(path):
                found.setdefault(path, "named in its config")
    program = _program_folder(spec)
    if program is not None:
        found.setdefault(program, "its program's folder")
    for folder in _npx_packages(spec):
        found.setdefault(folder, "its npx package's folder")
    return [Watched(path, why) for path, why in found.items()]


def _npx_packages(spec: ServerSpec) -> list[Path]:
    """Where ``npx [-y] PACKAGE`` unpacked the package (servers keep default data files there)."""
    if Path(spec.command or "").name != "npx":
        return []
    package = next((a for a in spec.args if not a.startswith("-")), None)
    if package is None:
        return []
    name = package if not package[1:].count("@") else package[:package.rindex("@")]  # drop an @version
    cache = Path(spec.env.get("npm_config_cache") or Path.home() / ".npm")
    return sorted(p for p in (cache / "_npx").glob(f"*/node_modules/{name}") if p.is_dir())


def _system(path: Path) -> bool:
    text = str(path)
    return any(text == p or text.startswith(p + "/") for p in _SYSTEM)


def _program_folder(spec: ServerSpec) -> Path | None:
    """The folder of the server's own program (a script in args, else the command), unless a system one."""
    candidates = [a for a in spec.args if a.startswith("/") and Path(a).is_file()]
    resolved = shutil.which(spec.command or "", path=spec.env.get("PATH"))
    if resolved is not None:
        candidates.append(resolved)
    for candidate in candidates:
        folder = Path(os.path.realpath(candidate)).parent
        if not _system(folder) and folder not in _TOO_WIDE and not _interpreter_folder(folder):
            return folder
    return None


def _interpreter_folder(folder: Path) -> bool:
    """A Python environment's ``bin`` folder: scripts only, never state."""
    return (folder / "python").exists() or (folder / "python3").exists()


def snapshot(places: list[Watched]) -> dict[Path, Stamp | None]:
    """(inode, size, mtime) of every file in ``places`` (None for a named file that does not exist)."""
    stamps: dict[Path, Stamp | None] = {}
    for place in places:
        path = place.path
        if path.is_dir():
            if path not in _TOO_WIDE:
                _walk(path, 0, stamps)
        else:
            stamps[path] = _stamp(path)
    return stamps


def _stamp(path: Path) -> Stamp | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _walk(folder: Path, depth: int, stamps: dict[Path, Stamp | None]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if len(stamps) >= MAX_FILES:
            return
        try:
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH and entry.name not in _SKIP_DIRS:
                    _walk(Path(entry.path), depth + 1, stamps)
            elif entry.is_file(follow_symlinks=False) and not entry.name.endswith(_SKIP_SUFFIXES):
                st = entry.stat(follow_symlinks=False)
                stamps[Path(entry.path)] = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            continue


def changed(before: dict[Path, Stamp | None], after: dict[Path, Stamp | None]) -> list[Path]:
    """Files created, changed or removed between two snapshots, in path order."""
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def owner(path: Path, places: list[Watched]) -> Watched | None:
    """The watched place ``path`` was found under."""
    return next((w for w in places if path == w.path or w.path in path.parents), None)


@contextmanager
def kept(places: list[Watched]) -> Iterator[dict[Path, Stamp | None]]:
    """Snapshot ``places`` (yielded) and copy their files aside; on leaving, undo every change made meanwhile.

    A file created meanwhile is removed, a changed or removed one is put back as it was (within
    ``MAX_KEPT_BYTES``): whatever the block did to these places, the next episode starts from the same state.
    """
    before = snapshot(places)
    with tempfile.TemporaryDirectory(prefix=temp_prefix("kept")) as folder:
        copies: dict[Path, Path] = {}
        budget = MAX_KEPT_BYTES
        for index, (path, stamp) in enumerate(before.items()):
            if stamp is None or stamp[1] > budget:
                continue
            copy = Path(folder) / str(index)
            try:
                shutil.copy2(path, copy)
            except OSError:
                continue
            copies[path] = copy
            budget -= stamp[1]
        try:
            yield before
        finally:
            for path in changed(before, snapshot(places)):
                try:
                    if before.get(path) is None:
                        path.unlink(missing_ok=True)
                    elif path in copies:
                        path.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy2(copies[path], path)
                except OSError:
                    continue
