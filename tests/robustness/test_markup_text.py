"""Text that looks like rich markup (``[/x]``, ``[red]X[/red]``) in tasks, tool descriptions and server output is
shown as written by every command that prints it: never a crash, never a tag silently eaten."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from faults import HERE, HOSTILE, nap_task, run_command, write_world

TASK_ID = "nap[/x]"
CATEGORY = "[red]X[/red]"
MARKUP = "[/x][red]X[/red]"


def _cli(*args: str) -> tuple[int, str]:
    """``mcptrials ARGS`` in a child process on a wide terminal: exit code and stdout + stderr."""
    proc = subprocess.run([sys.executable, "-m", "mcptrials.cli", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "250"})
    return proc.returncode, proc.stdout + proc.stderr


def _ok(code: int, output: str, *expected: str) -> None:
    assert "Traceback" not in output and "MarkupError" not in output, output
    assert code == 0, output
    for text in expected:
        assert text in output, f"{text!r} not shown as written:\n{output}"


def test_markup_in_task_ids_and_categories_is_shown_as_written(tmp_path: Path) -> None:
    tasks_path, servers_path = write_world(tmp_path, [nap_task(TASK_ID, 0.0, category=CATEGORY)])
    db = tmp_path / "runs.db"
    _ok(*_cli("tasks", "list", "--tasks", str(tasks_path), "--servers", str(servers_path)), TASK_ID, CATEGORY)
    code, output = _cli(*run_command(tasks_path, servers_path, db)[3:])
    _ok(code, output, CATEGORY)  # the tables printed after the episode was stored, category breakdown included
    _ok(*_cli("report", "--db", str(db), "--episodes"), TASK_ID, CATEGORY)
    with sqlite3.connect(db) as conn:
        (episode_id,) = conn.execute("select id from episodes").fetchone()
    _ok(*_cli("show", episode_id, "--db", str(db)), TASK_ID)


def test_markup_in_tool_descriptions_and_start_failures_is_shown_as_written(tmp_path: Path) -> None:
    servers = tmp_path / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {
        "adv": {"command": sys.executable, "args": [str(HERE / "adversarial_server.py")], "env": {"ADV_TOKEN": MARKUP}},
        "broken": {"command": sys.executable, "args": [str(HOSTILE)],
                   "env": {"HOSTILE_FAIL_START": "1", "HOSTILE_NOTE": MARKUP}}}}))
    _ok(*_cli("servers", "tools", "adv", "--servers", str(servers)), f"key={MARKUP} and return it")
    code, output = _cli("servers", "list", "--servers", str(servers))
    assert "Traceback" not in output and "MarkupError" not in output, output
    assert code == 1  # one server failed to start: the documented exit code of `servers list`
    assert f"'HOSTILE_NOTE': '{MARKUP}'" in output, output  # the server's stderr, quoted in the failure line
