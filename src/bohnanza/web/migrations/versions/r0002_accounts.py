"""Accounts: names with password hashes, their sessions, and the seats they claimed.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bohnanza_accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(128), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_table(
        "bohnanza_account_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("bohnanza_accounts.id"), nullable=False
        ),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("seen", sa.Float(), nullable=False),
    )
    op.create_index(
        "ix_bohnanza_account_sessions_account_id", "bohnanza_account_sessions", ["account_id"]
    )
    op.create_table(
        "bohnanza_seat_accounts",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("bohnanza_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("bohnanza_accounts.id"), nullable=False
        ),
        sa.Column("token_hash", sa.String(64), nullable=False),
    )
    op.create_index(
        "ix_bohnanza_seat_accounts_account_id", "bohnanza_seat_accounts", ["account_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_bohnanza_seat_accounts_account_id", "bohnanza_seat_accounts")
    op.drop_table("bohnanza_seat_accounts")
    op.drop_index("ix_bohnanza_account_sessions_account_id", "bohnanza_account_sessions")
    op.drop_table("bohnanza_account_sessions")
    op.drop_table("bohnanza_accounts")
