"""The shared result store of real runs (tests/support/report_world.py), built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_world import shared_world


@pytest.fixture(scope="session")
def world_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_world(lambda: tmp_path_factory.mktemp("report-world"))
