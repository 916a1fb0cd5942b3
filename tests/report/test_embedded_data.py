"""Stored text that looks like HTML (``<!--<script``, ``</script>``) never changes how the HTML report is parsed.

A task file's category is stored and shown in the report; here it carries the two sequences that end or
re-open a ``<script>`` block. The report's embedded JSON must still be one block that ``JSON.parse`` reads
back as exactly ``report --format json``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser import Chromium
from report_world import cli

from mcptrials.bundled.world import bundled_tasks

HOSTILE_CATEGORY = "x<!--<script>y</script><script>alert(1)</script>&amp;"


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real run of the reference agent on a bundled task whose category is the hostile text."""
    folder = tmp_path_factory.mktemp("embedded")
    task = next(t for t in bundled_tasks() if t.id == "unit-001").model_copy(update={"category": HOSTILE_CATEGORY})
    (folder / "tasks.jsonl").write_text(task.model_dump_json() + "\n")
    db = folder / "runs.db"
    cli("run", "--agent", "reference", "--tasks", str(folder / "tasks.jsonl"), "--db", str(db))
    return db


def _data_block(html: str) -> str:
    start = html.index('<script type="application/json" id="report-data">') + len(
        '<script type="application/json" id="report-data">')
    return html[start:html.index("</script>", start)]


def test_the_embedded_data_block_holds_no_markup_and_is_the_json_report(hostile_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    cli("report", "--db", str(hostile_store), "--format", "html", "--out", str(out))
    expected = json.loads(cli("report", "--db", str(hostile_store), "--format", "json").stdout)
    assert HOSTILE_CATEGORY in json.dumps(expected)  # the hostile text really is in the report
    html = out.read_text()
    block = _data_block(html)
    assert re.search(r"[<>&]", block) is None  # nothing in it an HTML parser could read as a tag or comment
    assert json.loads(block) == expected
    assert html.endswith(f"{block}</script></body></html>")  # the block ends where the page put its end


@pytest.mark.slow
def test_the_browser_parses_the_embedded_data(hostile_store: Path, tmp_path: Path, chromium: Chromium) -> None:
    out = tmp_path / "report.html"
    cli("report", "--db", str(hostile_store), "--format", "html", "--out", str(out))
    expected = json.loads(cli("report", "--db", str(hostile_store), "--format", "json").stdout)
    page = chromium.open(out.as_uri())
    parsed = page.evaluate("JSON.parse(document.getElementById('report-data').textContent)")
    assert parsed == expected
    assert chromium.console_errors == []
