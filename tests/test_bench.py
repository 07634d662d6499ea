"""``bohnanza bench``: the bare loop plays the engine's games exactly, the command's JSON,
and the writer of its figures into docs/performance.md (the engine/bare-loop ratio
printed every time)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnanza import compiled_core
from bohnanza.agents import make_agent
from bohnanza.bench import (
    README_END,
    README_START,
    README_START_COMPILED,
    _PlainDeckRandom,
    bare_autarky_game,
    bare_game,
    bare_rules,
    engine_game,
    readme_block,
    readme_start,
    replay_shuffles,
    shuffle_plan,
    write_readme,
)
from bohnanza.cli import main
from bohnanza.driver import play
from bohnanza.errors import ConfigError
from bohnanza.game import Game
from bohnanza.shuffle import DeckRandom
from scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
#: Where the figures of both builds live (the README links to it).
PERFORMANCE = ROOT / "docs" / "performance.md"


@pytest.mark.parametrize("seed", [1, 2, 3, 7, 42, 1009, 2**70 + 5])
def test_bare_loop_plays_the_engines_4_player_classic_games(seed: int) -> None:
    """Same deck, same choices, same result: scores, winners, turns and the number of
    actions (plants, harvests, stops, ends of trading) of the driver with autarky bots."""
    assert bare_autarky_game(seed) == engine_game(seed)


@pytest.mark.parametrize(
    ("rules", "players"),
    [("classic", 3), ("classic", 5), ("first-edition", 4), ("fasolki", 3), ("fasolki", 5)],
)
def test_bare_loop_follows_each_base_rule_sets_numbers(rules: str, players: int) -> None:
    """Hand sizes, phase-4 draws, run-outs to the end (R-END-1), a third field from the
    start and first-edition's immediate end (R-END-2) come from the config."""
    for seed in (1, 2, 3):
        game = Game.new(rules, players, seed=seed)
        log = play(game, [make_agent("autarky", k) for k in range(players)])
        assert game.scores is not None and game.winners is not None
        expected = (game.scores, game.winners, game.turn, len(log.actions))
        assert tuple(bare_autarky_game(seed, players, rules)) == expected


def test_bare_loop_games_differ_by_seed_and_harvest_for_coins() -> None:
    """Guards against a loop that returns a constant: seeds give different games, and
    every game pays coins."""
    results = {bare_autarky_game(s) for s in range(1, 6)}
    assert len(results) == 5
    assert all(sum(r.scores) > 0 and r.turns > 10 for r in results)


def test_bare_loop_refuses_a_module() -> None:
    with pytest.raises(ConfigError, match="base rule set"):
        bare_autarky_game(1, 4, "fasolki+duel")


def test_bench_json_reports_every_figure() -> None:
    result = CliRunner().invoke(main, ["bench", "--games", "5", "--rounds", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["autarky"]["games"] == data["bare"]["games"] == 10
    assert data["random"]["games"] == 2
    assert len(data["ratio_rounds"]) == 2
    # The engine does more work than the bare loop of the same games.
    assert 0 < data["ratio"] < 1
    assert data["target_ratio"] == 0.38
    assert data["compiled"] is compiled_core()
    assert data["clone_us"] > 0 and data["clone_legacy_us"] > 0
    assert data["rl"]["steps"] == 100 and data["rl"]["steps_per_second"] > 0
    # The shuffles, timed apart, are a part of the bare loop's time; without them on
    # either side the engine keeps a smaller share of the bare loop's speed.
    share = data["shuffle"]["bare_share"]
    assert 0 < share < 1 and data["shuffle"]["engine_seconds"] > 0
    assert 0 < data["ratio_without_shuffle"] < data["ratio"]
    assert "baseline" not in data  # no older engine given, no gain claimed


def test_the_bare_loop_reports_what_it_shuffles_and_the_replay_deals_the_same() -> None:
    """The deal is the whole deck; every later shuffle is a discard pile, smaller. The
    replayed shuffles with the engine's generator and with the plain one give the same
    orders (the same stream), so timing them apart times the same work."""
    config = bare_rules()
    sizes: list[int] = []
    result = bare_game(3, config, _PlainDeckRandom, sizes)
    assert result == bare_autarky_game(3)  # recording changes nothing
    assert sizes[0] == len(config.card_variety) and len(sizes) >= 2
    assert all(0 < n < sizes[0] for n in sizes[1:])
    plan_a, plan_b = shuffle_plan(range(1, 4)), shuffle_plan(range(1, 4))
    assert replay_shuffles(plan_a, _PlainDeckRandom) == sum(len(x) for _, x in plan_a)
    replay_shuffles(plan_b, DeckRandom)
    assert plan_a == plan_b and plan_a[0][1][0] != sorted(plan_a[0][1][0])


def test_bench_measures_an_older_engine_beside_it() -> None:
    """``--baseline`` times the given tree's games in child processes, in the same rounds;
    this very tree against itself gains about nothing, and the figure is measured."""
    result = CliRunner().invoke(
        main, ["bench", "-n", "3", "--rounds", "2", "--no-rl", "--json", "--baseline", str(ROOT)]
    )
    assert result.exit_code == 0, result.output
    old = json.loads(result.stdout)["baseline"]
    assert old["src"] == str(ROOT / "src") and old["games"] == 6
    assert old["seconds"] > 0 and 0.2 < old["gain"] < 5
    text = CliRunner().invoke(
        main, ["bench", "-n", "2", "--rounds", "1", "--no-rl", "--baseline", str(ROOT / "src")]
    )
    assert "engine new/old" in text.stdout and "older engine" in text.stdout


def test_bench_refuses_a_baseline_without_an_engine(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["bench", "-n", "2", "--baseline", str(tmp_path)])
    assert result.exit_code != 0
    assert "no bohnanza package there" in result.stderr
    assert result.stdout == ""


def test_bench_prints_the_ratio() -> None:
    result = CliRunner().invoke(main, ["bench", "--games", "2", "--rounds", "1", "--no-rl"])
    assert result.exit_code == 0, result.output
    assert "engine/bare" in result.output and "issue 14's 0.38" in result.output
    assert "without shuffling" in result.output
    # No gain over an older engine unless one was measured (no stored constant).
    assert "before issue 14" not in result.output and "new/old" not in result.output
    # Which build of the engine ran: it changes every figure.
    build = "compiled with mypyc" if compiled_core() else "engine pure Python"
    assert build in result.output.splitlines()[0]
    assert "RL env steps     not measured (--no-rl)" in result.output


def _result() -> dict[str, object]:
    return {
        "rounds": 5,
        "python": "3.11.7",
        "autarky": {"games_per_second": 400.0, "actions_per_second": 116000.0},
        "bare": {"games_per_second": 3000.0},
        "ratio": 0.133,
        "ratio_without_shuffle": 0.09,
        "shuffle": {"bare_share": 0.3},
        "random": {"games_per_second": 21.5, "actions_per_second": 33000.0},
        "clone_us": 3.9,
        "clone_legacy_us": 19.2,
        "rl": {"steps": 5000, "steps_per_second": 4800.0},
    }


def test_write_readme_replaces_only_the_bench_block(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(PERFORMANCE.read_text(encoding="utf-8"), encoding="utf-8")
    before = readme.read_text(encoding="utf-8")
    block = readme_block(_result(), "bohnanza bench --games 100 --rounds 5")
    write_readme(readme, block)
    after = readme.read_text(encoding="utf-8")
    head, rest = before.split(README_START, 1)
    tail = rest.split(README_END, 1)[1]
    assert after == f"{head}{README_START}\n{block}{README_END}{tail}"
    assert "| **engine / bare loop** | **0.133×** |" in after
    assert "each without its shuffling (timed apart) | 0.090× (shuffling: 30% of" in after
    assert "| `Game.clone()` of a mid-game state | 3.9 µs |" in after
    assert "4,800 steps/s" in after
    # The web server's load paragraph, after the blocks, stays.
    assert "bohnanza load --tables 200" in tail
    # Writing again with the same figures changes nothing.
    write_readme(readme, block)
    assert readme.read_text(encoding="utf-8") == after


def test_write_readme_refuses_a_file_without_markers(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no block\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no <!-- bench -->"):
        write_readme(readme, "x\n")
    assert readme.read_text(encoding="utf-8") == "# no block\n"


@pytest.mark.parametrize("option", ["--write-doc", "--write-readme"])
def test_bench_write_doc_option(tmp_path: Path, option: str) -> None:
    """``--write-doc``, and ``--write-readme``, its name from when the figures lived in the
    README, kept working."""
    readme = tmp_path / "README.md"
    start = readme_start(compiled_core())  # each build writes its own block
    readme.write_text(f"intro\n{start}\nstale figures\n{README_END}\nafter\n", encoding="utf-8")
    result = CliRunner().invoke(
        main,
        ["bench", "-n", "2", "--rounds", "1", "--no-rl", option, str(readme)],
    )
    assert result.exit_code == 0, result.output
    text = readme.read_text(encoding="utf-8")
    build = "compiled with mypyc" if compiled_core() else "pure Python"
    assert text.startswith(
        f"intro\n{start}\nEngine {build}. Measured with `bohnanza bench --games 2"
    )
    assert text.endswith(f"{README_END}\nafter\n") and "stale" not in text


def test_compare_engines_runs_both_trees_and_finds_the_same_games() -> None:
    """``benchmarks/compare_engines.py`` against this very tree: the same games in both
    processes, and a ratio per measurement."""
    module = load_script("benchmarks/compare_engines.py")
    result = module.compare(str(ROOT), str(ROOT / "src"), 1, 2, False, verbose=False)
    assert result["same_games"] is True
    assert result["baseline"] == result["candidate"] == str(ROOT / "src")
    assert set(result["measurements"]) == {"autarky", "random", "clone", "clone_legacy"}
    assert all(m["ratio"] > 0 for m in result["measurements"].values())


def test_compare_engines_works_against_a_tree_from_before_the_sha256_generator(
    tmp_path: Path,
) -> None:
    """The first release (no ``bohnanza.shuffle``, no generators, no RL environment): the
    comparison runs, on what both trees can do, with this checkout's yardstick."""
    if shutil.which("git") is None:
        pytest.skip("git is needed to unpack the first release")
    old = tmp_path / "old"
    old.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "82f05f2", "src"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        pytest.skip("this checkout has no history back to the first release")
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
    module = load_script("benchmarks/compare_engines.py")
    result = module.compare(str(old), str(ROOT / "src"), 1, 2, True, verbose=False)
    assert set(result["measurements"]) == {"autarky", "random", "clone"}
    assert result["same_deals"] is False and result["same_games"] is False
    for tree in ("old", "new"):
        assert 0 < result["engine_bare"][tree] < 1
        assert 0 < result["engine_bare_without_shuffle"][tree] < result["engine_bare"][tree]


def test_each_build_writes_its_own_readme_block(tmp_path: Path) -> None:
    """The README keeps the figures of both builds: writing one leaves the other."""
    readme = tmp_path / "README.md"
    readme.write_text(
        f"{README_START}\npure\n{README_END}\nmiddle\n{README_START_COMPILED}\ncompiled\n"
        f"{README_END}\n",
        encoding="utf-8",
    )
    write_readme(readme, "new compiled\n", compiled=True)
    assert readme.read_text(encoding="utf-8") == (
        f"{README_START}\npure\n{README_END}\nmiddle\n{README_START_COMPILED}\nnew compiled\n"
        f"{README_END}\n"
    )
    write_readme(readme, "new pure\n")
    text = readme.read_text(encoding="utf-8")
    assert text.startswith(f"{README_START}\nnew pure\n{README_END}\nmiddle\n")
    assert "new compiled" in text
    # The performance page has both blocks.
    real = PERFORMANCE.read_text(encoding="utf-8")
    assert README_START in real and README_START_COMPILED in real
