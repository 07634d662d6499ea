"""Leases: which server instance owns each live table, with a fencing token; and the
instances' heartbeats (web/leases.py).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bohnanza_leases",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("bohnanza_tables.id"), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("token", sa.Integer(), nullable=False),
        sa.Column("expires", sa.Float(), nullable=False),
    )
    op.create_table(
        "bohnanza_instances",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("url", sa.String(300), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("seen", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("bohnanza_instances")
    op.drop_table("bohnanza_leases")
