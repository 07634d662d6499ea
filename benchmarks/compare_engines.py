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
is faster), and checks that both trees played the same games (same scores and turns).
Issue 14's targets: autarky at least 2x, random 1.5x, clone 4x, RL steps 2x.
The candidate defaults to the ``src`` next to this script. ``--compile`` first builds the
candidate tree with its compiled core (``BOHNANZA_COMPILE=1``, mypyc; about a minute) into
a temporary folder and times that build; the baseline is timed as its source runs.
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

TARGETS = {"autarky": 2.0, "random": 1.5, "clone": 4.0, "clone_legacy": 4.0, "rl": 2.0}
UNITS = {
    "autarky": "games/s",
    "random": "games/s",
    "clone": "clones/s",
    "clone_legacy": "clones/s",
    "rl": "steps/s",
}


# ---------------------------------------------------------------------- the worker


def _bare_loop() -> Any:
    """This checkout's bare loop (``bohnanza.bench.bare_autarky_game``, the yardstick of
    ``bohnanza bench``) bound to the worker tree's rules and to its generator loaded from
    source as plain Python: the same yardstick in both trees, whatever their build, so
    that each tree's engine/bare ratio is measured in the same run."""
    import importlib.util
    from typing import NamedTuple

    import bohnanza.shuffle
    from bohnanza.errors import ConfigError
    from bohnanza.rules import BASE_RULESETS, make_config

    text = (Path(__file__).resolve().parent.parent / "src/bohnanza/bench.py").read_text()
    start = text.index("def bare_autarky_game")
    code = "from __future__ import annotations\n" + text[start : text.index("\n# ---", start)]
    path = Path(bohnanza.shuffle.__file__ or "").with_name("shuffle.py")
    spec = importlib.util.spec_from_file_location("bohnanza._plain_shuffle", path)
    assert spec is not None and spec.loader is not None
    plain = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plain)

    class GameResult(NamedTuple):
        scores: tuple[int, ...]
        winners: tuple[int, ...]
        turns: int
        actions: int

    names: dict[str, Any] = {
        "ConfigError": ConfigError,
        "BASE_RULESETS": BASE_RULESETS,
        "make_config": make_config,
        "_PlainDeckRandom": plain.DeckRandom,
        "GameResult": GameResult,
    }
    exec(compile(code, "bench.py (bare loop)", "exec"), names)
    return names["bare_autarky_game"]


def _worker(src: str, games: int, rl: bool) -> dict[str, Any]:
    """Time every measurement once with the ``bohnanza`` of ``src`` (runs in a subprocess)."""
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

    bare = _bare_loop()
    bare(games + 1)  # warm up
    start = time.process_time()
    for s in range(1, games + 1):
        bare(s)
    out["bare"] = {"seconds": time.process_time() - start, "units": games}

    for key, generator, clones in (
        ("clone", "sha256-ctr/1", 100 * games),
        ("clone_legacy", "mt19937", 25 * games),
    ):
        game = Game.new("classic", 4, seed=1, generator=generator)
        for _ in range(60):
            seat = game.waiting_for()[0]
            game.apply(seat, game.legal_actions(seat, offers=False)[0])
        clone = game.clone
        start = time.process_time()
        for _ in range(clones):
            clone()
        out[key] = {"seconds": time.process_time() - start, "units": clones}

    if rl:
        import numpy as np

        from bohnanza.rl import bohnanza_v0

        env = bohnanza_v0.env(rules="classic", players=4)
        steps = 10 * games
        rng = np.random.default_rng(0)
        done = 0
        g = 0
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


def _run_worker(src: str, games: int, rl: bool) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", src, "--games", str(games)]
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
    names = ["autarky", "random", "clone", "clone_legacy"] + (["rl"] if rl else [])
    totals = {t: {m: [0.0, 0] for m in names} for t in trees}
    per_round: dict[str, list[float]] = {m: [] for m in names}
    digests: dict[str, dict[str, str]] = {t: {} for t in trees}
    got_bare: dict[str, list[float]] = {t: [] for t in trees}
    for r in range(rounds):
        order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
        got = {t: _run_worker(trees[t], games, rl) for t in order}
        for t in trees:
            got_bare[t].append(got[t]["bare"]["seconds"])
        for t in trees:
            for m in names:
                totals[t][m][0] += got[t][m]["seconds"]
                totals[t][m][1] += got[t][m]["units"]
            for m in ("autarky", "random"):
                digests[t][m] = got[t][m]["digest"]
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
        t: sum(got_bare[t]) / totals[t]["autarky"][0] if totals[t]["autarky"][0] else 0.0
        for t in trees
    }
    out: dict[str, Any] = {
        "engine_bare": {t: round(v, 3) for t, v in engine_bare.items()},
        "baseline": trees["old"],
        "candidate": trees["new"],
        "rounds": rounds,
        "games": games,
        "python": sys.version.split()[0],
        "same_games": digests["old"] == digests["new"],
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
    args = ap.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        ap.error("--games and --rounds must be at least 1")
    if args.worker:
        print(json.dumps(_worker(args.worker, args.games, not args.no_rl)))
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
    eb = result["engine_bare"]
    print(
        f"engine/bare  old {eb['old']:.3f}  new {eb['new']:.3f}  (autarky games against "
        "bohnanza bench's bare loop, plain Python in both, in the same processes)"
    )
    print("same games in both trees" if result["same_games"] else "WARNING: the games differ")
    return result


if __name__ == "__main__":
    main()
