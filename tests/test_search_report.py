"""``benchmarks/search_report.py`` (issue 36's honest suite): its ``--baseline`` replay
puts the chosen bot in the search's seat and keeps every other seat's bot as the games
recorded it, so a run against ``heuristic:hc0.1`` is compared with the same line-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bohnanza.tournament import TournamentSpec, run_tournament
from scripts import load_script

#: The script, loaded once (the property test below calls it for every example).
report = load_script("benchmarks/search_report.py")


@pytest.mark.long
def test_the_baseline_replays_the_recorded_line_up(tmp_path: Path) -> None:
    """Replaying the search's own spec in its seat reproduces every stored game's result
    (the opponents are the recorded ``heuristic:hc0.1``, not plain ``heuristic``), and the
    paired difference of a run with itself is zero. The report's breakdown of how the
    games were decided adds up to them."""
    search = "search:4ro"
    other = "heuristic:hc0.1"
    spec = TournamentSpec("classic", 4, (search, other, other, other), seed=900001)
    run_tournament(spec, 2, tmp_path, workers=1)
    out, stored = report.report(str(tmp_path))
    # How the games were decided: each game counted once, its wins and shared wins those
    # of the win share (a shared win counts in part).
    counts = {name: out[f"decided_{name}"] for name in report.OUTCOMES}
    assert sum(counts.values()) == out["games"] == 2
    assert counts["won"] + counts["tie_won"] == sum(1 for v in stored.values() if v == 1.0)
    assert counts["tie_shared"] == sum(1 for v in stored.values() if 0 < v < 1)
    replayed = report.baseline(str(tmp_path), None, search)
    assert replayed == stored
    mean, lo, hi = report.paired(stored, replayed, search)
    assert mean == 0.0 and lo == 0.0 and hi == 0.0


@given(
    scores=st.lists(st.integers(0, 30), min_size=3, max_size=7),
    hands=st.lists(st.integers(0, 12), min_size=7, max_size=7),
    seat=st.integers(0, 6),
)
def test_each_game_is_decided_one_way_and_ties_follow_the_hand_cards(
    scores: list[int], hands: list[int], seat: int
) -> None:
    """R-END-4: the winners are the seats with the most coins and, among them, the most
    cards in hand. Each game falls in exactly one of the report's outcomes, and the
    outcome agrees with the margin and with who won."""
    k = seat % len(scores)
    top = max(scores)
    tied = [i for i, s in enumerate(scores) if s == top]
    most = max(hands[i] for i in tied)
    winners = [i for i in tied if hands[i] == most]
    margin = scores[k] - max(s for i, s in enumerate(scores) if i != k)
    got = report.outcome(margin, k in winners, len(winners) > 1)
    assert got in report.OUTCOMES
    assert (got == "won") == (margin > 0)
    assert got.startswith("tie") == (margin == 0)
    if margin == 0:
        assert (got == "tie_lost") == (hands[k] < most)
        assert (got == "tie_shared") == (k in winners and len(winners) > 1)
    assert (got == "lost_by_1") == (margin == -1)
    assert (k in winners) == (got in ("won", "tie_won", "tie_shared"))
