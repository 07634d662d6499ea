"""The driver: asks agents for decisions in a fixed order, so that games with bots are
reproducible (the engine itself lets any seat act at any time; a server instead takes
actions in arrival order).

Order: that of :class:`bohnanza.schedule.TradeScheduler` - a pending decision first,
then whoever the game is waiting for, active seat first, then seat order. In phase 2
rounds: the active seat, then every other seat once, each taking one action or passing.
Trading ends when the active seat ends it, or - like a table's trading timer running out
(R-TRADE-6) - after a round in which nobody acted, or after ``max_trade_rounds`` rounds
(:data:`bohnanza.schedule.MAX_TRADE_ROUNDS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .actions import Action
from .agents.base import Agent
from .errors import IllegalAction
from .game import OVER, TRADE, Game
from .schedule import MAX_TRADE_ROUNDS, TradeScheduler
from .views import make_view


class AgentError(IllegalAction):
    """An agent chose an illegal action or refused a required decision."""


@dataclass(slots=True)
class PlayLog:
    """Every (seat, action) applied, in order: with the setup, a complete record."""

    actions: list[tuple[int, Action]] = field(default_factory=list)


def play(
    game: Game,
    agents: Sequence[Agent],
    *,
    max_trade_rounds: int = MAX_TRADE_ROUNDS,
    max_actions: int = 200_000,
    log: PlayLog | None = None,
    events: bool = False,
) -> PlayLog:
    """Play ``game`` to the end with one agent per seat; returns the action log."""
    if len(agents) != game.players:
        raise ValueError(f"{len(agents)} agents for {game.players} seats")
    log = log if log is not None else PlayLog()
    actions = log.actions
    apply = game.apply if events else game.apply_fast

    def apply_choice(seat: int, choice: Action, legal: list[Action]) -> None:
        # An action taken from the legal list needs no second check (the random-play
        # checker verifies that every listed action passes Game.check); anything else,
        # such as a bot's own offer, goes through the full check.
        if not events and choice in legal:
            game.apply_unchecked(seat, choice)
        else:
            apply(seat, choice)

    def ask(seat: int, required: bool) -> bool:
        legal = game.legal_actions(seat, agents[seat].wants_offers(game.turn))
        if not legal and not required:
            return False
        choice = agents[seat].act(game.view(seat, cached=True), legal, required)
        if choice is None:
            if required:
                raise AgentError(
                    f"agent {agents[seat]!r} at seat {seat} must act but passed", seat=seat
                )
            return False
        apply_choice(seat, choice, legal)
        actions.append((seat, choice))
        if len(actions) > max_actions:
            raise AgentError(f"game exceeded {max_actions} actions; an agent is looping")
        return True

    scheduler = TradeScheduler(max_trade_rounds)
    hooks = game.hooks
    cache = game._seat_views
    while game.phase != OVER:
        if game.phase == TRADE:
            # Phase 2 (with any decision pending in it) in the scheduler's rounds.
            question = scheduler.next(game)
            if question is None:  # pragma: no cover - only when the game is over
                break
            seat = question.seat
            if question.time_up:
                # The trading time is up (R-TRADE-6): the active seat's decision is made.
                end = Action.end_trading()
                apply(seat, end)
                actions.append((seat, end))
            elif question.required:
                ask(seat, True)
            else:
                scheduler.report(ask(seat, False))
            continue
        # The hot path (phases 1 and 3): one required decision, with the engine's thin
        # public wrappers (argument checks the driver does not need) inlined.
        waiting = game.waiting_for() if game.pending is not None else hooks.waiting_for(game)
        if not waiting:
            raise AgentError(f"nobody can act in {game!r}")
        seat = waiting[0]
        agent = agents[seat]
        legal = hooks.legal_actions(game, seat, agent.wants_offers(game.turn))
        choice = agent.act(make_view(game, seat, cache), legal, True)
        if choice is None:
            raise AgentError(f"agent {agent!r} at seat {seat} must act but passed", seat=seat)
        if not events and choice in legal:
            game._execute(seat, choice)
        else:
            apply(seat, choice)
        actions.append((seat, choice))
        if len(actions) > max_actions:
            raise AgentError(f"game exceeded {max_actions} actions; an agent is looping")
    return log
