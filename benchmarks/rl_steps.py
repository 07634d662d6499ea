"""Steps per second of the PettingZoo environment (``bohnanza.rl.bohnanza_v0``) with random
masked actions: every step reads the acting agent's observation and mask with ``last()``
and samples a legal index uniformly, as a training loop would.

    python benchmarks/rl_steps.py [--rules classic] [--players 4] [--games 5] [--json]

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
    args = ap.parse_args(argv)
    env = bohnanza_v0.env(rules=args.rules, players=args.players)
    rng = np.random.default_rng(args.seed)
    steps = 0
    start = time.perf_counter()
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
    result = {
        "rules": args.rules,
        "players": args.players,
        "games": args.games,
        "steps": steps,
        "seconds": round(seconds, 2),
        "steps_per_second": round(steps / seconds, 1),
        "python": platform.python_version(),
    }
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
