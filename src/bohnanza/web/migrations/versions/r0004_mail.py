"""E-mail notifications: an account's address, its choices and its unsubscribe token.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bohnanza_account_mail",
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("bohnanza_accounts.id"), primary_key=True
        ),
        sa.Column("address", sa.String(254), nullable=False),
        sa.Column("notify_turn", sa.Integer(), nullable=False),
        sa.Column("notify_end", sa.Integer(), nullable=False),
        sa.Column("unsubscribe", sa.String(64), nullable=False, unique=True),
        sa.Column("created", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("bohnanza_account_mail")
