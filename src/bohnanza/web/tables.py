"""Tables: the lobby, games in play, connections, bots, timers - the server's state.

One :class:`Manager` holds every live table. Each table has an ``asyncio.Lock``: actions
are taken in arrival order, one at a time, and each is carried out on a clone of the
game, committed to the database, and only then installed, acknowledged and broadcast
(a failed commit changes nothing). What every client gets is computed for its seat alone:
``game.view(seat)`` and ``Event.for_seat(seat)`` (R-INFO-3); spectators get the
spectator view.

Automatic steps run in one task per table, the *pump*: bot seats (and people away for
longer than ``Settings.away_timeout``, replaced by a bot until they return) are asked
for their decisions in a fixed order, like :func:`bohnanza.driver.play`: whoever the game
waits for, active seat first; in phase 2 in rounds (active seat first, then seat order),
each bot seat at most ``BOT_TRADE_ACTIONS`` actions per trade phase; a round in which no
bot acts settles the bots until a person trades again. The pump also ends trading when
the table's trading time limit has passed (R-TRADE-6), and for an active bot once bots
have settled and people had ``bot_grace`` seconds to propose (``bot_wait`` while an
offer between a bot and a person is open).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..actions import Action, ActionType
from ..agents import AGENTS, DEFAULT_BOT, lobby_agents, make_agent
from ..agents.base import Agent
from ..errors import BohnanzaError, ConfigError, IllegalAction, RecordError
from ..events import Event
from ..game import TRADE, Game
from ..modules import info_for_rules
from ..records import make_record, new_game
from ..refusals import explain
from ..rules import make_config
from ..seeding import table_agent_seed
from ..shuffle import fresh_seed
from ..views import SeatView, View, make_view
from .clocks import Clocks, parse_clock
from .limits import Guard, Limits
from .protocol import (
    MAX_MESSAGE,
    ClientMessage,
    ProtocolError,
    clean_name,
    dumps,
    error,
    parse_client_message,
)
from .store import Store, StoredSeat, StoredTable
from .upkeep import BotPools, chatter_id, check_chat, host_command, spectator_may_join, upkeep

log = logging.getLogger("bohnanza.web")

#: A bot seat takes at most this many actions in one trade phase.
BOT_TRADE_ACTIONS = 24
#: Bot rounds in one trade phase without a person trading in between.
BOT_TRADE_ROUNDS = 6
#: Events sent to a client that (re)connects: the end of the game's log.
LOG_ON_CONNECT = 400
#: Outgoing messages queued for one connection before it is dropped as too slow.
SEND_QUEUE = 2000
#: Finished tables kept in memory without connections.
KEEP_FINISHED = 200
#: A connection may send RATE_BURST messages at once, then RATE_PER_SECOND a second.
RATE_BURST = 100
RATE_PER_SECOND = 20.0
#: What a lobby request gets while the database cannot be reached (HTTP 503).
UNAVAILABLE = "the database is unavailable; try again in a moment"
#: The longest pause of a table's pump between two tries to save a bot's action.
RETRY_MAX = 4.0


def default_database_url() -> str:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(base) / 'bohnanza' / 'games.db'}"


def _module_info(rules: str) -> dict[str, Any]:
    """ModuleInfo.to_json of a table's rule set ({} for one that no longer resolves, e.g.
    a stored table of a module that is not registered now)."""
    try:
        return info_for_rules(rules).to_json()
    except ConfigError:
        return {}


@dataclass(slots=True)
class Settings:
    """Server settings. Times are in seconds."""

    database_url: str = field(default_factory=default_database_url, repr=False)
    away_timeout: float = 60.0  # a person away this long is replaced by a bot
    bot_delay: float = 0.5  # pause after each bot action, so people can follow
    bot_grace: float = 3.0  # an active bot waits this long for people to propose
    bot_wait: float = 20.0  # ... and at most this long for answers to open offers
    substitute: str = "autarky"  # the bot that plays for an absent person
    max_message: int = MAX_MESSAGE
    max_tables: int = 1000  # tables in the lobby or in play at once
    testing: bool = False  # lets table creation fix the seed and the deck (tests only)
    # Origins (scheme://host[:port]) whose pages may open WebSockets besides the server's
    # own; a browser's cross-site WebSocket would otherwise act with the visitor's tokens.
    allowed_origins: tuple[str, ...] = ()
    max_connections: int = 200  # spectators' WebSockets per table (seated players: always)
    limits: Limits = field(default_factory=Limits)  # per-address limits, hosts, bot pools
    # Agent specs beyond the built-in ones that tables may seat as bots (``bohnanza serve
    # --allow-agent``): code from outside the package runs only if the operator named it.
    allowed_agents: tuple[str, ...] = ()
    # Invites (web/invite.py): the addresses a public server printed, and whether the
    # X-Forwarded-Host/-Proto headers of a reverse proxy are believed.
    public_addresses: tuple[str, ...] = ()
    trust_proxy: bool = False

    def bots(self) -> list[str]:
        """The bots the lobby offers: the built-in agents, then the allowed ones."""
        return [*lobby_agents(), *(a for a in self.allowed_agents if a not in AGENTS)]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_id() -> str:
    return secrets.token_urlsafe(8).replace("-", "x").replace("_", "y")


class Socket(Protocol):
    """The part of a WebSocket the manager uses."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


@dataclass(eq=False, slots=True)
class Conn:
    ws: Socket
    table: Table
    seat: int | None = None
    authed: bool = False
    queue: asyncio.Queue[str | None] = field(
        default_factory=lambda: asyncio.Queue(maxsize=SEND_QUEUE)
    )
    writer: asyncio.Task[None] | None = None
    closed: bool = False
    allowance: float = float(RATE_BURST)  # messages it may send now (a token bucket)
    address: str = ""  # the client's address (for the per-address limits)
    close_code: int = 1008  # what the writer closes the socket with when it stops
    checked: float = field(default_factory=time.monotonic)

    def within_rate(self) -> bool:
        now = time.monotonic()
        self.allowance = min(
            float(RATE_BURST), self.allowance + (now - self.checked) * RATE_PER_SECOND
        )
        self.checked = now
        if self.allowance < 1:
            return False
        self.allowance -= 1
        return True

    def send(self, message: dict[str, Any]) -> None:
        self.send_text(dumps(message))

    def send_text(self, text: str) -> None:
        """Queue an encoded message (a broadcast encodes each seat's state once)."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("table %s: dropping a connection that does not read", self.table.id)
            self.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)


@dataclass(slots=True)
class Seat:
    seat: int
    kind: str  # "person" or "bot"
    bot: str  # the agent of a bot seat
    name: str
    token_hash: str | None = None
    conns: int = 0
    away_since: float | None = None  # monotonic time the last connection closed
    replaced: bool = False  # a bot plays for this absent person now

    def stored(self) -> StoredSeat:
        return StoredSeat(self.seat, self.kind, self.bot, self.name, self.token_hash)

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "kind": self.kind,
            "bot": self.bot if self.kind == "bot" else None,
            "name": self.name,
            "taken": self.kind == "bot" or self.token_hash is not None,
            "connected": self.conns > 0,
            "replaced": self.replaced,
        }


@dataclass(slots=True)
class TradeState:
    """The pump's bookkeeping for one trade phase."""

    turn: int
    started: float
    pos: int = 0  # next place in the current round (0 = the active seat)
    rounds: int = 0
    acted: bool = False
    settled: bool = False
    settled_at: float = 0.0
    actions: dict[int, int] = field(default_factory=dict)


@dataclass(eq=False, slots=True)
class Table:
    id: str
    created: float
    status: str  # lobby, playing, over, broken
    settings: dict[str, Any]  # rules, players, options, trade_limit (+ seed, deck: tests)
    seats: list[Seat]
    rematch_of: str | None = None
    rematch: str | None = None
    game: Game | None = None
    actions: list[tuple[int, Action]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    conns: set[Conn] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    kick: asyncio.Event = field(default_factory=asyncio.Event)
    pump: asyncio.Task[None] | None = None
    agents: dict[tuple[int, str], Agent] = field(default_factory=dict)
    trade: TradeState | None = None
    clocks: Clocks | None = None  # the players' time banks (web/clocks.py), if any
    touched: float = field(default_factory=time.monotonic)
    # A write failed: it may still have been committed (a connection lost while the
    # commit was under way), so the stored record is read back before the next write.
    unsure: bool = False

    @property
    def seq(self) -> int:
        return len(self.actions)

    def info(self) -> dict[str, Any]:
        s = self.settings
        out: dict[str, Any] = {
            "id": self.id,
            "rules": s["rules"],
            # What the module tells the page: phases, public piles, flags (table.js).
            "module_info": _module_info(s["rules"]),
            "players": s["players"],
            "options": s.get("options", {}),
            "trade_limit": s.get("trade_limit", 0),
            "clock": s.get("clock", "none"),
            "status": self.status,
            "created": self.created,
            "seats": [seat.public() for seat in self.seats],
            "rematch": self.rematch,
            "rematch_of": self.rematch_of,
            "spectators": sum(1 for c in self.conns if c.authed and c.seat is None),
            "host": s.get("host"),
            "private": bool(s.get("private", False)),
            "spectator_chat": bool(s.get("spectator_chat", True)),
        }
        if self.game is not None and self.game.over:
            out["result"] = self.game.result()
        return out

    def seat_for_token(self, token: str) -> int | None:
        digest = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return seat.seat
        return None


class LobbyError(Exception):
    """A lobby request that cannot be met; ``status`` is the HTTP status to answer.

    ``code`` names the refusals a person can meet through the pages (``lobby.<code>`` in
    the message catalogue), so that a Polish page words them in Polish; the others are
    the answers to malformed requests, which the pages never send.
    """

    def __init__(self, message: str, status: int = 400, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code


def rebuild(
    setup: dict[str, Any], actions: Sequence[tuple[int, dict[str, Any]]]
) -> tuple[Game, list[tuple[int, Action]], list[Event]]:
    """Replay a stored record (setup + actions), keeping the events for the game log."""
    game = new_game(setup)
    done: list[tuple[int, Action]] = []
    events: list[Event] = []
    for i, (seat, raw) in enumerate(actions):
        try:
            action = Action.from_json(raw)
            events += game.apply(seat, action)
        except BohnanzaError as exc:
            raise RecordError(f"action #{i} does not replay: {exc}") from None
        done.append((seat, action))
    return game, done, events


class Manager:
    """Every table, its game, its connections and its automatic steps."""

    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.settings = settings
        self.store = store if store is not None else Store(settings.database_url)
        self.tables: dict[str, Table] = {}
        self._closing = False
        self.guard = Guard(settings.limits)
        self.bots = BotPools(settings.limits)
        self._upkeep: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Load every unfinished table and resume its game where it was."""
        now = time.monotonic()
        for stored in self.store.unfinished():
            table = self._from_stored(stored)
            for seat in table.seats:
                if seat.kind == "person" and seat.token_hash is not None:
                    seat.away_since = now
            self.tables[table.id] = table
            if table.status == "playing":
                self._start_pump(table)
        if self.tables:
            log.info("resumed %d unfinished table(s)", len(self.tables))
        self._upkeep = asyncio.create_task(upkeep(self), name="upkeep")

    async def stop(self) -> None:
        self._closing = True
        if self._upkeep is not None:
            self._upkeep.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._upkeep
        for table in list(self.tables.values()):
            if table.pump is not None:
                table.pump.cancel()
            for conn in list(table.conns):
                conn.closed = True
                if conn.writer is not None:
                    conn.writer.cancel()
        pumps = [t.pump for t in self.tables.values() if t.pump is not None]
        for task in pumps:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.bots.close()
        self.store.close()

    def _from_stored(self, stored: StoredTable) -> Table:
        seats = [Seat(s.seat, s.kind, s.bot, s.name, s.token_hash) for s in stored.seats]
        table = Table(
            id=stored.id,
            created=stored.created,
            status=stored.status,
            settings=stored.settings,
            seats=seats,
            rematch_of=stored.rematch_of,
            rematch=stored.rematch,
        )
        if stored.setup is not None:
            try:
                table.game, table.actions, table.events = rebuild(stored.setup, stored.actions)
            except RecordError as exc:
                log.error("table %s cannot be resumed: %s", stored.id, exc)
                table.status = "broken"
                table.game = None
        return table

    # ------------------------------------------------------------------ lobby (HTTP)

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
    ) -> tuple[Table, int, str]:
        """A new table in the lobby; its creator takes the first seat for a person."""
        live = sum(1 for t in self.tables.values() if t.status in ("lobby", "playing"))
        if live >= self.settings.max_tables:
            raise LobbyError(
                "the server has too many open tables; try again later", 503, "too_many_tables"
            )
        try:
            make_config(rules, players, options)
        except ConfigError as exc:
            raise LobbyError(str(exc)) from None
        if len(seats) != players:
            raise LobbyError(f"{players} players need {players} seats, got {len(seats)}")
        made: list[Seat] = []
        for i, spec in enumerate(seats):
            kind = spec.get("kind")
            if kind == "person":
                made.append(Seat(i, "person", "", ""))
            elif kind == "bot":
                bot = spec.get("bot") or DEFAULT_BOT
                if bot not in self.settings.bots():
                    raise LobbyError(
                        f"unknown bot {bot!r}; bots: {', '.join(self.settings.bots())}"
                    )
                made.append(Seat(i, "bot", bot, ""))
            else:
                raise LobbyError(f"seat {i}: kind must be 'person' or 'bot', not {kind!r}")
        searching = sum(1 for s in made if s.kind == "bot" and s.bot == "search")
        if searching > self.settings.limits.search_per_table > 0:
            raise LobbyError(
                f"a table may have at most {self.settings.limits.search_per_table} search bots"
            )
        people = [s for s in made if s.kind == "person"]
        if not people:
            raise LobbyError("a table needs at least one seat for a person")
        if not 0 <= trade_limit <= 3600:
            raise LobbyError("the trading time limit is 0 (none) to 3600 seconds")
        try:
            clock_spec = parse_clock(clock, self.settings.testing)
        except ValueError as exc:
            raise LobbyError(str(exc)) from None
        if clock_spec is not None and trade_limit == 0:
            trade_limit = clock_spec.trade
        if (seed is not None or deck is not None) and not self.settings.testing:
            raise LobbyError("seed and deck can only be fixed on a test server")
        settings: dict[str, Any] = {
            "rules": rules,
            "players": players,
            "options": dict(options),
            "trade_limit": trade_limit,
            "host": people[0].seat,
        }
        if private:
            settings["private"] = True
        if clock_spec is not None:
            settings["clock"] = clock
        if seed is not None:
            settings["seed"] = seed
        if deck is not None:
            try:
                Game.new(rules, players, options=options, seed=0, deck=deck)
            except ConfigError as exc:
                raise LobbyError(str(exc)) from None
            settings["deck"] = list(deck)
        table = Table(
            id=new_id(), created=time.time(), status="lobby", settings=settings, seats=made
        )
        token = secrets.token_urlsafe(24)
        first = people[0]
        first.name = clean_name(name, f"Player {first.seat + 1}")
        first.token_hash = hash_token(token)
        first.away_since = time.monotonic()  # the away clock runs until they connect
        try:
            await asyncio.to_thread(
                self.store.create_table,
                StoredTable(
                    table.id,
                    table.created,
                    table.status,
                    table.settings,
                    [s.stored() for s in table.seats],
                ),
            )
        except Exception:
            log.exception("could not save a new table")
            raise LobbyError(UNAVAILABLE, 503, "unavailable") from None
        self.tables[table.id] = table
        return table, first.seat, token

    async def join(self, table: Table, name: str, seat: int | None) -> tuple[int, str]:
        """Take an open seat for a person (the first one, or ``seat``)."""
        async with table.lock:
            if table.status != "lobby":
                raise LobbyError("the game has started; you can watch it", 409, "started")
            open_seats = [s for s in table.seats if s.kind == "person" and s.token_hash is None]
            if seat is not None:
                open_seats = [s for s in open_seats if s.seat == seat]
            if not open_seats:
                if seat is None:
                    raise LobbyError("no open seat", 409, "no_open_seat")
                raise LobbyError(f"seat {seat} is not open", 409, "seat_not_open")
            chosen = open_seats[0]
            token = secrets.token_urlsafe(24)
            chosen.name = clean_name(name, f"Player {chosen.seat + 1}")
            chosen.token_hash = hash_token(token)
            if chosen.conns == 0:
                chosen.away_since = time.monotonic()  # until they connect (or never)
            try:
                # In a thread: a locked database must not stop the event loop.
                await asyncio.to_thread(self.store.save_seats, table.id, [chosen.stored()])
            except Exception:
                chosen.name, chosen.token_hash = "", None
                log.exception("table %s: could not save a seat", table.id)
                raise LobbyError("could not save the seat; try again", 503, "save_failed") from None
            self._broadcast_info(table)
            return chosen.seat, token

    async def get(self, table_id: str) -> Table | None:
        table = self.tables.get(table_id)
        if table is not None or len(table_id) > 32:
            return table
        try:
            stored = await asyncio.to_thread(self.store.load, table_id)
        except Exception:
            log.exception("could not load table %s", table_id)
            raise LobbyError(UNAVAILABLE, 503, "unavailable") from None
        if stored is None:
            return None
        table = self.tables.get(table_id)  # loaded meanwhile
        if table is None:
            table = self._from_stored(stored)
            self.tables[table.id] = table
            self._evict()
        return table

    def _evict(self) -> None:
        done = [t for t in self.tables.values() if t.status in ("over", "broken") and not t.conns]
        if len(done) > KEEP_FINISHED:
            done.sort(key=lambda t: t.touched)
            for t in done[: len(done) - KEEP_FINISHED]:
                del self.tables[t.id]

    async def recent(self) -> list[dict[str, Any]]:
        """Open and recent tables, for the lobby list."""
        out: dict[str, dict[str, Any]] = {}
        for t in self.tables.values():
            if t.status in ("lobby", "playing") and not t.settings.get("private"):
                out[t.id] = t.info()
        try:
            recent = await asyncio.to_thread(self.store.recent, 50)
        except Exception:
            log.exception("could not list the recent tables")
            raise LobbyError(UNAVAILABLE, 503, "unavailable") from None
        for stored in recent:
            if stored.id not in out and not stored.settings.get("private"):
                live = self.tables.get(stored.id)
                if live is not None:
                    out[stored.id] = live.info()
                else:
                    out[stored.id] = {
                        "id": stored.id,
                        "rules": stored.settings["rules"],
                        "players": stored.settings["players"],
                        "options": stored.settings.get("options", {}),
                        "trade_limit": stored.settings.get("trade_limit", 0),
                        "status": stored.status,
                        "created": stored.created,
                        "seats": [
                            {
                                "seat": s.seat,
                                "kind": s.kind,
                                "bot": s.bot if s.kind == "bot" else None,
                                "name": s.name,
                                "taken": s.kind == "bot" or s.token_hash is not None,
                                "connected": False,
                                "replaced": False,
                            }
                            for s in stored.seats
                        ],
                        "rematch": stored.rematch,
                        "rematch_of": stored.rematch_of,
                        "spectators": 0,
                        **({"result": stored.result} if stored.result else {}),
                    }
        return sorted(out.values(), key=lambda t: -float(t["created"]))[:60]

    # ------------------------------------------------------------------ connections

    def connect(self, table: Table, ws: Socket) -> Conn:
        conn = Conn(ws, table)
        table.conns.add(conn)
        table.touched = time.monotonic()
        conn.writer = asyncio.create_task(self._write(conn))
        return conn

    async def _write(self, conn: Conn) -> None:
        try:
            while True:
                text = await conn.queue.get()
                if text is None:
                    break
                await conn.ws.send_text(text)
        except asyncio.CancelledError:
            raise
        except Exception:
            pass  # the client went away; the reader notices and disconnects
        finally:
            conn.closed = True
        with contextlib.suppress(Exception):
            await conn.ws.close(conn.close_code, "too slow" if conn.close_code == 1008 else None)

    async def disconnect(self, conn: Conn) -> None:
        table = conn.table
        conn.closed = True
        if conn.writer is not None:
            conn.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await conn.writer
        async with table.lock:
            table.conns.discard(conn)
            if conn.authed and conn.seat is not None:
                seat = table.seats[conn.seat]
                seat.conns = max(0, seat.conns - 1)
                if seat.conns == 0:
                    seat.away_since = time.monotonic()
                    self._broadcast_info(table)
                    table.kick.set()
            elif conn.authed:
                self._broadcast_info(table)

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
            await self._hello(conn, msg)
            return
        if not conn.authed:
            raise ProtocolError("not_authenticated", "send a hello message first", msg.id)
        if msg.type == "chat":
            await self._chat(conn, msg)
            return
        if conn.seat is None:
            raise ProtocolError(
                "not_seated", "spectators cannot do that; take a seat to play", msg.id
            )
        if msg.type == "action":
            await self._action(conn, msg)
        elif msg.type == "start":
            await self._start(table, conn, msg)
        elif msg.type == "leave":
            await self._leave(table, conn, msg)
        elif msg.type == "rematch":
            await self._rematch(table, conn, msg)
        elif msg.type == "host":
            await host_command(self, conn, msg)
        elif msg.type == "rematch_join":
            await self._rematch_join(table, conn, msg)
        elif msg.type == "rematch_decline":
            await self._rematch_decline(table, conn, msg)

    async def _hello(self, conn: Conn, msg: ClientMessage) -> None:
        table = conn.table
        if conn.authed:
            raise ProtocolError("bad_message", "hello was already said on this connection", msg.id)
        seat: int | None = None
        if msg.token is not None:
            seat = table.seat_for_token(msg.token)
            if seat is None:
                raise ProtocolError(
                    "bad_token", "this token belongs to no seat at this table", msg.id
                )
        try:
            chat = await asyncio.to_thread(self.store.chat, table.id)
        except Exception:
            # The chat is not worth refusing a player their seat while the database is
            # away: the welcome (the game is in memory) comes without it.
            log.warning("table %s: could not read the chat", table.id, exc_info=True)
            chat = []
        async with table.lock:
            if seat is None and not spectator_may_join(table, self.settings.max_connections):
                # Seated players always get in; only watchers are capped, and sockets
                # that never said hello do not count (they are closed at the deadline).
                conn.send(error("too_many_connections", "this table has too many spectators"))
                conn.close_code = 1013
                with contextlib.suppress(asyncio.QueueFull):
                    conn.queue.put_nowait(None)
                return
            conn.authed = True
            conn.seat = seat
            if seat is not None:
                s = table.seats[seat]
                s.conns += 1
                s.away_since = None
                if s.replaced:
                    s.replaced = False
                    table.kick.set()
            welcome: dict[str, Any] = {
                "type": "welcome",
                "table": table.info(),
                "seat": seat,
                "chat": chat,
                "state": self._state(table, seat, [], log=True),
            }
            if msg.id is not None:
                welcome["id"] = msg.id
            conn.send(welcome)
            self._broadcast_info(table, skip=conn)

    async def _chat(self, conn: Conn, msg: ClientMessage) -> None:
        table = conn.table
        assert msg.text is not None
        text = check_chat(self, conn, msg)
        name = table.seats[conn.seat].name if conn.seat is not None else ""
        try:
            stamp = await asyncio.to_thread(
                self.store.add_chat,
                table.id,
                conn.seat,
                name,
                text,
                self.settings.limits.chat_keep,
            )
        except Exception:
            log.exception("table %s: could not save a chat line", table.id)
            raise ProtocolError("server_error", "could not save the message", msg.id) from None
        line = {
            "type": "chat",
            "seat": conn.seat,
            "name": name,
            "text": text,
            "time": stamp,
            "chatter": chatter_id(table, conn),
        }
        async with table.lock:
            for c in table.conns:
                if c.authed:
                    c.send(line)

    # ------------------------------------------------------------------ lobby (WebSocket)

    async def _start(self, table: Table, conn: Conn, msg: ClientMessage) -> None:
        async with table.lock:
            if table.status != "lobby":
                raise ProtocolError("not_allowed", "the game has already started", msg.id)
            empty = [s.seat for s in table.seats if s.kind == "person" and s.token_hash is None]
            if empty:
                raise ProtocolError(
                    "not_allowed",
                    "seat(s) " + ", ".join(str(s + 1) for s in empty) + " still wait for players",
                    msg.id,
                )
            game = self._new_game(table.settings)
            setup = make_record(game, [], self._record_seats(table))
            try:
                await asyncio.to_thread(self.store.start_game, table.id, setup)
            except Exception:
                log.exception("table %s: could not start", table.id)
                raise ProtocolError("server_error", "could not save the game", msg.id) from None
            table.game = game
            table.status = "playing"
            now = time.monotonic()
            for s in table.seats:
                if s.kind == "person" and s.conns == 0 and s.away_since is None:
                    s.away_since = now  # never connected: the away clock starts now
            game.collect_events()
            conn.send({"type": "ack", "seq": 0, **({"id": msg.id} if msg.id is not None else {})})
            self._broadcast_info(table)
            self._clock_tick(table, time.monotonic())
            self._broadcast_state(table, [], full=True)
            self._start_pump(table)

    def _new_game(self, settings: dict[str, Any]) -> Game:
        seed = settings.get("seed")
        return Game.new(
            settings["rules"],
            settings["players"],
            options=settings.get("options") or {},
            # 128 bits: a player's own cards must not single out the seed (and with it
            # every hand and draw); the seed leaves the server only in the finished
            # game's record.
            seed=int(seed) if seed is not None else fresh_seed(),
            deck=settings.get("deck"),
        )

    def _record_seats(self, table: Table) -> list[dict[str, Any]]:
        return [
            {"kind": s.kind, **({"bot": s.bot} if s.kind == "bot" else {}), "name": s.name}
            for s in table.seats
        ]

    async def _leave(self, table: Table, conn: Conn, msg: ClientMessage) -> None:
        async with table.lock:
            assert conn.seat is not None
            seat = table.seats[conn.seat]
            before = seat.stored()
            if table.status == "lobby":
                seat.name, seat.token_hash = "", None
            elif table.status == "playing":
                # For good: a bot plays the seat to the end of the game.
                seat.kind, seat.bot, seat.token_hash = "bot", self.settings.substitute, None
            else:
                raise ProtocolError("not_allowed", "the game is over", msg.id)
            try:
                await asyncio.to_thread(self.store.save_seats, table.id, [seat.stored()])
            except Exception:
                seat.kind, seat.bot, seat.name, seat.token_hash = (
                    before.kind,
                    before.bot,
                    before.name,
                    before.token_hash,
                )
                raise ProtocolError("server_error", "could not save; try again", msg.id) from None
            for c in table.conns:
                if c.seat == seat.seat:
                    c.seat = None
            seat.conns = 0
            seat.replaced = False
            conn.send({"type": "left", **({"id": msg.id} if msg.id is not None else {})})
            self._broadcast_info(table)
            if table.status == "playing":
                self._broadcast_state(table, [])
                table.kick.set()

    async def _rematch(self, table: Table, conn: Conn, msg: ClientMessage) -> None:
        """Propose a rematch: a new table in the lobby with the same settings and bots.

        Its proposer takes their old seat there at once; every other person is invited
        (``rematch_invite``) and joins or declines by choice (``rematch_join``,
        ``rematch_decline``: a bot then takes the seat); spectators stay where they are.
        """
        assert conn.seat is not None
        async with table.lock:
            if table.status != "over":
                raise ProtocolError(
                    "not_allowed", "a rematch is possible once the game is over", msg.id
                )
            if table.rematch is None:
                live = sum(1 for t in self.tables.values() if t.status in ("lobby", "playing"))
                if live >= self.settings.max_tables:
                    raise ProtocolError(
                        "rate_limited", "the server has too many open tables; try later", msg.id
                    )
                open_ids = [t.id for t in self.tables.values() if t.status in ("lobby", "playing")]
                refused = self.guard.may_create(conn.address, open_ids)
                if refused is not None:  # a rematch is a new table of the asker's
                    raise ProtocolError("rate_limited", refused[0], msg.id)
                settings = {k: v for k, v in table.settings.items() if k not in ("seed", "deck")}
                seats = [
                    Seat(s.seat, s.kind, s.bot, "")
                    if s.kind == "person"
                    else Seat(s.seat, s.kind, s.bot, s.name)
                    for s in table.seats
                ]
                new = Table(
                    id=new_id(),
                    created=time.time(),
                    status="lobby",
                    settings=settings,
                    seats=seats,
                    rematch_of=table.id,
                )
                stored = StoredTable(
                    new.id, new.created, "lobby", settings, [s.stored() for s in seats]
                )
                try:
                    await asyncio.to_thread(self.store.set_rematch, table.id, stored)
                except Exception:
                    log.exception("table %s: could not create the rematch", table.id)
                    raise ProtocolError(
                        "server_error", "could not save; try again", msg.id
                    ) from None
                self.tables[new.id] = new
                self.guard.creators[new.id] = conn.address
                table.rematch = new.id
                for c in table.conns:
                    if c.authed and c.seat is not None and c.seat != conn.seat:
                        c.send({"type": "rematch_invite", "table": new.id, "from": conn.seat})
                self._broadcast_info(table)
        await self._rematch_join(table, conn, msg)

    async def _rematch_table(self, table: Table, msg: ClientMessage) -> Table:
        new = await self.get(table.rematch) if table.rematch is not None else None
        if new is None:
            raise ProtocolError("not_allowed", "there is no rematch to answer", msg.id)
        return new

    async def _rematch_join(self, table: Table, conn: Conn, msg: ClientMessage) -> None:
        """Take one's old seat at the rematch (a fresh token, sent to this connection)."""
        assert conn.seat is not None
        new = await self._rematch_table(table, msg)
        seat = table.seats[conn.seat]
        taken = new.seats[conn.seat]
        if taken.kind == "person" and taken.token_hash is not None:
            raise ProtocolError("not_allowed", "that seat at the rematch is taken", msg.id)
        if new.status != "lobby" or taken.kind != "person":
            raise ProtocolError("not_allowed", "the rematch has no seat for you", msg.id)
        try:
            _number, token = await self.join(new, seat.name, conn.seat)
        except LobbyError as exc:
            raise ProtocolError("not_allowed", exc.message, msg.id) from None
        answer: dict[str, Any] = {"type": "rematch", "table": new.id, "token": token}
        if msg.id is not None:
            answer["id"] = msg.id
        conn.send(answer)

    async def _rematch_decline(self, table: Table, conn: Conn, msg: ClientMessage) -> None:
        """Decline the rematch: a bot takes this player's seat there."""
        assert conn.seat is not None
        new = await self._rematch_table(table, msg)
        async with new.lock:
            seat = new.seats[conn.seat]
            if new.status != "lobby" or seat.kind != "person" or seat.token_hash is not None:
                raise ProtocolError("not_allowed", "that seat at the rematch is taken", msg.id)
            seat.kind, seat.bot = "bot", self.settings.substitute
            try:
                await asyncio.to_thread(self.store.save_seats, new.id, [seat.stored()])
            except Exception:
                seat.kind, seat.bot = "person", ""
                raise ProtocolError("server_error", "could not save; try again", msg.id) from None
            self._broadcast_info(new)
        notice = {"type": "rematch_declined", "seat": conn.seat, "table": new.id}
        async with table.lock:
            for c in table.conns:
                if c.authed:
                    c.send(notice if c is not conn or msg.id is None else {**notice, "id": msg.id})

    # ------------------------------------------------------------------ actions

    async def _action(self, conn: Conn, msg: ClientMessage) -> None:
        table = conn.table
        assert msg.action is not None
        try:
            action = Action.from_json(msg.action)
        except RecordError as exc:
            raise ProtocolError("bad_action", str(exc), msg.id) from None
        async with table.lock:
            seat = conn.seat
            if seat is None:
                raise ProtocolError("not_seated", "spectators cannot act", msg.id)
            try:
                await self._resync(table)
            except Exception:
                log.exception("table %s: could not read the record back", table.id)
                raise ProtocolError(
                    "server_error", "the move could not be saved; nothing changed", msg.id
                ) from None
            game = table.game
            if table.status == "lobby" or game is None:
                raise ProtocolError("not_started", "the game has not started yet", msg.id)
            if game.over:
                raise ProtocolError("game_over", "the game is over", msg.id)
            try:
                game.check(seat, action)
            except IllegalAction as exc:
                conn.send(refusal_message(game, seat, action, exc, msg.id))
                return
            try:
                events = await self._commit(table, seat, action)
            except IllegalAction as exc:
                conn.send(refusal_message(game, seat, action, exc, msg.id))
                return
            except Exception:
                log.exception("table %s: could not save an action", table.id)
                raise ProtocolError(
                    "server_error", "the move could not be saved; nothing changed", msg.id
                ) from None
            ack: dict[str, Any] = {"type": "ack", "seq": table.seq}
            if msg.id is not None:
                ack["id"] = msg.id
            conn.send(ack)
            if table.trade is not None and action.type in _TRADE_ACTIONS:
                table.trade.settled = False
                table.trade.rounds = 0
            self._after(table, events)

    async def _commit(self, table: Table, seat: int, action: Action) -> list[Event]:
        """Carry out ``action`` on a clone, store it, then install the clone. Raises (and
        changes nothing) if the action is illegal or the database write fails."""
        assert table.game is not None
        game = table.game.clone()
        events = game.apply(seat, action)
        result = game.result() if game.over else None
        try:
            await asyncio.to_thread(
                self.store.append_actions, table.id, table.seq, [(seat, action.to_json())], result
            )
        except Exception:
            table.unsure = True
            raise
        table.game = game
        table.actions.append((seat, action))
        table.events += events
        if game.over:
            table.status = "over"
        return events

    async def _resync(self, table: Table) -> None:
        """After a failed write (``table.unsure``), read the stored record back: a write
        whose connection broke during the commit may have been committed after all. Its
        actions are then installed and broadcast (nobody was told of them), so memory and
        database agree again; otherwise every later write would fail on its sequence
        number. Raises if the database is still unavailable (and stays unsure)."""
        if not table.unsure or table.game is None:
            return
        stored = await asyncio.to_thread(self.store.load, table.id)
        table.unsure = False
        if stored is None or len(stored.actions) <= table.seq:
            return
        game = table.game.clone()
        done: list[tuple[int, Action]] = []
        events: list[Event] = []
        for seat, raw in stored.actions[table.seq :]:
            action = Action.from_json(raw)
            events += game.apply(seat, action)
            done.append((seat, action))
        log.warning(
            "table %s: %d action(s) thought unsaved were saved; installed", table.id, len(done)
        )
        table.game = game
        table.actions += done
        table.events += events
        if game.over:
            table.status = "over"
        self._after(table, events)

    # ------------------------------------------------------------------ what clients get

    def _state(
        self,
        table: Table,
        seat: int | None,
        events: Sequence[Event],
        log: bool = False,
        full: bool = False,
        view: View | None = None,
    ) -> dict[str, Any] | None:
        game = table.game
        if game is None:
            return None
        out: dict[str, Any] = {
            "type": "state",
            "seq": table.seq,
            "view": (view if view is not None else game.view(seat)).to_json(),
            "varieties": list(game.config.varieties),
            "trading": game.hooks.trading,
            "events": [e.for_seat(seat) for e in events],
            "legal": [a.to_json() for a in game.legal_actions(seat, offers=False)]
            if seat is not None
            else [],
        }
        out.update(self._clock_view(table))
        if log:
            out["log"] = [e.for_seat(seat) for e in table.events[-LOG_ON_CONNECT:]]
        if full or log:
            out["cards"] = card_table(game)
        return out

    def _broadcast_state(self, table: Table, events: Sequence[Event], full: bool = False) -> None:
        """Every connection's ``state`` after an action: the hot path of play.

        Each seat's message is what ``_state`` gives for it, encoded once per seat. The
        public seat parts (fields, coins, trade areas: the bulk of a view) are the same
        for every seat, so they are built and encoded once, and each seat's view is
        encoded without them and gets the shared text spliced in at its place: the same
        bytes as encoding the whole state, in a third of the time for four seats.
        """
        game = table.game
        if game is None:
            return
        conns = [c for c in table.conns if c.authed and not c.closed]
        if not conns:
            return
        public = game.view(None)
        shared: list[SeatView | None] = list(public.seats)
        seats_json = dumps(public.seats_json())
        texts: dict[int | None, str] = {}
        for conn in conns:
            text = texts.get(conn.seat)
            if text is None:
                view = make_view(game, conn.seat, shared)._replace(seats=())
                state = self._state(table, conn.seat, events, full=full, view=view)
                assert state is not None
                state["view"]["seats"] = _SEATS_MARK
                text = dumps(state).replace(_SEATS_MARK_JSON, seats_json, 1)
                texts[conn.seat] = text
            conn.send_text(text)

    def _after(self, table: Table, events: Sequence[Event]) -> None:
        """Tell everybody about a committed action, then let the pump look again."""
        notes = self._clock_tick(table, time.monotonic())
        self._broadcast_state(table, [*events, *notes])
        if table.status == "over":
            self._broadcast_info(table)
        table.kick.set()

    def _broadcast_info(self, table: Table, skip: Conn | None = None) -> None:
        info = {"type": "table", "table": table.info()}
        for conn in table.conns:
            if conn.authed and conn is not skip:
                conn.send(info)

    # ------------------------------------------------------------------ clocks

    def _clock_tick(self, table: Table, now: float) -> list[Event]:
        """Bring the table's clocks up to ``now`` (web/clocks.py); the timeout notes it
        returns are in the log already."""
        game = table.game
        if game is None:
            return []
        stale = table.trade is None or table.trade.turn != game.turn
        if game.phase == TRADE and not game.over and stale:
            table.trade = TradeState(game.turn, now)
        if table.clocks is None:
            spec = parse_clock(str(table.settings.get("clock") or "none"), True)
            if spec is None:
                return []
            people = frozenset(s.seat for s in table.seats if s.kind == "person")
            table.clocks = Clocks.new(spec, game.players, people)
        table.clocks.people = frozenset(s.seat for s in table.seats if s.kind == "person")
        notes = table.clocks.update(game, now)
        table.events += notes
        return notes

    def _clock_view(self, table: Table) -> dict[str, Any]:
        """The clocks and the trading countdown, for a ``state`` message."""
        game = table.game
        out: dict[str, Any] = {}
        now = time.monotonic()
        if table.clocks is not None:
            out["clock"] = table.clocks.snapshot(now)
        limit = float(table.settings.get("trade_limit") or 0)
        ts = table.trade
        if (
            limit > 0
            and game is not None
            and game.phase == TRADE
            and ts is not None
            and ts.turn == game.turn
        ):
            out["trade_left"] = round(max(0.0, ts.started + limit - now), 1)
        return out

    # ------------------------------------------------------------------ the pump

    def _start_pump(self, table: Table) -> None:
        if table.pump is None or table.pump.done():
            table.pump = asyncio.create_task(self._pump(table), name=f"pump-{table.id}")
            table.kick.set()

    async def _pump(self, table: Table) -> None:
        failures = 0
        while not self._closing:
            table.kick.clear()
            wake: float | None = None
            acted = False
            async with table.lock:
                if table.status != "playing" or table.game is None or table.game.over:
                    return
                now = time.monotonic()
                step: tuple[int, Action, bool] | None = None
                try:
                    # The pump must outlive a database outage (and any surprise): it
                    # tries again later, sooner when a person acts (the kick).
                    await self._resync(table)
                    if table.status != "playing" or table.game.over:
                        return
                    step, wake = await self._auto_step(table, now)
                    if step is not None:
                        events = await self._commit(table, step[0], step[1])
                except IllegalAction as exc:  # _ask checked it: not expected
                    log.error("table %s: a bot is stuck: %s", table.id, exc)
                    return
                except Exception:
                    failures += 1
                    log.exception("table %s: could not take an automatic step", table.id)
                    step = None
                    wake = now + min(RETRY_MAX, 0.25 * 2**failures)
                else:
                    if step is not None:
                        seat = step[0]
                        failures = 0
                        acted = True
                        if (
                            table.trade is not None
                            and table.game.phase == TRADE
                            and table.trade.turn == table.game.turn
                        ):
                            table.trade.acted = True
                            table.trade.actions[seat] = table.trade.actions.get(seat, 0) + 1
                        self._after(table, events)
            if acted:
                await asyncio.sleep(self.settings.bot_delay)
                continue
            timeout = None if wake is None else max(0.0, wake - time.monotonic()) + 0.01
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(table.kick.wait(), timeout)

    async def _auto_step(
        self, table: Table, now: float
    ) -> tuple[tuple[int, Action, bool] | None, float | None]:
        """The next automatic action (seat, action, required) and when to look again."""
        game = table.game
        assert game is not None
        wakes: list[float] = []
        notes = self._clock_tick(table, now)
        if notes:  # "time ran out: the bot plays for ...", before the bot's move
            self._broadcast_state(table, notes)
        bots = self._bot_seats(table, now, wakes)
        if table.clocks is not None:
            bots |= table.clocks.bot_seats(game)
            due = table.clocks.due()
            if due is not None:
                wakes.append(due)
        if game.pending is not None:
            seat = game.pending[0]
            if seat in bots:
                choice = await self._ask(table, seat, True)
                if choice is not None:
                    return (seat, choice, True), None
            return None, min(wakes, default=None)
        if game.phase != TRADE:
            table.trade = None
            for seat in game.waiting_for():
                if seat in bots:
                    choice = await self._ask(table, seat, True)
                    if choice is not None:
                        return (seat, choice, True), None
            return None, min(wakes, default=None)
        ts = table.trade
        if ts is None or ts.turn != game.turn:
            ts = table.trade = TradeState(game.turn, now)
        limit = float(table.settings.get("trade_limit") or 0)
        if limit > 0:
            if now >= ts.started + limit:
                note = Event("trade_time_up", game.active, {}, None)
                table.events.append(note)
                self._broadcast_state(table, [note])
                return (game.active, Action.end_trading(), True), None
            wakes.append(ts.started + limit)
        # An offer to a bot gets an answer at once (accept or decline, the bot's choice;
        # a bot past its budget declines), so that no person waits on a bot.
        for oid, (_proposer, offer) in sorted(game.offers.items()):
            if offer.to in bots:
                answers = [
                    a
                    for a in game.legal_actions(offer.to, offers=False)
                    if a.offer_id == oid and a.type in (ActionType.ACCEPT, ActionType.DECLINE)
                ]
                answer: Action | None = None
                if ts.actions.get(offer.to, 0) < BOT_TRADE_ACTIONS and answers:
                    answer = await self._ask(table, offer.to, True, answers)
                return (offer.to, answer or Action.decline(oid), False), None
        n = game.players
        guard = 0
        while not ts.settled and guard < 3 * n + 3:
            guard += 1
            if ts.pos >= n:
                ts.rounds += 1
                ts.pos = 0
                if not ts.acted or ts.rounds >= BOT_TRADE_ROUNDS:
                    ts.settled = True
                    ts.settled_at = now
                ts.acted = False
                continue
            seat = (game.active + ts.pos) % n
            ts.pos += 1
            if seat not in bots or ts.actions.get(seat, 0) >= BOT_TRADE_ACTIONS:
                continue
            choice = await self._ask(table, seat, False)
            if choice is not None:
                return (seat, choice, False), None
        if ts.settled and game.active in bots:
            with_people = any(p not in bots or o.to not in bots for p, o in game.offers.values())
            due = ts.settled_at + (
                self.settings.bot_wait if with_people else self.settings.bot_grace
            )
            if now >= due:
                return (game.active, Action.end_trading(), True), None
            wakes.append(due)
        return None, min(wakes, default=None)

    def _bot_seats(self, table: Table, now: float, wakes: list[float]) -> set[int]:
        """Seats played by a bot now: bot seats, and people away for too long."""
        out: set[int] = set()
        changed = False
        for seat in table.seats:
            if seat.kind == "bot":
                out.add(seat.seat)
            elif seat.conns == 0 and seat.away_since is not None:
                due = seat.away_since + self.settings.away_timeout
                if now >= due:
                    out.add(seat.seat)
                    if not seat.replaced:
                        seat.replaced = changed = True
                else:
                    wakes.append(due)
        if changed:
            self._broadcast_info(table)
        return out

    async def _ask(
        self,
        table: Table,
        seat: int,
        required: bool,
        only: list[Action] | None = None,
    ) -> Action | None:
        """The decision of the bot playing ``seat`` (among ``only``, if given)."""
        game = table.game
        assert game is not None
        s = table.seats[seat]
        kind = s.bot if s.kind == "bot" else self.settings.substitute
        agent = table.agents.get((seat, kind))
        if agent is None:
            seed = int(table.settings.get("seed", 0) or 0)
            # A table saved before a restart may name a bot no longer allowed: the
            # substitute plays that seat instead.
            allowed = kind if kind in self.settings.bots() else self.settings.substitute
            agent = make_agent(allowed, table_agent_seed(seed, seat, table.seq))
            table.agents[(seat, kind)] = agent
        legal = (
            only if only is not None else game.legal_actions(seat, agent.wants_offers(game.turn))
        )
        if not legal:
            return None
        try:
            # Off the event loop, in the bots' own pools (the database's threads stay
            # free): a searching bot may think for a while, and the server must go on
            # serving other tables meanwhile. The table's lock is held, so the game does
            # not change under it (the view is an immutable copy anyway).
            choice = await self.bots.decide(
                self, table, seat, kind, game.view(seat), legal, required
            )
        except Exception:
            log.exception("table %s: bot at seat %d failed", table.id, seat)
            choice = None
        if choice is not None and choice not in legal and not game.is_legal(seat, choice):
            log.warning("table %s: bot at seat %d chose %r, illegal", table.id, seat, choice)
            choice = None
        if choice is None and required:
            choice = legal[0]
        return choice

    # ------------------------------------------------------------------ replays

    def replay_frame(self, table: Table, step: int) -> dict[str, Any]:
        """The finished game after ``step`` actions, with everything revealed."""
        if table.status != "over" or table.game is None:
            raise LobbyError("a replay is shown once the game is over", 403, "not_over")
        total = table.seq
        if not 0 <= step <= total:
            raise LobbyError(f"step must be 0 to {total}", 400)
        game = self._new_game_from_record(table)
        events: list[Event] = []
        for i, (seat, action) in enumerate(table.actions[:step]):
            if i == step - 1:
                events = game.apply(seat, action)
            else:
                game.apply_fast(seat, action)
        view = game.view(None)
        cj = view.card_json
        last = table.actions[step - 1] if step > 0 else None
        return {
            "step": step,
            "total": total,
            "action": {"seat": last[0], **last[1].to_json()} if last is not None else None,
            "events": [e.to_json() for e in events],
            "view": view.to_json(),
            "hands": [[cj(c) for c in h] for h in game.hands],
            "offers": [
                {
                    "offer_id": oid,
                    "proposer": p,
                    "to": o.to,
                    "give": [cj(c) for c in o.give],
                    "declared": list(o.declared),
                    "want": [list(w) for w in o.want],
                }
                for oid, (p, o) in game.offers.items()
            ],
            "varieties": list(game.config.varieties),
            "cards": card_table(game),
        }

    def _new_game_from_record(self, table: Table) -> Game:
        assert table.game is not None
        g = table.game
        return Game.new(
            g.config.rules,
            g.players,
            options=dict(g.config.options),
            seed=g.seed,
            deck=list(g.initial_deck),
            generator=g.generator,
        )

    def record(self, table: Table) -> dict[str, Any]:
        if table.status != "over" or table.game is None:
            raise LobbyError("the record is shown once the game is over", 403, "not_over")
        return make_record(table.game, table.actions, self._record_seats(table))


def refusal_message(
    game: Game, seat: int, action: Action, exc: IllegalAction, msg_id: str | int | None
) -> dict[str, Any]:
    """An ``illegal`` error with the refusal as data (``refusal``: code, rule, 1-based
    params), so that the page words it in its own language; ``message`` stays the
    engine's English for programs."""
    out = error("illegal", str(exc), msg_id, exc.rule)
    out["refusal"] = explain(game, seat, action, exc).to_json()
    return out


def card_table(game: Game) -> list[list[str]]:
    """The public card table: card id -> [variety, kind] (R-INFO: which card is where is
    private, what a card id stands for is not)."""
    config = game.config
    return [[config.variety_of(c), config.card_kind[c]] for c in range(config.deck_size)]


#: Where a broadcast splices in the shared seat parts (a string no view can hold).
_SEATS_MARK = f"\x00seats-{secrets.token_hex(8)}"
_SEATS_MARK_JSON = json.dumps(_SEATS_MARK, ensure_ascii=False)

_TRADE_ACTIONS = frozenset(
    (ActionType.PROPOSE, ActionType.ACCEPT, ActionType.DECLINE, ActionType.WITHDRAW)
)
