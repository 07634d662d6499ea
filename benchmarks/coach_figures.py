"""The coach on real positions (issue 53): how often a purchase the continuation makes
would decide its first choice, how often it shows a tie, and what a hint costs in CPU.

Each seeded game is played by four ``heuristic`` bots; one decision with more than one
legal action of a seat (chosen at random, seat rotated by seed) is put to the coach
twice with the same seed and budget: as it answers (:data:`bohnanza.coach.HELD`: the
continuation buys no third field) and with the continuation free to buy (the coach
before issue 53). It prints the share of decisions whose first choice differs between
the two (and where the old first choice ranks below the first, told apart), the share
where the coach shows the first place tied, the mean options, and the CPU seconds of
one answer.

    PYTHONPATH=src python benchmarks/coach_figures.py --games 40 --seed 901801
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bohnanza import coach
from bohnanza.actions import ActionType
from bohnanza.agents import make_agent
from bohnanza.driver import PlayLog, play
from bohnanza.game import Game
from bohnanza.seeding import agent_seed

PLAYERS = 4


def position(seed: int) -> tuple[Game, int] | None:
    """A random decision of seat ``seed % 4`` in a seeded heuristic game, with a choice."""
    game = Game.new("classic", PLAYERS, seed=seed, events=False)
    start = game.clone()
    agents = [make_agent("heuristic", agent_seed(seed, k)) for k in range(PLAYERS)]
    log = play(game, agents, log=PlayLog())
    seat = seed % PLAYERS
    replay = start.clone()
    steps: list[int] = []
    for step, (s, action) in enumerate(log.actions):
        if s == seat and len(replay.legal_actions(s, False)) > 1:
            steps.append(step)
        replay.apply(s, action)
    if not steps:
        return None
    pick = random.Random(seed).choice(steps)
    g = start.clone()
    for s, action in log.actions[:pick]:
        g.apply(s, action)
    return g, seat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=901801)
    parser.add_argument("--rollouts", type=int, default=coach.HINT_ROLLOUTS)
    args = parser.parse_args()
    differs = wrong = tied = asked = 0
    options: list[int] = []
    cpu: list[float] = []
    for seed in range(args.seed, args.seed + args.games):
        found = position(seed)
        if found is None:
            continue
        game, seat = found
        try:
            started = time.process_time()
            held = coach.advise(game, seat, seed=seed, rollouts=args.rollouts, seconds=None, top=99)
            cpu.append(time.process_time() - started)
            free = coach.advise(
                game,
                seat,
                seed=seed,
                rollouts=args.rollouts,
                seconds=None,
                top=99,
                held=frozenset[ActionType](),
            )
        except coach.CoachError:
            continue
        asked += 1
        options.append(len(held))
        differs += held[0].action != free[0].action
        # The free continuation's first choice, ranked below the first under the held one.
        wrong += next(a.rank for a in held if a.action == free[0].action) > 1
        tied += held[0].tied
    print(
        f"{asked} decisions of {args.games} games, {statistics.fmean(options):.1f} options "
        f"each; first choice changed by the held purchase: {differs} ({100 * differs / asked:.0f}%), "
        f"to one the old first is told apart from: {wrong} ({100 * wrong / asked:.0f}%); "
        f"first place tied: {tied} ({100 * tied / asked:.0f}%); CPU per answer: median "
        f"{statistics.median(cpu):.2f} s, max {max(cpu):.2f} s ({args.rollouts} roll-outs)"
    )


if __name__ == "__main__":
    main()
