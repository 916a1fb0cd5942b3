"""Open a SQLAlchemy engine for a result store given as a path or URL, and show that URL without its password."""

from __future__ import annotations

import re
import sqlite3
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, ExceptionContext, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError


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
    """The store's address as it may be printed or stored: the password is masked."""
    if isinstance(target, URL):
        return _masked_query(target).render_as_string(hide_password=True)
    text = str(target)
    if "://" not in text:
        return text
    try:
        return _masked_query(make_url(text)).render_as_string(hide_password=True)
    except ArgumentError:
        head, _, rest = text.partition("://")
        return f"{head}://***@{rest.rpartition('@')[2]}" if "@" in rest else text


_SECRET_PARAM = re.compile(r"pass|pwd|secret|token|key", re.IGNORECASE)


def _masked_query(url: URL) -> URL:
    """``?password=...`` (libpq accepts it there too) and other secret-looking parameters masked."""
    hidden = {k: "***" for k in url.query if _SECRET_PARAM.search(k)}
    return url.update_query_dict(hidden) if hidden else url


def open_engine(url: URL) -> Engine:
    """An engine for ``url``; SQLite gets WAL and a busy timeout so several processes can write."""
    try:
        engine = create_engine(url, future=True, pool_pre_ping=url.get_backend_name() != "sqlite")
    except NoSuchModuleError:
        raise StoreError(f"no SQLAlchemy dialect for {display_url(url)}") from None
    except ImportError as exc:
        extra = " (pip install 'mcptrials[postgres]')" if url.get_backend_name() == "postgresql" else ""
        raise StoreError(f"cannot open {display_url(url)}: missing database driver {exc.name}{extra}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", sqlite_pragmas)
        event.listen(engine, "handle_error", partial(damaged_sqlite, url.database or display_url(url)))
    else:
        event.listen(engine, "handle_error", partial(server_gone, display_url(url)))
    return engine


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
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
