"""The compiled core (docs/design.md "A compiled core"): a wheel is compiled where a C
compiler works and falls back to pure Python, in one line, where none does; the build
backend asks for mypyc only when compiling, keeps editable installs pure and refuses a
compiled one, compiles the modules pyproject.toml lists; the long-running commands say
once when they run on the pure core; and a test run that is meant to test the compiled
build (CI sets ``BOHNANZA_EXPECT_COMPILED=1``) really imports it."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import bohnanza
from scripts import load_script

ROOT = Path(__file__).resolve().parent.parent


def _backend() -> ModuleType:
    return load_script("buildtools/bohnanza_build.py")


def test_the_build_under_test_is_the_one_meant() -> None:
    expected = os.environ.get("BOHNANZA_EXPECT_COMPILED")
    if expected is None:
        pytest.skip("BOHNANZA_EXPECT_COMPILED not set: either build may run")
    assert bohnanza.compiled_core() is (expected == "1"), bohnanza.__file__


def test_compiled_core_tells_which_build_runs() -> None:
    from bohnanza import game

    on_disk = Path(game.__file__ or "")
    assert bohnanza.compiled_core() is (on_disk.suffix == ".so" or on_disk.suffix == ".pyd")
    # The engine's own switch (bare instances in clone()) agrees: shuffle.py is compiled
    # with game.py, or neither is.
    from bohnanza import shuffle

    assert shuffle.COMPILED is bohnanza.compiled_core()


def test_mypyc_is_asked_for_only_when_compiling(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    backend = _backend()
    # setuptools' own hook writes *.egg-info into the current folder: a copy's, not the
    # checkout's (a build running there would pack it).
    monkeypatch.chdir(_project_copy(tmp_path))
    monkeypatch.setenv("BOHNANZA_COMPILE", "1")
    needs = backend.get_requires_for_build_wheel()
    assert any(n.startswith("mypy>=") for n in needs)
    # mypyc type-checks the RL modules it compiles against their libraries.
    assert any(n.startswith("numpy") for n in needs)
    monkeypatch.setenv("BOHNANZA_COMPILE", "0")
    assert backend.compile_requested() is False
    assert not any(n.startswith("mypy") for n in backend.get_requires_for_build_wheel())
    monkeypatch.delenv("BOHNANZA_COMPILE")
    # Unset: setup.py run by hand stays pure; the backend decides per build (below).
    assert backend.compile_mode() == "auto"
    assert backend.compile_requested() is False
    # Unset and no working compiler: nothing to compile with, so no mypyc to fetch.
    monkeypatch.setenv("CC", "false")
    assert backend.compiler_problem() is not None
    assert not any(n.startswith("mypy") for n in backend.get_requires_for_build_wheel())


def test_the_compiler_probe_names_what_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = _backend()
    monkeypatch.setenv("CC", "false")
    assert backend.compiler_problem() == "the C compiler 'false' cannot build Python extensions"
    monkeypatch.setenv("CC", "/nonexistent/bin/cc")
    assert backend.compiler_problem() == "the C compiler '/nonexistent/bin/cc' is missing"
    monkeypatch.delenv("CC")
    if shutil.which(os.environ.get("CC", "cc")) is None:
        pytest.skip("no C compiler on this machine")
    assert backend.compiler_problem() is None


def _project_copy(tmp_path: Path) -> Path:
    """What a build reads, copied: a build writes build/ and *.egg-info/ into its tree."""
    tree = tmp_path / "project"
    tree.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(
        ROOT / "buildtools", tree / "buildtools", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(
        ROOT / "src",
        tree / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.egg-info"),
    )
    return tree


#: The builds below test the build backend from the sources, whichever build of the
#: engine runs the tests: once is enough (CI's compiled run, near its time budget, skips
#: them).
_ONCE = pytest.mark.skipif(
    bohnanza.compiled_core(), reason="the build backend is tested in the pure run"
)


def _pip_ok(proc: subprocess.CompletedProcess[str]) -> None:
    """Fail with pip's output, or skip where pip cannot reach a package index (the
    builds fetch setuptools into their own environment, as users' builds do)."""
    if proc.returncode != 0:
        out = proc.stdout + proc.stderr
        if "No matching distribution found for setuptools" in out:
            pytest.skip("no package index reachable for the build's setuptools")
        pytest.fail(out[-3000:])


def _wheel_files(directory: Path) -> tuple[Path, list[str]]:
    (wheel,) = directory.glob("bohnanza-*.whl")
    with zipfile.ZipFile(wheel) as z:
        return wheel, z.namelist()


@pytest.mark.long
@_ONCE
def test_without_a_compiler_a_wheel_falls_back_to_pure_python_in_one_line(tmp_path: Path) -> None:
    """The real build (pip, this backend, setuptools) with a compiler that always fails:
    a pure wheel, and one line that says why and what it costs."""
    tree = _project_copy(tmp_path)
    out = tmp_path / "wheels"
    env = {k: v for k, v in os.environ.items() if k != "BOHNANZA_COMPILE"}
    env["CC"] = "false"
    # pip's own build environment (the usual path; it fetches setuptools), which must then
    # not ask for mypyc: no compiler, nothing to compile with.
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w", str(out), str(tree)],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    _pip_ok(proc)
    said = [line for line in (proc.stdout + proc.stderr).splitlines() if "bohnanza build:" in line]
    assert len(said) == 1, said
    assert "the C compiler 'false' cannot build Python extensions" in said[0]
    assert "building pure Python" in said[0]
    wheel, files = _wheel_files(out)
    assert wheel.name.endswith("-py3-none-any.whl")
    assert "bohnanza/game.py" in files
    assert not [f for f in files if f.endswith((".so", ".pyd"))]


@pytest.mark.long
@_ONCE
def test_an_editable_install_stays_pure_where_a_compiler_works(tmp_path: Path) -> None:
    """``pip install -e`` with no switch set and a working compiler: nothing is compiled
    (a compiled module would shadow the sources it was built from), and nothing is said."""
    if _backend().compiler_problem() is not None:
        pytest.skip("no working C compiler: the automatic choice would be pure anyway")
    tree = _project_copy(tmp_path)
    # A throwaway environment: pip installing "bohnanza" anywhere in the environment that
    # runs the tests (even with --prefix) would first uninstall the one under test.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    env = {k: v for k, v in os.environ.items() if k not in ("BOHNANZA_COMPILE", "PYTHONPATH")}
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "-v", "-e", str(tree)],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    _pip_ok(proc)
    assert "bohnanza build:" not in proc.stdout + proc.stderr  # never tried, nothing to say
    assert "mypyc" not in proc.stdout  # and not fetched for the build
    built = [p for d in (venv, tree) for p in d.rglob("*") if p.suffix in (".so", ".pyd")]
    assert not [p for p in built if "bohnanza" in p.name or "mypyc" in p.name]
    where = subprocess.run(
        [str(python), "-c", "import bohnanza; print(bohnanza.__file__, bohnanza.compiled_core())"],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert where.stdout.split() == [str(tree / "src" / "bohnanza" / "__init__.py"), "False"], (
        where.stdout + where.stderr
    )


def test_the_pure_core_is_announced_once_and_the_compiled_one_not(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``simulate`` says on stderr, once per process, that it runs the pure core and how
    to get the compiled one; stdout (the JSON summary here) is untouched."""
    from click.testing import CliRunner

    from bohnanza.cli import main

    monkeypatch.setattr(bohnanza, "_notice_given", False)
    expected = 0 if bohnanza.compiled_core() else 1
    for _ in range(2):
        result = CliRunner().invoke(main, ["simulate", "-a", "autarky", "-n", "2", "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["games"] == 2
        assert result.stderr.count("pure-Python core") == expected
        if expected:
            assert "pip install ." in result.stderr and "not -e" in result.stderr
        expected = 0  # the second run in the same process stays quiet
    # The tournament says it too (once per process: reset, as in a fresh process).
    from bohnanza.tournament.command import tournament

    monkeypatch.setattr(bohnanza, "_notice_given", False)
    out = str(tmp_path / "t")
    result = CliRunner().invoke(
        tournament, ["-a", "autarky", "-n", "1", "-w", "1", "--out", out, "--no-plots", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 1
    assert result.stderr.count("pure-Python core") == (0 if bohnanza.compiled_core() else 1)


def test_a_malformed_switch_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = _backend()
    monkeypatch.setenv("BOHNANZA_COMPILE", "fast")
    with pytest.raises(SystemExit, match="must be 1 or 0"):
        backend.compile_requested()


def test_an_editable_compiled_install_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    backend = _backend()
    monkeypatch.setenv("BOHNANZA_COMPILE", "1")
    with pytest.raises(SystemExit, match="without -e"):
        backend.build_editable(str(tmp_path))
    with pytest.raises(SystemExit, match="without -e"):
        backend.get_requires_for_build_editable()
    assert list(tmp_path.iterdir()) == []


def test_the_compiled_modules_are_listed_once_and_exist() -> None:
    with open(ROOT / "pyproject.toml", "rb") as f:
        modules = tomllib.load(f)["tool"]["bohnanza"]["compile"]["modules"]
    assert len(modules) == len(set(modules))
    for m in modules:
        assert (ROOT / "src" / m).is_file(), m
    # The hot path is in the list: a game's every action runs through these.
    for core in ("bohnanza/game.py", "bohnanza/views.py", "bohnanza/modules/operations.py"):
        assert core in modules
    # Read-only built-in subclasses cannot be compiled (they stay plain classes).
    assert "bohnanza/frozen.py" not in modules


@pytest.mark.skipif(not bohnanza.compiled_core(), reason="runs against the compiled build")
def test_plain_python_classes_still_extend_the_compiled_ones() -> None:
    """A module, bot or test written in plain Python subclasses the compiled classes."""
    from bohnanza.agents.simple import AutarkyAgent
    from bohnanza.driver import play
    from bohnanza.game import Game

    calls: list[int] = []

    class Counting(AutarkyAgent):
        def act(self, view, legal, required):  # type: ignore[no-untyped-def]
            calls.append(view.seat)
            return super().act(view, legal, required)

    game = Game.new("classic", 3, seed=5, events=False)
    play(game, [Counting(k) for k in range(3)])
    assert game.scores is not None and len(calls) > 100
    assert sys.modules["bohnanza.game"].__file__.endswith(".so")  # type: ignore[union-attr]


def test_the_bare_loop_runs_plain_python_in_either_build() -> None:
    """``bohnanza bench``'s yardstick stays plain Python: with the compiled core its
    generator is loaded again from the source file, and deals the same decks."""
    from types import FunctionType

    from bohnanza.bench import plain_deck_random
    from bohnanza.shuffle import DeckRandom

    plain = plain_deck_random()
    assert isinstance(plain.shuffle, FunctionType)
    a, b = list(range(50)), list(range(50))
    plain(12345).shuffle(a)
    DeckRandom(12345).shuffle(b)
    assert a == b and a != list(range(50))


def _compiled_classes() -> Iterator[tuple[str, ast.ClassDef]]:
    """(module, class) for every class of the modules that pyproject.toml compiles."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        modules = tomllib.load(f)["tool"]["bohnanza"]["compile"]["modules"]
    for m in modules:
        tree = ast.parse((ROOT / "src" / m).read_text(encoding="utf-8"))
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            yield m, cls


def test_no_compiled_class_calls_its_static_methods_through_self() -> None:
    """Static methods are called through their class: ``self.f(...)`` from compiled code
    goes through the glue that serves plain-Python subclasses, the path where mypyc
    loses ``float`` defaults (below; seen first with the heuristic bot compiled as a
    trial: a subclass adding nothing played another game)."""
    found = []
    for m, cls in _compiled_classes():
        static = {
            f.name
            for f in cls.body
            if isinstance(f, ast.FunctionDef)
            and any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in f.decorator_list)
        }
        for node in ast.walk(cls):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in static
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                found.append(f"{m}:{node.lineno} {node.value.id}.{node.attr}")
    assert found == []


def test_classes_that_plain_python_extends_take_no_float_defaults() -> None:
    """mypyc (2.4) passes 0.0 for a ``float`` argument left to its default when compiled
    code calls the method on an instance of a plain-Python subclass (``int`` and ``bool``
    defaults arrive intact): ``HeuristicAgent._score(..., has: float = 1.0)`` once made
    the probe bots rank every gift at nothing in the compiled build only. In the classes
    marked ``allow_interpreted_subclasses`` such an argument is always passed instead."""
    found = []
    for m, cls in _compiled_classes():
        if not any("allow_interpreted_subclasses" in ast.unparse(d) for d in cls.decorator_list):
            continue
        for fn in cls.body:
            if not isinstance(fn, ast.FunctionDef):
                continue
            a = fn.args
            positional = a.posonlyargs + a.args
            defaulted = list(
                zip(positional[len(positional) - len(a.defaults) :], a.defaults, strict=True)
            )
            defaulted += [
                (k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None
            ]
            for arg, _default in defaulted:
                if arg.annotation is not None and ast.unparse(arg.annotation) == "float":
                    found.append(f"{m}:{fn.lineno} {cls.name}.{fn.name}({arg.arg})")
    assert found == []


@pytest.mark.parametrize(("rules", "players"), [("classic", 4), ("fasolki+fasolufka", 4)])
def test_a_plain_python_subclass_of_the_heuristic_plays_the_same_game(
    rules: str, players: int
) -> None:
    """A bot written in plain Python on top of ``heuristic`` (the probe bots, a user's
    own) starts from the same play in either build: a subclass that adds nothing makes
    every decision the compiled class makes."""
    from bohnanza.agents.heuristic import HeuristicAgent
    from bohnanza.driver import play
    from bohnanza.game import Game

    class Same(HeuristicAgent):
        pass

    for seed in (3, 4):
        logs = []
        for cls in (HeuristicAgent, Same):
            game = Game.new(rules, players, seed=seed, events=False)
            logs.append(
                [repr(a) for a in play(game, [cls(seed * 10 + k) for k in range(players)]).actions]
            )
        assert len(logs[0]) > 100 and logs[0] == logs[1]


def test_a_finished_game_is_freed_without_the_cycle_collector() -> None:
    """``play`` leaves no reference cycle behind: compiled, a closure inside it and its
    environment referred to each other, so every finished game (its state, its agents
    and their memos) waited for a full collection, which then walked them all."""
    import gc
    import weakref

    from bohnanza.agents.heuristic import HeuristicAgent
    from bohnanza.driver import play
    from bohnanza.game import Game

    class Tracked(HeuristicAgent):
        pass

    freed: list[int] = []
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        game = Game.new("classic", 3, seed=11, events=False)
        agents = [Tracked(k) for k in range(3)]
        for k, agent in enumerate(agents):
            weakref.finalize(agent, freed.append, k)
        log = play(game, agents)
        assert game.over and len(log.actions) > 100
        del agent, agents, game, log
        assert sorted(freed) == [0, 1, 2]
    finally:
        if was_enabled:
            gc.enable()


@pytest.mark.parametrize(
    "spec", ["heuristic", pytest.param("search:8ro:infer", marks=pytest.mark.long)]
)
def test_games_leave_no_garbage_cycles(spec: str) -> None:
    """A game, and a search's roll-outs and sampled deals, are freed by reference
    counting alone. Compiled, closures (the driver's, the deal's, the inference's) and the
    live views of games that moved no more formed cycles: about 400,000 objects a search
    game that only the cycle collector freed, a tenth of the game's CPU time."""
    import gc

    from bohnanza.agents import make_agent
    from bohnanza.driver import play
    from bohnanza.game import Game

    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        game = Game.new("classic", 4, seed=21, events=False)
        agents = [make_agent(spec if k == 0 else "heuristic", 7 + k) for k in range(4)]
        log = play(game, agents)
        assert game.over and len(log.actions) > 100
        del game, agents, log
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
