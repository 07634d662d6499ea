"""The bot benchmark suite (``bohnanza benchmark bots``): one candidate bot in scenarios
that reward trading, each a seeded tournament (4-player ``classic``, seats rotated),
then a round-robin league of every bot at 3, 4 and 5 players.

* S0 candidate vs 3 ``random``;
* S1 vs 3 ``probe-accept`` (partners who take any offer: what its offers are worth; it
  replaced "vs 3 autarky", where no offer is ever taken and ``heuristic`` and
  ``heuristic-v1`` played identical games);
* S2 candidate, ``heuristic-v1``, ``heuristic-v1``, ``autarky`` ("trading partners");
* S3 vs 3 ``heuristic-v1``;
* S4 vs 3 copies of itself (coins per seat), and vs the probe bots ``probe-accept``,
  ``probe-spam``, ``probe-shy``;
* S5 every combination of the league's bots at 3, 4 and 5 players, OpenSkill ratings;
* S6 vs 3 ``heuristic``, the current heuristic.

Results are per **line-up position**, not per agent name: position 0 is the candidate, and
with seats rotated every position sits at every seat equally often. (Pooled by name, a
candidate named like its opponents - S4a, or S6 with ``heuristic`` - scored 25% by
construction.) Win rates count wins per seat held (a shared win in part). Their 95%
intervals come from a bootstrap over games, as do the mean coins. Decision times are
medians over non-trivial decisions (more than one legal action), with the share of
trivial ones stated. Every tournament is stored in its own folder under ``out`` and
resumes like any tournament, so an interrupted suite run plays only what is missing.

Seeds: :data:`HELD_OUT_SEED` onwards are held out. Tuning (trying variants, choosing
weights) uses the development seeds below it; figures that are published (docs/bots.md)
are played on held-out seeds (``--held-out``), which no tuning may use.
"""

from __future__ import annotations

import itertools
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .runner import Row, TournamentSpec, run_tournament
from .stats import finished, ratings

#: The league's bots (S5): the baselines, both heuristics and the probes. ``search`` is
#: left out by default (a league of it would take hours here); ``--league`` adds it.
LEAGUE = (
    "random",
    "autarky",
    "heuristic-v1",
    "heuristic",
    "probe-accept",
    "probe-spam",
    "probe-shy",
)
BOOTSTRAP = 1000
#: The first held-out seed: seeds from here to :data:`HELD_OUT_END` are for published
#: figures only, never for tuning.
HELD_OUT_SEED = 900_001
HELD_OUT_END = 999_999
#: Seeds apart between two line-ups of the league (the most games one line-up can play),
#: and the most line-ups at one player count: the league's seeds start 10,000 after the
#: suite's seed (after the scenarios') and stay within 100,000 of it (a held-out run stays
#: in the held-out range).
LEAGUE_STRIDE = 100
LEAGUE_LINEUPS = 100


@dataclass(frozen=True, slots=True)
class Scenario:
    key: str
    title: str
    opponents: tuple[str, ...]  # the three other seats (empty: copies of the candidate)
    target: str = ""


SCENARIOS = (
    Scenario("S0", "vs 3 random", ("random",) * 3, "win rate >= 95%"),
    Scenario(
        "S1",
        "vs 3 probe-accept (they take any offer)",
        ("probe-accept",) * 3,
        "above heuristic-v1's",
    ),
    Scenario(
        "S2",
        "trading partners: heuristic-v1, heuristic-v1, autarky",
        ("heuristic-v1", "heuristic-v1", "autarky"),
        "win rate >= 45%, autarky <= 5%",
    ),
    Scenario("S3", "vs 3 heuristic-v1", ("heuristic-v1",) * 3, "win rate >= 60%"),
    Scenario("S4a", "4 copies of itself", (), "mean coins >= 12 a seat"),
    Scenario("S4b", "vs the probes", ("probe-accept", "probe-spam", "probe-shy")),
    Scenario("S6", "vs 3 heuristic (the current one)", ("heuristic",) * 3, "win rate > 25%"),
)


def position_seats(row: Mapping[str, Any], position: int, rotate: bool = True) -> list[int]:
    """The seat that line-up position ``position`` held in this game (the line-up is
    turned by the game's index, :meth:`TournamentSpec.seats_for`)."""
    n = len(row["seats"])
    return [(position + (row["game"] if rotate else 0)) % n]


def bootstrap(
    rows: Sequence[Mapping[str, Any]],
    who: str | Callable[[Mapping[str, Any]], list[int]],
    value: Callable[[Mapping[str, Any], int], float],
    seed: int = 0,
    resamples: int = BOOTSTRAP,
) -> tuple[float, float, float]:
    """(estimate, low, high): the mean of ``value(row, seat)`` over the seats ``who``
    held (an agent name, or a function giving a game's seats), with a 95% percentile
    interval from resampling whole games."""
    per_game: list[tuple[float, int]] = []
    for row in rows:
        seats = who(row) if callable(who) else [k for k, n in enumerate(row["seats"]) if n == who]
        if seats:
            per_game.append((sum(value(row, k) for k in seats), len(seats)))
    if not per_game:
        return (0.0, 0.0, 0.0)
    total = sum(v for v, _ in per_game)
    held = sum(s for _, s in per_game)
    estimate = total / held
    rng = random.Random(seed)
    n = len(per_game)
    values = [v for v, _ in per_game]
    seats = [s for _, s in per_game]
    every = range(n)
    stats: list[float] = []
    for _ in range(resamples):
        idx = rng.choices(every, k=n)
        stats.append(sum(map(values.__getitem__, idx)) / sum(map(seats.__getitem__, idx)))
    stats.sort()
    lo = stats[int(0.025 * (resamples - 1))]
    hi = stats[int(0.975 * (resamples - 1))]
    return (estimate, lo, hi)


def win_share(row: Mapping[str, Any], seat: int) -> float:
    winners = row["winners"]
    return 1.0 / len(winners) if seat in winners else 0.0


def coins(row: Mapping[str, Any], seat: int) -> float:
    return float(row["scores"][seat])


def finished_seats(row: Mapping[str, Any], position: int) -> list[int]:
    """The seat of line-up position ``position`` in a finished game; none in a forfeit,
    which has no final coins."""
    return position_seats(row, position) if finished(row) else []


def agent_table(
    rows: Sequence[Mapping[str, Any]], lineup: Sequence[str], seed: int = 0
) -> list[dict[str, Any]]:
    """Per line-up position of these games (seats rotated): its agent, win rate and mean
    coins with bootstrap intervals, the median time of its non-trivial decisions and the
    share of trivial ones. ``rows`` may hold forfeits (:func:`.stats.forfeit_row`): each
    is a loss of the position that failed and a win shared by the others (issue 53);
    coins and times are the finished games'."""
    out = []
    for p, name in enumerate(lineup):
        held = [(r, position_seats(r, p)[0]) for r in rows if finished(r)]
        think = [float(r["decision_ms"][k]) for r, k in held if r["decision_ms"][k]]
        decisions = sum(float(r["agent_stats"][k].get("timed.decisions", 0)) for r, k in held)
        trivial = sum(float(r["agent_stats"][k].get("timed.trivial", 0)) for r, k in held)
        failed = sum(1 for r in rows if not finished(r) and position_seats(r, p) == [r["forfeit"]])
        out.append(
            {
                "position": p,
                "agent": name,
                "seats": len(rows),
                "forfeits": failed,
                "win_rate": bootstrap(rows, partial(position_seats, position=p), win_share, seed),
                "coins": bootstrap(rows, partial(finished_seats, position=p), coins, seed),
                "decision_ms": statistics.median(think) if think else None,
                "trivial_share": trivial / decisions if decisions else None,
            }
        )
    return out


def league_plan(
    bots: Sequence[str], players: int, games: int, seed: int
) -> list[tuple[tuple[str, ...], int, int]]:
    """The league's tournaments at ``players`` players: every combination of ``bots``,
    each with (line-up, games, first seed). Games are rounded up to a multiple of
    ``players``, so that with seats rotated every bot of a line-up holds every seat
    equally often; each line-up has its own deals (seeds ``LEAGUE_STRIDE`` apart, and
    apart between player counts: :data:`LEAGUE_STRIDE`)."""
    per = -(-games // players) * players
    combos = list(itertools.combinations(bots, players))
    if per > LEAGUE_STRIDE or len(combos) > LEAGUE_LINEUPS or not 2 <= players <= 9:
        raise ConfigError(
            f"the league plays at most {LEAGUE_STRIDE} games of at most {LEAGUE_LINEUPS} "
            f"line-ups of 2-9 players, not {per} games of {len(combos)} at {players}"
        )
    base = seed + LEAGUE_STRIDE * LEAGUE_LINEUPS * (players - 2)
    return [(combo, per, base + LEAGUE_STRIDE * k) for k, combo in enumerate(combos)]


def _lineup(candidate: str, s: Scenario) -> tuple[str, ...]:
    return (candidate, *s.opponents) if s.opponents else (candidate,) * 4


def run_suite(
    candidate: str,
    out: str | Path,
    *,
    games: int,
    s4_games: int | None = None,
    league_games: int = 0,
    league: Sequence[str] = LEAGUE,
    league_players: Sequence[int] = (3, 4, 5),
    seed: int = 1,
    workers: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play (or resume) every scenario and the league; returns the results."""
    folder = Path(out)
    results: dict[str, Any] = {"candidate": candidate, "scenarios": {}, "league": {}}
    for s in SCENARIOS:
        n = games if not s.key.startswith("S4") or s4_games is None else s4_games
        if n < 1:
            continue
        if progress:
            progress(f"{s.key} ({s.title}): {n} games")
        spec = TournamentSpec("classic", 4, _lineup(candidate, s), seed=seed)
        outcome = run_tournament(spec, n, folder / s.key, workers=workers)
        results["scenarios"][s.key] = {
            "title": s.title,
            "target": s.target,
            "games": len(outcome.counted),
            "forfeits": outcome.summary["forfeits"],
            "lineup": list(spec.lineup),
            "agents": agent_table(outcome.counted, spec.lineup, seed),
            "seconds": sum(float(r["seconds"]) for r in outcome.rows),
            "cpu_seconds": sum(float(r.get("cpu_seconds") or 0.0) for r in outcome.rows),
        }
    if league_games > 0:
        bots = list(dict.fromkeys([*league, candidate]))
        every: list[Row] = []
        by_players: dict[int, list[Row]] = {}
        for players in league_players:
            plan = league_plan(bots, players, league_games, seed)
            if not plan:  # fewer bots than seats
                continue
            if progress:
                progress(f"S5 league, {players} players: {len(plan)} line-ups x {plan[0][1]}")
            for k, (combo, n, first) in enumerate(plan):
                spec = TournamentSpec("classic", players, combo, seed=first)
                outcome = run_tournament(
                    spec, n, folder / f"S5-{players}p" / f"{k:03d}", workers=workers
                )
                by_players.setdefault(players, []).extend(outcome.counted)
                every.extend(outcome.counted)
        overall, _ = ratings(every)
        results["league"] = {
            "bots": bots,
            "games_per_lineup": {
                str(p): -(-league_games // p) * p for p in league_players if p in by_players
            },
            "games": len(every),
            "ratings": overall,
            "by_players": {
                str(p): {"games": len(rows), "ratings": ratings(rows)[0]}
                for p, rows in by_players.items()
            },
        }
    return results


# ---------------------------------------------------------------------------- report


def _pct(x: tuple[float, float, float]) -> str:
    return f"{100 * x[0]:.1f}% [{100 * x[1]:.1f}–{100 * x[2]:.1f}]"


def _num(x: tuple[float, float, float]) -> str:
    return f"{x[0]:.2f} [{x[1]:.2f}–{x[2]:.2f}]"


def markdown(results: Mapping[str, Any], command: str, plots: Mapping[str, str]) -> str:
    """The suite's report: one table per scenario, the league's ratings, the plots."""
    cand = results["candidate"]
    lines = [
        f"Candidate `{cand}` at line-up position 0, 4-player `classic`, seats rotated every",
        "game; results per line-up position (#0 the candidate). Win rate = wins per seat",
        "held (a shared win in part); 95% intervals by bootstrap over games. ms/decision:",
        "median over non-trivial decisions (more than one legal action); trivial: the share",
        "of decisions left out. CPU-s: the workers' CPU time per game.",
        "",
        "```sh",
        command,
        "```",
        "",
        "| scenario | games | position | win rate [95%] | coins a seat [95%] | ms/decision "
        "| trivial | CPU-s a game |",
        "|---|---:|---|---|---|---:|---:|---:|",
    ]
    for key, sc in results["scenarios"].items():
        cpu = sc.get("cpu_seconds", 0.0) / sc["games"] if sc["games"] else 0.0
        for a in sc["agents"]:
            ms = f"{a['decision_ms']:.3f}" if a["decision_ms"] is not None else "–"
            share = a.get("trivial_share")
            trivial = f"{100 * share:.0f}%" if share is not None else "–"
            lines.append(
                f"| {key} {sc['title']} | {sc['games']} | #{a.get('position', '')} "
                f"`{a['agent']}` | {_pct(a['win_rate'])} | {_num(a['coins'])} | {ms} | "
                f"{trivial} | {cpu:.2f} |"
            )
    targets = [
        f"* {key} ({sc['title']}): target {sc['target']}"
        for key, sc in results["scenarios"].items()
        if sc["target"]
    ]
    if targets:
        lines += ["", "Targets (issues 12 and 36):", "", *targets]
    lg = results.get("league") or {}
    if lg:
        lines += [
            "",
            f"**S5 league**: every combination of {len(lg['bots'])} bots at "
            f"{', '.join(lg['by_players'])} players, "
            + ", ".join(f"{n} games a line-up at {p}" for p, n in lg["games_per_lineup"].items())
            + f" (a whole rotation of the seats, each line-up its own seeds; {lg['games']} "
            "games), OpenSkill Plackett-Luce over all of them:",
            "",
            "| bot | mu | sigma | ordinal | "
            + " | ".join(f"mu at {p}p" for p in lg["by_players"])
            + " |",
            "|---|---:|---:|---:|" + "---:|" * len(lg["by_players"]),
        ]
        order = sorted(lg["ratings"], key=lambda n: -lg["ratings"][n]["ordinal"])
        for n in order:
            r = lg["ratings"][n]
            per = " | ".join(
                f"{lg['by_players'][p]['ratings'].get(n, {}).get('mu', 0.0):.2f}"
                for p in lg["by_players"]
            )
            lines.append(
                f"| `{n}` | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} | {per} |"
            )
    for title, path in plots.items():
        lines += ["", f"![{title}]({path})"]
    return "\n".join(lines) + "\n"


def make_plots(results: Mapping[str, Any], folder: str | Path) -> dict[str, Path]:
    """Win rate per scenario and agent (with intervals), and the league's ratings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    scen = results["scenarios"]
    if scen:
        fig, ax = plt.subplots(figsize=(8, 3.6))
        labels: list[str] = []
        xs: list[float] = []
        x = 0.0
        for key, sc in scen.items():
            for a in sc["agents"]:
                est, lo, hi = a["win_rate"]
                color = "tab:green" if a.get("position") == 0 else "tab:gray"
                ax.bar(x, 100 * est, color=color, width=0.8)
                ax.errorbar(x, 100 * est, yerr=[[100 * (est - lo)], [100 * (hi - est)]],
                            color="black", capsize=3)  # fmt: skip
                labels.append(f"{key} #{a.get('position', '')}\n{a['agent']}")
                xs.append(x)
                x += 1
            x += 0.6
        ax.axhline(25, color="tab:red", lw=0.8, ls="--")
        ax.set_xticks(xs, labels, fontsize=6, rotation=60)
        ax.set_ylabel("win rate per seat (%)")
        ax.set_title(f"Benchmark scenarios: {results['candidate']} (green)")
        fig.tight_layout()
        path = folder / "suite_scenarios.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files["win rates per scenario"] = path
    lg = results.get("league") or {}
    if lg:
        order = sorted(lg["ratings"], key=lambda n: lg["ratings"][n]["mu"])
        fig, ax = plt.subplots(figsize=(6, 3.2))
        mus = [lg["ratings"][n]["mu"] for n in order]
        sig = [lg["ratings"][n]["sigma"] for n in order]
        ax.barh(order, mus, xerr=sig, color="tab:blue", capsize=3)
        ax.set_xlabel("OpenSkill mu (± sigma)")
        ax.set_title("S5 league, 3-5 players")
        fig.tight_layout()
        path = folder / "suite_league.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files["league ratings"] = path
    return files


BEGIN = "<!-- benchmark-suite:begin -->"
END = "<!-- benchmark-suite:end -->"


def splice(doc: str, section: str) -> str:
    """``doc`` with the text between the suite's markers replaced by ``section`` (the
    markers are appended when missing)."""
    block = f"{BEGIN}\n{section}{END}"
    if BEGIN in doc and END in doc:
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        return head + block + tail
    return doc.rstrip("\n") + "\n\n" + block + "\n"


__all__ = [
    "HELD_OUT_SEED",
    "LEAGUE",
    "SCENARIOS",
    "agent_table",
    "bootstrap",
    "league_plan",
    "make_plots",
    "markdown",
    "position_seats",
    "run_suite",
    "splice",
]
