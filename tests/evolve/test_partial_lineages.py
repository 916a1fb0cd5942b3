"""A --lineages folder that evolves only some servers: tasks on the others are named, not silently relabelled."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcptrials.bundled.world import LINEAGES_DIR, bundled_servers, bundled_tasks
from mcptrials.evolve.lineage_check import versioned_worlds
from mcptrials.evolve.versions import VersionError


def _units_only(tmp_path: Path) -> Path:
    root = tmp_path / "lineages"
    shutil.copytree(LINEAGES_DIR / "units", root / "units")
    return root


def test_tasks_on_unevolved_servers_are_named(tmp_path: Path) -> None:
    tasks = [t for t in bundled_tasks() if t.id in {"unit-001", "fin-001"}]
    said: list[str] = []
    worlds = versioned_worlds(bundled_servers(), tasks, "v0,v1", _units_only(tmp_path), warn=said.append)
    assert [v for v, _, _ in worlds] == ["v0", "v1"]
    assert len(said) == 1 and "fin-001" in said[0] and "unit-001" not in said[0]


def test_no_matching_lineage_is_an_error(tmp_path: Path) -> None:
    tasks = [t for t in bundled_tasks() if t.id == "fin-001"]
    with pytest.raises(VersionError, match="no lineage for finance"):
        versioned_worlds(bundled_servers(), tasks, "v0,v1", _units_only(tmp_path), warn=lambda _: None)


def test_bundled_lineages_warn_about_nothing() -> None:
    said: list[str] = []
    versioned_worlds(bundled_servers(), bundled_tasks()[:20], "v1", None, warn=said.append)
    assert said == []
