"""Bring your own bot: agents from outside the package, named by ``module:Class`` spec or
published through the ``bohnanza.agents`` entry-point group, play in ``simulate``, in a
tournament's process pool under ``spawn``, on a local Ray cluster; their counters
(``Agent.stats()``) reach the tournament's database, summary and report; broken specs
are one error line."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnanza.agents import AutarkyAgent, check_agent, make_agent, resolve_agent
from bohnanza.agents.heuristic import EPS, FORGET
from bohnanza.agents.specs import keyword_parameters
from bohnanza.cli import main
from bohnanza.errors import ConfigError
from bohnanza.tournament import TournamentSpec, parse_agent, run_tournament
from bohnanza.tournament.runner import agent_stats
from external_bots import BROKEN, COUNTING, DISTRIBUTION, MODULE, PUBLISHED, forget_bots, write_bots


@pytest.fixture(scope="module")
def bots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The external package's folder, on ``sys.path`` for this module's tests only."""
    forget_bots()
    folder = write_bots(tmp_path_factory.mktemp("byob"))
    sys.path.insert(0, str(folder))
    yield folder
    sys.path.remove(str(folder))
    forget_bots()


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


ROOT = Path(__file__).resolve().parent.parent


def traced(folder: Path, name: str) -> tuple[str, Path]:
    """The external agent's spec, writing a line to a file at its first decision."""
    path = folder / f"{name}.trace"
    path.unlink(missing_ok=True)
    return f"{COUNTING}:bonus=3:trace={path}", path


# ---------------------------------------------------------------------------- one process


def test_simulate_plays_an_agent_from_outside_the_package(bots: Path) -> None:
    spec, trace = traced(bots, "simulate")
    code, out, err = run("simulate", "-a", f"{spec},autarky", "-n", "3", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["games"] == 3 and summary["agents"] == [spec, "autarky", spec, "autarky"]
    # One line per agent made (2 seats x 3 games): each one decided.
    seats = [line.split()[-1] for line in trace.read_text().splitlines()]
    assert sorted(seats) == ["0", "0", "0", "2", "2", "2"]
    # It plays like autarky (its base class), so the games are autarky's games.
    code, out, _ = run("simulate", "-a", "autarky", "-n", "3", "--json")
    assert json.loads(out)["seat_mean_coins"] == summary["seat_mean_coins"]


def test_play_seats_an_agent_from_outside_the_package(bots: Path, tmp_path: Path) -> None:
    spec, trace = traced(bots, "play")
    record = tmp_path / "game.json"
    args = ["play", "--seed", "3", "--seat", "3", "--bots", spec, "--record", str(record)]
    result = CliRunner().invoke(main, args, input="1\n" * 5000)
    assert result.exit_code == 0, result.output
    assert "Final scores" in result.output
    assert json.loads(record.read_text())["seats"][:3] == [{"agent": spec}] * 3
    assert sorted(line.split()[-1] for line in trace.read_text().splitlines()) == ["0", "1", "2"]


def test_specs_resolve_to_factories_and_parameters(bots: Path) -> None:
    resolved = resolve_agent(f"{COUNTING}:bonus=3:trace=x")
    assert resolved.source == "module" and resolved.name == COUNTING
    assert dict(resolved.kwargs) == {"bonus": 3, "trace": "x"}
    assert str(bots) in resolved.paths
    assert parse_agent(f"{COUNTING}:bonus=2.5") == (COUNTING, {"bonus": 2.5})
    assert make_agent(f"{MODULE}:Tuned:3x").stats()["bonus"] == 3  # its own reader
    with pytest.raises(ConfigError, match="bad parameters: ValueError: say NUMBERx"):
        resolve_agent(f"{MODULE}:Tuned:three")
    agent = make_agent(f"{MODULE}:make_counting", seed=4)
    assert isinstance(agent, AutarkyAgent) and agent.seed == 4
    assert agent.stats() == {"decisions": 0, "bonus": 7}
    # Built-in names keep their meaning and their own parameters.
    assert parse_agent("search:40it:d6") == (
        "search",
        {"iterations": 40, "seconds": None, "depth": 6},
    )
    assert parse_agent("search:120ro:turn:wide:trade") == (
        "search",
        {"rollouts": 120, "seconds": None, "depth": 0, "wide": True, "trades_only": True},
    )
    assert parse_agent("search:fg0.38:all") == (
        "search",
        {"field_gain": 0.38, "trades_only": False},
    )
    assert parse_agent("heuristic:fg0.9") == ("heuristic", {"field_gain": 0.9})
    assert parse_agent("heuristic:wary:fg0.9") == (
        "heuristic",
        {"rivalry": (0.5, 4.0, 1.0), "field_gain": 0.9},
    )
    assert parse_agent("search:wary") == ("search", {"rivalry": (0.5, 4.0, 1.0)})
    assert parse_agent("search:wary:mild") == ("search", {"rivalry": None})
    assert parse_agent("search:end1.5") == ("search", {"endgame": 1.5})
    assert parse_agent("search:nocount:count") == ("search", {"counting": True})
    assert parse_agent("search:count:nocount") == ("search", {"counting": False})
    assert parse_agent("heuristic:count:fg0.9") == (
        "heuristic",
        {"counting": True, "field_gain": 0.9},
    )
    assert parse_agent("heuristic:hc0.1:fg0.9") == (
        "heuristic",
        {"hand_card": 0.1, "field_gain": 0.9},
    )
    assert parse_agent("search:hc0.25") == ("search", {"hand_card": 0.25})
    assert parse_agent("heuristic:fg0.9:wv3:ep0:fo0.6") == (
        "heuristic",
        {"field_gain": 0.9, "wanted": 3, "eps": 0.0, "forget": 0.6},
    )
    assert parse_agent("search:wv4:ep0.02:fo1") == (
        "search",
        {"wanted": 4, "eps": 0.02, "forget": 1.0},
    )
    assert parse_agent("heuristic:sw0.05:sl1") == (
        "heuristic",
        {"accept_swap": 0.05, "accept_slope": 1.0},
    )
    assert parse_agent("search:sw0.2:sl0.45") == (
        "search",
        {"accept_swap": 0.2, "accept_slope": 0.45},
    )
    assert parse_agent("search:eager:60ro") == (
        "search",
        {"eager": True, "rollouts": 60, "seconds": None},
    )
    assert keyword_parameters("a=1:b=x:c=true:d=none:e=-0.5") == {
        "a": 1,
        "b": "x",
        "c": True,
        "d": None,
        "e": -0.5,
    }


def test_the_documented_bot_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/bots.md's "Write your own bot" example, as a package of its own."""
    text = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    code = text.split("# mybots/greedy.py\n", 1)[1].split("```", 1)[0]
    (tmp_path / "mybots_doc").mkdir()
    (tmp_path / "mybots_doc" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "mybots_doc" / "greedy.py").write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = "mybots_doc.greedy:Greedy:patience=2"
    status, out, err = run("simulate", "-a", f"{spec},heuristic", "-n", "2", "--json")
    assert status == 0, err
    assert json.loads(out)["agents"] == [spec, "heuristic", spec, "heuristic"]
    outcome = run_tournament(
        TournamentSpec("classic", 3, (spec, "heuristic", "heuristic")), 3, tmp_path / "t", workers=1
    )
    assert outcome.summary["agents"][spec]["stats"]["moves"]["total"] > 0


# ---------------------------------------------------------------------------- entry points


def test_an_entry_point_agent_is_found_listed_and_played(bots: Path) -> None:
    code, out, err = run("agents", "--json")
    assert code == 0, err
    listed = {a["name"]: a for a in json.loads(out)["agents"]}
    assert {"random", "autarky", "heuristic", "search"} <= set(listed)
    assert all(listed[n]["description"] for n in ("random", "autarky", "heuristic", "search"))
    mine = listed[PUBLISHED]
    assert mine["source"] == "entry point" and mine["package"] == DISTRIBUTION
    assert mine["description"] == "Plays like autarky and counts its decisions."
    assert "byob_missing_module" in listed[BROKEN]["error"]  # listed, with the reason
    code, out, _ = run("agents")
    assert code == 0
    assert any(
        line.startswith(PUBLISHED) and "counts its decisions" in line for line in out.splitlines()
    )
    code, out, _ = run("rules", "--json")
    assert PUBLISHED in {a["name"] for a in json.loads(out)["agents"]}
    assert resolve_agent(PUBLISHED).source == "entry point"
    code, out, err = run("simulate", "-a", f"{PUBLISHED},heuristic", "-n", "2", "--json")
    assert code == 0, err
    assert json.loads(out)["agents"][0] == PUBLISHED


# ---------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nobody", "unknown agent 'nobody'"),
        ("byob_nowhere.bots:Greedy", "no module named 'byob_nowhere'"),
        (f"{MODULE}:Nobody", "has no attribute 'Nobody'"),
        (f"{MODULE}:NotAnAgent", "not a bohnanza.agents.Agent subclass"),
        ("json:dumps", "not a bohnanza.agents.Agent"),
        ("byob_fails_on_import:Bot", "ZeroDivisionError"),
        (f"{COUNTING}:bonus", "use KEY=VALUE"),
        (f"{COUNTING}:colour=red", "could not be made: TypeError"),
        (f"{MODULE}:", "expected MODULE:ATTR"),
        ("../byob_bots:Counting", "expected MODULE:ATTR"),
        (BROKEN, "byob_missing_module"),
        ("autarky:3", "takes no parameters"),
        ("search:fast", "bad search parameter"),
        ("search:fgx", "bad search parameter"),
        ("search:fg-1", "bad search parameter 'fg-1'"),
        ("heuristic:fg", "bad heuristic parameter 'fg'"),
        ("heuristic:wary:mild", "bad heuristic parameter 'mild'"),
        ("heuristic:nocount", "bad heuristic parameter 'nocount'"),
        ("heuristic:hc-0.1", "bad heuristic parameter 'hc-0.1'"),
        ("search:hc", "bad search parameter 'hc'"),
        ("search:wry", "bad search parameter 'wry'"),
        ("search:end", "bad search parameter 'end'"),
        ("search:end-1", "search end must be a number of own turns"),
    ],
)
def test_a_bad_spec_is_one_error_line(bots: Path, spec: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        check_agent(spec)
    assert message in str(raised.value) and "\n" not in str(raised.value)
    for args in (
        ("simulate", "-n", "1", "-a", f"autarky,{spec}"),
        ("tournament", "-n", "1", "-a", f"autarky,{spec}", "--out", str(bots / "never")),
        ("play", "--bots", spec),
    ):
        code, out, err = run(*args)
        assert code == 2, (args, out, err)
        assert err.startswith("error:") and err.count("\n") == 1 and message in err, err
    assert not (bots / "never").exists()  # nothing was started


def test_bad_counters_are_refused(bots: Path) -> None:
    with pytest.raises(ConfigError, match="not a number"):
        agent_stats(make_agent(f"{MODULE}:BadStats"), "x")
    with pytest.raises(ConfigError, match="stats\\(\\) failed: ZeroDivisionError"):
        agent_stats(make_agent(f"{MODULE}:FailingStats"), "x")


# ---------------------------------------------------------------------------- workers


def test_tournament_with_spawned_workers_stores_and_sums_counters(bots: Path) -> None:
    """A real ``bohnanza tournament`` process, the bots on its PYTHONPATH, two workers
    started by ``spawn`` (which share nothing with the parent but the spec text)."""
    spec, trace = traced(bots, "spawn")
    out = bots / "spawned"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(bots), *filter(None, [os.environ.get("PYTHONPATH")])])
    proc = subprocess.Popen(
        [sys.executable, "-m", "bohnanza.cli", "tournament", "-a", f"{spec},autarky",
         "--players", "3", "--games", "4", "--batch", "1", "--workers", "2",
         "--start-method", "spawn", "--out", str(out), "--json", "--no-plots"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    summary = json.loads(stdout)
    assert summary["played"] == 4
    pids = {line.split()[0] for line in trace.read_text().splitlines()}
    assert str(proc.pid) not in pids and 1 <= len(pids) <= 2  # played in the workers
    db = sqlite3.connect(out / "games.sqlite")
    stored = db.execute(
        "SELECT seed, seat, agent, counter, value FROM agent_stats ORDER BY seed, seat, counter"
    ).fetchall()
    decisions = [r for r in stored if r[3] == "decisions"]
    seats = db.execute("SELECT seed, seats FROM games").fetchall()
    expected = sorted(
        (seed, k) for seed, text in seats for k, a in enumerate(json.loads(text)) if a == spec
    )
    assert [(r[0], r[1]) for r in decisions] == expected and len(expected) == 8
    assert all(r[2] == spec and r[4] > 0 for r in decisions)
    counters = summary["agents"][spec]["stats"]
    assert counters["decisions"]["total"] == sum(r[4] for r in decisions)
    assert counters["decisions"]["mean"] == pytest.approx(counters["decisions"]["total"] / 8)
    assert counters["bonus"] == {"total": 24, "mean": 3}
    # autarky has no counters of its own; the tournament times every seat's non-trivial
    # decisions for all agents alike (timed.*, docs/bots.md).
    plain = summary["agents"]["autarky"]["stats"]
    assert {k for k in plain if not k.startswith("timed.")} == set()
    assert plain["timed.decisions"]["total"] > plain["timed.trivial"]["total"] > 0
    report = (out / "report.md").read_text()
    assert "## Agent counters" in report and f"| {spec} | decisions |" in report


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_every_start_method_plays_external_agents(bots: Path, method: str) -> None:
    """The bots are on this process's ``sys.path`` only (not on PYTHONPATH)."""
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} on this platform")
    spec, trace = traced(bots, method)
    lineup = (spec, PUBLISHED, "autarky")
    outcome = run_tournament(
        TournamentSpec("classic", 3, lineup),
        2,
        bots / method,
        workers=2,
        batch=1,
        start_method=method,
    )
    assert outcome.played == 2
    assert str(os.getpid()) not in {line.split()[0] for line in trace.read_text().splitlines()}
    for name in (spec, PUBLISHED):
        assert outcome.summary["agents"][name]["stats"]["decisions"]["total"] > 0


def test_a_local_ray_cluster_plays_external_agents(bots: Path) -> None:
    """Ray workers do not inherit the driver's ``sys.path``: the tournament hands them
    the folders its specs were loaded from."""
    ray = pytest.importorskip("ray")
    spec, trace = traced(bots, "ray")
    lineup = (spec, PUBLISHED, "autarky")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        outcome = run_tournament(
            TournamentSpec("classic", 3, lineup), 2, bots / "ray", backend="ray", batch=1
        )
    finally:
        ray.shutdown()
    assert outcome.played == 2
    assert str(os.getpid()) not in {line.split()[0] for line in trace.read_text().splitlines()}
    for name in (spec, PUBLISHED):
        counters = outcome.summary["agents"][name]["stats"]
        assert counters["decisions"]["total"] > 0
    assert outcome.summary["agents"][PUBLISHED]["stats"]["bonus"]["total"] == 0
    assert outcome.summary["agents"][spec]["stats"]["bonus"]["total"] == 6


@pytest.mark.parametrize(
    "spec",
    [
        "heuristic:wv-1",
        "heuristic:wvx",
        "heuristic:fo1.5",
        "search:ep-0.1",
        "search:fo",
        "heuristic:sw1.5",
        "search:sw-0.1",
        "heuristic:sl-1",
        "search:slx",
    ],
)
def test_bad_trading_settings_are_refused(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"bad (heuristic|search) parameter"):
        parse_agent(spec)


def test_the_search_plays_its_own_seat_with_its_trading_settings() -> None:
    """``search`` (``wv3:ep0:fo0.6``): its own play and its seat in the roll-outs ask for
    three varieties, act on any gain and forget refusals sooner; the other roll-out seats
    play the plain heuristic. ``wv2:ep0.05:fo0.85`` trades as the heuristic does."""
    agent = make_agent("search", 5)
    assert make_agent("search:wv3:ep0:fo0.6", 5).heuristic.want_width == 3
    own = agent.heuristic
    assert (own.want_width, own.eps, own.forget) == (3, 0.0, 0.6)
    players = agent.rollout_players(4, 1, 10, 99)
    assert [(p.want_width, p.eps, p.forget) for p in players] == [
        (2, None, None),
        (3, 0.0, 0.6),
        (2, None, None),
        (2, None, None),
    ]
    assert make_agent("search:wide", 5).heuristic.want_width == 4
    old = make_agent("search:wv2:ep0.05:fo0.85", 5).heuristic
    assert (old.want_width, old.min_gain(), old.forget) == (2, EPS, FORGET)


def test_the_search_can_expect_less_of_a_swap_that_does_not_help_the_partner() -> None:
    """``search:sw0.05:sl1``: its own play and its seat in the roll-outs think a partner
    takes an offer that asks for cards back 5% of the time when the partner gains
    nothing, and 100% more likely per coin it gains; the other roll-out seats, the plain
    heuristic and the default search keep the heuristic's guess (20%, 45% per coin)."""
    from bohnanza.agents.heuristic import ACCEPT_SLOPE, ACCEPT_SWAP

    agent = make_agent("search:sw0.05:sl1", 5)
    own = agent.heuristic
    assert (own.accept_swap, own.accept_slope) == (0.05, 1.0)
    players = agent.rollout_players(4, 2, 10, 99)
    assert [(p.accept_swap, p.accept_slope) for p in players] == [
        (None, None),
        (None, None),
        (0.05, 1.0),
        (None, None),
    ]
    plain = make_agent("search", 5).heuristic
    assert (plain.accept_swap, plain.accept_slope) == (None, None)
    assert (ACCEPT_SWAP, ACCEPT_SLOPE) == (0.2, 0.45)
    assert plain.acceptance() == (ACCEPT_SWAP, ACCEPT_SLOPE)
    assert own.acceptance() == (0.05, 1.0)
