"""The ``bohnanza`` command line: help, rules, simulate, replay, and clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnanza.cli import main
from bohnanza.records import load, replay

RANGES = {"classic": (3, 7), "first-edition": (3, 5), "fasolki": (3, 5)}
BASE_COUNTS = [(rules, n) for rules, (lo, hi) in RANGES.items() for n in range(lo, hi + 1)]
TIMING = ("seconds", "games_per_second", "actions_per_second")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The real program in a child process: real exit codes and streams."""
    return subprocess.run(
        [sys.executable, "-m", "bohnanza.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_help_lists_every_command() -> None:
    code, out, _ = run("--help")
    assert code == 0
    for name in main.commands:
        assert name in out


@pytest.mark.parametrize("command", ["rules", "simulate", "replay", "play", "bench"])
def test_every_subcommand_has_help(command: str) -> None:
    assert command in main.commands
    code, out, err = run(command, "--help")
    assert code == 0, err
    assert out.startswith("Usage:") and "--help" in out


def test_rules_json_lists_rule_sets_and_player_counts() -> None:
    code, out, _ = run("rules", "--json")
    assert code == 0
    table = {r["rules"]: (r["min_players"], r["max_players"]) for r in json.loads(out)["rulesets"]}
    for rules, span in RANGES.items():
        assert table[rules] == span
    modules = {k: v for k, v in table.items() if k.startswith("fasolki+")}
    assert set(modules) == {
        "fasolki+new-varieties",
        "fasolki+fasolkopajaki",
        "fasolki+fasolufka",
        "fasolki+duel",
    }
    assert modules["fasolki+duel"] == (2, 2)
    assert modules["fasolki+new-varieties"] == (3, 7)
    # The plain listing says the same.
    code, text, _ = run("rules")
    assert code == 0 and all(name in text for name in table)


@pytest.mark.parametrize(("rules", "players"), BASE_COUNTS)
def test_simulate_json_fields(rules: str, players: int) -> None:
    code, out, err = run(
        "simulate",
        "-r",
        rules,
        "-p",
        str(players),
        "-n",
        "2",
        "-a",
        "autarky,random",
        "--seed",
        "7",
        "--json",
    )
    assert code == 0, err
    s = json.loads(out)
    assert s["games"] == 2 and s["rules"] == rules and s["players"] == players and s["seed"] == 7
    assert s["mean_turns"] > 0
    assert len(s["seat_wins"]) == players and sum(s["seat_wins"]) == pytest.approx(2, abs=0.01)
    assert len(s["seat_mean_coins"]) == players and all(c >= 0 for c in s["seat_mean_coins"])
    assert s["games_per_second"] is None or s["games_per_second"] > 0


def test_simulate_text_summary() -> None:
    code, out, _ = run("simulate", "-n", "2", "-a", "autarky")
    assert code == 0
    assert "2 games of classic with 4 players" in out and "seat 3" in out


def test_workers_do_not_change_the_summary() -> None:
    args = ("simulate", "-p", "3", "-n", "6", "--seed", "20", "--json")
    code1, out1, _ = run(*args, "--workers", "1")
    code2, out2, _ = run(*args, "--workers", "2")
    assert code1 == code2 == 0
    one, two = json.loads(out1), json.loads(out2)
    for key in TIMING:
        one.pop(key), two.pop(key)
    assert one == two


def test_records_folder_gets_one_replayable_file_per_game(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    code, out, err = run("simulate", "-n", "3", "--seed", "5", "--records", str(folder), "--json")
    assert code == 0, err
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == ["game-5.json", "game-6.json", "game-7.json"]
    for f in files:
        record = load(f)
        assert replay(record).result() == record["result"]
    # replay --json prints the record's result.
    record = load(files[0])
    code, out, err = run("replay", str(files[0]), "--json")
    assert code == 0, err
    shown = json.loads(out)
    assert shown["over"] is True
    assert {k: shown[k] for k in ("scores", "winners", "turns")} == record["result"]
    code, out, _ = run("replay", str(files[0]))
    assert code == 0 and f"scores {record['result']['scores']}" in out
    code, out, _ = run("replay", str(files[0]), "--log")
    assert code == 0 and "harvest" in out


BAD = [
    (("simulate", "-r", "monopoly"), "unknown rule set 'monopoly'"),
    (("simulate", "-r", "classic", "-p", "9"), "classic is for 3–7 players, not 9"),
    (("simulate", "-r", "fasolki+duel", "-p", "3"), "2–2 players"),
    (("simulate", "-a", "genius"), "unknown agent 'genius'"),
    (("simulate", "--option", "remove"), "--option takes KEY=VALUE"),
    (("simulate", "--option", "colour=red"), "unknown option(s) colour"),
    (("simulate", "-r", "fasolki+new-varieties", "-p", "4"), "needs option remove=glutton|farmer"),
    (("simulate", "-n", "0"), "--games must be at least 1"),
    (("simulate", "-w", "0"), "--workers must be at least 1"),
    (("replay", "/no/such/record.json"), "no such record file"),
    (("play", "-r", "monopoly"), "unknown rule set"),
    (("play", "-p", "2"), "classic is for 3–7 players"),
    (("play", "--bots", "genius"), "unknown agent 'genius'"),
    (("play", "--seat", "4"), "--seat must be between 0 and 3"),
    (("play", "--option", "x"), "--option takes KEY=VALUE"),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_bad_arguments_give_one_error_line(args: tuple[str, ...], message: str) -> None:
    code, out, err = run(*args)
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error:") and message in lines[0]
    assert "Traceback" not in out + err


def test_broken_record_file_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    code, _, err = run("replay", str(bad))
    assert code != 0 and err.startswith("error: cannot read record")
    bad.write_text(json.dumps({"format": "something else"}), encoding="utf-8")
    code, _, err = run("replay", str(bad))
    assert code != 0 and err.startswith("error: not a game record")


@pytest.mark.parametrize(
    "args",
    [
        ("simulate", "-r", "nope"),
        ("simulate", "-p", "11"),
        ("simulate", "-a", "nobody"),
        ("replay", "missing.json"),
        ("simulate", "--option", "broken"),
    ],
)
def test_real_process_exit_code_and_stderr(args: tuple[str, ...], tmp_path: Path) -> None:
    proc = cli(*args)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_real_process_success() -> None:
    proc = cli("simulate", "-n", "1", "-a", "autarky", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["games"] == 1
    proc = cli("--version")
    assert proc.returncode == 0 and "0.1.0" in proc.stdout
    script = Path(sys.executable).parent / "bohnanza"
    if script.exists():  # the installed entry point
        done = subprocess.run([str(script), "rules"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "fasolki+duel" in done.stdout
        done = subprocess.run(
            [str(script), "play", "-p", "9"], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 2 and done.stderr.startswith("error: classic is for 3–7")
