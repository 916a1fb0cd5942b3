"""The leaderboard on rows run over different task sets: ranked on the units every row ran (and says how many),
in the terminal, JSON and HTML; and `report --model/--agent/--run/--task` narrow the report."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from infra_world import infra_world
from report_world import cli


@pytest.fixture(scope="module")
def uneven_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """reference (model-free) on 4 tasks, 3 passing; scripted:reference (react) on 2 of them, both passing."""
    folder = tmp_path_factory.mktemp("uneven")
    servers, tasks = infra_world(folder, failing=True)
    db = folder / "r.db"
    picks = ["--task", "ex-trip-note", "--task", "ex-nanjing-seats"]
    cli("run", "--servers", str(servers), "--tasks", str(tasks), "--agent", "reference", "--db", str(db), *picks,
        "--task", "wrong-note", "--task", "ex-clean-notes")
    cli("run", "--servers", str(servers), "--tasks", str(tasks), "--model", "scripted:reference", "--db", str(db),
        *picks)
    return db


def test_rows_on_different_task_sets_are_ranked_on_the_shared_units(uneven_db: Path) -> None:
    data = json.loads(cli("report", "--db", str(uneven_db), "--format", "json").stdout)
    assert data["comparison"] == {"same_units": False, "shared_units": 2, "units_per_row": [4, 2]}
    rows = {(r["model"], r["agent"]): r for r in data["summary"]}
    alone = rows[("none", "reference")]
    assert (alone["units"], alone["pass_hat_k"], alone["pass_hat_k_shared"], alone["n_tasks_shared"]) == \
        (4, 0.75, 1.0, 2)
    scripted = rows[("scripted:reference", "react")]
    assert (scripted["units"], scripted["pass_hat_k"], scripted["pass_hat_k_shared"]) == (2, 1.0, 1.0)
    text = cli("report", "--db", str(uneven_db), env={"COLUMNS": "200"}).stdout
    assert ("Rows ran on different task sets (4 / 2 task x version units): ranked on the 2 units all rows share "
            "(pass^k on them in the last column).") in text
    assert "pass^k on 2 shared" in text
    page = uneven_db.parent / "r.html"
    cli("report", "--db", str(uneven_db), "--format", "html", "-o", str(page))
    html = page.read_text()
    assert 'id="leaderboard-note">Rows ran on different task sets (4 / 2 task x version units)' in html
    assert "best pass^k (on 2 shared units)" in html and "pass^k with 95% interval on the 2 shared units" in html


def test_report_filters_narrow_the_leaderboard(uneven_db: Path) -> None:
    data = json.loads(cli("report", "--db", str(uneven_db), "--format", "json", "--agent", "reference").stdout)
    assert [(r["model"], r["agent"]) for r in data["summary"]] == [("none", "reference")]
    assert data["comparison"]["same_units"] is True and len(data["episodes"]) == 4
    data = json.loads(cli("report", "--db", str(uneven_db), "--format", "json", "--task", "ex-trip-note",
                          "--task", "ex-nanjing-seats").stdout)
    assert data["comparison"] == {"same_units": True, "shared_units": 2, "units_per_row": [2, 2]}
    with sqlite3.connect(uneven_db) as conn:
        runs = [r[0] for r in conn.execute("select id from runs order by created_at")]
    data = json.loads(cli("report", "--db", str(uneven_db), "--format", "json", "--run", runs[1],
                          "--model", "scripted:reference").stdout)
    assert {e["model"] for e in data["episodes"]} == {"scripted:reference"} and len(data["episodes"]) == 2
    done = cli("report", "--db", str(uneven_db), "--model", "gpt-9", check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "error: --model gpt-9: no stored episode has it (stored: none, scripted:reference)"]
