"""Store tests run on both back ends: a fresh SQLite file and a fresh PostgreSQL database."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "results.db")
    return str(request.getfixturevalue("postgres_url"))
