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


def test_design_doc_is_linked_and_its_links_resolve() -> None:
    """docs/design.md (issue 14) is reachable from the README, and every link and every
    file path it names exists, or is listed in its "Not yet merged" section (work on
    other branches), so that the map follows the code."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/design.md)" in readme
    doc = ROOT / "docs" / "design.md"
    text = doc.read_text(encoding="utf-8")
    body, _, pending = text.partition("\n## Not yet merged\n")
    assert pending, "design.md keeps a 'Not yet merged' section (it may be empty)"
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in text.splitlines()
        if line.startswith("#")
    }
    for target in re.findall(r"\]\(([^)]+)\)", body):
        path, _, anchor = target.partition("#")
        if path.startswith(("https://", "http://")):
            continue  # another site's page
        if path:
            assert (doc.parent / path).is_file() or f"`docs/{path}`" in pending, target
        elif anchor:
            assert anchor in anchors, target
    for name in re.findall(r"`((?:[a-z_.]+/)*[a-z_]+\.(?:py|toml|js|md))`", body):
        candidates = [
            ROOT / "src" / "bohnanza" / name,
            ROOT / name,
            ROOT / "src" / "bohnanza" / "modules" / name,
            ROOT / "src" / "bohnanza" / "web" / "static" / name,
        ]
        assert any(c.is_file() for c in candidates) or f"`{name}`" in pending, name
