"""Refresh: tasks re-run on today's servers, classified identical / drifted / broken against their baseline."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mcptrials.bundled.world import LINEAGES_DIR, bundled_tasks
from mcptrials.cli import app
from mcptrials.tasks.loader import load_tasks

HERE = Path(__file__).parent


def _refresh(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, ["refresh", *args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


# --------------------------------------------------------------------------- lineage: one evolved round

ROUND = {
    "version": "v1", "server": "units", "summary": "list_units is renamed; convert is re-documented.",
    "operations": [
        {"op": "rename_tool", "operator": "O2", "tool": "list_units", "new_name": "enumerate_units"},
        {"op": "describe_tool", "operator": "O9", "tool": "convert",
         "description": "Convert one quantity between two units of a category (six significant digits)."},
    ],
}
BREAKING_OPS = {"rename_tool": {"P5", "P17"}, "remove_tool": {"P17"}, "merge_tools": {"P5", "P17"}}
"""What a plan operation implies for a task whose reference calls its tool (P5 when the diff pairs the new name)."""


def _expected(tasks: list, plan: dict) -> dict[str, tuple[str, set[str]]]:
    """Independent of the refresh code: from the plan's change list and the tools each reference calls."""
    broken_by = {f"units__{op['tool']}": BREAKING_OPS[op["op"]]
                 for op in plan["operations"] if op["op"] in BREAKING_OPS}
    out = {}
    for task in tasks:
        hits = [broken_by[s.tool] for s in task.reference if s.tool in broken_by]
        out[task.id] = ("broken", hits[0]) if hits else ("identical", set())
    return out


def test_one_evolved_round_breaks_exactly_the_tasks_its_changes_imply(tmp_path: Path) -> None:
    lineage = tmp_path / "lineages" / "units" / "v1"
    lineage.mkdir(parents=True)
    (lineage / "plan.yaml").write_text(yaml.safe_dump(ROUND))
    tasks = [t for t in bundled_tasks() if t.servers == ["units"]]
    assert len(tasks) >= 4 and any(s.tool == "units__list_units" for t in tasks for s in t.reference)
    picked = [arg for t in tasks for arg in ("--task", t.id)]
    source = ["--db", str(tmp_path / "r.db"), *picked]  # the bundled suite

    code, first = _refresh(*source, "--out", str(tmp_path / "baseline.jsonl"))
    assert code == 0 and first["counts"] == {"identical": len(tasks), "drifted": 0, "broken": 0}
    assert first["no_baseline"] == len(tasks)

    code, evolved = _refresh("--tasks", str(tmp_path / "baseline.jsonl"), "--db", str(tmp_path / "r.db"),
                             "--stage", "v1", "--lineages", str(tmp_path / "lineages"))
    expected = _expected(tasks, ROUND)
    counts = {c: sum(v[0] == c for v in expected.values()) for c in ("identical", "drifted", "broken")}
    assert evolved["counts"] == counts and counts["broken"] >= 1 and code == 1
    for row in evolved["per_task"]:
        want, patterns = expected[row["task"]]
        assert row["class"] == want and row["baseline"] == "task", row
        if want == "broken":
            assert set(row["patterns"]) & patterns, row  # names the pattern that broke it
            assert "tool gone" in row["reasons"][0]
        changed = {c["tool"]: c["patterns"] for c in row["interface_changes"]}
        assert changed["units__convert"] == ["P1"]

    decay = CliRunner().invoke(app, ["report", "--decay", "--db", str(tmp_path / "r.db"), "--format", "json"])
    rows = json.loads(decay.stdout)["decay"]
    assert [r["fractions"]["identical"] for r in rows] == [1.0, round(counts["identical"] / len(tasks), 4)]

    # the shipped lineage of units, three rounds on (v1 describe, v2 optional parameter, v3 replacement)
    chain = [yaml.safe_load((LINEAGES_DIR / "units" / f"v{k}" / "plan.yaml").read_text()) for k in (1, 2, 3)]
    shipped = _expected(tasks, {"operations": [op for plan in chain for op in plan["operations"]]})
    code, v3 = _refresh("--tasks", str(tmp_path / "baseline.jsonl"), "--db", str(tmp_path / "r.db"), "--stage", "v3")
    assert {r["task"]: r["class"] for r in v3["per_task"]} == {k: v[0] for k, v in shipped.items()}
    for row in v3["per_task"]:
        if row["class"] == "broken":
            assert set(row["patterns"]) & shipped[row["task"]][1], row


# --------------------------------------------------------------------------- data drift on a live server


def _price_world(tmp_path: Path, prices: dict[str, float]) -> tuple[Path, Path]:
    data = tmp_path / "prices.json"
    data.write_text(json.dumps(prices))
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"prices": {
        "command": sys.executable, "args": [str(HERE / "price_server.py")], "env": {"PRICE_FILE": str(data)}}}}))
    tasks = tmp_path / "tasks.jsonl"
    rows = [
        {"id": "p-msft", "prompt": "What does Microsoft trade at?", "servers": ["prices"],
         "spec": {"checkpoints": [
             {"id": "read", "kind": "tool_effect", "tools": ["prices__get_price"], "must_include": {"symbol": "MSFT"}},
             {"id": "price", "kind": "value_produced", "source": "tool_result", "contains": [412.5]},
             {"id": "answer", "kind": "value_produced", "source": "final_message", "contains": ["412.50"]}]},
         "reference": [{"tool": "prices__get_price", "args": {"symbol": "MSFT"}}],
         "reference_answer": "Microsoft trades at 412.50 USD."},
        {"id": "p-aapl", "prompt": "What does Apple trade at?", "servers": ["prices"],
         "spec": {"checkpoints": [{"id": "read", "kind": "tool_effect", "tools": ["prices__get_price"]}]},
         "reference": [{"tool": "prices__get_price", "args": {"symbol": "AAPL"}}], "reference_answer": "ok"},
        {"id": "p-ibm", "prompt": "What does IBM trade at?", "servers": ["prices"],
         "spec": {"checkpoints": [{"id": "read", "kind": "tool_effect", "tools": ["prices__get_price"]}]},
         "reference": [{"tool": "prices__get_price", "args": {"symbol": "IBM"}}], "reference_answer": "ok"},
    ]
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return servers, tasks


@pytest.mark.slow
def test_drifted_values_are_carried_into_the_refreshed_task_and_delisting_breaks(tmp_path: Path) -> None:
    servers, tasks = _price_world(tmp_path, {"MSFT": 412.5, "AAPL": 190.0, "IBM": 150.0})
    db = str(tmp_path / "r.db")
    code, first = _refresh("--servers", str(servers), "--tasks", str(tasks), "--db", db)
    assert code == 0 and first["counts"] == {"identical": 3, "drifted": 0, "broken": 0}

    (tmp_path / "prices.json").write_text(json.dumps({"MSFT": 430.25, "AAPL": 190.0}))  # MSFT moved, IBM delisted
    out = tmp_path / "refreshed.jsonl"
    result = CliRunner().invoke(app, ["refresh", "--servers", str(servers), "--tasks", str(tasks), "--db", db,
                                      "--out", str(out)])
    assert result.exit_code == 1, result.output
    diff_lines = {line.replace(" ", "") for line in result.stdout.splitlines()}
    assert {"-412.5", "+430.25", '-"412.50"', '+"430.25"'} <= diff_lines  # the printed diff
    code, again = _refresh("--servers", str(servers), "--tasks", str(tasks), "--db", db)
    assert code == 1  # a broken task fails the command
    by_task = {r["task"]: r for r in again["per_task"]}
    assert again["counts"] == {"identical": 1, "drifted": 1, "broken": 1}
    assert by_task["p-aapl"]["class"] == "identical" and by_task["p-ibm"]["class"] == "broken"
    assert "unknown symbol" in by_task["p-ibm"]["reasons"][0]
    msft = by_task["p-msft"]
    assert msft["class"] == "drifted" and msft["baseline"] == "store"
    assert {(u["where"], str(u["old"]), str(u["new"])) for u in msft["updates"]} >= {
        ("price.contains", "412.5", "430.25"), ("answer.contains", "412.50", "430.25")}
    refreshed = {t.id: t for t in load_tasks(out)}
    assert refreshed["p-msft"].reference_answer == "Microsoft trades at 430.25 USD."
    assert refreshed["p-msft"].provenance["refresh"]["results"]
    assert "refresh" not in refreshed["p-ibm"].provenance  # a broken task is written as it was

    # the refreshed file is its own baseline now: the same world is identical to it
    _, settled = _refresh("--servers", str(servers), "--tasks", str(out), "--db", db, "--task", "p-msft")
    assert settled["per_task"][0]["class"] == "identical" and settled["per_task"][0]["baseline"] == "task"


def test_bad_refresh_input_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    for args in (["--tasks", str(bad)], ["--stage", "v1,v2"], ["--format", "xml"],
                 ["--stage", "v9", "--task", "unit-001"]):
        result = CliRunner().invoke(app, ["refresh", *args, "--db", str(tmp_path / "r.db")])
        assert result.exit_code == 2, (args, result.output)
        assert "error:" in result.output and "Traceback" not in result.output
    for command in (["refresh", "--task", "unit-001"], ["report", "--decay"]):
        result = CliRunner().invoke(app, [*command, "--db", str(bad)])
        assert result.exit_code == 2 and "not a result store" in result.output, result.output
