"""The viewer on a store with infra episodes (a server that never starts) and a model-free agent, in a real
headless Chromium: the infra page keeps the message's lines and shows no verdict, infra cells name the kind,
every headline counts infra episodes (also under the "failed" filter), run settings are a table."""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import Chromium
from infra_world import infra_world

from .conftest import MCPTRIALS, Served, start_view, stop_view

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def infra_viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """6 passed, 2 failed, 2 infra episodes of the reference agent (model-free), served by `mcptrials view`."""
    folder = tmp_path_factory.mktemp("infra-view")
    servers, tasks = infra_world(folder, failing=True)
    db = folder / "r.db"
    done = subprocess.run([MCPTRIALS, "run", "--servers", str(servers), "--tasks", str(tasks), "--agent", "reference",
                           "--attempts", "2", "--db", str(db)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 5, done.stderr  # infra errors remain
    served = start_view(db)
    try:
        yield served
    finally:
        stop_view(served)


def _ids(db: Path | str, outcome: str) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("select id from episodes where outcome = ? order by id", (outcome,))]


def test_infra_episode_page_keeps_the_message_lines_and_shows_no_verdict(infra_viewer: Served,
                                                                         chromium: Chromium) -> None:
    page = chromium.open(f"{infra_viewer.url}/episode/{_ids(infra_viewer.db, 'infra_error')[0]}")
    shown = page.locator("#infra-error pre").inner_text()
    assert shown.splitlines() == ["server 'broken' failed to start: MCPError: Connection closed",
                                  "--- last stderr lines ---", "refusing to start: missing configuration"]
    assert page.locator("#infra-error .infra-kind").inner_text() == "server_start"
    assert page.locator("#checkpoints tr[data-cp]").count() == 0  # no red checkpoint for what never ran
    assert page.locator(".verdicts .code-tag").count() == 0  # no agent failure code
    assert "not scored: the episode ended in an infra error" in page.locator("#checkpoints").inner_text()
    assert "model —" in page.locator(".facts").inner_text()
    chromium.screenshot(page, "episode_infra")
    assert chromium.blocked == [] and chromium.console_errors == []


def test_failed_episode_page_still_shows_its_verdict(infra_viewer: Served, chromium: Chromium) -> None:
    page = chromium.open(f"{infra_viewer.url}/episode/{_ids(infra_viewer.db, 'failed')[0]}")
    assert page.locator("#checkpoints tr.missed").count() == 1
    assert page.locator(".verdicts .code-tag", has_text="wrong_arguments").count() == 2  # on c1 and in the codes


def test_matrix_names_the_infra_kind_and_its_footer_counts_infra_under_every_filter(infra_viewer: Served,
                                                                                     chromium: Chromium) -> None:
    page = chromium.open(infra_viewer.url + "/matrix")
    cell = page.locator("#matrix td.cell[data-task='needs-broken']")
    assert cell.locator(".infra-kind").inner_text() == "server_start"
    assert "infra: server_start×2" in (cell.get_attribute("title") or "")
    assert page.locator("#matrix tfoot td.total").inner_text() == "60 % 6/10, 2 infra"
    assert page.locator("#matrix thead th.model").inner_text() == "—"
    chromium.screenshot(page, "matrix_infra")
    page.select_option("select[name=outcome]", "failed")  # submits on change
    page.wait_for_url("**outcome=failed**")
    assert page.locator("#matrix td.cell:not(.empty)").count() == 1  # the cells narrow ...
    assert page.locator("#matrix tfoot td.total").inner_text() == "60 % 6/10, 2 infra"  # ... the rate does not
    chromium.screenshot(page, "matrix_infra_failed")
    assert chromium.blocked == [] and chromium.console_errors == []


def test_runs_page_headline_counts_infra_and_run_settings_are_a_table(infra_viewer: Served,
                                                                      chromium: Chromium) -> None:
    page = chromium.open(infra_viewer.url + "/")
    row = page.locator("#runs tbody tr").first
    assert row.locator("td.pass-rate").inner_text() == "60 % 6/10, 2 infra"
    assert row.locator("td").nth(2).inner_text() == "— / reference"
    row.locator("td a.mono").click()
    page.wait_for_url("**/run/**")
    settings = {page.locator("#settings tbody tr").nth(i).locator("th").inner_text():
                page.locator("#settings tbody tr").nth(i).locator("td").inner_text()
                for i in range(page.locator("#settings tbody tr").count())}
    assert settings["agent.agent"] == "reference" and settings["model"] == "—"
    assert settings["limits.call_timeout"] == "60.0" and settings["attempts"] == "2"
    assert settings["servers.rail.args"] == '["-m", "mcptrials.examples.trains_server"]'
    assert not page.locator("details pre.code").is_visible()  # the raw JSON only on demand
    chromium.screenshot(page, "run_settings")
    assert chromium.blocked == [] and chromium.console_errors == []
