"""Issue 53, item 4: held-out seeds are held out. The repository keeps a seed ledger
(docs/seeds.toml: which ranges were used, for what, at which commit, whether a decision
was taken on them); ``--held-out`` takes the next unused range, records it and refuses
a range a decision was taken on. In the suite, every scenario plays its own games (S4a
and S6 are not the same games) and S1 also runs ``heuristic-v1`` as the candidate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bohnanza.cli import main
from bohnanza.errors import ConfigError
from bohnanza.tournament.ledger import HELD_OUT_START, Ledger
from bohnanza.tournament.suite import SCENARIOS, suite_plan

ROOT = Path(__file__).resolve().parent.parent

USED = """# a ledger for the tests
[[range]]
first = 900001
last = 900600
use = "search settings chosen here"
decision = true
commit = "abc"
date = "2026-12-02"

[[range]]
first = 910001
last = 910400
use = "published only"
decision = false
"""


def ledger_file(tmp_path: Path, text: str = USED) -> Path:
    path = tmp_path / "seeds.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_ledger_takes_the_next_unused_range(tmp_path: Path) -> None:
    ledger = Ledger(ledger_file(tmp_path))
    assert ledger.next_free(100) == 900_601
    assert ledger.next_free(9_400) == 900_601  # fits exactly before 910,001
    assert ledger.next_free(9_401) == 910_401
    entry, new = ledger.claim(9_401, "benchmark bots --candidate heuristic --held-out")
    assert new and (entry.first, entry.last) == (910_401, 919_801) and not entry.decision
    assert entry.commit and entry.date
    # Written to the file, its comments kept, and read back.
    text = (tmp_path / "seeds.toml").read_text(encoding="utf-8")
    assert text.startswith("# a ledger for the tests")
    again = Ledger(tmp_path / "seeds.toml")
    assert again.ranges[-1] == entry
    assert again.next_free(1) == 900_601 and again.next_free(10_000) == 919_802
    # The same range again (a resume) is not recorded twice.
    same, new = again.claim(9_401, "anything", first=910_401)
    assert same == entry and not new and len(Ledger(tmp_path / "seeds.toml").ranges) == 3


@pytest.mark.parametrize("first", [900_001, 899_950, 900_600])
def test_a_range_a_decision_was_taken_on_is_refused(tmp_path: Path, first: int) -> None:
    ledger = Ledger(ledger_file(tmp_path))
    with pytest.raises(ConfigError, match=r"decision was taken on.*900,001-900,600"):
        ledger.claim(100, "again", first=first if first >= HELD_OUT_START else 900_550)
    with pytest.raises(ConfigError, match="development seed"):
        ledger.claim(10, "dev", first=5)
    # A range only published on (no decision) may be played again: it is recorded.
    entry, new = ledger.claim(10, "a second look", first=910_001)
    assert new and entry.first == 910_001


def test_a_missing_or_broken_ledger_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no seed ledger"):
        Ledger(tmp_path / "nowhere.toml")
    with pytest.raises(ConfigError, match="not valid TOML"):
        Ledger(ledger_file(tmp_path, "[[range]\n"))
    with pytest.raises(ConfigError, match="needs first, last and use"):
        Ledger(ledger_file(tmp_path, "[[range]]\nfirst = 1\n"))


def test_the_repository_ledger_records_the_published_decisions() -> None:
    ledger = Ledger(ROOT / "docs" / "seeds.toml")
    decided = {(r.first, r.last) for r in ledger.ranges if r.decision}
    # The ranges docs/bots.md took search decisions on (issue 36).
    for first, last in [(900_001, 900_600), (910_001, 910_400), (930_001, 930_400),
                        (930_401, 930_700)]:  # fmt: skip
        assert any(a <= first and last <= b for a, b in decided), (first, last)
    assert all(r.commit and r.use for r in ledger.ranges)
    assert ledger.next_free(1) > 900_600


def spans(plan: list[Any]) -> dict[str, range]:
    return {p.folder: range(p.first, p.first + p.games) for p in plan}


@pytest.mark.parametrize("candidate", ["heuristic", "heuristic-v1", "random", "probe-accept"])
def test_every_scenario_plays_its_own_games(candidate: str) -> None:
    """Before issue 53 every scenario started at the suite's seed: with ``heuristic`` as
    the candidate S4a (four copies) and S6 (against three ``heuristic``) were the same
    games, and so were S3 and S4a for ``heuristic-v1``."""
    plan = suite_plan(candidate, 1, games=30, s4_games=20, league_games=4,
                      league=("random", "autarky", "heuristic"), league_players=(3, 4))  # fmt: skip
    seeds = spans(plan)
    keys = [p.key for p in plan]
    assert [k for k in keys if not k.startswith("S5")][:2] == ["S0", "S1"]
    assert {s.key for s in SCENARIOS} <= set(keys)
    # S1's reference plays S1's games (a paired comparison), with heuristic-v1 placed
    # where the candidate sits (no second run when it is the candidate); everything else
    # has games of its own.
    refs = [p for p in plan if p.key == "S1-ref"]
    if candidate == "heuristic-v1":
        assert not refs
    else:
        assert seeds["S1-ref"] == seeds["S1"] and refs[0].lineup[0] == "heuristic-v1"
    own = [r for k, r in seeds.items() if k != "S1-ref"]
    flat = [s for r in own for s in r]
    assert len(flat) == len(set(flat))
    assert not set(seeds["S4a"]) & set(seeds["S6"])
    # One block from the seed on, as long as every game played.
    assert min(flat) == 1 and max(flat) == len(flat)


def run_suite_cli(tmp_path: Path, *args: str) -> Any:
    base = ["benchmark", "bots", "--candidate", "heuristic", "--games", "2", "--s4-games", "1"]
    base += ["--league-games", "1", "--league", "random,autarky,heuristic", "--league-players", "3"]
    base += ["--workers", "1", "--no-plots", "--json"]
    return CliRunner().invoke(main, [*base, *args])


def test_held_out_takes_records_and_refuses(tmp_path: Path) -> None:
    ledger = ledger_file(tmp_path)
    out = str(tmp_path / "suite")
    result = run_suite_cli(tmp_path, "--held-out", "--ledger", str(ledger), "--out", out)
    assert result.exit_code == 0, result.output
    results = json.loads(result.stdout)
    first, last = results["seeds"]
    assert first == 900_601  # the first unused seed, not 900,001
    games = sum(sc["games"] for sc in results["scenarios"].values()) + results["league"]["games"]
    assert last - first + 1 == games  # every seed of the range is one game
    recorded = Ledger(ledger).ranges[-1]
    assert (recorded.first, recorded.last) == (first, last) and not recorded.decision
    assert "heuristic" in recorded.use and "--held-out" in recorded.use
    # S1's target can be judged: heuristic-v1 played S1's games as the candidate.
    s1 = results["scenarios"]["S1"]
    assert s1["reference"]["agents"][0]["agent"] == "heuristic-v1"
    assert s1["reference"]["games"] == s1["games"]
    assert s1["verdict"] in ("met", "not met", "undecided") and len(s1["difference"]) == 3
    # Resuming the same range records nothing new; a range a decision was taken on, or
    # held-out seeds without --held-out, are refused.
    again = run_suite_cli(
        tmp_path, "--held-out", "--seed", str(first), "--ledger", str(ledger), "--out", out
    )
    assert again.exit_code == 0, again.output
    assert len(Ledger(ledger).ranges) == 3
    refused = run_suite_cli(tmp_path, "--held-out", "--seed", "900001", "--ledger", str(ledger),
                            "--out", str(tmp_path / "x"))  # fmt: skip
    assert refused.exit_code == 2 and "decision was taken on" in refused.stderr
    sneaked = run_suite_cli(tmp_path, "--seed", "900701", "--out", str(tmp_path / "y"))
    assert sneaked.exit_code == 2 and "--held-out" in sneaked.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_seeds_command_lists_and_reserves(tmp_path: Path) -> None:
    ledger = ledger_file(tmp_path)
    listed = CliRunner().invoke(main, ["benchmark", "seeds", "--ledger", str(ledger)])
    assert listed.exit_code == 0 and "900,001-900,600 (decision" in listed.stdout
    taken = CliRunner().invoke(
        main,
        ["benchmark", "seeds", "--ledger", str(ledger), "--take", "400", "--use",
         "tournament search vs heuristic", "--json"],
    )  # fmt: skip
    assert taken.exit_code == 0, taken.output
    assert json.loads(taken.stdout)["taken"] == {
        **json.loads(taken.stdout)["taken"],
        "first": 900_601,
        "last": 901_000,
    }
    assert Ledger(ledger).ranges[-1].use == "tournament search vs heuristic"
