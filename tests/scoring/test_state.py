"""State checkpoints: a real sandbox captured after the episode (text, JSON, SQLite), then graded."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from mcptrials.jsonpath import parse_json_path, select
from mcptrials.model import StateCheckpoint, Task
from mcptrials.scoring.state import capture_state, check_state


def _task(*checkpoints: dict) -> Task:
    return Task.model_validate({"id": "t", "prompt": "p", "servers": ["s"], "spec": {"checkpoints": list(checkpoints)}})


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "summary.md").write_text("# Budget\n- Travel: 42,000 EUR\n- Offsite: 18,000 EUR\n")
    (tmp_path / "mail").mkdir()
    outbox = [{"to": ["grace@ledgerly.example"], "subject": "INV-2291", "body": "We will pay 3,150.00 GBP on Friday."},
              {"to": ["bank@example.com"], "subject": "Limit", "body": "Thanks."}]
    (tmp_path / "mail" / "outbox.json").write_text(json.dumps(outbox))
    (tmp_path / "shop").mkdir()
    con = sqlite3.connect(tmp_path / "shop" / "shop.db")
    con.execute("CREATE TABLE products (sku TEXT, stock INTEGER, price REAL)")
    con.executemany("INSERT INTO products VALUES (?, ?, ?)", [("BP-1", 3, 59.5), ("TENT-2", 12, 249.0)])
    con.commit()
    con.close()
    return tmp_path


SQL = "SELECT sku, stock FROM products ORDER BY sku"
CHECKS = [
    {"id": "file", "kind": "state", "path": "notes/summary.md",
     "facts": [{"label": "travel", "value": 42000}, {"label": "offsite", "value": 18000}]},
    {"id": "gone", "kind": "state", "path": "notes/old.md", "exists": False},
    {"id": "mail", "kind": "state", "path": "mail/outbox.json", "json_path": "$[*]",
     "where": {"to": {"contains": "grace@ledgerly.example"}},
     "match": {"body": {"facts": [{"label": "pay", "value": 3150}]}, "subject": {"contains": "inv-2291",
                                                                                "case": "insensitive"}}},
    {"id": "count", "kind": "state", "path": "mail/outbox.json", "json_path": "$[*]", "count": 2},
    {"id": "rows", "kind": "state", "path": "shop/shop.db", "query": SQL, "rows": [["TENT-2", 12], ["BP-1", 3]]},
    {"id": "row", "kind": "state", "path": "shop/shop.db", "query": "SELECT * FROM products",
     "where": {"sku": {"equals": "BP-1"}}, "match": {"stock": {"equals": 3}}},
]


def test_every_form_passes_on_the_right_state(sandbox: Path) -> None:
    task = _task(*CHECKS)
    snapshot = capture_state(sandbox, task)
    assert json.loads(json.dumps(snapshot)) == snapshot  # stored with the episode as JSON
    verdicts = {cp.id: check_state(cp, snapshot) for cp in task.spec.checkpoints if isinstance(cp, StateCheckpoint)}
    assert {k: v.passed for k, v in verdicts.items()} == dict.fromkeys(verdicts, True), verdicts


def test_wrong_state_fails_each_form(sandbox: Path) -> None:
    (sandbox / "notes" / "summary.md").write_text("- Travel: 18,000 EUR\n- Offsite: 42,000 EUR\n")  # swapped
    (sandbox / "notes" / "old.md").write_text("left behind")
    outbox = json.loads((sandbox / "mail" / "outbox.json").read_text())
    outbox[0]["body"] = "We will pay 3,510.00 GBP on Friday."
    (sandbox / "mail" / "outbox.json").write_text(json.dumps([*outbox, {"to": ["x@y"], "body": ""}]))
    con = sqlite3.connect(sandbox / "shop" / "shop.db")
    con.execute("UPDATE products SET stock = 0 WHERE sku = 'BP-1'")
    con.commit()
    con.close()
    task = _task(*CHECKS)
    snapshot = capture_state(sandbox, task)
    verdicts = {cp.id: check_state(cp, snapshot) for cp in task.spec.checkpoints if isinstance(cp, StateCheckpoint)}
    assert {k: v.passed for k, v in verdicts.items()} == dict.fromkeys(verdicts, False), verdicts
    assert all(v.failure == "wrong_state" for v in verdicts.values())
    assert "3 record(s)" in verdicts["count"].detail


def test_missing_file_and_missing_snapshot(sandbox: Path) -> None:
    cp = StateCheckpoint(id="x", path="reports/q1.md", contains=["Q1"])
    assert "does not exist" in check_state(cp, capture_state(sandbox, _task(CHECKS[0]))).detail
    assert "no sandbox snapshot" in check_state(cp, {}).detail


def test_symlinks_out_of_the_sandbox_are_not_read(sandbox: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    secret = tmp_path_factory.mktemp("outside") / "secret.txt"
    secret.write_text("outside")
    (sandbox / "link.txt").symlink_to(secret)
    assert "link.txt" not in capture_state(sandbox, _task(CHECKS[0]))["files"]


@pytest.mark.parametrize("bad", [
    {"path": "../x.md", "contains": ["a"]},
    {"path": "/etc/passwd", "contains": ["a"]},
    {"path": "a.json", "contains": ["x"]},
    {"path": "a.md", "match": {"x": {"equals": 1}}},
    {"path": "a.db", "contains": ["x"]},
    {"path": "a.md", "exists": False, "contains": ["x"]},
])
def test_incoherent_state_checkpoints_are_rejected(bad: dict) -> None:
    with pytest.raises(ValueError):
        StateCheckpoint.model_validate({"id": "x", **bad})


def test_json_path_subset() -> None:
    doc = {"a": [{"b": 1}, {"b": 2}], "k-1": {"c": 3}}
    assert select(doc, parse_json_path("$.a[*].b")) == [1, 2]
    assert select(doc, parse_json_path("$.a[-1]")) == [{"b": 2}]
    assert select(doc, parse_json_path("$['k-1'].c")) == [3]
    with pytest.raises(ValueError):
        parse_json_path("a.b")
