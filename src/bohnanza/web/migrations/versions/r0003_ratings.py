"""Ratings: OpenSkill per account and rule set, and each rated game's row of history.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bohnanza_ratings",
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("bohnanza_accounts.id"), primary_key=True
        ),
        sa.Column("rules", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Float(), nullable=False),
        sa.Column("coins", sa.Integer(), nullable=False),
        sa.Column("updated", sa.Float(), nullable=False),
    )
    op.create_table(
        "bohnanza_rating_history",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("bohnanza_accounts.id"), nullable=False
        ),
        sa.Column("rules", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("bohnanza_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("coins", sa.Integer(), nullable=False),
        sa.Column("won", sa.Float(), nullable=False),
        sa.Column("fresh", sa.Integer(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_index(
        "ix_bohnanza_rating_history_account_id", "bohnanza_rating_history", ["account_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_bohnanza_rating_history_account_id", "bohnanza_rating_history")
    op.drop_table("bohnanza_rating_history")
    op.drop_table("bohnanza_ratings")
