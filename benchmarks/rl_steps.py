"""Steps per second of the PettingZoo environment (``bohnanza.rl.bohnanza_v0``) with random
masked actions: every step reads the acting agent's observation and mask with ``last()``
and samples a legal index uniformly, as a training loop would.

    python benchmarks/rl_steps.py [--rules classic] [--players 4] [--games 5] [--json]
        [--action-mode flat|builder] [--memory] [--compare]

``--compare`` times the flat mode with the plain observation, then the builder mode with
the memory observation, on the same seeds, and also the cost of one observation of each
kind (``observe`` on the states of the first game: plain, with memory, and with memory
and the builder's draft part in builder mode), in CPU seconds; ``observe_ratio`` and
``observe_ratio_builder`` are the last two over the plain one.

Needs the optional extra: ``pip install -e '.[rl]'``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from typing import Any

import numpy as np

from bohnanza.rl import bohnanza_v0


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description="AEC environment steps per second")
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--max-steps", type=int, default=0, help="stop each game after N steps")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--action-mode", default="flat", choices=bohnanza_v0.ACTION_MODES)
    ap.add_argument("--memory", action="store_true", help="observe with the memory part")
    ap.add_argument("--compare", action="store_true", help="flat+plain beside builder+memory")
    args = ap.parse_args(argv)
    if args.compare:
        return compare(args)
    return run(args)


def observation_cost(
    rules: str, players: int, seed: int, memory: bool, action_mode: str = "flat"
) -> float:
    """CPU seconds per ``observe`` call (the memory part included or not; in builder mode
    with the open draft), over the states of one random game (every seat observed at
    every state)."""
    env = bohnanza_v0.raw_env(rules=rules, players=players, memory=memory, action_mode=action_mode)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    calls = 0
    spent = 0.0
    while env.game is not None and not env.game.over and calls < 20000:
        for agent in env.possible_agents:
            t = time.process_time()
            env.observe(agent)
            spent += time.process_time() - t
            calls += 1
        legal = np.flatnonzero(env.action_mask())
        env.step(int(legal[rng.integers(len(legal))]))
    return spent / max(calls, 1)


def compare(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode, memory in (("flat", False), ("builder", True)):
        argv = ["--rules", args.rules, "--players", str(args.players), "--games"]
        argv += [str(args.games), "--seed", str(args.seed), "--json", "--action-mode", mode]
        argv += ["--memory"] if memory else []
        out[f"{mode}{'+memory' if memory else ''}"] = run(ap_parse(argv), quiet=True)
    plain = observation_cost(args.rules, args.players, args.seed, False)
    mem = observation_cost(args.rules, args.players, args.seed, True)
    both = observation_cost(args.rules, args.players, args.seed, True, "builder")
    out["observe_us"] = {
        "plain": round(plain * 1e6, 1),
        "memory": round(mem * 1e6, 1),
        "builder+memory": round(both * 1e6, 1),
    }
    out["observe_ratio"] = round(mem / plain, 2)
    out["observe_ratio_builder"] = round(both / plain, 2)
    print(json.dumps(out) if args.json else json.dumps(out, indent=1))
    return out


def ap_parse(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules")
    ap.add_argument("--players", type=int)
    ap.add_argument("--games", type=int)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--action-mode")
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--max-steps", type=int, default=0)
    return ap.parse_args(argv)


def run(args: argparse.Namespace, quiet: bool = False) -> dict[str, Any]:
    env = bohnanza_v0.env(
        rules=args.rules, players=args.players, action_mode=args.action_mode, memory=args.memory
    )
    rng = np.random.default_rng(args.seed)
    steps = 0
    start = time.perf_counter()
    cpu = time.process_time()
    for g in range(args.games):
        env.reset(seed=args.seed + g)
        game_steps = 0
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if args.max_steps and game_steps >= args.max_steps:
                break
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            game_steps += 1
            del agent
        steps += game_steps
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    result = {
        "rules": args.rules,
        "players": args.players,
        "action_mode": args.action_mode,
        "memory": args.memory,
        "cpu_seconds": round(cpu, 2),
        "steps_per_cpu_second": round(steps / max(cpu, 1e-9), 1),
        "games": args.games,
        "steps": steps,
        "seconds": round(seconds, 2),
        "steps_per_second": round(steps / seconds, 1),
        "python": platform.python_version(),
    }
    if quiet:
        return result
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{args.rules}, {args.players} players: {steps} steps in {seconds:.1f}s = "
            f"{steps / seconds:.0f} steps/s (random masked actions, observation every step)"
        )
    return result


if __name__ == "__main__":
    main()
