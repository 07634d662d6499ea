"""The driver: asks agents for decisions in a fixed order, so that games with bots are
reproducible (the engine itself lets any seat act at any time; a server instead takes
actions in arrival order).

Order: that of the one ask loop (:class:`bohnanza.schedule.AskLoop`) - a pending decision first,
then whoever the game is waiting for, active seat first, then seat order. In phase 2
rounds: the active seat, then every other seat once, each taking one action or passing.
Trading ends when the active seat ends it, or - like a table's trading timer running out
(R-TRADE-6) - after a round in which nobody acted, or after ``max_trade_rounds`` rounds
(:data:`bohnanza.schedule.MAX_TRADE_ROUNDS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from .actions import Action
from .agents.base import Agent
from .errors import IllegalAction, StopsRun
from .game import Game
from .pickling import dataclass_reduce
from .schedule import MAX_TRADE_ROUNDS, AskKind, AskLoop, TradeScheduler
from .views import View

TIME_UP: Final = AskKind.TIME_UP


class AgentError(IllegalAction):
    """An agent chose an illegal action or refused a required decision."""


class AgentFailed(AgentError):
    """The agent at ``seat`` raised, passed where it had to act, or answered with an
    action the rules refuse: the game cannot go on, but a run of many games can (the
    game is that seat's forfeit). ``cause`` is the agent's own exception, if any. A
    :class:`bohnanza.errors.StopsRun` (a language model that gave up) is raised as it
    is, for its own stop policy."""

    def __init__(self, message: str, *, seat: int, cause: BaseException | None = None) -> None:
        super().__init__(message, seat=seat)
        self.failed_seat = seat
        self.cause = cause

    def __reduce__(self) -> tuple[object, ...]:  # across process pools
        return (_agent_failed, (str(self), self.failed_seat))


def _agent_failed(message: str, seat: int) -> AgentFailed:
    return AgentFailed(message, seat=seat)


def _decide(
    agent: Agent, seat: int, view: View, legal: list[Action], required: bool
) -> Action | None:
    """``agent.act``, with whatever it raises turned into :class:`AgentFailed`."""
    try:
        return agent.act(view, legal, required)
    except StopsRun:
        raise
    except Exception as exc:
        text = " ".join(str(exc).split())[:300]
        raise AgentFailed(
            f"agent {agent!r} at seat {seat} raised {type(exc).__name__}: {text}",
            seat=seat,
            cause=exc,
        ) from exc


def _apply_answer(game: Game, seat: int, agent: Agent, choice: Action, trusted: bool) -> None:
    """Apply an agent's answer; one the rules refuse is that agent's failure."""
    try:
        game.apply(seat, choice, trusted=trusted)
    except IllegalAction as exc:
        raise AgentFailed(
            f"agent {agent!r} at seat {seat} answered with an illegal action {choice!r}: {exc}",
            seat=seat,
            cause=exc,
        ) from exc


@dataclass(slots=True)
class PlayLog:
    """Every (seat, action) applied, in order: with the setup, a complete record."""

    actions: list[tuple[int, Action]] = field(default_factory=list)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


def _ask(
    game: Game,
    agents: Sequence[Agent],
    actions: list[tuple[int, Action]],
    contain: bool,
    max_actions: int,
    seat: int,
) -> bool:
    """A phase-2 round slot: ask ``seat`` for an action, or a pass (False), and apply
    it. A function of the module, not a closure of :func:`play`: compiled, a closure's
    environment and the closure refer to each other, and that cycle kept every finished
    game (its state, its agents, their memos) alive until a full garbage collection."""
    agent = agents[seat]
    legal = game.legal_actions(seat, agent.wants_offers(game.turn))
    if not legal:
        return False
    # The view goes straight into the call, never into a variable of this frame: a
    # view still referenced when the game next changes is completed first, every part
    # of it (bohnanza.views.retire), while one let go keeps its unread parts unbuilt.
    if contain:
        choice = _decide(agent, seat, game.view(seat, cached=True), legal, False)
    else:
        choice = agent.act(game.view(seat, cached=True), legal, False)
    if choice is None:
        return False
    _commit(game, seat, agent, choice, legal, contain, actions, max_actions)
    return True


def _commit(
    game: Game,
    seat: int,
    agent: Agent,
    choice: Action,
    legal: list[Action],
    contain: bool,
    actions: list[tuple[int, Action]],
    max_actions: int,
) -> None:
    """Apply an agent's answer and log it. An action taken from the legal list needs no
    second check (the random-play checker verifies that every listed action passes
    Game.check); anything else, such as a bot's own offer, goes through the full check."""
    if contain:
        _apply_answer(game, seat, agent, choice, choice in legal)
    else:
        game.apply(seat, choice, trusted=choice in legal)
    actions.append((seat, choice))
    if len(actions) > max_actions:
        raise AgentError(f"game exceeded {max_actions} actions; an agent is looping")


def play(
    game: Game,
    agents: Sequence[Agent],
    *,
    max_trade_rounds: int = MAX_TRADE_ROUNDS,
    max_actions: int = 200_000,
    log: PlayLog | None = None,
    events: bool = False,
    contain: bool = False,
) -> PlayLog:
    """Play ``game`` to the end with one agent per seat; returns the action log.

    ``events=True`` switches the game's event recording on; otherwise the game's own
    setting (:meth:`Game.record_events`) stands. ``contain=True`` (runs of many games)
    turns whatever an agent raises, and an illegal answer, into :class:`AgentFailed`
    naming its seat; otherwise an agent's exceptions pass through unchanged (the search
    stops its roll-outs by raising from inside them)."""
    if len(agents) != game.players:
        raise ValueError(f"{len(agents)} agents for {game.players} seats")
    log = log if log is not None else PlayLog()
    actions = log.actions
    if events:
        game.record_events()

    loop = AskLoop(game, TradeScheduler(max_trade_rounds))
    # The hot path calls the game's methods directly, never through bound methods held in
    # locals: in the compiled core a direct call is a C call, a bound method a Python one
    # (with its keyword arguments parsed on every action).
    hooks = game.hooks
    # Agents that keep Agent.wants_offers answer with their class's ``proposes``.
    fixed = [a.proposes if type(a).wants_offers is Agent.wants_offers else None for a in agents]
    time_up = TIME_UP
    # ``loop.next()`` rather than ``for question in loop``: in the compiled core a direct
    # method call, with no iterator protocol per question.
    try:
        while True:
            question = loop.next()
            if question is None:
                break
            seat = question.seat
            if not question.required:
                # A phase-2 round slot: one action or a pass.
                loop.answered(_ask(game, agents, actions, contain, max_actions, seat))
                continue
            if question.kind is time_up:
                # The trading time is up (R-TRADE-6): the active seat's decision is made.
                forced = question.forced
                assert forced is not None
                game.apply(seat, forced)
                actions.append((seat, forced))
                continue
            # The hot path (phases 1 and 3, and pending decisions): one required decision.
            agent = agents[seat]
            proposes = fixed[seat]
            if proposes is None:
                proposes = agent.wants_offers(game.turn)
            legal = hooks.legal_actions(game, seat, proposes)
            if contain:
                choice = _decide(agent, seat, game.view(seat, True), legal, True)
            else:
                choice = agent.act(game.view(seat, True), legal, True)
            if choice is None:
                raise AgentFailed(f"agent {agent!r} at seat {seat} must act but passed", seat=seat)
            _commit(game, seat, agent, choice, legal, contain, actions, max_actions)
    finally:
        # Nothing refers to the game's live views but the game, and they to it: a game
        # that moves no more (over, or a roll-out stopped by its agent) frees them here.
        game.release_views()
    return log


#: The public names (tests/test_public_api.py; CHANGELOG.md says when they change).
__all__ = [
    "TIME_UP",
    "AgentError",
    "AgentFailed",
    "PlayLog",
    "play",
]
