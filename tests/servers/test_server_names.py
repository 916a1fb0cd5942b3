"""A server's name is text, never a path: names are checked when a config is loaded, and no file is named after one.

A config naming a server ``../../../PWNED`` once made `run` write ``PWNED.stderr.log`` three folders above its
episode's temp folder (and never remove it); a ``/`` in a name gave a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.model import ServerSpec

BAD_NAMES = ["../../../PWNED", "a/b", "..", ".hidden", "-flag", "two words", "x" * 65, "", "caf\u00e9", "a__b"]


def _world(folder: Path, name: str) -> tuple[Path, Path]:
    """The bundled units server under ``name`` and a task of it rewritten to that name."""
    units = bundled_servers()["units"].model_dump(exclude={"name", "schema_version"}, exclude_defaults=True)
    servers = folder / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {name: units}}))
    task = next(t for t in bundled_tasks() if t.id == "unit-001")
    text = task.model_dump_json().replace('"units"', json.dumps(name)).replace("units__", f"{name}__")
    tasks = folder / "tasks.jsonl"
    tasks.write_text(text + "\n")
    return servers, tasks


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcptrials.cli", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "200", **(env or {})}, timeout=120)


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_server_name_is_one_line_at_load_and_nothing_is_written(name: str, tmp_path: Path) -> None:
    temp = tmp_path / "a" / "b" / "c" / "tmp"  # ../../../ from an episode folder here stays inside tmp_path
    temp.mkdir(parents=True)
    servers, tasks = _world(tmp_path, name)
    before = sorted(tmp_path.rglob("*"))
    done = _cli("run", "--agent", "reference", "--servers", str(servers), "--tasks", str(tasks),
                "--db", str(tmp_path / "runs.db"), env={"TMPDIR": str(temp)})
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"error: {servers}: server {name!r}: " + (
        "a server name must not contain '__'" if name == "a__b" else
        "a server name is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit") + "\n")
    assert sorted(tmp_path.rglob("*")) == before  # no PWNED.stderr.log, no store, no temp folder


@pytest.mark.parametrize("command", [["servers", "list"], ["servers", "tools", "a/b"], ["tasks", "check"]])
def test_every_command_that_loads_servers_refuses_a_path_as_a_name(command: list[str], tmp_path: Path) -> None:
    servers, tasks = _world(tmp_path, "a/b")
    extra = ["--tasks", str(tasks)] if command[0] == "tasks" else []
    done = _cli(*command, "--servers", str(servers), *extra)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "server 'a/b': a server name is" in done.stderr


def test_a_spec_made_in_python_is_checked_too() -> None:
    with pytest.raises(ValidationError, match="a server name is 1-64 letters"):
        ServerSpec(name="../../x", command="python")
    assert ServerSpec(name="my-server.v2_1", command="python").name == "my-server.v2_1"


def test_good_names_still_run(tmp_path: Path) -> None:
    servers, tasks = _world(tmp_path, "Units-2.v1_x")
    done = _cli("run", "--agent", "reference", "--servers", str(servers), "--tasks", str(tasks),
                "--db", str(tmp_path / "runs.db"))
    assert done.returncode == 0, done.stderr
    assert "passed 100 % 1/1 (failed 0;" in done.stderr
