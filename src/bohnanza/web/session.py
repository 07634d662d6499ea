"""A table's game session: its connections, what they say, and what they are told.

Each action is carried out on a clone of the game, committed to the database, and only
then installed, acknowledged and broadcast (a failed commit changes nothing); a write
that failed may have been committed after all, so the stored record is read back before
the next one (:meth:`Session.resync`). What every client gets is computed for its seat
alone: ``game.view(seat)`` and ``Event.for_seat(seat)`` (R-INFO-3); spectators get the
spectator view. Bots' actions come through the same :meth:`Session.commit` (from the
pump, ``web/pump.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..actions import Action, ActionType
from ..errors import IllegalAction, RecordError
from ..events import Event
from ..game import Game
from ..records import replay
from ..refusals import explain
from ..views import SeatView, View, make_view
from .leases import LeaseLost
from .limits import Guard
from .model import Conn, Settings, Socket, Table, hash_token
from .protocol import ClientMessage, ProtocolError, dumps, error
from .pump import clock_tick, clock_view
from .replays import card_table, stored_record
from .standin import person_back, track
from .store import Store
from .turns import live_state, to_move
from .upkeep import chatter_id, check_chat, spectator_may_join

log = logging.getLogger("bohnanza.web")

#: Events sent to a client that (re)connects: the end of the game's log.
LOG_ON_CONNECT = 400

#: Where a broadcast splices in the shared seat parts (a string no view can hold).
_SEATS_MARK = f"\x00seats-{secrets.token_hex(8)}"
_SEATS_MARK_JSON = json.dumps(_SEATS_MARK, ensure_ascii=False)


class Session:
    """Connections, chat, actions, commits and broadcasts, for every table."""

    def __init__(self, settings: Settings, store: Store, guard: Guard) -> None:
        self.settings = settings
        self.store = store
        self.guard = guard
        # Counts the changes of tables' public facts (every broadcast_info): the cached
        # table list (web/costly.py) is rebuilt when it moved.
        self.changes = 0
        # Several servers on one database: called when a write finds that another
        # instance owns the table now (web/leases.py); the manager lets it go.
        self.on_lease_lost: Callable[[Table], None] | None = None

    # ------------------------------------------------------------------ connections

    async def pass_host(self, table: Table) -> None:
        """After a person left their seat: give the host role on if it was theirs
        (``Table.pass_host``). The role is in memory at once; a failed save is logged
        (a restart then passes it again by the same rule)."""
        if table.pass_host():
            try:
                await asyncio.to_thread(self.store.save_settings, table.id, table.settings)
            except Exception:
                log.exception("table %s: could not save the new host", table.id)

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
        self.guard.release(conn)
        async with table.lock:
            table.conns.discard(conn)
            if conn.authed and conn.seat is not None:
                seat = table.seats[conn.seat]
                seat.conns = max(0, seat.conns - 1)
                if seat.conns == 0:
                    seat.away_since = time.monotonic()
                    self.broadcast_info(table)
                    table.kick.set()
            elif conn.authed:
                self.broadcast_info(table)

    async def hello(self, conn: Conn, msg: ClientMessage) -> None:
        table = conn.table
        if conn.authed:
            raise ProtocolError("bad_message", "hello was already said on this connection", msg.id)
        seat: int | None = None
        if msg.token is not None:
            seat = table.seat_for_token(msg.token)
            if seat is None and table.seat_for_move(msg.token) is not None:
                seat = await self.take_moved_seat(table, msg.token, msg.id)
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
            refused: str | None = None
            if seat is None and not spectator_may_join(table, self.settings.max_connections):
                # Seated players always get in; only watchers are capped, and sockets
                # that never said hello do not count (they are closed at the deadline).
                refused = "this table has too many spectators"
            else:  # the server-wide cap: a seated player sheds a spectator if need be
                refused = self.guard.admit(conn, seated=seat is not None)
            if refused is not None:
                conn.send(error("too_many_connections", refused))
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
                "state": self.state(table, seat, [], log=True),
            }
            if msg.id is not None:
                welcome["id"] = msg.id
            conn.send(welcome)
            self.broadcast_info(table, skip=conn)
            if seat is not None:
                self.track_stand_ins(table)

    async def move_link(self, conn: Conn, msg: ClientMessage) -> None:
        """ "Continue on another device": a new token for this seat, for a link. The seat
        stays here until a device says hello with it; then it moves there (the old token
        is void and this device watches): a seat is moved, never copied."""
        table = conn.table
        assert conn.seat is not None
        token = secrets.token_urlsafe(24)
        async with table.lock:
            table.seats[conn.seat].move_hash = hash_token(token)
        answer: dict[str, Any] = {"type": "move", "token": token}
        if msg.id is not None:
            answer["id"] = msg.id
        conn.send(answer)

    async def take_moved_seat(
        self, table: Table, token: str, msg_id: str | int | None
    ) -> int | None:
        """A device opened a "continue on another device" link: the seat's token is now
        the link's (saved, with the host role if it was this seat's), and the seat's
        other connections become spectators (``moved``)."""
        async with table.lock:
            number = table.seat_for_move(token)
            if number is None:
                return None
            seat = table.seats[number]
            old, new = seat.token_hash, hash_token(token)
            was_host = old is not None and table.settings.get("host_token") == old
            seat.token_hash, seat.move_hash = new, None
            settings = table.settings
            if was_host:
                table.settings = {**settings, "host_token": new}
            try:
                await asyncio.to_thread(self.store.move_seat, table.id, seat.stored(), old)
                if was_host:
                    await asyncio.to_thread(self.store.save_settings, table.id, table.settings)
            except Exception:
                seat.token_hash, seat.move_hash, table.settings = old, new, settings
                log.exception("table %s: could not move a seat", table.id)
                raise ProtocolError(
                    "server_error", "the seat could not be moved; try again", msg_id
                ) from None
            for c in table.conns:
                if c.authed and c.seat == number:
                    c.seat = None
                    self.guard.watch(c)
                    seat.conns = max(0, seat.conns - 1)
                    c.send({"type": "moved", "state": self.state(table, None, [], log=True)})
            return number

    async def chat(self, conn: Conn, msg: ClientMessage) -> None:
        table = conn.table
        assert msg.text is not None
        text = check_chat(self.guard, conn, msg)
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

    # ------------------------------------------------------------------ actions

    async def action(self, conn: Conn, msg: ClientMessage) -> None:
        """A seated person's action: checked, committed, acknowledged, broadcast."""
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
                await self.resync(table)
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
            if table.trade is not None and action.type is ActionType.DECLINE:
                table.trade.declining(game, action)
            try:
                events = await self.commit(table, seat, action)
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
            if table.trade is not None:
                table.trade.person_acted(action)
            if person_back(table, seat):
                self.broadcast_info(table)
            self.after(table, events)

    async def commit(
        self, table: Table, seat: int, action: Action, auto: bool = False
    ) -> list[Event]:
        """Carry out ``action`` on a clone, store it, then install the clone. Raises (and
        changes nothing) if the action is illegal or the database write fails. ``auto``:
        the server chose it (a bot or a stand-in), not the seat's person."""
        assert table.game is not None
        game = table.game.clone()
        game.record_events()  # a clone starts without a log; the table's game keeps one
        events = game.apply(seat, action)
        result = game.result() if game.over else None
        try:
            # With the table's clocks, countdown and stand-ins as the action found them,
            # and whose decision the game waits for after it (web/turns.py).
            await asyncio.to_thread(
                self.store.append_actions,
                table.id,
                table.seq,
                [(seat, action.to_json())],
                result,
                auto,
                live_state(table),
                to_move(game),
            )
        except LeaseLost:
            if self.on_lease_lost is not None:
                self.on_lease_lost(table)
            raise
        except Exception:
            table.unsure = True
            raise
        table.game = game
        table.actions.append((seat, action))
        table.events += events
        if game.over:
            table.status = "over"
            table.ended_here = True
        return events

    async def resync(self, table: Table) -> None:
        """After a failed write (``table.unsure``), read the stored record back: a write
        whose connection broke during the commit may have been committed after all. Its
        actions are then installed and broadcast (nobody was told of them), so memory and
        database agree again; otherwise every later write would fail on its sequence
        number. Raises if the database is still unavailable (and stays unsure)."""
        if not table.unsure or table.game is None:
            return
        stored = await asyncio.to_thread(self.store.load, table.id)
        table.unsure = False
        if stored is None or stored.setup is None or len(stored.actions) <= table.seq:
            return
        done: list[tuple[int, Action]] = []
        events: list[Event] = []

        def keep(_index: int, seat: int, action: Action, caused: list[Event]) -> None:
            done.append((seat, action))
            events.extend(caused)

        game = replay(
            stored_record(stored.setup, stored.actions),
            resume=(table.game.clone(), table.seq),
            on_action=keep,
        )
        log.warning(
            "table %s: %d action(s) thought unsaved were saved; installed", table.id, len(done)
        )
        table.game = game
        table.actions += done
        table.events += events
        if game.over:
            table.status = "over"
            table.ended_here = True
        self.after(table, events)

    # ------------------------------------------------------------------ what clients get

    def state(
        self,
        table: Table,
        seat: int | None,
        events: Sequence[Event],
        log: bool = False,
        full: bool = False,
        view: View | None = None,
    ) -> dict[str, Any] | None:
        """The ``state`` message for ``seat`` (None: a spectator) after ``events``."""
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
        out.update(clock_view(table))
        if log:
            out["log"] = [e.for_seat(seat) for e in table.events[-LOG_ON_CONNECT:]]
        if full or log:
            out["cards"] = card_table(game)
        return out

    def broadcast_state(self, table: Table, events: Sequence[Event], full: bool = False) -> None:
        """Every connection's ``state`` after an action: the hot path of play.

        Each seat's message is what :meth:`state` gives for it, encoded once per seat.
        The public seat parts (fields, coins, trade areas: the bulk of a view) are the
        same for every seat, so they are built and encoded once, and each seat's view is
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
                state = self.state(table, conn.seat, events, full=full, view=view)
                assert state is not None
                state["view"]["seats"] = _SEATS_MARK
                text = dumps(state).replace(_SEATS_MARK_JSON, seats_json, 1)
                texts[conn.seat] = text
            conn.send_text(text)

    def after(self, table: Table, events: Sequence[Event]) -> None:
        """Tell everybody about a committed action, then let the pump look again."""
        notes = clock_tick(table, time.monotonic())
        self.broadcast_state(table, [*events, *notes])
        self.track_stand_ins(table)
        if table.status == "over":
            self.broadcast_info(table)
        table.kick.set()

    def track_stand_ins(self, table: Table) -> None:
        """Log a bot taking over an away person's seat, or a person being back; tell a
        person who is back what the bot played for them (``returned``), and everybody
        whose seat a bot plays now (``table``: ``played``)."""
        notes, back = track(table)
        if notes:
            self.broadcast_state(table, notes)
        if notes or back:
            self.broadcast_info(table)
        for seat, moves in back:
            message = {"type": "returned", "seat": seat, "played": moves}
            for conn in table.conns:
                if conn.authed and conn.seat == seat:
                    conn.send(message)

    def broadcast_info(self, table: Table, skip: Conn | None = None) -> None:
        """The table's public facts (seats, status, spectators) to every connection."""
        self.changes += 1
        info = {"type": "table", "table": table.info()}
        for conn in table.conns:
            if conn.authed and conn is not skip:
                conn.send(info)


def refusal_message(
    game: Game, seat: int, action: Action, exc: IllegalAction, msg_id: str | int | None
) -> dict[str, Any]:
    """An ``illegal`` error with the refusal as data (``refusal``: code, rule, 1-based
    params), so that the page words it in its own language; ``message`` stays the
    engine's English for programs."""
    out = error("illegal", str(exc), msg_id, exc.rule)
    out["refusal"] = explain(action, exc).to_json()
    return out
