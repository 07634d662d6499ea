"""Every docstring example in the package runs, as part of the normal suite.

The modules are found by their source (any line starting with ``>>>``), so that a new
example is run from the day it is written; each is one test, run with ``doctest`` on the
imported module (in the compiled build too: compiled modules keep their docstrings).
A module that needs an extra which is not installed (``bohnanza.rl`` without gymnasium)
skips and says so. The Markdown examples (README.md, docs/testing.md) are run by
tests/test_docs.py.
"""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "bohnanza"

#: Modules whose examples must be found and run (a renamed module must not silently drop
#: its examples from the suite).
REQUIRED = {"bohnanza", "bohnanza.schedule", "bohnanza.shuffle", "bohnanza.tournament"}

_EXAMPLE = re.compile(r"^\s*>>> ", re.M)


def _modules_with_examples() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if not _EXAMPLE.search(path.read_text(encoding="utf-8")):
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


MODULES = _modules_with_examples()


def test_the_required_modules_have_examples() -> None:
    assert set(MODULES) >= REQUIRED, REQUIRED - set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        if name in REQUIRED:
            raise
        pytest.skip(f"{name} needs an extra that is not installed ({exc})")
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = [t for t in finder.find(module) if t.examples]
    assert tests, f"{name} has examples in its source but doctest found none"
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
