"""Issue 36: ``bohnanza balance`` plays self-play tournaments over every rule set, module and
player count, and reports the first seat's win share with its interval, game length and
coin spread, with plots."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from bohnanza.cli import main
from bohnanza.rules import all_rulesets
from bohnanza.testing.checker import configurations


def test_balance_with_20_games_finishes_for_every_rule_set(tmp_path: Path) -> None:
    out = tmp_path / "b"
    result = CliRunner().invoke(
        main, ["balance", "--bot", "autarky", "--games", "20", "-w", "1", "-o", str(out), "--json"]
    )
    assert result.exit_code == 0, result.stderr
    results = json.loads(result.stdout)
    configs = results["configurations"]
    assert {c["rules"] for c in configs} == {r["rules"] for r in all_rulesets()}
    assert [(c["rules"], c["players"], c["options"]) for c in configs] == configurations()
    for c in configs:
        assert c["games"] == 20 and c["forfeits"] == 0
        assert abs(sum(c["seat_win"]) - 1) < 1e-3  # every game has a winner (shared in part)
        lo, hi = c["first_seat_ci95"]
        assert 0 <= lo <= c["first_seat_win"] == c["seat_win"][0] <= hi <= 1
        assert c["fair_share"] == round(1 / c["players"], 4)
        assert c["mean_spread"] >= c["mean_margin"] >= 0 and c["mean_turns"] > 0
    report = (out / "report.md").read_text()
    assert "classic 4p" in report and "fasolki+duel 2p" in report
    for png in ("balance_first_seat.png", "balance_length_spread.png"):
        assert (out / png).stat().st_size > 1000
    # A rerun resumes: nothing is played again and the figures are the same.
    again = CliRunner().invoke(
        main, ["balance", "--bot", "autarky", "--games", "20", "-w", "1", "-o", str(out),
               "--json", "--no-plots", "--rules", "fasolki+duel"],
    )  # fmt: skip
    assert again.exit_code == 0, again.stderr
    (duel,) = json.loads(again.stdout)["configurations"]
    assert duel == next(c for c in configs if c["rules"] == "fasolki+duel")


def test_balance_refuses_bad_input(tmp_path: Path) -> None:
    for args in (["--games", "0"], ["--bot", "no-such-bot"], ["--rules", "no-such-rules"]):
        result = CliRunner().invoke(main, ["balance", "-o", str(tmp_path / "b"), *args])
        assert result.exit_code == 2 and result.stderr.startswith("error: ")
    assert not (tmp_path / "b" / "balance.json").exists()
