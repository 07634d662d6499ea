"""Tournament statistics: win rates with 95% intervals, coins, seats, game length, ratings.

* A **win** is shared when several seats tie on coins and cards in hand (R-END-4): each
  winner gets ``1/k``. An agent's ``win_rate`` is its wins per seat it held: with one
  seat per game that is its share of games won; the baseline is ``1/players``.
  ``win_rate_ci95`` is the Wilson score interval over the games it played, each game
  counting its share of the agent's seats won: the seats of one game are not
  independent (an agent holding two seats of every game would otherwise get the
  interval of twice its games). ``mean_coins_ci95`` likewise takes each game's mean
  over the agent's seats.
* A **forfeit** (a game an agent failed in, :mod:`bohnanza.forfeits`) is a loss of the
  seat that failed and a win shared by the other seats, in win rates, seat win rates and
  ratings alike (issue 53): left out, the games a bot failed in - often the ones it was
  losing - flattered it. ``games`` counts them; coins, game lengths, decision times and
  counters come from the ``finished`` games only (a forfeited game has no final score).
* **Ratings** are OpenSkill's Plackett-Luce model, the games taken in seed order, each
  seat a team of one ranked by coins then cards in hand (a forfeit: the failing seat
  last, the others tied first). Seats of one agent share its rating: after a game the
  agent takes the mean of its seats' updated ratings.
* **Decision times**: ``decision_ms_median`` is the median over games of each seat's
  median time per non-trivial decision (more than one legal action, or an optional one);
  ``trivial_share`` is the share of its decisions left out as trivial.
  ``cpu_seconds_per_game`` is the workers' CPU time per game, not the wall time.
* **Counters** an agent reports (``Agent.stats()``) are summed per agent: ``total`` over
  every seat it held in a finished game, ``mean`` per such seat (a seat that reported
  nothing counts 0).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

Z95 = 1.959963984540054


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (``successes`` may be fractional)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: Sequence[float], z: float = Z95) -> tuple[float, float]:
    """Normal-approximation 95% interval of a mean."""
    if len(values) < 2:
        m = values[0] if values else 0.0
        return (m, m)
    m = statistics.fmean(values)
    se = statistics.stdev(values) / math.sqrt(len(values))
    return (m - z * se, m + z * se)


def ranks(scores: Sequence[int], hand_sizes: Sequence[int]) -> list[int]:
    """1 for the best seat; seats equal on (coins, cards in hand) share a rank."""
    keys = list(zip(scores, hand_sizes, strict=True))
    return [1 + sum(1 for other in keys if other > k) for k in keys]


def forfeit_row(forfeit: Mapping[str, Any], seats: Sequence[str]) -> dict[str, Any]:
    """A forfeited game (``Forfeit.to_json()``) as the statistics count it: played by
    ``seats`` (the line-up turned for its game index), lost by the seat that failed
    (``forfeit``) and won, shared, by the others (``winners``)."""
    failed = int(forfeit["seat"])
    return {
        "seed": int(forfeit["seed"]),
        "game": int(forfeit["game"]),
        "players": len(seats),
        "seats": list(seats),
        "forfeit": failed,
        "winners": [k for k in range(len(seats)) if k != failed],
    }


def finished(row: Mapping[str, Any]) -> bool:
    """Whether ``row`` is a game played to the end (not a :func:`forfeit_row`)."""
    return "forfeit" not in row


def placing(row: Mapping[str, Any]) -> list[int]:
    """The rank of every seat of a game (1 the best): by coins then cards in hand, or for
    a forfeit the failing seat last and the others tied first."""
    if not finished(row):
        return [2 if k == row["forfeit"] else 1 for k in range(len(row["seats"]))]
    return ranks(row["scores"], row["hand_sizes"])


def ratings(
    rows: Sequence[Mapping[str, Any]], every: int = 1
) -> tuple[dict[str, dict[str, float]], list[dict[str, Any]]]:
    """OpenSkill Plackett-Luce ratings per agent, and their history every ``every``
    games: ``[{"games": n, "<agent>": {"mu", "sigma"}, ...}]``."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current: dict[str, Any] = {}
    history: list[dict[str, Any]] = []
    for i, row in enumerate(rows, start=1):
        seats: list[str] = row["seats"]
        for name in seats:
            if name not in current:
                current[name] = model.rating(name=name)
        teams = [[model.rating(mu=current[n].mu, sigma=current[n].sigma, name=n)] for n in seats]
        new = model.rate(teams, ranks=[float(r) for r in placing(row)])
        for name in set(seats):
            mine = [new[k][0] for k, n in enumerate(seats) if n == name]
            current[name] = model.rating(
                mu=statistics.fmean(r.mu for r in mine),
                sigma=statistics.fmean(r.sigma for r in mine),
                name=name,
            )
        if i % every == 0 or i == len(rows):
            history.append(
                {
                    "games": i,
                    **{
                        n: {"mu": round(r.mu, 4), "sigma": round(r.sigma, 4)}
                        for n, r in current.items()
                    },
                }
            )
    final = {
        n: {
            "mu": round(r.mu, 3),
            "sigma": round(r.sigma, 3),
            "ordinal": round(r.ordinal(), 3),
        }
        for n, r in current.items()
    }
    return final, history


def _trivial_share(counters: Mapping[str, float]) -> float | None:
    """The share of an agent's decisions that were trivial (at most one legal action),
    which its ``decision_ms_median`` leaves out; None for games stored without the count."""
    total = counters.get("timed.decisions", 0)
    return round(counters.get("timed.trivial", 0) / total, 4) if total else None


def summarise(
    rows: Sequence[Mapping[str, Any]], identity: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The tournament summary printed by ``bohnanza tournament --json``: of finished
    games and forfeits (:func:`forfeit_row`) alike, in seed order."""
    identity = dict(identity or {})
    rows = sorted(rows, key=lambda r: int(r["seed"]))
    n = len(rows)
    done = [r for r in rows if finished(r)]
    players = int(rows[0]["players"]) if rows else int(identity.get("players", 0))
    names: list[str] = []
    for name in identity.get("lineup", []):
        if name not in names:
            names.append(name)
    for row in rows:
        for name in row["seats"]:
            if name not in names:
                names.append(name)
    wins = dict.fromkeys(names, 0.0)
    held = dict.fromkeys(names, 0)
    lost = dict.fromkeys(names, 0)
    coins: dict[str, list[float]] = {name: [] for name in names}
    think: dict[str, list[float]] = {name: [] for name in names}
    in_games = dict.fromkeys(names, 0)
    game_wins = dict.fromkeys(names, 0.0)
    per_game = dict.fromkeys(names, 0.0)  # per game: its wins over its seats held
    game_coins: dict[str, list[float]] = {name: [] for name in names}
    seat_wins = [0.0] * players
    seat_coins: list[list[float]] = [[] for _ in range(players)]
    turns: list[float] = []
    actions: list[float] = []
    cpu: list[float] = []
    shared = 0
    counters: dict[str, dict[str, float]] = {name: {} for name in names}
    for row in rows:
        winners = row["winners"]
        share = 1.0 / len(winners)
        seats = row["seats"]
        for k, name in enumerate(seats):
            held[name] += 1
            if k in winners:
                wins[name] += share
                seat_wins[k] += share
        for name in set(seats):
            in_games[name] += 1
            won = share * sum(1 for k in winners if seats[k] == name)
            game_wins[name] += won
            per_game[name] += won / seats.count(name)
        if not finished(row):
            lost[seats[row["forfeit"]]] += 1
            continue
        if len(winners) > 1:
            shared += 1
        for name in set(seats):
            held_coins = [float(row["scores"][k]) for k, who in enumerate(seats) if who == name]
            game_coins[name].append(statistics.fmean(held_coins))
        for k, name in enumerate(seats):
            coins[name].append(float(row["scores"][k]))
            seat_coins[k].append(float(row["scores"][k]))
            if row["decision_ms"][k]:
                think[name].append(float(row["decision_ms"][k]))
        for k, reported in enumerate(row.get("agent_stats") or []):
            mine = counters[seats[k]]
            for counter, value in reported.items():
                mine[counter] = mine.get(counter, 0) + value
        turns.append(float(row["turns"]))
        if row.get("cpu_seconds") is not None:
            cpu.append(float(row["cpu_seconds"]))
        actions.append(float(row["actions"]))
    rated: dict[str, dict[str, float]] = {}
    if rows:
        try:
            rated, _ = ratings(rows, every=max(1, n))
        except ImportError:  # openskill is an optional extra: bohnanza[tournament]
            rated = {}
    agents: dict[str, Any] = {}
    for name in names:
        m = held[name]
        lo, hi = wilson(per_game[name], in_games[name])
        clo, chi = mean_ci(game_coins[name])
        agents[name] = {
            "seats_played": m,
            "games": in_games[name],
            "forfeits": lost[name],
            "wins": round(wins[name], 3),
            "win_rate": round(wins[name] / m, 4) if m else 0.0,
            "win_rate_ci95": [round(lo, 4), round(hi, 4)],
            "game_win_rate": round(game_wins[name] / in_games[name], 4) if in_games[name] else 0.0,
            "mean_coins": round(statistics.fmean(coins[name]), 3) if coins[name] else 0.0,
            "mean_coins_ci95": [round(clo, 3), round(chi, 3)],
            "rating": rated.get(name),
            "decision_ms_median": round(statistics.median(think[name]), 4) if think[name] else None,
            "trivial_share": _trivial_share(counters[name]),
            "stats": {
                counter: {"total": round(total, 4), "mean": round(total / played, 4)}
                for counter, total in sorted(counters[name].items())
                if (played := len(coins[name]))
            },
        }
    seats_out = []
    for k in range(players):
        lo, hi = wilson(seat_wins[k], n)
        seats_out.append(
            {
                "seat": k,
                "win_rate": round(seat_wins[k] / n, 4) if n else 0.0,
                "win_rate_ci95": [round(lo, 4), round(hi, 4)],
                "mean_coins": round(statistics.fmean(seat_coins[k]), 3) if seat_coins[k] else 0.0,
            }
        )
    return {
        "games": n,
        "finished": len(done),
        "forfeits": n - len(done),
        "rules": identity.get("rules", done[0]["rules"] if done else None),
        "players": players,
        "options": identity.get("options", {}),
        "lineup": identity.get("lineup", []),
        "seed": identity.get("seed"),
        "rotate": identity.get("rotate", True),
        "agents": agents,
        "seats": seats_out,
        "shared_wins": round(shared / len(done), 4) if done else 0.0,
        "game_length": {
            "mean_turns": round(statistics.fmean(turns), 3) if turns else 0.0,
            "sd_turns": round(statistics.stdev(turns), 3) if len(turns) > 1 else 0.0,
            "min_turns": int(min(turns)) if turns else 0,
            "max_turns": int(max(turns)) if turns else 0,
            "mean_actions": round(statistics.fmean(actions), 2) if actions else 0.0,
        },
        "cpu_seconds_per_game": round(statistics.fmean(cpu), 4) if cpu else None,
    }


__all__ = [
    "finished",
    "forfeit_row",
    "mean_ci",
    "placing",
    "ranks",
    "ratings",
    "summarise",
    "wilson",
]
