"""What scoring a roll-out's end costs: the value model against ``search``'s own score.

For positions of a few seeded 4-player games (every turn's start, and after its
trading), times per call, in µs of CPU:

* ``predict``: the model alone, on one leaf's four feature rows (numpy);
* ``features``: one seat's feature vector (its view, the heuristic's field values and
  plan);
* ``leaf``: a whole leaf, :func:`bohnanza.agents.valuesearch.predicted_finals` (four
  views, four feature vectors, one prediction);
* ``win_leaf``: the ``win`` leaf, :func:`bohnanza.agents.valuesearch.predicted_finals`
  and :func:`~bohnanza.agents.valuesearch.predicted_wins` on the same four feature
  vectors (one prediction more);
* ``utility``: ``search``'s score of the same position
  (:func:`bohnanza.agents.search.utility` with the hands valued, as it scores a leaf).

    python benchmarks/value_inference.py [--model PATH] [--win-model PATH] [--games 4] [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from bohnanza.agents import make_agent
from bohnanza.agents.base import Agent
from bohnanza.agents.search import utility
from bohnanza.agents.valuesearch import (
    DEFAULT_MODEL,
    DEFAULT_WIN_MODEL,
    load_model,
    predicted_finals,
    predicted_wins,
    seat_features,
)
from bohnanza.driver import play
from bohnanza.game import Game
from bohnanza.seeding import agent_seed
from bohnanza.value.features import features


class _Snap(Agent):
    """The heuristic, keeping a copy of the game at each new turn and after trading."""

    def __init__(self, inner: Agent, game: Game, out: list[Game], last: list[Any]) -> None:
        super().__init__(inner.seed)
        self.inner, self.game, self.out, self.last = inner, game, out, last
        self.proposes = inner.proposes

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def act(self, view: Any, legal: Any, required: bool) -> Any:
        key = (view.turn, view.phase == "trade")
        if self.last[0] != key:
            self.last[0] = key
            self.out.append(self.game.clone())
        return self.inner.act(view, legal, required)


def positions(games: int) -> list[Game]:
    out: list[Game] = []
    for seed in range(1, games + 1):
        g = Game.new("classic", 4, seed=seed, events=False)
        last: list[Any] = [None]  # the key of the last position kept, shared by the seats
        agents = [
            _Snap(make_agent("heuristic", agent_seed(seed, k)), g, out, last) for k in range(4)
        ]
        play(g, agents)
    return [g for g in out if not g.over]


def per_call(fn: Callable[[Game], Any], states: list[Game], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        for g in states:
            fn(g)
        best = min(best, time.process_time() - t)
    return 1e6 * best / len(states)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", default=str(DEFAULT_MODEL))
    ap.add_argument("--win-model", default=str(DEFAULT_WIN_MODEL))
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    model = load_model(args.model)
    win = load_model(args.win_model, "win")

    def win_leaf(g: Game) -> None:
        x = seat_features(g)
        predicted_finals(model, g, x)
        predicted_wins(win, g, x)

    states = positions(args.games)
    rows = [np.array([features(g.view(s)) for s in range(g.players)]) for g in states[:200]]
    t = time.process_time()
    for x in rows:
        model.predict(x)
    predict = 1e6 * (time.process_time() - t) / len(rows)
    result = {
        "positions": len(states),
        "model": args.model,
        "kind": model.kind,
        "predict_us": round(predict, 1),
        "features_us": round(per_call(lambda g: features(g.view(0)), states), 1),
        "leaf_us": round(per_call(lambda g: predicted_finals(model, g), states), 1),
        "win_leaf_us": round(per_call(win_leaf, states), 1),
        "utility_us": round(per_call(lambda g: utility(g, 0, True, False, 0.2), states), 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for k, v in result.items():
            print(f"{k:<12} {v}")


if __name__ == "__main__":
    main()
