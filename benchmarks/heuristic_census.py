"""Where the ``heuristic`` bot's work goes: a count of its decisions, offer lists and plans.

    PYTHONPATH=src python benchmarks/heuristic_census.py [--games 20] [--seed 1]
        [--rules classic] [--players 4] [--json]

Plays seeded games with a ``heuristic`` bot in every seat (as
``benchmarks/heuristic_speed.py`` does) with counters wrapped around the bot's methods, and
prints per game: decisions by kind, offer lists built (:meth:`HeuristicAgent._candidates`,
by the active seat and by the others, and how many had no offer worth making), plans
valued (:meth:`Position.plan`) and how many of them a memo could have answered, valuation
contexts (:class:`_Context`: a new one whenever a card leaves or enters the visible
fields and trade areas) and placements computed afresh in them (:meth:`Position._step`).

Issue 34 asks for four-``heuristic`` games twice as fast with the same decisions. The
census is the evidence of where that stands: almost every plan valued is distinct within
its context (a memo across decisions would answer about one in ten), so the same
decisions at half the cost need fewer plans valued, which needs a bound on a plan's
value that nobody has found (docs/performance.md). The wrappers slow the games; the
counts, not the time, are the output. Runs on the pure sources (the compiled bot's
methods cannot be wrapped).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import bohnanza
import bohnanza.agents.heuristic as H
from bohnanza.actions import Action
from bohnanza.agents import make_agent
from bohnanza.driver import play
from bohnanza.game import Game
from bohnanza.seeding import agent_seed
from bohnanza.views import View


def census(rules: str, players: int, seeds: Sequence[int]) -> Counter[str]:
    """Play one game per seed and count; the bot's methods are restored afterwards."""
    n: Counter[str] = Counter()
    # Plans by what determines their value: the context, the seat's fields (their number
    # in the context), the classes of the cards that must go (any order) and of the hand.
    seen: set[tuple[Any, ...]] = set()
    contexts: list[H._Context] = []  # kept alive: their ids stay unique during a game

    act = H.HeuristicAgent.act
    candidates = H.HeuristicAgent._candidates
    plan = H.Position.plan
    step = H.Position._step
    context = H._Context.__init__

    def act_(self: H.HeuristicAgent, view: View, legal: Sequence[Action], required: bool) -> Any:
        choice = act(self, view, legal, required)
        kind = "phase-2 ask" if not required else "required"
        n[f"decisions: {kind}, {'passed' if choice is None else 'acted'}"] += 1
        return choice

    def candidates_(self: H.HeuristicAgent, pos: H.Position, partners: tuple[int, ...]) -> Any:
        got = candidates(self, pos, partners)
        who = "active seat" if pos.me == pos.view.active else "other seats"
        n[f"offer lists: by the {who}"] += 1
        n[f"offer lists: by the {who}, offers listed"] += len(got)
        if not got or got[0][0] <= H.EPS:
            n[f"offer lists: by the {who}, none worth making"] += 1
        return got

    def plan_(self: H.Position, fields: Any, must: Sequence[int], seq: Sequence[int]) -> float:
        n["plans: valued"] += 1
        if fields is self.fields and self.ctx is not None:
            cls = self.t.cclass
            key = (
                id(self.ctx),
                self.seat_state(self.me),
                tuple(sorted(cls[c] for c in must)),
                tuple(cls[c] for c in seq[: H.HORIZON]),
            )
            n["plans: valued again in the same context" if key in seen else "plans: distinct"] += 1
            seen.add(key)
        return plan(self, fields, must, seq)

    def step_(self: H.Position, ctx: Any, st: int, card: int, key: int) -> Any:
        n["placements computed afresh"] += 1
        return step(self, ctx, st, card, key)

    def context_(self: H._Context, q: list[float], total: list[int], top: bool) -> None:
        n["valuation contexts"] += 1
        contexts.append(self)
        context(self, q, total, top)

    patches: list[tuple[Any, str, Callable[..., Any]]] = [
        (H.HeuristicAgent, "act", act_),
        (H.HeuristicAgent, "_candidates", candidates_),
        (H.Position, "plan", plan_),
        (H.Position, "_step", step_),
        (H._Context, "__init__", context_),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, fn in patches:
            setattr(owner, name, fn)
        for seed in seeds:
            seen.clear()
            contexts.clear()
            game = Game.new(rules, players, seed=seed, events=False)
            agents = [make_agent("heuristic", agent_seed(seed, k)) for k in range(players)]
            play(game, agents)
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--json", action="store_true", help="the counts as JSON")
    args = parser.parse_args()
    if bohnanza.compiled_core():
        raise SystemExit("the compiled bot cannot be wrapped: run on the pure sources")
    seeds = range(args.seed, args.seed + args.games)
    n = census(args.rules, args.players, seeds)
    if args.json:
        print(json.dumps({"games": args.games, **dict(sorted(n.items()))}, indent=2))
        return
    print(f"{args.games} games of {args.rules}, {args.players} x heuristic; per game:")
    for key, value in sorted(n.items()):
        print(f"  {key:<58} {value / args.games:10.1f}")
    plans = n["plans: distinct"] + n["plans: valued again in the same context"]
    if plans:
        share = n["plans: valued again in the same context"] / plans
        print(f"share of its own plans a memo across decisions could answer: {share:.1%}")


if __name__ == "__main__":
    main()
