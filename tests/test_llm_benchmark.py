"""Issue 52, items 6–8: a language-model benchmark measures what it says. The recipe is
one model against three heuristic bots (docs/llm.md, run here against the fake server:
no real model is reachable from the machines these tests run on), a short agent list
repeated over the seats is warned about, intervals count games rather than seats, the
heuristic's decisions are reported apart from the model's, and seats are counted from 1
everywhere people read them."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from bohnanza.cli import main
from bohnanza.tournament.stats import summarise, wilson
from llm_server import Reply, chat_server


@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_a_short_agent_list_repeated_over_the_seats_is_warned_about(
    command: str, tmp_path: object
) -> None:
    """``--agents llm:MODEL@URL,heuristic`` for 4 players seats the model twice (seats 1
    and 3): nothing said so, and the docs' recipe did exactly that."""

    def run(agents: str, out: str) -> Result:
        args = [command, "-a", agents, "-p", "4", "-n", "1", "--json"]
        if command == "tournament":
            args += ["-w", "1", "--no-plots", "--out", f"{tmp_path}/{out}"]
        return CliRunner().invoke(main, args)

    result = run("random,heuristic", "short")
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stderr.splitlines() if "agents for" in x]
    assert line.startswith("warning: 2 agents for 4 seats: the list is repeated")
    assert "1: random, 2: heuristic, 3: random, 4: heuristic" in line
    assert "llm:MODEL@URL,heuristic,heuristic,heuristic" in line
    for agents in ("random,heuristic,heuristic,heuristic", "random"):
        full = run(agents, agents.replace(",", "-"))
        assert full.exit_code == 0 and "agents for" not in full.stderr


ROOT = Path(__file__).resolve().parent.parent


def _benchmark() -> Any:
    """examples/llm_benchmark.py as a module (its ``report``)."""
    path = ROOT / "examples" / "llm_benchmark.py"
    spec = importlib.util.spec_from_file_location("llm_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _first_listed(messages: list[dict[str, str]]) -> tuple[str, float]:
    """A dull but valid model: the first legal move the question lists."""
    section = messages[1]["content"].split("Legal moves now:\n")[1].split("\n\n")[0]
    moves = [x for x in section.split("\n") if not x.startswith((" ", "pass"))]
    moves = [x for x in moves if not x[0].isdigit()]
    return (moves[0] if moves else "pass"), 0.0


def _recipe() -> list[list[str]]:
    """The commands of the docs' benchmark recipe (docs/llm.md, its first sh block)."""
    text = (ROOT / "docs" / "llm.md").read_text(encoding="utf-8")
    section = text.split("\n## Benchmark recipe\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line) for line in block.replace("\\\n", " ").strip().splitlines()]


def test_the_docs_recipe_puts_one_model_against_three_heuristics(tmp_path: Path) -> None:
    """The recipe as written, run against the fake server (fewer games): one model seat
    in every game, nothing repeated over the seats, and ``report`` counts games."""
    simulate, report = _recipe()
    assert simulate[:2] == ["bohnanza", "simulate"]
    assert report[:3] == ["python", "examples/llm_benchmark.py", "report"]
    args = simulate[2:]

    def value(option: str) -> str:
        return args[args.index(option) + 1]

    assert value("--agents") == "llm:MODEL@URL,heuristic,heuristic,heuristic"
    assert value("--players") == "4" and report[3] == value("--records")
    with chat_server(_first_listed) as server:
        args[args.index("--agents") + 1] = value("--agents").replace(
            "MODEL@URL", f"dull@{server.url}"
        )
        args[args.index("--games") + 1] = "2"
        args[args.index("--workers") + 1] = "1"
        args[args.index("--records") + 1] = str(tmp_path / "runs")
        result = CliRunner().invoke(main, ["simulate", *args])
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    paths = sorted((tmp_path / "runs").glob("*.json"))
    assert len(paths) == 2
    for path in paths:
        seats = json.loads(path.read_text())["seats"]
        assert sum("llm" in s for s in seats) == 1
    out = _benchmark().report(str(tmp_path / "runs"))
    assert out["games"] == 2 and out["seats_per_game"] == 1
    assert out["fallback_share"] == 0.0 and out["ranked"] is True
    assert out["leaderboard"].startswith("dull: win rate ")
    assert out["leaderboard"].endswith("fallback share 0.0%")


def _record(model_seats: list[int], winners: list[int], fallbacks: int = 0) -> dict[str, Any]:
    """A game record as ``report`` reads it: the model's seats carry ``llm`` counters."""
    llm = {
        "asked": 100, "calls": 100, "invalid": 0, "fallbacks": fallbacks, "skipped": 0,
        "tokens": 1000, "cost": 0.0, "model_decisions": 100 - fallbacks,
        "fallback_decisions": fallbacks,
    }  # fmt: skip
    seats = [{"agent": "heuristic"} for _ in range(4)]
    for k in model_seats:
        seats[k] = {"agent": "llm:m@http://127.0.0.1:9/v1", "llm": dict(llm)}
    return {"seats": seats, "result": {"winners": winners}}


def test_report_intervals_count_games_not_seats(tmp_path: Path) -> None:
    """The old recipe sat the model at seats 1 and 3; ``report`` counted each seat as a
    game, so 40 games made an interval of 80 "independent" ones. Seats of one game are
    not independent: the interval is over games."""
    for game in range(40):
        record = _record([0, 2], [0] if game < 10 else [1])
        (tmp_path / f"game-{game}.json").write_text(json.dumps(record))
    out = _benchmark().report(str(tmp_path))
    lo, hi = wilson(5, 40)  # per game: half a win (1 of its 2 seats) in 10 games
    assert out["games"] == 40 and out["seats_per_game"] == 2
    assert out["win_rate"] == 0.125
    assert out["win_rate_95"] == [round(lo, 3), round(hi, 3)]
    assert "2 seats per game" in out["note"]


def test_tournament_intervals_count_games_not_seats() -> None:
    """The same in a tournament's summary: an agent holding two seats of every game gets
    an interval over its games, its win rate per seat unchanged."""
    rows = [
        {
            "seed": g + 1,
            "game": g,
            "rules": "classic",
            "players": 4,
            "options": {},
            "seats": ["a", "b", "a", "b"],
            "agents": {"a": [0, 2], "b": [1, 3]},
            "scores": [5, 3, 1, 1] if g < 6 else [1, 5, 1, 1],
            "winners": [0] if g < 6 else [1],
            "hand_sizes": [3, 3, 3, 3],
            "turns": 30,
            "actions": 200,
            "seconds": 0.1,
            "decision_ms": [0.1] * 4,
        }
        for g in range(30)
    ]
    a = summarise(rows)["agents"]["a"]
    lo, hi = wilson(3, 30)
    assert a["win_rate"] == 0.1 and a["win_rate_ci95"] == [round(lo, 4), round(hi, 4)]


def test_the_heuristics_decisions_are_reported_apart_and_not_ranked(tmp_path: Path) -> None:
    """``--llm-fallback heuristic`` with a dead endpoint: the heuristic took nearly every
    decision, yet the seat's coins and wins were shown as the model's. Now the model's
    and the heuristic's decisions are counted apart, every result says its fallback
    share, and a leaderboard line refuses a run above the threshold."""
    with chat_server(lambda m: Reply(status=503)) as server:
        spec = f"llm:m@{server.url}:backoff=0.001:give_up=2:http_retries=0"
        result = CliRunner().invoke(
            main,
            [
                "tournament", "-a", f"{spec},heuristic,heuristic", "-p", "3", "-n", "1",
                "-w", "1", "--no-plots", "--out", str(tmp_path / "t"),
                "--llm-fallback", "heuristic", "--records", str(tmp_path / "r"),
            ],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stdout.splitlines() if x.strip().startswith(spec)]
    assert f"{spec}: not ranked: the heuristic took 100.0% of its decisions" in line
    assert "at most 5% allowed" in line
    assert "0 decisions by the model" in result.stdout
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    stats = summary["agents"][spec]["stats"]
    assert stats["model_decisions"]["total"] == 0 and stats["fallback_decisions"]["total"] > 20
    markdown = (tmp_path / "t" / "report.md").read_text()
    assert f"- {spec}: not ranked: the heuristic took 100.0%" in markdown
    seats = markdown.split("## Seats")[1].split("## Games")[0]
    assert [r.split("|")[1].strip() for r in seats.splitlines() if r.startswith("| ")][1:] == [
        "1",
        "2",
        "3",
    ]  # counted from 1, as the prompts count
    out = _benchmark().report(str(tmp_path / "r"))
    assert out["ranked"] is False and out["fallback_share"] == 1.0
    assert out["model_decisions"] == 0 and out["fallback_decisions"] > 20
    assert "not ranked" in out["leaderboard"]
    allowed = _benchmark().report(str(tmp_path / "r"), max_fallback_share=1.0)
    assert allowed["ranked"] is True


def test_one_seat_number_for_people(tmp_path: Path) -> None:
    """Seats were counted from 0 in errors and summaries, from 1 in prompts: the model at
    the second seat reads "You are seat 2" and the error, the warning and the summary
    name seat 2 as well."""
    with chat_server(lambda m: Reply(status=500)) as server:
        spec = f"llm:m@{server.url}:backoff=0.001:give_up=1:http_retries=0"
        stopped = CliRunner().invoke(
            main, ["simulate", "-p", "3", "-n", "1", "-a", f"heuristic,{spec},heuristic"]
        )
        prompt = server.requests[0]["body"]["messages"][1]["content"]
        went_on = CliRunner().invoke(
            main,
            [
                "simulate",
                "-p",
                "3",
                "-n",
                "1",
                "-a",
                f"heuristic,{spec},heuristic",
                "--llm-fallback",
                "heuristic",
            ],
        )
    found = re.search(r"You are seat (\d+)\.", prompt)
    assert found is not None and found.group(1) == "2"
    assert stopped.exit_code == 2
    assert stopped.stderr.startswith("error: game seed 1: llm seat 2 ")
    assert went_on.exit_code == 0, went_on.output
    assert "warning: game seed 1: llm seat 2 " in went_on.stderr
    lines = went_on.stdout.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("  seat 2 llm:m@"))
    assert "decisions by the model" in lines[at + 1]
