"""How much the heuristic's coin choice (R-LADY-10) keeps useful cards from the others.

    python benchmarks/fasolufka_coins.py              # 60 heuristic games, 4 players
    python benchmarks/fasolufka_coins.py --games 200 --players 3

At every third-field purchase of a ``heuristic`` seat, the paid coins' usefulness to the
other seats (``bohnanza.coins.usefulness``, summed over the three) is compared with that of
the three coins R-FIELD-3 would have taken (the top of the treasury). The score is the
choice's own yardstick, so this shows how often and by how much the choice departs from
the default, not a win rate.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from bohnanza import Action, Game, View
from bohnanza.agents.heuristic import HeuristicAgent
from bohnanza.coins import usefulness
from bohnanza.driver import play


class Probe(HeuristicAgent):
    def __init__(self, seed: int, out: list[tuple[float, float]]) -> None:
        super().__init__(seed)
        self.out = out

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        a = super().act(view, legal, required)
        if a is not None and a.cards and a.type.value == "buy_field" and view.treasury:
            top = view.treasury[-len(a.cards) :]
            self.out.append(
                (sum(usefulness(view, c) for c in a.cards), sum(usefulness(view, c) for c in top))
            )
        return a


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--players", type=int, default=4)
    args = ap.parse_args()
    stats: list[tuple[float, float]] = []
    for seed in range(args.games):
        game = Game.new("fasolki+fasolufka", args.players, seed=seed)
        play(game, [Probe(seed * 10 + k, stats) for k in range(args.players)])
    n = len(stats)
    if not n:
        print("no third field was bought")
        return
    chosen = sum(a for a, _ in stats) / n
    top = sum(b for _, b in stats) / n
    better = sum(1 for a, b in stats if b > a)
    print(
        f"{n} purchases in {args.games} games: usefulness to the others of the paid coins "
        f"{chosen:.2f} (chosen) vs {top:.2f} (top three, R-FIELD-3); the choice differs "
        f"for the better in {better} purchases ({100 * better / n:.0f}%)"
    )


if __name__ == "__main__":
    main()
