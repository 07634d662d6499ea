"""Games at your own pace: their clocks survive a restart of the server.

A live table keeps its banks in memory (web/clocks.py); a restarted server used to start
them afresh, which is harmless for a game of minutes and wrong for one of days. The
banks of a turn-based table (``turn12h``, ``turn3d``) need no writes of their own: every
stored action carries the time it was stored, so replaying the record with those times
(``Clocks.update`` after each action, as the live pump does) gives each bank as it was
at the last action, and which seats had run out. The time the server was down is charged
to nobody (the seat waits afresh from the restart), and the wait before the game's
first action is not charged either (no time of the game's start is stored).
"""

from __future__ import annotations

from ..actions import Action
from ..records import new_game
from .clocks import Clocks, parse_clock, turn_based
from .model import Table
from .store import StoredTable


def resumed_clocks(table: Table, stored: StoredTable) -> Clocks | None:
    """The banks of a turn-based table as they stood at its last stored action; None
    for any other table (its clocks start afresh, as before)."""
    clock = str(table.settings.get("clock") or "none")
    if not turn_based(clock) or stored.setup is None or not stored.times:
        return None
    spec = parse_clock(clock, True)
    if spec is None or len(stored.times) != len(stored.actions):
        return None
    game = new_game(stored.setup)
    people = frozenset(s.seat for s in table.seats if s.kind == "person")
    clocks = Clocks.new(spec, game.players, people)
    clocks.update(game, stored.times[0])
    for (seat, action), when in zip(stored.actions, stored.times, strict=True):
        game.apply(seat, Action.from_json(action))
        clocks.update(game, when)
    # From here the live pump charges the running banks, from the moment it resumes.
    clocks.running = {}
    return clocks
