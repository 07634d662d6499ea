"""The public API is what ``__all__`` lists, and it changes only on purpose.

For the package and the engine's public modules, every name ``__all__`` lists exists,
and every public class or function a module defines is listed, or is deliberately left
out below (with the reason). A new public name is then a decision, made in ``__all__``
and in CHANGELOG.md; a name that disappears fails here before a user's code does
(docs/releasing.md). For every other module that declares ``__all__`` (bots, tournaments,
RL, the web app), the names listed must exist. Checked on both builds: compiled
functions are builtins, not Python functions, but carry their ``__module__`` too.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

import bohnanza

ROOT = Path(__file__).resolve().parent.parent

#: The engine's public modules: what a program written against bohnanza imports.
PUBLIC = [
    "bohnanza",
    "bohnanza.actions",
    "bohnanza.driver",
    "bohnanza.errors",
    "bohnanza.events",
    "bohnanza.game",
    "bohnanza.modules",
    "bohnanza.records",
    "bohnanza.refusals",
    "bohnanza.rules",
    "bohnanza.schedule",
    "bohnanza.seeding",
    "bohnanza.shapes",
    "bohnanza.shuffle",
    "bohnanza.testing",
    "bohnanza.views",
]

#: Public-looking names that are deliberately not part of the API: engine internals that
#: other engine modules import, free to change in any release.
EXCLUDED = {
    "bohnanza.views": {"live_view", "make_view", "retire"},  # the game's view cache
}


def _defined_here(module: ModuleType) -> set[str]:
    """The public classes and functions ``module`` defines (not those it imports)."""
    out = set()
    for name, value in vars(module).items():
        if name.startswith("_") or not (inspect.isclass(value) or callable(value)):
            continue
        if getattr(value, "__module__", None) == module.__name__:
            out.add(name)
    return out


@pytest.mark.parametrize("name", PUBLIC)
def test_a_public_module_lists_what_it_defines_and_defines_what_it_lists(name: str) -> None:
    module = importlib.import_module(name)
    listed = getattr(module, "__all__", None)
    assert listed is not None, f"{name} has no __all__"
    assert len(listed) == len(set(listed)), f"{name}: a name listed twice"
    assert not [n for n in listed if not hasattr(module, n)], name
    unlisted = _defined_here(module) - set(listed) - EXCLUDED.get(name, set())
    assert not unlisted, f"{name}: public but not in __all__ (list or exclude): {unlisted}"
    assert not EXCLUDED.get(name, set()) & set(listed), name


def test_every_declared_all_names_names_that_exist() -> None:
    """Every module with an ``__all__`` (those whose optional extras are installed)."""
    checked = 0
    for info in pkgutil.walk_packages(bohnanza.__path__, "bohnanza."):
        if ".migrations" in info.name:
            continue  # Alembic's scripts, run by Alembic only
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            continue  # an extra that is not installed (TextArena, torch, ...)
        listed = getattr(module, "__all__", None)
        if listed is None:
            continue
        checked += 1
        assert not [n for n in listed if not hasattr(module, n)], info.name
    assert checked >= len(PUBLIC)


def test_the_package_exports_the_engine_from_its_top() -> None:
    """What the README and the guides import from ``bohnanza`` itself."""
    for name in ("Game", "Action", "Offer", "View", "IllegalAction", "Phase", "__version__"):
        assert name in bohnanza.__all__


def test_the_version_is_one_number_in_pyproject_the_package_and_the_changelog() -> None:
    """pyproject.toml's version is ``bohnanza.__version__``, and CHANGELOG.md has its
    section (docs/releasing.md: the three change together)."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        version = tomllib.load(f)["project"]["version"]
    assert bohnanza.__version__ == version
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert released and released[0] == version, released
    assert changelog.index("## [Unreleased]") < changelog.index(f"## [{version}]")
