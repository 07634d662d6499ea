"""Alembic's environment: migrations run on the connection ``migrate`` passes in
(``config.attributes["connection"]``), inside its transaction."""

from __future__ import annotations

from alembic import context

from bohnanza.web.migrations import VERSION_TABLE
from bohnanza.web.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through bohnanza.web.migrations.migrate")
context.configure(
    connection=connection,
    target_metadata=metadata(),
    version_table=VERSION_TABLE,
    # SQLite alters a table by copying it; batch operations do that where needed.
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()
