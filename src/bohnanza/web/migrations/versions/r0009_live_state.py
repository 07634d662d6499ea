"""A live table's clocks, trading countdown and stand-ins, and whose decision its game
waits for, stored with the table (web/turns.py): another server instance that takes the
table over, or a restarted server, goes on from them; "your games" marks "your turn" on
a table another instance owns.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bohnanza_tables") as batch:
        batch.add_column(sa.Column("live", sa.Text(), nullable=True))
        batch.add_column(sa.Column("to_move", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bohnanza_tables") as batch:
        batch.drop_column("to_move")
        batch.drop_column("live")
