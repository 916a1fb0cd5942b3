"""Run status: what became of each run (running, finished, interrupted, failed, gone) and which process ran it.

A run whose process died without a word (SIGKILL, a segfault) stays ``running``; readers tell it
apart from a live one by the process (machine, pid and the pid's start time) or, from another
machine, by its run lock's heartbeat. Runs stored before this revision have no status.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

COLUMNS = (
    ("status", sa.String),
    ("label", sa.String),
    ("machine", sa.String),
    ("host", sa.String),
    ("pid", sa.Integer),
    ("pid_started", sa.String),
    ("ended_at", sa.String),
    ("note", sa.Text),
)


def upgrade() -> None:
    for name, kind in COLUMNS:
        op.add_column("runs", sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        for name, _ in reversed(COLUMNS):
            batch.drop_column(name)
