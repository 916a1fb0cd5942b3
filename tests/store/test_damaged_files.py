"""Damaged SQLite files and unreadable stored rows: one line naming the file, exit code 2, the file untouched;
a row that cannot be read is reported by its id and the command goes on with the rest."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROBUSTNESS = Path(__file__).parents[1] / "robustness"
sys.path.insert(0, str(ROBUSTNESS))

from faults import nap_task, run_command, write_world  # noqa: E402


def _cli(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "mcptrials.cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env={**os.environ, "COLUMNS": "250"})
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture(scope="module")
def good_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real store with three stored episodes (the scripted reference model over the hostile server)."""
    folder = tmp_path_factory.mktemp("store")
    tasks, servers = write_world(folder, [nap_task(f"t{i}", 0.0) for i in range(3)])
    db = folder / "runs.db"
    proc = subprocess.run(run_command(tasks, servers, db), capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db


def _damaged(kind: str, good: Path, folder: Path) -> Path:
    data = good.read_bytes()
    path = folder / f"{kind}.db"
    if kind == "header_then_garbage":
        path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 40)
    elif kind == "truncated":
        path.write_bytes(data[: len(data) // 3])
    else:  # every page after the first overwritten: the schema is there, the tables are not
        page = int.from_bytes(data[16:18], "big")
        path.write_bytes(data[:page] + bytes((i * 7) % 251 for i in range(len(data) - page)))
    return path


COMMANDS = {
    "report": ["report", "--db", "{db}"],
    "view": ["view", "--db", "{db}", "--port", "1"],
    "show": ["show", "abc", "--db", "{db}"],
    "export": ["export", "--format", "jsonl", "--db", "{db}", "--out", "{out}"],
    "score": ["score", "--db", "{db}"],
    "replay": ["run", "--replay", "{db}", "--model", "scripted:reference", "--db", "{out}"],
}


CASES = [("header_then_garbage", command) for command in sorted(COMMANDS)] + [
    (kind, command) for kind in ("truncated", "pages_overwritten") for command in ("report", "export", "replay")]


@pytest.mark.parametrize(("kind", "command"), CASES)
def test_a_damaged_sqlite_file_is_one_line_naming_it(good_store: Path, tmp_path: Path, kind: str,
                                                     command: str) -> None:
    db = _damaged(kind, good_store, tmp_path)
    before = db.read_bytes()
    args = [a.format(db=db, out=tmp_path / "out.db" if command == "replay" else tmp_path / "out.jsonl")
            for a in COMMANDS[command]]
    code, stdout, stderr = _cli(*args)
    assert "Traceback" not in stdout + stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {db}: "), stderr
    assert lines[0].endswith(("is not a SQLite database", "is damaged (database disk image is malformed)")), stderr
    assert code == 2
    assert db.read_bytes() == before  # nothing written to it


def test_a_broken_generation_ledger_is_one_line_naming_it(tmp_path: Path) -> None:
    out = tmp_path / "tasks.jsonl"
    ledger = tmp_path / "tasks.gen.db"
    ledger.write_bytes(b"SQLite format 3\x00" + b"\x01garbage" * 500)
    code, stdout, stderr = _cli("generate", "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1", "--out",
                                str(out), "--method", "chains", "--n", "1", "--server", "weather")
    assert "Traceback" not in stdout + stderr
    assert stderr.strip().splitlines() == [
        f"error: {ledger}: the generation ledger is damaged or not a SQLite database (file is not a database); "
        "move it away to start afresh (its stored replies are then asked again)"]
    assert code == 2 and not out.exists()


def test_an_unreadable_stored_row_is_reported_and_the_rest_goes_on(good_store: Path, tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    db.write_bytes(good_store.read_bytes())
    with sqlite3.connect(db) as conn:
        ids = [r[0] for r in conn.execute("select id from episodes order by id")]
        conn.execute("update episodes set data = '{not json' where id = ?", (ids[0],))
        conn.execute("update scores set data = '[]' where episode_id = ? and scorer = 'rules'", (ids[1],))
    warning = f"warning: sqlite:///{db}: episode {ids[0]}: "
    for args in (["report", "--db", str(db), "--format", "json"], ["export", "--format", "jsonl", "--db", str(db)],
                 ["score", "--db", str(db)]):
        code, stdout, stderr = _cli(*args)
        assert code == 0 and "Traceback" not in stdout + stderr, stderr
        assert stderr.count(warning) == 1, stderr
        assert "; left out (damaged, or written by another version of mcptrials)" in stderr
        if args[0] == "report":
            assert f"score {ids[1]} rules: " in stderr  # the score row too, by its key
            assert '"episode_id"' in stdout and ids[1] in stdout and ids[2] in stdout and ids[0] not in stdout
        elif args[0] == "export":
            assert len([line for line in stdout.splitlines() if line.startswith("{")]) == 2
        else:
            assert "re-scored 2 episode(s)" in stderr
