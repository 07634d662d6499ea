"""CPU time of the search's decisions and its roll-outs per CPU-second, for several
search specs on the same games, interleaved (issue 36: roll-out speed measured and
raised; the search's median decision time).

    PYTHONPATH=src python benchmarks/search_speed.py --games 4 \
        --specs search search:nocache search:infer:pairs:spread

Each game (4-player classic, seeds from ``--seed``) is played once per spec, one after
the other, with the search in a rotating seat against three ``heuristic`` bots. A
searched decision's time is the process CPU time of its ``act`` (not the wall clock: the
machine may be shared). ``nocache`` here turns the roll-outs' shared offer lists off
(``SearchAgent(cache=False)``), the play before issue 36's speed-up: its games must be
the same as the default's (checked).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from typing import Any

import bohnanza
from bohnanza import Action, Game, View
from bohnanza.agents import Agent, make_agent
from bohnanza.agents.search import SearchAgent
from bohnanza.driver import play


class Timed(Agent):
    """A search whose searched decisions are timed in CPU seconds. It wraps the agent
    rather than subclassing it: the compiled core's classes cannot be subclassed by
    interpreted code, and this script times both builds."""

    def __init__(self, inner: SearchAgent) -> None:
        super().__init__()
        self.inner = inner
        self.cpu: list[float] = []

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        before = self.inner.searched
        start = time.process_time()
        choice = self.inner.act(view, legal, required)
        if self.inner.searched > before:
            self.cpu.append(time.process_time() - start)
        return choice

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def timed(spec: str, seed: int) -> Timed:
    nocache = spec.endswith(":nocache") or spec == "search:nocache"
    base = spec.replace(":nocache", "") if spec != "search:nocache" else "search"
    made = make_agent(base, seed)
    assert isinstance(made, SearchAgent)
    if nocache:
        made.cache = False
    return Timed(made)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--seed", type=int, default=500)
    ap.add_argument("--specs", nargs="+", default=["search", "search:nocache"])
    args = ap.parse_args()
    cpu: dict[str, list[float]] = {s: [] for s in args.specs}
    rollouts = dict.fromkeys(args.specs, 0)
    for k in range(args.games):
        seed = args.seed + k
        games: dict[str, tuple[object, ...]] = {}
        for spec in args.specs:
            game = Game.new("classic", 4, seed=seed)
            agent = timed(spec, seed)
            agents = [make_agent("heuristic", seed + s) for s in range(4)]
            agents[seed % 4] = agent
            play(game, agents)
            cpu[spec] += agent.cpu
            rollouts[spec] += agent.rollouts
            games[spec] = (tuple(game.scores or ()), agent.rollouts, agent.overruled)
        if "search" in games and "search:nocache" in games:
            assert games["search"] == games["search:nocache"], games
    out = {
        "compiled": bohnanza.compiled_core(),
        "games": args.games,
        "seed": args.seed,
    }
    for spec in args.specs:
        ms = sorted(1000 * t for t in cpu[spec])
        out[spec] = {
            "searched": len(ms),
            "median_cpu_ms": round(statistics.median(ms), 2) if ms else None,
            "p95_cpu_ms": round(ms[int(0.95 * (len(ms) - 1))], 2) if ms else None,
            "rollouts_per_cpu_s": round(rollouts[spec] / sum(cpu[spec]), 1) if ms else None,
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
