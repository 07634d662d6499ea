"""``bohnanza_v0``: Bohnanza and Fasolki as a PettingZoo AEC environment with action masks.

>>> from bohnanza.rl import bohnanza_v0
>>> env = bohnanza_v0.env(rules="classic", players=4)
>>> env.reset(seed=1)
>>> obs, reward, termination, truncation, info = env.last()
>>> sorted(obs), env.agent_selection
(['action_mask', 'observation'], 'player_0')
>>> env.step(int(obs["action_mask"].nonzero()[0][0]))

Agents are ``player_0`` … ``player_{n-1}`` (seat order; seat 0 starts). The agent to act
is the one the game waits for, in the order of :mod:`bohnanza.driver` (both ask
:class:`bohnanza.schedule.TradeScheduler`): the active seat in
phases 1 and 3 (then every seat with cards in its trade area), the owner of a pending
decision (a module rule's question, ``View.pending``) before anybody else, and in phase 2 *rounds*: the
active seat, then each other seat once, each taking one action or passing. A round in
which nobody acted, or the ``max_trade_rounds``-th round, ends trading (the environment
applies ``end_trading`` for the active seat, as the driver does when the trading time is
up); the active seat may also end it itself.

Rewards are zero until the game ends; then every agent receives its reward at once
(``reward="win"``: +1 for a sole winner, 0 for a shared win, -1 for every other seat;
``reward="coins"``: own coins minus the mean of the other seats' coins) and every agent
terminates. Nothing is truncated: the game always ends.

The action encoding and the observation are described in ``docs/rl.md`` and implemented
in :mod:`bohnanza.rl.encoding`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import logger, spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from ..actions import Action
from ..errors import IllegalAction
from ..game import Game
from ..rules import make_config, player_range
from ..schedule import MAX_TRADE_ROUNDS, AskKind, AskLoop, TradeScheduler
from ..text import render_view
from ..views import View
from .builder import Builder, Draft
from .encoding import Encoding
from .memory import Memory

ObsDict = dict[str, NDArray[Any]]

REWARDS = ("win", "coins")
#: ``flat``: one index per offer template (the original encoding, the default for old
#: code); ``builder``: offers and payments composed over several masked steps
#: (:mod:`bohnanza.rl.builder`).
ACTION_MODES = ("flat", "builder")


def env(**kwargs: Any) -> Any:
    """The environment with PettingZoo's order-enforcing wrapper (the usual entry point).
    Takes the arguments of :class:`raw_env`."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def default_players(rules: str, players: int | None) -> int:
    """``players``, or 4 moved into the rule set's range when not given."""
    if players is not None:
        return players
    lo, hi = player_range(rules)
    return min(max(4, lo), hi)


class raw_env(AECEnv):  # type: ignore[misc]
    """Bohnanza as an AEC environment.

    Args:
        rules: a rule set such as ``"classic"`` or ``"fasolki+duel"`` (see
            :func:`bohnanza.rules.all_rulesets`).
        players: the player count (default: 4, or the nearest the rule set allows).
        options: game options, e.g. ``{"remove": "glutton"}`` for 4–5-player
            ``fasolki+new-varieties``.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text) or ``"human"``
            (``render()`` prints it).
        reward: ``"win"`` (default) or ``"coins"``; see the module docstring.
        max_trade_rounds: phase-2 rounds before the trading time is up (as the driver).
        action_mode: ``"flat"`` (default: offer templates, one index each) or
            ``"builder"`` (offers and payments composed step by step, docs/rl.md).
        memory: append the memory part to the observation (recent trading per seat,
            offers between other seats, unseen cards per variety; docs/rl.md).
        text_observation: put the acting agent's view as text (``bohnanza.text``) in
            its ``infos[agent]["text"]``, for agents that read.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's API)
        "name": "bohnanza_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: str = "classic",
        players: int | None = None,
        *,
        options: Mapping[str, str] | None = None,
        modules: Sequence[str] = (),
        render_mode: str | None = None,
        reward: str = "win",
        max_trade_rounds: int = MAX_TRADE_ROUNDS,
        action_mode: str = "flat",
        memory: bool = False,
        text_observation: bool = False,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        if action_mode not in ACTION_MODES:
            raise ValueError(
                f"action_mode must be one of {', '.join(ACTION_MODES)}, not {action_mode!r}"
            )
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if max_trade_rounds < 1:
            raise ValueError("max_trade_rounds must be at least 1")
        self.config = make_config(
            rules, default_players(rules, players), dict(options or {}), tuple(modules)
        )
        self.encoding = Encoding(self.config, max_trade_rounds)
        self.action_mode = action_mode
        #: The builder layout (``action_mode="builder"``), else ``None``.
        self.builder: Builder | None = Builder(self.encoding) if action_mode == "builder" else None
        #: The offer or payment the agent to act is composing (builder mode).
        self.draft: Draft | None = None
        self._draft_blocked = False  # a draft was cancelled in this decision
        #: The public record behind the memory part (``memory=True``), else ``None``.
        self.memory: Memory | None = Memory(self.encoding) if memory else None
        self.text_observation = text_observation
        self.render_mode = render_mode
        self.reward_mode = reward
        self.max_trade_rounds = max_trade_rounds
        n = self.config.players
        self.possible_agents: list[str] = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        size = self.n_actions
        obs_size = self.obs_size
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (obs_size,), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (size,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._rng = np.random.default_rng()
        self.game: Game | None = None
        self.seat = 0  # the seat to act
        self.required = True  # False: a phase-2 round slot, where passing is allowed
        self._slot = False
        self.scheduler = TradeScheduler(max_trade_rounds)  # who is asked next
        self._version = 0  # changes whenever the state changes
        self._mask_key = -1
        self._mask: NDArray[np.int8] = np.zeros(size, dtype=np.int8)
        self._legal: list[Action] = []  # the engine's list behind ``_mask``
        self._views: dict[int, View] = {}
        self._views_key = -1
        self.agents: list[str] = []
        self.infos: dict[str, dict[str, Any]] = {}

    # ------------------------------------------------------------------ spaces

    @property
    def n_actions(self) -> int:
        """The size of the action space (of the flat encoding or of the builder)."""
        return self.builder.n_actions if self.builder is not None else self.encoding.n_actions

    @property
    def obs_size(self) -> int:
        """The observation vector's size (the builder mode appends the open draft)."""
        extra = self.builder.draft_size if self.builder is not None else 0
        if self.memory is not None:
            extra += self.memory.size
        return self.encoding.obs_size + extra

    def describe(self, index: int) -> str:
        """A short name of an action index in this environment's action mode."""
        if self.builder is not None:
            return self.builder.describe(index)
        return self.encoding.describe(index)

    def segment_of(self, index: int) -> tuple[str, int]:
        """(segment, offset) of an action index in this environment's action mode."""
        if self.builder is not None:
            return self.builder.segment_of(index)
        return self.encoding.segment_of(index)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Deal a new game. ``seed`` reseeds the environment's generator, from which each
        game's seed is drawn; ``options={"game_seed": s}`` plays game seed ``s`` instead.
        Other option keys are ignored (game options are fixed at construction)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        game_seed = int(self._rng.integers(0, 2**31 - 1))
        if options and isinstance(options.get("game_seed"), int):
            game_seed = int(options["game_seed"])
        self.set_game(Game(self.config, seed=game_seed, events=False))

    def set_game(self, game: Game) -> None:
        """Continue from ``game`` (a state of this configuration, e.g. from
        :meth:`bohnanza.game.Game.from_dict`): for tests, puzzles and analysis. Trading
        rounds restart from the first."""
        if game.config != self.config:
            raise ValueError("the game's configuration differs from the environment's")
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.scheduler.reset()
        self._version += 1
        self.draft = None
        self._draft_blocked = False
        if self.memory is not None:
            self.memory.reset(game.view(None))
        self._settle()

    def clone(self) -> raw_env:
        """An independent copy of the environment's state: the game cloned, the
        scheduler, rewards and draft copied; the encoding, builder and their caches
        shared (for search: OpenSpiel's states, what-if analysis). ``copy.deepcopy``
        gives the same."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.game = self.game.clone() if self.game is not None else None
        new.scheduler = copy.copy(self.scheduler)
        new.scheduler.actions = dict(self.scheduler.actions)
        new.draft = copy.deepcopy(self.draft)
        for key in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
            if key in self.__dict__:
                setattr(new, key, dict(getattr(self, key)))
        new.infos = {a: dict(i) for a, i in self.infos.items()}
        new.agents = list(self.agents)
        new._views = {}
        new._views_key = -1
        new._mask_key = -1
        new._rng = copy.deepcopy(self._rng)
        if self.memory is not None:
            new.memory = copy.copy(self.memory)
            new.memory.copy_from(self.memory)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> raw_env:
        return self.clone()

    # ------------------------------------------------------------------ whose turn

    def _settle(self) -> None:
        """Run the automatic steps (trading time up) and pick the agent to act, in the
        order of the one ask loop (:class:`bohnanza.schedule.AskLoop`, as the driver)."""
        g = self._g
        for ask in AskLoop(g, self.scheduler):
            forced = ask.forced
            if forced is not None:
                # The trading time is up (R-TRADE-6): the driver's rule.
                g.apply(ask.seat, forced)
                self._version += 1
                if self.memory is not None:
                    self.memory.record(ask.seat, forced, g.view(None))
                continue
            self._select(ask.seat, required=ask.required, slot=ask.kind is AskKind.SLOT)
            return
        self._finish()

    def _select(self, seat: int, *, required: bool, slot: bool) -> None:
        self._version += 1  # a new decision: the cached mask is stale
        self.draft = None
        self._draft_blocked = False
        self.seat = seat
        self.required = required
        self._slot = slot
        self.agent_selection = self.possible_agents[seat]
        if self.text_observation:
            self.infos[self.agent_selection]["text"] = render_view(self.view(seat))

    def _finish(self) -> None:
        g = self._g
        for a, r in zip(self.agents, self.final_rewards(g), strict=True):
            self.rewards[a] = r
            self.terminations[a] = True

    def final_rewards(self, game: Game) -> list[float]:
        """Every seat's reward for a finished game."""
        scores = game.scores or ()
        winners = game.winners or ()
        n = self.config.players
        if self.reward_mode == "coins":
            total = sum(scores)
            return [float(scores[s] - (total - scores[s]) / (n - 1)) for s in range(n)]
        out = []
        for s in range(n):
            if s in winners:
                out.append(1.0 if len(winners) == 1 else 0.0)
            else:
                out.append(-1.0)
        return out

    @property
    def _g(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game

    @property
    def trade_round(self) -> int:
        """Finished phase-2 rounds of this turn (0 outside phase 2)."""
        return self.scheduler.trade_round(self._g)

    # ------------------------------------------------------------------ observations

    def view(self, seat: int | None = None) -> View:
        """The view of ``seat`` (default: the seat to act); one per state and seat."""
        if self._views_key != self._version:
            self._views.clear()
            self._views_key = self._version
        s = self.seat if seat is None else seat
        v = self._views.get(s)
        if v is None:
            # Whole at once: the encoding reads every part, and the env keeps it.
            v = self._views[s] = self._g.view(s, cached=True, lazy=False)
        return v

    def legal_actions(self, offers: bool = False) -> list[Action]:
        """The engine's legal actions of the seat to act."""
        return self._g.legal_actions(self.seat, offers)

    def action_mask(self) -> NDArray[np.int8]:
        """The legal-action mask of the agent to act (a fresh copy)."""
        return self._current_mask().copy()

    def _current_mask(self) -> NDArray[np.int8]:
        if self._mask_key != self._version:
            g = self._g
            if g.over:
                self._mask = np.zeros(self.n_actions, dtype=np.int8)
                self._legal = []
            else:
                legal = self._legal = g.legal_actions(self.seat, False)
                view = self.view()
                self._mask = self.encoding.mask(view, legal, not self.required)
                if self.builder is not None:
                    self._mask = self.builder.mask(
                        g, self.seat, view, self._mask, self.draft, self._draft_blocked
                    )
                if not np.count_nonzero(self._mask):  # pragma: no cover - guarded by the tests
                    raise RuntimeError(
                        f"no encodable action for seat {self.seat} in {g!r}: {legal}"
                    )
            self._mask_key = self._version
        return self._mask

    def observe(self, agent: str) -> ObsDict:
        seat = self.agent_name_mapping[agent]
        g = self._g
        view = self.view(seat)
        obs = self.encoding.observe(view, self.trade_round)
        if self.builder is not None:
            draft = self.draft if seat == self.seat else None
            obs = np.concatenate([obs, self.builder.observe_draft(view, draft)])
        if self.memory is not None:
            obs = np.concatenate([obs, self.memory.block(view)])
        if agent == self.agent_selection and not g.over:
            mask = self._current_mask().copy()
        else:
            mask = np.zeros(self.n_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    # ------------------------------------------------------------------ stepping

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must choose an action index, not None")
        index = int(action)
        mask = self._current_mask()
        if not 0 <= index < len(mask) or not mask[index]:
            raise ValueError(
                f"action {index} is not legal for {agent} now (see the observation's action_mask)"
            )
        self._cumulative_rewards[agent] = 0.0
        if self.builder is not None:
            done, self.draft = self.builder.step(self.view(), index, self.draft)
            if not done.done:
                if self.draft is None:
                    self._draft_blocked = True  # cancelled: no new draft in this decision
                self._version += 1  # the same agent acts again, with a new mask
                self._clear_rewards()
                return
            self._apply(done.action, self._legal)
            return
        engine_action = self.encoding.decode(self.view(), index)
        # The engine's list behind the mask is for this same state: a decoded action found
        # in it needs no second check (offer templates and canonical accepts may not be).
        self._apply(engine_action, self._legal)

    def step_action(self, action: Action | None, legal: Sequence[Action] | None = None) -> None:
        """Step the agent to act with an engine action (``None``: pass, where allowed),
        bypassing the encoding: how scripted bots play in the environment. With ``legal``
        (the engine's list for this same state) a listed action is not checked again."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            raise ValueError("the game is over: step the terminated agents with None")
        if action is None and self.required:
            raise IllegalAction(f"seat {self.seat} must act now; it cannot pass", seat=self.seat)
        self._cumulative_rewards[agent] = 0.0
        self._apply(action, legal)

    def _apply(self, action: Action | None, legal: Sequence[Action] | None) -> None:
        g = self._g
        slot = self._slot
        if action is not None:
            g.apply(self.seat, action, trusted=legal is not None and action in legal)
            self._version += 1
            if self.memory is not None:
                self.memory.record(self.seat, action, g.view(None))
        if slot:
            self.scheduler.report(action is not None)
        self._clear_rewards()
        self._settle()
        self._accumulate_rewards()

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | None:
        if self.render_mode is None:
            logger.warn("render() called without a render_mode; use render_mode='ansi'")
            return None
        g = self._g
        mask = None if g.over else self._current_mask()
        text = self.encoding.render(self.view(), mask, describe=self.describe)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


__all__ = ["ACTION_MODES", "REWARDS", "default_players", "env", "raw_env"]
