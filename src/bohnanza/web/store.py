"""Persistence with SQLAlchemy: tables, seats, game records (setup + actions), chat.

A game is stored as its record (``docs/records.md``): the setup once, when the game
starts, then one row per action. Every write is one transaction that is committed before
the server tells anybody about it, so that a restart - even after ``kill -9`` - replays
every unfinished game to exactly the last action that was acknowledged.

SQLite (a file; the default) and PostgreSQL (by URL) are supported. SQLite runs in WAL
mode with ``synchronous=NORMAL``: a committed transaction survives the process being
killed (the operating system still holds it), though not a power cut.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from .migrations import migrate


class Base(DeclarativeBase):
    pass


def _rows_of_a_table() -> list[tuple[Any, Any]]:
    """Every database table with a foreign key to the games' table, and that column,
    children first: what deleting a table deletes with it. Read from the models, not
    listed here, so that a feature's own rows (an account's claim on a seat, chat) go
    too: a lobby table whose seat an account had claimed was never deleted, SQLite
    refusing it for the claim, and so counted against ``--max-tables`` for ever."""
    out = []
    for rows in reversed(Base.metadata.sorted_tables):
        for key in rows.foreign_keys:
            if key.column.table.name == TableRow.__tablename__:
                out.append((rows, key.parent))
    return out


class TableRow(Base):
    __tablename__ = "bohnanza_tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16), index=True)  # lobby, playing, over
    settings: Mapped[str] = mapped_column(Text)  # JSON: rules, players, options, trade_limit
    rematch_of: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # JSON: a game's clocks, trading countdown and stand-ins as of one of its actions
    # (web/turns.py: ``live_state``), written with every action; a server that takes the
    # table over (or restarts) goes on from them.
    live: Mapped[str | None] = mapped_column(Text, nullable=True)
    # JSON list: the seats whose decision the game waits for ("your turn"), as of its
    # last action; "your games" reads it for a table another instance owns.
    to_move: Mapped[str | None] = mapped_column(String(64), nullable=True)


class SeatRow(Base):
    __tablename__ = "bohnanza_seats"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("bohnanza_tables.id"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # person, bot
    bot: Mapped[str] = mapped_column(String(32))  # agent kind for bots
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)


class RecordRow(Base):
    """The setup of a game record (everything but the actions), and its result."""

    __tablename__ = "bohnanza_records"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("bohnanza_tables.id"), primary_key=True
    )
    setup: Mapped[str] = mapped_column(Text)
    result: Mapped[str | None] = mapped_column(Text, nullable=True)


class ActionRow(Base):
    __tablename__ = "bohnanza_actions"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("bohnanza_tables.id"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0, 1, 2, ... per table
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)  # Action.to_json()
    created: Mapped[float] = mapped_column(Float)
    # 1: the server chose it (a bot, or a stand-in for a person away, timed out or
    # resigned); a rated seat mostly played so counts as a loss (web/ratings.py).
    auto: Mapped[int] = mapped_column(Integer, server_default="0")


class ChatRow(Base):
    __tablename__ = "bohnanza_chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(32), ForeignKey("bohnanza_tables.id"), index=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    created: Mapped[float] = mapped_column(Float)


@dataclass(slots=True)
class StoredSeat:
    seat: int
    kind: str
    bot: str
    name: str
    token_hash: str | None


@dataclass(slots=True)
class StoredTable:
    id: str
    created: float
    status: str
    settings: dict[str, Any]
    seats: list[StoredSeat]
    rematch_of: str | None = None
    rematch: str | None = None
    setup: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    actions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)  # when each action was stored
    autos: list[bool] = field(default_factory=list)  # which the server chose (ActionRow.auto)
    live: dict[str, Any] | None = None  # TableRow.live (web/turns.py)
    to_move: list[int] = field(default_factory=list)  # TableRow.to_move

    def waits_for(self, seat: int) -> bool:
        """Whether the stored game waits for this seat's decision ("your turn")."""
        return self.status == "playing" and seat in self.to_move


def normalise_url(url: str) -> str:
    """Accept ``postgres://`` and ``postgresql://`` (psycopg 3 is the driver) and plain
    SQLite paths' URLs; create the SQLite file's folder."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    parsed = make_url(url)
    database = parsed.database or ""
    on_disk = database not in ("", ":memory:") and not database.startswith("file:")
    if parsed.get_backend_name() == "sqlite" and on_disk:
        private_file(Path(database).expanduser())
    return url


def private_file(path: Path) -> None:
    """Create the SQLite file (and its folder) readable by its owner alone, if it is not
    there yet: it holds the seeds of live games (every hand to come) and the seat
    tokens' hashes. SQLite gives its -wal and -shm files the main file's mode."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def _dump(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


class Store:
    """All database access. Methods are synchronous; each write is one transaction."""

    def __init__(self, url: str) -> None:
        self.url = normalise_url(url)
        kwargs: dict[str, Any] = {"future": True}
        backend = make_url(self.url).get_backend_name()
        self.backend = backend
        if backend == "sqlite":
            # How long a write waits for another writer's lock before it fails (and the
            # move is answered ``server_error``); ``?timeout=SECONDS`` in the URL sets it.
            kwargs["connect_args"] = {"check_same_thread": False}
            if "timeout" not in make_url(self.url).query:
                kwargs["connect_args"]["timeout"] = 30
        else:
            # pool_pre_ping: connections cut by a database restart are replaced, so play
            # goes on without restarting the server. synchronous_commit=on: an
            # acknowledged move is on disk even where the cluster's default is off (it
            # would be lost in a database crash otherwise).
            kwargs["pool_pre_ping"] = True
            kwargs["connect_args"] = {"options": "-c synchronous_commit=on"}
        self.engine: Engine = create_engine(self.url, **kwargs)
        if backend == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self._session = sessionmaker(self.engine, expire_on_commit=False)
        # The schema is Alembic's (web/migrations): a new database gets every revision, an
        # older one is upgraded in place, one made before migrations is stamped first.
        migrate(self.engine)
        # Called inside the transaction that ends a game (``append_actions`` with a
        # result): ratings are updated with the game's end or not at all.
        self.on_game_over: list[Callable[[Connection, str, dict[str, Any]], None]] = []
        #: Called inside the write that moves a seat to another device (``move_seat``)
        #: with the table, the seat and its old and new token hashes: what is keyed by
        #: the seat's token (an account's claim on it) follows the seat.
        self.on_seat_moved: list[Callable[[Connection, str, int, str | None, str], None]] = []
        #: Several servers on one database (web/leases.py): ``fence`` is called inside
        #: every write to a table's game, seats or settings and raises if this server
        #: does not own the table any more (the write is rolled back); ``on_create``
        #: inside the write that makes a table (its lease is taken with it).
        self.fence: Callable[[Connection, str], None] | None = None
        self.on_create: list[Callable[[Connection, str], None]] = []

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def _tx(self) -> Iterator[Session]:
        with self._session() as session, session.begin():
            yield session

    def ping(self) -> bool:
        """Whether moves can be saved now. On SQLite, reads go on while another
        connection holds the write lock, so the ping takes (and releases) the write lock
        too: a locked database is unavailable for the game, readable or not."""
        try:
            with self.engine.connect() as conn:
                if self.backend == "sqlite":
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
                    conn.exec_driver_sql("ROLLBACK")
                else:
                    conn.execute(text("SELECT 1"))
            return True
        except Exception:
            return False

    # ------------------------------------------------------------------ writes

    def create_table(self, table: StoredTable) -> None:
        with self._tx() as s:
            s.add(
                TableRow(
                    id=table.id,
                    created=table.created,
                    status=table.status,
                    settings=_dump(table.settings),
                    rematch_of=table.rematch_of,
                    rematch=table.rematch,
                )
            )
            s.flush()
            for seat in table.seats:
                s.add(_seat_row(table.id, seat))
            if table.setup is not None:
                s.add(RecordRow(table_id=table.id, setup=_dump(table.setup), result=None))
            s.flush()
            for hook in self.on_create:
                hook(s.connection(), table.id)

    def _fenced(self, conn: Connection, table_id: str) -> None:
        if self.fence is not None:
            self.fence(conn, table_id)

    def save_seats(self, table_id: str, seats: Sequence[StoredSeat]) -> None:
        with self._tx() as s:
            self._fenced(s.connection(), table_id)
            for seat in seats:
                s.merge(_seat_row(table_id, seat))

    def move_seat(self, table_id: str, seat: StoredSeat, old_hash: str | None) -> None:
        """Save a seat whose token changed ("continue on another device"), and let the
        ``on_seat_moved`` hooks carry what followed the old token, in one transaction."""
        with self._tx() as s:
            self._fenced(s.connection(), table_id)
            s.merge(_seat_row(table_id, seat))
            s.flush()
            if seat.token_hash is not None:
                for hook in self.on_seat_moved:
                    hook(s.connection(), table_id, seat.seat, old_hash, seat.token_hash)

    def start_game(
        self,
        table_id: str,
        setup: dict[str, Any],
        live: dict[str, Any] | None = None,
        to_move: Sequence[int] = (),
    ) -> None:
        """The game's setup, and the table's status ``playing``, in one transaction
        (with the clocks' start, ``live``, and whose decision it waits for)."""
        with self._tx() as s:
            self._fenced(s.connection(), table_id)
            row = s.get(TableRow, table_id)
            if row is None:
                raise KeyError(table_id)
            row.status = "playing"
            row.live = _dump(live) if live is not None else None
            row.to_move = _dump(list(to_move))
            s.add(RecordRow(table_id=table_id, setup=_dump(setup), result=None))

    def append_actions(
        self,
        table_id: str,
        first_seq: int,
        actions: Sequence[tuple[int, dict[str, Any]]],
        result: dict[str, Any] | None = None,
        auto: bool = False,
        live: dict[str, Any] | None = None,
        to_move: Sequence[int] | None = None,
    ) -> None:
        """Store actions ``first_seq, first_seq + 1, ...`` (``auto``: chosen by the server,
        not a person); with ``result``, also mark the game over. A sequence number that
        exists already makes the whole write fail. ``live`` (the clocks, countdown and
        stand-ins as of ``first_seq``) and ``to_move`` (the seats the game waits for
        after the actions) are stored with the table row in the same transaction."""
        # The hot path of play (one call per move): SQLAlchemy Core statements, compiled
        # once and cached, on a plain connection - the ORM's unit of work cost 3-4 times
        # as much per move. One transaction all the same, committed before returning.
        now = time.time()
        rows = [
            {
                "table_id": table_id,
                "seq": first_seq + i,
                "seat": seat,
                "action": _dump(action),
                "created": now,
                "auto": int(auto),
            }
            for i, (seat, action) in enumerate(actions)
        ]
        with self.engine.begin() as conn:
            self._fenced(conn, table_id)
            if rows:
                conn.execute(_INSERT_ACTION, rows)
            values: dict[str, Any] = {}
            if live is not None:
                values["live"] = _dump(live)
            if to_move is not None:
                values["to_move"] = _dump(list(to_move))
            if len(values) == 2 and result is None:  # every move: one statement, built once
                conn.execute(_SAVE_LIVE, {"tid": table_id, **values})
            elif values and result is None:
                conn.execute(update(TableRow).where(TableRow.id == table_id).values(**values))
            if result is not None:
                done = conn.execute(
                    update(RecordRow)
                    .where(RecordRow.table_id == table_id)
                    .values(result=_dump(result))
                ).rowcount
                done += conn.execute(
                    update(TableRow).where(TableRow.id == table_id).values(status="over", **values)
                ).rowcount
                if done != 2:
                    raise KeyError(table_id)
                for hook in self.on_game_over:
                    hook(conn, table_id, result)

    def set_rematch(self, old_id: str, new_table: StoredTable) -> None:
        """Create the rematch table and link the two, in one transaction."""
        with self._tx() as s:
            s.add(
                TableRow(
                    id=new_table.id,
                    created=new_table.created,
                    status=new_table.status,
                    settings=_dump(new_table.settings),
                    rematch_of=old_id,
                    rematch=None,
                )
            )
            s.flush()
            for seat in new_table.seats:
                s.add(_seat_row(new_table.id, seat))
            if new_table.setup is not None:
                s.add(RecordRow(table_id=new_table.id, setup=_dump(new_table.setup)))
            s.flush()
            for hook in self.on_create:
                hook(s.connection(), new_table.id)
            old = s.get(TableRow, old_id)
            if old is None:
                raise KeyError(old_id)
            old.rematch = new_table.id

    def add_chat(
        self, table_id: str, seat: int | None, name: str, text_: str, keep: int = 0
    ) -> float:
        """Store a chat line; with ``keep``, only the table's last ``keep`` lines stay."""
        now = time.time()
        with self._tx() as s:
            row = ChatRow(table_id=table_id, seat=seat, name=name, text=text_, created=now)
            s.add(row)
            if keep > 0:
                s.flush()
                newest = (
                    select(ChatRow.id)
                    .where(ChatRow.table_id == table_id)
                    .order_by(ChatRow.id.desc())
                    .limit(keep)
                )
                s.execute(
                    delete(ChatRow).where(ChatRow.table_id == table_id, ChatRow.id.not_in(newest))
                )
        return now

    def save_settings(self, table_id: str, settings: dict[str, Any]) -> None:
        with self._tx() as s:
            self._fenced(s.connection(), table_id)
            s.execute(
                update(TableRow).where(TableRow.id == table_id).values(settings=_dump(settings))
            )

    def save_live(self, table_id: str, live: dict[str, Any]) -> None:
        """A live table's clocks, countdown and stand-ins (``TableRow.live``) changed
        without an action (a stand-in voted in, a person back)."""
        with self._tx() as s:
            self._fenced(s.connection(), table_id)
            s.execute(update(TableRow).where(TableRow.id == table_id).values(live=_dump(live)))

    def delete_lobby_table(self, table_id: str) -> bool:
        """Delete a table that is still in the lobby (no game, nothing worth keeping)."""
        with self._tx() as s:
            row = s.get(TableRow, table_id)
            if row is None or row.status != "lobby":
                return False
            for rows, column in _rows_of_a_table():
                s.execute(delete(rows).where(column == table_id))
            s.delete(row)
            return True

    # ------------------------------------------------------------------ reads

    def load(self, table_id: str) -> StoredTable | None:
        with self._session() as s:
            row = s.get(TableRow, table_id)
            if row is None:
                return None
            return self._stored(s, row)

    def unfinished(self) -> list[StoredTable]:
        """Every table in the lobby or in play (to resume after a restart)."""
        with self._session() as s:
            rows = s.scalars(
                select(TableRow).where(TableRow.status.in_(("lobby", "playing")))
            ).all()
            return [self._stored(s, r) for r in rows]

    def recent(self, limit: int = 50) -> list[StoredTable]:
        with self._session() as s:
            rows = s.scalars(select(TableRow).order_by(TableRow.created.desc()).limit(limit)).all()
            return [self._stored(s, r, actions=False) for r in rows]

    def chat(self, table_id: str, limit: int = 100) -> list[dict[str, Any]]:
        with self._session() as s:
            rows = s.scalars(
                select(ChatRow)
                .where(ChatRow.table_id == table_id)
                .order_by(ChatRow.id.desc())
                .limit(limit)
            ).all()
            return [
                {"seat": r.seat, "name": r.name, "text": r.text, "time": r.created}
                for r in reversed(rows)
            ]

    def _stored(self, s: Session, row: TableRow, actions: bool = True) -> StoredTable:
        seats = s.scalars(
            select(SeatRow).where(SeatRow.table_id == row.id).order_by(SeatRow.seat)
        ).all()
        record = s.get(RecordRow, row.id)
        out = StoredTable(
            id=row.id,
            created=row.created,
            status=row.status,
            settings=json.loads(row.settings),
            seats=[StoredSeat(x.seat, x.kind, x.bot, x.name, x.token_hash) for x in seats],
            rematch_of=row.rematch_of,
            rematch=row.rematch,
            setup=json.loads(record.setup) if record is not None else None,
            result=json.loads(record.result) if record is not None and record.result else None,
            live=json.loads(row.live) if row.live else None,
            to_move=[int(x) for x in json.loads(row.to_move)] if row.to_move else [],
        )
        if actions and record is not None:
            acts = s.execute(
                select(
                    ActionRow.seq,
                    ActionRow.seat,
                    ActionRow.action,
                    ActionRow.created,
                    ActionRow.auto,
                )
                .where(ActionRow.table_id == row.id)
                .order_by(ActionRow.seq)
            ).all()
            for i, (seq, seat, action, created, auto) in enumerate(acts):
                if seq != i:
                    raise ValueError(f"table {row.id}: action {i} is missing (found {seq})")
                out.actions.append((seat, json.loads(action)))
                out.times.append(created)
                out.autos.append(bool(auto))
        return out


_INSERT_ACTION = insert(ActionRow)
_SAVE_LIVE = (
    update(TableRow)
    .where(TableRow.id == bindparam("tid"))
    .values(live=bindparam("live"), to_move=bindparam("to_move"))
)


def _seat_row(table_id: str, seat: StoredSeat) -> SeatRow:
    return SeatRow(
        table_id=table_id,
        seat=seat.seat,
        kind=seat.kind,
        bot=seat.bot,
        name=seat.name,
        token_hash=seat.token_hash,
    )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
