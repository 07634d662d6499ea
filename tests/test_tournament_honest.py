"""Issue 36, an honest suite: a store remembers the agents' code and parameters, so that a
resume never mixes games of two versions of a bot; the league's seats are balanced."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bohnanza.agents import specs
from bohnanza.errors import ConfigError
from bohnanza.tournament import TournamentSpec, run_tournament
from bohnanza.tournament.fingerprint import fingerprint
from bohnanza.tournament.runner import play_game
from bohnanza.tournament.suite import HELD_OUT_SEED, LEAGUE, SCENARIOS, agent_table, league_plan

BOT = '''
from bohnanza.agents import AutarkyAgent


class Mine(AutarkyAgent):
    """Plays like autarky. {note}"""
'''


def write_bot(folder: Path, note: str) -> None:
    (folder / "fp_mine.py").write_text(BOT.format(note=note), encoding="utf-8")
    sys.modules.pop("fp_mine", None)
    specs._CACHE.clear()


def test_a_resume_after_the_bots_code_changed_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    write_bot(tmp_path, "first version")
    spec = TournamentSpec("classic", 3, ("fp_mine:Mine", "autarky", "autarky"))
    out = tmp_path / "t"
    assert run_tournament(spec, 2, out, workers=1).played == 2
    assert run_tournament(spec, 3, out, workers=1).played == 1  # same code: it resumes
    before = fingerprint("fp_mine:Mine")
    write_bot(tmp_path, "second version")
    assert fingerprint("fp_mine:Mine") != before
    spec = TournamentSpec("classic", 3, ("fp_mine:Mine", "autarky", "autarky"))
    with pytest.raises(ConfigError, match=r"another version of 'fp_mine:Mine'.*--out"):
        run_tournament(spec, 4, out, workers=1)
    sys.modules.pop("fp_mine", None)
    specs._CACHE.clear()


def test_parameters_are_part_of_the_fingerprint() -> None:
    assert fingerprint("heuristic") == fingerprint("heuristic")
    assert fingerprint("heuristic:hc0.1") != fingerprint("heuristic")
    assert fingerprint("heuristic-v1") != fingerprint("heuristic")


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_the_leagues_seat_counts_are_equal(players: int) -> None:
    bots = (*LEAGUE, "search")
    held: dict[str, list[int]] = {b: [0] * players for b in bots}
    ranges: list[range] = []
    for lineup, games, first in league_plan(bots, players, 6, 1):
        assert games % players == 0 and games >= 6
        spec = TournamentSpec("classic", players, lineup, seed=first)
        for i in range(games):
            for seat, bot in enumerate(spec.seats_for(i)):
                held[bot][seat] += 1
        ranges.append(range(first, first + games))
    counts = {c for seats in held.values() for c in seats}
    assert len(counts) == 1 and counts != {0}  # every bot, every seat, equally often
    # Every line-up has its own deals, one after the other from the seed given (the
    # scenarios' games come before: tests/test_seed_ledger.py).
    seeds = [s for r in ranges for s in r]
    assert len(set(seeds)) == len(seeds) and min(seeds) == 1 and max(seeds) == len(seeds)


def test_results_are_pooled_by_lineup_position_not_name() -> None:
    # Four seats of one name; line-up position 0 wins every game (its seat turns with the
    # game index). Pooled by name it would score 25% by construction.
    rows = [
        {"game": g, "seats": ["h"] * 4, "winners": [g % 4], "scores": [0, 0, 0, 0],
         "decision_ms": [0.0] * 4, "agent_stats": [{}] * 4}
        for g in range(40)
    ]  # fmt: skip
    table = agent_table(rows, ("h",) * 4)
    assert [a["position"] for a in table] == [0, 1, 2, 3]
    assert table[0]["win_rate"] == (1.0, 1.0, 1.0)
    assert all(a["win_rate"][0] == 0.0 and a["seats"] == 40 for a in table[1:])


def test_s1_separates_the_two_heuristics() -> None:
    # Against three bots that never trade (the former S1) heuristic and heuristic-v1
    # played identical games; against partners who take offers they do not.
    (s1,) = [s for s in SCENARIOS if s.key == "S1"]
    games = []
    for candidate in ("heuristic", "heuristic-v1"):
        spec = TournamentSpec("classic", 4, (candidate, *s1.opponents), seed=HELD_OUT_SEED)
        row = play_game(spec, 0)
        games.append((row["scores"], row["actions"], row["turns"]))
    assert games[0] != games[1]


def test_the_suite_counts_a_forfeit_as_a_loss_of_its_position() -> None:
    """Issue 53: position 0 wins its 30 finished games and fails in 10 more: 75%, not
    the 100% of its finished games; its coins are the finished games'."""
    from bohnanza.tournament.stats import forfeit_row

    rows: list[dict[str, object]] = [
        {"seed": g, "game": g, "seats": ["h"] * 4, "winners": [g % 4],
         "scores": [9 if k == g % 4 else 1 for k in range(4)],
         "decision_ms": [0.0] * 4, "agent_stats": [{}] * 4}
        for g in range(30)
    ]  # fmt: skip
    rows += [
        forfeit_row({"seed": g, "game": g, "seat": g % 4, "agent": "h", "error": "E"}, ["h"] * 4)
        for g in range(30, 40)
    ]
    table = agent_table(rows, ("h",) * 4)
    assert table[0]["seats"] == 40 and table[0]["win_rate"][0] == 0.75
    assert table[1]["win_rate"][0] == pytest.approx(10 / 3 / 40)  # a third of each forfeit
    assert sum(a["win_rate"][0] for a in table) == pytest.approx(1.0)
    assert table[0]["coins"][0] == 9.0 and table[0]["forfeits"] == 10
