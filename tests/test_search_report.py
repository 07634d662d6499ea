"""``benchmarks/search_report.py`` (issue 36's honest suite): its ``--baseline`` replay
puts the chosen bot in the search's seat and keeps every other seat's bot as the games
recorded it, so a run against ``heuristic:hc0.1`` is compared with the same line-up."""

from __future__ import annotations

from pathlib import Path

from bohnanza.tournament import TournamentSpec, run_tournament
from scripts import load_script


def test_the_baseline_replays_the_recorded_line_up(tmp_path: Path) -> None:
    """Replaying the search's own spec in its seat reproduces every stored game's result
    (the opponents are the recorded ``heuristic:hc0.1``, not plain ``heuristic``), and the
    paired difference of a run with itself is zero."""
    report = load_script("benchmarks/search_report.py")
    search = "search:4ro"
    other = "heuristic:hc0.1"
    spec = TournamentSpec("classic", 4, (search, other, other, other), seed=900001)
    run_tournament(spec, 4, tmp_path, workers=1)
    _, stored = report.report(str(tmp_path))
    replayed = report.baseline(str(tmp_path), None, search)
    assert replayed == stored
    mean, lo, hi = report.paired(stored, replayed, search)
    assert mean == 0.0 and lo == 0.0 and hi == 0.0
