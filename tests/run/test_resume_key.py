"""A stored episode is reused only for the configuration it ran with, masked values included.

A server's env values (and its ``${input:}``, ``${env:}`` and ``${VAR}`` expansions) are masked in the run's
record; the resume key must still tell ``--input tz=Asia/Tokyo`` from ``--input tz=Europe/Paris``, without the
values ever being stored.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mcptrials.bundled.world import bundled_servers, bundled_tasks
from mcptrials.model import ServerSpec

FIRST, SECOND = "Asia/Tokyo-7f3a9c", "Europe/Paris-5d1e02"
REFERENCES = {"input": "${input:tz}", "env": "${env:MY_TZ}", "var": "${MY_TZ}"}


def _world(folder: Path, reference: str) -> tuple[Path, Path]:
    """The bundled units server with ``TZ`` set from ``reference``, and one of its tasks."""
    units = bundled_servers()["units"].model_dump(exclude={"name", "schema_version"}, exclude_defaults=True)
    servers = folder / "servers.json"
    servers.write_text(json.dumps({"mcpServers": {"units": {**units, "env": {"TZ": reference}}}}))
    tasks = folder / "tasks.jsonl"
    tasks.write_text(next(t for t in bundled_tasks() if t.id == "unit-001").model_dump_json() + "\n")
    return servers, tasks


def _run(servers: Path, tasks: Path, db: Path, kind: str, value: str) -> tuple[int, int]:
    """Run the task with the server's TZ set to ``value``: (episodes run, episodes found already stored)."""
    extra = ["--input", f"tz={value}"] if kind == "input" else []
    done = subprocess.run([sys.executable, "-m", "mcptrials.cli", "run", "--agent", "reference", "--servers",
                           str(servers), "--tasks", str(tasks), "--db", str(db), *extra], capture_output=True,
                          text=True, env={**os.environ, "COLUMNS": "200", "MY_TZ": value}, timeout=300)
    assert done.returncode == 0, done.stderr
    found = re.search(r": (\d+) episode\(s\) in .*; (\d+) already stored;", done.stderr)
    assert found is not None, done.stderr
    return int(found[1]), int(found[2])


@pytest.mark.parametrize("kind", list(REFERENCES))
def test_another_masked_value_is_another_configuration(kind: str, tmp_path: Path) -> None:
    servers, tasks = _world(tmp_path, REFERENCES[kind])
    db = tmp_path / "runs.db"
    assert _run(servers, tasks, db, kind, FIRST) == (1, 0)
    assert _run(servers, tasks, db, kind, SECOND) == (1, 0)  # not the results of the Tokyo configuration
    assert _run(servers, tasks, db, kind, FIRST) == (0, 1)  # the same configuration again resumes
    with sqlite3.connect(db) as conn:
        keys = {r[0] for r in conn.execute("select config_hash from episodes")}
        dump = "\n".join(conn.iterdump())
    assert len(keys) == 2
    assert FIRST not in dump and SECOND not in dump  # the values are keyed by a digest, never stored


def test_the_digest_is_stable_one_way_and_absent_when_nothing_is_masked() -> None:
    from mcptrials.safety.secrets import hidden_values_digest

    spec = ServerSpec(name="s", command="python", env={"TZ": FIRST})
    digest = hidden_values_digest(spec)
    assert digest is not None and FIRST not in digest
    assert hidden_values_digest(spec.model_copy()) == digest
    assert hidden_values_digest(spec.model_copy(update={"env": {"TZ": SECOND}})) != digest
    assert hidden_values_digest(ServerSpec(name="s", url="http://h/mcp?token=a1b2c3d4")) != \
        hidden_values_digest(ServerSpec(name="s", url="http://h/mcp?token=e5f6g7h8"))
    assert all(hidden_values_digest(s) is None for s in bundled_servers().values())  # their keys did not change
