"""Rollout speed of the vectorised environments a trainer can use: stable-baselines3's
DummyVecEnv (one process) and SubprocVecEnv (a process per environment) against
bohnanza's RayVecEnv (environments in Ray actors), on SingleAgentEnv games with random
legal actions, each step reading the masks with ``env_method("action_masks")`` first, as
MaskablePPO's rollouts do.

    PYTHONPATH=src python benchmarks/ray_rollouts.py [--envs 4] [--steps 400] [--rounds 3]
        [--envs-per-actor 2] [--rules classic --players 3] [--opponents random]

Every backend is built (and its workers started) before the clock runs; then the rounds
alternate the backends (dummy, subproc, ray..., dummy, ...) so that load on a shared
machine hits them alike. For each it prints environment steps per wall second and per
CPU second, CPU counted for the driver plus the backend's environment workers (read from
``/proc``, Linux only), and, for Ray, the CPU its own daemons (raylet, GCS...) used in the
same rounds, listed apart. The Ray cluster is a local one of ``--cpus`` CPUs
(``--ray-address`` joins another).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of these processes (0 for one that is gone)."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    return total


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (from /proc's parent links)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _pid(_actor: Any) -> int:
    return os.getpid()


def run_steps(env: Any, steps: int, rng: np.random.Generator) -> None:
    """``steps`` vector steps with random legal actions, masks fetched as MaskablePPO does."""
    for _ in range(steps):
        masks = env.env_method("action_masks")
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        env.step(actions)


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    ap = argparse.ArgumentParser(description="RayVecEnv vs SubprocVecEnv vs DummyVecEnv")
    ap.add_argument("--envs", type=int, default=4)
    ap.add_argument("--steps", type=int, default=400, help="vector steps per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--envs-per-actor", type=int, default=2)
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--opponents", default="random", help="the other seats' agent spec")
    ap.add_argument("--cpus", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--ray-address", default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    import ray
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from bohnanza.rl import SingleAgentEnv
    from bohnanza.rl.ray_vec import RayVecEnv

    fns: list[Callable[[], Any]] = [
        partial(
            SingleAgentEnv,
            rules=args.rules,
            players=args.players,
            opponents=args.opponents,
            dict_obs=False,
        )
        for _ in range(args.envs)
    ]
    if args.ray_address is None:
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(address=args.ray_address)
    me = os.getpid()
    ray_roots = descendants(me)  # the local cluster's processes, before any backend's
    envs: dict[str, Any] = {
        "dummy": DummyVecEnv(fns),
        "subproc": SubprocVecEnv(fns),
    }
    # As many actors as CPUs (one environment each where the CPUs suffice), and actors of
    # --envs-per-actor environments, sharing the CPUs with the first ones.
    cpus = ray.cluster_resources()["CPU"]
    share = min(1.0, cpus / args.envs)
    envs["ray 1/actor"] = RayVecEnv(fns, envs_per_actor=1, num_cpus_per_actor=share / 2)
    if args.envs_per_actor > 1:
        k = args.envs_per_actor
        per = min(1.0, cpus / -(-args.envs // k)) / 2
        envs[f"ray {k}/actor"] = RayVecEnv(fns, envs_per_actor=k, num_cpus_per_actor=per)
    workers: dict[str, list[int]] = {
        "dummy": [],
        "subproc": [p.pid for p in envs["subproc"].processes],
    }
    for name, env in envs.items():
        if name.startswith("ray"):
            workers[name] = ray.get([a.__ray_call__.remote(_pid) for a in env.actors])
    env_pids = {p for pids in workers.values() for p in pids}
    daemons = sorted(
        {p for root in ray_roots for p in (root, *descendants(root)) if p not in env_pids}
    )
    for i, env in enumerate(envs.values()):
        env.seed(args.seed + 1000 * i)
        env.reset()

    totals = {name: {"wall": 0.0, "cpu": 0.0, "daemons": 0.0} for name in envs}
    rng = np.random.default_rng(args.seed)
    run_steps(envs["dummy"], 5, rng)  # warm the caches of the driver's own environments
    for r in range(args.rounds):
        for name, env in envs.items():
            pids = [me, *workers[name]]
            c0, d0, w0 = cpu_seconds(pids), cpu_seconds(daemons), time.perf_counter()
            run_steps(env, args.steps, rng)
            wall = time.perf_counter() - w0
            cpu, dcpu = cpu_seconds(pids) - c0, cpu_seconds(daemons) - d0
            t = totals[name]
            t["wall"] += wall
            t["cpu"] += cpu
            t["daemons"] += dcpu
            n = args.steps * args.envs
            print(
                f"round {r + 1} {name:>12}: {n / wall:7.0f} steps/s wall, "
                f"{n / cpu if cpu else float('nan'):7.0f} steps/CPU-s "
                f"(CPU {cpu:.2f} s, Ray daemons {dcpu:.2f} s)"
            )
    n = args.steps * args.envs * args.rounds
    print(
        f"\n{args.envs} environments, {args.rules} {args.players} players against "
        f"{args.opponents}, {n} steps each"
    )
    print("| backend | steps/s (wall) | steps per CPU-s | CPU s | Ray daemons' CPU s |")
    print("|---|---|---|---|---|")
    for name, t in totals.items():
        print(
            f"| {name} | {n / t['wall']:.0f} | {n / t['cpu']:.0f} | {t['cpu']:.2f} "
            f"| {t['daemons']:.2f} |"
        )
    base = totals["dummy"]
    for name, t in totals.items():
        if name != "dummy":
            print(
                f"{name}: CPU per step {t['cpu'] / base['cpu']:.2f}x dummy's, "
                f"wall {t['wall'] / base['wall']:.2f}x"
            )
    for env in envs.values():
        env.close()
    ray.shutdown()
    return totals


if __name__ == "__main__":
    main()
