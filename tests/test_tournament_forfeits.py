"""Issue 36: a failing bot ends its game only. The game is recorded as that seat's
forfeit (the error, the agent's spec, the seed and the game index), the run goes on and
its summary counts the forfeits; ``--fail-fast`` stops at the first one (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnanza.cli import main
from bohnanza.driver import AgentFailed
from bohnanza.forfeits import RunStopped
from bohnanza.game import Game
from bohnanza.simulate import GameSpec, simulate
from bohnanza.testing.faulty import Faulty
from bohnanza.tournament import Store, TournamentSpec, run_tournament

#: Fails in game 3 of a run seeded 1 (game index 2, seed 3).
RAISES = "bohnanza.testing.faulty:Faulty:game_seed=3"
ILLEGAL = "bohnanza.testing.faulty:Faulty:game_seed=3:mode=illegal"
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
    assert outcome.summary["games"] == 9 and outcome.summary["forfeits"] == 1
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
    assert summary["games"] == 9 and summary["forfeits"] == 1
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
    assert summary["games"] == 9 and summary["forfeits"] == 1
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
