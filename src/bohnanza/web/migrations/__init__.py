"""Schema migrations (Alembic): every change to the web app's tables is a revision here.

``migrate(engine)`` runs at start-up (``Store.__init__``). A new database gets every
revision from the baseline on; a database made before migrations existed (today's tables,
no version table) is stamped with the baseline, whose tables it already has, and then
upgraded like any other: so an existing file or PostgreSQL database upgrades in place,
with its games. The revisions are written by hand (``versions/``), one per change, each
with its downgrade; ``docs/web.md`` ("Migrations and backups") says how to run them
by hand and how to back up first.

This package knows no model: ``Store`` runs ``migrate``, and the models import the store.
The models' metadata, for Alembic's environment, is ``bohnanza.web.schema.metadata``.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine

#: Alembic's bookkeeping table, named like ours: the database may be shared.
VERSION_TABLE = "bohnanza_alembic_version"
#: The revision that creates the tables as they were before migrations.
BASELINE = "0001"
#: A number for PostgreSQL's advisory lock: two servers starting at once on one database
#: migrate one after the other, not both at the same time.
_LOCK_KEY = 0x6F686E616E7A61

HERE = Path(__file__).resolve().parent


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for our script folder, without an ini file."""
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    cfg.set_main_option("version_table", VERSION_TABLE)
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    """The newest revision."""
    found = ScriptDirectory.from_config(config()).get_current_head()
    assert found is not None
    return found


def current(connection: Connection) -> str | None:
    """The database's revision; None for a new database or one made before migrations."""
    context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
    return context.get_current_revision()


def migrate(engine: Engine, target: str = "head") -> str | None:
    """Bring the database to ``target`` (the newest revision by default); returns the
    revision it was at before (None: new, or made before migrations)."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})
        before = current(conn)
        if before is not None and target == "head" and before == head():
            return before  # the usual start: nothing to do, and no Alembic machinery run
        cfg = config(conn)
        if before is None and inspect(conn).has_table("bohnanza_tables"):
            # Tables from before migrations: they are the baseline's, as they stand.
            command.stamp(cfg, BASELINE)
        command.upgrade(cfg, target)
        return before


def downgrade(engine: Engine, target: str) -> None:
    """Undo revisions down to ``target`` (``"base"``: nothing left). For a return to an
    older version of the program after a backup, see docs/web.md; never run at start."""
    with engine.begin() as conn:
        command.downgrade(config(conn), target)
