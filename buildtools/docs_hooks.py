"""MkDocs hooks (mkdocs.yml): the site is built from docs/ plus the README and the
changelog, which live at the repository's top where GitHub and PyPI show them.

- ``index.md`` is the README and ``changelog.md`` is CHANGELOG.md, generated at build
  time, so that there is one copy of each; their links are rewritten for the site
  (``docs/web.md`` -> ``web.md``).
- ``notes/index.md`` lists the dated lab notes, newest first, from their titles; a page
  or a note that the nav of mkdocs.yml does not list yet is added to it.
- A link from a page to a file of the repository outside docs/ (``../benchmarks/x.py``,
  ``src/bohnanza/data/cards.toml`` in the README) cannot be a page of the site: it
  becomes the path as code, and the build fails if that file does not exist, so that
  such links are checked as strictly as links between pages (which MkDocs checks
  itself under ``--strict``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

#: Generated pages: their path in the site, and the file of the repository they show.
GENERATED = {"index.md": ROOT / "README.md", "changelog.md": ROOT / "CHANGELOG.md"}

_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def _notes_index() -> str:
    lines = [
        "# Lab notes",
        "",
        "Dated notes: experiments, measurements and what was tried, with the issues and",
        "commits they were made at. The guides say how to use the program; these say how",
        "its figures and defaults came about. Newest first.",
        "",
    ]
    for path in sorted((DOCS / "notes").glob("????-??-??-*.md"), reverse=True):
        title = path.read_text(encoding="utf-8").split("\n", 1)[0].lstrip("# ").strip()
        lines.append(f"- [{title}]({path.name})")
    return "\n".join(lines) + "\n"


def _listed(nav: Any) -> set[str]:
    """Every page path named anywhere in a nav (nested lists of dicts and strings)."""
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, dict):
        return set().union(*(_listed(v) for v in nav.values()))
    if isinstance(nav, list):
        return set().union(*(_listed(v) for v in nav)) if nav else set()
    return set()


def on_config(config: Any) -> Any:
    """A page that mkdocs.yml's nav does not list yet is added to it (a dated note under
    "Lab notes", newest first; any other page under "More"), so that a page someone adds
    beside the others is reachable at once and never fails the build."""
    nav = config["nav"]
    listed = _listed(nav)
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    notes = [p for p in reversed(pages) if p.startswith("notes/") and p not in listed]
    others = [p for p in pages if not p.startswith("notes/") and p not in listed]
    for section, missing in (("Lab notes", notes), ("More", others)):
        if not missing:
            continue
        entry = next((e for e in nav if isinstance(e, dict) and section in e), None)
        if entry is None:
            entry = {section: []}
            nav.append(entry)
        entry[section].extend(missing)
    return config


def on_files(files: Files, config: Any) -> Files:
    for uri, source in GENERATED.items():
        files.append(File.generated(config, uri, content=source.read_text(encoding="utf-8")))
    files.append(File.generated(config, "notes/index.md", content=_notes_index()))
    return files


def _rewrite(markdown: str, page_dir: Path, at_top: bool) -> str:
    """Links of a page whose source sits in ``page_dir``: to docs pages as MkDocs wants
    them, to other files of the repository as checked code text."""

    def one(match: re.Match[str]) -> str:
        bang, text, target = match.groups()
        path, _, anchor = target.partition("#")
        if not path or re.match(r"[a-z]+:", path):
            return match[0]  # an anchor on the page, or another site
        where = (page_dir / path).resolve()
        if at_top and where == ROOT / "CHANGELOG.md":
            return f"{bang}[{text}](changelog.md{'#' + anchor if anchor else ''})"
        if where.is_relative_to(DOCS):
            if not at_top:
                return match[0]
            rel = where.relative_to(DOCS).as_posix()
            rel = "notes/index.md" if rel == "notes" else rel
            return f"{bang}[{text}]({rel}{'#' + anchor if anchor else ''})"
        if not where.exists():
            raise PluginError(f"a link to {target!r} names no file of the repository")
        shown = where.relative_to(ROOT).as_posix()
        return text if text.strip("`") == shown else f"{text} (`{shown}`)"

    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        out.append(line if fenced else _LINK.sub(one, line))
    return "\n".join(out)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    uri = page.file.src_uri
    if uri in GENERATED:
        return _rewrite(markdown, GENERATED[uri].parent, at_top=True)
    return _rewrite(markdown, (DOCS / uri).parent, at_top=False)
