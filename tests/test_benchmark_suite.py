"""``bohnanza benchmark bots`` end to end at a tiny size, and its bootstrap intervals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bohnanza.cli import main
from bohnanza.tournament.suite import BEGIN, END, SCENARIOS, bootstrap, splice, win_share


def row(seats: list[str], winners: list[int], scores: list[int]) -> dict[str, Any]:
    return {"seats": seats, "winners": winners, "scores": scores}


def test_bootstrap_resamples_games_not_seats() -> None:
    # "a" holds two seats of every game and exactly one of them wins: per seat it wins
    # half the time, and since every game gives the same result the interval is a point.
    # Seats resampled independently would give a wide interval instead.
    rows = [row(["a", "b", "a"], [k % 2 * 2], [1, 0, 1]) for k in range(60)]
    assert bootstrap(rows, "a", win_share) == (0.5, 0.5, 0.5)
    # "b" never wins; a bot that wins one game in four gets an interval around 25%.
    assert bootstrap(rows, "b", win_share) == (0.0, 0.0, 0.0)
    mixed = [row(["x", "y"], [0] if k % 4 == 0 else [1], [1, 1]) for k in range(400)]
    est, lo, hi = bootstrap(mixed, "x", win_share)
    assert est == 0.25 and 0.19 < lo < 0.25 < hi < 0.31


def test_splice_replaces_only_the_marked_section() -> None:
    doc = f"# Bots\n\nintro\n\n{BEGIN}\nold\n{END}\n\n## After\n"
    once = splice(doc, "new\n")
    assert once == f"# Bots\n\nintro\n\n{BEGIN}\nnew\n{END}\n\n## After\n"
    assert splice(once, "new\n") == once
    assert splice("# Bots\n", "x\n").endswith(f"{BEGIN}\nx\n{END}\n")


@pytest.mark.long
def test_suite_runs_end_to_end_at_a_small_size(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    doc = tmp_path / "docs" / "bots.md"
    doc.parent.mkdir()
    doc.write_text(f"# Bots\n\n{BEGIN}\n{END}\n\nrest\n")
    args = ["benchmark", "bots", "--candidate", "heuristic", "--games", "4", "--s4-games", "2"]
    args += ["--league-games", "1", "--league", "random,autarky,heuristic-v1", "--workers", "1"]
    args += ["--league-players", "4"]
    args += ["--out", str(out), "--doc", str(doc)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert list(results["scenarios"]) == [s.key for s in SCENARIOS]
    for key, sc in results["scenarios"].items():
        assert sc["games"] == (2 if key.startswith("S4") else 4)
        for a in sc["agents"]:
            est, lo, hi = a["win_rate"]
            assert 0 <= lo <= est <= hi <= 1
        wins = sum(a["win_rate"][0] * a["seats"] for a in sc["agents"])
        assert abs(wins - sc["games"]) < 1e-9  # every game has one win, shared or not
    # Per line-up position, not per name: the candidate is position 0 (issue 36).
    s2 = results["scenarios"]["S2"]["agents"]
    assert [a["agent"] for a in s2] == ["heuristic", "heuristic-v1", "heuristic-v1", "autarky"]
    assert [a["position"] for a in s2] == [0, 1, 2, 3] and all(a["seats"] == 4 for a in s2)
    for sc in results["scenarios"].values():
        for a in sc["agents"]:
            assert 0 <= a["trivial_share"] < 1  # stated, and not every decision is trivial
    league = results["league"]
    assert set(league["ratings"]) == {"random", "autarky", "heuristic-v1", "heuristic"}
    # One game a line-up asked for, rounded up to a full rotation of the seats.
    assert list(league["by_players"]) == ["4"] and league["by_players"]["4"]["games"] == 4
    # The report went into the doc between the markers, with the command and the plots.
    text = doc.read_text()
    assert text.count(BEGIN) == 1 and text.endswith("rest\n")
    assert "bohnanza benchmark bots --candidate heuristic --games 4" in text
    assert "](img/suite_scenarios.png)" in text and "](img/suite_league.png)" in text
    assert (doc.parent / "img" / "suite_league.png").stat().st_size > 1000
    # A rerun resumes: nothing is played again, and the figures are the same.
    again = CliRunner().invoke(main, [*args, "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.output)["scenarios"] == results["scenarios"]
