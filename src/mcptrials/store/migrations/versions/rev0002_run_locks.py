"""Run locks: one row per (store, run settings) held by the run executing them.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "run_locks",
        sa.Column("key", sa.String, primary_key=True),
        sa.Column("run_id", sa.String, nullable=False),
        sa.Column("machine", sa.String, nullable=False),
        sa.Column("host", sa.String, nullable=False),
        sa.Column("pid", sa.Integer, nullable=False),
        sa.Column("label", sa.String, nullable=False),
        sa.Column("started_at", sa.String, nullable=False),
        sa.Column("heartbeat_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("run_locks")
