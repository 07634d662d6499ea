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

S1's target is "above ``heuristic-v1``'s": the suite also plays S1 with ``heuristic-v1``
as the candidate (``S1-ref``, on S1's seeds) and judges the paired difference.

Results are per **line-up position**, not per agent name: position 0 is the candidate, and
with seats rotated every position sits at every seat equally often. (Pooled by name, a
candidate named like its opponents - S4a, or S6 with ``heuristic`` - scored 25% by
construction.) Win rates count wins per seat held (a shared win in part). Their 95%
intervals come from a bootstrap over games, as do the mean coins. Decision times are
medians over non-trivial decisions (more than one legal action), with the share of
trivial ones stated. Every tournament is stored in its own folder under ``out`` and
resumes like any tournament, so an interrupted suite run plays only what is missing.

Seeds (:func:`suite_plan`): every scenario plays its own games, in one block of seeds
from the suite's seed on - S0's games first, then S1's, and so on, then the league's
line-ups, each on its own deals - so that no two scenarios play the same games (before
issue 53 every scenario started at the same seed: with ``heuristic`` as the candidate S4a
and S6 were the very same games, and the league's seeds, 10,000 on, overlapped other
ranges). ``S1-ref`` shares S1's seeds, for the paired comparison. Seeds from
:data:`HELD_OUT_SEED` on are held out (:mod:`.ledger`): tuning uses the development
seeds below it; published figures are played on a range ``--held-out`` takes from the
seed ledger, which records it.
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
from .ledger import HELD_OUT_START
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
#: The first held-out seed (:data:`.ledger.HELD_OUT_START`): seeds from here on are for
#: published figures only, never for tuning, each range used once (the seed ledger).
HELD_OUT_SEED = HELD_OUT_START
#: The candidate S1's target is judged against, on S1's games.
S1_REFERENCE = "heuristic-v1"


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
    equally often; each line-up has its own deals, one after the other from ``seed``."""
    if not 2 <= players <= 9:
        raise ConfigError(f"the league plays 2-9 players, not {players}")
    per = -(-games // players) * players
    combos = list(itertools.combinations(bots, players))
    return [(combo, per, seed + per * k) for k, combo in enumerate(combos)]


def _lineup(candidate: str, s: Scenario) -> tuple[str, ...]:
    return (candidate, *s.opponents) if s.opponents else (candidate,) * 4


@dataclass(frozen=True, slots=True)
class Planned:
    """One tournament of the suite: ``games`` games of ``lineup`` from seed ``first``,
    stored in ``folder`` under the suite's ``out``."""

    key: str
    folder: str
    players: int
    lineup: tuple[str, ...]
    first: int
    games: int


def suite_plan(
    candidate: str,
    seed: int,
    *,
    games: int,
    s4_games: int | None = None,
    league_games: int = 0,
    league: Sequence[str] = LEAGUE,
    league_players: Sequence[int] = (3, 4, 5),
) -> list[Planned]:
    """Every tournament the suite plays, with its seeds: one block from ``seed`` on,
    each scenario's games after the previous one's, then the league's line-ups (see the
    module's docstring); ``S1-ref`` on S1's seeds. The block's size - the sum of the
    games - is what ``--held-out`` takes from the seed ledger."""
    plan: list[Planned] = []
    first = seed
    for s in SCENARIOS:
        n = games if not s.key.startswith("S4") or s4_games is None else s4_games
        if n < 1:
            continue
        plan.append(Planned(s.key, s.key, 4, _lineup(candidate, s), first, n))
        if s.key == "S1" and candidate != S1_REFERENCE:
            reference = _lineup(S1_REFERENCE, s)
            plan.append(Planned("S1-ref", "S1-ref", 4, reference, first, n))
        first += n
    if league_games > 0:
        bots = list(dict.fromkeys([*league, candidate]))
        for players in league_players:
            for k, (combo, n, start) in enumerate(league_plan(bots, players, league_games, first)):
                plan.append(
                    Planned(f"S5-{players}p", f"S5-{players}p/{k:03d}", players, combo, start, n)
                )
                first = start + n
    return plan


def plan_span(plan: Sequence[Planned]) -> int:
    """How many consecutive seeds ``plan`` plays, from its first."""
    if not plan:
        return 0
    return max(p.first + p.games for p in plan) - min(p.first for p in plan)


def paired_difference(
    rows: Sequence[Mapping[str, Any]], reference: Sequence[Mapping[str, Any]], seed: int = 0
) -> tuple[float, float, float]:
    """(estimate, low, high): line-up position 0's win share in ``rows`` minus its win
    share in ``reference`` (the same games with another candidate), game by game, with
    a bootstrap interval over the games both played."""
    mine = {int(r["seed"]): r for r in rows}
    pairs = []
    for r in reference:
        other = mine.get(int(r["seed"]))
        if other is not None:
            here = win_share(other, position_seats(other, 0)[0])
            there = win_share(r, position_seats(r, 0)[0])
            pairs.append({"d": here - there})
    return bootstrap(pairs, lambda _row: [0], lambda row, _k: float(row["d"]), seed)


def verdict(difference: tuple[float, float, float]) -> str:
    """``met`` when the whole interval is above 0, ``not met`` when it is below or at 0,
    else ``undecided``."""
    _, lo, hi = difference
    if lo > 0:
        return "met"
    if hi <= 0:
        return "not met"
    return "undecided"


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
    """Play (or resume) every tournament of :func:`suite_plan`; returns the results."""
    folder = Path(out)
    plan = suite_plan(
        candidate,
        seed,
        games=games,
        s4_games=s4_games,
        league_games=league_games,
        league=league,
        league_players=league_players,
    )
    results: dict[str, Any] = {
        "candidate": candidate,
        "seeds": [seed, seed + plan_span(plan) - 1] if plan else [],
        "scenarios": {},
        "league": {},
    }
    titles = {s.key: s for s in SCENARIOS}
    played: dict[str, list[Row]] = {}
    every: list[Row] = []
    by_players: dict[int, list[Row]] = {}
    for p in plan:
        league_game = p.key.startswith("S5")
        if progress and not league_game:
            title = titles[p.key].title if p.key in titles else f"S1 with {p.lineup[0]}"
            progress(f"{p.key} ({title}): {p.games} games from seed {p.first}")
        elif progress and p.folder.endswith("/000"):
            count = sum(1 for q in plan if q.key == p.key)
            progress(f"{p.key} league: {count} line-ups x {p.games}")
        spec = TournamentSpec("classic", p.players, p.lineup, seed=p.first)
        outcome = run_tournament(spec, p.games, folder / p.folder, workers=workers)
        if league_game:
            by_players.setdefault(p.players, []).extend(outcome.counted)
            every.extend(outcome.counted)
            continue
        played[p.key] = outcome.counted
        entry = {
            "games": len(outcome.counted),
            "forfeits": outcome.summary["forfeits"],
            "seeds": [p.first, p.first + p.games - 1],
            "lineup": list(spec.lineup),
            "agents": agent_table(outcome.counted, spec.lineup, seed),
            "seconds": sum(float(r["seconds"]) for r in outcome.rows),
            "cpu_seconds": sum(float(r.get("cpu_seconds") or 0.0) for r in outcome.rows),
        }
        if p.key == "S1-ref":
            results["scenarios"]["S1"]["reference"] = entry
            continue
        s = titles[p.key]
        results["scenarios"][p.key] = {"title": s.title, "target": s.target, **entry}
    s1 = results["scenarios"].get("S1")
    if s1 is not None:
        if "reference" not in s1:  # the candidate is the reference: the same games
            s1["reference"] = {k: v for k, v in s1.items() if k not in ("title", "target")}
        difference = paired_difference(played["S1"], played.get("S1-ref", played["S1"]), seed)
        s1["difference"] = list(difference)
        s1["verdict"] = verdict(difference)
    if every:
        bots = list(dict.fromkeys([*league, candidate]))
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
        "of decisions left out. CPU-s: the workers' CPU time per game. A forfeit counts as",
        "a loss of the position that failed. Each scenario plays its own games"
        + (
            f" (seeds {results['seeds'][0]}–{results['seeds'][1]} in all)"
            if results.get("seeds")
            else ""
        )
        + ";",
        f"S1 is played again with `{S1_REFERENCE}` as the candidate, on S1's games.",
        "",
        "```sh",
        command,
        "```",
        "",
        "| scenario | games | position | win rate [95%] | coins a seat [95%] | ms/decision "
        "| trivial | CPU-s a game |",
        "|---|---:|---|---|---|---:|---:|---:|",
    ]
    rows: list[tuple[str, Mapping[str, Any]]] = []
    for key, sc in results["scenarios"].items():
        rows.append((f"{key} {sc['title']}", sc))
        if key == "S1" and sc.get("reference") and cand != S1_REFERENCE:
            rows.append((f"S1 again, `{S1_REFERENCE}` as the candidate", sc["reference"]))
    for label, sc in rows:
        cpu = sc.get("cpu_seconds", 0.0) / sc["games"] if sc["games"] else 0.0
        for a in sc["agents"]:
            ms = f"{a['decision_ms']:.3f}" if a["decision_ms"] is not None else "–"
            share = a.get("trivial_share")
            trivial = f"{100 * share:.0f}%" if share is not None else "–"
            lines.append(
                f"| {label} | {sc['games']} | #{a.get('position', '')} "
                f"`{a['agent']}` | {_pct(a['win_rate'])} | {_num(a['coins'])} | {ms} | "
                f"{trivial} | {cpu:.2f} |"
            )
    targets = []
    for key, sc in results["scenarios"].items():
        if not sc["target"]:
            continue
        line = f"* {key} ({sc['title']}): target {sc['target']}"
        if key == "S1" and "difference" in sc:
            d = sc["difference"]
            line += (
                f": {_pct(sc['agents'][0]['win_rate'])} against "
                f"{_pct(sc['reference']['agents'][0]['win_rate'])} for `{S1_REFERENCE}` on the "
                f"same games, a paired difference of {100 * d[0]:+.1f} points "
                f"[{100 * d[1]:+.1f}, {100 * d[2]:+.1f}]: **{sc['verdict']}**"
            )
        targets.append(line)
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
    "S1_REFERENCE",
    "SCENARIOS",
    "Planned",
    "agent_table",
    "bootstrap",
    "league_plan",
    "make_plots",
    "markdown",
    "paired_difference",
    "plan_span",
    "position_seats",
    "run_suite",
    "splice",
    "suite_plan",
    "verdict",
]
