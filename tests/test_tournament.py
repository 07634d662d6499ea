"""``bohnanza tournament``: a small tournament end to end (resuming included), the Ray
backend on a local cluster, the SQLite rows, the statistics and the report."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bohnanza.errors import ConfigError
from bohnanza.tournament import (
    Store,
    TournamentSpec,
    parse_agent,
    ratings,
    run_tournament,
    summarise,
    wilson,
)
from bohnanza.tournament.command import tournament
from bohnanza.tournament.runner import play_game

LINEUP = ("heuristic", "autarky", "autarky", "autarky")
SPEC = TournamentSpec("classic", 4, LINEUP)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(tournament, list(args))
    return result.exit_code, result.stdout, result.stderr


def comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows without what depends on the machine's speed."""
    return [
        {k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds", "decision_ms")}
        for r in rows
    ]


# ---------------------------------------------------------------------------- end to end


def test_small_tournament_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "t"
    code, stdout, stderr = invoke(
        "--agents", ",".join(LINEUP), "--rules", "classic", "--games", "8",
        "--workers", "2", "--out", str(out), "--json", "--seed", "5",
    )  # fmt: skip
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert summary["games"] == 8 and summary["played"] == 8 and summary["resumed"] == 0
    assert summary["players"] == 4 and summary["lineup"] == list(LINEUP)
    for name in ("heuristic", "autarky"):
        a = summary["agents"][name]
        for key in ("win_rate", "win_rate_ci95", "mean_coins", "rating"):
            assert key in a
        lo, hi = a["win_rate_ci95"]
        assert 0 <= lo <= a["win_rate"] <= hi <= 1
        assert {"mu", "sigma"} <= set(a["rating"])
    assert summary["agents"]["heuristic"]["seats_played"] == 8
    assert summary["agents"]["autarky"]["seats_played"] == 24
    # Every win is counted once (shared wins in part).
    assert sum(a["wins"] for a in summary["agents"].values()) == pytest.approx(8)
    assert len(summary["seats"]) == 4
    # The files a data scientist and a reader open.
    db = sqlite3.connect(out / "games.sqlite")
    rows = db.execute("SELECT seed, rules, seats, agents, scores, turns FROM games").fetchall()
    assert sorted(r[0] for r in rows) == list(range(5, 13))
    for seed, rules, seats, agents, scores, turns in rows:
        assert rules == "classic" and turns > 0
        assert json.loads(seats) == list(SPEC.seats_for(seed - 5))
        assert json.loads(agents)["heuristic"] == [(seed - 5) % 4]
        assert len(json.loads(scores)) == 4
    for png in ("ratings.png", "win_rates.png", "seats.png", "scores.png", "lengths.png"):
        assert (out / png).stat().st_size > 1000
        assert f"]({png})" in (out / "report.md").read_text()
    assert json.loads((out / "summary.json").read_text())["games"] == 8


def test_rerun_resumes_without_replaying(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ["--agents", "autarky,random", "--players", "3", "--out", str(out), "--json"]
    code, stdout, _ = invoke(*args, "--games", "4", "--workers", "1", "--no-plots")
    assert code == 0 and json.loads(stdout)["played"] == 4
    code, stdout, _ = invoke(*args, "--games", "6", "--workers", "2", "--no-plots")
    summary = json.loads(stdout)
    assert code == 0 and summary["played"] == 2 and summary["resumed"] == 4
    assert summary["games"] == 6
    code, stdout, _ = invoke(*args, "--games", "6", "--no-plots")
    assert json.loads(stdout)["played"] == 0


def test_interrupted_run_resumes_to_the_same_rows(tmp_path: Path) -> None:
    class Interrupt(Exception):
        pass

    def stop_after_first_batch(done: int, total: int) -> None:
        if done >= 2:
            raise Interrupt

    with pytest.raises(Interrupt):
        run_tournament(SPEC, 6, tmp_path / "a", workers=1, batch=2, progress=stop_after_first_batch)
    with Store(tmp_path / "a") as store:
        assert store.seeds() == {1, 2}  # the finished batch was kept
    resumed = run_tournament(SPEC, 6, tmp_path / "a", workers=1, batch=2)
    assert resumed.played == 4 and resumed.skipped == 2
    fresh = run_tournament(SPEC, 6, tmp_path / "b", workers=2, batch=1)
    assert comparable(resumed.rows) == comparable(fresh.rows)
    assert (
        resumed.summary["agents"]["heuristic"]["rating"]
        == fresh.summary["agents"]["heuristic"]["rating"]
    )


def test_games_per_task_follow_a_measured_game() -> None:
    """Without ``--batch``, the size comes from the time of a game played here: cheap
    autarky games go many to a task, never so many that a worker gets fewer than 4
    tasks; a game as dear as the target goes alone. The games played count (rows)."""
    from bohnanza.tournament.runner import auto_batch, play_game

    spec = TournamentSpec("classic", 4, ("autarky",) * 4)
    todo = list(range(100, 300))
    rows, size = auto_batch(spec, todo, 2)
    assert [r["game"] for r in rows] == [100, 101]
    assert comparable(rows) == comparable([play_game(spec, 100), play_game(spec, 101)])
    assert 1 < size <= 25  # 198 games left, 2 workers: at least 8 tasks
    rows, size = auto_batch(spec, todo, 2, target=1e-9)
    assert size == 1 and len(rows) == 1  # the first game already took longer
    _, size = auto_batch(spec, todo[:10], 2, target=60.0)
    assert size == 1  # 8 games left, 2 workers, 4 tasks each: ceil(8 / 8)
    _, size = auto_batch(spec, todo[:40], 4, target=60.0)
    assert size == 3  # ceil(38 / 16)


def test_automatic_batches_play_the_same_games_as_one_per_task(tmp_path: Path) -> None:
    """Two workers, the size chosen from a measured game (the first games played in the
    main process), against one game per task: the same rows."""
    auto = run_tournament(SPEC, 12, tmp_path / "auto", workers=2)
    single = run_tournament(SPEC, 12, tmp_path / "one", workers=2, batch=1)
    assert auto.played == single.played == 12
    assert comparable(auto.rows) == comparable(single.rows)


def test_a_folder_refuses_a_different_tournament(tmp_path: Path) -> None:
    run_tournament(TournamentSpec("classic", 3, ("autarky",) * 3), 1, tmp_path, workers=1)
    with pytest.raises(ConfigError, match="different tournament"):
        run_tournament(TournamentSpec("classic", 3, ("random",) * 3), 1, tmp_path, workers=1)
    code, _, err = invoke(
        "--agents", "random", "--players", "3", "--games", "1", "--out", str(tmp_path)
    )
    assert code == 2 and "different tournament" in err


# ---------------------------------------------------------------------------- Ray


def test_ray_backend_on_a_local_cluster(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        spec = TournamentSpec("classic", 4, ("autarky", "random", "autarky", "random"))
        remote = run_tournament(spec, 6, tmp_path / "ray", backend="ray", batch=2)
        local = run_tournament(spec, 6, tmp_path / "local", workers=1)
        assert remote.played == 6
        assert comparable(remote.rows) == comparable(local.rows)

        def results(summary: dict[str, Any]) -> dict[str, Any]:
            return {
                name: {k: v for k, v in a.items() if k != "decision_ms_median"}
                for name, a in summary["agents"].items()
            }

        assert results(remote.summary) == results(local.summary)
    finally:
        ray.shutdown()


# ---------------------------------------------------------------------------- parts


def test_seats_rotate_every_game() -> None:
    seen = {SPEC.seats_for(i).index("heuristic") for i in range(4)}
    assert seen == {0, 1, 2, 3}
    fixed = TournamentSpec("classic", 4, LINEUP, rotate=False)
    assert all(fixed.seats_for(i) == LINEUP for i in range(5))


def test_agent_specs() -> None:
    assert parse_agent("heuristic") == ("heuristic", {})
    assert parse_agent("search:0.25") == ("search", {"seconds": 0.25})
    assert parse_agent("search:40it:d6") == (
        "search",
        {"iterations": 40, "seconds": None, "depth": 6},
    )
    assert parse_agent("search:40ro:d2:z1.5:hand:strict") == (
        "search",
        {"rollouts": 40, "seconds": None, "depth": 2, "z": 1.5, "hand_value": True, "strict": True},
    )
    assert parse_agent("search:40ro:nohand")[1]["hand_value"] is False
    for bad in (
        "nobody",
        "autarky:3",
        "search:fast",
        "search:0",
        "search:0it",
        "search:0ro",
        "search:z-1",
    ):
        with pytest.raises(ConfigError):
            parse_agent(bad)


def test_a_row_describes_its_game() -> None:
    row = play_game(SPEC, 3)
    assert row["seed"] == 4 and row["game"] == 3
    assert row["seats"] == list(SPEC.seats_for(3))
    assert set(row["winners"]) <= set(range(4))
    assert max(row["scores"]) == row["scores"][row["winners"][0]]
    assert len(row["decision_ms"]) == 4


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    # 2,000 games at a 50% win rate: about ±2.2 points.
    lo, hi = wilson(1000, 2000)
    assert hi - lo == pytest.approx(0.0438, abs=1e-3)


def test_ratings_favour_the_agent_that_wins() -> None:
    rows = [
        {"seats": ["a", "b", "b"], "scores": [5, 1, 2], "hand_sizes": [3, 3, 3], "winners": [0]}
        for _ in range(20)
    ]
    final, history = ratings(rows, every=5)
    assert final["a"]["mu"] > 25 > final["b"]["mu"]
    assert [h["games"] for h in history] == [5, 10, 15, 20]


def test_summary_counts_shared_wins_in_part() -> None:
    row = {
        "seed": 1, "game": 0, "rules": "classic", "players": 3, "options": {},
        "seats": ["x", "y", "y"], "agents": {"x": [0], "y": [1, 2]},
        "scores": [4, 4, 1], "winners": [0, 1], "hand_sizes": [2, 2, 5],
        "turns": 30, "actions": 200, "seconds": 0.1, "decision_ms": [0.1, 0.1, 0.1],
    }  # fmt: skip
    s = summarise([row])
    assert s["agents"]["x"]["wins"] == 0.5 and s["agents"]["y"]["wins"] == 0.5
    assert s["agents"]["y"]["win_rate"] == 0.25 and s["agents"]["y"]["game_win_rate"] == 0.5
    assert s["shared_wins"] == 1.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agents", "nobody"], "unknown agent"),
        (["--agents", "autarky", "--games", "0"], "--games"),
        (["--agents", "autarky", "--rules", "chess"], "unknown rule set"),
        (["--agents", "a,b,c,d,e,f", "--rules", "fasolki"], "agents"),
        (["--agents", "autarky", "--players", "9"], "players"),
        (["--agents", "autarky", "--workers", "0"], "--workers"),
    ],
)
def test_bad_arguments_exit_with_one_error_line(
    args: list[str], message: str, tmp_path: Path
) -> None:
    code, _, err = invoke(*args, "--out", str(tmp_path / "x"))
    assert code == 2
    assert err.startswith("error:") and message in err and err.count("\n") == 1


def test_human_readable_output(tmp_path: Path) -> None:
    code, out, err = invoke(
        "--agents", "heuristic,autarky", "--rules", "fasolki+duel", "--games", "2",
        "--workers", "1", "--out", str(tmp_path), "--no-plots",
    )  # fmt: skip
    assert code == 0, err
    assert "2 games of fasolki+duel with 2 players" in out
    assert "heuristic" in out and "win rate" in out
