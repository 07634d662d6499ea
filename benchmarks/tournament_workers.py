"""CPU time of ``bohnanza tournament`` with one and two workers, main process apart.

    python benchmarks/tournament_workers.py --agents autarky --games 1500 [--rounds 2]

Runs ``bohnanza tournament --agents AGENTS --games GAMES --seed 1 --no-plots --json``
with ``-w 1``, ``-w 2`` (games per task chosen automatically) and ``-w 2 --batch 1``,
in an order that turns from round to round, each in a child process of the Python that
runs this script (so: the build installed there), and prints the CPU seconds of the main
process (sending tasks, storing rows) and of its workers (``getrusage``), and the wall
time. CPU time says what each setting costs even on a loaded machine; the wall time
says how fast it ran only on idle cores (the machine's load is printed with it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

SETTINGS = (("-w", "1"), ("-w", "2"), ("-w", "2", "--batch", "1"))

#: The child: the tournament command in this process, then its own and its children's
#: CPU time on stderr (the pool's workers are its children, reaped before it returns).
CHILD = """
import json, resource, sys
from bohnanza.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = {"main": me.ru_utime + me.ru_stime, "workers": kids.ru_utime + kids.ru_stime}
    print(json.dumps(cpu), file=sys.stderr)
"""


def run_once(agents: str, games: int, setting: tuple[str, ...]) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        args = ["tournament", "--agents", agents, "--games", str(games), *setting]
        args += ["--seed", "1", "--out", os.path.join(folder, "t"), "--no-plots", "--json"]
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"bohnanza {' '.join(args)} failed:\n{proc.stderr[-2000:]}")
    got: dict[str, float] = json.loads(proc.stderr.strip().splitlines()[-1])
    return {**got, "wall": wall, "load": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    ap = argparse.ArgumentParser(description="tournament CPU time with 1 and 2 workers")
    ap.add_argument("--agents", default="autarky")
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        ap.error("--games and --rounds must be at least 1")
    totals = {" ".join(s): {"main": 0.0, "workers": 0.0, "wall": 0.0} for s in SETTINGS}
    for r in range(args.rounds):
        for setting in SETTINGS if r % 2 == 0 else SETTINGS[::-1]:
            got = run_once(args.agents, args.games, setting)
            key = " ".join(setting)
            for k in ("main", "workers", "wall"):
                totals[key][k] += got[k]
            print(
                f"round {r + 1} {key:<16} CPU main {got['main']:6.2f} s  workers "
                f"{got['workers']:6.2f} s  wall {got['wall']:6.2f} s  load {got['load']:.1f}",
                file=sys.stderr,
            )
    n = args.rounds
    print(f"{args.agents} x{args.games}, mean of {n} runs (python {sys.version.split()[0]})")
    for key, t in totals.items():
        print(
            f"{key:<16} CPU main {t['main'] / n:6.2f} s + workers {t['workers'] / n:6.2f} s "
            f"= {(t['main'] + t['workers']) / n:6.2f} s   wall {t['wall'] / n:6.2f} s"
        )
    return totals


if __name__ == "__main__":
    main()
