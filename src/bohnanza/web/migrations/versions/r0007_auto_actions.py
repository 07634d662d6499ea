"""Which actions the server chose (a bot or a stand-in) rather than a person.

A rated seat mostly played by its stand-in counts as a loss (web/ratings.py). Actions
stored before this revision count as their seat's person's.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bohnanza_actions") as batch:
        batch.add_column(sa.Column("auto", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("bohnanza_actions") as batch:
        batch.drop_column("auto")
