"""Stand-ins by vote: every seat moves without a clock too.

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

from typing import TYPE_CHECKING, Any

from ..events import Event
from .protocol import ClientMessage, ProtocolError

if TYPE_CHECKING:
    from .model import Conn, Table
    from .tables import Manager


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
    """The seat's person acted (or said ``back``): not idle, no stand-in, the wait starts
    afresh. True if that changed what the table shows."""
    table.waits.pop(seat_no, None)
    seat = table.seats[seat_no]
    changed = seat.idle or seat.stand_in or bool(seat.votes)
    seat.idle = seat.stand_in = False
    seat.votes.clear()
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
            table.kick.set()
        done(conn, msg)
        manager.session.broadcast_info(table)


async def come_back(manager: Manager, conn: Conn, msg: ClientMessage) -> None:
    """The person of a stood-in (or idle) seat is back: the seat is theirs again."""
    table = conn.table
    assert conn.seat is not None
    async with table.lock:
        if person_back(table, conn.seat):
            manager.session.broadcast_info(table)
            table.kick.set()
        done(conn, msg)


def done(conn: Conn, msg: ClientMessage) -> None:
    answer: dict[str, Any] = {"type": "done", "op": msg.op or msg.type}
    if msg.id is not None:
        answer["id"] = msg.id
    conn.send(answer)
