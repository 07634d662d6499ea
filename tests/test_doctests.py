"""Every docstring example in the package runs, as part of the normal suite.

The modules are found by their source (any line starting with ``>>>``), so that a new
example is run from the day it is written; each is one test, run with ``doctest`` on the
imported module; in the compiled build, where mypyc keeps no docstrings, the examples
are read from the source and run against the compiled module.
A module that needs an extra which is not installed (``bohnanza.rl`` without gymnasium)
skips and says so. The Markdown examples (README.md, docs/testing.md) are run by
tests/test_docs.py.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import re
from pathlib import Path
from types import ModuleType

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


def _from_source(name: str, module: ModuleType) -> list[doctest.DocTest]:
    """The examples of every docstring in ``name``'s source file (the module's, its
    classes' and functions'), each run in the namespace of the imported ``module``."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parser = doctest.DocTestParser()
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
            continue
        doc = ast.get_docstring(node, clean=False)
        if doc and _EXAMPLE.search(doc):
            where = getattr(node, "name", name)
            line = getattr(node, "lineno", 0)
            test = parser.get_doctest(doc, dict(vars(module)), where, str(path), line)
            out.append(test)
    return out


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
    if not tests and getattr(module, "__doc__", None) is None:
        # Compiled by mypyc, which keeps no docstrings: the examples are read from the
        # source and run against the compiled module.
        tests = _from_source(name, module)
    assert tests, f"{name} has examples in its source but doctest found none"
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
