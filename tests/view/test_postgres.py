"""The viewer and `show` on a PostgreSQL store: the same pages and counts as on SQLite."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import httpx
import pytest
from pg_cluster import PASSWORD
from typer.testing import CliRunner

from mcptrials.cli import app
from mcptrials.store.db import outcome_of

from .conftest import start_view, stop_view
from .copies import copy_store

pytestmark = pytest.mark.slow


def test_view_and_show_on_postgres(run_db: Path, postgres_url: str) -> None:
    store, episodes, scores = copy_store(run_db, postgres_url)
    store.close()
    served = start_view(postgres_url)
    try:
        expected = Counter(outcome_of(e, scores[e.id].get("effects")) for e in episodes)
        matrix = httpx.get(served.url + "/matrix", timeout=30).text
        assert f"{len(episodes)} episodes" in matrix
        assert matrix.count('class="cell c-fail"') + matrix.count('class="cell c-mixed"') >= 1
        failed = httpx.get(served.url + "/episodes?outcome=failed", timeout=30).text
        assert f"{expected['failed']} episode" in failed
        e = next(x for x in episodes if x.tool_calls)
        page = httpx.get(f"{served.url}/episode/{e.id[:6]}", timeout=30)
        assert page.status_code == 200 and all(f'id="step-{s.index}"' in page.text for s in e.steps)
        assert PASSWORD not in page.text and PASSWORD not in matrix  # the store URL is shown masked
    finally:
        stop_view(served)
    shown = CliRunner().invoke(app, ["show", e.id[:6], "--db", postgres_url])
    assert shown.exit_code == 0 and e.task_id in shown.output
