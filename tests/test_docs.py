"""The README is a doctest, and so are the package's docstring examples; the rules
reference (docs/rules.md, docs/rules.pl.md) agrees with RULES.md, its translation and the
engine."""

from __future__ import annotations

import doctest
import os
import re
from pathlib import Path

import pytest

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


# ------------------------------------------------------------------ the rules reference

RULES_DOCS = {"en": ROOT / "docs" / "rules.md", "pl": ROOT / "docs" / "rules.pl.md"}


def _sections(lang: str) -> list[tuple[str, str]]:
    """The reference cut at its headings: (heading line, text up to the next heading)."""
    out: list[tuple[str, str]] = []
    for line in RULES_DOCS[lang].read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            out.append((line, ""))
        else:
            assert out, "the reference starts with its title"
            out[-1] = (out[-1][0], out[-1][1] + line + "\n")
    return out


def _rules_md() -> Path | None:
    """The project's rules (RULES.md), kept beside the checkout (``../shared/``), or beside
    the folder of worktrees; ``BOHNANZA_RULES_MD`` names it elsewhere."""
    named = os.environ.get("BOHNANZA_RULES_MD")
    candidates = [Path(named)] if named else []
    candidates += [ROOT.parent / "shared" / "RULES.md", ROOT.parent.parent / "shared" / "RULES.md"]
    return next((p for p in candidates if p.is_file()), None)


def test_the_polish_rules_are_the_whole_english_text_section_for_section() -> None:
    """Issue 33: docs/rules.pl.md is the whole reference, not a summary: the same headings
    (levels) in the same order, each section with the same rule IDs in the same order and
    at least half as long as its English one, and no repository path a reader of the web
    page cannot open."""
    from bohnanza.web.rules_page import rule_ids_in

    en, pl = _sections("en"), _sections("pl")
    assert [h.split(" ", 1)[0] for h, _ in pl] == [h.split(" ", 1)[0] for h, _ in en]
    assert len(en) >= 13
    for (head_en, text_en), (head_pl, text_pl) in zip(en, pl, strict=True):
        assert rule_ids_in(text_pl) == rule_ids_in(text_en), head_pl
        assert len(head_pl) + len(text_pl) >= (len(head_en) + len(text_en)) / 2, head_pl
        # The module sections keep "Module N:" / "Moduł N:" (text.rules_reference cuts there).
        if head_en.startswith("## Module "):
            assert head_pl.startswith("## Moduł " + head_en.split()[2]), head_pl
    for lang in RULES_DOCS:
        text = RULES_DOCS[lang].read_text(encoding="utf-8")
        assert not re.search(r"\b(docs|src|tests)/|\.md\b", text), lang


def test_every_rule_of_rules_md_is_in_both_rules_documents() -> None:
    """Every rule ID of the project's RULES.md is a rule of docs/rules.md and of
    docs/rules.pl.md (RULES.md lives outside the repository: skipped where it is absent)."""
    from bohnanza.web.rules_page import rule_ids_in

    path = _rules_md()
    if path is None:
        pytest.skip("RULES.md is not beside this checkout (../shared/RULES.md)")
    wanted = set(re.findall(r"\bR-[A-Z0-9]+-[A-Z0-9]+\b", path.read_text(encoding="utf-8")))
    assert len(wanted) >= 58
    for lang, doc in RULES_DOCS.items():
        defined = rule_ids_in(doc.read_text(encoding="utf-8"))
        assert not wanted - set(defined), (lang, sorted(wanted - set(defined)))


@pytest.mark.parametrize("lang", sorted(RULES_DOCS))
def test_the_deck_size_table_is_what_the_engine_deals(lang: str) -> None:
    """The deck-size table of the rules reference (whole deck / draw pile after the deal,
    per rule set and player count) against fresh games of every configuration."""
    from bohnanza import Game
    from bohnanza.rules import all_rulesets
    from bohnanza.testing.checker import configurations

    engine: dict[tuple[str, int], set[tuple[int, int]]] = {}
    for rules, players, options in configurations():
        game = Game.new(rules, players, options=options, seed=7)
        whole = game.config.deck_size
        assert sum(len(h) for h in game.hands) + len(game.draw) == whole
        engine.setdefault((rules, players), set()).add((whole, len(game.draw)))
    heads = [h for h, _ in _sections("en")]
    _, text = _sections(lang)[heads.index("### Deck sizes")]
    rows = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("|") and not set(line) <= set("|-: ")
    ]
    counts = [int(re.match(r"\d+", c).group()) for c in rows[0][1:]]  # type: ignore[union-attr]
    table: dict[tuple[str, int], set[tuple[int, int]]] = {}
    for row in rows[1:]:
        rules = row[0].strip("`")
        for players, cell in zip(counts, row[1:], strict=True):
            pairs = {(int(a), int(b)) for a, b in re.findall(r"(\d+) / (\d+)", cell)}
            assert pairs or cell == "–", (rules, players, cell)
            if pairs:
                table[(rules, players)] = pairs
    assert {r for r, _ in table} == {e["rules"] for e in all_rulesets()}
    assert table == engine


#: A line of a written source as each language's reference cites it: "l. 21" / "w. 21".
CITED_LINE = {"en": r"\bl\. \d+", "pl": r"\bw\. \d+"}
DECISION = {"en": "*Decision:*", "pl": "*Decyzja:*"}


def _paragraphs(lang: str) -> list[str]:
    """The reference cut into rules (a ``- **R-…**`` item with its continuation lines) and
    paragraphs."""
    out: list[str] = []
    for line in RULES_DOCS[lang].read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith(("#", "|")):
            out.append("")
        elif line.startswith("- ") or not out or not out[-1]:
            out.append(line)
        else:
            out[-1] += "\n" + line
    return [p for p in out if p]


@pytest.mark.parametrize("lang", sorted(RULES_DOCS))
def test_every_decision_names_the_passage_it_settles(lang: str) -> None:
    """Issue 54: a *Decision:* is this program's reading of a passage the seed rulebooks
    leave open or contradict; the rule that states one cites that passage's line ("Polish
    rules, l. 21"), so that a reader can check the reading, and the text never claims a
    decision is what the rules say (the Polish page said "so say the Polish rules")."""
    paragraphs = [p for p in _paragraphs(lang) if DECISION[lang] in p]
    assert len(paragraphs) >= 17
    for p in paragraphs[1:]:  # the first is the introduction, which explains the mark
        assert re.search(CITED_LINE[lang], p), p
    text = RULES_DOCS[lang].read_text(encoding="utf-8")
    assert "tak mówią polskie zasady" not in text
    # Seed 000 calls a group of one colour a "bean race" (R-RACE-1).
    assert ("bean race" if lang == "en" else "fasolowy wyścig") in text


@pytest.mark.parametrize("doc", ["docs/rules.md", "docs/rules.pl.md", "README.md"])
def test_the_spider_is_spelt_with_its_accent(doc: str) -> None:
    """Issue 54: pająk is a spider, so the module is Fasolkopająki and its card a
    Fasolkopająk, in English too (as the card data names it, tests/test_polish.py); only
    the identifiers (``fasolki+fasolkopajaki``) stay ASCII."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert not re.search(r"Fasolkopajak", text)
    if doc != "README.md":
        assert "Fasolkopająki" in text


# ------------------------------------------------------------------ guides and notes

#: The pages that say how to use the program. No issue numbers, no commit hashes: a
#: reader has neither the tracker nor the history in mind, and the text must stand on its
#: own. Every Markdown page under docs/ is a guide unless it is listed below.
GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Pages of measurements, each figure named by the tree it was measured at: commit
#: hashes allowed (a baseline is a commit), issue numbers not.
FIGURES = {"performance.md", "reliability.md"}
#: docs/notes/YYYY-MM-DD-topic.md: dated lab notes (experiments, what was tried, with the
#: issues and commits they were made at): anything goes; CHANGELOG.md names no issues
#: either, but is checked by tests/test_public_api.py for its form.
NOTES = ROOT / "docs" / "notes"

_ISSUE = re.compile(r"\bissues? \d+|(?<![\w&])#\d+\b", re.I)
_HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b")


def _prose(text: str) -> str:
    """The page without its code: fenced blocks and `code spans` (an offer `#0`, a
    line-up position `#2`, a hash in a command a reader copies)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


@pytest.mark.parametrize("page", GUIDES, ids=lambda p: p.name)
def test_guides_name_no_issues_and_no_commits(page: Path) -> None:
    text = _prose(page.read_text(encoding="utf-8"))
    issues = sorted({m[0] for m in _ISSUE.finditer(text)})
    assert not issues, (
        f"{page.name} names issues {issues}: say what changed, or move it to docs/notes/"
    )
    if page.name not in FIGURES:
        hashes = sorted({m[0] for m in _HASH.finditer(text)})
        assert not hashes, f"{page.name} names commits {hashes}: move it to docs/notes/"


def test_the_checks_catch_what_they_look_for() -> None:
    assert _ISSUE.search("as before issue 53, it") and _ISSUE.search("see #12.")
    assert _HASH.search("at commit d39ce86, before") and _HASH.search("a" * 39 + "1")
    assert not _HASH.search("seeds 9000001-9000400") and not _HASH.search("decade")
    assert not _ISSUE.search(_prose("offer `#42` and\n```\n#3 issue 4\n```\n"))


def test_notes_are_dated() -> None:
    """docs/notes/YYYY-MM-DD-topic.md: the site lists them by that date, newest first
    (buildtools/docs_hooks.py)."""
    notes = sorted(NOTES.glob("*.md"))
    assert len(notes) >= 4
    for note in notes:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md", note.name), note.name
