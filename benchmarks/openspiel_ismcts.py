"""A seeded tournament of OpenSpiel's information-set MCTS (``openspiel-ismcts:SIMS``)
against bots: in each game one seat (rotating) is the tested agent and the others are
the opponents; the same seeds are played again with a baseline agent in that seat.
Prints win rates with 95% Wilson intervals and CPU seconds per game, as JSON.

    python benchmarks/openspiel_ismcts.py [--games 8] [--sims 5] [--opponent heuristic]
        [--baseline heuristic] [--rules classic] [--players 3] [--seed 0]

Needs the optional ``open-spiel`` wheel (docs/rl.md).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any

from bohnanza import Game
from bohnanza.agents import make_agent
from bohnanza.driver import play
from bohnanza.rules import make_config


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate (a shared win counts as its share)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3))


def run(spec: str, args: argparse.Namespace) -> dict[str, Any]:
    cfg = make_config(args.rules, args.players)
    wins = 0.0
    coins = 0
    cpu = 0.0
    for g in range(args.games):
        seed = args.seed + g
        seat = g % args.players
        agents = [make_agent(args.opponent, seed * 10 + s) for s in range(args.players)]
        agents[seat] = make_agent(spec, seed * 10 + seat)
        game = Game(cfg, seed=seed)
        t = time.process_time()
        play(game, agents)
        cpu += time.process_time() - t
        assert game.winners is not None and game.scores is not None
        if seat in game.winners:
            wins += 1 / len(game.winners)
        coins += game.scores[seat]
    return {
        "agent": spec,
        "games": args.games,
        "win_rate": round(wins / args.games, 3),
        "wilson95": wilson(wins, args.games),
        "coins_per_game": round(coins / args.games, 2),
        "cpu_seconds_per_game": round(cpu / args.games, 1),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--sims", type=int, default=5)
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--baseline", default="heuristic")
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    out = {
        "rules": args.rules,
        "players": args.players,
        "opponents": args.opponent,
        "chance": round(1 / args.players, 3),
        "tested": run(f"openspiel-ismcts:{args.sims}", args),
        "baseline": run(args.baseline, args),
    }
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
