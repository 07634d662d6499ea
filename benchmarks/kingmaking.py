"""Kingmaking (issue 36): trades in a game's last 6 turns that give the sole leader at
least 1 coin of immediate payout, per game, and what refusing them is worth.

A game is played by the driver, then replayed from its action log: before every
accepted offer the script looks at the table. The sole leader is the one seat with the
most coins; the trade's immediate payout to it is how much more its fields would pay
now with the cards it receives planted where they pay most (onto a field of their
variety, else an empty one). "The last 6 turns" are the turns within 6 of the game's
last.

The sole leader by coins is not always the seat ahead: at the end every field is
harvested, and the bots judge the leader by coins plus what the fields pay (issue 53:
most of the default's remaining "kingmaking" trades went to a coin leader that the
fields put behind). So each line also counts the trades that feed the sole leader by
score, coins plus what its fields would pay now (the final score were the game to end).

Which trades feed the king is the bot's own definition,
:func:`bohnanza.agents.heuristic.feeds_king` (with ``scores_now``, ``sole_leader`` and
``payout_gain`` beside it): the default ``heuristic`` refuses, in its last turns, every
trade that gives the sole leader by either measure a coin of payout, and this script
counts with the same function (issue 53: the rule and the count had drifted apart).

    PYTHONPATH=src python benchmarks/kingmaking.py --games 300 --seed 900001
    PYTHONPATH=src python benchmarks/kingmaking.py --before heuristic:king --after heuristic
    PYTHONPATH=src python benchmarks/kingmaking.py --parts after   # one line only
    PYTHONPATH=src python benchmarks/kingmaking.py --games 200 --seed 970001 --parts before,after

It prints, for 4x ``--before`` and 4x ``--after`` self-play, the kingmaking trades per game
(a 95% interval of the mean), and the win share of one ``--after`` seat against three
``--before`` (rotated through the seats by seed; a shared win counts its share; Wilson
95% interval): the second line says whether refusing to make kings costs the seat.
"""

from __future__ import annotations

import argparse
import time

from bohnanza.actions import ActionType
from bohnanza.agents import make_agent
from bohnanza.agents.heuristic import feeds_king
from bohnanza.driver import PlayLog, play
from bohnanza.game import Game
from bohnanza.seeding import agent_seed
from bohnanza.tournament.stats import mean_ci, wilson

LAST = 6
PLAYERS = 4


def _fed(
    replay: Game, by_score: bool, proposer: int, give: list[int], seat: int, cards: list[int]
) -> bool:
    """Whether a trade between ``proposer`` (giving ``give``) and ``seat`` (giving
    ``cards``) feeds the king: the sole leader by coins (by ``by_score``: coins plus
    what the fields pay now) receives cards that make its fields pay a coin more now.
    The bot's own test (:func:`bohnanza.agents.heuristic.feeds_king`, which the bot
    applies to both leaders at once; here each is counted apart)."""
    cfg = replay.config
    coins = [len(t) for t in replay.treasury]
    fields = replay.fields
    by_coins = not by_score
    return feeds_king(cfg, coins, fields, proposer, cards, by_coins, by_score) or feeds_king(
        cfg, coins, fields, seat, give, by_coins, by_score
    )


def game_result(specs: list[str], seed: int, rules: str) -> tuple[int, list[float], int]:
    """(kingmaking trades, each seat's share of the win, kingmaking trades by score) of
    one seeded game."""
    game = Game.new(rules, len(specs), seed=seed, events=False)
    agents = [make_agent(spec, agent_seed(seed, i)) for i, spec in enumerate(specs)]
    log = play(game, agents, log=PlayLog())
    assert game.winners is not None
    last = game.turn
    shares = [1.0 / len(game.winners) if s in game.winners else 0.0 for s in range(len(specs))]
    replay = Game.new(rules, len(specs), seed=seed, events=False)
    count = by_score = 0
    for seat, action in log.actions:
        if action.type is ActionType.ACCEPT and replay.turn > last - LAST:
            proposer, offer = replay.offers[action.offer_id]  # type: ignore[index]
            give, cards = list(offer.give), list(action.cards)
            count += _fed(replay, False, proposer, give, seat, cards)
            by_score += _fed(replay, True, proposer, give, seat, cards)
        replay.apply(seat, action)
    return count, shares, by_score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=900001, help="first seed (held-out)")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--before", default="heuristic:king")
    parser.add_argument("--after", default="heuristic")
    parser.add_argument(
        "--parts", default="before,after,share", help="which lines to play (comma-separated)"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    seeds = range(args.seed, args.seed + args.games)
    for spec in [
        s for part, s in (("before", args.before), ("after", args.after)) if part in parts
    ]:
        started = time.process_time()
        results = [game_result([spec] * PLAYERS, s, args.rules) for s in seeds]
        counts = [float(r[0]) for r in results]
        scored = [float(r[2]) for r in results]
        lo, hi = mean_ci(counts)
        slo, shi = mean_ci(scored)
        took = time.process_time() - started
        print(
            f"4x {spec}: {sum(counts) / len(counts):.3f} kingmaking trades a game "
            f"[{lo:.3f}, {hi:.3f}] (leader by score: {sum(scored) / len(scored):.3f} "
            f"[{slo:.3f}, {shi:.3f}]) over {args.games} games ({took:.0f} CPU-s)"
        )
    if "share" not in parts:
        return
    started = time.process_time()
    won = 0.0
    for s in seeds:
        seat = s % PLAYERS
        specs = [args.before] * PLAYERS
        specs[seat] = args.after
        won += game_result(specs, s, args.rules)[1][seat]
    lo, hi = wilson(won, args.games)
    took = time.process_time() - started
    print(
        f"1x {args.after} vs 3x {args.before}: wins {100 * won / args.games:.1f}% "
        f"[{100 * lo:.1f}-{100 * hi:.1f}] of {args.games} games ({took:.0f} CPU-s)"
    )


if __name__ == "__main__":
    main()
