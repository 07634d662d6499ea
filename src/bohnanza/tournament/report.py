"""The tournament report: ``report.md`` (tables plus the plots) and ``summary.json``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..agents.llm import MAX_FALLBACK_SHARE, is_llm_spec, leaderboard_line, llm_line

TITLES = {
    "ratings": "Ratings as games accumulate",
    "win_rates": "Win rate per agent",
    "seats": "Seat advantage",
    "scores": "Score distributions",
    "lengths": "Game length",
}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def markdown(summary: Mapping[str, Any], plots: Mapping[str, str], command: str = "") -> str:
    lines = [
        f"# Tournament: {summary['rules']}, {summary['players']} players",
        "",
        f"{summary['games']} games, line-up {', '.join(summary['lineup'])}"
        f"{' (seats rotated every game)' if summary.get('rotate', True) else ''}, "
        f"seeds from {summary['seed']}.",
    ]
    if summary.get("options"):
        opts = ", ".join(f"{k}={v}" for k, v in summary["options"].items())
        lines.append(f"Options: {opts}.")
    if command:
        lines += ["", "```sh", command, "```"]
    if summary.get("forfeits"):
        from ..forfeits import summary_lines

        lines += ["", *summary_lines(summary.get("forfeited") or [])]
    lines += [
        "",
        "## Agents",
        "",
        "Win rate = wins per seat held (a shared win counts in part), with its 95% Wilson "
        f"interval; the baseline is 1/{summary['players']}. Rating: OpenSkill Plackett-Luce.",
        "",
        "| agent | seats | win rate | 95% interval | mean coins | rating mu | sigma | "
        "median ms a non-trivial decision |",
        "|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for name, a in summary["agents"].items():
        lo, hi = a["win_rate_ci95"]
        ms = a.get("decision_ms_median")
        r = a.get("rating") or {}
        mu = f"{r['mu']:.2f}" if r else "–"
        sigma = f"{r['sigma']:.2f}" if r else "–"
        lines.append(
            f"| {name} | {a['seats_played']} | {_pct(a['win_rate'])} | "
            f"{_pct(lo)} – {_pct(hi)} | {a['mean_coins']:.2f} | {mu} | {sigma} | "
            f"{'' if ms is None else f'{ms:.3f}'} |"
        )
    models = [(name, a) for name, a in summary["agents"].items() if is_llm_spec(name)]
    if models:
        lines += [
            "",
            "## Language models",
            "",
            "Who took each model's decisions: the model, or the heuristic when the model "
            "gave no valid move (`--llm-fallback heuristic`). A model whose fallback share "
            f"is above {100 * MAX_FALLBACK_SHARE:g}% is not ranked: its results are the "
            "heuristic's as much as its own.",
            "",
        ]
        for name, a in models:
            result = f"win rate {_pct(a['win_rate'])}, mean coins {a['mean_coins']:.2f}"
            lines += [
                f"- {leaderboard_line(name, a.get('stats') or {}, result)}",
                f"  ({llm_line(a.get('stats') or {})})",
            ]
    counted = [(name, a["stats"]) for name, a in summary["agents"].items() if a.get("stats")]
    if counted:
        lines += [
            "",
            "## Agent counters",
            "",
            "What agents reported at the end of each game (`Agent.stats()`): the total over "
            "every seat held and the mean per seat.",
            "",
            "| agent | counter | total | mean per seat |",
            "|---|---|---:|---:|",
        ]
        for name, counters in counted:
            for counter, c in counters.items():
                lines.append(f"| {name} | {counter} | {c['total']:g} | {c['mean']:.3f} |")
    lines += [
        "",
        "## Seats",
        "",
        "| seat | win rate | 95% interval | mean coins |",
        "|---:|---:|---|---:|",
    ]
    for s in summary["seats"]:
        lo, hi = s["win_rate_ci95"]
        # Seats counted from 1 for people, as the rules, prompts and errors count them
        # (the summary's ``seat`` stays the engine's index).
        lines.append(
            f"| {s['seat'] + 1} | {_pct(s['win_rate'])} | {_pct(lo)} – {_pct(hi)} | "
            f"{s['mean_coins']:.2f} |"
        )
    gl = summary["game_length"]
    lines += [
        "",
        "## Games",
        "",
        f"Mean length {gl['mean_turns']:.1f} turns (sd {gl['sd_turns']:.1f}, "
        f"{gl['min_turns']}–{gl['max_turns']}), {gl['mean_actions']:.0f} actions; "
        f"{_pct(summary['shared_wins'])} of games had a shared win.",
        "",
        "Every game is a row of `games.sqlite` (table `games`).",
    ]
    for key, title in TITLES.items():
        if key in plots:
            lines += ["", f"## {title}", "", f"![{title}]({plots[key]})"]
    return "\n".join(lines) + "\n"


def write_report(
    summary: Mapping[str, Any], plots: Mapping[str, str], out: str | Path, command: str = ""
) -> Path:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    path = folder / "report.md"
    path.write_text(markdown(summary, plots, command), encoding="utf-8")
    return path


__all__ = ["markdown", "write_report"]
