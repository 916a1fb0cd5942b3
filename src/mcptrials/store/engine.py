"""Open a SQLAlchemy engine for a result store given as a path or URL, and show that URL without its password."""

from __future__ import annotations

import os
import random
import sqlite3
import time
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, ExceptionContext, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError

from mcptrials.safety.urls import masked_url

BUSY_TIMEOUT_S = 30.0
"""How long a SQLite connection waits for another's lock before it gives up."""
_BUSY_TIMEOUT = f"busy_timeout={int(BUSY_TIMEOUT_S * 1000)}"


class StoreError(Exception):
    """The result store cannot be opened or used (bad URL, server down, missing driver): one clear line."""


class StoreUnreachableError(StoreError):
    """A database server that stopped answering (stopped, restarted, network down) while a command used it."""

    def __init__(self, where: str, detail: str) -> None:
        super().__init__(f"{where}: the database server stopped answering ({detail})")
        self.detail = detail


def store_url(target: str | Path) -> URL:
    """The SQLAlchemy URL of a store: a path means SQLite; ``postgresql://`` means psycopg 3."""
    text = str(target)
    if "://" not in text:
        path = Path(text).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        return URL.create("sqlite", database=str(path))
    try:
        url = make_url(text)
    except ArgumentError:
        raise StoreError(f"--db {display_url(text)}: not a SQLite path or database URL") from None
    if url.drivername in {"postgresql", "postgres"}:
        url = url.set(drivername="postgresql+psycopg")
    return url


def display_url(target: str | Path | URL) -> str:
    """The store's address as it may be printed or stored: a path as written, a URL through ``masked_url``."""
    return masked_url(target.render_as_string(hide_password=False) if isinstance(target, URL) else str(target))


def open_engine(url: URL, *, read_only: bool = False) -> Engine:
    """An engine for ``url``; SQLite gets WAL and a busy timeout so several processes can write.

    ``read_only``: the database refuses every write (SQLite opened ``mode=ro``, PostgreSQL sessions read-only),
    so a command that only reads can never change the file or database it is pointed at.
    """
    named = url.database or display_url(url)  # the file a damaged-store message names, as the user gave it
    if read_only and url.get_backend_name() == "sqlite":
        url = _read_only_sqlite(url)
    try:
        engine = create_engine(url, future=True, pool_pre_ping=url.get_backend_name() != "sqlite")
    except NoSuchModuleError:
        raise StoreError(f"no SQLAlchemy dialect for {display_url(url)}") from None
    except ImportError as exc:
        extra = " (pip install 'mcptrials[postgres]')" if url.get_backend_name() == "postgresql" else ""
        raise StoreError(f"cannot open {display_url(url)}: missing database driver {exc.name}{extra}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_reader if read_only else sqlite_pragmas)
        event.listen(engine, "handle_error", partial(damaged_sqlite, named))
    else:
        if read_only:
            event.listen(engine, "connect", _read_only_session)
        event.listen(engine, "handle_error", partial(server_gone, display_url(url)))
    return engine


def _read_only_sqlite(url: URL) -> URL:
    """The SQLite file of ``url`` opened as a read-only URI; ``immutable`` where SQLite could not open it so (a
    WAL store in a folder nobody may write, e.g. a read-only mount, has no ``-shm`` file and none can be made)."""
    path = Path(url.database or "")
    query = {"mode": "ro", "uri": "true"}
    if not os.access(path.parent, os.W_OK) and not Path(f"{path}-shm").exists():
        query["immutable"] = "1"
    return URL.create("sqlite", database=f"file:{quote(str(path))}", query=query)


def _sqlite_reader(dbapi_conn: Any, _record: Any) -> None:
    """Per-connection settings of a read-only SQLite connection: wait for a writer's lock, change nothing."""
    _pragmas(dbapi_conn, _BUSY_TIMEOUT)


def _read_only_session(dbapi_conn: Any, _record: Any) -> None:
    """Make every transaction of a new PostgreSQL connection read-only."""
    cursor = dbapi_conn.cursor()
    cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
    cursor.close()
    dbapi_conn.commit()


def server_gone(where: str, context: ExceptionContext) -> None:
    """A lost or refused connection to the database server of ``where`` (its masked URL): one
    ``StoreUnreachableError`` naming the store."""
    if context.is_disconnect or (context.connection is None
                                 and isinstance(context.sqlalchemy_exception, OperationalError)):
        found = context.original_exception
        first = next((line.strip() for line in str(found).splitlines() if line.strip()), type(found).__name__)
        raise StoreUnreachableError(where, first)


DAMAGED_SQLITE = {11: "is damaged (database disk image is malformed)", 26: "is not a SQLite database"}
"""SQLite's primary result codes for a file that cannot be read as a database: SQLITE_CORRUPT, SQLITE_NOTADB."""


def damaged_sqlite(where: str, context: ExceptionContext) -> None:
    """A SQLite file (``where``) found damaged or not a database, at any statement: one ``StoreError`` naming it."""
    found = context.original_exception
    code = getattr(found, "sqlite_errorcode", 0) & 0xFF if isinstance(found, sqlite3.DatabaseError) else 0
    if code in DAMAGED_SQLITE:
        raise StoreError(f"{where}: {DAMAGED_SQLITE[code]}")


def sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    """Per-connection SQLite settings: wait for locks first (WAL switch needs one), then WAL."""
    _pragmas(dbapi_conn, _BUSY_TIMEOUT)
    _switch_to_wal(dbapi_conn)
    _pragmas(dbapi_conn, "synchronous=NORMAL")


def _switch_to_wal(dbapi_conn: Any) -> None:
    """Put the file in WAL mode (kept in the file: later openers only read it), retrying a refused switch.

    Switching needs the file's exclusive lock. When several processes open a fresh store at once, SQLite
    answers "database is locked" at once, without waiting out the busy timeout, to an opener whose switch
    would deadlock with another's; so such a refusal is retried, with jittered backoff, for as long as the
    busy timeout would have waited.
    """
    cursor = dbapi_conn.cursor()
    try:
        if cursor.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            return
        deadline, delay = time.monotonic() + BUSY_TIMEOUT_S, 0.005
        while True:
            try:
                cursor.execute("PRAGMA journal_mode=WAL")  # a file that cannot be WAL (e.g. in memory) stays as it is
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay * random.uniform(0.5, 1.5))
                delay = min(delay * 2, 0.25)
    finally:
        cursor.close()


def _pragmas(dbapi_conn: Any, *settings: str) -> None:
    cursor = dbapi_conn.cursor()
    for setting in settings:
        cursor.execute(f"PRAGMA {setting}")
    cursor.close()
