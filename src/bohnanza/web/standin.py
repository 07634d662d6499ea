"""Stand-ins: a bot plays for a person who is away, timed out, idle or resigned.

Every stand-in is the table's trading bot (``settings["stand_in_bot"]``, chosen by the
host at creation; ``Settings.substitute``, ``heuristic``, otherwise), so that a game whose
people are away still trades. The log says when a bot takes a seat over ("played by a bot
while Dora is away") and when its person is back; the returning person is sent what the
bot played for them (``returned``), and the seat is theirs again at once. How long a
closed tab waits before its seat is handed over follows the table's clock
(:func:`away_delay`).

Stand-ins by vote: every seat moves without a clock too.

A table with a clock hands an idle player's decisions to a bot when their bank runs out
(``web/clocks.py``); an absent player's seat is played after ``--away-timeout``
(``web/pump.py``). Without a clock, a player who stays connected and does nothing would
stop the game for good. So: a connected person the game has waited on for
``Settings.idle_timeout`` seconds is flagged ``idle`` to the table (``table`` message);
the host, or more than half of the other connected people, may then vote (``stand_in``)
to hand the seat to a stand-in bot, which plays it until its person is back (``back``,
or any action of theirs).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ..events import Event
from .clocks import turn_based
from .protocol import ClientMessage, ProtocolError
from .turns import live_state

if TYPE_CHECKING:
    from .model import Conn, Seat, Table
    from .tables import Manager

log = logging.getLogger("bohnanza.web")


#: How long a person's last connection has been closed before a bot plays for them, as a
#: multiple of ``Settings.away_timeout`` (60 s), by the table's clock: a table without a
#: clock or with a relaxed one gives a reloading phone or a lost Wi-Fi time to come
#: back; a fast table would wait out most of a bank for nobody.
AWAY_FACTOR = {"none": 2.0, "relaxed": 2.0, "normal": 1.0, "fast": 0.25}
#: The hand-over delay of a game at your own pace: ten years (a finite time, so that the
#: pump's wake-up arithmetic stays plain numbers).
NEVER = 10 * 365 * 86400.0

#: Server notes that are not moves: not listed as what the bot played for someone.
_NOTES = frozenset(("turn", "draw", "clock_timeout", "stand_in", "away", "back", "trade_time_up"))
#: Left out of "while you were away" too: offers the bot turned down or took back changed
#: nothing (the list was mostly declines).
_UNEVENTFUL = frozenset(("decline", "withdraw"))


#: Bots a table may not choose as its stand-in: they think long (or call out to a model)
#: per move, and a stand-in may play for every person at once, past the per-table and
#: server-wide budgets that count bot seats (``--search-per-table``, ``--search-total``).
NOT_STAND_INS = frozenset(("search", "llm"))


def stand_in_bot(table: Table, default: str) -> str:
    """The bot that plays for this table's absent, timed-out or resigned people."""
    return str(table.settings.get("stand_in_bot") or default)


def away_delay(table: Table, away_timeout: float) -> float:
    """Seconds a person's last connection has been closed before a bot plays for them."""
    clock = str(table.settings.get("clock") or "none")
    if turn_based(clock):
        return NEVER  # at your own pace: only an empty bank hands the seat over
    return away_timeout * AWAY_FACTOR.get(clock.split(":", 1)[0], 1.0)


def played_by_bot(table: Table, seat: Seat) -> bool:
    """A bot plays for this person now: away, voted a stand-in, or out of time."""
    if seat.kind != "person" or seat.token_hash is None:
        return False
    out = table.clocks is not None and seat.seat in table.clocks.out
    return seat.replaced or seat.stand_in or out


def track(table: Table) -> tuple[list[Event], list[tuple[int, list[dict[str, Any]]]]]:
    """Bring each person seat's ``bot_from`` up to date. Returns the notes for the log
    (a bot took an away person's seat; a person is back) and, per person who is back,
    what the bot played for them (as their seat sees it)."""
    notes: list[Event] = []
    back: list[tuple[int, list[dict[str, Any]]]] = []
    if table.game is None:
        return notes, back
    for seat in table.seats:
        played = played_by_bot(table, seat) and not table.game.over
        if played and seat.bot_from is None:
            seat.bot_from = len(table.events)
            if seat.replaced:  # a timeout and a vote have notes of their own
                notes.append(Event("away", seat.seat, {}, None))
        elif not played and seat.bot_from is not None:
            moves = [
                e.for_seat(seat.seat)
                for e in table.events[seat.bot_from :]
                if e.type not in _NOTES
                and e.type not in _UNEVENTFUL
                and (e.seat == seat.seat or e.data.get("proposer") == seat.seat)
            ]
            seat.bot_from = None
            if seat.kind == "person" and seat.token_hash is not None:
                back.append((seat.seat, moves[-40:]))
                if not table.game.over:
                    notes.append(Event("back", seat.seat, {}, None))
    table.events += notes
    return notes, back


def idle_tick(table: Table, now: float, timeout: float, wakes: list[float]) -> bool:
    """Bring the idle flags up to ``now``; True if one changed (the table is to be told).
    ``wakes`` gets the times at which a flag is due."""
    game = table.game
    waiting: set[int] = set()
    if table.clocks is None and timeout > 0 and game is not None and not game.over:
        waiting = set(game.waiting_for())
    changed = False
    for seat in table.seats:
        watched = (
            seat.kind == "person"
            and seat.seat in waiting
            and seat.conns > 0
            and not seat.replaced
            and not seat.stand_in
        )
        if not watched:
            table.waits.pop(seat.seat, None)
            if seat.idle:
                seat.idle = False
                seat.votes.clear()
                changed = True
            continue
        due = table.waits.setdefault(seat.seat, now) + timeout
        if now < due:
            wakes.append(due)
        elif not seat.idle:
            seat.idle = changed = True
    return changed


def person_back(table: Table, seat_no: int) -> bool:
    """The seat's person acted (or said ``back``): not idle, no stand-in, not timed out,
    the wait starts afresh. True if that changed what the table shows."""
    table.waits.pop(seat_no, None)
    seat = table.seats[seat_no]
    changed = seat.idle or seat.stand_in or bool(seat.votes)
    seat.idle = seat.stand_in = False
    seat.votes.clear()
    if table.clocks is not None and table.clocks.back(seat_no):
        changed = True
    return changed


async def stand_in_vote(manager: Manager, conn: Conn, msg: ClientMessage) -> None:
    """A seated person's vote to hand an idle player's seat to a stand-in bot. The host's
    vote decides alone; otherwise more than half of the other connected people must vote."""
    table = conn.table
    async with table.lock:
        target = msg.seat
        if table.status != "playing" or target is None or not 0 <= target < len(table.seats):
            raise ProtocolError("not_allowed", "there is no such seat in play", msg.id)
        seat = table.seats[target]
        if target == conn.seat:
            raise ProtocolError("not_allowed", "you cannot vote on your own seat", msg.id)
        if not seat.idle:
            raise ProtocolError("not_allowed", "that player is not idle", msg.id)
        assert conn.seat is not None
        seat.votes.add(conn.seat)
        voters = {
            s.seat
            for s in table.seats
            if s.kind == "person" and s.token_hash is not None and s.conns > 0 and s.seat != target
        }
        votes = seat.votes & voters
        if conn.seat == table.host() or 2 * len(votes) > len(voters):
            seat.idle, seat.stand_in = False, True
            seat.votes.clear()
            table.waits.pop(target, None)
            note = Event("stand_in", target, {}, None)
            table.events.append(note)
            manager.session.broadcast_state(table, [note])
            manager.session.track_stand_ins(table)
            table.kick.set()
            await save_live(manager, table)
        done(conn, msg)
        manager.session.broadcast_info(table)


async def come_back(manager: Manager, conn: Conn, msg: ClientMessage) -> None:
    """The person of a stood-in (or idle) seat is back: the seat is theirs again."""
    table = conn.table
    assert conn.seat is not None
    async with table.lock:
        if person_back(table, conn.seat):
            manager.session.track_stand_ins(table)
            manager.session.broadcast_info(table)
            table.kick.set()
            await save_live(manager, table)
        done(conn, msg)


async def save_live(manager: Manager, table: Table) -> None:
    """Store the table's stand-ins and clocks as they are now (web/turns.py), so that a
    server taking the table over goes on with them. Not worth refusing the vote or the
    return for: a failure is logged (the next action stores them again)."""
    if table.game is None or table.status != "playing":
        return
    try:
        await asyncio.to_thread(manager.store.save_live, table.id, live_state(table))
    except Exception:
        log.warning("table %s: could not store its stand-ins", table.id, exc_info=True)


def done(conn: Conn, msg: ClientMessage) -> None:
    answer: dict[str, Any] = {"type": "done", "op": msg.op or msg.type}
    if msg.id is not None:
        answer["id"] = msg.id
    conn.send(answer)
