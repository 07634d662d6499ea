"""The optional compiled core (``BOHNANZA_COMPILE=1``, docs/design.md "A compiled core"):
the build backend asks for mypyc only when compiling, refuses a compiled editable
install, compiles the modules pyproject.toml lists; and a test run that is meant to test
the compiled build (CI sets ``BOHNANZA_EXPECT_COMPILED=1``) really imports it."""

from __future__ import annotations

import importlib.util
import os
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import bohnanza

ROOT = Path(__file__).resolve().parent.parent


def _backend() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bohnanza_build", ROOT / "buildtools" / "bohnanza_build.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def test_mypyc_is_asked_for_only_when_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = _backend()
    monkeypatch.setenv("BOHNANZA_COMPILE", "1")
    needs = backend.get_requires_for_build_wheel()
    assert any(n.startswith("mypy>=") for n in needs)
    # mypyc type-checks the RL modules it compiles against their libraries.
    assert any(n.startswith("numpy") for n in needs)
    monkeypatch.setenv("BOHNANZA_COMPILE", "0")
    assert backend.compile_requested() is False
    monkeypatch.delenv("BOHNANZA_COMPILE")
    assert backend.compile_requested() is False


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


def test_no_compiled_class_calls_its_static_methods_through_self() -> None:
    """Compiled code that calls a ``@staticmethod`` as ``self.f(...)`` gets it wrong when
    ``self`` is a plain-Python subclass (seen with the heuristic bot compiled as a trial:
    a subclass adding nothing played another game). Such calls name the class instead."""
    import ast

    with open(ROOT / "pyproject.toml", "rb") as f:
        modules = tomllib.load(f)["tool"]["bohnanza"]["compile"]["modules"]
    found = []
    for m in modules:
        tree = ast.parse((ROOT / "src" / m).read_text(encoding="utf-8"))
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            static = {
                f.name
                for f in cls.body
                if isinstance(f, ast.FunctionDef)
                and any(
                    isinstance(d, ast.Name) and d.id == "staticmethod" for d in f.decorator_list
                )
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
