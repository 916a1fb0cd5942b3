"""Bad input through the CLI: one clear line naming what is wrong, exit code 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mcptrials.cli import app

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes is not None else "")


@pytest.fixture
def servers_file(tmp_path: Path) -> Path:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"rail": {"command": "python",
                                                        "args": ["-m", "mcptrials.examples.trains_server"]}}}))
    return path


def test_bad_servers_file(tmp_path: Path) -> None:
    bad = tmp_path / "s.json"
    bad.write_text('{"mcpServers": {"x": {"type": "stdio"}}}')
    code, text = invoke("servers", "check", "--servers", str(bad))
    assert code == 2 and "server 'x': field 'command' is missing" in text and "Traceback" not in text


def test_bad_task_file(tmp_path: Path, servers_file: Path) -> None:
    tasks = tmp_path / "t.jsonl"
    tasks.write_text('{"id": "a", "prompt": "p", "servers": ["rail"], "spec": {"checkpoints": []}}\n')
    code, text = invoke("run", "--servers", str(servers_file), "--tasks", str(tasks), "--agent", "reference",
                        "--db", str(tmp_path / "r.db"))
    assert code == 2 and "t.jsonl:1: task 'a': spec.checkpoints of task 'a' is empty" in text
    assert "Traceback" not in text


def test_task_naming_unknown_server(tmp_path: Path, servers_file: Path) -> None:
    tasks = tmp_path / "t.jsonl"
    tasks.write_text(json.dumps({"id": "a", "prompt": "p", "servers": ["weather"], "spec": {"checkpoints": [
        {"id": "c", "kind": "value_produced", "contains": ["x"]}]}}) + "\n")
    code, text = invoke("run", "--servers", str(servers_file), "--tasks", str(tasks), "--agent", "reference",
                        "--db", str(tmp_path / "r.db"))
    assert code == 2 and "servers ['weather'] are not in the servers config" in text


@pytest.mark.parametrize(("spec", "message"), [
    ("gpt-4o", "needs a provider prefix"),
    ("nosuch:model", "unknown model provider 'nosuch'"),
    ("scripted:/no/such/file.json", "cannot read script"),
])
def test_bad_model_spec(tmp_path: Path, spec: str, message: str) -> None:
    code, text = invoke("run", "--model", spec, "--db", str(tmp_path / "r.db"))
    assert code == 2 and message in text and "Traceback" not in text


def test_report_without_store(tmp_path: Path) -> None:
    code, text = invoke("report", "--db", str(tmp_path / "none.db"))
    assert code == 2 and "no result store" in text


def test_unknown_task_id(tmp_path: Path) -> None:
    code, text = invoke("run", "--agent", "reference", "--task", "nope", "--db", str(tmp_path / "r.db"))
    assert code == 2 and "unknown task id(s): nope" in text


def test_tasks_schema_is_json() -> None:
    code, text = invoke("tasks", "schema")
    assert code == 0 and json.loads(text)["title"] == "Task"


def test_servers_check_fails_when_a_server_does_not_start(tmp_path: Path, servers_file: Path) -> None:
    doc = json.loads(servers_file.read_text())
    doc["mcpServers"]["broken"] = {"command": "python", "args": ["-c", "import sys; sys.exit('no config')"]}
    path = tmp_path / "with_broken.json"
    path.write_text(json.dumps(doc))
    code, text = invoke("servers", "check", "--servers", str(path), "--format", "json")
    assert code == 1
    data = json.loads(text[: text.rindex("}") + 1])
    status = {s["server"]: s for s in data["servers"]}
    assert status["rail"]["ok"] and status["rail"]["tools"] == 2 and status["rail"]["startup_s"] > 0
    assert not status["broken"]["ok"] and "no config" in status["broken"]["error"]
    code, _ = invoke("servers", "check", "--servers", str(servers_file))
    assert code == 0
