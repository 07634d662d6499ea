"""Issue 36: a failing bot ends its game only. The game is recorded as that seat's
forfeit (the error, the agent's spec, the seed and the game index), the run goes on and
its summary counts the forfeits; ``--fail-fast`` stops at the first one (exit 2).
Issue 53: a forfeit is a loss of the seat that failed (the others share the win), in
every summary and rating."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bohnanza.cli import main
from bohnanza.driver import AgentFailed
from bohnanza.forfeits import RunStopped
from bohnanza.game import Game
from bohnanza.simulate import GameSpec, simulate
from bohnanza.testing.faulty import Faulty
from bohnanza.tournament import Store, TournamentSpec, ratings, run_tournament, summarise
from bohnanza.tournament.stats import forfeit_row

#: Fails in game 3 of a run seeded 1 (game index 2, seed 3).
RAISES = "bohnanza.testing.faulty:Faulty:game_seed=3"
ILLEGAL = "bohnanza.testing.faulty:Faulty:game_seed=3:mode=illegal"
#: Plays like autarky, and gives up late in the games where it is behind.
BEHIND = "bohnanza.testing.faulty:Faulty:mode=behind"
LINEUP = "autarky"


def lineup(bot: str) -> tuple[str, ...]:
    return (bot, LINEUP, LINEUP, LINEUP)


def check_forfeit(forfeit: dict[str, object], bot: str, seats: tuple[str, ...]) -> None:
    assert forfeit["seed"] == 3 and forfeit["game"] == 2
    assert forfeit["agent"] == bot and seats[int(str(forfeit["seat"]))] == bot
    error = str(forfeit["error"])
    if "illegal" in bot:
        assert "illegal action" in error and "harvest(99)" in error
    else:
        assert "RuntimeError" in error and "fails on purpose" in error


@pytest.mark.parametrize("bot", [RAISES, ILLEGAL])
def test_a_failing_bot_forfeits_one_game_of_a_tournament(tmp_path: Path, bot: str) -> None:
    spec = TournamentSpec("classic", 4, lineup(bot))
    outcome = run_tournament(spec, 10, tmp_path, workers=1)
    assert len(outcome.rows) == 9 and 3 not in {r["seed"] for r in outcome.rows}
    summary = outcome.summary
    assert summary["games"] == 10 and summary["finished"] == 9 and summary["forfeits"] == 1
    assert summary["agents"][bot]["seats_played"] == 10 and summary["agents"][bot]["forfeits"] == 1
    with Store(tmp_path) as store:
        assert len(store.rows()) == 9
        (forfeit,) = store.forfeits()
    check_forfeit(forfeit, bot, spec.seats_for(2))
    # A resumed run does not replay the forfeited game.
    again = run_tournament(spec, 10, tmp_path, workers=1)
    assert again.played == 0 and again.summary["forfeits"] == 1


def test_forfeits_with_workers_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "t"
    result = CliRunner().invoke(
        main,
        ["tournament", "-a", ",".join(lineup(ILLEGAL)), "-n", "10", "-w", "2", "--no-plots",
         "-o", str(out), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["games"] == 10 and summary["finished"] == 9 and summary["forfeits"] == 1
    assert "1 game(s) forfeited" in (out / "report.md").read_text()
    seats = TournamentSpec("classic", 4, lineup(ILLEGAL)).seats_for(2)
    check_forfeit(summary["forfeited"][0], ILLEGAL, seats)


@pytest.mark.parametrize("command", ["tournament", "simulate"])
def test_fail_fast_stops_at_the_first_forfeit_with_its_details(
    tmp_path: Path, command: str
) -> None:
    extra = ["--no-plots", "-w", "1", "-o", str(tmp_path / "t")] if command == "tournament" else []
    result = CliRunner().invoke(
        main, [command, "-a", ",".join(lineup(RAISES)), "-n", "10", "--fail-fast", *extra]
    )
    assert result.exit_code == 2
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("error: stopped at the first forfeit (--fail-fast)")
    for detail in ("game 2", "seed 3", RAISES, "RuntimeError"):
        assert detail in line
    if command == "tournament":
        with Store(tmp_path / "t") as store:
            assert len(store.rows()) == 2  # the games before it are kept


@pytest.mark.parametrize("workers", [1, 2])
def test_simulate_counts_a_forfeit_and_goes_on(workers: int) -> None:
    bot = ILLEGAL if workers == 2 else RAISES
    spec = GameSpec("classic", 4, (), lineup(bot), None)
    summary = simulate(spec, 10, 1, workers)
    assert summary["games"] == 10 and summary["finished"] == 9 and summary["forfeits"] == 1
    # The forfeit is the failing seat's loss and the others' shared win.
    assert sum(summary["seat_wins"]) == pytest.approx(10, abs=0.01)
    check_forfeit(summary["forfeited"][0], bot, lineup(bot))
    with pytest.raises(RunStopped, match="seed 3"):
        simulate(GameSpec("classic", 4, (), lineup(bot), None, fail_fast=True), 4, 1)


def test_the_driver_names_the_failing_seat() -> None:
    from bohnanza.driver import play

    agents = [Faulty(3 * 1009 + k, game_seed=3 if k == 2 else -1) for k in range(4)]
    with pytest.raises(AgentFailed) as caught:
        play(Game.new("classic", 4, seed=3), agents, contain=True)
    assert caught.value.failed_seat == 2 and caught.value.seat == 2
    assert isinstance(caught.value.cause, RuntimeError)
    # Uncontained (the search's roll-outs, which stop by raising from inside the game),
    # an agent's exception passes through as it is.
    agents = [Faulty(3 * 1009 + k, game_seed=3 if k == 2 else -1) for k in range(4)]
    with pytest.raises(RuntimeError, match="on purpose"):
        play(Game.new("classic", 4, seed=3), agents)


def position_wins(rows: list[dict[str, Any]], position: int = 0) -> dict[int, float]:
    """Seed → the win share of line-up position ``position`` (seats rotated)."""
    out = {}
    for r in rows:
        seat = (position + r["game"]) % len(r["seats"])
        out[r["seed"]] = 1 / len(r["winners"]) if seat in r["winners"] else 0.0
    return out


def test_a_forfeit_is_a_loss_of_the_seat_that_failed(tmp_path: Path) -> None:
    """A bot that plays like autarky but gives up when behind: its finished games are
    autarky's own games on the same seeds, the ones it gave up count as lost. Left out
    (before issue 53), its win rate was that of the games it did not give up."""
    games = 24
    quitter = run_tournament(TournamentSpec("classic", 4, lineup(BEHIND)), games, tmp_path / "q")
    honest = run_tournament(TournamentSpec("classic", 4, lineup("autarky")), games, tmp_path / "a")
    summary = quitter.summary
    forfeits = summary["forfeits"]
    assert 0 < forfeits < games and summary["games"] == games
    mine = summary["agents"][BEHIND]
    assert mine["seats_played"] == games and mine["forfeits"] == forfeits
    kept = {r["seed"] for r in quitter.rows}
    truth = position_wins(honest.rows)
    assert mine["wins"] == pytest.approx(sum(w for seed, w in truth.items() if seed in kept))
    assert mine["win_rate"] == pytest.approx(mine["wins"] / games, abs=1e-4)
    assert mine["win_rate"] <= sum(truth.values()) / games  # no better than playing on
    assert mine["win_rate"] < mine["wins"] / len(kept)  # what leaving them out reported
    # Every game has one win: the other seats share a forfeited one; per seat as well.
    assert sum(a["wins"] for a in summary["agents"].values()) == pytest.approx(games)
    assert sum(s["win_rate"] for s in summary["seats"]) == pytest.approx(1.0, abs=1e-3)
    # Ratings: each forfeit ranks the failing seat last.
    finished_only, _ = ratings(quitter.rows)
    assert mine["rating"]["mu"] < finished_only[BEHIND]["mu"]
    # Coins and game lengths are the finished games'.
    assert summary["finished"] == len(kept)


def test_the_summary_ranks_a_forfeit_last() -> None:
    row = {
        "seed": 1, "game": 0, "rules": "classic", "players": 3, "options": {},
        "seats": ["x", "y", "z"], "agents": {"x": [0], "y": [1], "z": [2]},
        "scores": [4, 4, 1], "winners": [0, 1], "hand_sizes": [2, 2, 5],
        "turns": 30, "actions": 200, "seconds": 0.1, "decision_ms": [0.1, 0.1, 0.1],
    }  # fmt: skip
    lost = forfeit_row(
        {"seed": 2, "game": 1, "seat": 1, "agent": "z", "error": "E"}, ["y", "z", "x"]
    )
    assert lost["winners"] == [0, 2] and lost["forfeit"] == 1
    s = summarise([row, lost])
    assert s["games"] == 2 and s["finished"] == 1 and s["forfeits"] == 1
    assert s["agents"]["z"]["wins"] == 0 and s["agents"]["z"]["forfeits"] == 1
    assert s["agents"]["x"]["wins"] == 1.0 and s["agents"]["y"]["wins"] == 1.0
    assert s["agents"]["z"]["seats_played"] == 2 and s["agents"]["z"]["mean_coins"] == 1.0
    assert [x["win_rate"] for x in s["seats"]] == [0.5, 0.25, 0.25]
    assert s["shared_wins"] == 1.0 and s["game_length"]["mean_turns"] == 30
    assert s["agents"]["z"]["rating"]["mu"] < s["agents"]["x"]["rating"]["mu"]


def test_the_balance_report_counts_a_forfeit_as_the_failing_seats_loss() -> None:
    from bohnanza.tournament.balance import measure

    won = {"seats": ["a"] * 3, "winners": [0], "scores": [5, 3, 1], "turns": 30}
    lost = forfeit_row({"seed": 2, "game": 1, "seat": 0, "agent": "a", "error": "E"}, ["a"] * 3)
    m = measure([won, lost], 3)
    assert m["games"] == 2 and m["forfeits"] == 1
    assert m["seat_win"] == [0.5, 0.25, 0.25] and m["first_seat_win"] == 0.5
    assert m["mean_turns"] == 30 and m["mean_spread"] == 4 and m["mean_coins"] == 3
