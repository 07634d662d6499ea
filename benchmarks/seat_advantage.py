"""Seat advantage (issue 53): each seat's win share in the line-ups the benchmark suite
publishes, with the seats rotated, and in self-play of bots that play differently.

Seat 4 of four ``heuristic`` bots won 18.5% in self-play where seat 1 won 30.2%. Is that
the game or the bot? With the line-up rotated through the seats game by game (game ``i``
seats ``lineup[(k - i) % n]`` at seat ``k``, as a tournament rotates it) every bot holds
every seat equally often, so what differs between the seats is the seat. A seat
effect that ``random`` and ``autarky`` (no trading) self-play show too belongs to the
game (who starts, who gets the last turn); one that only trading bots show belongs to
how they trade. Each seat's own turns are counted as well: the game ends when the draw
pile runs out for the last time, part-way through a round, so the first seats may play
one turn more.

    PYTHONPATH=src python benchmarks/seat_advantage.py --games 200 --seed 970001
    PYTHONPATH=src python benchmarks/seat_advantage.py --lineups self --games 400
    PYTHONPATH=src python benchmarks/seat_advantage.py --lineups heuristic,random,random,random

A line-up is ``self`` (4x ``heuristic``, 4x ``autarky``, 4x ``random``), ``suite`` (the
suite's S0-S6 for ``--candidate``), or bots separated by commas (one line-up; several
with ``;``). A shared win counts its share; intervals are Wilson 95% per seat; "spread"
is the best seat's share less the worst's; "first bot by seat" is the win share of the
line-up's first bot from each seat (with a bot far stronger than the rest every seat's
share is only that bot's time there). ``--json`` prints the rows instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from bohnanza.agents import make_agent
from bohnanza.driver import play
from bohnanza.game import Game
from bohnanza.seeding import agent_seed
from bohnanza.tournament.stats import wilson
from bohnanza.tournament.suite import SCENARIOS

PLAYERS = 4
SELF = ("heuristic", "autarky", "random")


class SeatTable:
    """Per seat of one line-up's games: wins (shares), own turns, and the game count. (A
    plain class: the tests load this file as a module outside ``sys.modules``, where a
    dataclass cannot resolve its annotations.)"""

    def __init__(self, lineup: tuple[str, ...]) -> None:
        self.lineup = lineup
        self.games = 0
        self.wins = [0.0] * len(lineup)
        self.turns = [0] * len(lineup)
        #: Per seat: the wins of the line-up's first bot when it sat there, and its games
        #: there (in a lopsided line-up every seat's share is the strong bot's time there,
        #: a quarter each; its own win share by seat is what shows the seat).
        self.first_wins = [0.0] * len(lineup)
        self.first_games = [0] * len(lineup)
        self.seconds = 0.0

    def rows(self) -> list[dict[str, float]]:
        """Per seat: win share with its Wilson interval, and mean own turns."""
        out = []
        for seat in range(len(self.lineup)):
            lo, hi = wilson(self.wins[seat], self.games)
            out.append(
                {
                    "seat": seat + 1,
                    "win": self.wins[seat] / self.games,
                    "lo": lo,
                    "hi": hi,
                    "turns": self.turns[seat] / self.games,
                    "first": self.first_wins[seat] / max(1, self.first_games[seat]),
                }
            )
        return out


def suite_lineups(candidate: str) -> list[tuple[str, ...]]:
    """The 4-player line-ups the suite publishes for ``candidate`` (at position 0; S4a,
    four copies of it), each once (S6 against three heuristic is S4a for heuristic)."""
    out: list[tuple[str, ...]] = []
    for s in SCENARIOS:
        lineup = (candidate, *s.opponents) if s.opponents else (candidate,) * PLAYERS
        if lineup not in out:
            out.append(lineup)
    return out


def measure(lineup: tuple[str, ...], first: int, games: int, rules: str = "classic") -> SeatTable:
    """``games`` seeded games of ``lineup`` from seed ``first``, rotated by game."""
    n = len(lineup)
    table = SeatTable(lineup)
    started = time.process_time()
    for i in range(games):
        seed = first + i
        seats = [lineup[(k - i) % n] for k in range(n)]
        game = Game.new(rules, n, seed=seed, events=False)
        agents = [make_agent(spec, agent_seed(seed, k)) for k, spec in enumerate(seats)]
        play(game, agents)
        assert game.winners is not None
        for s in game.winners:
            table.wins[s] += 1.0 / len(game.winners)
        first = i % n  # where lineup[0] sat
        table.first_games[first] += 1
        if first in game.winners:
            table.first_wins[first] += 1.0 / len(game.winners)
        # Turns are numbered from 1 and go round the table from seat 0.
        for s in range(n):
            table.turns[s] += (game.turn - 1 - s) // n + 1 if game.turn > s else 0
        table.games += 1
    table.seconds = time.process_time() - started
    return table


def parse_lineups(text: str, candidate: str) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for part in text.split(";"):
        part = part.strip()
        if part == "self":
            out += [(b,) * PLAYERS for b in SELF]
        elif part == "suite":
            out += suite_lineups(candidate)
        elif part:
            out.append(tuple(x.strip() for x in part.split(",")))
    return list(dict.fromkeys(out))  # each once ("suite;self" both hold 4x heuristic)


def markdown(table: SeatTable) -> str:
    rows = table.rows()
    cells = " | ".join(
        f"{100 * r['win']:.1f} [{100 * r['lo']:.1f}-{100 * r['hi']:.1f}]" for r in rows
    )
    turns = " / ".join(f"{r['turns']:.2f}" for r in rows)
    spread = 100 * (max(r["win"] for r in rows) - min(r["win"] for r in rows))
    first = " / ".join(f"{100 * r['first']:.0f}" for r in rows)
    names = ", ".join(table.lineup)
    return f"| {names} | {table.games} | {cells} | {spread:.1f} | {turns} | {first} |"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per line-up")
    parser.add_argument("--seed", type=int, default=970001, help="first seed of each line-up")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--lineups", default="suite;self")
    parser.add_argument("--candidate", default="heuristic")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    lineups = parse_lineups(args.lineups, args.candidate)
    if not args.json:
        heads = " | ".join(f"seat {s + 1}" for s in range(PLAYERS))
        print(f"| line-up (rotated) | games | {heads} | spread | own turns | first bot by seat |")
        print("|---|---:|" + "---:|" * PLAYERS + "---:|---:|---:|")
    rows = []
    for lineup in lineups:
        table = measure(lineup, args.seed, args.games, args.rules)
        if args.json:
            rows.append({"lineup": list(lineup), "games": table.games, "seats": table.rows()})
        else:
            print(markdown(table), flush=True)
            print(f"<!-- {table.seconds:.0f} CPU-s -->", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
