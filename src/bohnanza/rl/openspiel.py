"""Bohnanza as an OpenSpiel Python game (``python_bohnanza``), and OpenSpiel's
information-set MCTS as a :mod:`bohnanza.agents` agent (``openspiel-ismcts:SIMS``).

Needs the optional ``open-spiel`` wheel (``pip install open-spiel``; see docs/rl.md).

The game wraps the PettingZoo environment in the offer-builder action mode
(:mod:`bohnanza.rl.builder`): OpenSpiel's actions are the builder's indices, so every
offer the engine allows can be played, and the legal actions are its mask. Players are
the seats; the player to act is the environment's agent to act (the driver's order).

* Chance: the root is a chance node whose outcome is the game seed (``CHANCE_SEEDS``
  equally likely outcomes). The seed fixes the deal and every later draw and reshuffle
  (the engine's own seeded generator), so the root holds all of the game's chance; the
  draws are not separate chance nodes (OpenSpiel's algorithms that need them, such as
  chance-sampling CFR over the full tree, are out of reach of a game this size anyway).
* Information: ``information_state_string``/``tensor`` and ``observation_string``/
  ``tensor`` are the seat's view (the environment's observation vector: the flat
  observation, the open draft and the memory part), never a hidden card; the
  information state is not the full action history (perfect recall would make every
  node of a 7,000-step game unique), so it is the seat's view plus its memory.
* ``resample_from_infostate`` deals the hidden cards at random, consistent with the
  seat's view (:func:`bohnanza.determinise.determinise`): what ISMCTS samples worlds with.
* Returns: the environment's ``reward="win"`` (+1 a sole winner, 0 a shared win, -1
  otherwise), at the end only.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]

from ..actions import Action
from ..agents.base import Agent
from ..determinise import determinise
from ..game import Game
from ..rules import make_config, player_range
from ..views import View
from .bohnanza_v0 import raw_env

#: Outcomes of the root chance node (game seeds 0 … CHANCE_SEEDS - 1).
CHANCE_SEEDS = 1 << 16
#: Longest game in builder steps (a bound for OpenSpiel's game info, not enforced).
MAX_GAME_LENGTH = 200_000

SHORT_NAME = "python_bohnanza"


def _game_type(n_max: int) -> Any:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Bohnanza (bohnanza package, offer-builder actions)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=n_max,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"rules": "classic", "players": 3, "options": "", "max_steps": 0},
    )


def _options(text: str) -> dict[str, str]:
    """``"remove=glutton,other=x"`` -> a dict (OpenSpiel parameters are scalars)."""
    out: dict[str, str] = {}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        out[key.strip()] = value.strip()
    return out


def _clone_env(env: raw_env) -> raw_env:
    return env.clone()


def coin_standing(env: raw_env) -> np.ndarray[Any, Any]:
    """Each seat's coins minus the mean of the others', squashed into (-1, 1): the value
    of an unfinished game (a capped one, and ISMCTS's leaves)."""
    assert env.game is not None
    n = env.config.players
    coins = [env.game.coins(s) for s in range(n)]
    total = sum(coins)
    diff = [(c - (total - c) / (n - 1)) / 4.0 for c in coins]
    return np.tanh(np.asarray(diff, dtype=np.float64))


#: Every game built, by its parameters (see BohnanzaState.bgame).
_GAMES: dict[tuple[str, int, str, int], BohnanzaGame] = {}


class BohnanzaGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game for one configuration (parameters ``rules``, ``players``,
    ``options`` as ``"key=value,..."``)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        rules = str(params.get("rules", "classic"))
        lo, hi = player_range(rules)
        players = int(params.get("players", min(max(3, lo), hi)))
        options = _options(str(params.get("options", "")))
        max_steps = int(params.get("max_steps", 0))
        self.rules, self.players, self.options = rules, players, options
        self.config = make_config(rules, players, options)
        self.template = raw_env(rules, players, options=options, action_mode="builder", memory=True)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.template.n_actions,
            max_chance_outcomes=CHANCE_SEEDS,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(
            _game_type(max(hi, players)),
            info,
            {
                "rules": rules,
                "players": players,
                "options": str(params.get("options", "")),
                "max_steps": max_steps,
            },
        )
        #: Steps after which the game ends early, scored by the coin standing (0: never;
        #: for quick checks such as OpenSpiel's random simulations in CI).
        self.max_steps = max_steps
        self.key = (rules, players, str(params.get("options", "")), max_steps)
        _GAMES[self.key] = self

    def new_initial_state(self) -> BohnanzaState:
        return BohnanzaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> BohnanzaObserver:
        """The observer behind the information state and observation (both the seat's
        view with its memory: see the module docstring)."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return BohnanzaObserver(int(self.template.obs_size))


class BohnanzaObserver:
    """OpenSpiel's PyObserver: ``tensor`` (the environment's observation vector of the
    player) and its string form."""

    def __init__(self, size: int) -> None:
        self.tensor = np.zeros(size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: BohnanzaState, player: int) -> None:
        self.tensor[:] = state._tensor(player)

    def string_from(self, state: BohnanzaState, player: int) -> str:
        return state._string(player)


class BohnanzaState(pyspiel.State):  # type: ignore[misc]
    """One state: before the deal (a chance node), then the environment's state."""

    def __init__(self, game: BohnanzaGame, env: raw_env | None = None) -> None:
        super().__init__(game)
        # The Python game object is looked up, not held: OpenSpiel's clone deep-copies a
        # state's attributes, and a copied game loses its Python attributes.
        self._key = game.key
        self.env = env
        self.steps = 0

    @property
    def bgame(self) -> BohnanzaGame:
        return _GAMES[self._key]

    # ---------------------------------------------------------------- OpenSpiel API

    def current_player(self) -> int:
        env = self.env
        if env is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return int(env.seat)

    def _legal_actions(self, player: int) -> list[int]:
        env = self.env
        if env is None or player != self.current_player():
            return []
        return [int(i) for i in np.flatnonzero(env._current_mask())]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / CHANCE_SEEDS
        return [(s, p) for s in range(CHANCE_SEEDS)]

    def _apply_action(self, action: int) -> None:
        if self.env is None:
            env = _clone_env(self.bgame.template)
            env.set_game(Game(self.bgame.config, seed=int(action), events=False))
            self.env = env
            return
        self.env.step(int(action))
        self.steps += 1

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed {action}"
        return str(self.bgame.template.describe(int(action)))

    def is_terminal(self) -> bool:
        env = self.env
        if env is None or env.game is None:
            return False
        cap = self.bgame.max_steps
        return env.game.over or (cap > 0 and self.steps >= cap)

    def returns(self) -> list[float]:
        env = self.env
        if env is None or env.game is None or not self.is_terminal():
            return [0.0] * self.bgame.players
        if env.game.over:
            return [float(r) for r in env.final_rewards(env.game)]
        return [float(x) for x in coin_standing(env)]

    def _tensor(self, player: int) -> np.ndarray[Any, Any]:
        if self.env is None:
            return np.zeros(self.bgame.template.obs_size, dtype=np.float32)
        obs: np.ndarray[Any, Any] = self.env.observe(f"player_{player}")["observation"]
        return obs

    def _string(self, player: int) -> str:
        if self.env is None:
            return f"p{player} before the deal"
        obs = self.env.observe(f"player_{player}")["observation"]
        return f"p{player} " + np.round(obs, 4).tobytes().hex()

    def resample_from_infostate(self, player: int, sampler: Any = None) -> BohnanzaState:
        """A state the acting seat cannot tell from this one: the hidden cards dealt at
        random (what ISMCTS samples its worlds with)."""
        env = self.env
        if env is None or env.game is None:
            return self.clone()  # type: ignore[no-any-return]
        # OpenSpiel's sampler draws numbers in [0, 1) (called); without one, a fixed
        # generator per state.
        draw = float(sampler()) if callable(sampler) else random.Random(env._version).random()
        seed = random.Random(int(draw * 2**31))
        new = _clone_env(env)
        world = determinise(env.view(player), seed)
        new.game = world
        new._version += 1
        out = BohnanzaState(self.bgame, new)
        out.steps = self.steps
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> BohnanzaState:
        new = BohnanzaState(self.bgame, None if self.env is None else _clone_env(self.env))
        new.steps = self.steps
        return new

    def __str__(self) -> str:
        env = self.env
        if env is None or env.game is None:
            return "before the deal"
        return f"turn {env.game.turn}, seat {env.seat} to act, phase {env.game.phase}"


def register() -> None:
    """Register ``python_bohnanza`` with OpenSpiel (once)."""
    if SHORT_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_game_type(7), BohnanzaGame)


register()


def load(rules: str = "classic", players: int = 3, options: str = "", max_steps: int = 0) -> Any:
    """The game through OpenSpiel's own loader (``pyspiel.load_game``)."""
    params = {"rules": rules, "players": players, "options": options, "max_steps": max_steps}
    return pyspiel.load_game(SHORT_NAME, params)


# ---------------------------------------------------------------- ISMCTS as an agent


class CoinEvaluator:
    """ISMCTS's leaf evaluator: no rollouts (a random Bohnanza game is thousands of
    steps), the seats' coin standing instead: each seat's coins minus the others' mean,
    squashed to [-1, 1]; a finished game's true returns. Uniform priors."""

    def evaluate(self, state: BohnanzaState) -> np.ndarray[Any, Any]:
        if state.is_terminal():
            return np.asarray(state.returns(), dtype=np.float64)
        assert state.env is not None
        return coin_standing(state.env)

    def prior(self, state: BohnanzaState) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class ISMCTSAgent(Agent):
    """OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts``) as a
    :mod:`bohnanza.agents` agent (spec ``openspiel-ismcts:SIMS``, SIMS simulations per
    step, default 30). At each question it deals the hidden cards of its view at random
    (:func:`~bohnanza.determinise.determinise`), continues that world in the builder
    environment with itself to act, and searches each builder step (a whole offer is
    several searched steps) until the steps compose an engine action. Its leaves are
    valued by the coin standing (:class:`CoinEvaluator`: no roll-outs)."""

    name = "openspiel-ismcts"

    def __init__(self, seed: int = 0, sims: int = 30) -> None:
        super().__init__(seed)
        from open_spiel.python.algorithms import ismcts  # type: ignore[import-not-found,import-untyped,unused-ignore]

        if sims < 1:
            raise ValueError(f"sims must be at least 1, not {sims}")
        self.sims = sims
        self.rng = np.random.RandomState(seed % 2**32)
        self._ismcts = ismcts
        self.decisions = 0

    @staticmethod
    def spec_params(text: str) -> dict[str, Any]:
        """``openspiel-ismcts:SIMS``."""
        text = text.strip()
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"expected a positive number of simulations, not {text!r}")
        return {"sims": int(text)}

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if len(legal) == 1 and required:
            return legal[0]
        cfg = view.config
        if view.seat is None:
            raise ValueError("an agent plays a seat")
        og = _game_for(cfg.rules, cfg.players, ",".join(f"{k}={v}" for k, v in cfg.options.items()))
        world = determinise(view, random.Random(int(self.rng.randint(2**31))))
        env = og.template.clone()
        env.set_game(world)
        # The driver asks this seat now: the world goes on from its question.
        env._select(view.seat, required=required, slot=not required)
        state = BohnanzaState(og, env)
        bot = self._ismcts.ISMCTSBot(
            og,
            CoinEvaluator(),
            uct_c=2.0,
            max_simulations=self.sims,
            random_state=self.rng,
            use_observation_string=True,
            allow_inconsistent_action_sets=True,
        )
        builder = env.builder
        assert builder is not None
        for _ in range(64):  # a draft has at most 12 + 12 + 1 + 1 steps
            self.decisions += 1
            index = int(bot.step(state))
            done, _ = builder.step(env.view(), index, copy.deepcopy(env.draft))
            if done.done:
                # The builder masks in only what the engine accepts from this seat's own
                # cards and the public table: the same in the real game as in the world.
                return done.action
            state.apply_action(index)
            bot.reset()
        return None if not required else legal[0]

    def stats(self) -> Mapping[str, float]:
        return {"search_steps": float(self.decisions)}


def _game_for(rules: str, players: int, options: str) -> BohnanzaGame:
    key = (rules, players, options, 0)
    got = _GAMES.get(key)
    if got is None:
        got = BohnanzaGame({"rules": rules, "players": players, "options": options})
    return got


__all__ = [
    "CHANCE_SEEDS",
    "SHORT_NAME",
    "BohnanzaGame",
    "BohnanzaState",
    "CoinEvaluator",
    "ISMCTSAgent",
    "load",
    "register",
]
