"""Task files in JSON, JSONL and YAML; clear errors naming the task id and field path."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from mcptrials.tasks.loader import TaskFileError, load_tasks, task_json_schema

GOOD = {"id": "t1", "prompt": "do it", "servers": ["rail"], "now": "2026-04-13T09:00:00+08:00",
        "spec": {"checkpoints": [{"id": "c1", "kind": "tool_effect", "tools": ["rail__get_tickets"],
                                  "must_match": {"limit": {"approx": 5, "tol": 0}}}]},
        "reference": [{"tool": "rail__get_tickets", "args": {"limit": 5}}]}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_all_formats_load(tmp_path: Path) -> None:
    import yaml

    second = {**GOOD, "id": "t2"}
    json_file = write(tmp_path, "a.json", json.dumps([GOOD]))
    jsonl = write(tmp_path, "b.jsonl", json.dumps(second) + "\n\n")
    yml = write(tmp_path, "c.yaml", yaml.safe_dump({"tasks": [{**GOOD, "id": "t3"}]}))
    tasks = load_tasks(json_file, jsonl, yml)
    assert [t.id for t in tasks] == ["t1", "t2", "t3"]
    assert tasks[0].chain_length == "short"


def test_example_tasks_validate_against_the_published_schema(example_tasks_path: Path) -> None:
    schema = task_json_schema()
    for line in example_tasks_path.read_text().splitlines():
        jsonschema.validate(json.loads(line), schema)


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.pop("prompt"), "task 't1': prompt: Field required"),
    (lambda t: t["spec"]["checkpoints"][0].update(kind="bogus"), "spec.checkpoints.0"),
    (lambda t: t["spec"]["checkpoints"][0]["must_match"]["limit"].update(regex="x"), "exactly one"),
    (lambda t: t.update(now="2026-04-13T09:00:00"), "needs a timezone offset"),
    (lambda t: t["spec"].update(partial_order=[["c1", "c9"]]), "unknown checkpoint 'c9'"),
    (lambda t: t["reference"][0].update(tool="get_tickets"), "not a qualified tool name"),
    (lambda t: t.update(servers=[]), "servers"),
])
def test_bad_task_names_id_and_field(tmp_path: Path, change, message: str) -> None:
    task = json.loads(json.dumps(GOOD))
    change(task)
    path = write(tmp_path, "t.jsonl", json.dumps(task))
    with pytest.raises(TaskFileError) as info:
        load_tasks(path)
    assert message in str(info.value) and "t.jsonl:1" in str(info.value)


def test_bad_json_line_and_duplicate_ids(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match=r"t.jsonl:2: invalid JSON"):
        load_tasks(write(tmp_path, "t.jsonl", json.dumps(GOOD) + "\n{oops\n"))
    with pytest.raises(TaskFileError, match="already used"):
        load_tasks(write(tmp_path, "d.jsonl", json.dumps(GOOD) + "\n" + json.dumps(GOOD)))
