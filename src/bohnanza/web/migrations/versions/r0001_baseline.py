"""The tables as they were before migrations (tables, seats, records, actions, chat).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bohnanza_tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("settings", sa.Text(), nullable=False),
        sa.Column("rematch_of", sa.String(32), nullable=True),
        sa.Column("rematch", sa.String(32), nullable=True),
    )
    op.create_index("ix_bohnanza_tables_status", "bohnanza_tables", ["status"])
    op.create_table(
        "bohnanza_seats",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("bohnanza_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("bot", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
    )
    op.create_table(
        "bohnanza_records",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("bohnanza_tables.id"), primary_key=True),
        sa.Column("setup", sa.Text(), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
    )
    op.create_table(
        "bohnanza_actions",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("bohnanza_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_table(
        "bohnanza_chat",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("bohnanza_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_index("ix_bohnanza_chat_table_id", "bohnanza_chat", ["table_id"])


def downgrade() -> None:
    op.drop_index("ix_bohnanza_chat_table_id", "bohnanza_chat")
    op.drop_table("bohnanza_chat")
    op.drop_table("bohnanza_actions")
    op.drop_table("bohnanza_records")
    op.drop_table("bohnanza_seats")
    op.drop_index("ix_bohnanza_tables_status", "bohnanza_tables")
    op.drop_table("bohnanza_tables")
