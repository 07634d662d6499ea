"""Issue 53, item 1: no bot can stop a run. A bot that sleeps, exits, crashes its
process, cannot be made or whose ``stats()`` fails forfeits that game - with its seed,
game index, seat, spec and error - and the tournament goes on; the forfeits count as
losses. Untrusted bots play from a process of their own, killed when a call takes longer
than ``--move-timeout``; the built-in bots keep the in-process fast path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bohnanza.tournament import TournamentSpec, run_tournament
from bohnanza.tournament.hosting import (
    DEFAULT_MOVE_TIMEOUT,
    BotDied,
    BotExited,
    Host,
    HostedAgent,
    MoveTimeout,
    trusted,
)
from bohnanza.tournament.runner import play_game

FAULTY = "bohnanza.testing.faulty:Faulty"
#: One bot per way of failing, each in its own game of a run seeded 1 (game index =
#: seed - 1), and what its forfeit's error says.
FAILURES = {
    f"{FAULTY}:game_seed=2:mode=sleep": "no answer to a decision within 5 s",
    f"{FAULTY}:game_seed=3:mode=exit": "SystemExit: 3",
    f"{FAULTY}:game_seed=4:mode=crash": "exit status 3",
    f"{FAULTY}:game_seed=5:mode=make": "could not be made: RuntimeError",
    f"{FAULTY}:game_seed=6:mode=stats": "stats() failed: RuntimeError",
}
LINEUP = tuple(FAILURES)
GAMES = 7


def cli(out: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``bohnanza tournament`` in a process of its own: a run that hangs fails the test
    instead of hanging it."""
    command = [sys.executable, "-m", "bohnanza.cli", "tournament", "-o", str(out)]
    command += ["--no-plots", "--json", "--no-progress", *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


def check_forfeits(summary: dict[str, Any]) -> None:
    spec = TournamentSpec("classic", len(LINEUP), LINEUP)
    assert summary["games"] == GAMES and summary["forfeits"] == len(FAILURES), summary["forfeited"]
    assert summary["finished"] == GAMES - len(FAILURES)
    by_agent = {f["agent"]: f for f in summary["forfeited"]}
    assert set(by_agent) == set(LINEUP)
    for bot, says in FAILURES.items():
        forfeit = by_agent[bot]
        seed = int(bot.split("game_seed=")[1].split(":")[0])
        assert forfeit["seed"] == seed and forfeit["game"] == seed - 1
        assert spec.seats_for(seed - 1)[forfeit["seat"]] == bot
        assert says in forfeit["error"], forfeit
        # Counted as a loss: the seat it held in that game is in its seats, with no win.
        mine = summary["agents"][bot]
        assert mine["seats_played"] == GAMES and mine["forfeits"] == 1


@pytest.mark.parametrize("workers", ["1", "2"])
def test_no_failing_bot_stops_the_run(tmp_path: Path, workers: str) -> None:
    """Before issue 53: the sleeping bot hung the run for ever, the exiting one ended it
    with exit 3 and no message, and the one whose constructor or stats() raised stopped
    it with exit 2 (and again on every rerun)."""
    out = tmp_path / "t"
    # 5 s: a limit no decision of these bots comes near, even on a machine loaded ten
    # times over its cores (where 1 s once timed out a decision that was not asleep). A
    # run that hangs fails by cli()'s own time limit.
    args = ("-a", ",".join(LINEUP), "-n", str(GAMES), "-w", workers, "--move-timeout", "5")
    proc = cli(out, *args)
    assert proc.returncode == 0, proc.stderr
    check_forfeits(json.loads(proc.stdout))
    assert proc.stderr.count("forfeits:") == len(FAILURES)  # a warning each, as they happen
    # A rerun plays nothing again and reports the same.
    again = cli(out, *args)
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary["played"] == 0
    check_forfeits(summary)


def test_a_hosted_bot_plays_the_games_it_would_play_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone else's bot that plays like autarky, from a host (another process: it
    writes its process id down), plays the games autarky plays here."""
    from external_bots import COUNTING, forget_bots, write_bots

    monkeypatch.syspath_prepend(str(write_bots(tmp_path / "bots")))
    forget_bots()
    trace = tmp_path / "trace.txt"
    hosted = (f"{COUNTING}:trace={trace}", "autarky", "random")
    here = ("autarky", "autarky", "random")
    a = run_tournament(TournamentSpec("classic", 3, hosted), 6, tmp_path / "a", workers=1)
    b = run_tournament(TournamentSpec("classic", 3, here), 6, tmp_path / "b", workers=1)
    forget_bots()
    keys = ("seed", "scores", "winners", "hand_sizes", "turns", "actions")
    assert [{k: r[k] for k in keys} for r in a.rows] == [{k: r[k] for k in keys} for r in b.rows]
    pids = {line.split()[0] for line in trace.read_text().splitlines()}
    assert len(pids) == 1 and str(os.getpid()) not in pids
    # Decision times are the bot's own, measured in its process; its counters arrive.
    assert all(r["decision_ms"][r["seats"].index(hosted[0])] > 0 for r in a.rows)
    assert a.summary["agents"][hosted[0]]["stats"]["decisions"]["total"] > 0


def test_which_bots_are_hosted() -> None:
    for spec in ("random", "autarky", "heuristic", "heuristic-v1", "search:40ro", "probe-spam"):
        assert trusted(spec), spec
    assert not trusted(FAULTY)
    assert DEFAULT_MOVE_TIMEOUT >= 1


def test_a_built_in_bot_plays_in_the_workers_own_process() -> None:
    before = set(children())
    row = play_game(TournamentSpec("classic", 3, ("autarky", "heuristic", "random")), 0)
    # No new process (one left by an earlier test may have ended meanwhile).
    assert "forfeit" not in row and not set(children()) - before


def children() -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[1]) == os.getpid():
            found.append(int(stat.parent.name))
    return found


@pytest.mark.parametrize(
    ("mode", "raised", "says"),
    [
        ("sleep", MoveTimeout, "within 1 s"),
        ("exit", BotExited, "SystemExit: 3"),
        ("crash", BotDied, "exit status 3"),
        ("raise", RuntimeError, "fails on purpose"),
    ],
)
def test_a_host_reports_each_failure_and_starts_again(
    mode: str, raised: type[Exception], says: str
) -> None:
    from bohnanza.game import Game

    host = Host(None, ())
    try:
        host.reset(seat=2)
        # A limit far above what a decision takes, even on a loaded machine, but the
        # sleeping bot's hour.
        limit = 1.0 if mode == "sleep" else 30.0
        agent = HostedAgent.make(host, f"{FAULTY}:game_seed=7:mode={mode}", 7 * 1009 + 2, 2, limit)
        game = Game.new("classic", 3, seed=7)
        legal = game.legal_actions(game.active)
        with pytest.raises(raised, match=says) as caught:
            agent.act(game.view(game.active), legal, True)
        if isinstance(caught.value, MoveTimeout | BotExited | BotDied):
            assert caught.value.seat == 2
        if mode != "raise" and mode != "exit":
            assert not host.alive()  # killed, or dead
        host.reset(seat=0)  # the next game starts a new one where needed
        fresh = HostedAgent.make(host, f"{FAULTY}:game_seed=-1", 1, 0, 30.0)
        assert fresh.act(game.view(game.active), legal, True) in legal
    finally:
        host.stop()


def test_a_constructor_failure_is_a_forfeit_in_process_too(tmp_path: Path) -> None:
    """A built-in bot's constructor runs in the worker: a failure there is a forfeit
    as well (here the registry's factory is patched to fail for one seed)."""
    from bohnanza import agents

    def broken(seed: int, **kwargs: Any) -> Any:
        if seed // 1009 == 2:
            raise RuntimeError("cannot be made for seed 2")
        return agents.AutarkyAgent(seed)

    saved = agents.AGENTS["autarky"]
    agents.AGENTS["autarky"] = broken
    try:
        row = play_game(TournamentSpec("classic", 3, ("autarky", "random", "random")), 1)
    finally:
        agents.AGENTS["autarky"] = saved
    assert row["forfeit"]["seat"] == 1 and "cannot be made for seed 2" in row["forfeit"]["error"]


def test_what_a_hosted_bot_prints_leaves_the_summary_alone(tmp_path: Path) -> None:
    """A bot's prints go to stderr: the run's stdout is its JSON summary."""
    chatty = f"{FAULTY}:mode=chatty"
    proc = cli(tmp_path / "t", "-a", f"{chatty},autarky,autarky", "-n", "2", "-w", "1")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["games"] == 2
    assert "faulty bot says hello" in proc.stderr
