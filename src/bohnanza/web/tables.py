"""The server's state, put together: one :class:`Manager` holds every live table.

It is a thin composition of the parts that do the work, each in its own module:

* ``web/model.py``: the data (settings, tables, seats, connections);
* ``web/lobby.py``: :class:`~bohnanza.web.lobby.Lobby`, tables, seats and tokens,
  starting, leaving, rematches;
* ``web/session.py``: :class:`~bohnanza.web.session.Session`, a table's connections,
  chat, and each action's check, commit (to the database, then memory), resync and
  broadcast;
* ``web/pump.py``: :class:`~bohnanza.web.pump.Pump`, the bots' and substitutes'
  automatic steps, the clocks and the trading time limit;
* ``web/replays.py``: records and replay frames (every rebuild of a game goes through
  :func:`bohnanza.records.replay`);
* ``web/upkeep.py``: housekeeping, the bots' thread and process pools, host controls.

The manager routes each WebSocket frame to the part that answers it and offers the
HTTP API's calls (``web/app.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from .leases import HAND_OFF_AFTER, RENEW_EVERY, Elsewhere, LeaseLost, Leases
from .limits import Guard
from .lobby import KEEP_FINISHED, UNAVAILABLE, Lobby, fresh_game
from .model import (
    RATE_BURST,
    RATE_PER_SECOND,
    SEND_QUEUE,
    Conn,
    LobbyError,
    Seat,
    Settings,
    Socket,
    Table,
    default_database_url,
    hash_token,
    new_id,
)
from .protocol import ClientMessage, ProtocolError, error, parse_client_message
from .pump import BOT_TRADE_ACTIONS, RETRY_MAX, Pump, Step, TradeState
from .replays import card_table, rebuild, replay_frame, table_record
from .session import LOG_ON_CONNECT, Session, refusal_message
from .standin import come_back, stand_in_vote
from .store import Store
from .upkeep import BotPools, host_command, upkeep

__all__ = [
    "BOT_TRADE_ACTIONS",
    "KEEP_FINISHED",
    "LOG_ON_CONNECT",
    "RATE_BURST",
    "RATE_PER_SECOND",
    "RETRY_MAX",
    "SEND_QUEUE",
    "UNAVAILABLE",
    "Conn",
    "LobbyError",
    "Manager",
    "Seat",
    "Settings",
    "Socket",
    "Step",
    "Table",
    "TradeState",
    "card_table",
    "default_database_url",
    "fresh_game",
    "hash_token",
    "new_id",
    "rebuild",
    "refusal_message",
]

log = logging.getLogger("bohnanza.web")

#: Messages a seated client may send twice by mistake (a double click, a resend on a slow
#: line): with a string ``id`` (a client id), a repeat gets the first answer again.
IDEMPOTENT = frozenset(
    (
        "action",
        "start",
        "leave",
        "rematch",
        "rematch_join",
        "rematch_decline",
        "stand_in",
        "back",
        "move",
    )
)
#: How long a creation request's id is remembered (a double click on "Create", a resend).
CREATE_KEPT_S = 600.0
#: Client ids remembered per table.
ANSWERS_KEPT = 256
#: Answers that are not remembered: the same message may well succeed when sent again.
_TRANSIENT = frozenset(("server_error", "rate_limited"))


class Manager:
    """Every table, its game, its connections and its automatic steps."""

    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.settings = settings
        self.store = store if store is not None else Store(settings.database_url)
        self.tables: dict[str, Table] = {}
        self.guard = Guard(settings.limits)
        self.bots = BotPools(settings.limits)
        self.session = Session(settings, self.store, self.guard)
        self.pump = Pump(settings, self.session, self.bots, self.tables)
        # Several servers on one PostgreSQL database (web/leases.py): each live table is
        # owned by one of them; SQLite is one server's.
        self.leases: Leases | None = None
        if self.store.backend == "postgresql":
            self.leases = Leases(self.store, settings.instance_url)
            self.store.fence = self.leases.fence
            self.store.on_create.append(self.leases.created)
            self.session.on_lease_lost = self.let_go
        self.lobby = Lobby(
            settings, self.store, self.tables, self.guard, self.session, self.pump, self.leases
        )
        self._upkeep: asyncio.Task[None] | None = None
        self._leasing: asyncio.Task[None] | None = None
        # Creation requests by (address, request id): when, and the answer (or the
        # creation under way), so that a repeated request gets the same table.
        self.created: dict[tuple[str, str], tuple[float, asyncio.Future[Any]]] = {}

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Load every unfinished table (that no other live instance owns) and resume its
        game where it was."""
        if self.leases is not None:
            self.leases.register()
        self.lobby.resume()
        self._upkeep = asyncio.create_task(upkeep(self), name="upkeep")
        if self.leases is not None:
            self._leasing = asyncio.create_task(self._lease_loop(), name="leases")

    async def _lease_loop(self) -> None:
        """Renew this instance's leases and heartbeat; adopt orphaned tables (their owner
        is gone) so that their bots and clocks go on."""
        assert self.leases is not None
        while True:
            await asyncio.sleep(RENEW_EVERY)
            try:
                await asyncio.to_thread(self.leases.renew)
                for table_id in await asyncio.to_thread(self.leases.orphans):
                    if table_id not in self.tables:
                        with contextlib.suppress(LeaseLost, Elsewhere):
                            await self.lobby.get(table_id)
                for table in list(self.tables.values()):
                    peers = {c.peer for c in table.conns}
                    if len(peers) == 1 and None not in peers:
                        (peer,) = peers
                        if peer is not None and self.may_hand_off(table, peer):
                            await self.hand_off(table)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("could not renew the leases; trying again")

    def may_hand_off(self, table: Table, peer: str) -> bool:
        """Whether ``table`` should move to instance ``peer``: every socket of it comes
        through that instance (the proxy sends the table's requests there), and this
        instance has held it for HAND_OFF_AFTER seconds at least."""
        if self.leases is None or not table.conns:
            return False
        taken = self.leases.since.get(table.id)
        if taken is None or time.monotonic() - taken < HAND_OFF_AFTER:
            return False
        return all(c.peer == peer for c in table.conns)

    async def hand_off(self, table: Table) -> None:
        """Give ``table`` up for the instance its requests come through: the lease ends
        now (the next instance to ask takes it, with a new fencing token), the table
        leaves memory, its sockets are closed 1012 and reconnect to the new owner."""
        assert self.leases is not None
        async with table.lock:
            if self.tables.get(table.id) is not table:
                return
            await asyncio.to_thread(self.leases.release, table.id)
            log.info("table %s handed off to the instance its players come through", table.id)
            self.let_go(table, quiet=True)

    def let_go(self, table: Table, quiet: bool = False) -> None:
        """Another instance owns ``table`` now: forget it here and send its connections
        to reconnect (they are served by the owner)."""
        if not quiet:
            log.warning("table %s is owned by another server instance now; letting it go", table.id)
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        table.status = "broken"  # this copy: its pump stops at its next step
        for conn in list(table.conns):
            conn.reconnect()
        self.bots.forget(table.id)
        if self.leases is not None:
            self.leases.held.pop(table.id, None)

    async def stop(self) -> None:
        self.pump.closing = True
        for task in (self._upkeep, self._leasing):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        tables = list(self.tables.values())
        for table in tables:
            for conn in list(table.conns):
                conn.closed = True
                if conn.writer is not None:
                    conn.writer.cancel()
        await self.pump.stop(tables)
        self.bots.close()
        if self.leases is not None:
            await asyncio.to_thread(self.leases.close)
        self.store.close()

    # ------------------------------------------------------------------ the HTTP API

    async def create_table(
        self,
        *,
        rules: str,
        players: int,
        options: dict[str, str],
        seats: Sequence[dict[str, str]],
        trade_limit: int,
        name: str,
        seed: int | None = None,
        deck: list[str | int] | None = None,
        private: bool = False,
        clock: str = "none",
        address: str = "",
        stand_in: str | None = None,
        rated: str = "no",
        coach: bool = False,
    ) -> tuple[Table, int, str]:
        """A new table in the lobby; its creator takes the first seat for a person."""
        return await self.lobby.create_table(
            rules=rules,
            players=players,
            options=options,
            seats=seats,
            trade_limit=trade_limit,
            name=name,
            seed=seed,
            deck=deck,
            private=private,
            clock=clock,
            address=address,
            stand_in=stand_in,
            rated=rated,
            coach=coach,
        )

    async def create_once(
        self,
        address: str,
        request_id: str | None,
        make: Callable[[], Awaitable[Any]],
        keep: Callable[[Any], bool] = lambda _answer: True,
    ) -> Any:
        """``make()``'s answer; a request with the same id from the same address (a
        double click on "Create", a resend after a lost answer) gets the first answer,
        waiting for it if need be, instead of a second table. Failures (exceptions, and
        answers ``keep`` refuses) are not kept: the same request may be tried again."""
        if request_id is None:
            return await make()
        now = time.monotonic()
        for k in [k for k, (at, _f) in self.created.items() if now - at > CREATE_KEPT_S]:
            del self.created[k]
        key = (address, request_id)
        while True:
            known = self.created.get(key)
            if known is None:
                break
            answer = await asyncio.shield(known[1])
            if answer is not None:
                return answer
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.created[key] = (now, future)
        try:
            answer = await make()
        except BaseException:
            self.created.pop(key, None)
            future.set_result(None)  # the waiters try for themselves
            raise
        if not keep(answer):
            self.created.pop(key, None)
            future.set_result(None)
            return answer
        future.set_result(answer)
        return answer

    async def join(
        self, table: Table, name: str, seat: int | None, address: str = ""
    ) -> tuple[int, str]:
        """Take an open seat for a person (the first one, or ``seat``) from ``address``."""
        return await self.lobby.join(table, name, seat, address)

    async def get(self, table_id: str) -> Table | None:
        """A table by its id, from memory or else from the database."""
        return await self.lobby.get(table_id)

    async def recent(self) -> list[dict[str, Any]]:
        """Open and recent tables, for the lobby list."""
        return await self.lobby.recent()

    def record(self, table: Table) -> dict[str, Any]:
        """The finished game's record."""
        return table_record(table)

    def replay_frame(self, table: Table, step: int) -> dict[str, Any]:
        """The finished game after ``step`` actions, with everything revealed."""
        return replay_frame(table, step)

    # ------------------------------------------------------------------ the WebSocket

    def connect(self, table: Table, ws: Socket) -> Conn:
        return self.session.connect(table, ws)

    async def disconnect(self, conn: Conn) -> None:
        await self.session.disconnect(conn)

    async def handle(self, conn: Conn, raw: str | bytes | None) -> None:
        """One frame from a client: answered with an error, or carried out."""
        if not conn.within_rate():
            conn.send(error("rate_limited", "too many messages; slow down"))
            return
        try:
            msg = parse_client_message(raw, self.settings.max_message)
        except ProtocolError as exc:
            conn.send(error(exc.code, exc.message, exc.msg_id))
            return
        key: tuple[int, str] | None = None
        if (
            isinstance(msg.id, str)
            and msg.type in IDEMPOTENT
            and conn.authed
            and conn.seat is not None
        ):
            key = (conn.seat, msg.id)
            first = conn.table.answers.get(key)
            if first is not None:
                conn.send(first)  # already done: the first answer, nothing done again
                return
            conn.recording, conn.recorded = msg.id, None
        try:
            await self._handle(conn, msg)
        finally:
            if key is not None:
                answer = conn.recorded
                conn.recording = conn.recorded = None
                if answer is not None and answer.get("code") not in _TRANSIENT:
                    answers = conn.table.answers
                    answers[key] = answer
                    while len(answers) > ANSWERS_KEPT:
                        del answers[next(iter(answers))]

    async def _handle(self, conn: Conn, msg: ClientMessage) -> None:
        try:
            await self._dispatch(conn, msg)
        except ProtocolError as exc:
            conn.send(
                error(exc.code, exc.message, exc.msg_id if exc.msg_id is not None else msg.id)
            )
        except LobbyError as exc:
            conn.send(error("server_error", exc.message, msg.id))
        except Exception:
            # Whatever went wrong (the database, mostly), the connection stays open and
            # the client is told; the table's state changed only if it was acknowledged.
            log.exception("table %s: could not handle a %s message", conn.table.id, msg.type)
            conn.send(error("server_error", "the server could not do that; try again", msg.id))

    async def _dispatch(self, conn: Conn, msg: ClientMessage) -> None:
        table = conn.table
        if msg.type == "ping":
            conn.send({"type": "pong", **({"id": msg.id} if msg.id is not None else {})})
            return
        if msg.type == "hello":
            await self.session.hello(conn, msg)
            return
        if not conn.authed:
            raise ProtocolError("not_authenticated", "send a hello message first", msg.id)
        if msg.type == "chat":
            await self.session.chat(conn, msg)
            return
        if conn.seat is None:
            raise ProtocolError(
                "not_seated", "spectators cannot do that; take a seat to play", msg.id
            )
        if msg.type == "action":
            await self.session.action(conn, msg)
        elif msg.type == "start":
            await self.lobby.start_game(table, conn, msg)
        elif msg.type == "leave":
            await self.lobby.leave(table, conn, msg)
        elif msg.type == "rematch":
            await self.lobby.rematch(table, conn, msg)
        elif msg.type == "host":
            await host_command(self, conn, msg)
        elif msg.type == "rematch_join":
            await self.lobby.rematch_join(table, conn, msg)
        elif msg.type == "rematch_decline":
            await self.lobby.rematch_decline(table, conn, msg)
        elif msg.type == "stand_in":
            await stand_in_vote(self, conn, msg)
        elif msg.type == "back":
            await come_back(self, conn, msg)
        elif msg.type == "move":
            await self.session.move_link(conn, msg)
