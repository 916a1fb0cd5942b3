"""Bring a result store's schema to the newest Alembic revision when it is opened, one process at a time.

The migrations ship inside the package (``store/migrations``). A store made before migrations
existed has the baseline tables but no ``alembic_version``: the baseline revision creates only
what is missing, so such a store is upgraded in place. Concurrent openers of a fresh store are
serialised (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: a transaction-scoped advisory lock), so
40 runs started together never race to create the same table.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, MetaData, create_engine, event, inspect, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from mcptrials.store.engine import StoreError, display_url, sqlite_pragmas

MIGRATIONS = Path(__file__).with_name("migrations")
ADVISORY_LOCK = 0x6D637074  # "mcpt": the PostgreSQL advisory lock held while migrating
HEAD = "0003"
"""The newest revision in ``migrations/versions`` (a test checks it), so opening an up-to-date store
needs one query and no Alembic import."""

if TYPE_CHECKING:
    from alembic.config import Config


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config pointing at the shipped migrations (and, when given, the connection to use)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest revision this package knows."""
    return HEAD


def current(conn: Connection) -> str | None:
    """The store's revision (None: never migrated)."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    try:
        rows = conn.execute(text("SELECT version_num FROM alembic_version")).all()
    except DBAPIError:  # vanished between the check and the read (a concurrent migration): look again later
        return None
    return str(rows[0][0]) if len(rows) == 1 else None


STORE_TABLES = frozenset({"runs", "episodes", "scores", "tasks", "tools"})
"""Tables every mcptrials store has had since its first schema: a database without them is not one."""


def check_store(engine: Engine, shown: str) -> None:
    """Raise StoreError (one line) unless ``engine`` holds an mcptrials store at this package's revision.

    For readers, which never migrate: a foreign database, one from an older mcptrials (its upgrade is a write)
    and one from a newer mcptrials are each refused, and none is changed.
    """
    with engine.connect() as conn:
        missing = STORE_TABLES - set(inspect(conn).get_table_names())
        revision = None if missing else current(conn)
    if missing:
        raise StoreError(f"{shown} is not an mcptrials result store (no table {', '.join(sorted(missing))}); "
                         "it was left unchanged")
    if revision == HEAD:
        return
    if revision is not None and (not revision.isdigit() or revision > HEAD):
        raise StoreError(f"cannot read the result store {shown}: its schema revision {revision} is newer than "
                         f"this mcptrials reads ({HEAD}); upgrade mcptrials")
    raise StoreError(f"the result store {shown} is from an older mcptrials (schema {revision or 'before 0001'}, "
                     f"this one reads {HEAD}); a command that writes upgrades it (e.g. `mcptrials score --db ...`)")


def _up_to_date(conn: Connection, extra: MetaData | None) -> bool:
    if current(conn) != HEAD:
        return False
    return extra is None or set(extra.tables) <= set(inspect(conn).get_table_names())


def upgrade(engine: Engine, extra: MetaData | None = None) -> None:
    """Migrate ``engine``'s store to head unless it is there; ``extra``: tables to create if still missing.

    ``extra`` is a safety net for tables declared in code before their migration is written; the
    schema test (tests/store/test_migrations.py) fails until the migration exists.
    """
    try:
        with engine.connect() as conn:
            if _up_to_date(conn, extra):
                return
        if engine.dialect.name == "sqlite":
            locker = _sqlite_immediate(engine)
            try:
                with locker.begin() as conn:
                    _upgrade_locked(conn, extra)
            finally:
                locker.dispose()
        else:
            with engine.begin() as conn:
                if engine.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK})
                _upgrade_locked(conn, extra)
    except _command_error() as exc:  # e.g. a store written by a newer mcptrials
        raise StoreError(f"cannot upgrade the result store {display_url(engine.url)}: {exc} "
                         "(is it from a newer mcptrials?)") from None


def _command_error() -> type[Exception]:
    from alembic.util.exc import CommandError

    return CommandError


def _upgrade_locked(conn: Connection, extra: MetaData | None) -> None:
    if current(conn) != HEAD:
        from alembic import command

        command.upgrade(alembic_config(conn), "head")
    if extra is not None:
        extra.create_all(conn, checkfirst=True)


def _sqlite_immediate(engine: Engine) -> Engine:
    """A one-connection engine on the same SQLite file whose transactions take the write lock at BEGIN."""
    locker = create_engine(engine.url, poolclass=NullPool)

    @event.listens_for(locker, "connect")
    def _connect(dbapi_conn: Any, record: Any) -> None:
        dbapi_conn.isolation_level = None  # let SQLAlchemy's BEGIN below be the only transaction control
        sqlite_pragmas(dbapi_conn, record)

    @event.listens_for(locker, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")

    return locker
