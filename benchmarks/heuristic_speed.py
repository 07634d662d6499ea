"""Speed and decisions of the ``heuristic`` bot: seeded games, timed, with a digest of play.

    python benchmarks/heuristic_speed.py [--tree SRC] [--games 40]
    python benchmarks/heuristic_speed.py --baseline OLD/src [--candidate NEW/src]
        [--rounds 4] [--games 20] [--json]

Plays seeded games with a ``heuristic`` bot in every seat through the public API
(``Game.new``, ``driver.play``, ``make_agent``, seeds from ``bohnanza.seeding``, as
``bohnanza simulate`` plays them) on several tables (:data:`TABLES`: 4-player ``classic``,
3-player ``classic``, 4-player ``fasolki+fasolufka``), times them in CPU time
(:func:`time.process_time`) and hashes every game's action sequence with SHA-256: the
same digest means the same decisions, action for action.

With one tree (``--tree``, default this checkout's ``src``) it prints games/s per table
and the digest. ``--first SPEC`` seats another bot in seat 0 against three ``heuristic``
(``--first search --tables classic4`` times the search's games), ``--tables`` names the
tables to play. With two (``--baseline`` and ``--candidate``) each round runs one
subprocess per tree, their order alternating from round to round (as
``benchmarks/compare_engines.py`` does), and it prints per table the games/s of each, the
ratio new/old with its spread over the rounds (min-max), and whether the digests are equal.
A tree is a source checkout (or its ``src``) or a folder that a compiled wheel was
installed into (``pip install --no-deps --target``): each worker imports ``bohnanza``
from there and says whether its core is compiled (``bohnanza.compiled_core()``).
Issue 34's target: four-``heuristic`` games at least twice as fast, with the same games.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: The tables timed: (name, rules, players). Seeds are the same on every table.
TABLES: tuple[tuple[str, str, int], ...] = (
    ("classic4", "classic", 4),
    ("classic3", "classic", 3),
    ("fasolufka4", "fasolki+fasolufka", 4),
)

CHECKOUT_SRC = Path(__file__).resolve().parent.parent / "src"


def play_digest(
    rules: str, players: int, seeds: range, digest: Any, first: str = "heuristic"
) -> int:
    """Play one game per seed with ``first`` in seat 0 and ``heuristic`` in the others,
    feeding each game's actions into ``digest``; returns the number of actions."""
    from bohnanza.agents import make_agent
    from bohnanza.driver import play
    from bohnanza.game import Game
    from bohnanza.seeding import agent_seed

    actions = 0
    for seed in seeds:
        game = Game.new(rules, players, seed=seed, events=False)
        agents = [
            make_agent(first if k == 0 else "heuristic", agent_seed(seed, k))
            for k in range(players)
        ]
        log = play(game, agents)
        digest.update(f"game {rules} {players} {seed}\n".encode())
        for seat, action in log.actions:
            line = json.dumps(action.to_json(), sort_keys=True, separators=(",", ":"))
            digest.update(f"{seat} {line}\n".encode())
        digest.update(f"scores {tuple(game.scores or ())}\n".encode())
        actions += len(log.actions)
    return actions


def _tables(names: list[str] | None) -> tuple[tuple[str, str, int], ...]:
    if not names:
        return TABLES
    known = {t[0]: t for t in TABLES}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown table {unknown[0]!r}; known: {', '.join(known)}")
    return tuple(known[n] for n in names)


def _worker(
    tree: str, games: int, first_seed: int, first: str, tables: tuple[tuple[str, str, int], ...]
) -> dict[str, Any]:
    """Time every table once with the ``bohnanza`` of ``tree`` (runs in a subprocess)."""
    sys.path.insert(0, tree)
    import bohnanza

    where = str(Path(bohnanza.__file__).resolve())
    if not where.startswith(str(Path(tree).resolve())):
        raise SystemExit(f"imported bohnanza from {where}, not from {tree}")
    out: dict[str, Any] = {"tree": tree, "compiled": bohnanza.compiled_core()}
    seeds = range(first_seed, first_seed + games)
    for name, rules, players in tables:
        warm = range(10**6, 10**6 + 1)
        play_digest(rules, players, warm, hashlib.sha256(), first)
        digest = hashlib.sha256()
        start = time.process_time()
        actions = play_digest(rules, players, seeds, digest, first)
        seconds = time.process_time() - start
        out[name] = {
            "seconds": seconds,
            "games": games,
            "actions": actions,
            "digest": digest.hexdigest(),
        }
    return out


def _tree(path: str) -> str:
    """The folder to import ``bohnanza`` from: a checkout's ``src``, or a site folder."""
    p = Path(path).resolve()
    if (p / "src" / "bohnanza").is_dir():
        p = p / "src"
    if not (p / "bohnanza" / "__init__.py").is_file():
        raise SystemExit(f"{path}: no bohnanza package there (give a tree, its src or a site)")
    return str(p)


def _run_worker(
    tree: str, games: int, first_seed: int, first: str, tables: tuple[tuple[str, str, int], ...]
) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", tree, "--first", first]
    cmd += ["--games", str(games), "--first-seed", str(first_seed)]
    cmd += ["--tables", *(t[0] for t in tables)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"the worker for {tree} failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def compare(
    baseline: str,
    candidate: str,
    rounds: int,
    games: int,
    first_seed: int,
    first: str = "heuristic",
    tables: tuple[tuple[str, str, int], ...] = TABLES,
) -> dict[str, Any]:
    """Interleaved rounds of both trees; every round plays the same seeds, so the digest
    of each round must be equal within a tree, and equal across trees for same play."""
    trees = {"old": _tree(baseline), "new": _tree(candidate)}
    secs = {t: {n: 0.0 for n, _, _ in tables} for t in trees}
    ratios: dict[str, list[float]] = {n: [] for n, _, _ in tables}
    digests: dict[str, dict[str, set[str]]] = {t: {n: set() for n, _, _ in tables} for t in trees}
    compiled: dict[str, bool] = {}
    for r in range(rounds):
        order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
        got = {t: _run_worker(trees[t], games, first_seed, first, tables) for t in order}
        for t in trees:
            compiled[t] = got[t]["compiled"]
            for n, _, _ in tables:
                secs[t][n] += got[t][n]["seconds"]
                digests[t][n].add(got[t][n]["digest"])
        for n, _, _ in tables:
            ratios[n].append(got["old"][n]["seconds"] / got["new"][n]["seconds"])
        line = ", ".join(f"{n} {ratios[n][-1]:.2f}x" for n, _, _ in tables)
        print(f"round {r + 1}/{rounds}: {line}", file=sys.stderr, flush=True)
    out: dict[str, Any] = {
        "baseline": trees["old"],
        "candidate": trees["new"],
        "compiled": compiled,
        "rounds": rounds,
        "games": games,
        "first_seed": first_seed,
        "first": first,
        "python": sys.version.split()[0],
        "tables": {},
    }
    for n, _, _ in tables:
        same = len(digests["old"][n]) == 1 and digests["old"][n] == digests["new"][n]
        out["tables"][n] = {
            "old_games_per_s": round(rounds * games / secs["old"][n], 2),
            "new_games_per_s": round(rounds * games / secs["new"][n], 2),
            "ratio": round(secs["old"][n] / secs["new"][n], 3),
            "ratio_min": round(min(ratios[n]), 3),
            "ratio_max": round(max(ratios[n]), 3),
            "same_games": same,
            "digest_old": sorted(digests["old"][n]),
            "digest_new": sorted(digests["new"][n]),
        }
    return out


def main(argv: list[str] | None = None) -> dict[str, Any] | None:
    ap = argparse.ArgumentParser(
        description="Speed (CPU time) and a digest of the decisions of all-heuristic games"
    )
    ap.add_argument("--tree", help="time one tree (default: this checkout's src)")
    ap.add_argument("--baseline", help="the old tree (source checkout, src or site folder)")
    ap.add_argument(
        "--candidate", default=str(CHECKOUT_SRC), help="the new tree (default: this checkout)"
    )
    ap.add_argument("--rounds", type=int, default=4, help="subprocess pairs (default 4)")
    ap.add_argument("--games", type=int, default=20, help="games per table per worker")
    ap.add_argument("--first-seed", type=int, default=1, help="seeds first..first+games-1")
    ap.add_argument(
        "--first",
        default="heuristic",
        help="the bot in seat 0, against heuristic bots (default heuristic; e.g. search)",
    )
    ap.add_argument(
        "--tables",
        nargs="+",
        help="tables to time by name (default all: classic4 classic3 fasolufka4)",
    )
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--worker", metavar="TREE", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        ap.error("--games and --rounds must be at least 1")
    tables = _tables(args.tables)
    if args.worker:
        print(json.dumps(_worker(args.worker, args.games, args.first_seed, args.first, tables)))
        return None
    if not args.baseline:
        tree = _tree(args.tree or str(CHECKOUT_SRC))
        result = _run_worker(tree, args.games, args.first_seed, args.first, tables)
        if args.json:
            print(json.dumps(result))
            return result
        kind = "compiled" if result["compiled"] else "pure Python"
        print(f"{result['tree']} ({kind}), seeds {args.first_seed}.. x{args.games}, CPU time")
        for n, _, _ in tables:
            r = result[n]
            print(f"{n:<11} {r['games'] / r['seconds']:8.2f} games/s  digest {r['digest'][:16]}")
        return result
    result = compare(
        args.baseline, args.candidate, args.rounds, args.games, args.first_seed, args.first, tables
    )
    if args.json:
        print(json.dumps(result))
        return result
    kinds = {t: "compiled" if c else "pure" for t, c in result["compiled"].items()}
    print(
        f"new {result['candidate']} ({kinds['new']})\nold {result['baseline']} ({kinds['old']})\n"
        f"{result['rounds']} rounds x {result['games']} games per table, CPU time "
        f"(Python {result['python']})"
    )
    for n, r in result["tables"].items():
        same = "same games" if r["same_games"] else "GAMES DIFFER"
        print(
            f"{n:<11} old {r['old_games_per_s']:7.2f}  new {r['new_games_per_s']:7.2f} games/s"
            f"  new/old {r['ratio']:.2f}x (rounds {r['ratio_min']:.2f}-{r['ratio_max']:.2f})"
            f"  {same} ({r['digest_new'][0][:16]})"
        )
    return result


if __name__ == "__main__":
    main()
