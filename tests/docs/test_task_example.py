"""The worked example of the tasks page is a valid task, the same in JSON and YAML, and its spec is proven."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from markdown_blocks import ROOT, blocks, command_env, expected_line_found, page

from mcptrials.tasks.loader import load_tasks

TASKS_PAGE = "guide/tasks.md"


def _write_titled(tmp_path: Path) -> None:
    for block in blocks(page(TASKS_PAGE)):
        if block.title:
            (tmp_path / block.title).write_text(block.text, encoding="utf-8")


def test_worked_example_loads_the_same_from_json_and_yaml(tmp_path: Path) -> None:
    _write_titled(tmp_path)
    [from_json] = load_tasks(tmp_path / "trip.jsonl")
    [from_yaml] = load_tasks(tmp_path / "trip.yaml")
    assert from_json == from_yaml
    kinds = {cp.kind for cp in from_json.spec.checkpoints}
    assert {"tool_effect", "value_produced", "state"} <= kinds
    assert from_json.spec.minefields and from_json.spec.partial_order and from_json.reference
    assert from_json.now is not None and from_json.fixtures.files and from_json.reference_answer


def test_example_config_is_the_shipped_one(tmp_path: Path) -> None:
    _write_titled(tmp_path)
    shipped = ROOT / "src" / "mcptrials" / "examples" / "servers.json"
    assert json.loads((tmp_path / "servers.json").read_text()) == json.loads(shipped.read_text())


@pytest.mark.slow
def test_worked_example_passes_tasks_check(tmp_path: Path) -> None:
    _write_titled(tmp_path)
    mcptrials = shutil.which("mcptrials", path=command_env()["PATH"])
    assert mcptrials is not None
    done = subprocess.run([mcptrials, "tasks", "check", "--servers", "servers.json", "--tasks", "trip.jsonl"],
                          cwd=tmp_path, env=command_env(), capture_output=True, text=True, timeout=300, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert expected_line_found("reference plans passing their own spec: 1/1", output), output
    assert expected_line_found("both: 1/1", output), output


def test_judge_only_example_loads_without_checkpoints(tmp_path: Path) -> None:
    _write_titled(tmp_path)
    [brief] = load_tasks(tmp_path / "brief.yaml")
    assert brief.spec.judge_only and brief.spec.judges == ["keypoints"] and brief.key_points
