"""Paired strength test of the ``heuristic`` bot against an earlier version of itself.

The project's rule for a change to the heuristic's play: a new pinned digest
(tests/heuristic_pin.py) and a paired strength test on fresh seeds showing it is not
weaker. For each seed the script plays the same deal twice: once with the current bot at
one seat (rotated by seed) and three copies of the baseline, once with four copies of
the baseline. The difference of that seat's win share between the two games is the
current bot's effect on that deal (most late-game changes leave most games unchanged:
their difference is 0, so the interval is far tighter than two independent samples'
would be).

    PYTHONPATH=src python benchmarks/heuristic_paired.py --games 400 --seed 970001
    PYTHONPATH=src python benchmarks/heuristic_paired.py --baseline f69d75f --spec heuristic

The baseline is src/bohnanza/agents/heuristic.py as of git revision ``--baseline``
(default ``HEAD``), loaded beside the current one as a module of the same package (so
it runs as plain Python; the current one may be compiled). It prints the candidate's win
share against three baselines (Wilson 95%), the mean paired difference (95% interval of
the mean) and how many deals the change altered.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from bohnanza.agents import Agent, make_agent
from bohnanza.driver import play
from bohnanza.game import Game
from bohnanza.seeding import agent_seed
from bohnanza.tournament.stats import mean_ci, wilson

PLAYERS = 4
SOURCE = "src/bohnanza/agents/heuristic.py"


def load_baseline(rev: str) -> ModuleType:
    """heuristic.py at ``rev``, imported as ``bohnanza.agents._heuristic_baseline``."""
    text = subprocess.run(
        ["git", "show", f"{rev}:{SOURCE}"], check=True, capture_output=True, text=True
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="heuristic-baseline-"))
    path = folder / "heuristic.py"
    path.write_text(text)
    name = "bohnanza.agents._heuristic_baseline"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def shares(game: Game) -> list[float]:
    assert game.winners is not None
    return [1.0 / len(game.winners) if s in game.winners else 0.0 for s in range(game.players)]


def one_game(seed: int, agents: list[Agent], rules: str) -> list[float]:
    game = Game.new(rules, len(agents), seed=seed, events=False)
    play(game, agents)
    return shares(game)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="deals (two games each)")
    parser.add_argument("--seed", type=int, default=970001)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--baseline", default="HEAD", help="git revision of the baseline")
    parser.add_argument("--spec", default="heuristic", help="the current bot's spec")
    args = parser.parse_args()
    base = load_baseline(args.baseline)
    started = time.process_time()
    won = 0.0
    diffs: list[float] = []
    for i in range(args.games):
        seed = args.seed + i
        seat = i % PLAYERS
        mixed: list[Agent] = [
            make_agent(args.spec, agent_seed(seed, k))
            if k == seat
            else base.HeuristicAgent(agent_seed(seed, k))
            for k in range(PLAYERS)
        ]
        alone: list[Agent] = [base.HeuristicAgent(agent_seed(seed, k)) for k in range(PLAYERS)]
        a = one_game(seed, mixed, args.rules)[seat]
        b = one_game(seed, alone, args.rules)[seat]
        won += a
        diffs.append(a - b)
    took = time.process_time() - started
    lo, hi = wilson(won, args.games)
    dlo, dhi = mean_ci(diffs)
    mean = sum(diffs) / len(diffs)
    changed = sum(1 for d in diffs if d != 0.0)
    print(
        f"1x {args.spec} vs 3x heuristic@{args.baseline}: wins {100 * won / args.games:.1f}% "
        f"[{100 * lo:.1f}-{100 * hi:.1f}] of {args.games} deals; paired difference "
        f"{100 * mean:+.1f} points [{100 * dlo:+.1f}, {100 * dhi:+.1f}], "
        f"the seat's share differs in {changed} deals ({took:.0f} CPU-s)"
    )


if __name__ == "__main__":
    main()
