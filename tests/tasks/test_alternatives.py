"""The alternatives corpus: loading, playing through the ReAct loop on real servers, on evolved versions too."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
import yaml
from typer.testing import CliRunner

from mcptrials.bundled.world import LINEAGES_DIR, bundled_servers
from mcptrials.cli import app
from mcptrials.evolve.versions import Lineages, versioned_world
from mcptrials.model import Task
from mcptrials.tasks.alternatives import (
    AlternativesError,
    AltSummary,
    coverage_gaps,
    load_alternatives,
    play,
)

MARATHON = {
    "id": "marathon", "prompt": "How long is a marathon (26.2 miles) in kilometres?", "servers": ["units"],
    "now": "2026-04-13T09:00:00+08:00",
    "reference": [{"tool": "units__convert", "args": {"value": 26.2, "from_unit": "mi", "to_unit": "km",
                                                      "category": "length"}}],
    "reference_answer": "A marathon is 42.16 km.",
    "spec": {"checkpoints": [
        {"id": "answer", "kind": "value_produced", "source": "final_message",
         "facts": [{"label": ["marathon", "km", "kilomet"], "value": 42.1648}], "absent": [42.1]}]},
}
CORPUS = [
    {"task": "marathon", "id": "spelled-out", "expect": "accept", "classes": ["other_spelling", "rephrased_answer"],
     "turns": [[{"tool": "units__convert", "args": {"value": "26.2", "from_unit": "miles", "to_unit": "kilometres",
                                                    "category": "length"}}]],
     "answer": "That's about 42.2 kilometres for the marathon."},
    {"task": "marathon", "id": "no-tool-at-all", "expect": "accept", "classes": ["other_tool"],
     "turns": [], "answer": "A marathon is 42.16 km."},
    {"task": "marathon", "id": "rounded-wrong", "expect": "reject", "classes": ["wrong_value"],
     "turns": "reference", "answer": "A marathon is 42.1 km."},
    {"task": "marathon", "id": "wrong-conversion", "expect": "reject", "classes": ["wrong_conclusion"],
     "turns": [[{"tool": "units__convert", "args": {"value": 26.2, "from_unit": "km", "to_unit": "mi",
                                                    "category": "length"}}]],
     "answer": "A marathon is 16.28 km."},
]


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    path = tmp_path / "alternatives.yaml"
    path.write_text(yaml.safe_dump(CORPUS))
    return path


@pytest.mark.parametrize(("entry", "message"), [
    ({**CORPUS[0], "classes": ["wrong_value"]}, "do not fit expect=accept"),
    ({**CORPUS[0], "expect": "maybe"}, "expect"),
    ({**CORPUS[0], "turns": "sometimes"}, "turns"),
    ({**CORPUS[0], "extra": 1}, "extra"),
])
def test_bad_entries_are_named(tmp_path: Path, entry: dict, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump([CORPUS[1], entry]))
    with pytest.raises(AlternativesError, match=r"bad\.yaml\[1\].*") as info:
        load_alternatives(path)
    assert message in str(info.value)


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(yaml.safe_dump([CORPUS[0], CORPUS[0]]))
    with pytest.raises(AlternativesError, match="defined twice"):
        load_alternatives(path)


def test_played_through_the_react_loop_on_v0(corpus_file: Path) -> None:
    task = Task.model_validate(MARATHON)
    results = anyio.run(play, bundled_servers(), [task], load_alternatives(corpus_file))
    assert [(r.alt_id, r.accepted) for r in results] == [
        ("spelled-out", True), ("no-tool-at-all", True), ("rounded-wrong", False), ("wrong-conversion", False)]
    assert all(r.right for r in results)
    summary = AltSummary(results, coverage_gaps([task], load_alternatives(corpus_file))).as_dict()
    assert summary["accept"] == {"total": 2, "accepted": 2} and summary["reject"] == {"total": 2, "rejected": 2}
    assert summary["per_class"]["wrong_value"] == {"total": 1, "right": 1, "rejected": 1}
    assert summary["tasks_without"] == {"accept": [], "reject": []}


def test_calls_are_rewritten_for_an_evolved_version(corpus_file: Path) -> None:
    """On v3 of units, convert is convert_quantity with renamed parameters; v0 trajectories still play."""
    lineages = Lineages(LINEAGES_DIR)
    servers, tasks = versioned_world(bundled_servers(), [Task.model_validate(MARATHON)], lineages, "v3")
    assert tasks[0].reference[0].tool == "units__convert_quantity"
    results = anyio.run(play, servers, tasks, load_alternatives(corpus_file), "v3", lineages.chains_at("v3"))
    assert [r.right for r in results] == [True] * 4, [r.detail for r in results]


def test_cli_exits_non_zero_on_a_miss(tmp_path: Path, corpus_file: Path) -> None:
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([MARATHON]))
    runner = CliRunner()
    ok = runner.invoke(app, ["tasks", "check", "--tasks", str(tasks), "--alternatives-from", str(corpus_file),
                             "--format", "json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["right"] == 4
    lenient = {**MARATHON, "spec": {"checkpoints": [
        {"id": "answer", "kind": "value_produced", "source": "final_message", "contains": ["marathon"]}]}}
    tasks.write_text(json.dumps([lenient]))
    bad = runner.invoke(app, ["tasks", "check", "--tasks", str(tasks), "--alternatives-from", str(corpus_file),
                              "--format", "json"])
    assert bad.exit_code == 1
    misses = json.loads(bad.stdout)["misses"]
    assert {m["id"] for m in misses} == {"rounded-wrong", "wrong-conversion"}
