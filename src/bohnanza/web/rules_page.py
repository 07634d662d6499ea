"""The rules page (``/rules``, ``/rules?lang=pl``), rendered from the rules reference.

The text is ``docs/rules.md`` (English) and ``docs/rules.pl.md`` (its whole Polish
translation: the same sections and rule IDs in the same order); copies ship with the
package in ``static/`` and a test keeps them equal to the documents. Only the few Markdown
forms those files use are understood (headings, lists, tables, paragraphs, bold, italic,
code): a full Markdown library would be a dependency for two files that we write
ourselves. Every list item that starts with a bold rule ID gets that ID as its anchor, so
that an error can link to ``/rules#R-FIELD-2``. The page has no script at all (it works
under a strict CSP).
"""

from __future__ import annotations

import html
import re
from functools import cache
from importlib import resources

LANGS = ("en", "pl")
_RULE_ITEM = re.compile(r"^- \*\*(R-[A-Z0-9]+-[A-Z0-9]+)\*\* ?(.*)$")
_INLINE = re.compile(r"\*\*(.+?)\*\*|\*(.+?)\*|`(.+?)`")
_TITLES = {"en": "Rules", "pl": "Zasady"}
_BACK = {"en": "Back to the tables", "pl": "Wróć do stołów"}


def _source(lang: str) -> str:
    name = "rules.en.md" if lang == "en" else "rules.pl.md"
    return resources.files("bohnanza.web").joinpath("static", name).read_text(encoding="utf-8")


def rule_ids(lang: str = "en") -> list[str]:
    """The rule IDs the reference defines, in order."""
    return rule_ids_in(_source(lang))


def rule_ids_in(text: str) -> list[str]:
    """The rule IDs a piece of the reference defines (its list items that start with a
    bold rule ID), in order."""
    return [m.group(1) for line in text.splitlines() if (m := _RULE_ITEM.match(line))]


def _inline(text: str) -> str:
    out: list[str] = []
    pos = 0
    for m in _INLINE.finditer(text):
        out.append(html.escape(text[pos : m.start()]))
        bold, italic, code = m.groups()
        if bold is not None:
            out.append(f"<strong>{html.escape(bold)}</strong>")
        elif italic is not None:
            out.append(f"<em>{html.escape(italic)}</em>")
        else:
            out.append(f"<code>{html.escape(code)}</code>")
        pos = m.end()
    out.append(html.escape(text[pos:]))
    # Rule IDs cited inside a text link to their own anchor.
    return re.sub(
        r"(?<![\w#-])(R-[A-Z0-9]+-[A-Z0-9]+)(?![\w-])", r'<a href="#\1">\1</a>', "".join(out)
    )


def render_markdown(text: str) -> str:
    """The HTML body of one reference file (the subset described above)."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            title = line[level:].strip()
            slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
            out.append(f'<h{level} id="{slug}">{_inline(title)}</h{level}>')
            i += 1
        elif line.startswith("|"):
            rows: list[list[str]] = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(set(c) <= {"-", ":"} for c in cells):
                    rows.append(cells)
                i += 1
            head = "".join(f"<th>{_inline(c)}</th>" for c in rows[0])
            body = "".join(
                "<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>"
                for row in rows[1:]
            )
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif line.startswith("- "):
            items: list[str] = []
            while i < len(lines) and lines[i].startswith("- "):
                item = lines[i]
                i += 1
                while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                    item += " " + lines[i].strip()
                    i += 1
                m = _RULE_ITEM.match(item)
                if m:
                    rid = m.group(1)
                    items.append(
                        f'<li id="{rid}" class="rule"><a class="rule-id" href="#{rid}">{rid}</a> '
                        f"{_inline(m.group(2))}</li>"
                    )
                else:
                    items.append(f"<li>{_inline(item[2:])}</li>")
            out.append("<ul>" + "".join(items) + "</ul>")
        else:
            para = [line.strip()]
            i += 1
            while i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "|", "- ")):
                para.append(lines[i].strip())
                i += 1
            out.append(f"<p>{_inline(' '.join(para))}</p>")
    return "\n".join(out)


def rules_page(lang: str) -> str:
    """The whole page in ``lang`` (``en`` or ``pl``; anything else: English)."""
    return _page(lang if lang in LANGS else "en")


@cache
def _page(lang: str) -> str:
    switch = " ".join(
        f'<a href="/rules?lang={code}" class="{"on" if code == lang else ""}" '
        f'hreflang="{code}">{code.upper()}</a>'
        for code in LANGS
    )
    return (
        f'<!doctype html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Bohnanza · {_TITLES[lang]}</title>\n"
        '<link rel="stylesheet" href="/static/style.css">\n'
        '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">\n</head>\n'
        '<body class="page-rules">\n<header class="top"><a class="brand" href="/">Bohnanza</a>'
        f'<span class="table-title">{_TITLES[lang]}</span>'
        f'<span class="lang rules-lang">{switch}</span></header>\n'
        f'<main class="rules-text">\n{render_markdown(_source(lang))}\n'
        f'<p><a href="/">{_BACK[lang]}</a></p>\n</main>\n</body>\n</html>\n'
    )
