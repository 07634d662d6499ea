"""Figures of a tournament of one ``search`` seat against other bots, from its folder.

    bohnanza tournament -a search:40ro:d2,heuristic,heuristic,heuristic -n 48 -w 1 \\
        --seed 1 -o runs/search-40ro-d2 --no-plots
    python benchmarks/search_report.py runs/search-40ro-d2 [--first 20]

Prints the search seat's win share (shared wins in part) with its 95% Wilson interval,
mean coins (its own, the others', its margin over the best other seat), the searched
decisions' time (the median and 95th percentile of each game, from the search's
``stats()``; the tournament's own ``decision_ms`` column is the median over its
non-trivial decisions, those with more than one legal action), and the CPU time per game
(the workers' own, ``cpu_seconds``: with other work on the machine the wall time
overstates it; games stored before that column fall back to the wall time, and say so)
and what 300 games need, and how its games were decided (won on coins; ties on coins won,
shared or lost on the cards in hand, R-END-4; lost by one coin, two, more). ``--first N``
keeps the first N games, to compare runs on the same seeds. ``--baseline`` also replays
every game with ``heuristic`` in the search's seat (the same deals, seats, agent seeds and
the other seats' bots as the games recorded them; about 0.6 s a game): how often that
seat wins without the search, and the paired difference game by game
(``--seat-bot heuristic:fg0.9`` replays another bot there instead: the search's own play
without the search). ``--versus OTHER`` pairs each run with another run's search seat on
the same seeds (a new search against the old one, game by game). Seeds
differ in how much they favour a seat, so a run is best compared with this rather than
with 25%.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import statistics


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


#: How a game ended for the search's seat, against the best other seat (R-END-4: a tie on
#: coins goes to the most cards in hand, then is shared), in the order printed.
OUTCOMES = {
    "won": "won on coins",
    "tie_won": "tie won on hand cards",
    "tie_shared": "tie shared",
    "tie_lost": "tie lost on hand cards",
    "lost_by_1": "lost by 1 coin",
    "lost_by_2": "by 2",
    "lost_by_more": "by more",
}


def outcome(margin: int, won: bool, shared: bool) -> str:
    """Which of :data:`OUTCOMES` a game was for a seat, from its coin margin over the best
    other seat and whether it won (alone or ``shared``). A bot that wins most of its ties
    (its opponents give their hand cards away) can look strong for that alone: the
    breakdown shows where a win share comes from."""
    if margin > 0:
        return "won"
    if margin == 0:
        if not won:
            return "tie_lost"
        return "tie_shared" if shared else "tie_won"
    return "lost_by_1" if margin == -1 else "lost_by_2" if margin == -2 else "lost_by_more"


def report(path: str, first: int | None = None) -> tuple[dict[str, float], dict[int, float]]:
    db = sqlite3.connect(f"file:{path}/games.sqlite?mode=ro", uri=True)
    columns = {r[1] for r in db.execute("pragma table_info(games)")}
    cpu_column = "cpu_seconds" if "cpu_seconds" in columns else "null"
    rows = list(
        db.execute(
            "select seed, seats, scores, winners, seconds, decision_ms, "
            f"{cpu_column} from games order by seed"
        )
    )[:first]
    stats: dict[int, dict[str, float]] = {}
    for seed, _seat, agent, counter, value in db.execute("select * from agent_stats"):
        if agent.startswith("search"):
            stats.setdefault(seed, {})[counter] = value
    wins = 0.0
    mine: list[float] = []
    others: list[float] = []
    margins: list[float] = []
    seconds: list[float] = []
    cpu: list[float] = []
    medians_all: list[float] = []
    per_game: dict[int, float] = {}
    decided: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    for seed, seats_j, scores_j, winners_j, secs, dms_j, cpu_s in rows:
        seats, scores = json.loads(seats_j), json.loads(scores_j)
        winners, dms = json.loads(winners_j), json.loads(dms_j)
        k = next(i for i, a in enumerate(seats) if a.startswith("search"))
        per_game[seed] = 1 / len(winners) if k in winners else 0.0
        wins += per_game[seed]
        rest = [s for i, s in enumerate(scores) if i != k]
        mine.append(scores[k])
        others += rest
        margins.append(scores[k] - max(rest))
        decided[outcome(margins[-1], k in winners, len(winners) > 1)] += 1
        seconds.append(secs)
        if cpu_s is not None:
            cpu.append(cpu_s)
        medians_all.append(dms[k])
    n = len(rows)
    lo, hi = wilson(wins, n)
    st = [stats[r[0]] for r in rows if r[0] in stats]
    med = [s["search_ms_median"] for s in st if "search_ms_median" in s]
    p95 = [s["search_ms_p95"] for s in st if "search_ms_p95" in s]
    searched = sum(s["searched"] for s in st)
    out = {
        "games": n,
        "win_share": wins / n,
        "ci_low": lo,
        "ci_high": hi,
        "coins": statistics.fmean(mine),
        "coins_others": statistics.fmean(others),
        "margin": statistics.fmean(margins),
        "searched_per_game": searched / len(st),
        "search_ms_median": statistics.median(med),
        "search_ms_p95": statistics.median(p95),
        "search_ms_p95_max": max(p95),
        "decision_ms_median": statistics.median(medians_all),
        "seconds_per_game": statistics.fmean(seconds),
        "cpu_seconds_per_game": statistics.fmean(cpu) if len(cpu) == n else math.nan,
        **{f"decided_{name}": count for name, count in decided.items()},
    }
    print(f"{path}: {n} games, seeds {rows[0][0]}..{rows[-1][0]}")
    print(f"  win share {wins:.2f}/{n} = {wins / n:.1%}, 95% Wilson [{lo:.1%}, {hi:.1%}]")
    print(
        f"  mean coins: search {out['coins']:.2f}, others {out['coins_others']:.2f};"
        f" margin over the best other {out['margin']:+.2f}"
    )
    print(
        f"  searched decisions a game {out['searched_per_game']:.0f}; searched decision:"
        f" median {out['search_ms_median']:.0f} ms (median of the games' medians, range"
        f" {min(med):.0f}-{max(med):.0f}), p95 {out['search_ms_p95']:.0f} ms (max"
        f" {max(p95):.0f}); its non-trivial decisions: median {out['decision_ms_median']:.2f} ms"
    )
    print("  decided: " + ", ".join(f"{OUTCOMES[name]} {c}" for name, c in decided.items()))
    over = sum(s.get("overruled", 0) for s in st)
    if any("overruled" in s for s in st):
        print(f"  overruled the heuristic in {over:.0f} of {searched:.0f} searched decisions")
    wall = out["seconds_per_game"]
    if len(cpu) == n:
        per = out["cpu_seconds_per_game"]
        print(
            f"  {per:.1f} CPU-s a game ({sum(cpu) / 60:.1f} CPU-min in all; wall {wall:.1f} s"
            f" a game); 300 games: {300 * per / 3600:.2f} CPU-hours"
        )
    else:
        print(
            f"  {wall:.1f} s a game of WALL time (no CPU time stored with these games: they"
            f" predate it); 300 games: {300 * wall / 3600:.2f} hours of one worker"
        )
    return out, per_game


def baseline(path: str, first: int | None = None, bot: str = "heuristic") -> dict[int, float]:
    """The win share of the search's seat when ``bot`` (a spec) plays it and the other
    seats keep the bots they had (their specs as the games recorded them), on the same
    games (returned per game, by seed)."""
    from bohnanza import Game
    from bohnanza.agents import make_agent
    from bohnanza.driver import play
    from bohnanza.seeding import agent_seed

    db = sqlite3.connect(f"file:{path}/games.sqlite?mode=ro", uri=True)
    rows = list(db.execute("select seed, seats, rules, players, options from games order by seed"))
    wins = 0.0
    coins = 0.0
    per_game: dict[int, float] = {}
    for seed, seats_j, rules, players, options_j in rows[:first]:
        seats = json.loads(seats_j)
        k = next(i for i, a in enumerate(seats) if a.startswith("search"))
        game = Game.new(rules, players, options=json.loads(options_j), seed=seed)
        agents = [
            make_agent(bot if s == k else spec, agent_seed(seed, s)) for s, spec in enumerate(seats)
        ]
        play(game, agents)
        assert game.winners is not None and game.scores is not None
        per_game[seed] = 1 / len(game.winners) if k in game.winners else 0.0
        wins += per_game[seed]
        coins += game.scores[k]
    n = len(rows[:first])
    lo, hi = wilson(wins, n)
    print(
        f"  {bot} in that seat, same games: {wins:.2f}/{n} = {wins / n:.1%}"
        f" [{lo:.1%}, {hi:.1%}], {coins / n:.2f} coins"
    )
    return per_game


def paired(
    search: dict[int, float], heuristic: dict[int, float], bot: str = "heuristic"
) -> tuple[float, float, float]:
    """The search's win share minus ``bot``'s in the same seat of the same games, with a
    95% interval from the per-game differences (the deal's luck cancels out)."""
    d = [search[s] - heuristic[s] for s in search if s in heuristic]
    m = statistics.fmean(d)
    half = 1.96 * statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else math.inf
    print(
        f"  search minus {bot}, same games (paired): {m:+.1%}, 95% [{m - half:+.1%},"
        f" {m + half:+.1%}]"
    )
    return m, m - half, m + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--first", type=int, default=None, help="only the first N games")
    parser.add_argument(
        "--baseline", action="store_true", help="replay the games with heuristic in its seat"
    )
    parser.add_argument(
        "--seat-bot",
        action="append",
        metavar="SPEC",
        help="with --baseline: the bot replayed in the search's seat (default heuristic;"
        " repeat for several, e.g. heuristic:fg0.9, the search's own play unsearched)",
    )
    parser.add_argument(
        "--versus",
        metavar="FOLDER",
        help="another run on the same seeds (e.g. an older search): each folder's search"
        " seat minus that run's, game by game",
    )
    args = parser.parse_args()
    other: dict[int, float] | None = None
    if args.versus:
        _, other = report(args.versus, args.first)
    for path in args.folders:
        _, mine = report(path, args.first)
        if other is not None:
            paired(mine, other, f"the search of {args.versus}")
        if args.baseline:
            for bot in args.seat_bot or ["heuristic"]:
                paired(mine, baseline(path, args.first, bot), bot)


if __name__ == "__main__":
    main()
