"""The bot benchmark suite (``bohnanza benchmark bots``): one candidate bot in scenarios
that reward trading, each a seeded tournament (4-player ``classic``, seats rotated),
then a round-robin league of every bot at 3, 4 and 5 players.

* S0 candidate vs 3 ``random``; S1 vs 3 ``autarky``;
* S2 candidate, ``heuristic-v1``, ``heuristic-v1``, ``autarky`` ("trading partners");
* S3 vs 3 ``heuristic-v1``;
* S4 vs 3 copies of itself (coins per seat), and vs the probe bots ``probe-accept``,
  ``probe-spam``, ``probe-shy``;
* S5 every combination of the league's bots at 3, 4 and 5 players, OpenSkill ratings.

Win rates count wins per seat held (a shared win in part). Their 95% intervals come from
a bootstrap over games (the games are resampled, not the seats: an agent holding
several seats of one game has correlated results), as do the mean coins. Every
tournament is stored in its own folder under ``out`` and resumes like any tournament,
so an interrupted suite run plays only what is missing.
"""

from __future__ import annotations

import itertools
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .runner import Row, TournamentSpec, run_tournament
from .stats import ratings

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


@dataclass(frozen=True, slots=True)
class Scenario:
    key: str
    title: str
    opponents: tuple[str, ...]  # the three other seats (empty: copies of the candidate)
    target: str = ""


SCENARIOS = (
    Scenario("S0", "vs 3 random", ("random",) * 3, "win rate >= 95%"),
    Scenario("S1", "vs 3 autarky", ("autarky",) * 3, "win rate >= 43%"),
    Scenario(
        "S2",
        "trading partners: heuristic-v1, heuristic-v1, autarky",
        ("heuristic-v1", "heuristic-v1", "autarky"),
        "win rate >= 45%, autarky <= 5%",
    ),
    Scenario("S3", "vs 3 heuristic-v1", ("heuristic-v1",) * 3, "win rate >= 60%"),
    Scenario("S4a", "4 copies of itself", (), "mean coins >= 12 a seat"),
    Scenario("S4b", "vs the probes", ("probe-accept", "probe-spam", "probe-shy")),
)


def bootstrap(
    rows: Sequence[Mapping[str, Any]],
    name: str,
    value: Callable[[Mapping[str, Any], int], float],
    seed: int = 0,
    resamples: int = BOOTSTRAP,
) -> tuple[float, float, float]:
    """(estimate, low, high): the mean over ``name``'s seats of ``value(row, seat)``,
    with a 95% percentile interval from resampling whole games."""
    per_game: list[tuple[float, int]] = []
    for row in rows:
        seats = [k for k, n in enumerate(row["seats"]) if n == name]
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


def agent_table(rows: Sequence[Mapping[str, Any]], seed: int = 0) -> list[dict[str, Any]]:
    """Per agent of these games: win rate and mean coins with bootstrap intervals, and
    the median decision time."""
    names: list[str] = []
    for row in rows:
        for n in row["seats"]:
            if n not in names:
                names.append(n)
    out = []
    for name in names:
        think = [
            float(r["decision_ms"][k])
            for r in rows
            for k, n in enumerate(r["seats"])
            if n == name and r["decision_ms"][k]
        ]
        out.append(
            {
                "agent": name,
                "seats": sum(1 for r in rows for n in r["seats"] if n == name),
                "win_rate": bootstrap(rows, name, win_share, seed),
                "coins": bootstrap(rows, name, coins, seed),
                "decision_ms": statistics.median(think) if think else None,
            }
        )
    return out


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
            "games": len(outcome.rows),
            "lineup": list(spec.lineup),
            "agents": agent_table(outcome.rows, seed),
            "seconds": sum(float(r["seconds"]) for r in outcome.rows),
        }
    if league_games > 0:
        bots = list(dict.fromkeys([*league, candidate]))
        every: list[Row] = []
        by_players: dict[int, list[Row]] = {}
        for players in league_players:
            combos = list(itertools.combinations(bots, players))
            if progress:
                progress(f"S5 league, {players} players: {len(combos)} line-ups x {league_games}")
            for k, combo in enumerate(combos):
                spec = TournamentSpec("classic", players, combo, seed=seed)
                outcome = run_tournament(
                    spec, league_games, folder / f"S5-{players}p" / f"{k:03d}", workers=workers
                )
                by_players.setdefault(players, []).extend(outcome.rows)
                every.extend(outcome.rows)
        overall, _ = ratings(every)
        results["league"] = {
            "bots": bots,
            "games_per_lineup": league_games,
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
        f"Candidate `{cand}`, 4-player `classic`, seats rotated every game. Win rate = wins",
        "per seat held (a shared win in part); 95% intervals by bootstrap over games.",
        "",
        "```sh",
        command,
        "```",
        "",
        "| scenario | games | agent | win rate [95%] | coins a seat [95%] | ms/decision |",
        "|---|---:|---|---|---|---:|",
    ]
    for key, sc in results["scenarios"].items():
        for a in sc["agents"]:
            ms = f"{a['decision_ms']:.3f}" if a["decision_ms"] is not None else "–"
            lines.append(
                f"| {key} {sc['title']} | {sc['games']} | `{a['agent']}` | "
                f"{_pct(a['win_rate'])} | {_num(a['coins'])} | {ms} |"
            )
    targets = [
        f"* {key} ({sc['title']}): target {sc['target']}"
        for key, sc in results["scenarios"].items()
        if sc["target"]
    ]
    if targets:
        lines += ["", "Targets (issue 12):", "", *targets]
    lg = results.get("league") or {}
    if lg:
        lines += [
            "",
            f"**S5 league**: every combination of {len(lg['bots'])} bots at "
            f"{', '.join(lg['by_players'])} players, {lg['games_per_lineup']} games a "
            f"line-up ({lg['games']} games), OpenSkill Plackett-Luce over all of them:",
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
                color = "tab:green" if a["agent"] == results["candidate"] else "tab:gray"
                ax.bar(x, 100 * est, color=color, width=0.8)
                ax.errorbar(x, 100 * est, yerr=[[100 * (est - lo)], [100 * (hi - est)]],
                            color="black", capsize=3)  # fmt: skip
                labels.append(f"{key}\n{a['agent']}")
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
    "LEAGUE",
    "SCENARIOS",
    "agent_table",
    "bootstrap",
    "make_plots",
    "markdown",
    "run_suite",
    "splice",
]
