"""Mail only to confirmed addresses, and unsubscribes that stick to the address.

An address set before this revision is unconfirmed: anyone could have typed it, so it gets
no notice until its account saves it again and the confirmation link is followed.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bohnanza_account_mail") as batch:
        batch.add_column(sa.Column("confirmed", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("confirm", sa.String(64), nullable=True))
        batch.create_unique_constraint("uq_bohnanza_account_mail_confirm", ["confirm"])
    op.create_table(
        "bohnanza_mail_addresses",
        sa.Column("address", sa.String(254), primary_key=True),
        sa.Column("opted_out", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("confirm_sent", sa.Float(), nullable=False, server_default="0"),
    )


def downgrade() -> None:
    op.drop_table("bohnanza_mail_addresses")
    with op.batch_alter_table("bohnanza_account_mail") as batch:
        batch.drop_constraint("uq_bohnanza_account_mail_confirm", type_="unique")
        batch.drop_column("confirm")
        batch.drop_column("confirmed")
