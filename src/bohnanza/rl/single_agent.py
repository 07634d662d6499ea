"""A Gymnasium single-agent view of :mod:`bohnanza.rl.bohnanza_v0`: one learning seat, the
other seats played by bots (:mod:`bohnanza.agents`) of the caller's choice.

>>> from bohnanza.rl import SingleAgentEnv
>>> env = SingleAgentEnv(rules="classic", players=4, seat=0, opponents="random", seed=3)
>>> obs, info = env.reset()
>>> bool((obs["action_mask"] == info["action_mask"]).all())
True
>>> obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))

Observations are ``{"observation": float32 vector, "action_mask": int8 vector}`` (the
AEC environment's), or with ``dict_obs=False`` the vector alone; ``info["action_mask"]``
always holds the mask. The reward is zero until the game ends, then the learning seat's
final reward (see ``reward`` in :class:`bohnanza.rl.bohnanza_v0.raw_env`).

An action the mask forbids raises ``ValueError`` (``illegal="raise"``, the default), ends
the episode with reward -1 (``illegal="terminate"``, PettingZoo's convention for illegal
moves), or is replaced by the lowest legal index (``illegal="substitute"``); the last two
set ``info["illegal_action"] = True``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from ..actions import Action
from ..agents import Agent, make_agent
from ..schedule import MAX_TRADE_ROUNDS
from .bohnanza_v0 import raw_env

ILLEGAL = ("raise", "terminate", "substitute")


class SingleAgentEnv(gym.Env[Any, np.int64]):
    """One seat learns, the others are bots.

    Args:
        rules, players, options, reward, max_trade_rounds: as for
            :class:`bohnanza.rl.bohnanza_v0.raw_env`.
        seat: the learning seat (seat 0 starts the game).
        opponents: an agent name (``"random"``, ``"autarky"``) for every other seat, or a
            list with one name or :class:`bohnanza.agents.Agent` per other seat, in seat
            order. Named bots are rebuilt at every reset with seeds drawn from the
            environment's generator, so that a seeded reset replays the same game.
        seed: the seed of the first reset (a later ``reset(seed=...)`` overrides it).
        dict_obs: ``True``: Dict observations with the mask; ``False``: the vector only.
        illegal: what a masked-out action does (see the module docstring).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium's API)

    def __init__(
        self,
        rules: str = "classic",
        players: int | None = None,
        seat: int = 0,
        opponents: str | Sequence[str | Agent] = "random",
        seed: int | None = None,
        *,
        options: Mapping[str, str] | None = None,
        reward: str = "win",
        max_trade_rounds: int = MAX_TRADE_ROUNDS,
        dict_obs: bool = True,
        illegal: str = "raise",
        render_mode: str | None = None,
        action_mode: str = "flat",
        memory: bool = False,
    ) -> None:
        super().__init__()
        self.aec = raw_env(
            rules,
            players,
            options=options,
            reward=reward,
            max_trade_rounds=max_trade_rounds,
            render_mode=render_mode,
            action_mode=action_mode,
            memory=memory,
        )
        n = self.aec.config.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, not {seat}")
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {', '.join(ILLEGAL)}, not {illegal!r}")
        specs: list[str | Agent]
        specs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != n - 1:
            raise ValueError(f"{len(specs)} opponents given for {n - 1} other seats")
        for s in specs:
            if isinstance(s, str):
                make_agent(s)  # raises ConfigError naming the known agents
            elif not isinstance(s, Agent):
                raise TypeError(f"an opponent must be an agent name or an Agent, not {s!r}")
        self.seat = seat
        self.opponent_specs = specs
        self.bots: dict[int, Agent] = {}
        self.dict_obs = dict_obs
        self.illegal = illegal
        self.render_mode = render_mode
        self._first_seed = seed
        self.agent_name = self.aec.possible_agents[seat]
        self.action_space = spaces.Discrete(self.aec.n_actions)
        inner = self.aec.observation_spaces[self.agent_name]
        self.observation_space = inner if dict_obs else inner["observation"]

    @property
    def encoding(self) -> Any:
        return self.aec.encoding

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is None and self._first_seed is not None:
            seed, self._first_seed = self._first_seed, None
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2**31 - 1))
        others = [s for s in range(self.aec.config.players) if s != self.seat]
        self.bots = {}
        for s, spec in zip(others, self.opponent_specs, strict=True):
            bot_seed = int(self.np_random.integers(0, 2**31 - 1))
            self.bots[s] = make_agent(spec, bot_seed) if isinstance(spec, str) else spec
        self.aec.reset(options={"game_seed": game_seed})
        self._play_bots()
        return self._observe()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.aec.game is None:
            raise RuntimeError("call reset() first")
        if self.aec.terminations.get(self.agent_name, True):
            raise RuntimeError("the episode is over: call reset()")
        index = int(action)
        mask = self.aec._current_mask()
        illegal = not (0 <= index < len(mask) and mask[index])
        if illegal:
            if self.illegal == "raise":
                raise ValueError(
                    f"action {index} is not legal now (see info['action_mask'] / obs['action_mask'])"
                )
            if self.illegal == "terminate":
                obs, info = self._observe()
                info["illegal_action"] = True
                self.aec.terminations[self.agent_name] = True
                return obs, -1.0, True, False, info
            index = int(np.flatnonzero(mask)[0])
        self.aec.step(index)
        self._play_bots()
        done = self.aec._g.over
        reward = float(self.aec._cumulative_rewards.get(self.agent_name, 0.0)) if done else 0.0
        obs, info = self._observe()
        if illegal:
            info["illegal_action"] = True
        return obs, reward, done, False, info

    def step_action(
        self, action: Action | None, legal: Sequence[Action] | None = None
    ) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Like :meth:`step`, with an engine action (``None``: pass, where allowed) instead
        of an index: for scripted players in the learning seat (baselines)."""
        if self.aec.game is None:
            raise RuntimeError("call reset() first")
        self.aec.step_action(action, legal)
        self._play_bots()
        done = self.aec._g.over
        reward = float(self.aec._cumulative_rewards.get(self.agent_name, 0.0)) if done else 0.0
        obs, info = self._observe()
        return obs, reward, done, False, info

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ------------------------------------------------------------------ helpers

    def action_masks(self) -> NDArray[np.int8]:
        """The current mask (the name sb3-contrib's MaskablePPO looks for)."""
        return self.aec.action_mask()

    def _play_bots(self) -> None:
        aec = self.aec
        g = aec._g
        while not g.over and aec.seat != self.seat:
            seat = aec.seat
            bot = self.bots[seat]
            legal = g.legal_actions(seat, bot.wants_offers(g.turn))
            if not legal and not aec.required:
                aec.step_action(None)
                continue
            choice = bot.act(g.view(seat, cached=True), legal, aec.required)
            aec.step_action(choice, legal)

    def _observe(self) -> tuple[Any, dict[str, Any]]:
        obs = self.aec.observe(self.agent_name)
        info: dict[str, Any] = {"action_mask": obs["action_mask"].copy()}
        g = self.aec._g
        if g.over:
            info["scores"] = list(g.scores or ())
            info["winners"] = list(g.winners or ())
        return (obs if self.dict_obs else obs["observation"]), info


__all__ = ["ILLEGAL", "SingleAgentEnv"]
