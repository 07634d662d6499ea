"""The documentation site's hooks (buildtools/docs_hooks.py, mkdocs.yml): links to
repository files outside docs/ are checked and shown as paths, the README's links are
rewritten for the site, and a page missing from the nav is added to it. The site itself
is built with ``mkdocs build --strict`` by .ci/run; these run where the docs extra is
installed, and skip elsewhere (the README's test command installs dev only)."""

from __future__ import annotations

from typing import Any

import pytest

from scripts import load_script

pytest.importorskip("mkdocs")


def _hooks() -> Any:
    return load_script("buildtools/docs_hooks.py")


def test_links_to_repository_files_are_checked_and_shown_as_paths() -> None:
    hooks = _hooks()
    page = "see [the script](../benchmarks/rl_steps.py), [`examples/train_rl.py`](../examples/train_rl.py) and [a page](web.md#tests)"
    assert hooks._rewrite(page, hooks.DOCS, at_top=False) == (
        "see the script (`benchmarks/rl_steps.py`), `examples/train_rl.py` and [a page](web.md#tests)"
    )
    with pytest.raises(Exception, match="names no file"):
        hooks._rewrite("[gone](../benchmarks/no_such_script.py)", hooks.DOCS, at_top=False)
    # Inside a fenced block a link is text.
    fenced = "```\n[gone](../nowhere.py)\n```"
    assert hooks._rewrite(fenced, hooks.DOCS, at_top=False) == fenced


def test_the_readme_links_point_at_the_site_pages() -> None:
    hooks = _hooks()
    readme = "[a](docs/web.md#limits) [b](CHANGELOG.md) [c](docs/notes/) [d](https://x.org/y.md)"
    assert hooks._rewrite(readme, hooks.ROOT, at_top=True) == (
        "[a](web.md#limits) [b](changelog.md) [c](notes/index.md) [d](https://x.org/y.md)"
    )


def test_a_page_missing_from_the_nav_is_added() -> None:
    hooks = _hooks()
    config = {"nav": [{"Home": "index.md"}, {"Lab notes": ["notes/index.md"]}]}
    hooks.on_config(config)
    listed = hooks._listed(config["nav"])
    for page in ("bots.md", "releasing.md", "notes/2026-12-01-bot-strength.md"):
        assert page in listed
    notes = config["nav"][1]["Lab notes"][1:]
    assert notes == sorted(notes, reverse=True)  # newest first
