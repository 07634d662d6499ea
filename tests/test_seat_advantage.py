"""benchmarks/seat_advantage.py (issue 53): each seat's win share with the line-up
rotated, run at a tiny size."""

from __future__ import annotations

import json

import pytest

from scripts import load_script


def test_seat_advantage_counts_every_game_once_per_seat(
    capsys: pytest.CaptureFixture[str],
) -> None:
    module = load_script("benchmarks/seat_advantage.py")
    table = module.measure(("heuristic", "autarky", "autarky", "autarky"), 11, 4)
    assert table.games == 4
    assert sum(table.wins) == pytest.approx(4.0)  # one win (or its shares) a game
    # Rotated: each seat held the heuristic once; seat 1 starts, so it never plays
    # fewer turns than seat 4.
    assert table.turns[0] >= table.turns[3] > 0
    rows = table.rows()
    assert [r["seat"] for r in rows] == [1, 2, 3, 4]
    assert all(0.0 <= r["lo"] <= r["win"] <= r["hi"] <= 1.0 for r in rows)
    assert table.first_games == [1, 1, 1, 1]  # the heuristic sat at each seat once
    assert sum(r["first"] for r in rows) == pytest.approx(sum(table.first_wins))
    assert module.suite_lineups("heuristic")[0] == ("heuristic", "random", "random", "random")
    assert ("heuristic",) * 4 in module.suite_lineups("heuristic")
    assert len(module.parse_lineups("self", "heuristic")) == 3
    assert len(module.parse_lineups("suite;self", "heuristic")) == 8  # 4x heuristic once


def test_seat_advantage_runs_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    module = load_script("benchmarks/seat_advantage.py")
    module.main(["--games", "2", "--seed", "5", "--lineups", "autarky,random,random,random"])
    out = capsys.readouterr().out
    assert "| autarky, random, random, random | 2 |" in out
    module.main(["--games", "2", "--seed", "5", "--lineups", "random,random,random", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["lineup"] == ["random"] * 3 and len(rows[0]["seats"]) == 3
