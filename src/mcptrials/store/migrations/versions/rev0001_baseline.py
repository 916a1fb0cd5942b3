"""Baseline: the store as it was before migrations; creates only the tables that are missing.

A store written by mcptrials before Alembic has these tables and no ``alembic_version``; this
revision leaves them as they are, so it is upgraded in place.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _tables() -> dict[str, list[Any]]:
    return {
        "runs": [sa.Column("id", sa.String, primary_key=True),
                 sa.Column("created_at", sa.String, nullable=False),
                 sa.Column("config_hash", sa.String, nullable=False),
                 sa.Column("config", sa.JSON, nullable=False)],
        "tasks": [sa.Column("id", sa.String, primary_key=True),
                  sa.Column("version", sa.String, primary_key=True),
                  sa.Column("data", sa.JSON, nullable=False)],
        "tools": [sa.Column("hash", sa.String, primary_key=True),
                  sa.Column("data", sa.JSON, nullable=False)],
        "episodes": [sa.Column("id", sa.String, primary_key=True),
                     sa.Column("run_id", sa.String, nullable=False),
                     sa.Column("task_id", sa.String, nullable=False),
                     sa.Column("version", sa.String, nullable=False),
                     sa.Column("agent", sa.String, nullable=False),
                     sa.Column("model", sa.String, nullable=False),
                     sa.Column("attempt", sa.Integer, nullable=False),
                     sa.Column("config_hash", sa.String, nullable=False),
                     sa.Column("outcome", sa.String, nullable=False),
                     sa.Column("created_at", sa.String, nullable=False),
                     sa.Column("data", sa.Text, nullable=False),
                     sa.UniqueConstraint("task_id", "version", "agent", "model", "attempt", "config_hash",
                                         name="episode_key")],
        "scores": [sa.Column("episode_id", sa.String, primary_key=True),
                   sa.Column("scorer", sa.String, primary_key=True),
                   sa.Column("scorer_version", sa.String, nullable=False),
                   sa.Column("passed", sa.Integer),
                   sa.Column("value", sa.Float),
                   sa.Column("data", sa.Text, nullable=False)],
        "judgments": [sa.Column("judge", sa.String, primary_key=True),
                      sa.Column("version", sa.String, primary_key=True),
                      sa.Column("prompt_hash", sa.String, primary_key=True),
                      sa.Column("created_at", sa.String, nullable=False),
                      sa.Column("data", sa.Text, nullable=False)],
        "refreshes": [sa.Column("id", sa.String, primary_key=True),
                      sa.Column("created_at", sa.String, nullable=False),
                      sa.Column("label", sa.String, nullable=False),
                      sa.Column("counts", sa.JSON, nullable=False)],
        "refresh_tasks": [sa.Column("refresh_id", sa.String, primary_key=True),
                          sa.Column("task_id", sa.String, primary_key=True),
                          sa.Column("verdict", sa.String, nullable=False),
                          sa.Column("seq", sa.Integer, nullable=False),
                          sa.Column("data", sa.Text, nullable=False)],
    }


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    for name, columns in _tables().items():
        if name not in existing:
            op.create_table(name, *columns)
            if name == "episodes":
                op.create_index("ix_episodes_run_id", "episodes", ["run_id"])


def downgrade() -> None:
    for name in reversed(list(_tables())):
        op.drop_table(name)
