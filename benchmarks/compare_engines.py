"""Compare the speed of two source trees of the engine, side by side.

    python benchmarks/compare_engines.py --baseline OLD/src [--candidate NEW/src]
        [--compile] [--rounds 6] [--games 40] [--no-rl] [--json]

Each round runs one subprocess per tree (their order alternating from round to round), each
importing ``bohnanza`` from its own tree and timing, in CPU time
(:func:`time.process_time`), the same work with the same public calls:

* ``autarky``: 4-player ``classic`` games through ``Game.new``, ``driver.play`` and
  ``autarky`` agents (the decision interface: who acts, legal actions, a view, an agent);
* ``random``: the same with ``random`` agents (offers, ~1,500 actions a game), a tenth
  as many games;
* ``clone``: ``Game.clone()`` of a mid-game state; ``clone_legacy``: the same with the
  ``mt19937`` generator of old records (issue 14's 19 µs, 16 of them copying it);
* ``rl``: steps of the ``bohnanza_v0`` environment, reading the observation every step.

It prints, per measurement, each tree's rate and the ratio new/old (above 1: the candidate
is faster), and checks that both trees played the same games (same scores and turns; trees
from before the SHA-256 generator deal other games). Every measurement starts from a collected heap
(``gc.collect()``): the cyclic garbage of one would otherwise be billed to whichever comes
next, which made the RL figure swing from 0.6x to 1.4x between runs. Each tree's engine/bare ratio uses
this checkout's bare loop, rules and generator, whatever the tree: it works against any
tree back to the first release; what a tree cannot do (the legacy generator, the RL
environment) is left out of the comparison.
Issue 14's targets: autarky at least 2x, random 1.5x, clone 4x, RL steps 2x.
The candidate defaults to the ``src`` next to this script. ``--compile`` first builds the
candidate tree with its compiled core (``BOHNANZA_COMPILE=1``, mypyc; about a minute) into
a temporary folder and times that build; the baseline is timed as its source runs.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TARGETS = {"autarky": 2.0, "random": 1.5, "clone": 4.0, "clone_legacy": 4.0, "rl": 2.0}
UNITS = {
    "autarky": "games/s",
    "random": "games/s",
    "clone": "clones/s",
    "clone_legacy": "clones/s",
    "rl": "steps/s",
}


# ---------------------------------------------------------------------- the worker


CHECKOUT_SRC = Path(__file__).resolve().parent.parent / "src"


def _yardstick(bare: dict[str, Any]) -> tuple[Any, Any, Any]:
    """This checkout's bare loop (``bohnanza.bench.bare_game``, the yardstick of ``bohnanza
    bench``), its rules' numbers as the parent computed them (``bare``, from this
    checkout's rules) and its SHA-256 generator loaded from this checkout's source as plain
    Python, under a name of its own: nothing of it comes from the tree being timed, so the
    yardstick is the same in every tree, from the first release (no ``bohnanza.shuffle``,
    other configs) to this one."""
    import importlib
    import types
    from typing import NamedTuple

    package = types.ModuleType("_bench_yardstick")
    package.__path__ = [str(CHECKOUT_SRC / "bohnanza")]
    sys.modules["_bench_yardstick"] = package
    plain = importlib.import_module("_bench_yardstick.shuffle").DeckRandom

    class GameResult(NamedTuple):
        scores: tuple[int, ...]
        winners: tuple[int, ...]
        turns: int
        actions: int

    text = (CHECKOUT_SRC / "bohnanza" / "bench.py").read_text(encoding="utf-8")
    start = text.index("def bare_game(")
    code = "from __future__ import annotations\n" + text[start : text.index("\ndef ", start + 1)]
    names: dict[str, Any] = {"GameResult": GameResult}
    exec(compile(code, "bench.py (bare loop)", "exec"), names)
    rules = types.SimpleNamespace(**bare)
    return names["bare_game"], rules, plain


def _replay(plan: list[tuple[int, list[list[int]]]], make: Any) -> float:
    """CPU seconds of the planned games' shuffles alone, with generator ``make(seed)``."""
    start = time.process_time()
    for seed, lists in plan:
        rng = make(seed)
        for cards in lists:
            rng.shuffle(cards)
    return time.process_time() - start


def _worker(src: str, games: int, rl: bool, bare_rules: dict[str, Any]) -> dict[str, Any]:
    """Time every measurement once with the ``bohnanza`` of ``src`` (runs in a subprocess).
    What an older tree cannot do (no legacy generator to clone, no RL environment) is
    left out of its result, and out of the comparison."""
    bare_game, rules, plain = _yardstick(bare_rules)
    sys.path.insert(0, src)
    import bohnanza
    from bohnanza.agents import make_agent
    from bohnanza.driver import play
    from bohnanza.game import Game

    where = str(Path(bohnanza.__file__).resolve())
    if not where.startswith(str(Path(src).resolve())):
        raise SystemExit(f"imported bohnanza from {where}, not from {src}")

    import inspect

    # A tree whose games can play without recording events (issue 14's switch) plays
    # as ``simulate`` does; an older tree's driver recorded none either (apply_fast).
    try:
        has_switch = "events" in inspect.signature(Game.new).parameters
    except ValueError:  # a compiled Game (BOHNANZA_COMPILE=1) shows no signature
        has_switch = hasattr(Game, "record_events")
    quiet = {"events": False} if has_switch else {}

    def one(seed: int, agent: str) -> tuple[int, tuple[Any, ...]]:
        game = Game.new("classic", 4, seed=seed, **quiet)
        log = play(game, [make_agent(agent, seed * 1009 + k) for k in range(4)])
        return len(log.actions), (tuple(game.scores or ()), game.turn)

    def games_of(agent: str, seeds: range) -> tuple[float, int, str]:
        one(seeds[0], agent)  # warm caches (configs, hooks) outside the timing
        digest = hashlib.sha256()
        gc.collect()  # each measurement starts clean: no garbage billed to the next
        start = time.process_time()
        for s in seeds:
            _, outcome = one(s, agent)
            digest.update(repr(outcome).encode())
        return time.process_time() - start, len(seeds), digest.hexdigest()[:16]

    out: dict[str, Any] = {"src": src}
    for agent, seeds in (
        ("autarky", range(1, games + 1)),
        ("random", range(1, max(1, games // 10) + 1)),
    ):
        seconds, n, digest = games_of(agent, seeds)
        out[agent] = {"seconds": seconds, "units": n, "digest": digest}

    bare_game(games + 1, rules, plain)  # warm up
    gc.collect()  # each measurement starts clean: no garbage billed to the next
    start = time.process_time()
    for s in range(1, games + 1):
        bare_game(s, rules, plain)
    out["bare"] = {"seconds": time.process_time() - start, "units": games}
    # The bare loop's shuffles alone, with its generator and with the tree's own (the
    # SHA-256 one where the tree has it, else the Mersenne Twister that it dealt with).
    plan = []
    for s in range(1, games + 1):
        sizes: list[int] = []
        bare_game(s, rules, plain, sizes)
        plan.append((s, [list(range(n)) for n in sizes]))
    try:
        from bohnanza.shuffle import DeckRandom as tree_generator

        out["deals"] = "sha256"
    except ImportError:
        import random

        tree_generator = random.Random
        out["deals"] = "mt19937"
    out["shuffle_bare"] = {"seconds": _replay(plan, plain), "units": games}
    out["shuffle_engine"] = {"seconds": _replay(plan, tree_generator), "units": games}

    for key, generator, clones in (
        ("clone", "sha256-ctr/1", 100 * games),
        ("clone_legacy", "mt19937", 25 * games),
    ):
        try:
            game = Game.new("classic", 4, seed=1, generator=generator)
        except TypeError:  # a tree from before the generators: one kind of game, cloned
            if key == "clone_legacy":
                continue
            game = Game.new("classic", 4, seed=1)
        for _ in range(60):
            seat = game.waiting_for()[0]
            try:
                legal = game.legal_actions(seat, offers=False)
            except TypeError:  # the first trees listed no offers anyway
                legal = game.legal_actions(seat)
            game.apply(seat, legal[0])
        clone = game.clone
        gc.collect()  # each measurement starts clean: no garbage billed to the next
        start = time.process_time()
        for _ in range(clones):
            clone()
        out[key] = {"seconds": time.process_time() - start, "units": clones}

    if rl:
        import numpy as np

        try:
            from bohnanza.rl import bohnanza_v0
        except ImportError:  # a tree from before the RL environment
            return out

        env = bohnanza_v0.env(rules="classic", players=4)
        steps = 10 * games
        rng = np.random.default_rng(0)
        done = 0
        g = 0
        gc.collect()  # each measurement starts clean: no garbage billed to the next
        start = time.process_time()
        while done < steps:
            env.reset(seed=g)
            g += 1
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                if done >= steps:
                    break
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
                done += 1
        out["rl"] = {"seconds": time.process_time() - start, "units": done}
    return out


# ---------------------------------------------------------------------- the comparison


def compiled_build(tree: str, into: Path) -> str:
    """Build ``tree`` (a checkout, or its ``src``) with ``BOHNANZA_COMPILE=1`` and unpack
    the wheel into ``into``; returns the folder to import it from."""
    root = Path(tree).resolve()
    if root.name == "src":
        root = root.parent
    if not (root / "pyproject.toml").is_file():
        raise SystemExit(f"{tree}: --compile needs a checkout with its pyproject.toml")
    wheels = into / "wheel"
    site = into / "site"
    env = {**os.environ, "BOHNANZA_COMPILE": "1"}
    pip = [sys.executable, "-m", "pip", "-q"]

    def run(*args: str) -> None:
        proc = subprocess.run([*pip, *args], env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"building the compiled core failed:\n{proc.stdout}{proc.stderr}")

    run("wheel", "--no-deps", "-w", str(wheels), str(root))
    run("install", "--no-deps", "--target", str(site), *map(str, wheels.glob("*.whl")))
    return str(site)


def _src(path: str) -> str:
    """A tree's ``src`` folder, given the tree or its ``src``."""
    p = Path(path).resolve()
    if (p / "src" / "bohnanza").is_dir():
        p = p / "src"
    if not (p / "bohnanza" / "__init__.py").is_file():
        raise SystemExit(f"{path}: no bohnanza package there (give a source tree or its src)")
    return str(p)


def _bare_rules() -> dict[str, Any]:
    """This checkout's numbers of 4-player classic for the bare loop (plain JSON)."""
    sys.path.insert(0, str(CHECKOUT_SRC))
    try:
        from bohnanza.bench import bare_rules
    finally:
        sys.path.remove(str(CHECKOUT_SRC))
    return bare_rules("classic", 4)._asdict()


def _run_worker(src: str, games: int, rl: bool) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", src, "--games", str(games)]
    cmd += ["--bare-rules", json.dumps(_bare_rules())]
    if not rl:
        cmd.append("--no-rl")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"the worker for {src} failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def compare(
    baseline: str, candidate: str, rounds: int, games: int, rl: bool, verbose: bool = True
) -> dict[str, Any]:
    trees = {"old": _src(baseline), "new": _src(candidate)}
    wanted = ["autarky", "random", "clone", "clone_legacy"] + (["rl"] if rl else [])
    names: list[str] = []
    totals: dict[str, dict[str, list[float]]] = {}
    per_round: dict[str, list[float]] = {}
    digests: dict[str, dict[str, str]] = {t: {} for t in trees}
    deals: dict[str, str] = {}
    side = ("bare", "shuffle_bare", "shuffle_engine")
    got_side: dict[str, dict[str, float]] = {t: dict.fromkeys(side, 0.0) for t in trees}
    for r in range(rounds):
        order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
        got = {t: _run_worker(trees[t], games, rl) for t in order}
        if r == 0:  # what both trees measured (an old tree lacks some)
            names = [m for m in wanted if m in got["old"] and m in got["new"]]
            totals = {t: {m: [0.0, 0] for m in names} for t in trees}
            per_round = {m: [] for m in names}
        for t in trees:
            for k in side:
                got_side[t][k] += got[t][k]["seconds"]
        for t in trees:
            for m in names:
                totals[t][m][0] += got[t][m]["seconds"]
                totals[t][m][1] += got[t][m]["units"]
            for m in ("autarky", "random"):
                digests[t][m] = got[t][m]["digest"]
            deals[t] = got[t]["deals"]
        for m in names:
            old, new = got["old"][m], got["new"][m]
            per_round[m].append(
                (old["seconds"] / old["units"]) / (new["seconds"] / new["units"])
                if new["seconds"]
                else 0.0
            )
        if verbose:
            line = ", ".join(f"{m} {per_round[m][-1]:.2f}x" for m in names)
            print(f"round {r + 1}/{rounds}: {line}", file=sys.stderr)
    engine_bare = {
        t: got_side[t]["bare"] / totals[t]["autarky"][0] if totals[t]["autarky"][0] else 0.0
        for t in trees
    }
    # Each side without its own shuffling: the bare loop's SHA-256 shuffles, the engine's
    # with the tree's generator (the same lists), both timed apart in the same process.
    without = {
        t: (got_side[t]["bare"] - got_side[t]["shuffle_bare"])
        / (totals[t]["autarky"][0] - got_side[t]["shuffle_engine"])
        for t in trees
    }
    out: dict[str, Any] = {
        "engine_bare": {t: round(v, 3) for t, v in engine_bare.items()},
        "engine_bare_without_shuffle": {t: round(v, 3) for t, v in without.items()},
        "bare_shuffle_share": {
            t: round(got_side[t]["shuffle_bare"] / got_side[t]["bare"], 3) for t in trees
        },
        "baseline": trees["old"],
        "candidate": trees["new"],
        "rounds": rounds,
        "games": games,
        "python": sys.version.split()[0],
        "same_games": digests["old"] == digests["new"],
        "same_deals": deals["old"] == deals["new"],
        "measurements": {},
    }
    for m in names:
        rate = {t: totals[t][m][1] / totals[t][m][0] for t in trees}
        out["measurements"][m] = {
            "old_per_second": round(rate["old"], 1),
            "new_per_second": round(rate["new"], 1),
            "ratio": round(rate["new"] / rate["old"], 3),
            "ratio_rounds": [round(x, 3) for x in per_round[m]],
            "target": TARGETS[m],
        }
    return out


def main(argv: list[str] | None = None) -> dict[str, Any] | None:
    ap = argparse.ArgumentParser(description="Speed of two engine source trees, new/old")
    ap.add_argument("--baseline", help="the old tree (or its src folder)")
    ap.add_argument(
        "--candidate",
        default=str(Path(__file__).resolve().parent.parent / "src"),
        help="the new tree (default: this checkout)",
    )
    ap.add_argument(
        "--compile",
        action="store_true",
        help="time the candidate built with its compiled core (BOHNANZA_COMPILE=1)",
    )
    ap.add_argument("--rounds", type=int, default=6, help="subprocess pairs (default 6)")
    ap.add_argument("--games", type=int, default=40, help="autarky games per worker")
    ap.add_argument("--no-rl", action="store_true", help="skip the RL environment")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--worker", metavar="SRC", help=argparse.SUPPRESS)
    ap.add_argument("--bare-rules", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        ap.error("--games and --rounds must be at least 1")
    if args.worker:
        rules = json.loads(args.bare_rules)
        print(json.dumps(_worker(args.worker, args.games, not args.no_rl, rules)))
        return None
    if not args.baseline:
        ap.error("--baseline is required")
    if args.compile:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="bohnanza-compiled-") as tmp:
            print("building the candidate's compiled core ...", file=sys.stderr)
            site = compiled_build(args.candidate, Path(tmp))
            result = compare(args.baseline, site, args.rounds, args.games, not args.no_rl)
            result["candidate"] = f"{Path(args.candidate).resolve()} (compiled)"
    else:
        result = compare(args.baseline, args.candidate, args.rounds, args.games, not args.no_rl)
    if args.json:
        print(json.dumps(result))
        return result
    print(
        f"new {result['candidate']}\nold {result['baseline']}\n"
        f"{result['rounds']} rounds, CPU time, 4-player classic (Python {result['python']})"
    )
    for m, r in result["measurements"].items():
        verdict = "meets" if r["ratio"] >= r["target"] else "below"
        print(
            f"{m:<12} old {r['old_per_second']:>12,.1f}  new {r['new_per_second']:>12,.1f} "
            f"{UNITS[m]:<9} new/old {r['ratio']:.2f}x  ({verdict} the target {r['target']}x)"
        )
    eb, ew, share = (
        result["engine_bare"],
        result["engine_bare_without_shuffle"],
        result["bare_shuffle_share"],
    )
    print(
        f"engine/bare  old {eb['old']:.3f}  new {eb['new']:.3f}  (autarky games against "
        "bohnanza bench's bare loop, plain Python in both, in the same processes)"
    )
    print(
        f"  without shuffling  old {ew['old']:.3f}  new {ew['new']:.3f}  (each side's "
        f"shuffles timed apart; they are {100 * share['new']:.0f}% of the bare loop)"
    )
    if result["same_games"]:
        print("same games in both trees")
    elif not result["same_deals"]:
        print("other games in each tree: the older one deals with the Mersenne Twister")
    else:
        print("WARNING: the games differ")
    return result


if __name__ == "__main__":
    main()
