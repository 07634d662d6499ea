"""Game clocks: a time bank per player, an increment per turn, a trading countdown.

Without a clock a connected but idle player stalls a table forever. A table created with a
clock (``none``, ``relaxed``, ``normal``, ``fast``) gives every person a bank of seconds that
runs while the game waits for that person's decision (planting, harvesting to make room,
phase 3, a module's decision) and grows by the increment when their turn starts. Phase 2
has a countdown of its own, the same for everybody (the table's trading time limit). When a
bank is empty, the table's stand-in bot plays the seat (its trades too) until that
player's next turn or until they are back (any action, or "I'm back": the bank then holds
at least one increment, once a turn), and the log says so; phase 2's countdown is shortened to
``out_trade`` seconds (5) while the active player is timed out, so that an absent
player's turns do not each wait out the whole countdown. A live table's banks are kept
in memory and stored with every action it stores (web/turns.py, in wall-clock times): a
restarted server, or another instance taking the table over, goes on with each bank as
it was less the time the table was without a server (a bank that ran out meanwhile
hands its seat to the stand-in), and with the countdown's deadline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..events import Event
from ..game import TRADE, Game


@dataclass(frozen=True, slots=True)
class ClockSpec:
    bank: float  # seconds each person starts with
    increment: float  # seconds added when the person's turn starts
    trade: int  # seconds of phase 2 (the trading time limit)
    out_trade: float = 5.0  # seconds of phase 2 while the active player is timed out


PRESETS: dict[str, ClockSpec] = {
    "relaxed": ClockSpec(600.0, 30.0, 180),
    "normal": ClockSpec(240.0, 15.0, 90),
    "fast": ClockSpec(90.0, 5.0, 45),
}
#: Games at your own pace: a seat waits for its player (closing the tab hands nothing to a
#: bot) and only an empty bank hands it to the stand-in, until the player is back. The
#: bank starts at two moves' time and grows by one move's time each turn; phase 2 waits
#: at most one move's time. A restart charges nobody for the time it took (web/turns.py).
TURN_PRESETS: dict[str, ClockSpec] = {
    "turn12h": ClockSpec(24 * 3600.0, 12 * 3600.0, 12 * 3600),
    "turn3d": ClockSpec(6 * 86400.0, 3 * 86400.0, 3 * 86400),
}
PRESETS.update(TURN_PRESETS)
CLOCK_NAMES = ("none", *PRESETS)


def turn_based(clock: str) -> bool:
    """Whether a table's clock setting is a game at your own pace (``turn12h``,
    ``turn3d``, or a test server's ``turn:BANK,INCREMENT,TRADE``)."""
    return clock in TURN_PRESETS or clock.startswith("turn:")


def parse_clock(value: str, testing: bool) -> ClockSpec | None:
    """The spec of a clock setting; ``custom:BANK,INCREMENT,TRADE[,OUT_TRADE]`` (and
    ``turn:...``, the same at your own pace) on test servers only.
    Raises ValueError for anything else. Every clock limits phase 2, so that a timed-out
    active player (whom the bot does not trade for) cannot stall it."""
    if value in ("", "none"):
        return None
    if value in PRESETS:
        return PRESETS[value]
    if testing and value.startswith(("custom:", "turn:")):
        numbers = [float(x) for x in value.split(":", 1)[1].split(",")]
        if len(numbers) not in (3, 4):
            raise ValueError("bad custom clock")
        bank, inc, trade, *rest = numbers
        if bank <= 0 or inc < 0 or not 1 <= trade <= 3600 or any(x <= 0 for x in rest):
            raise ValueError("bad custom clock")
        return ClockSpec(bank, inc, int(trade), *rest)
    raise ValueError(f"the clock is one of {', '.join(CLOCK_NAMES)}, not {value!r}")


@dataclass(slots=True)
class Clocks:
    """The banks of one table and which of them run now."""

    spec: ClockSpec
    banks: list[float]
    people: frozenset[int]
    running: dict[int, float] = field(default_factory=dict)  # seat -> since (monotonic)
    out: set[int] = field(default_factory=set)  # timed out: the bot plays until their turn
    turn: int = -1
    # Came back from a timeout this turn: the bank was topped up once, not again (a staller
    # pressing "back" after every stand-in move made each decision cost an increment).
    topped: set[int] = field(default_factory=set)

    @classmethod
    def new(cls, spec: ClockSpec, players: int, people: frozenset[int]) -> Clocks:
        return cls(spec, [spec.bank] * players, people)

    def waiting(self, game: Game) -> set[int]:
        """The people whose bank runs now."""
        if game.over:
            return set()
        if game.pending is None and game.phase == TRADE:
            return set()
        return {s for s in game.waiting_for() if s in self.people}

    def update(self, game: Game, now: float) -> list[Event]:
        """Charge the running banks up to ``now``, start the ones the game waits for now,
        and give the increment at a new turn. Returns a ``clock_timeout`` event for each
        seat whose bank ran out just now (its bot plays from here)."""
        for seat, since in self.running.items():
            self.banks[seat] = max(0.0, self.banks[seat] - (now - since))
        if game.turn != self.turn and not game.over:
            if self.turn >= 0 and game.active in self.people:
                self.banks[game.active] += self.spec.increment
            self.turn = game.turn
            self.out.discard(game.active)
            self.topped.clear()
        waiting = self.waiting(game)
        self.running = {s: now for s in waiting}
        notes: list[Event] = []
        for seat in sorted(waiting):
            if self.banks[seat] <= 0 and seat not in self.out:
                self.out.add(seat)
                notes.append(Event("clock_timeout", seat, {}, None))
        return notes

    def bot_seats(self, game: Game) -> set[int]:
        """Timed-out people, whose decisions the table's stand-in bot takes now, trading
        included (it answers offers made to them, as any bot seat)."""
        return set(self.out)

    def back(self, seat: int) -> bool:
        """A timed-out person acted or said they are back: the seat is theirs again, with
        at least one increment in the bank (an empty bank would time out at once), the
        first time in a turn; later in the same turn the bank is what is left, so that
        coming back cannot make time. True if the seat was timed out."""
        if seat not in self.out:
            return False
        self.out.discard(seat)
        if seat not in self.topped:
            self.topped.add(seat)
            self.banks[seat] = max(self.banks[seat], self.spec.increment, 5.0)
        return True

    def due(self) -> float | None:
        """When the next running bank runs out (monotonic)."""
        times = [since + self.banks[s] for s, since in self.running.items() if s not in self.out]
        return min(times, default=None)

    def snapshot(self, now: float) -> dict[str, Any]:
        """What the clients show: seconds left per seat as of now, and which run."""
        left = [
            max(0.0, b - (now - self.running[s])) if s in self.running else b
            for s, b in enumerate(self.banks)
        ]
        return {
            "bank": [round(x, 1) for x in left],
            "running": sorted(self.running),
            "out": sorted(self.out),
            "people": sorted(self.people),
        }
