"""How well the search's samples guess the other seats' hidden hands, with and without
:class:`~bohnanza.determinise.HandInference` (issue 36: a search that reads the table).

    PYTHONPATH=src python benchmarks/inference_report.py --games 100 --seed 1

Four ``heuristic`` bots play 4-player classic. One seat per game (rotating) is watched: at
each of its phase-2 decisions its memory (:class:`~bohnanza.determinise.SeenCards`) and
the inference see its view, and ``--samples`` determinisations are drawn uniformly and
``--samples`` weighted by the inference. The harness reads the real game only to score
the guesses, per other seat's hand card not already shown in an offer:

* overlap: the share of the hand's varieties a sample gets right (the multiset
  intersection of the sampled and the real hand, over the hand size);
* log-likelihood: the log of the probability the samples' mean hand gives each real card's
  variety (smoothed), per card.

Both are paired per decision (the same views), with a 95% interval of the mean difference.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
from collections import Counter
from collections.abc import Sequence

from bohnanza import Action, Game, View
from bohnanza.agents.heuristic import HeuristicAgent
from bohnanza.determinise import Determiniser, HandInference, SeenCards
from bohnanza.driver import play


class Watched(HeuristicAgent):
    """A heuristic seat whose views feed a memory and the inference, and which scores the
    samples' guesses against the real game (harness only)."""

    def __init__(self, seed: int, game: Game, samples: int, every: int, rows: list[dict[str, float]]) -> None:  # fmt: skip
        super().__init__(seed)
        self.game = game
        self.samples = samples
        self.every = every
        self.rows = rows
        self.seen = SeenCards()
        self.inference = HandInference()
        self.rng = random.Random(seed)
        self.asks = 0

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        self.seen.update(view)
        self.inference.update(view)
        if view.phase == "trade":
            self.asks += 1
            if self.asks % self.every == 0:
                self._score(view)
        return super().act(view, legal, required)

    def _score(self, view: View) -> None:
        me = view.seat
        assert me is not None
        cv = view.config.card_variety
        nvar = len(view.config.varieties)
        weights = self.inference.weights(view)
        row: dict[str, float] = {"weighted_seats": float(len(weights))}
        for arm, w in (("uniform", None), ("infer", weights)):
            det = Determiniser(view, self.seen, w)
            overlap: list[float] = []
            means: dict[int, list[float]] = {}
            for _ in range(self.samples):
                g = det.sample(self.rng)
                for s in range(view.players):
                    real = self.game.hands[s]
                    if s == me or not real:
                        continue
                    got = Counter(cv[c] for c in g.hands[s])
                    want = Counter(cv[c] for c in real)
                    overlap.append(sum((got & want).values()) / len(real))
                    m = means.setdefault(s, [0.0] * nvar)
                    for v, k in got.items():
                        m[v] += k / self.samples
            ll: list[float] = []
            for s, m in means.items():
                real = self.game.hands[s]
                total = sum(m) + 0.5 * nvar / self.samples
                for c in real:
                    ll.append(math.log((m[cv[c]] + 0.5 / self.samples) / total))
            row[f"{arm}_overlap"] = statistics.fmean(overlap) if overlap else 0.0
            row[f"{arm}_ll"] = statistics.fmean(ll) if ll else 0.0
        self.rows.append(row)


def paired(rows: list[dict[str, float]], key: str) -> dict[str, float]:
    d = [r[f"infer_{key}"] - r[f"uniform_{key}"] for r in rows]
    m = statistics.fmean(d)
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else 0.0
    return {
        "uniform": round(statistics.fmean(r[f"uniform_{key}"] for r in rows), 4),
        "infer": round(statistics.fmean(r[f"infer_{key}"] for r in rows), 4),
        "diff": round(m, 4),
        "ci95": [round(m - 1.96 * se, 4), round(m + 1.96 * se, 4)],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--every", type=int, default=2, help="score every N-th phase-2 ask")
    args = ap.parse_args()
    rows: list[dict[str, float]] = []
    for k in range(args.games):
        seed = args.seed + k
        game = Game.new("classic", 4, seed=seed)
        watched = seed % 4
        agents: list[HeuristicAgent] = [
            Watched(seed, game, args.samples, args.every, rows)
            if s == watched
            else HeuristicAgent(seed + s)
            for s in range(4)
        ]
        play(game, agents)
    weighted = [r for r in rows if r["weighted_seats"] > 0]
    print(
        json.dumps(
            {
                "games": args.games,
                "seed": args.seed,
                "decisions": len(rows),
                "with_evidence": len(weighted),
                "overlap_all": paired(rows, "overlap"),
                "ll_all": paired(rows, "ll"),
                "overlap_with_evidence": paired(weighted, "overlap") if weighted else {},
                "ll_with_evidence": paired(weighted, "ll") if weighted else {},
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
