"""Bad task and config files stop the command before anything runs: exit 2, one line naming file, task and field."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from faults import marked, nap_task, run_command, stored, write_world
from typer.testing import CliRunner

from mcptrials.cli import app

BOMB_LEVELS = 9


def _run(cmd: list[str], *, trace: bool = False) -> tuple[int, str, int]:
    """Run the ``mcptrials`` command line of ``cmd`` in this process: exit code, output, peak Python MB."""
    args = cmd[cmd.index("mcptrials.cli") + 1:]
    if trace:
        warm = list(args)
        warm[warm.index("--tasks") + 1] = "/nonexistent/tasks.jsonl"  # the same imports, outside the measurement
        CliRunner().invoke(app, warm)
        tracemalloc.start()
    try:
        result = CliRunner().invoke(app, args)
        peak = tracemalloc.get_traced_memory()[1] if trace else 0
    finally:
        tracemalloc.stop()
    text = result.output  # stdout and stderr, interleaved
    return result.exit_code, text, peak // (1024 * 1024)


def _one_error_line(err: str) -> str:
    """The one error message (rich wraps it at the console width: rejoined here)."""
    assert "Traceback" not in err, err
    assert err.count("error:") == 1, err
    message = err[err.index("error:"):]
    return " ".join(message.split())


def _bomb_yaml(levels: int = BOMB_LEVELS) -> str:
    """A billion-laughs document: 9 levels of 9 aliases each expand to 9**9 (387 million) strings."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("path", "problem"), [
    ("../x", "contains '..'"),
    ("/etc/cron.d/x", "is absolute"),
    ("a\u0000b", "NUL byte"),
    ("notes/../../x", "contains '..'"),
    ("x" * 300, "longer than 255 bytes"),
])
def test_a_bad_fixture_path_stops_the_run_before_it_starts(tmp_path: Path, mark: str, path: str,
                                                           problem: str) -> None:
    tasks = [nap_task("fine", 0.0), nap_task("evil", 0.0, fixtures={"files": {path: "payload"}}),
             nap_task("after", 0.0)]
    tasks_path, servers_path = write_world(tmp_path, tasks)
    db = tmp_path / "runs.db"
    code, err, _ = _run(run_command(tasks_path, servers_path, db))
    assert code == 2
    line = _one_error_line(err)
    assert f"{tasks_path}:2: task 'evil': fixtures.files:" in line and problem in " ".join(line.split())
    assert stored(db) == [] and marked(mark) == []  # no episode ran, no server started
    assert not (tmp_path / "x").exists() and not (tmp_path.parent / "x").exists()


@pytest.mark.parametrize("where", ["tasks", "servers"])
def test_a_yaml_alias_bomb_is_refused_in_bounded_memory(tmp_path: Path, where: str) -> None:
    tasks_path, servers_path = write_world(tmp_path, [nap_task("t", 0.0)])
    bomb = tmp_path / f"{where}.yaml"
    if where == "tasks":  # the bomb sits where validation would copy it: a task's provenance
        bomb.write_text(_bomb_yaml() + "tasks:\n- {id: t, prompt: p, servers: [hostile], provenance: {x: *l9},\n"
                        "   spec: {checkpoints: [{id: c, kind: tool_effect, tools: [hostile__nap]}]}}\n")
        tasks_path = bomb
    else:  # where ${VAR} expansion would walk it: a server's args
        bomb.write_text(_bomb_yaml() + "mcpServers:\n  hostile: {command: python, args: *l9}\n")
        servers_path = bomb
    code, err, peak_mb = _run(run_command(tasks_path, servers_path, tmp_path / "runs.db"), trace=True)
    assert code == 2
    line = _one_error_line(err)
    assert f"{bomb}: YAML aliases expand to over" in line
    assert peak_mb < 50, f"peak {peak_mb} MB"  # expanded, the document would need tens of GB


def _write(path: Path, data: Any) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else json.dumps(data).encode())
    return path


@pytest.mark.parametrize(("case", "expected"), [
    ("tasks_latin1", "is not UTF-8 text (byte 0xe9 at line 1 column"),
    ("servers_latin1", "is not UTF-8 text (byte 0xe9 at line 1 column"),
    ("tasks_deep", "nested deeper than 64 levels"),
    ("servers_deep", "nested deeper than 64 levels"),
    ("servers_numeric", "server name 123 is a int, not text; quote it"),
    ("tasks_recursive_alias", "a YAML alias refers to itself"),
])
def test_unreadable_documents_give_one_clear_line(tmp_path: Path, case: str, expected: str) -> None:
    tasks_path, servers_path = write_world(tmp_path, [nap_task("t", 0.0)])
    if case == "tasks_latin1":
        text = json.dumps(nap_task("caf\u00e9", 0.0), ensure_ascii=False)
        tasks_path = _write(tmp_path / "t.jsonl", text.encode("latin-1"))
    elif case == "servers_latin1":
        servers_path = _write(tmp_path / "s.json", '{"mcpServers": {"caf\u00e9": {"command": "x"}}}'.encode("latin-1"))
    elif case == "tasks_deep":
        tasks_path = _write(tmp_path / "t.json", b"[" * 100_000 + b"]" * 100_000)
    elif case == "servers_deep":
        servers_path = _write(tmp_path / "s.json", {"mcpServers": {"a": {"command": "x", "env": {}},
                                                                   "b": json.loads("[" * 200 + "]" * 200)}})
    elif case == "servers_numeric":
        servers_path = tmp_path / "s.yaml"
        servers_path.write_text(f"mcpServers:\n  123: {{command: python, args: [{tmp_path}]}}\n")
    else:
        tasks_path = tmp_path / "t.yaml"
        tasks_path.write_text("tasks: &a [*a]\n")
    code, err, _ = _run(run_command(tasks_path, servers_path, tmp_path / "runs.db"))
    assert code == 2
    line = _one_error_line(err)
    assert expected in line
    assert str(tasks_path if case.startswith("tasks") else servers_path) in line.replace(" ", "")
