"""Two source trees' RL environment steps side by side: ``benchmarks/rl_steps.py`` run in
alternating child processes (old, new, old, new, …), each timed in CPU seconds of the
stepping loop only (``time.process_time`` around ``rl_steps.main``, not the imports), so
that load on a shared machine hits both alike.

    python benchmarks/rl_steps_compare.py --old ../baseline/src --new src [--rounds 3]
        [-- --rules classic --players 4 --games 20]

Prints each run and the ratio of the summed CPU times (old / new: above 1 is faster).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "rl_steps.py"


def cpu_run(src: str, args: list[str]) -> tuple[float, str]:
    """CPU seconds of one benchmark run with ``src`` first on the path, and its output."""
    code = (
        "import sys, time; sys.path.insert(0, sys.argv[1]); import rl_steps; "
        "t = time.process_time(); rl_steps.main(sys.argv[2:]); "
        "print('cpu', time.process_time() - t)"
    )
    env = dict(os.environ, PYTHONPATH=os.path.abspath(src))
    out = subprocess.run(
        [sys.executable, "-c", code, str(SCRIPT.parent), *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    text, cpu = out.rsplit("\n", 1)
    return float(cpu.split()[1]), text


def main(argv: list[str] | None = None) -> float:
    ap = argparse.ArgumentParser(description="old vs new RL environment steps, interleaved")
    ap.add_argument("--old", required=True, help="the old tree's src directory")
    ap.add_argument("--new", required=True, help="the new tree's src directory")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("bench", nargs="*", help="arguments for rl_steps.py (after --)")
    args = ap.parse_args(argv)
    bench = args.bench or ["--rules", "classic", "--players", "4", "--games", "20"]
    totals = {"old": 0.0, "new": 0.0}
    for r in range(args.rounds):
        for name in ("old", "new"):
            cpu, out = cpu_run(getattr(args, name), bench)
            totals[name] += cpu
            print(f"round {r + 1} {name}: {cpu:.2f} CPU s  ({out})")
    ratio = totals["old"] / totals["new"]
    print(f"old {totals['old']:.2f} s, new {totals['new']:.2f} s: new is {ratio:.2f}x as fast")
    return ratio


if __name__ == "__main__":
    main()
