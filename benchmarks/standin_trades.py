"""Trades with the seats of absent people (issue 31): 4-player classic games whose seats
0 and 1 are heuristic bots (the people still there, or the table's bots) and whose seats 2
and 3 are played by stand-ins, once by ``autarky`` (the web app's stand-in before issue
31) and once by ``heuristic`` (the default stand-in now). Engine only, no server.

    PYTHONPATH=src python benchmarks/standin_trades.py [--games 20]
"""

from __future__ import annotations

import argparse

from bohnanza.agents import make_agent
from bohnanza.driver import play
from bohnanza.game import Game

ABSENT = (2, 3)


def trades(stand_in: str, games: int) -> tuple[float, float]:
    """Trades a game in all, and those with a stand-in on either side."""
    total = involved = 0
    for seed in range(games):
        game = Game.new("classic", 4, seed=seed)
        events = game.record_events()  # the live list the engine appends to
        agents = [make_agent("heuristic", seed * 10 + i) for i in range(2)]
        agents += [make_agent(stand_in, seed * 10 + i) for i in ABSENT]
        play(game, agents)
        for event in events:
            if event.type == "trade":
                total += 1
                if event.seat in ABSENT or event.data.get("proposer") in ABSENT:
                    involved += 1
    return total / games, involved / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args()
    for stand_in in ("autarky", "heuristic"):
        total, involved = trades(stand_in, args.games)
        print(
            f"stand-in {stand_in:9s}: {involved:5.1f} trades a game with a stand-in, "
            f"{total:5.1f} in all ({args.games} games)"
        )


if __name__ == "__main__":
    main()
