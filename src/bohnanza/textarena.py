"""Our rule sets as TextArena environments (``pip install 'bohnanza[textarena]'``).

:func:`register` adds ids in TextArena's own naming: ``Bohnanza-v0`` (classic, the id of
TextArena's own Bohnanza) and ``Bohnanza-v0-<rules>`` for the others
(``Bohnanza-v0-fasolki+duel``), each also as ``-raw`` (no wrappers: the observation is the
list of new messages) and ``-train`` (TextArena's board-game wrappers), as TextArena
registers its games. The default wrappers keep the observation bounded: the system
prompt (:func:`bohnanza.text.system_prompt`) and the latest question only, which holds
the events since the seat's previous question and a summary of what the others wanted
and refused (:mod:`bohnanza.chronicle`), the table and the legal moves: a few thousand
characters at any point of a game, where TextArena's ``LLMObservationWrapper`` resends
every earlier message. The earlier ids ``Bohnanza-<rules>-v0`` stay as aliases.

The engine lets several seats act in the trading phase; TextArena asks one player at a
time. The environment asks seats in the order of :func:`bohnanza.driver.play` (whoever
the game waits for; in phase 2 rounds of the active seat then every other seat, each
acting once or passing). A decision with a single legal move is taken without asking.
Seats are numbered from 1 in the text, as the rules count them (TextArena's player ids
stay 0-based). An answer is read by :func:`bohnanza.answers.read_answer`, the one rule
:class:`~bohnanza.agents.llm.LLMAgent` reads by too (reasoning dropped, a marked final
answer wins, else exactly one command; an answer to several offers is played line by
line as the seat's turns come); the answer as written goes to its own seat only, since
its reasoning is private. An answer that cannot be read gets the parser's message with
the question again (TextArena's ``error_allowance``); when that is spent the heuristic
bot decides for the seat (``info["fallback"]``, ``game_info[seat]["fallbacks"]``)
instead of eliminating it, since a Bohnanza game cannot go on without a seat, and the
seat's ``invalid_move`` is cleared again. ``reset`` without a seed deals a random game (its seed is in ``info``).
Rewards: 1 for each winner (a shared win included), -1 for the others; final coins are in
``game_info[seat]["coins"]``.
"""

from __future__ import annotations

import random
from collections.abc import Generator
from typing import Any

from .actions import Action
from .agents.heuristic import HeuristicAgent
from .answers import read_answer
from .chronicle import Chronicle
from .errors import IllegalAction
from .game import Game
from .rules import all_rulesets
from .schedule import MAX_TRADE_ROUNDS, AskLoop, TradeScheduler
from .seeding import agent_seed
from .text import (
    CommandError,
    Lang,
    check_answer,
    render_action,
    render_prompt,
    system_prompt,
)

Decision = tuple[int, bool]  # (seat, required)

#: The number the text gives the first seat (as the rules count).
BASE = 1


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
    loop = AskLoop(game, TradeScheduler(max_trade_rounds))
    for ask in loop:
        forced = ask.forced
        if forced is not None:
            game.apply(ask.seat, forced)  # time is up (R-TRADE-6)
        elif ask.required:
            yield ask.seat, True
        elif ask.may(game):
            loop.answered(bool((yield ask.seat, False)))
        else:
            loop.answered(False)


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
            # Unseeded: a random deal, whose seed ``info`` reports (to replay it).
            self.seed = random.SystemRandom().randrange(2**31) if seed is None else seed
            self.game = Game.new(self.rules, num_players, options=self.options, seed=self.seed)
            self.state = ta.FFAMultiPlayerState(
                num_players=num_players, seed=self.seed, error_allowance=self.error_allowance
            )
            self.state.reset(
                game_state={"rules": self.game.config.rules},
                player_prompt_function=lambda player_id, game_state: system_prompt(
                    self.lang, self.game.config
                ),
            )
            for pid in range(num_players):
                self.state.game_info[pid]["fallbacks"] = 0
                self.state.game_info[pid]["invalid_moves"] = 0
            self.fallback = [HeuristicAgent(agent_seed(self.seed, s)) for s in range(num_players)]
            self.memory = [Chronicle(self.lang, BASE) for _ in range(num_players)]
            # The later lines of an answer to several offers, per seat: (turn, moves),
            # played when the seat's turn to act comes again while they stay legal.
            self.queued: dict[int, tuple[int, list[Action]]] = {}
            self.steps = schedule(self.game, self.max_trade_rounds)
            self.decision: Decision | None = None
            self.question = ""
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
                    queued = self._from_queue(seat, legal)
                    if queued is not None:
                        view = game.view(seat)
                        self.memory[seat].see(view)
                        game.apply(seat, queued)
                        self.memory[seat].mine(queued, view)
                        seat, required = self.steps.send(True)
                        continue
                    break
            except StopIteration:
                self._finish()
                return
            self.decision = (seat, required)
            self.legal = legal
            self.state.manually_set_current_player_id(seat, force=True)
            view = game.view(seat)
            memory = self.memory[seat]
            memory.see(view)
            briefing = memory.briefing()
            table = render_prompt(view, legal, required, self.lang, base=BASE)
            self.question = f"{briefing}\n\n{table}" if briefing else table
            self.state.add_observation(
                to_id=seat, message=self.question, observation_type=ta.ObservationType.GAME_BOARD
            )

        def _from_queue(self, seat: int, legal: list[Action]) -> Action | None:
            """The next queued move of ``seat`` that is still allowed this turn (as the
            agent plays the later lines of an answer), or None."""
            turn, moves = self.queued.get(seat, (-1, []))
            if turn != self.game.turn:
                self.queued.pop(seat, None)
                return None
            view = self.game.view(seat)
            while moves:
                action = moves.pop(0)
                try:
                    check_answer(action, view, legal, self.lang, base=BASE)
                except CommandError:
                    continue  # overtaken by events (the offer went, the card was traded)
                return action
            return None

        def _finish(self) -> None:
            game = self.game
            self.decision = None
            assert game.scores is not None and game.winners is not None
            for pid in range(game.players):
                self.state.game_info[pid]["coins"] = game.scores[pid]
            winners = ", ".join(f"seat {w + BASE}" for w in game.winners)
            self.state.set_winners(
                list(game.winners), f"{winners} won with {max(game.scores)} coins"
            )

        def _info(self, seat: int, choice: Action | None, fallback: bool) -> dict[str, Any]:
            """What ``step`` reports: the move taken, whether the heuristic took it, the
            coins, and the next question's seat and legal moves."""
            game = self.game
            info: dict[str, Any] = {
                "seat": seat,
                "action": "pass" if choice is None else self._last_text,
                "fallback": fallback,
                "invalid_move": False,
                "coins": [s.coins for s in game.view(None).seats],
                "turn": game.turn,
                "phase": game.phase,
                "seed": self.seed,
            }
            if self.decision is not None:
                nxt, required = self.decision
                view = game.view(nxt)
                info["next_seat"] = nxt
                info["legal_moves"] = [
                    render_action(a, view, self.lang, base=BASE) for a in self.legal
                ] + ([] if required else ["pass"])
            return info

        def step(self, action: str) -> tuple[bool, dict[str, Any]]:
            assert self.decision is not None, "the game is over"
            seat, required = self.decision
            game = self.game
            view = game.view(seat)
            text = action.strip()
            inner = text[1:-1]
            if text.startswith("[") and text.endswith("]") and not set("[]") & set(inner):
                text = inner  # the brackets TextArena's ActionFormattingWrapper added
            # The answer as written (reasoning included) is the seat's own: it goes to
            # that seat only, never to the others (a broadcast leaked private reasoning).
            self.state.add_observation(
                from_id=seat,
                to_id=seat,
                message=text,
                observation_type=ta.ObservationType.PLAYER_ACTION,
            )
            fallback = False
            multi = view.phase == "trade" and any(o.to == seat for o in view.offers)
            try:
                # The one reading rule of bohnanza.answers, as LLMAgent reads.
                actions, _passed = read_answer(
                    text, view, self.legal, self.lang, multi=multi, base=BASE
                )
                choice = actions[0] if actions else None
                if choice is None and required:
                    raise CommandError("you must act now; 'pass' is not allowed")
                if choice is not None:
                    try:
                        game.apply(seat, choice)
                    except IllegalAction as exc:
                        # The engine's prose counts seats from 0: the rule says enough.
                        rule = f" ({exc.rule})" if exc.rule else ""
                        shown = render_action(choice, view, self.lang, base=BASE)
                        raise CommandError(
                            f"{shown!r} is not allowed now{rule}; choose one of the legal "
                            "moves listed."
                        ) from None
                    if actions[1:]:
                        self.queued[seat] = (game.turn, list(actions[1:]))
            except CommandError as exc:
                self.state.game_info[seat]["invalid_moves"] += 1
                if not self.state.set_invalid_move(reason=str(exc)):
                    # Asked again: the parser's message, then the same question (the
                    # bounded wrappers show only the latest board).
                    self.state.add_observation(
                        to_id=seat,
                        message=f"Error: {exc}\nAnswer again with a valid command.\n\n"
                        + self.question,
                        observation_type=ta.ObservationType.GAME_BOARD,
                    )
                    self.state.step_info = {
                        "seat": seat,
                        "invalid_move": True,
                        "reason": str(exc),
                        "fallback": False,
                        "seed": self.seed,
                    }
                    return self.state.step(rotate_player=False)  # type: ignore[no-any-return]
                # Out of retries: the heuristic decides rather than eliminating the seat.
                self.state.elimination_order.remove(seat)
                self.state.made_invalid_move = False
                self.state.game_info[seat]["invalid_move"] = False
                self.state.game_info[seat]["fallbacks"] += 1
                fallback = True
                choice = self.fallback[seat].act(view, self.legal, required)
                if choice is not None:
                    game.apply(seat, choice)
            self._last_text = (
                render_action(choice, view, self.lang, base=BASE) if choice is not None else "pass"
            )
            if choice is not None:
                self.memory[seat].mine(choice, view)
            self._advance(choice is not None)
            self.state.step_info = self._info(seat, choice, fallback)
            return self.state.step(rotate_player=False)  # type: ignore[no-any-return]

    return BohnanzaEnv


def env_id(rules: str) -> str:
    """The id of a rule set in TextArena's naming: ``Bohnanza-v0`` for classic (as
    TextArena's own Bohnanza), ``Bohnanza-v0-<rules>`` for the others."""
    return "Bohnanza-v0" if rules == "classic" else f"Bohnanza-v0-{rules}"


def register() -> list[str]:
    """Register every rule set with TextArena: the default id with bounded wrappers,
    ``-raw`` without wrappers, ``-train`` with TextArena's board-game wrappers, and the
    earlier ``Bohnanza-<rules>-v0`` ids (bounded). Ids already taken by something else
    (a TextArena that ships its own ``Bohnanza-v0``) are left alone. Returns ours."""
    _require_textarena()
    from textarena.envs.registration import ENV_REGISTRY, EnvSpec
    from textarena.wrappers import (
        ActionFormattingWrapper,
        GameBoardObservationWrapper,
        GameMessagesAndCurrentBoardObservationWrapper,
    )

    cls = make_env_class()
    bounded = [GameBoardObservationWrapper, ActionFormattingWrapper]
    versions: dict[str, list[Any] | None] = {
        "": bounded,
        "-raw": None,
        "-train": [GameMessagesAndCurrentBoardObservationWrapper, ActionFormattingWrapper],
    }
    ids = []
    for entry in all_rulesets():
        rules = str(entry["rules"])
        names = [(env_id(rules) + suffix, wrappers) for suffix, wrappers in versions.items()]
        names.append((f"Bohnanza-{rules}-v0", bounded))
        for eid, wrappers in names:
            spec = ENV_REGISTRY.get(eid)
            if spec is None:
                ENV_REGISTRY[eid] = EnvSpec(
                    id=eid, entry_point=cls, default_wrappers=wrappers, kwargs={"rules": rules}
                )
            elif getattr(spec.entry_point, "__qualname__", "") != cls.__qualname__:
                continue  # someone else's environment
            ids.append(eid)
    return ids


__all__ = ["BASE", "env_id", "make_env_class", "register", "schedule"]
