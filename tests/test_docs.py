"""The README is a doctest, and so are the package's docstring examples."""

from __future__ import annotations

import doctest
from pathlib import Path

import bohnanza

ROOT = Path(__file__).resolve().parent.parent


def test_readme_examples_run() -> None:
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False)
    assert result.attempted >= 5
    assert result.failed == 0


def test_testing_guide_examples_run() -> None:
    """docs/testing.md shows bohnanza.testing at work; its examples must keep working."""
    result = doctest.testfile(str(ROOT / "docs" / "testing.md"), module_relative=False)
    assert result.attempted >= 10
    assert result.failed == 0


def test_package_docstring_examples_run() -> None:
    result = doctest.testmod(bohnanza)
    assert result.attempted >= 2
    assert result.failed == 0


def test_readme_starts_with_the_two_commands_that_ci_uses() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0].strip() for b in text.split("```sh\n")[1:3]]
    assert blocks[0].endswith("bohnanza serve")
    assert blocks[1].endswith("pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert blocks[1] in ci
