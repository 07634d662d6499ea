"""A seeded tournament of OpenSpiel's information-set MCTS (``openspiel-ismcts:SIMS``)
against bots: in each game one seat (rotating) is the tested agent and the others are
the opponents; the same seeds are played again with a baseline agent in that seat.
Prints win rates with 95% Wilson intervals and CPU seconds per game, as JSON.

    python benchmarks/openspiel_ismcts.py [--games 8] [--sims 5] [--opponent heuristic]
        [--baseline heuristic] [--rules classic] [--players 3] [--seed 0]

``--summarise DIR`` instead reads a ``bohnanza tournament`` folder (``games.sqlite``)
with mixed line-ups, e.g. ``-a openspiel-ismcts:10,heuristic,search``: per agent the win
share with its 95% Wilson interval, coins and CPU seconds, and per pair of agents how
often the first scored more than the second (ties as halves), with intervals.

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


def summarise(folder: str) -> dict[str, Any]:
    """Win shares and head-to-head results of a tournament folder (see the module)."""
    import sqlite3
    from pathlib import Path

    db = sqlite3.connect(Path(folder) / "games.sqlite")
    rows = db.execute("SELECT agents, scores, winners, cpu_seconds FROM games").fetchall()
    db.close()
    wins: dict[str, float] = {}
    coins: dict[str, int] = {}
    seat_games: dict[str, int] = {}  # an agent in two seats counts twice
    pairs: dict[tuple[str, str], float] = {}
    meetings: dict[tuple[str, str], int] = {}
    for agents_json, scores_json, winners_json, _cpu in rows:
        seats = {s: a for a, ss in json.loads(agents_json).items() for s in ss}
        scores = json.loads(scores_json)
        winners = json.loads(winners_json)
        for s, a in seats.items():
            seat_games[a] = seat_games.get(a, 0) + 1
            coins[a] = coins.get(a, 0) + scores[s]
            wins[a] = wins.get(a, 0.0) + (1 / len(winners) if s in winners else 0.0)
        for s, a in seats.items():
            for t, b in seats.items():
                if a != b:
                    got = 1.0 if scores[s] > scores[t] else 0.5 if scores[s] == scores[t] else 0.0
                    pairs[(a, b)] = pairs.get((a, b), 0.0) + got
                    meetings[(a, b)] = meetings.get((a, b), 0) + 1
    n = len(rows)
    out: dict[str, Any] = {
        "folder": folder,
        "games": n,
        "cpu_seconds_per_game": round(sum(r[3] or 0.0 for r in rows) / max(n, 1), 1),
        "agents": {
            a: {
                "seat_games": seat_games[a],
                "win_share": round(wins[a] / seat_games[a], 3),
                "wilson95": wilson(wins[a], seat_games[a]),
                "coins_per_game": round(coins[a] / seat_games[a], 2),
            }
            for a in sorted(wins)
        },
        "scored_more_than": {
            f"{a} > {b}": {
                "share": round(v / meetings[(a, b)], 3),
                "wilson95": wilson(v, meetings[(a, b)]),
            }
            for (a, b), v in sorted(pairs.items())
        },
    }
    print(json.dumps(out, indent=1))
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--sims", type=int, default=5)
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--baseline", default="heuristic")
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--summarise", metavar="DIR", help="summarise a tournament folder")
    args = ap.parse_args(argv)
    if args.summarise:
        return summarise(args.summarise)
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
