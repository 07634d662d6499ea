"""Decision times of the bots (the issue asks for a median under 2 ms for ``heuristic``).

    python benchmarks/bots.py                 # heuristic, 4-player classic, 40 games
    python benchmarks/bots.py --games 100 --rules fasolki --players 3
    python benchmarks/bots.py --search 0.05   # also time a search bot (seconds/decision)

Every call of ``act`` is timed (what the driver waits for), in games where every seat is
the timed bot, and in games against three ``autarky``. "Choices" are the required
decisions with more than one legal action (planting, harvesting, module steps); "trade" the
phase-2 asks (answer an offer, propose, or pass).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence

from bohnanza import Action, Game, View
from bohnanza.agents import Agent, make_agent
from bohnanza.agents.heuristic import HeuristicAgent
from bohnanza.agents.search import SearchAgent
from bohnanza.driver import play


class Clock(Agent):
    def __init__(self, inner: Agent) -> None:
        super().__init__(inner.seed)
        self.inner = inner
        self.proposes = inner.proposes
        self.all: list[float] = []
        self.choices: list[float] = []
        self.trade: list[float] = []

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        start = time.perf_counter()
        choice = self.inner.act(view, legal, required)
        spent = time.perf_counter() - start
        self.all.append(spent)
        if required and len(legal) > 1:
            self.choices.append(spent)
        elif view.phase == "trade":
            self.trade.append(spent)
        return choice


def stats(times: list[float]) -> dict[str, float]:
    ms = sorted(t * 1000 for t in times)
    if not ms:
        return {}
    return {
        "decisions": len(ms),
        "median_ms": round(statistics.median(ms), 4),
        "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 4),
        "mean_ms": round(statistics.fmean(ms), 4),
        "max_ms": round(ms[-1], 3),
    }


def measure(
    make: str, rules: str, players: int, games: int, against: str | None
) -> dict[str, object]:
    clocks: list[Clock] = []
    for seed in range(games):
        game = Game.new(rules, players, seed=seed)
        agents: list[Agent] = []
        for s in range(players):
            timed = against is None or s == seed % players
            if timed:
                bot: Agent = (
                    HeuristicAgent(s)
                    if make == "heuristic"
                    else SearchAgent(s, seconds=float(make), depth=players)
                )
                clock = Clock(bot)
                clocks.append(clock)
                agents.append(clock)
            else:
                agents.append(make_agent(against or "autarky", s))
        play(game, agents)
    every = [t for c in clocks for t in c.all]
    choices = [t for c in clocks for t in c.choices]
    trade = [t for c in clocks for t in c.trade]
    return {
        "bot": "heuristic" if make == "heuristic" else f"search:{make}",
        "opponents": against or "itself",
        "rules": rules,
        "players": players,
        "games": games,
        "all": stats(every),
        "choices": stats(choices),
        "trade": stats(trade),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--search", type=float, default=None, help="also time search at this budget")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [
        measure("heuristic", args.rules, args.players, args.games, None),
        measure("heuristic", args.rules, args.players, args.games, "autarky"),
    ]
    if args.search is not None:
        rows.append(
            measure(
                str(args.search), args.rules, args.players, max(1, args.games // 10), "heuristic"
            )
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        print(f"{r['bot']} vs {r['opponents']}, {r['rules']} {r['players']}p, {r['games']} games:")
        for key in ("all", "choices", "trade"):
            x = r[key]
            assert isinstance(x, dict)
            if x:
                print(
                    f"  {key:<8} {x['decisions']:>7} decisions  median {x['median_ms']:.3f} ms  "
                    f"p90 {x['p90_ms']:.3f} ms  mean {x['mean_ms']:.3f} ms  max {x['max_ms']:.1f} ms"
                )


if __name__ == "__main__":
    main()
