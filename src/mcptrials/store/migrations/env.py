"""Alembic environment of the result store: run against the connection ``store.migrate`` passes in."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from mcptrials.replay.refresh import _meta as refresh_metadata
from mcptrials.store.db import metadata

TARGET = [metadata, refresh_metadata]
"""Every table the code declares (autogenerate compares against these)."""


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=TARGET,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


given = context.config.attributes.get("connection")
if given is not None:
    _run(given)
else:  # the alembic command line, for writing new revisions: `alembic -x url=sqlite:///x.db revision ...`
    url = context.get_x_argument(as_dictionary=True).get("url") or context.config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("give the store: alembic -x url=sqlite:///path.db ...")
    with create_engine(url).begin() as conn:
        _run(conn)
