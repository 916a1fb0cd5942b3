"""A per-episode sandbox directory: fixture files written and copied in, cleaned up afterwards."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from mcptrials.fixtures import CopySourceError, copy_into
from mcptrials.model import Fixtures
from mcptrials.safety.paths import fixture_paths_problem
from mcptrials.safety.tempdirs import temp_prefix


class FixtureError(ValueError):
    """A fixture path that would land outside the sandbox."""


def write_fixtures(root: Path, fixtures: Fixtures | Mapping[str, str]) -> None:
    """Write each fixture text file and copy each copied file or folder under ``root``; refuse ``/`` and ``..``."""
    files, copies = (fixtures.files, fixtures.copy) if isinstance(fixtures, Fixtures) else (fixtures, {})
    problem = fixture_paths_problem([*files, *copies])
    if problem is not None:
        raise FixtureError(f"fixture {problem}")
    for rel, content in files.items():
        target = root.joinpath(*PurePosixPath(rel).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    for rel, source in copies.items():
        try:
            copy_into(root, rel, source)
        except (CopySourceError, OSError) as exc:
            raise FixtureError(str(exc)) from None


@contextmanager
def episode_sandbox(files: Fixtures | Mapping[str, str] | None = None, *, keep: bool = False,
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
