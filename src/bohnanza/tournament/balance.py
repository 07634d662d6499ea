"""``bohnanza balance``: how fair each variant is to its seats, measured by self-play.

For every configuration the engine offers (each rule set and module, each allowed player
count, each required option value: :func:`bohnanza.testing.checker.configurations`) one
seeded tournament of ``games`` games in which the chosen bot holds every seat. All seats
play alike, so what differs between them is the seat itself: the first player's win share
(shared wins in part; its 95% Wilson interval) against the ``1/players`` a fair seat
would get. Also the game length (turns) and the coin spread (the best seat's coins minus
the worst's, and the winner's margin over the runner-up).

Each configuration is stored like any tournament (``OUT/<rules>-<players>p[-key=value]``),
so an interrupted run resumes and a rerun with more games plays only the new ones.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..rules import split_rules
from ..testing.checker import Configuration, configurations
from .runner import TournamentSpec, run_tournament
from .stats import finished, mean_ci, wilson


def folder_name(rules: str, players: int, options: Mapping[str, str]) -> str:
    extra = "".join(f"-{k}={v}" for k, v in sorted(options.items()))
    return f"{rules.replace('+', '_')}-{players}p{extra}"


def measure(rows: Sequence[Mapping[str, Any]], players: int) -> dict[str, Any]:
    """Seat advantage, game length and coin spread of one configuration's games. A
    forfeit (:func:`.stats.forfeit_row`) counts in the seats' win shares as the failing
    seat's loss (issue 53); lengths and coins are the finished games'."""
    n = len(rows)
    seat_wins = [0.0] * players
    spread: list[float] = []
    margin: list[float] = []
    turns: list[float] = []
    for row in rows:
        winners = row["winners"]
        for k in winners:
            seat_wins[k] += 1 / len(winners)
        if not finished(row):
            continue
        scores = sorted(row["scores"], reverse=True)
        spread.append(float(scores[0] - scores[-1]))
        margin.append(float(scores[0] - scores[1]))
        turns.append(float(row["turns"]))
    lo, hi = wilson(seat_wins[0], n)
    done = [r for r in rows if finished(r)]
    return {
        "games": n,
        "forfeits": n - len(done),
        "fair_share": round(1 / players, 4),
        "first_seat_win": round(seat_wins[0] / n, 4) if n else 0.0,
        "first_seat_ci95": [round(lo, 4), round(hi, 4)],
        "seat_win": [round(w / n, 4) if n else 0.0 for w in seat_wins],
        "mean_turns": round(statistics.fmean(turns), 2) if turns else 0.0,
        "turns_ci95": [round(x, 2) for x in mean_ci(turns)],
        "mean_spread": round(statistics.fmean(spread), 2) if spread else 0.0,
        "mean_margin": round(statistics.fmean(margin), 2) if margin else 0.0,
        "mean_coins": round(
            statistics.fmean(c for r in done for c in r["scores"]) if done else 0.0, 2
        ),
    }


def run_balance(
    bot: str,
    out: str | Path,
    *,
    games: int,
    seed: int = 1,
    rules: Sequence[str] | None = None,
    workers: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play (or resume) every configuration; returns the figures per configuration."""
    configs: list[Configuration] = configurations(list(rules) if rules else None)
    results: list[dict[str, Any]] = []
    for name, players, options in configs:
        if progress:
            progress(
                f"{name}, {players} players{''.join(f', {k}={v}' for k, v in options.items())}"
            )
        spec = TournamentSpec(name, players, (bot,) * players, tuple(sorted(options.items())), seed)
        outcome = run_tournament(
            spec, games, Path(out) / folder_name(name, players, options), workers=workers
        )
        base, modules = split_rules(name)
        results.append(
            {
                "rules": name,
                "base": base,
                "modules": list(modules),
                "players": players,
                "options": dict(options),
                **measure(outcome.counted, players),
            }
        )
    return {"bot": bot, "games": games, "seed": seed, "configurations": results}


def _label(c: Mapping[str, Any]) -> str:
    extra = "".join(f" {k}={v}" for k, v in c["options"].items())
    return f"{c['rules']} {c['players']}p{extra}"


def markdown(results: Mapping[str, Any], command: str, plots: Mapping[str, str]) -> str:
    """The report: one row per configuration, then the plots."""
    lines = [
        f"`{results['bot']}` in every seat, {results['games']} games a configuration, seeds "
        f"{results['seed']}–{results['seed'] + results['games'] - 1}. First seat = the player",
        "who starts (shared wins count in part); 95% Wilson interval. Spread = best minus",
        "worst seat's coins; margin = winner minus runner-up.",
        "",
        "```sh",
        command,
        "```",
        "",
        "| configuration | games | fair | first seat wins [95%] | seat win shares | turns "
        "| coins a seat | spread | margin |",
        "|---|---:|---:|---|---|---:|---:|---:|---:|",
    ]
    for c in results["configurations"]:
        lo, hi = c["first_seat_ci95"]
        flag = " **≠ fair**" if not lo <= c["fair_share"] <= hi else ""
        seats = " / ".join(f"{100 * w:.0f}" for w in c["seat_win"])
        lines.append(
            f"| {_label(c)} | {c['games']} | {100 * c['fair_share']:.1f}% | "
            f"{100 * c['first_seat_win']:.1f}% [{100 * lo:.1f}–{100 * hi:.1f}]{flag} | "
            f"{seats} | {c['mean_turns']:.1f} | {c['mean_coins']:.1f} | "
            f"{c['mean_spread']:.1f} | {c['mean_margin']:.1f} |"
        )
    for title, path in plots.items():
        lines += ["", f"![{title}]({path})"]
    return "\n".join(lines) + "\n"


def make_plots(results: Mapping[str, Any], folder: str | Path) -> dict[str, Path]:
    """The first seat's win share against a fair seat's, and game length and coin spread,
    per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    configs = results["configurations"]
    labels = [_label(c) for c in configs]
    ys = list(range(len(configs)))
    height = max(3.0, 0.28 * len(configs) + 1.2)
    files: dict[str, Path] = {}

    fig, ax = plt.subplots(figsize=(7, height))
    for y, c in zip(ys, configs, strict=True):
        est = 100 * c["first_seat_win"]
        lo, hi = (100 * v for v in c["first_seat_ci95"])
        ax.errorbar(est, y, xerr=[[est - lo], [hi - est]], fmt="o", color="tab:blue", capsize=3)
        ax.plot(100 * c["fair_share"], y, "|", color="tab:red", markersize=12)
    ax.set_yticks(ys, labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("first seat's win share (%), 95% interval; red: fair share")
    ax.set_title(f"Seat advantage, {results['bot']} in every seat")
    fig.tight_layout()
    path = folder / "balance_first_seat.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    files["first seat's win share"] = path

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, height), sharey=True)
    for y, c in zip(ys, configs, strict=True):
        lo, hi = c["turns_ci95"]
        a1.errorbar(c["mean_turns"], y, xerr=[[c["mean_turns"] - lo], [hi - c["mean_turns"]]],
                    fmt="o", color="tab:green", capsize=3)  # fmt: skip
    a2.barh(ys, [c["mean_spread"] for c in configs], color="tab:orange", label="spread")
    a2.barh(ys, [c["mean_margin"] for c in configs], color="tab:purple", label="margin")
    a1.set_yticks(ys, labels, fontsize=7)
    a1.invert_yaxis()
    a1.set_xlabel("game length (turns, 95% interval)")
    a2.set_xlabel("coins: best - worst seat; winner - runner-up")
    a2.legend(fontsize=7)
    fig.tight_layout()
    path = folder / "balance_length_spread.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    files["game length and coin spread"] = path
    return files


__all__ = ["folder_name", "make_plots", "markdown", "measure", "run_balance"]
