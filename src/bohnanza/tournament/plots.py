"""Tournament plots (PNG, matplotlib without a display): ratings as games accumulate,
win rate per agent, seat advantage, score distributions, game lengths."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .stats import finished, ratings

FILES = {
    "ratings": "ratings.png",
    "win_rates": "win_rates.png",
    "seats": "seats.png",
    "scores": "scores.png",
    "lengths": "lengths.png",
}


def make_plots(
    rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any], out: str | Path
) -> dict[str, str]:
    """Draw every plot into ``out``; returns {plot: file name}. ``rows`` may hold
    forfeits (:func:`.stats.forfeit_row`): they count in the ratings, as the summary's
    losses; the scores and lengths are the finished games'."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    agents: dict[str, Any] = dict(summary["agents"])
    names = list(agents)
    players = int(summary["players"]) or 1
    files: dict[str, str] = {}

    def save(fig: Any, key: str) -> None:
        fig.tight_layout()
        fig.savefig(folder / FILES[key], dpi=110)
        plt.close(fig)
        files[key] = FILES[key]

    # Ratings as games accumulate.
    _, history = ratings(rows, every=max(1, len(rows) // 200))
    fig, ax = plt.subplots(figsize=(7, 4))
    for name in names:
        xs = [h["games"] for h in history if name in h]
        mu = [h[name]["mu"] for h in history if name in h]
        sd = [h[name]["sigma"] for h in history if name in h]
        if not xs:
            continue
        ax.plot(xs, mu, label=name)
        ax.fill_between(
            xs,
            [m - s for m, s in zip(mu, sd, strict=True)],
            [m + s for m, s in zip(mu, sd, strict=True)],
            alpha=0.15,
        )
    ax.set_xlabel("games")
    ax.set_ylabel("OpenSkill rating (mu ± sigma)")
    ax.set_title("Ratings as games accumulate")
    ax.legend()
    save(fig, "ratings")

    # Win rate per agent, with 95% intervals.
    fig, ax = plt.subplots(figsize=(7, 4))
    rates = [agents[n]["win_rate"] for n in names]
    lows = [agents[n]["win_rate"] - agents[n]["win_rate_ci95"][0] for n in names]
    highs = [agents[n]["win_rate_ci95"][1] - agents[n]["win_rate"] for n in names]
    ax.bar(names, rates, yerr=[lows, highs], capsize=6, color="tab:green")
    ax.axhline(1 / players, color="grey", linestyle="--", label=f"1/{players}")
    ax.set_ylabel("wins per seat held")
    ax.set_title("Win rate per agent (95% Wilson interval)")
    ax.legend()
    save(fig, "win_rates")

    # Seat advantage.
    seats = summary["seats"]
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [f"seat {s['seat']}" for s in seats]
    rates = [s["win_rate"] for s in seats]
    lows = [s["win_rate"] - s["win_rate_ci95"][0] for s in seats]
    highs = [s["win_rate_ci95"][1] - s["win_rate"] for s in seats]
    ax.bar(xs, rates, yerr=[lows, highs], capsize=6, color="tab:blue")
    ax.axhline(1 / players, color="grey", linestyle="--", label=f"1/{players}")
    ax.set_ylabel("win rate")
    ax.set_title("Seat advantage (seat 0 starts)")
    ax.legend()
    save(fig, "seats")

    # Score distributions.
    fig, ax = plt.subplots(figsize=(7, 4))
    per: dict[str, list[int]] = {n: [] for n in names}
    done = [r for r in rows if finished(r)]
    for row in done:
        for k, name in enumerate(row["seats"]):
            per[name].append(int(row["scores"][k]))
    top = max([max(v) for v in per.values() if v] or [1])
    bins = [x - 0.5 for x in range(top + 2)]
    for name in names:
        if per[name]:
            ax.hist(per[name], bins=bins, density=True, histtype="step", linewidth=2, label=name)
    ax.set_xlabel("coins at the end")
    ax.set_ylabel("share of seats")
    ax.set_title("Score distribution per agent")
    ax.legend()
    save(fig, "scores")

    # Game length.
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.hist([int(r["turns"]) for r in done], bins=30, color="tab:orange")
    ax.set_xlabel("turns")
    ax.set_ylabel("games")
    ax.set_title("Game length")
    save(fig, "lengths")
    return files


__all__ = ["FILES", "make_plots"]
