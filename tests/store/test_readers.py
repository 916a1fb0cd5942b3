"""Commands that only read a store (report, show, export, view, a replay's recording) never change it.

They open it read-only: a SQLite file that is not an mcptrials store is refused with one line and left
byte for byte as it was, a store on a read-only mount is read, and a replay source keeps its bytes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, inspect

from mcptrials.store.db import Store

ENV = {**os.environ, "COLUMNS": "200"}
MCPTRIALS = [sys.executable, "-m", "mcptrials.cli"]
OLD_DUMP = Path(__file__).parent / "data" / "old_schema.sql"


def _cli(*args: str, prefix: list[str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*(prefix or []), *MCPTRIALS, *args], capture_output=True, text=True, env=ENV,
                          timeout=timeout)


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file in ``folder`` and its SHA-256: what must not change."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == "" and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    return done.stderr.strip()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def real_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store written by one real run (the reference agent on a bundled task)."""
    db = tmp_path_factory.mktemp("real") / "runs.db"
    done = _cli("run", "--agent", "reference", "--task", "unit-001", "--db", str(db))
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    """Someone else's SQLite database (a notes app's), alone in its folder."""
    path = tmp_path / "foreign" / "notes.sqlite"
    path.parent.mkdir()
    with sqlite3.connect(path) as conn:
        conn.execute("create table notes (id integer primary key, body text)")
        conn.execute("insert into notes (body) values ('keep me')")
    return path


READERS = {
    "report": ["report", "--db", "{db}"],
    "report html": ["report", "--db", "{db}", "--format", "html", "--out", "{out}/r.html"],
    "show": ["show", "abc", "--db", "{db}"],
    "export": ["export", "--format", "jsonl", "--db", "{db}", "--out", "{out}/e.jsonl"],
    "view": ["view", "--db", "{db}", "--port", "{port}"],
    "run --replay": ["run", "--replay", "{db}", "--db", "{out}/new.db"],
}


@pytest.mark.parametrize("command", list(READERS))
def test_a_foreign_sqlite_file_is_refused_with_one_line_and_left_unchanged(command: str, foreign: Path,
                                                                            tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    before = _snapshot(foreign.parent)
    args = [a.format(db=foreign, out=out, port=_free_port()) for a in READERS[command]]
    line = _one_line(_cli(*args))
    assert line == f"error: {foreign} is not an mcptrials result store (no table episodes, runs, scores, tasks, " \
                   "tools); it was left unchanged"
    assert _snapshot(foreign.parent) == before  # no table added, no -wal or -shm file left beside it
    assert list(out.iterdir()) == []  # and nothing written where the output would have gone


def test_a_store_from_an_older_mcptrials_is_not_upgraded_by_a_reader(tmp_path: Path) -> None:
    path = tmp_path / "old" / "old.db"
    path.parent.mkdir()
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD_DUMP.read_text())
    before = _snapshot(path.parent)
    line = _one_line(_cli("report", "--db", str(path)))
    assert line.startswith(f"error: the result store {path} is from an older mcptrials (schema before 0001, ")
    assert _snapshot(path.parent) == before
    assert _cli("score", "--db", str(path)).returncode == 0  # a writing command upgrades it
    assert _cli("report", "--db", str(path), "--format", "json").returncode == 0


def test_a_replay_source_keeps_its_bytes(real_store: Path, tmp_path: Path) -> None:
    """The recording is a copy in rollback-journal mode (as one is often shared, one file and no -wal): a
    writer's open switches it to WAL, a change to its header; a reader's leaves every byte as it was."""
    source = tmp_path / "recording" / "rec.db"
    source.parent.mkdir()
    with sqlite3.connect(real_store) as live, sqlite3.connect(source) as copy:
        live.backup(copy)
        copy.execute("pragma journal_mode=delete")
    before = _snapshot(source.parent)
    done = _cli("run", "--agent", "reference", "--replay", str(source), "--db", str(tmp_path / "replayed.db"))
    assert done.returncode == 0, done.stderr
    assert _snapshot(source.parent) == before
    replayed = Store(tmp_path / "replayed.db")
    assert [e.task_id for e in replayed.episodes()] == ["unit-001"]
    replayed.close()


@contextmanager
def _read_only(folder: Path) -> Iterator[list[str]]:
    """A command prefix under which ``folder`` cannot be written: a read-only bind mount in a private mount
    namespace (as root), else the folder's and its files' write permissions removed."""
    if os.geteuid() == 0:
        if shutil.which("unshare") is None:
            pytest.skip("running as root without `unshare`: cannot make a read-only mount")
        probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
        if probe.returncode != 0:
            pytest.skip(f"cannot make a mount namespace here: {probe.stderr.decode().strip()}")
        script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
        yield ["unshare", "-m", "sh", "-c", script, str(folder)]
        return
    modes = {p: p.stat().st_mode for p in [folder, *folder.iterdir()]}
    for path in modes:
        path.chmod(modes[path] & ~0o222)
    try:
        yield []
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def test_readers_work_on_a_read_only_mount(real_store: Path, tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "runs.db"
    shutil.copy(real_store, db)  # closed cleanly: no -wal or -shm file, and none can be made on the mount
    episode = next(Store(real_store).episodes())
    out = tmp_path / "out"
    before = _snapshot(folder)
    with _read_only(folder) as prefix:
        report = _cli("report", "--db", str(db), "--format", "json", prefix=prefix)
        assert report.returncode == 0, report.stderr
        assert '"task_id": "unit-001"' in report.stdout
        shown = _cli("show", episode.id[:8], "--db", str(db), prefix=prefix)
        assert shown.returncode == 0 and episode.task_id in shown.stdout, shown.stderr
        exported = _cli("export", "--format", "jsonl", "--db", str(db), "--out", str(out / "e.jsonl"), prefix=prefix)
        assert exported.returncode == 0, exported.stderr
        assert episode.id in (out / "e.jsonl").read_text()
        port = _free_port()
        viewer = subprocess.Popen([*prefix, *MCPTRIALS, "view", "--db", str(db), "--port", str(port)], env=ENV,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            page = _get_when_up(f"http://127.0.0.1:{port}/episode/{episode.id}", viewer)
            assert page.status_code == 200 and "unit-001" in page.text
        finally:
            viewer.terminate()
            viewer.wait(timeout=10)
    assert _snapshot(folder) == before


def _get_when_up(url: str, process: subprocess.Popen[str]) -> httpx.Response:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the viewer exited {process.returncode}: {process.stdout.read()}")  # type: ignore[union-attr]
        try:
            return httpx.get(url, timeout=5)
        except httpx.TransportError:
            time.sleep(0.2)
    raise AssertionError("the viewer did not answer within 60 s")


def test_a_postgres_database_that_is_not_a_store_is_refused_and_gets_no_table(postgres_url: str) -> None:
    from pg_cluster import PASSWORD

    line = _one_line(_cli("report", "--db", postgres_url))
    assert "is not an mcptrials result store" in line and PASSWORD not in line
    engine = create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as conn:
        assert inspect(conn).get_table_names() == []
    engine.dispose()


def test_a_reader_cannot_write_to_a_postgres_store(postgres_url: str) -> None:
    Store(postgres_url).close()  # made (migrated) by a writer
    reader = Store(postgres_url, read_only=True)
    with pytest.raises(Exception, match="read-only transaction"), reader.engine.begin() as conn:
        conn.exec_driver_sql("create table intruder (a int)")
    reader.close()
