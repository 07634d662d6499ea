"""A live table's clocks, trading countdown and stand-ins outlive the server that runs it.

A live table keeps its time banks (web/clocks.py), its phase-2 countdown (web/pump.py)
and its stand-ins (web/standin.py) in memory. So that another server instance taking the
table over (web/leases.py), or a restarted server, goes on where they were, every stored
action carries them along (``TableRow.live``, written in the action's own transaction:
:func:`live_state`, the state as the action found it, in wall-clock times since
instances' monotonic clocks differ), as do a stand-in voted in and a person saying they
are back (``Store.save_live``). :func:`resume_live` puts them back: the snapshot, then
the actions stored after it replayed with the times they were stored at
(``Clocks.update`` after each, a timeout where a bank ran out between two of them, and
"back" for a person's own action, as the live pump does). The pump then charges the
running banks up to now: a player who had 40 s left when the old owner died has 40 s
less the time the table was without a server, and one whose bank ran out meanwhile is
timed out (the stand-in plays, as always). A phase-2 countdown keeps its deadline.
Seats handed to the stand-in stay so: timed out, voted in, or away past the away delay.

Games at your own pace (``turn12h``, ``turn3d``) are the exception for the time a server
was down: it is charged to nobody (the wait starts afresh when the table is resumed), a
game of days does not lose a player hours for the server's fault. A table stored before
its snapshots existed is replayed from its first action's time (the wait before it is
not charged).

:func:`to_move` is whose decision a game waits for ("your turn" in "your games"), stored
with every action (``TableRow.to_move``) for the tables another instance owns.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from ..actions import Action
from ..game import TRADE, Game
from ..records import new_game
from .clocks import Clocks, parse_clock, turn_based
from .model import Table
from .store import StoredTable

log = logging.getLogger("bohnanza.web")

#: How late after a bank empties the replay looks at it (seconds).
LATE = 0.001


def to_move(game: Game) -> list[int]:
    """The seats whose decision the game waits for now: in phase 2's trading the active
    player's (ending it is theirs), otherwise ``waiting_for()``; nobody once it is over.
    (The rule of "your turn", web/account_routes.py.)"""
    if game.over:
        return []
    if game.pending is None and game.phase == TRADE:
        return [game.active]
    return sorted(game.waiting_for())


def live_state(table: Table) -> dict[str, Any]:
    """The table's clocks, trading countdown and stand-ins now (as of its ``seq``
    actions), with wall-clock times: what :func:`resume_live` goes on from."""
    mono, wall = time.monotonic(), time.time()

    def stamp(since: float) -> float:
        return wall - (mono - since)

    out: dict[str, Any] = {"seq": table.seq, "at": wall}
    clocks = table.clocks
    if clocks is not None:
        out["clock"] = {
            "banks": list(clocks.banks),
            "running": {str(s): stamp(t) for s, t in sorted(clocks.running.items())},
            "out": sorted(clocks.out),
            "turn": clocks.turn,
            "topped": sorted(clocks.topped),
        }
    ts, game = table.trade, table.game
    if ts is not None and game is not None and ts.turn == game.turn:
        out["trade"] = {"turn": ts.turn, "started": stamp(ts.started)}
    stand_in = [s.seat for s in table.seats if s.stand_in]
    if stand_in:
        out["stand_in"] = stand_in
    replaced = {
        str(s.seat): stamp(s.away_since)
        for s in table.seats
        if s.replaced and s.away_since is not None
    }
    if replaced:
        out["replaced"] = replaced
    return out


def resumed_clocks(table: Table, stored: StoredTable) -> Clocks | None:
    """The banks of a table with a clock as :func:`resume_live` restores them (None
    without a clock, or without anything stored to go on from)."""
    clocks, _trade = _restore(table, stored, time.monotonic(), time.time())
    return clocks


def resume_live(table: Table, stored: StoredTable) -> tuple[int, float] | None:
    """Put a resumed table's clocks and stand-ins back as stored (``table.game`` is the
    stored game already). Returns the phase-2 countdown under way, its turn and start
    (monotonic), for the caller's ``TradeState`` (the pump's, above this module)."""
    if table.game is None or table.game.over:
        return None
    mono, wall = time.monotonic(), time.time()
    live = stored.live or {}
    try:
        for seat in live.get("stand_in", ()):
            if 0 <= seat < len(table.seats) and table.seats[seat].kind == "person":
                table.seats[seat].stand_in = True
        for key, since in dict(live.get("replaced", {})).items():
            seat = int(key)
            if 0 <= seat < len(table.seats) and table.seats[seat].kind == "person":
                # Away since then: the pump hands the seat to the stand-in again at once.
                table.seats[seat].away_since = mono - (wall - float(since))
                table.seats[seat].replaced = True
        table.clocks, trade = _restore(table, stored, mono, wall)
    except Exception:  # a snapshot it cannot read: the clocks start afresh, as before
        log.warning(
            "table %s: its stored clocks are unreadable; they start afresh", table.id, exc_info=True
        )
        table.clocks, trade = None, None
    if trade is not None and table.game.phase == TRADE and trade[0] == table.game.turn:
        return trade
    return None


def _restore(
    table: Table, stored: StoredTable, mono: float, wall: float
) -> tuple[Clocks | None, tuple[int, float] | None]:
    """The clocks and the phase-2 countdown (its turn and start, monotonic) as of the
    last stored action, from the stored snapshot and the actions after it."""
    clock = str(table.settings.get("clock") or "none")
    try:
        spec = parse_clock(clock, True)
    except ValueError:
        spec = None
    # Without a clock only a phase-2 countdown under way is worth the replay.
    trading = table.game is not None and table.game.phase == TRADE
    limited = spec is not None or (trading and bool(table.settings.get("trade_limit")))
    if stored.setup is None or not limited:
        return None, None
    n = len(stored.actions)
    if len(stored.times) != n:
        return None, None
    live = stored.live
    if live is None:  # stored before snapshots: the clocks start at the first action
        if not stored.times:
            return None, None
        live = {"seq": 0, "at": stored.times[0]}
    seq = int(live["seq"])
    if not 0 <= seq <= n:
        return None, None

    def since(at: Any) -> float:
        return mono - (wall - float(at))

    game = new_game(stored.setup)
    people = frozenset(s.seat for s in table.seats if s.kind == "person")
    clocks: Clocks | None = None
    if spec is not None:
        clocks = Clocks.new(spec, game.players, people)
    for seat, action in stored.actions[:seq]:
        game.apply(seat, Action.from_json(action))
    if clocks is not None:
        snap = live.get("clock")
        if snap is None:  # the waits start at the snapshot's time
            clocks.update(game, since(live["at"]))
        else:
            banks = [float(b) for b in snap["banks"]]
            if len(banks) != game.players:
                raise ValueError("a bank per seat")
            clocks.banks = banks
            clocks.running = {int(s): since(t) for s, t in snap["running"].items()}
            clocks.out = {int(s) for s in snap["out"]}
            clocks.turn = int(snap["turn"])
            clocks.topped = {int(s) for s in snap["topped"]}
    trade: tuple[int, float] | None = None
    if "trade" in live:
        trade = (int(live["trade"]["turn"]), since(live["trade"]["started"]))
    autos = stored.autos if len(stored.autos) == n else None
    for i in range(seq, n):
        seat, action = stored.actions[i]
        when = since(stored.times[i])
        if clocks is not None and autos is not None:
            # The timeouts the live pump saw between two actions, and "back": a
            # person's own action gives a timed-out seat back to them.
            for _ in range(game.players):
                due = clocks.due()
                if due is None or due > when:
                    break
                # (A moment late, as the pump wakes: a bank charged to the instant it
                # empties may keep a rounding error's worth.)
                clocks.update(game, min(when, due + LATE))
            if not autos[i]:
                clocks.back(seat)
        game.apply(seat, Action.from_json(action))
        if clocks is not None:
            clocks.update(game, when)
        if game.phase == TRADE and not game.over and (trade is None or trade[0] != game.turn):
            trade = (game.turn, when)
    if clocks is not None and turn_based(clock):
        clocks.running = {}  # at your own pace: the wait starts afresh from here
    return clocks, trade
