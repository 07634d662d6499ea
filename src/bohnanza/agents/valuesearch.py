"""The ``valuesearch`` bot: the ``search`` bot's determinised search, with roll-outs cut
short and scored by a value model learned from play (:mod:`bohnanza.value`).

``search`` plays every candidate out with heuristic players to the end of the turn and
scores the end by the heuristic's own sum (coins, field values, the hand's plan). This
bot differs in four ways:

1. **Short roll-outs, a learned leaf.** With ``cut="trade"`` (the default) a roll-out
   stops as soon as the turn's trading is over, before the planting of phase 3 and the
   draw; the position is then scored by the value model, which predicts every seat's
   final coins from that seat's view (:mod:`bohnanza.value.features`); the score is the
   predicted margin over the best other seat, in the units of
   :func:`~bohnanza.agents.search.utility` (so the paired test's ``z`` means the same).
   ``cut="turn"`` plays to the end of the turn as ``search`` does and scores that with
   the model. A finished game is scored by its result, as ``search`` does.
2. **More candidates.** A decision compares up to :data:`CANDIDATES` actions (``search``:
   6) on the same budget of roll-outs. Roll-outs whose players trade as the real bots
   do (``real``: six offers a turn, two-card offers, every trading round: the deeper
   trading lines) are a spec away, but cost about 2.5 times as much: a roll-out's cost
   is its trading, not the planting after it, so cutting at the trade saves little
   (measured in docs/value.md).
3. **Alternatives dropped once they cannot win.** A search keeps the heuristic's choice
   unless an alternative beats it by ``z`` standard errors over the paired samples, and
   most searches keep it (about 15 decisions of 250 in a game change). So after three
   samples an alternative whose mean advantage is more than
   :data:`~bohnanza.agents.search.PRUNE_Z` standard errors below zero, or that has made
   no difference at all, is no longer played out, and the search ends when none is left
   (``prune``, :meth:`SearchAgent._sample`; ``noprune`` plays every sample as ``search``
   does by default). The decision rule is ``search``'s; only the roll-outs that could
   not change it are saved: half of them, for the same win share (docs/value.md).
4. **An opponent model that learns.** Each other seat of a roll-out keeps its hand
   cards as much as that seat has refused this bot's offers in this game (``adapt``):
   a seat that takes what it is offered is played as ``heuristic`` (a hand card worth
   nothing), one that refuses as a seat that values each hand card at up to
   :data:`OPP_HAND_CARD` coins (as ``heuristic:hc0.1`` does at 0.1). The refusals are
   what the bot's own play counts (:meth:`HeuristicAgent.chance`), so the model starts
   neutral and learns from the first offers.

Everything else (candidates, determinisation, paired comparison, its own play where it
does not search) is ``search``'s, which stays the named baseline. The model file is
:data:`DEFAULT_MODEL` unless the spec names another (``valuesearch:m=PATH``); numpy is
needed to play (the ``rl`` extra), not to import this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..actions import Action
from ..errors import ConfigError, IllegalAction
from ..game import Game
from ..views import View
from .params import search_parameters
from .search import MARGIN_SCALE, PRUNE_Z, SearchAgent, _Rollout, _Stop, utility

if TYPE_CHECKING:
    from ..value.model import ValueModel

#: The model shipped with the package (``bohnanza train value``; docs/value.md).
DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "data" / "value" / "classic-mlp.npz"
#: The win model shipped with it (``bohnanza train value --target win``): each seat's
#: share of the win, for the ``win`` leaf.
DEFAULT_WIN_MODEL = DEFAULT_MODEL.with_name("classic-win-mlp.npz")
#: Candidates a decision compares at most (``search``: 6).
CANDIDATES = 8
#: Roll-outs a decision, shared by the candidates: ``search``'s budget. A roll-out's cost
#: is its trading (the heuristic players' offer lists and answers), which a cut at the
#: end of the trading keeps; the leaf's features cost about as much as ``search``'s own
#: scoring of the turn's end. So the same budget costs about the same CPU, and the extra
#: candidates share it (fewer samples each).
ROLLOUTS = 60
#: The most a refusing opponent values a hand card at, in its roll-out play.
OPP_HAND_CARD = 0.2

_MODELS: dict[str, ValueModel] = {}


def load_model(path: str | Path, predicts: str = "gain") -> ValueModel:
    """The model at ``path``, read once per process (every seat and game shares it); it
    must predict ``predicts`` (``gain``: coins still to come, ``win``: the share of the
    win), or the leaf would read one as the other (ConfigError)."""
    key = str(Path(path).resolve())
    got = _MODELS.get(key)
    if got is None:
        try:
            from ..value.model import ValueModel
        except ImportError as exc:  # numpy: the rl extra
            raise ConfigError(
                f"valuesearch needs numpy (pip install bohnanza[rl]): {exc}"
            ) from None
        if not Path(key).is_file():
            raise ConfigError(
                f"no value model at {key} (make one with bohnanza train value; docs/value.md)"
            )
        got = _MODELS[key] = ValueModel.load(key)
    has = got.meta.get("predicts", "gain")
    if has != predicts:
        raise ConfigError(
            f"{key} predicts {has}, not {predicts} "
            "(bohnanza train value --target; m= takes a gain model, wm= a win model)"
        )
    return got


class _CutRollout(_Rollout):
    """A roll-out player that also stops the roll-out once the turn's trading is over
    (``cut``): the first decision outside phase 2 ends it."""

    cut = False

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if self.cut and view.phase != "trade":
            raise _Stop
        return super().act(view, legal, required)


class ValueSearchAgent(SearchAgent):
    """``search`` with roll-outs cut short and scored by a learned value model."""

    name = "valuesearch"

    def __init__(
        self,
        seed: int = 0,
        *,
        model: str | Path | None = None,
        cut: str = "trade",
        adapt: bool = True,
        rollouts: int | None = None,
        max_candidates: int = CANDIDATES,
        full: bool = False,
        prune: float | None = PRUNE_Z,
        win: bool = False,
        win_model: str | Path | None = None,
        **kwargs: Any,
    ) -> None:
        if cut not in ("trade", "turn"):
            raise ConfigError(f"valuesearch cut must be trade or turn, not {cut!r}")
        if rollouts is None and kwargs.get("seconds") is None and kwargs.get("iterations") is None:
            rollouts = ROLLOUTS
        super().__init__(
            seed,
            rollouts=rollouts,
            max_candidates=max_candidates,
            full=full,
            prune=prune,
            **kwargs,
        )
        self.model_path = Path(model) if model is not None else DEFAULT_MODEL
        #: The value model (one per process, shared by every seat).
        self.model = load_model(self.model_path)
        #: The win model of the ``win`` leaf (None: the margin alone).
        self.win_model: ValueModel | None = None
        if win or win_model is not None:
            self.win_model = load_model(
                win_model if win_model is not None else DEFAULT_WIN_MODEL, "win"
            )
        #: Where a roll-out stops: at the end of the turn's trading, or of the turn.
        self.cut = cut
        #: Whether the other seats of a roll-out keep their hand cards as much as they
        #: refused this bot's offers (the opponent model; False: as ``heuristic``).
        self.adapt = adapt
        self.leaves = 0  # roll-outs scored by the model (for reports)

    def __repr__(self) -> str:
        return f"ValueSearchAgent(seed={self.seed}, rollouts={self.rollout_budget}, cut={self.cut})"

    def stats(self) -> dict[str, float]:
        out = super().stats()
        out["leaves"] = self.leaves
        out["pruned"] = self.pruned
        return out

    def opponent_keeps(self, seat: int) -> float:
        """What ``seat`` values a hand card at in the roll-outs: 0 for a seat that takes
        this bot's offers, up to :data:`OPP_HAND_CARD` as its refusals outweigh its
        acceptances (:meth:`HeuristicAgent.chance`: 1 before any offer)."""
        if not self.adapt:
            return 0.0 if self.opponent_hand_card is None else self.opponent_hand_card
        return OPP_HAND_CARD * (1.0 - self.heuristic.chance(seat))

    def rollout_players(self, players: int, me: int, limit: int, seed: int) -> list[_Rollout]:
        """``search``'s roll-out players (:meth:`SearchAgent.rollout_players`), that stop
        at the end of the trading with ``cut="trade"``, the others modelled by what they
        refused (:meth:`opponent_keeps`)."""
        cache = self._cache
        own = self.heuristic
        cut = self.cut == "trade"
        agents: list[_Rollout] = []
        for s in range(players):
            if s == me:
                a = _CutRollout(
                    seed + s,
                    limit,
                    self.full,
                    self.field_gain,
                    self.rivalry,
                    self.hand_card,
                    cache,
                    wanted=self.wanted if self.wanted is not None else 3,
                    eps=own.eps,
                    forget=own.forget,
                    accept_swap=own.accept_swap,
                    accept_slope=own.accept_slope,
                )
            else:
                hc = self.opponent_keeps(s)
                a = _CutRollout(seed + s, limit, self.full, hand_card=hc or None, cache=cache)
            a.cut = cut
            agents.append(a)
        agents[me].restore(own.snapshot())
        return agents

    def _playout(
        self, g0: Game, me: int, action: Action | None, seed: int, depth: int | None
    ) -> float:
        from ..driver import play  # the driver imports the agents package

        g = g0.clone()
        if action is not None:
            try:
                g.apply(me, action)
            except IllegalAction:
                return -10.0
        if depth == -1:
            depth = 2 * g.players
        limit = g.turn + depth if depth is not None else 1 << 30
        agents = self.rollout_players(g.players, me, limit, seed)
        try:
            if not g.over:
                play(g, agents, max_trade_rounds=self.trade_rounds)
        except _Stop:
            pass
        return self.leaf_value(g, me)

    def leaf_value(self, g: Game, me: int) -> float:
        """A roll-out's end for ``me``: a finished game by its result
        (:func:`~bohnanza.agents.search.utility`: the share of the win plus
        ``MARGIN_SCALE`` times the margin), else the predicted final coins' margin over
        the best other seat, times ``MARGIN_SCALE``; with the ``win`` leaf, plus the
        predicted share of the win (:func:`predicted_wins`), so that a leaf is in the
        units of a finished game's result."""
        if g.over:
            return utility(g, me, True, False, self.hand_card)
        self.leaves += 1
        x = seat_features(g)
        finals = predicted_finals(self.model, g, x)
        best_other = max(v for k, v in enumerate(finals) if k != me)
        value = MARGIN_SCALE * (finals[me] - best_other)
        if self.win_model is not None:
            value += predicted_wins(self.win_model, g, x)[me]
        return value


def seat_features(g: Game) -> Any:
    """Every seat's features in ``g`` (a row a seat, each from that seat's view)."""
    import numpy as np

    from ..value.features import features

    return np.array([features(g.view(s)) for s in range(g.players)])


def predicted_finals(model: ValueModel, g: Game, x: Any = None) -> list[float]:
    """Every seat's predicted final coins in ``g``: its coins now plus what the model
    expects it still to gain, from that seat's view (``x``: :func:`seat_features`)."""
    gain = model.predict(seat_features(g) if x is None else x)
    return [len(g.treasury[s]) + float(gain[s]) for s in range(g.players)]


def predicted_wins(model: ValueModel, g: Game, x: Any = None) -> list[float]:
    """Every seat's predicted share of the win in ``g`` by a win model, each seat's
    prediction (from its own view) clipped to [0, 1] and the seats' shares scaled to add
    up to one, as a game's do (all alike when none is above zero)."""
    p = [min(1.0, max(0.0, float(v))) for v in model.predict(seat_features(g) if x is None else x)]
    total = sum(p)
    if total <= 0.0:
        return [1.0 / len(p)] * len(p)
    return [v / total for v in p]


#: ``valuesearch``'s own words (the rest of a spec is ``search``'s parameters).
_WORDS: dict[str, tuple[str, Any]] = {
    "tcut": ("cut", "trade"),
    "turncut": ("cut", "turn"),
    "adapt": ("adapt", True),
    "noadapt": ("adapt", False),
    "real": ("full", True),
    "cheap": ("full", False),
    "win": ("win", True),
    "nowin": ("win", False),
}


def valuesearch_parameters(text: str) -> dict[str, Any]:
    """``tcut`` (the default) stops roll-outs at the end of the turn's trading,
    ``turncut`` at the end of the turn; ``adapt`` (the default) models each opponent's
    acceptance from its refusals, ``noadapt`` plays them as ``heuristic``; ``real`` has
    roll-outs trade as the real bots do, ``cheap`` (the default) as ``search``'s do;
    ``prune`` (the default here) drops alternatives that cannot overrule the
    heuristic's choice, ``noprune`` plays each one all its samples (both ``search``
    words);
    ``win`` adds the win model's predicted share of the win to the leaf (``nowin``, the
    default: the margin alone), ``wm=PATH`` reads that model from PATH;
    ``cN`` compares up to N candidates (default 8); ``m=PATH`` reads the model from PATH;
    everything else is a ``search`` parameter (``120ro``, ``z1.5``, ...), joined by ``:``."""
    kwargs: dict[str, Any] = {}
    rest: list[str] = []
    for p in [p.strip() for p in text.split(":")]:
        if p in _WORDS:
            key, value = _WORDS[p]
            kwargs[key] = value
        elif p.startswith("m="):
            kwargs["model"] = p[2:]
        elif p.startswith("wm="):
            kwargs["win_model"] = p[3:]
        elif p.startswith("c") and p[1:].isdigit() and int(p[1:]) >= 1:
            kwargs["max_candidates"] = int(p[1:])
        elif p:
            rest.append(p)
    if rest:
        try:
            kwargs.update(search_parameters(":".join(rest)))
        except ConfigError as exc:
            raise ConfigError(
                f"{exc}; or tcut, turncut, adapt, noadapt, real, cheap, win, nowin, cN, "
                "m=PATH, wm=PATH"
            ) from None
    return kwargs


__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_WIN_MODEL",
    "PRUNE_Z",
    "ValueSearchAgent",
    "load_model",
    "predicted_finals",
    "predicted_wins",
    "seat_features",
    "valuesearch_parameters",
]
