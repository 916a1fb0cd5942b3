"""Alembic migrations: an old (pre-migration) SQLite store upgrades in place; the schema matches the code;
40 processes opening a fresh store at once never race to create a table."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData

from mcptrials.replay.refresh import _meta as refresh_tables
from mcptrials.report.summary import report_from_store
from mcptrials.store import db as store_db
from mcptrials.store.db import Store
from mcptrials.store.engine import StoreError, open_engine, store_url
from mcptrials.store.migrate import head, upgrade

OLD_DUMP = Path(__file__).parent / "data" / "old_schema.sql"
"""A store written by mcptrials before migrations (6 reference episodes on the example world), as SQL."""
FORK = multiprocessing.get_context("fork")


def _old_store(path: Path) -> Path:
    with sqlite3.connect(path) as conn:
        conn.executescript(OLD_DUMP.read_text())
    return path


def test_pre_migration_sqlite_store_upgrades_in_place_and_keeps_every_episode(tmp_path: Path) -> None:
    path = _old_store(tmp_path / "old.db")
    with sqlite3.connect(path) as conn:
        before = conn.execute("select id, outcome, data from episodes order by id").fetchall()
        tables = {r[0] for r in conn.execute("select name from sqlite_master where type='table'")}
    assert "alembic_version" not in tables and "run_locks" not in tables and len(before) == 6

    store = Store(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("select version_num from alembic_version").fetchall() == [(head(),)]
        after = conn.execute("select id, outcome, data from episodes order by id").fetchall()
        tables = {r[0] for r in conn.execute("select name from sqlite_master where type='table'")}
    assert after == before
    assert {"run_locks", "refreshes", "refresh_tasks"} <= tables
    assert len(store.completed_keys()) == 6  # the old episodes still count for resume
    summary = report_from_store(store)["summary"]
    assert summary[0]["pass_hat_k"] == 1.0 and summary[0]["n_tasks"] == 3
    store.close()
    Store(path).close()  # opening again is a no-op


def test_migrated_schema_is_exactly_what_the_code_declares(any_store_url: str) -> None:
    """Fails when someone adds a table or column to store/db.py without writing its migration."""
    engine = open_engine(store_url(any_store_url))
    upgrade(engine)  # migrations only: no create_all safety net
    declared = MetaData()
    for table in [*store_db.metadata.tables.values(), *refresh_tables.tables.values()]:
        table.to_metadata(declared)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), declared)
    assert diff == []
    engine.dispose()


def test_a_store_from_a_newer_mcptrials_is_refused_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("update alembic_version set version_num = '9999'")
    with pytest.raises(StoreError, match="newer mcptrials"):
        Store(path)


def _open_at_once(url: str, barrier: object, worker: int) -> None:
    barrier.wait()  # type: ignore[attr-defined]
    store = Store(url)
    store.save_run(f"run-{worker}", "h", {"worker": worker})
    store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_forty_processes_opening_a_fresh_store_at_once_all_succeed(backend: str, tmp_path: Path,
                                                                    request: pytest.FixtureRequest) -> None:
    url = str(tmp_path / "fresh.db") if backend == "sqlite" else request.getfixturevalue("postgres_url")
    barrier = FORK.Barrier(40)
    procs = [FORK.Process(target=_open_at_once, args=(url, barrier, w)) for w in range(40)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    assert [p.exitcode for p in procs] == [0] * 40
    store = Store(url)
    assert len(store.runs()) == 40
    with store.engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == head()


def test_a_store_opened_while_another_connection_writes_it_waits_for_the_writer(tmp_path: Path) -> None:
    # SQLite refuses a switch to WAL at once ("database is locked", busy timeout not consulted) while
    # another connection holds the write lock: the opener that lost this race must retry, not fail.
    path = tmp_path / "busy.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("create table other (x)")
    writer.execute("begin immediate")
    writer.execute("insert into other values (1)")
    committer = threading.Timer(0.5, writer.execute, ["commit"])
    committer.start()
    try:
        store = Store(path)
        store.save_run("run-1", "h", {})
        assert [r["id"] for r in store.runs()] == ["run-1"]
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("pragma journal_mode").scalar() == "wal"
        store.close()
    finally:
        committer.join()
        writer.close()


def test_head_constant_is_the_newest_shipped_revision() -> None:
    from alembic.script import ScriptDirectory

    from mcptrials.store.migrate import HEAD, alembic_config

    assert ScriptDirectory.from_config(alembic_config()).get_current_head() == HEAD
