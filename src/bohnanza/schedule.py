"""Who is asked next, and whether they must answer: the one phase-2 scheduler.

The engine lets several seats act at once in phase 2 (anybody may propose to the active
seat, R-TRADE-2, and answer offers made to them) and ends the phase only when the active
seat ends it (R-TRADE-6). Anything that asks agents one at a time - the driver, the
terminal, the RL and TextArena environments, the web server's bot pump - needs an order
in which to ask, and a point at which the trading time is up. This module is that order,
written once; it performs no I/O, keeps no clock and applies no action: callers add their
own policy (timers, which seats they ask, how they ask) on top.

The order (:meth:`TradeScheduler.next`):

1. A pending module decision (R-HARV-1: one indivisible step, such as a Fasolufka child's
   lady move, R-LADY-8) comes first; its owner must answer.
2. Outside phase 2 the first seat the game waits for (``game.waiting_for()[0]``: the
   active seat in phase 1, then every seat with cards in its trade area in phase 3) must
   answer.
3. Phase 2 runs in *rounds*: the active seat, then every other seat in seat order, each
   taking one action or passing (not required). Trading ends when the active seat ends it,
   or - like a table's trading timer running out (R-TRADE-6) - after a round in which
   nobody acted, or after ``max_rounds`` rounds (:data:`MAX_TRADE_ROUNDS`). Then the next
   question is a :attr:`AskKind.TIME_UP`: the active seat must end trading now (the caller
   applies ``Action.end_trading()`` for it). A decision still pending when the rounds run
   out is taken first; trading then starts fresh rounds.

:class:`AskLoop` is the one loop that steps a game through these questions: the driver,
the terminal, TextArena, the RL environment and the web pump all iterate one (or call its
``next``), so the order exists once; each question also says what the seat may do
(:meth:`Ask.may`, the pending decision it answers, :meth:`Ask.decision`, and the one
forced action when the time is up, :attr:`Ask.forced`).

After a phase-2 slot the caller reports whether the asked seat acted
(:meth:`TradeScheduler.report`); a slot left unreported counts as a pass. Required
questions need no report.

For callers with their own policy: ``only`` (a set of seats) asks just those seats and
skips the others' slots (the web pump asks bot seats only); ``action_limit`` caps the
actions per seat in one trade phase (the pump's bot budget), counted from reported slots
and :meth:`TradeScheduler.note_action` (an action outside the slots, such as a bot's
answer to an offer made to it); :meth:`TradeScheduler.restart` gives fresh rounds (a
person traded, so bots may answer again); ``self_ending`` names seats that end their own
trading (a person at the terminal): as the active seat such a seat is asked, required,
every round, and its trading time never runs out.

The web server's bot pump, for example, would keep one
``TradeScheduler(action_limit=BOT_TRADE_ACTIONS)`` per table and ask
``next(game, only=bot_seats)``: a required question is a bot's decision; a slot is a
bot's chance to trade (``report(True)`` once its action is stored - a failed store leaves
the slot unreported, a pass - or ``report(False)`` when it passes); a time-up question for
an active bot starts its grace period (the pump keeps the clock: questions carry no time);
``note_action`` after a bot answers an offer made to it; ``restart`` after a person's
trade action. The table's own trading time limit stays the pump's.

A driver loop, with agents that pass on every slot:

>>> from bohnanza.actions import Action
>>> from bohnanza.game import Game
>>> game = Game.new("classic", 3, seed=1)
>>> scheduler = TradeScheduler()
>>> asked = []
>>> turn = game.turn
>>> while (ask := scheduler.next(game)) is not None and game.turn == turn:
...     asked.append((ask.seat, ask.required, ask.kind.value))
...     if ask.time_up:  # after a quiet round (R-TRADE-6)
...         _ = game.apply(ask.seat, Action.end_trading())
...     elif ask.required:
...         _ = game.apply(ask.seat, game.legal_actions(ask.seat)[0])
...     else:
...         scheduler.report(False)  # this seat passes
>>> for question in asked:
...     print(*question)
0 True waiting
0 True waiting
0 False slot
1 False slot
2 False slot
0 True time_up
0 True waiting
0 True waiting
"""

from __future__ import annotations

import copy
from collections.abc import Container, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

from .actions import Action
from .game import OVER, TRADE
from .pickling import dataclass_reduce

if TYPE_CHECKING:
    from .game import Game, Pending

#: Phase-2 rounds before the trading time is up (R-TRADE-6), for every driver.
MAX_TRADE_ROUNDS: Final = 6

# The phases compared on every question, held as plain ``str`` constants: compiled, a
# comparison of two ``str`` is a C string check (the same object, at once), where the
# game's module-level enum members would be looked up in its globals and compared
# through Python's generic comparison every time.
_TRADE: Final[str] = TRADE
_OVER: Final[str] = OVER


class AskKind(Enum):
    """Why a seat is asked."""

    PENDING = "pending"  #: a module's indivisible decision (R-HARV-1); must answer
    WAITING = "waiting"  #: outside phase 2, the game waits for this seat; must answer
    SLOT = "slot"  #: a phase-2 round slot: one action or a pass
    TIME_UP = "time_up"  #: the trading time is up: the active seat must end trading now


@dataclass(frozen=True, slots=True)
class Ask:
    """The next question: ``seat`` decides; ``required``: it may not pass."""

    seat: int
    required: bool
    kind: AskKind

    @property
    def time_up(self) -> bool:
        """The active seat must end trading now (R-TRADE-6); the caller applies it."""
        return self.kind is AskKind.TIME_UP

    @property
    def forced(self) -> Action | None:
        """The one action this question leaves, which the caller applies without asking
        anybody: ``end_trading`` when the trading time is up; None otherwise."""
        return Action.end_trading() if self.kind is AskKind.TIME_UP else None

    def decision(self, game: Game) -> Pending | None:
        """The pending decision this question asks for (a :attr:`AskKind.PENDING` one)."""
        return game.pending if self.kind is AskKind.PENDING else None

    def may(self, game: Game, offers: bool = True) -> list[Action]:
        """What the seat may do now: the one forced action when the time is up, else
        the game's legal actions (a pending decision's allowed answers among them;
        ``offers=False``: without the offer templates, for agents that never propose)."""
        forced = self.forced
        if forced is not None:
            return [forced]
        return game.legal_actions(self.seat, offers)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


#: Shared required questions per seat (a question is immutable; phases 1 and 3, where a
#: game asks most, then build none).
_SEATS: Final = 16
_WAITING: Final = [Ask(s, True, AskKind.WAITING) for s in range(_SEATS)]
_PENDING: Final = [Ask(s, True, AskKind.PENDING) for s in range(_SEATS)]
#: The same for phase-2 slots that a seat may pass (random play asks hundreds a game).
_SLOTS: Final = [Ask(s, False, AskKind.SLOT) for s in range(_SEATS)]
_TIME_UPS: Final = [Ask(s, True, AskKind.TIME_UP) for s in range(_SEATS)]


def _required(asks: list[Ask], seat: int, kind: AskKind) -> Ask:
    return asks[seat] if 0 <= seat < _SEATS else Ask(seat, True, kind)


@mypyc_attr(allow_interpreted_subclasses=True)
class TradeScheduler:
    """Asks seats in a fixed order, so that games with agents are reproducible.

    One scheduler follows one game; its state is the bookkeeping of the current trade
    phase (the rounds), which starts afresh whenever a new turn's phase 2 is seen.
    """

    __slots__ = (
        "_asked",
        "acted",
        "action_limit",
        "actions",
        "max_rounds",
        "pos",
        "rounds",
        "self_ending",
        "time_up",
        "turn",
    )

    def __init__(
        self,
        max_rounds: int = MAX_TRADE_ROUNDS,
        *,
        action_limit: int | None = None,
        self_ending: Iterable[int] = (),
    ) -> None:
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, not {max_rounds}")
        if action_limit is not None and action_limit < 0:
            raise ValueError(f"action_limit must not be negative, not {action_limit}")
        self.max_rounds = max_rounds
        self.action_limit = action_limit
        self.self_ending = frozenset(self_ending)
        #: The turn whose trade phase the state below belongs to (-1: none).
        self.turn = -1
        #: Finished rounds in this trade phase.
        self.rounds = 0
        #: The next place in the current round (0: the active seat).
        self.pos = 0
        #: Somebody acted in the current round.
        self.acted = False
        #: The trading time is up: the next phase-2 question is the active seat's end.
        self.time_up = False
        #: Actions per seat in this trade phase (reported slots and noted actions).
        self.actions: dict[int, int] = {}
        self._asked: int | None = None  # the seat of the slot awaiting its report

    # ------------------------------------------------------------------ state

    def reset(self) -> None:
        """Forget the current trade phase (a new game, or a game continued elsewhere)."""
        self._begin(-1)

    def restart(self) -> None:
        """Fresh rounds in the same trade phase: the round count and the time-up flag are
        cleared, the per-seat action counts kept (the web pump, when a person trades)."""
        self.rounds = 0
        self.time_up = False

    def _begin(self, turn: int) -> None:
        self.turn = turn
        self.rounds = 0
        self.pos = 0
        self.acted = False
        self.time_up = False
        self.actions = {}
        self._asked = None

    def _sync(self, game: Game) -> None:
        """Start the bookkeeping afresh in a new turn's phase 2."""
        if self.turn != game.turn:
            self._begin(game.turn)

    def trade_round(self, game: Game) -> int:
        """Finished rounds of this turn's phase 2 (0 outside phase 2)."""
        return self.rounds if game.phase == _TRADE and self.turn == game.turn else 0

    def under_limit(self, seat: int) -> bool:
        """Whether ``seat`` may still act in this trade phase (``action_limit``)."""
        limit = self.action_limit
        return limit is None or self.actions.get(seat, 0) < limit

    # ------------------------------------------------------------------ asking

    def next(self, game: Game, only: Container[int] | None = None) -> Ask | None:
        """The next question for ``game``; None when the game is over, or when the
        question would go to a seat outside ``only`` (the caller waits for that seat).

        A phase-2 slot asked before, and not reported, counts as a pass.
        """
        phase = game.phase
        if phase == _OVER:
            return None
        self._asked = None
        trading = phase == _TRADE
        if trading:
            self._sync(game)
            if self.pos >= game.players:
                self._end_round(game)
        elif self.turn != -1:
            self.reset()
        pending = game.pending
        if pending is not None:
            seat = pending.seat
            if only is None or seat in only:
                return _required(_PENDING, seat, AskKind.PENDING)
            return None
        if not trading:
            # The hot path (phases 1 and 3 take most of a game's questions).
            waiting = game.hooks.waiting_for(game)
            if not waiting:  # the engine always waits for somebody while not over
                raise RuntimeError(f"nobody can act in {game!r}")
            if only is None:
                seat = waiting[0]
                return _WAITING[seat] if seat < _SEATS else Ask(seat, True, AskKind.WAITING)
            for seat in waiting:
                if seat in only:
                    return _required(_WAITING, seat, AskKind.WAITING)
            return None
        return self._slot(game, only)

    def _slot(self, game: Game, only: Container[int] | None) -> Ask | None:
        """The next phase-2 slot (no decision is pending)."""
        n = game.players
        active = game.active
        skipped = 0
        while not self.time_up:
            if self.pos >= n:
                self._end_round(game)
                continue
            seat = (active + self.pos) % n
            self.pos += 1
            limit = self.action_limit
            if (only is not None and seat not in only) or (
                limit is not None and self.actions.get(seat, 0) >= limit
            ):
                skipped += 1
                if skipped > n:  # a whole round without anybody to ask (self_ending)
                    return None
                continue
            self._asked = seat
            if seat == active and active in self.self_ending:
                return Ask(seat, True, AskKind.SLOT)
            return _SLOTS[seat] if seat < _SEATS else Ask(seat, False, AskKind.SLOT)
        if only is None or active in only:
            return _required(_TIME_UPS, active, AskKind.TIME_UP)
        return None

    def _end_round(self, game: Game) -> None:
        self.rounds += 1
        self.pos = 0
        if game.active not in self.self_ending and (
            not self.acted or self.rounds >= self.max_rounds
        ):
            if game.pending is None:
                self.time_up = True
            else:
                # The decision is taken first; then trading goes on with fresh rounds.
                self.rounds = 0
        self.acted = False

    # ------------------------------------------------------------------ answers

    def report(self, acted: bool) -> None:
        """The seat asked for the last phase-2 slot acted (True) or passed (False).
        After any other question this does nothing."""
        seat = self._asked
        self._asked = None
        if seat is not None and acted:
            self.acted = True
            self.actions[seat] = self.actions.get(seat, 0) + 1

    def note_action(self, game: Game, seat: int) -> None:
        """``seat`` acted in phase 2 outside its slot (the web pump's answer to an offer
        made to a bot): it counts towards ``action_limit`` and makes the round not quiet.
        Outside phase 2 this does nothing."""
        if game.phase != _TRADE or game.over:
            return
        self._sync(game)
        self.acted = True
        self.actions[seat] = self.actions.get(seat, 0) + 1


@mypyc_attr(allow_interpreted_subclasses=True)
class AskLoop:
    """The one ask loop: who must act next in ``game``, whether they must answer, and
    what they may do (:class:`Ask`), in the scheduler's order - a pending decision, the
    seat the game waits for, the trade rounds, the trading time up.

    Every front end steps its games through one (:func:`bohnanza.driver.play`, the
    terminal, TextArena, the RL environment, the web pump); what stays theirs is how
    they ask a seat and their own policy (clocks, which seats they ask). Iterate it, or
    call :meth:`next`; after a phase-2 slot say whether the seat acted
    (:meth:`answered`; a slot left unanswered is a pass). A time-up question is answered
    by applying its :attr:`Ask.forced` action. The loop ends when the game is over, or
    when the next question would go to a seat outside ``only``.
    """

    __slots__ = ("game", "only", "scheduler")

    def __init__(
        self,
        game: Game,
        scheduler: TradeScheduler | None = None,
        *,
        only: Container[int] | None = None,
    ) -> None:
        self.game = game
        #: The rounds' bookkeeping (kept by callers that pause between questions).
        self.scheduler = scheduler if scheduler is not None else TradeScheduler()
        self.only = only

    def next(self) -> Ask | None:
        """The next question (None: over, or nobody in ``only`` is asked now)."""
        game = self.game
        scheduler = self.scheduler
        if self.only is None and scheduler.turn == -1 and game.pending is None:
            phase = game.phase
            if phase != _TRADE and phase != _OVER:
                # The hot path, as :meth:`TradeScheduler.next` answers it outside phase 2
                # with no rounds to forget (phases 1 and 3 take most of a game's
                # questions): the first seat the game waits for must answer. Written
                # here, in a plain method, so that a compiled driver calls it directly.
                waiting = game.hooks.waiting_for(game)
                if not waiting:
                    raise RuntimeError(f"nobody can act in {game!r}")
                seat = waiting[0]
                return _WAITING[seat] if seat < _SEATS else Ask(seat, True, AskKind.WAITING)
        return scheduler.next(game, self.only)

    def answered(self, acted: bool) -> None:
        """The seat asked for the last phase-2 slot acted (True) or passed (False)."""
        self.scheduler.report(acted)

    # The loop is its own iterator (a class, not a generator: mypyc compiles a class's
    # ``__next__`` to a C slot, while a generator's every resume costs a frame object's
    # worth of bookkeeping). Its state is the scheduler's, so iterating it again, or
    # mixing ``for`` with :meth:`next`, goes on where it stopped.

    def __iter__(self) -> AskLoop:
        return self

    def __next__(self) -> Ask:
        ask = self.next()
        if ask is None:
            raise StopIteration
        return ask

    def copy(self, game: Game) -> AskLoop:
        """The same loop for a copy of its game (the rounds' bookkeeping copied)."""
        new = copy.copy(self.scheduler)
        new.actions = dict(new.actions)
        return AskLoop(game, new, only=self.only)


__all__ = ["MAX_TRADE_ROUNDS", "Ask", "AskKind", "AskLoop", "TradeScheduler"]
