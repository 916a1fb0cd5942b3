"""A per-episode sandbox directory: fixture files copied in, cleaned up afterwards."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from mcptrials.safety.paths import fixture_paths_problem
from mcptrials.safety.tempdirs import temp_prefix


class FixtureError(ValueError):
    """A fixture path that would land outside the sandbox."""


def write_fixtures(root: Path, files: Mapping[str, str]) -> None:
    """Write each fixture file under ``root``; refuse absolute paths and ``..``."""
    problem = fixture_paths_problem(files)
    if problem is not None:
        raise FixtureError(f"fixture {problem}")
    for rel, content in files.items():
        target = root.joinpath(*PurePosixPath(rel).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


@contextmanager
def episode_sandbox(files: Mapping[str, str] | None = None, *, keep: bool = False,
                    parent: Path | None = None) -> Iterator[Path]:
    """Yield a fresh sandbox holding the task's fixtures; remove it afterwards unless ``keep``.

    The sandbox is ``<episode dir>/sandbox``; its parent also holds the servers' stderr logs,
    which thus stay out of the agent's reach.
    """
    root = Path(tempfile.mkdtemp(prefix=temp_prefix("episode"), dir=parent)).resolve()
    try:
        box = root / "sandbox"
        box.mkdir()
        write_fixtures(box, files or {})
        yield box
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
