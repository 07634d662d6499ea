"""Our rule sets as TextArena environments (``pip install 'bohnanza[textarena]'``).

:func:`register` adds ``Bohnanza-<rules>-v0`` ids (``Bohnanza-classic-v0``,
``Bohnanza-fasolki+duel-v0``, …) to TextArena's registry with its default wrappers, so
``textarena.make("Bohnanza-classic-v0")`` and TextArena's agents play our engine unchanged.

The engine lets several seats act in the trading phase; TextArena asks one player at a
time. The environment asks seats in the order of :func:`bohnanza.driver.play` (whoever
the game waits for; in phase 2 rounds of the active seat then every other seat, each
acting once or passing) and gives each the text of :func:`bohnanza.text.render_prompt`.
A decision with a single legal move is taken without asking. An answer that cannot be
read gets the parser's message and a retry (TextArena's ``error_allowance``); when that
is spent the heuristic bot decides for the seat (noted in ``game_info[seat]["fallbacks"]``)
instead of eliminating it, since a Bohnanza game cannot go on without a seat. Rewards: 1
for each winner (a shared win included), -1 for the others; final coins are in
``game_info[seat]["coins"]``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from .actions import Action
from .agents.heuristic import HeuristicAgent
from .errors import IllegalAction
from .game import Game
from .rules import all_rulesets
from .schedule import MAX_TRADE_ROUNDS, TradeScheduler
from .seeding import agent_seed
from .text import CommandError, Lang, check_answer, parse_command, render_prompt, system_prompt

Decision = tuple[int, bool]  # (seat, required)


def _require_textarena() -> Any:
    try:
        import textarena
    except ImportError:  # pragma: no cover - depends on the extra
        raise ImportError(
            "the TextArena environment needs textarena: pip install 'bohnanza[textarena]'"
        ) from None
    return textarena


def schedule(
    game: Game, max_trade_rounds: int = MAX_TRADE_ROUNDS
) -> Generator[Decision, bool, None]:
    """The decisions of a game in the driver's order (:class:`TradeScheduler`); send
    whether the seat acted. A phase-2 slot of a seat with nothing to do is skipped, and
    when the trading time is up the active seat's ``end_trading`` is applied here."""
    scheduler = TradeScheduler(max_trade_rounds)
    while (ask := scheduler.next(game)) is not None:
        if ask.time_up:
            game.apply(ask.seat, Action.end_trading())  # time is up (R-TRADE-6)
        elif ask.required:
            yield ask.seat, True
        elif game.legal_actions(ask.seat, True):
            scheduler.report(bool((yield ask.seat, False)))
        else:
            scheduler.report(False)


def make_env_class() -> type:
    """The environment class, built on TextArena's ``Env`` (imported only here)."""
    ta = _require_textarena()
    base: Any = ta.Env

    class BohnanzaEnv(base):  # type: ignore[misc]
        def __init__(
            self,
            rules: str = "classic",
            options: dict[str, str] | None = None,
            lang: Lang = "en",
            error_allowance: int = 2,
            max_trade_rounds: int = MAX_TRADE_ROUNDS,
        ) -> None:
            self.rules = rules
            self.options = dict(options or {})
            self.lang: Lang = lang
            self.error_allowance = error_allowance
            self.max_trade_rounds = max_trade_rounds

        def reset(self, num_players: int, seed: int | None = None) -> None:
            self.game = Game.new(self.rules, num_players, options=self.options, seed=seed or 0)
            self.state = ta.FFAMultiPlayerState(
                num_players=num_players, seed=seed, error_allowance=self.error_allowance
            )
            self.state.reset(
                game_state={"rules": self.game.config.rules},
                player_prompt_function=lambda player_id, game_state: system_prompt(
                    self.lang, self.game.config
                ),
            )
            for pid in range(num_players):
                self.state.game_info[pid]["fallbacks"] = 0
            self.fallback = [HeuristicAgent(agent_seed(seed or 0, s)) for s in range(num_players)]
            self.steps = schedule(self.game, self.max_trade_rounds)
            self.decision: Decision | None = None
            self._advance(None)

        def _advance(self, acted: bool | None) -> None:
            """Go to the next decision that needs the player; take forced ones."""
            game = self.game
            try:
                seat, required = self.steps.send(acted) if acted is not None else next(self.steps)
                while True:
                    legal = game.legal_actions(seat)
                    if required and len(legal) == 1:
                        game.apply(seat, legal[0])
                        seat, required = self.steps.send(True)
                        continue
                    break
            except StopIteration:
                self._finish()
                return
            self.decision = (seat, required)
            self.legal = legal
            self.state.manually_set_current_player_id(seat, force=True)
            self.state.add_observation(
                to_id=seat,
                message=render_prompt(game.view(seat), legal, required, self.lang),
                observation_type=ta.ObservationType.GAME_BOARD,
            )

        def _finish(self) -> None:
            game = self.game
            self.decision = None
            assert game.scores is not None and game.winners is not None
            for pid in range(game.players):
                self.state.game_info[pid]["coins"] = game.scores[pid]
            winners = ", ".join(f"Player {w}" for w in game.winners)
            self.state.set_winners(
                list(game.winners), f"{winners} won with {max(game.scores)} coins"
            )

        def step(self, action: str) -> tuple[bool, dict[str, Any]]:
            assert self.decision is not None, "the game is over"
            seat, required = self.decision
            game = self.game
            view = game.view(seat)
            text = action.strip()
            if text.startswith("[") and text.endswith("]"):
                text = text[1:-1]  # TextArena's ActionFormattingWrapper
            self.state.add_observation(
                from_id=seat, message=text, observation_type=ta.ObservationType.PLAYER_ACTION
            )
            try:
                choice = parse_command(text, view, self.lang)
                if choice is None and required:
                    raise CommandError("you must act now; 'pass' is not allowed")
                if choice is not None:
                    check_answer(choice, view, self.legal, self.lang)
                    game.apply(seat, choice)
            except (CommandError, IllegalAction) as exc:
                if not self.state.set_invalid_move(reason=str(exc)):
                    return self.state.step(rotate_player=False)  # type: ignore[no-any-return]
                # Out of retries: the heuristic decides rather than eliminating the seat.
                self.state.elimination_order.remove(seat)
                self.state.made_invalid_move = False
                self.state.game_info[seat]["fallbacks"] += 1
                choice = self.fallback[seat].act(view, self.legal, required)
                if choice is not None:
                    game.apply(seat, choice)
            self._advance(choice is not None)
            return self.state.step(rotate_player=False)  # type: ignore[no-any-return]

    return BohnanzaEnv


def env_id(rules: str) -> str:
    return f"Bohnanza-{rules}-v0"


def register() -> list[str]:
    """Register every rule set with TextArena (its default LLM wrappers); the ids."""
    ta = _require_textarena()
    from textarena.envs.registration import ENV_REGISTRY
    from textarena.wrappers import ActionFormattingWrapper, LLMObservationWrapper

    cls = make_env_class()
    ids = []
    for entry in all_rulesets():
        rules = str(entry["rules"])
        eid = env_id(rules)
        if eid not in ENV_REGISTRY:
            ta.envs.registration.register(
                eid,
                entry_point=cls,
                default_wrappers=[LLMObservationWrapper, ActionFormattingWrapper],
                rules=rules,
            )
        ids.append(eid)
    return ids


__all__ = ["env_id", "make_env_class", "register", "schedule"]
