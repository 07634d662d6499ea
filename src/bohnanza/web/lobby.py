"""The lobby: tables, seats and their tokens, starting a game, leaving, rematches.

Tables are created over HTTP (``create_table``, ``join``) and started, left and
rematched over their WebSocket (``start_game``, ``leave``, ``rematch``...). A seat's
token is shown once, to whoever took the seat; the server keeps only its hash. The
per-address limits (``web/limits.py``) are checked by the callers that know the address.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import secrets
import time
from collections.abc import Sequence
from typing import Any

from ..agents import DEFAULT_BOT
from ..errors import ConfigError, RecordError
from ..game import Game
from ..records import make_record
from ..rules import make_config
from ..shuffle import fresh_seed
from .clocks import parse_clock
from .leases import Elsewhere, LeaseLost, Leases
from .limits import Guard
from .model import Conn, LobbyError, Seat, Settings, Table, ban_key, hash_token, new_id
from .protocol import ClientMessage, ProtocolError, clean_name
from .pump import Pump, TradeState, clock_tick
from .ratings import RATED_BOTS
from .replays import rebuild, record_seats
from .session import Session
from .standin import NOT_STAND_INS, stand_in_bot
from .store import Store, StoredTable
from .turns import live_state, resume_live, to_move

log = logging.getLogger("bohnanza.web")

#: Finished tables kept in memory without connections.
KEEP_FINISHED = 200
#: What a lobby request gets while the database cannot be reached (HTTP 503).
#: The tables the lobby list shows (the newest first).
LISTED = 60
UNAVAILABLE = "the database is unavailable; try again in a moment"
#: Settings a rematch does not take over from its table.
NOT_REMATCHED = frozenset(("seed", "deck", "host", "host_token", "muted", "mute_links", "banned"))


class Lobby:
    """Every live table, and the requests that make, fill, start and leave them."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        tables: dict[str, Table],
        guard: Guard,
        session: Session,
        pump: Pump,
        leases: Leases | None = None,
    ) -> None:
        self.settings = settings
        self.leases = leases
        self.store = store
        self.tables = tables
        self.guard = guard
        self.session = session
        self.pump = pump
        # Tables being saved by create_table (admitted, not yet in ``tables``): counted
        # against max_tables, or concurrent creations would all pass the check at once.
        self.creating = 0
        self.rebuilding = asyncio.Lock()  # tables read back from the database, one at a time

    def resume(self) -> None:
        """Load every unfinished table and resume its game where it was."""
        now = time.monotonic()
        for stored in self.store.unfinished():
            if self.leases is not None:
                try:
                    if self.leases.acquire(stored.id) is not None:
                        continue  # another live server instance plays it
                except LeaseLost:
                    continue
            table = self.from_stored(stored)
            for seat in table.seats:
                # (A seat the stand-in played keeps its time away: resume_live.)
                if seat.kind == "person" and seat.token_hash is not None and not seat.replaced:
                    seat.away_since = now
            self.tables[table.id] = table
            if table.status == "playing":
                self.pump.start(table)
        if self.tables:
            log.info("resumed %d unfinished table(s)", len(self.tables))

    def from_stored(self, stored: StoredTable) -> Table:
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
        host = table.settings.get("host")
        if "host_token" not in table.settings and isinstance(host, int) and host < len(seats):
            # Saved when the host was a seat number: the role goes to that seat's person.
            table.settings["host_token"] = seats[host].token_hash
        table.settings.pop("host", None)
        table.pass_host()
        if stored.setup is not None:
            try:
                table.game, table.actions, table.events = rebuild(stored.setup, stored.actions)
                trade = resume_live(table, stored)  # clocks, countdown, stand-ins: as they were
                if trade is not None:
                    table.trade = TradeState(*trade)
            except RecordError as exc:
                log.error("table %s cannot be resumed: %s", stored.id, exc)
                table.status = "broken"
                table.game = None
        return table

    # ------------------------------------------------------------------ HTTP

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
        """A new table in the lobby; its creator takes the first seat for a person and is
        its host. ``stand_in`` is the bot that plays for people away, timed out or
        resigned (``Settings.substitute`` if not given). ``rated``: ``people`` or
        ``bots`` rates the accounts' seats when the game ends (web/ratings.py)."""
        live = sum(1 for t in self.tables.values() if t.status in ("lobby", "playing"))
        if live + self.creating >= self.settings.max_tables:
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
        quick = [b for b in self.settings.bots() if b not in NOT_STAND_INS]
        if stand_in is not None and stand_in not in quick:
            raise LobbyError(f"unknown stand-in bot {stand_in!r}; stand-ins: {', '.join(quick)}")
        if clock_spec is not None and trade_limit == 0:
            trade_limit = clock_spec.trade
        if (seed is not None or deck is not None) and not self.settings.testing:
            raise LobbyError("seed and deck can only be fixed on a test server")
        settings: dict[str, Any] = {
            "rules": rules,
            "players": players,
            "options": dict(options),
            "trade_limit": trade_limit,
            "stand_in_bot": stand_in or self.settings.substitute,
        }
        if private:
            settings["private"] = True
        if rated not in ("no", "people", "bots"):
            raise LobbyError("rated is 'no', 'people' or 'bots'")
        if rated != "no":
            settings["rated"] = rated
        weak = sorted({s.bot for s in made if s.kind == "bot" and s.bot not in RATED_BOTS})
        if rated == "bots" and weak:
            raise LobbyError(
                f"a table rated with its bots seats bots worth beating ({', '.join(RATED_BOTS)}),"
                f" not {', '.join(weak)}",
                400,
                "weak_bots",
            )
        if coach:  # coach mode (issue 36, web/coaching.py): the host's choice
            if rated != "no":
                raise LobbyError("coach mode is for casual tables: a rated table has no coach")
            settings["coach"] = True
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
        first.take(clean_name(name, f"Player {first.seat + 1}"), hash_token(token), address)
        table.settings["host_token"] = first.token_hash
        first.away_since = time.monotonic()  # the away clock runs until they connect
        # Counted, server-wide and among its creator's tables, while it is saved: no await
        # between the callers' checks (``max_tables`` above, ``Guard.may_create``) and this.
        self.creating += 1
        try:
            with self.guard.creating(address):
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
        finally:
            self.creating -= 1
        self.tables[table.id] = table
        if address:
            self.guard.creators[table.id] = address
        return table, first.seat, token

    async def join(
        self,
        table: Table,
        name: str,
        seat: int | None,
        address: str = "",
        *,
        invited: bool = False,
    ) -> tuple[int, str]:
        """Take an open seat for a person (the first one, or ``seat``). A rematch seat
        held for its invited player is taken only through ``rematch_join`` (``invited``);
        an address the host removed from this table takes no seat there."""
        async with table.lock:
            if table.status != "lobby":
                raise LobbyError("the game has started; you can watch it", 409, "started")
            if address and ban_key(table.id, address) in table.settings.get("banned", ()):
                raise LobbyError("the host removed you from this table", 403, "banned")
            open_seats = [s for s in table.seats if s.kind == "person" and s.token_hash is None]
            if seat is not None:
                open_seats = [s for s in open_seats if s.seat == seat]
            free = open_seats if invited else [s for s in open_seats if not table.reserved(s)]
            if not free:
                if open_seats:
                    raise LobbyError(
                        "the seat is held for a player invited to this rematch; try again "
                        "in a few minutes",
                        409,
                        "seat_reserved",
                    )
                if seat is None:
                    raise LobbyError("no open seat", 409, "no_open_seat")
                raise LobbyError(f"seat {seat} is not open", 409, "seat_not_open")
            chosen = free[0]
            token = secrets.token_urlsafe(24)
            chosen.take(clean_name(name, f"Player {chosen.seat + 1}"), hash_token(token), address)
            if chosen.conns == 0:
                chosen.away_since = time.monotonic()  # until they connect (or never)
            before = table.settings
            table.pass_host()  # a table without a host: this person becomes it
            try:
                # In a thread: a locked database must not stop the event loop.
                await asyncio.to_thread(self.store.save_seats, table.id, [chosen.stored()])
                if table.settings is not before:
                    await asyncio.to_thread(self.store.save_settings, table.id, table.settings)
            except Exception:
                chosen.name, chosen.token_hash = "", None
                table.settings = before
                log.exception("table %s: could not save a seat", table.id)
                raise LobbyError("could not save the seat; try again", 503, "save_failed") from None
            self.session.broadcast_info(table)
            return chosen.seat, token

    async def get(self, table_id: str) -> Table | None:
        """A table from memory, or read back from the database (raises Elsewhere if
        another live server instance owns it, web/leases.py)."""
        table = self.tables.get(table_id)
        if table is not None or len(table_id) > 32:
            return table
        if self.leases is not None:
            try:
                owner = await asyncio.to_thread(self.leases.acquire, table_id)
            except LeaseLost:  # another instance won it just now: ask again
                owner = await asyncio.to_thread(self.leases.acquire, table_id)
            except Exception:
                log.exception("could not take table %s", table_id)
                raise LobbyError(UNAVAILABLE, 503, "unavailable") from None
            if owner is not None:
                raise Elsewhere(owner)
        try:
            stored = await asyncio.to_thread(self.store.load, table_id)
        except Exception:
            log.exception("could not load table %s", table_id)
            raise LobbyError(UNAVAILABLE, 503, "unavailable") from None
        if stored is None:
            return None
        # Replaying a finished game's record takes milliseconds per hundred actions: on
        # the event loop, a claim naming 19 finished tables stalled every table for
        # 208 ms (issue 51). In a thread, one at a time, the loop keeps its turns.
        async with self.rebuilding:
            table = self.tables.get(table_id)  # loaded meanwhile
            if table is None:
                table = await asyncio.to_thread(self.from_stored, stored)
                self.tables[table.id] = table
                self.evict()
                if self.leases is not None and table.status == "playing":
                    # Taken over from an instance that is gone: its people reconnect.
                    now = time.monotonic()
                    for seat in table.seats:
                        person = seat.kind == "person" and seat.token_hash is not None
                        if person and not seat.replaced:
                            seat.away_since = now
                    self.pump.start(table)
        return table

    def evict(self) -> None:
        done = [t for t in self.tables.values() if t.status in ("over", "broken") and not t.conns]
        if len(done) > KEEP_FINISHED:
            done.sort(key=lambda t: t.touched)
            for t in done[: len(done) - KEEP_FINISHED]:
                del self.tables[t.id]

    async def recent(self) -> list[dict[str, Any]]:
        """Open and recent tables, for the lobby list."""
        # Only the newest LISTED live tables are described: a server with a thousand
        # tables spent tens of milliseconds of the event loop on ``info()`` for tables
        # the list then cut off (issue 51).
        open_ = [
            t
            for t in self.tables.values()
            if t.status in ("lobby", "playing") and not t.settings.get("private")
        ]
        newest = heapq.nlargest(LISTED, open_, key=lambda t: t.created)
        out: dict[str, dict[str, Any]] = {t.id: t.info() for t in newest}
        try:
            recent = await asyncio.to_thread(self.store.recent, LISTED)
        except Exception:
            log.exception("could not list the recent tables")
            raise LobbyError(UNAVAILABLE, 503, "unavailable") from None
        for stored in recent:
            if stored.id not in out and not stored.settings.get("private"):
                live = self.tables.get(stored.id)
                if live is not None:
                    out[stored.id] = live.info()
                else:
                    out[stored.id] = stored_info(stored)
        return sorted(out.values(), key=lambda t: -float(t["created"]))[:LISTED]

    # ------------------------------------------------------------------ WebSocket

    async def start_game(self, table: Table, conn: Conn, msg: ClientMessage) -> None:
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
            game = fresh_game(table.settings)
            setup = make_record(game, [], record_seats(table))
            try:
                await asyncio.to_thread(
                    self.store.start_game, table.id, setup, live_state(table), to_move(game)
                )
            except Exception:
                log.exception("table %s: could not start", table.id)
                raise ProtocolError("server_error", "could not save the game", msg.id) from None
            table.game = game
            table.status = "playing"
            now = time.monotonic()
            for s in table.seats:
                if s.kind == "person" and s.conns == 0 and s.away_since is None:
                    s.away_since = now  # never connected: the away clock starts now
            game.record_events()
            conn.send({"type": "ack", "seq": 0, **({"id": msg.id} if msg.id is not None else {})})
            self.session.broadcast_info(table)
            clock_tick(table, time.monotonic())
            self.session.broadcast_state(table, [], full=True)
            self.pump.start(table)

    async def leave(self, table: Table, conn: Conn, msg: ClientMessage) -> None:
        async with table.lock:
            assert conn.seat is not None
            seat = table.seats[conn.seat]
            before = seat.stored()
            if table.status == "lobby":
                seat.name, seat.token_hash = "", None
            elif table.status == "playing":
                # For good: a bot plays the seat to the end of the game.
                seat.kind, seat.token_hash = "bot", None
                seat.bot = stand_in_bot(table, self.settings.substitute)
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
                    self.guard.watch(c)
            seat.conns = 0
            seat.replaced = seat.idle = seat.stand_in = False
            seat.votes.clear()
            await self.session.pass_host(table)
            conn.send({"type": "left", **({"id": msg.id} if msg.id is not None else {})})
            self.session.broadcast_info(table)
            if table.status == "playing":
                self.session.broadcast_state(table, [])
                table.kick.set()

    async def rematch(self, table: Table, conn: Conn, msg: ClientMessage) -> None:
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
                if live + self.creating >= self.settings.max_tables:
                    raise ProtocolError(
                        "rate_limited", "the server has too many open tables; try later", msg.id
                    )
                open_ids = [t.id for t in self.tables.values() if t.status in ("lobby", "playing")]
                refused = self.guard.may_create(conn.address, open_ids)
                if refused is not None:  # a rematch is a new table of the asker's
                    raise ProtocolError("rate_limited", refused[0], msg.id)
                # The rematch's own people: its host is its proposer (the first to take a
                # seat there), its mutes and bans start afresh, and its seats are held for
                # the invited players for a while.
                settings = {k: v for k, v in table.settings.items() if k not in NOT_REMATCHED}
                settings["reserved_until"] = time.time() + self.settings.rematch_hold
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
                # Counted while it is saved, as a new table is (no await since the checks).
                self.creating += 1
                try:
                    with self.guard.creating(conn.address):
                        await asyncio.to_thread(self.store.set_rematch, table.id, stored)
                except Exception:
                    log.exception("table %s: could not create the rematch", table.id)
                    raise ProtocolError(
                        "server_error", "could not save; try again", msg.id
                    ) from None
                finally:
                    self.creating -= 1
                self.tables[new.id] = new
                self.guard.creators[new.id] = conn.address
                table.rematch = new.id
                for c in table.conns:
                    if c.authed and c.seat is not None and c.seat != conn.seat:
                        c.send({"type": "rematch_invite", "table": new.id, "from": conn.seat})
                self.session.broadcast_info(table)
        await self.rematch_join(table, conn, msg)

    async def _rematch_table(self, table: Table, msg: ClientMessage) -> Table:
        new = await self.get(table.rematch) if table.rematch is not None else None
        if new is None:
            raise ProtocolError("not_allowed", "there is no rematch to answer", msg.id)
        return new

    async def rematch_join(self, table: Table, conn: Conn, msg: ClientMessage) -> None:
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
            _number, token = await self.join(new, seat.name, conn.seat, conn.address, invited=True)
        except LobbyError as exc:
            raise ProtocolError("not_allowed", exc.message, msg.id) from None
        answer: dict[str, Any] = {"type": "rematch", "table": new.id, "token": token}
        if msg.id is not None:
            answer["id"] = msg.id
        conn.send(answer)

    async def rematch_decline(self, table: Table, conn: Conn, msg: ClientMessage) -> None:
        """Decline the rematch: a bot takes this player's seat there."""
        assert conn.seat is not None
        new = await self._rematch_table(table, msg)
        async with new.lock:
            seat = new.seats[conn.seat]
            if new.status != "lobby" or seat.kind != "person" or seat.token_hash is not None:
                raise ProtocolError("not_allowed", "that seat at the rematch is taken", msg.id)
            seat.kind, seat.bot = "bot", stand_in_bot(new, self.settings.substitute)
            try:
                await asyncio.to_thread(self.store.save_seats, new.id, [seat.stored()])
            except Exception:
                seat.kind, seat.bot = "person", ""
                raise ProtocolError("server_error", "could not save; try again", msg.id) from None
            self.session.broadcast_info(new)
        notice = {"type": "rematch_declined", "seat": conn.seat, "table": new.id}
        async with table.lock:
            for c in table.conns:
                if c.authed:
                    c.send(notice if c is not conn or msg.id is None else {**notice, "id": msg.id})


def fresh_game(settings: dict[str, Any]) -> Game:
    """A new game for a table's settings, shuffled with a fresh seed unless a test fixed one."""
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


def stored_info(stored: StoredTable) -> dict[str, Any]:
    """A table's public facts as stored (a table no instance holds in memory here: the
    lobby list's older tables, "your games" of a table another instance owns)."""
    return {
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
