"""Passkeys: each WebAuthn credential's public key and signature counter.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bohnanza_passkeys",
        sa.Column("credential_id", sa.String(512), primary_key=True),
        sa.Column(
            "account_id", sa.Integer(), sa.ForeignKey("bohnanza_accounts.id"), nullable=False
        ),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("sign_count", sa.Integer(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("used", sa.Float(), nullable=False),
    )
    op.create_index("ix_bohnanza_passkeys_account_id", "bohnanza_passkeys", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_bohnanza_passkeys_account_id", "bohnanza_passkeys")
    op.drop_table("bohnanza_passkeys")
