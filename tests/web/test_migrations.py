"""Alembic migrations (web/migrations): a database made by the code from before
migrations (its tables frozen below, as commit 107b166 created them) upgrades in place
with its games, on SQLite and PostgreSQL; the revisions build exactly the tables the
models describe; every revision can be undone and redone."""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    insert,
    inspect,
)

from bohnanza.agents import make_agent
from bohnanza.driver import PlayLog, play
from bohnanza.game import Game
from bohnanza.records import make_record, replay
from bohnanza.web import migrations, schema
from bohnanza.web.store import Store, normalise_url

from .conftest import ROOT, ServerThread

LEGACY_FILE = ROOT / "tests" / "data" / "legacy_database" / "games-107b166.db.gz"

# ---------------------------------------------------------------- the schema before


def legacy_metadata() -> MetaData:
    """The tables exactly as ``Base.metadata.create_all`` made them before migrations."""
    md = MetaData()
    Table(
        "bohnanza_tables",
        md,
        Column("id", String(32), primary_key=True),
        Column("created", Float, nullable=False),
        Column("status", String(16), nullable=False, index=True),
        Column("settings", Text, nullable=False),
        Column("rematch_of", String(32)),
        Column("rematch", String(32)),
    )
    Table(
        "bohnanza_seats",
        md,
        Column("table_id", String(32), ForeignKey("bohnanza_tables.id"), primary_key=True),
        Column("seat", Integer, primary_key=True),
        Column("kind", String(16), nullable=False),
        Column("bot", String(32), nullable=False),
        Column("name", String(64), nullable=False),
        Column("token_hash", String(64)),
    )
    Table(
        "bohnanza_records",
        md,
        Column("table_id", String(32), ForeignKey("bohnanza_tables.id"), primary_key=True),
        Column("setup", Text, nullable=False),
        Column("result", Text),
    )
    Table(
        "bohnanza_actions",
        md,
        Column("table_id", String(32), ForeignKey("bohnanza_tables.id"), primary_key=True),
        Column("seq", Integer, primary_key=True),
        Column("seat", Integer, nullable=False),
        Column("action", Text, nullable=False),
        Column("created", Float, nullable=False),
    )
    Table(
        "bohnanza_chat",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column(
            "table_id", String(32), ForeignKey("bohnanza_tables.id"), nullable=False, index=True
        ),
        Column("seat", Integer),
        Column("name", String(64), nullable=False),
        Column("text", Text, nullable=False),
        Column("created", Float, nullable=False),
    )
    return md


def _bot_game(seed: int) -> tuple[dict[str, Any], list[tuple[int, dict[str, Any]]], Any]:
    game = Game.new("classic", 3, seed=seed)
    log = play(game, [make_agent("autarky") for _ in range(3)], log=PlayLog())
    record = make_record(game, log.actions)
    setup = {k: v for k, v in record.items() if k not in ("actions", "result")}
    return setup, [(s, a.to_json()) for s, a in log.actions], game.result()


def _legacy_database(url: str) -> dict[str, Any]:
    """A database as the old code left it: a finished game, one half played, a lobby
    table and chat; returns what was written."""
    engine = create_engine(normalise_url(url))
    md = legacy_metadata()
    md.create_all(engine)
    t = md.tables
    setup, actions, result = _bot_game(seed=5)
    half = actions[: len(actions) // 2]
    settings = {"rules": "classic", "players": 3, "options": {}, "trade_limit": 0}
    seats = [
        {"seat": 0, "kind": "person", "bot": "", "name": "Ada", "token_hash": "a" * 64},
        {"seat": 1, "kind": "bot", "bot": "autarky", "name": "", "token_hash": None},
        {"seat": 2, "kind": "bot", "bot": "autarky", "name": "", "token_hash": None},
    ]
    with engine.begin() as conn:
        for table_id, status, acts, res in (
            ("done", "over", actions, result),
            ("half", "playing", half, None),
        ):
            conn.execute(
                insert(t["bohnanza_tables"]),
                {
                    "id": table_id,
                    "created": time.time(),
                    "status": status,
                    "settings": json.dumps(settings),
                },
            )
            conn.execute(insert(t["bohnanza_seats"]), [{"table_id": table_id, **s} for s in seats])
            conn.execute(
                insert(t["bohnanza_records"]),
                {
                    "table_id": table_id,
                    "setup": json.dumps(setup),
                    "result": json.dumps(res) if res is not None else None,
                },
            )
            conn.execute(
                insert(t["bohnanza_actions"]),
                [
                    {
                        "table_id": table_id,
                        "seq": i,
                        "seat": s,
                        "action": json.dumps(a),
                        "created": 1.0,
                    }
                    for i, (s, a) in enumerate(acts)
                ],
            )
        conn.execute(
            insert(t["bohnanza_tables"]),
            {
                "id": "lobby",
                "created": time.time(),
                "status": "lobby",
                "settings": json.dumps(settings),
            },
        )
        conn.execute(insert(t["bohnanza_seats"]), [{"table_id": "lobby", **s} for s in seats])
        conn.execute(
            insert(t["bohnanza_chat"]),
            {"table_id": "done", "seat": 0, "name": "Ada", "text": "gg", "created": 2.0},
        )
    engine.dispose()
    return {"actions": actions, "half": half, "result": result}


def _schema_diff(store: Store) -> list[Any]:
    with store.engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"version_table": migrations.VERSION_TABLE})
        return list(compare_metadata(context, schema.metadata()))


# ---------------------------------------------------------------- tests


def test_a_database_from_before_migrations_upgrades_with_every_game(
    db_url: str, make_server: Callable[..., ServerThread]
) -> None:
    written = _legacy_database(db_url)
    store = Store(db_url)  # stamps the baseline, then upgrades to the newest revision
    try:
        with store.engine.connect() as conn:
            assert migrations.current(conn) == migrations.head()
        assert _schema_diff(store) == []
        done = store.load("done")
        assert done is not None and done.status == "over"
        assert done.actions == written["actions"] and done.result == written["result"]
        # The finished game replays to the result stored with it.
        record = {**done.setup, "actions": [{"seat": s, **a} for s, a in done.actions]}
        assert replay(record).result() == written["result"]
        half = store.load("half")
        assert half is not None and half.actions == written["half"]
        assert store.chat("done")[0]["text"] == "gg"
        assert {t.id for t in store.unfinished()} == {"half", "lobby"}
    finally:
        store.close()
    # A server on the upgraded database resumes the half-played game and serves the record.
    srv = make_server(db_url)
    with srv.http() as c:
        info = c.get("/api/tables/half").json()
        assert info["status"] in ("playing", "over")  # its bots play on from where it was
        rec = c.get("/api/tables/done/record")
        assert rec.status_code == 200
        assert rec.json()["result"] == json.loads(json.dumps(written["result"]))


def test_the_revisions_build_the_models_tables_and_undo_them(db_url: str) -> None:
    store = Store(db_url)
    try:
        assert _schema_diff(store) == []
        # Down to nothing and up again: every revision's downgrade undoes its upgrade.
        migrations.downgrade(store.engine, "base")
        with store.engine.connect() as conn:
            names = set(inspect(conn).get_table_names())
        assert not {n for n in names if n != migrations.VERSION_TABLE}
        migrations.migrate(store.engine)
        assert _schema_diff(store) == []
    finally:
        store.close()


def test_a_second_start_runs_no_migration(sqlite_url: str) -> None:
    first = Store(sqlite_url)
    first.close()
    second = Store(sqlite_url)
    try:
        assert migrations.migrate(second.engine) == migrations.head()
    finally:
        second.close()


def test_the_database_file_of_the_last_version_before_migrations_upgrades(
    tmp_path: Path, make_server: Callable[..., ServerThread]
) -> None:
    """The real file (tests/data/legacy_database), not tables made here: every game of
    it replays to its stored result after the upgrade, and the server resumes it."""
    path = tmp_path / "games.db"
    path.write_bytes(gzip.decompress(LEGACY_FILE.read_bytes()))
    url = f"sqlite:///{path}"
    store = Store(url)
    try:
        assert _schema_diff(store) == []
        done = store.load("done")
        assert done is not None and done.status == "over" and done.result is not None
        record = {**done.setup, "actions": [{"seat": s, **a} for s, a in done.actions]}
        assert replay(record).result() == done.result
        half = store.load("half")
        assert half is not None and half.status == "playing"
        assert half.actions == done.actions[: len(half.actions)] and half.actions
        assert store.chat("done")[0]["text"] == "gg"
    finally:
        store.close()
    srv = make_server(url)
    with srv.http() as c:
        assert c.get("/api/tables/done/record").json()["result"] == done.result
        assert c.get("/api/tables/lobby").json()["status"] == "lobby"
