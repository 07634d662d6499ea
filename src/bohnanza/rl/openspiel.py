"""Bohnanza as an OpenSpiel Python game (``python_bohnanza``), and OpenSpiel's
information-set MCTS as a :mod:`bohnanza.agents` agent (``openspiel-ismcts:SIMS``; with the
value model at its leaves, ``openspiel-ismcts:SIMS:value``).

Needs the optional ``open-spiel`` wheel (``pip install open-spiel``; see docs/rl.md).

The game wraps the PettingZoo environment in the offer-builder action mode
(:mod:`bohnanza.rl.builder`): OpenSpiel's actions are the builder's indices, so every
offer the engine allows can be played, and the legal actions are its mask. Players are
the seats; the player to act is the environment's agent to act (the driver's order).

* Chance: every card that leaves the draw pile is an explicit chance node, one card per
  node, whose outcomes are the distinct cards (variety and kind) still in the pile with
  their shares of it. The deal is the first such nodes (seat 0's hand, then seat 1's, …,
  then whatever a module's set-up draws). A player action that draws is followed by a
  chance node per card it draws (ending phase 1 turns up two cards, the end of a turn
  refills the hand, a module's step may turn up cards, a harvest may (by a module's rule) take
  coins from the pile), and takes effect once its cards are chosen. The engine draws
  inside :meth:`bohnanza.game.Game.apply`, and how many cards an action draws is only
  known by running it, so the state tries the action on a copy
  (:meth:`BohnanzaState._resolve`) with the cards chosen so far on top of the pile: if
  the try draws more, the next card is a chance node and the try is repeated with it
  (the same for every rule set and module). After a
  reshuffle (R-DECK-1) the new pile's draws are chance nodes over the shuffled discard
  pile: the game's shuffle generator is a :class:`_ChanceShuffle` that puts the chosen
  cards on top. Nothing about the pile's order is kept in the state: a card's identity
  is decided when it is drawn, never before.
* Information: ``observation_string``/``tensor`` are the seat's present view (the
  environment's observation vector: the flat observation, the open draft and the memory
  part). ``information_state_string``/``tensor`` add perfect recall: the seat's own
  history, i.e. every builder action it took and every observation it had after each
  change of the game (an engine action or a pass of anybody, the deal), in order, kept
  as a SHA-256 chain (:class:`_Recall`). A change that leaves the seat's observation as
  it was (another seat's draft step, a pass nobody can see) adds nothing, so that two
  histories the seat cannot tell apart give the same information state; no hidden card
  enters it, since the observation never shows one. The tensor is the observation, then
  the chain's 256 bits and the number of recorded entries (a fixed-size tensor cannot
  hold a history of thousands of steps: the bits identify it, they are no features).
* ``resample_from_infostate`` deals the hidden cards at random, consistent with the
  seat's view and with what it remembers of its earlier views
  (:class:`bohnanza.determinise.SeenCards`: cards that left play, hand cards another
  seat offered and still holds after the offer lapsed), which the state keeps per seat
  as play goes on where it keeps the history (``recall``; the ISMCTS agent hands its
  own memory to its root state): what ISMCTS samples worlds with.
* Returns: the environment's ``reward="win"`` (+1 a sole winner, 0 a shared win, -1
  otherwise), at the end only.
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections.abc import Mapping, MutableSequence, Sequence
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]

from ..actions import Action
from ..agents.base import Agent
from ..determinise import Determiniser, SeenCards, determinise
from ..game import Game
from ..rules import GameConfig, make_config, player_range
from ..views import View
from .bohnanza_v0 import raw_env

#: Longest game in builder steps (a bound for OpenSpiel's game info, not enforced).
MAX_GAME_LENGTH = 200_000
#: Bits of the history chain in the information state tensor.
RECALL_BITS = 256
#: The pending transition of the root: the deal (player actions are indices >= 0).
_DEAL = -1
#: Builder segments whose steps only change the open draft, never the game.
_DRAFT_ONLY = frozenset({"want", "partner", "cancel"})

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
        parameter_specification={
            "rules": "classic",
            "players": 3,
            "options": "",
            "max_steps": 0,
            "recall": True,
        },
    )


def _options(text: str) -> dict[str, str]:
    """``"remove:glutton,other:x"`` (or ``=`` for ``:``) -> a dict (OpenSpiel parameters
    are scalars)."""
    out: dict[str, str] = {}
    for part in filter(None, text.split(",")):
        key, _, value = part.replace("=", ":").partition(":")
        out[key.strip()] = value.strip()
    return out


def _options_text(options: dict[str, str]) -> str:
    """The game string's form of the options: ``key:value`` pairs, because OpenSpiel's
    game-string parser (``python_bohnanza(options=...)``, which serialised states start
    with) splits every parameter at ``=``."""
    return ",".join(f"{k}:{v}" for k, v in sorted(options.items()))


def standing(coins: Sequence[float]) -> np.ndarray[Any, Any]:
    """Each seat's coins minus the mean of the others', over 4 and squashed into (-1, 1)
    (a lead of 4 coins is worth tanh(1) = 0.76): the value of an unfinished game on the
    scale of the win returns (+1 a sole winner, -1 a loser)."""
    n = len(coins)
    total = sum(coins)
    diff = [(c - (total - c) / (n - 1)) / 4.0 for c in coins]
    return np.tanh(np.asarray(diff, dtype=np.float64))


def coin_standing(env: raw_env) -> np.ndarray[Any, Any]:
    """The :func:`standing` of the seats' coins now: the value of an unfinished game (a
    capped one, and ISMCTS's coin leaves)."""
    assert env.game is not None
    return standing([env.game.coins(s) for s in range(env.config.players)])


class CardClasses:
    """The chance outcomes of a draw: the distinct cards of a configuration (variety and
    kind; cards alike in both are interchangeable for the rules), in card-id order."""

    def __init__(self, config: GameConfig) -> None:
        pairs: list[tuple[int, str]] = []
        self.of_card: list[int] = []
        for v, k in zip(config.card_variety, config.card_kind, strict=True):
            if (v, k) not in pairs:
                pairs.append((v, k))
            self.of_card.append(pairs.index((v, k)))
        self.names = [config.varieties[v] + (f"({k})" if k else "") for v, k in pairs]

    def __len__(self) -> int:
        return len(self.names)

    def outcomes(self, pool: Sequence[int]) -> tuple[list[tuple[int, float]], dict[int, int]]:
        """The outcomes of drawing one card of ``pool`` (card ids, in any order): each
        class present with its share, and the card that stands for each (its lowest id:
        which one of a class is drawn makes no difference, and taking a fixed one keeps
        the state a function of the outcomes)."""
        count: dict[int, int] = {}
        pick: dict[int, int] = {}
        for card in sorted(pool):
            c = self.of_card[card]
            count[c] = count.get(c, 0) + 1
            pick.setdefault(c, card)
        total = len(pool)
        return [(c, count[c] / total) for c in sorted(count)], pick


class _ChanceShuffle(random.Random):
    """The shuffle generator of a game being tried (:meth:`BohnanzaState._resolve`): a
    reshuffle puts the cards already chosen for the new pile's first draws on its top,
    in draw order, and records the pile (the next chance node's outcomes are its cards).
    A subclass of ``random.Random`` because the engine's generator slot takes one (in the
    compiled build too)."""

    def __init__(self, fixed: Sequence[int], first_pile: int) -> None:
        super().__init__(0)
        self.fixed = list(fixed)
        self.drawn_before = first_pile  # draws made before the next reshuffle's pile
        self.piles: list[list[int]] = []

    def shuffle(self, x: MutableSequence[Any]) -> None:
        self.piles.append([int(c) for c in x])
        start = self.drawn_before
        self.drawn_before += len(x)
        _put_on_top(x, self.fixed[start : start + len(x)])

    def __reduce__(self) -> tuple[Any, ...]:
        # random.Random pickles as ``cls()`` plus its state; this class needs its arguments
        # (OpenSpiel's serialise check pickles states that hold one).
        return (
            _restore_chance_shuffle,
            (self.fixed, self.drawn_before, self.piles, self.getstate()),
        )


def _restore_chance_shuffle(
    fixed: list[int], drawn_before: int, piles: list[list[int]], state: Any
) -> _ChanceShuffle:
    shuffler = _ChanceShuffle(fixed, drawn_before)
    shuffler.piles = [list(p) for p in piles]
    shuffler.setstate(state)
    return shuffler


def _put_on_top(pile: MutableSequence[Any], cards: Sequence[int]) -> None:
    """Move ``cards`` (all in ``pile``) to its top (the end), the first to be drawn last;
    the other cards keep their places below (their order means nothing: each is chosen by
    a chance node when drawn)."""
    top = len(pile) - 1
    for i, card in enumerate(cards):
        j = list(pile).index(card)
        pile[j], pile[top - i] = pile[top - i], pile[j]


class _Recall:
    """One seat's history as a SHA-256 chain: its builder actions and its observations
    (each one only when it changed), in order. Immutable (a state's clone shares it)."""

    __slots__ = ("digest", "entries", "last")

    def __init__(self, digest: bytes, entries: int, last: bytes) -> None:
        self.digest, self.entries, self.last = digest, entries, last

    @classmethod
    def start(cls, seat: int) -> _Recall:
        return cls(hashlib.sha256(b"bohnanza seat %d" % seat).digest(), 0, b"")

    def act(self, index: int) -> _Recall:
        entry = b"a" + index.to_bytes(4, "big")
        return _Recall(hashlib.sha256(self.digest + entry).digest(), self.entries + 1, self.last)

    def see(self, obs: bytes) -> _Recall:
        if obs == self.last:
            return self
        return _Recall(hashlib.sha256(self.digest + b"o" + obs).digest(), self.entries + 1, obs)

    def bits(self) -> np.ndarray[Any, Any]:
        raw = np.frombuffer(self.digest, dtype=np.uint8)
        return np.unpackbits(raw)[:RECALL_BITS].astype(np.float32)


#: Every game built, by its parameters (see BohnanzaState.bgame).
_GAMES: dict[tuple[str, int, str, int, bool], BohnanzaGame] = {}


class BohnanzaGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game for one configuration (parameters ``rules``, ``players``,
    ``options`` as ``"key:value,..."`` (``key=value`` is read too), ``max_steps``,
    ``recall``)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        rules = str(params.get("rules", "classic"))
        lo, hi = player_range(rules)
        players = int(params.get("players", min(max(3, lo), hi)))
        options = _options(str(params.get("options", "")))
        max_steps = int(params.get("max_steps", 0))
        recall = bool(params.get("recall", True))
        self.rules, self.players, self.options = rules, players, options
        self.config = make_config(rules, players, options)
        self.template = raw_env(rules, players, options=options, action_mode="builder", memory=True)
        self.classes = CardClasses(self.config)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.template.n_actions,
            max_chance_outcomes=len(self.classes),
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
                "options": _options_text(options),
                "max_steps": max_steps,
                "recall": recall,
            },
        )
        #: Steps after which the game ends early, scored by the coin standing (0: never;
        #: for quick checks such as OpenSpiel's random simulations in CI).
        self.max_steps = max_steps
        #: Keep each seat's history for the information state (False: the ISMCTS agent,
        #: which keys its tree by observations, saves observing every seat at every change).
        self.recall = recall
        self.key = (rules, players, _options_text(options), max_steps, recall)
        _GAMES[self.key] = self

    def new_initial_state(self) -> BohnanzaState:
        return BohnanzaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> BohnanzaObserver:
        """The observer behind the observation (the present view) and, for a
        perfect-recall observation type, the information state (view plus history)."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = iig_obs_type is not None and bool(iig_obs_type.perfect_recall)
        if recall and not self.recall:
            raise ValueError("this game keeps no history (recall=False): no information state")
        return BohnanzaObserver(int(self.template.obs_size), recall)


class BohnanzaObserver:
    """OpenSpiel's PyObserver: the player's observation vector (``observation``) and,
    with ``recall``, its history chain (``history``: 256 bits, then the entry count over
    ``MAX_GAME_LENGTH``); and their string forms."""

    def __init__(self, size: int, recall: bool) -> None:
        self.recall = recall
        self.tensor = np.zeros(size + (RECALL_BITS + 1 if recall else 0), dtype=np.float32)
        self.dict = {"observation": self.tensor[:size]}
        if recall:
            self.dict["history"] = self.tensor[size:]
        self.size = size

    def set_from(self, state: BohnanzaState, player: int) -> None:
        self.tensor[: self.size] = state._tensor(player)
        if self.recall:
            rec = state._recall[player]
            self.tensor[self.size : self.size + RECALL_BITS] = rec.bits()
            self.tensor[-1] = min(rec.entries / MAX_GAME_LENGTH, 1.0)

    def string_from(self, state: BohnanzaState, player: int) -> str:
        if not self.recall:
            return state._string(player)
        rec = state._recall[player]
        return f"history {rec.entries} {rec.digest.hex()} | {state._string(player)}"


class BohnanzaState(pyspiel.State):  # type: ignore[misc]
    """One state: the environment's state (``env``, ``None`` until the deal is done), a
    transition waiting for its cards (``_pending``: the deal or a player's builder index,
    with the cards chosen so far in ``_fixed``; a chance node meanwhile), and each seat's
    history (``_recall``)."""

    def __init__(self, game: BohnanzaGame, env: raw_env | None = None) -> None:
        super().__init__(game)
        # The Python game object is looked up, not held: OpenSpiel's clone deep-copies a
        # state's attributes, and a copied game loses its Python attributes.
        self._key = game.key
        self.env = env
        self.steps = 0
        self._pending: int | None = None
        self._fixed: list[int] = []
        self._outcomes: list[tuple[int, float]] = []
        self._pick: dict[int, int] = {}
        self._recall = [_Recall.start(s) for s in range(game.players)]
        #: Each seat's memory of its views (kept with the history, ``recall``; None: not
        #: kept). Copied before it learns (a clone shares it): never changed in place.
        self._seen: list[SeenCards | None] = [
            SeenCards() if game.recall else None for _ in range(game.players)
        ]
        if env is None:
            self._pending = _DEAL
            self._resolve()
        elif game.recall:
            self._observe_all()

    @property
    def bgame(self) -> BohnanzaGame:
        return _GAMES[self._key]

    # ---------------------------------------------------------------- chance

    def _resolve(self) -> None:
        """Try the pending transition with the cards chosen so far on top of the draw
        pile: if it draws no more than those, it takes effect; otherwise the state is a
        chance node for the next card (its outcomes: the cards of the pile it comes from,
        less those already chosen)."""
        bg = self.bgame
        fixed = self._fixed
        k = len(fixed)
        if self._pending == _DEAL:
            # The deal and the module's set-up, with the chosen cards first (R-SETUP-*).
            g = Game(bg.config, seed=0, deck=fixed, events=False)
            if bg.config.deck_size - len(g.draw) > k:
                chosen = set(fixed)
                self._chance([c for c in range(bg.config.deck_size) if c not in chosen])
                return
            env = bg.template.clone()
            env.set_game(g)
            self.env = env
        else:
            assert self.env is not None and self._pending is not None
            trial = self.env.clone()
            assert trial.game is not None
            g = trial.game
            first = [int(c) for c in g.draw]
            _put_on_top(g.draw, fixed[: len(first)])
            shuffler = _ChanceShuffle(fixed, len(first))
            g.rng = shuffler
            trial.step(self._pending)
            drawn = len(first) + sum(len(p) for p in shuffler.piles) - len(g.draw)
            if drawn > k:
                if k < len(first):
                    pool, done = first, fixed
                else:
                    start = len(first)
                    for pile in shuffler.piles:
                        if k < start + len(pile):
                            pool, done = pile, fixed[start:k]
                            break
                        start += len(pile)
                chosen = set(done)
                self._chance([c for c in pool if c not in chosen])
                return
            self.env = trial
            self.steps += 1
        self._pending = None
        self._fixed = []
        self._outcomes = []
        self._pick = {}
        if bg.recall:
            self._observe_all()

    def _chance(self, pool: Sequence[int]) -> None:
        self._outcomes, self._pick = self.bgame.classes.outcomes(pool)

    def _observe_all(self) -> None:
        env = self.env
        assert env is not None
        for s in range(len(self._recall)):
            obs = env.observe(env.possible_agents[s])["observation"]
            before = self._recall[s]
            self._recall[s] = before.see(np.asarray(obs, dtype=np.float32).tobytes())
            seen = self._seen[s]
            if seen is not None and self._recall[s] is not before:
                # Only a view that changed can teach the seat anything.
                seen = self._seen[s] = seen.copy()
                seen.update(env.view(s))

    # ---------------------------------------------------------------- OpenSpiel API

    def current_player(self) -> int:
        if self._pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        assert self.env is not None
        return int(self.env.seat)

    def _legal_actions(self, player: int) -> list[int]:
        env = self.env
        if env is None or self._pending is not None or player != self.current_player():
            return []
        return [int(i) for i in np.flatnonzero(env._current_mask())]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self._outcomes)

    def _apply_action(self, action: int) -> None:
        action = int(action)
        if self._pending is not None:
            card = self._pick.get(action)
            if card is None:
                raise ValueError(f"{action} is not a chance outcome here: {self._outcomes}")
            self._fixed.append(card)
            self._resolve()
            return
        env = self.env
        assert env is not None
        seat = int(env.seat)
        before = self._recall[seat]
        if self.bgame.recall:
            self._recall[seat] = before.act(action)
        if self._draft_only(action):
            try:
                env.step(action)
            except Exception:
                self._recall[seat] = before
                raise
            self.steps += 1
            return
        self._pending = action
        self._fixed = []
        try:
            self._resolve()
        except Exception:
            self._pending = None
            self._recall[seat] = before
            raise

    def _draft_only(self, action: int) -> bool:
        """Whether builder index ``action`` only changes the open draft (then no card can
        be drawn and no other seat sees anything; anything else is tried on a copy)."""
        env = self.env
        assert env is not None and env.builder is not None
        name, off = env.builder.segment_of(action)
        if name in _DRAFT_ONLY:
            return True
        if name == "accept":  # an offer that wants cards opens a payment draft
            incoming = env.encoding.incoming(env.view())
            return off < len(incoming) and bool(incoming[off].want)
        if name in ("card", "card_declared"):  # a payment's last card applies the accept
            return env.draft is None or env.draft.kind != "pay"
        return False

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {self.bgame.classes.names[int(action)]}"
        return str(self.bgame.template.describe(int(action)))

    def is_terminal(self) -> bool:
        env = self.env
        if env is None or env.game is None or self._pending is not None:
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
        random (what ISMCTS samples its worlds with), consistent with the seat's view and
        its memory of earlier views where the state keeps one (``_seen``): without it an
        offer of two hand cards that lapsed left the offerer without them in about half
        the worlds (docs/rl.md). The seat keeps its history and memory; the
        other seats' histories and memories start afresh from the sampled world (their
        real ones would carry what they saw of the real hidden cards)."""
        env = self.env
        if env is None or env.game is None or self._pending is not None:
            return self.clone()  # type: ignore[no-any-return]
        # OpenSpiel's sampler draws numbers in [0, 1) (called); without one, a fixed
        # generator per state.
        draw = float(sampler()) if callable(sampler) else random.Random(env._version).random()
        seed = random.Random(int(draw * 2**31))
        new = env.clone()
        view = env.view(player)
        seen = self._seen[player]
        try:
            new.game = Determiniser(view, seen).sample(seed)
        except ValueError:
            # A memory the engine's counts refute (none known): the view alone.
            new.game = determinise(view, seed)
        new._version += 1
        out = BohnanzaState.__new__(BohnanzaState)
        pyspiel.State.__init__(out, self.bgame)
        out._key = self._key
        out.env = new
        out.steps = self.steps
        out._pending = None
        out._fixed, out._outcomes, out._pick = [], [], {}
        out._recall = [
            r if s == player else _Recall.start(s).act(self.steps)
            for s, r in enumerate(self._recall)
        ]
        out._seen = [
            m if s == player or m is None else _fresh_memory(new.view(s))
            for s, m in enumerate(self._seen)
        ]
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> BohnanzaState:
        new = BohnanzaState.__new__(BohnanzaState)
        pyspiel.State.__init__(new, self.bgame)
        new._key = self._key
        new.env = None if self.env is None else self.env.clone()
        new.steps = self.steps
        new._pending = self._pending
        new._fixed = list(self._fixed)
        new._outcomes = self._outcomes  # replaced, never changed in place
        new._pick = self._pick
        new._recall = list(self._recall)
        new._seen = list(self._seen)
        return new

    def __str__(self) -> str:
        env = self.env
        if env is None or env.game is None:
            return f"dealing, {len(self._fixed)} cards dealt"
        pending = "" if self._pending is None else f", drawing ({len(self._fixed)} drawn)"
        return f"turn {env.game.turn}, seat {env.seat} to act, phase {env.game.phase}{pending}"


def _fresh_memory(view: View) -> SeenCards:
    """A memory that starts at ``view``."""
    seen = SeenCards()
    seen.update(view)
    return seen


def register() -> None:
    """Register ``python_bohnanza`` with OpenSpiel (once)."""
    if SHORT_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_game_type(7), BohnanzaGame)


register()


def load(
    rules: str = "classic",
    players: int = 3,
    options: str = "",
    max_steps: int = 0,
    recall: bool = True,
) -> Any:
    """The game through OpenSpiel's own loader (``pyspiel.load_game``)."""
    params = {
        "rules": rules,
        "players": players,
        "options": options,
        "max_steps": max_steps,
        "recall": recall,
    }
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


class ValueEvaluator(CoinEvaluator):
    """ISMCTS's leaf evaluator with the learned value model (:mod:`bohnanza.value`, the
    model ``valuesearch`` scores its roll-outs with): each seat's predicted final coins
    (its coins now plus the coins the model expects it still to gain, from the features
    of that seat's view of the leaf:
    :func:`~bohnanza.agents.valuesearch.predicted_finals`), turned into returns by
    :func:`standing` as the coin leaf turns the coins now; a finished game's true
    returns. The coin standing cannot see a field about to pay or a hand that plants
    well, so a search over a few builder steps saw nothing worth doing (0 coins a game,
    docs/notes/2026-12-02-openspiel-ismcts-yardstick.md). Uniform priors."""

    def __init__(self, model: str | None = None) -> None:
        from ..agents.valuesearch import DEFAULT_MODEL, load_model

        #: The value model (one per process, shared with ``valuesearch``).
        self.model = load_model(model if model is not None else DEFAULT_MODEL)
        self.leaves = 0  # unfinished leaves scored by the model (for reports)

    def evaluate(self, state: BohnanzaState) -> np.ndarray[Any, Any]:
        from ..agents.valuesearch import predicted_finals

        if state.is_terminal():
            return np.asarray(state.returns(), dtype=np.float64)
        assert state.env is not None and state.env.game is not None
        self.leaves += 1
        return standing(predicted_finals(self.model, state.env.game))


#: The leaf evaluators of ``openspiel-ismcts:SIMS:LEAF``, by name.
LEAVES: dict[str, type[CoinEvaluator]] = {"coin": CoinEvaluator, "value": ValueEvaluator}


class ISMCTSAgent(Agent):
    """OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts``) as a
    :mod:`bohnanza.agents` agent (spec ``openspiel-ismcts:SIMS[:LEAF]``, SIMS simulations
    per step, default 30). At each question it deals the hidden cards of its view at
    random, consistent with what it remembers of its earlier views (``seen``, updated
    from every view it is given, as ``search`` does), continues that world in the builder
    environment with itself to act, and searches each builder step (a whole offer is
    several searched steps) until the steps compose an engine action; every simulation's
    world is dealt again from the same view and memory. Its leaves are valued, without
    roll-outs, by the coin standing (``leaf="coin"``, the default: :class:`CoinEvaluator`)
    or by the value model's predicted final coins (``leaf="value"``, spec
    ``openspiel-ismcts:SIMS:value``: :class:`ValueEvaluator`, the yardstick's)."""

    name = "openspiel-ismcts"

    def __init__(self, seed: int = 0, sims: int = 30, leaf: str = "coin") -> None:
        super().__init__(seed)
        from open_spiel.python.algorithms import ismcts  # type: ignore[import-not-found,import-untyped,unused-ignore]

        if sims < 1:
            raise ValueError(f"sims must be at least 1, not {sims}")
        if leaf not in LEAVES:
            raise ValueError(f"the leaf must be one of {', '.join(LEAVES)}, not {leaf!r}")
        self.sims = sims
        self.leaf = leaf
        self.evaluator = LEAVES[leaf]()
        self.rng = np.random.RandomState(seed % 2**32)
        self._ismcts = ismcts
        self.decisions = 0
        #: Legal actions summed over the searched steps, and the steps with more than
        #: SIMS - 1 of them: there every simulation after the first tries an action not
        #: tried yet (OpenSpiel's ISMCTS with inconsistent action sets expands before it
        #: selects), so none is tried twice, the most visited is a tie, and the leaf has
        #: no say in the choice.
        self.legal_total = 0
        self.unsearched = 0
        #: What the seat remembers of the cards it has seen (updated at every question).
        self.seen = SeenCards()

    def __repr__(self) -> str:
        return f"ISMCTSAgent(seed={self.seed}, sims={self.sims}, leaf={self.leaf})"

    @staticmethod
    def spec_params(text: str) -> dict[str, Any]:
        """``openspiel-ismcts:SIMS`` or ``openspiel-ismcts:SIMS:LEAF`` (``coin``, the
        default, or ``value``)."""
        sims, _, leaf = text.strip().partition(":")
        sims, leaf = sims.strip(), leaf.strip()
        if not sims.isdigit() or int(sims) < 1:
            raise ValueError(f"expected a positive number of simulations, not {sims!r}")
        out: dict[str, Any] = {"sims": int(sims)}
        if leaf:
            if leaf not in LEAVES:
                raise ValueError(
                    f"expected SIMS or SIMS:LEAF with LEAF one of {', '.join(LEAVES)}, "
                    f"not {text.strip()!r}"
                )
            out["leaf"] = leaf
        return out

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        self.seen.update(view)
        if len(legal) == 1 and required:
            return legal[0]
        cfg = view.config
        if view.seat is None:
            raise ValueError("an agent plays a seat")
        og = _game_for(cfg.rules, cfg.players, _options_text(dict(cfg.options)))
        deal = random.Random(int(self.rng.randint(2**31)))
        try:
            world = Determiniser(view, self.seen).sample(deal)
        except ValueError:
            world = determinise(view, deal)  # a memory the view refutes: the view alone
        env = og.template.clone()
        env.set_game(world)
        # The driver asks this seat now: the world goes on from its question.
        env._select(view.seat, required=required, slot=not required)
        state = BohnanzaState(og, env)
        # Its simulations deal their worlds again from this root with the same memory.
        state._seen[view.seat] = self.seen
        bot = self._ismcts.ISMCTSBot(
            og,
            self.evaluator,
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
            width = len(state.legal_actions())
            self.legal_total += width
            self.unsearched += width > self.sims - 1
            index = int(bot.step(state))
            # A step that may draw replaces the state's environment.
            assert state.env is not None
            env = state.env
            done, _ = builder.step(env.view(), index, copy.deepcopy(env.draft))
            if done.done:
                # The builder masks in only what the engine accepts from this seat's own
                # cards and the public table: the same in the real game as in the world.
                return done.action
            state.apply_action(index)
            bot.reset()
        return None if not required else legal[0]

    def stats(self) -> Mapping[str, float]:
        out = {
            "search_steps": float(self.decisions),
            "legal_actions": float(self.legal_total),
            "leaf_without_say": float(self.unsearched),
        }
        if isinstance(self.evaluator, ValueEvaluator):
            out["value_leaves"] = float(self.evaluator.leaves)
        return out


def _game_for(rules: str, players: int, options: str) -> BohnanzaGame:
    key = (rules, players, options, 0, False)
    got = _GAMES.get(key)
    if got is None:
        params = {"rules": rules, "players": players, "options": options, "recall": False}
        got = BohnanzaGame(params)
    return got


__all__ = [
    "LEAVES",
    "RECALL_BITS",
    "SHORT_NAME",
    "BohnanzaGame",
    "BohnanzaState",
    "CardClasses",
    "CoinEvaluator",
    "ISMCTSAgent",
    "ValueEvaluator",
    "coin_standing",
    "load",
    "register",
    "standing",
]
