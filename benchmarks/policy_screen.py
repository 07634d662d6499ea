"""Screen changes to the heuristic's constants: one changed bot against three unchanged.

    python benchmarks/policy_screen.py --games 1000 --seed 1000 \\
        '{"FIELD_GAIN": 0.9}' '{"KEEP": 0.0}' '{"FIELD_GAIN": 0.9, "KEEP": 0.0}'

Each variant is a JSON object of module constants of ``bohnanza.agents.heuristic``
(``FIELD_GAIN``, ``KEEP``, ``GAMMA``, …) set only while the changed seat decides, and of
keyword arguments of ``HeuristicAgent`` written with a leading underscore
(``{"_field_gain": 0.9}``; a list for a tuple, ``{"_rivalry": [0.5, 4.0, 1.0]}``).
``--base`` applies a variant to the changed seat of every run, the first included (then
the others are changes on top of it); ``--opponents`` gives the three unchanged bots
keyword arguments of their own (``'{"hand_card": 0.1}'``: three ``heuristic:hc0.1``).
Game ``seed`` is 4-player ``classic`` with the changed bot in seat ``seed % 4`` (seats
rotate), the agents seeded as the tournaments seed them; the base runs on the same
games, so the printed difference is paired game by game (the deal's luck cancels out)
with its 95% interval. Wins shared by several seats count in part.

This is how the search's own play came to buy its third field sooner (docs/bots.md):
a screen is cheap (about 40 s for 1,000 games on two cores, compiled), and what it finds
is an exploit of the three unchanged bots' play, to be confirmed on other seeds.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
from collections.abc import Sequence
from typing import Any

import bohnanza.agents.heuristic as H
from bohnanza import Game
from bohnanza.actions import Action
from bohnanza.agents.heuristic import HeuristicAgent
from bohnanza.driver import play
from bohnanza.seeding import agent_seed
from bohnanza.views import View


class Changed(HeuristicAgent):
    """The heuristic with some module constants swapped in while it decides."""

    def __init__(self, seed: int, constants: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        for name in constants:
            if not hasattr(H, name):
                raise SystemExit(f"bohnanza.agents.heuristic has no constant {name!r}")
        self.constants = constants

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        saved = {k: getattr(H, k) for k in self.constants}
        for k, v in self.constants.items():
            setattr(H, k, v)
        try:
            return HeuristicAgent.act(self, view, legal, required)
        finally:
            for k, v in saved.items():
                setattr(H, k, v)


def _kwargs(args: dict[str, Any]) -> dict[str, Any]:
    # JSON has no tuples: a list is a tuple argument (``"_rivalry": [0.5, 4, 1]``).
    return {k: tuple(v) if isinstance(v, list) else v for k, v in args.items()}


def one(job: tuple[dict[str, Any], dict[str, Any], int]) -> float:
    """The changed seat's share of the win in game ``seed``."""
    variant, opponents, seed = job
    seat = seed % 4
    constants = {k: v for k, v in variant.items() if not k.startswith("_")}
    mine = _kwargs({k[1:]: v for k, v in variant.items() if k.startswith("_")})
    theirs = _kwargs(opponents)
    agents = [HeuristicAgent(agent_seed(seed, s), **theirs) for s in range(4)]
    agents[seat] = Changed(agent_seed(seed, seat), constants, **mine)
    game = Game.new("classic", 4, seed=seed)
    play(game, agents)
    assert game.winners is not None
    return 1.0 / len(game.winners) if seat in game.winners else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", help="JSON objects of constants")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1000, help="the first game's seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--base", default="{}", help="a variant every run starts from")
    parser.add_argument(
        "--opponents", default="{}", help="keyword arguments of the three unchanged bots"
    )
    args = parser.parse_args()
    base = json.loads(args.base)
    opponents = json.loads(args.opponents)
    seeds = range(args.seed, args.seed + args.games)
    n = args.games
    with multiprocessing.Pool(args.workers) as pool:
        ref = pool.map(one, [(base, opponents, s) for s in seeds], chunksize=20)
        w0 = sum(ref) / n
        against = f" against three heuristic {json.dumps(opponents)}" if opponents else ""
        print(f"base {json.dumps(base)}{against}: {w0:.1%} of {n} games", flush=True)
        for text in args.variants:
            variant = {**base, **json.loads(text)}
            res = pool.map(one, [(variant, opponents, s) for s in seeds], chunksize=20)
            d = [a - b for a, b in zip(res, ref, strict=True)]
            m = statistics.fmean(d)
            half = 1.96 * statistics.stdev(d) / math.sqrt(n) if n > 1 else math.inf
            print(
                f"{text}: {sum(res) / n:.1%}, minus base {m:+.1%} [{m - half:+.1%}, {m + half:+.1%}]",
                flush=True,
            )


if __name__ == "__main__":
    main()
