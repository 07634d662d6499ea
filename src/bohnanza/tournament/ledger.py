"""The seed ledger: which held-out seeds were played, for what, at which commit, and
whether a decision was taken on them (issue 53).

Seeds from :data:`HELD_OUT_START` on are held out: no tuning uses them, and published
figures are played there. They stay held out only while nobody looks at them twice:
a figure on seeds that a later change was chosen against is no longer a held-out
figure. Before the ledger, ``--held-out`` always started at 900,001 - seeds on which
several search settings had already been chosen - and the league of such a run overlapped
other ranges used for decisions. The ledger (``docs/seeds.toml`` in the repository, one
``[[range]]`` table per use) makes every use visible:

* ``bohnanza benchmark bots --held-out`` takes the next range that no entry touches,
  large enough for the whole suite, and appends it (``decision = false``);
* with ``--seed`` too it plays that range (a resume), refusing one that overlaps a range
  marked ``decision = true``;
* ``bohnanza benchmark seeds --take N --use TEXT`` reserves a range for a tournament;
* whoever takes a decision on a range's results (a new default, a variant kept or
  dropped, a weight tuned) sets ``decision = true`` on its entry by hand, with the
  commit that took it.

The file is read with :mod:`tomllib` and appended to as text, so that its comments stay.
"""

from __future__ import annotations

import datetime
import json
import subprocess
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

#: The first held-out seed; every seed from here on is held out.
HELD_OUT_START = 900_001
#: Where the ledger lives, relative to the repository's root.
DEFAULT_LEDGER = "docs/seeds.toml"


@dataclass(frozen=True, slots=True)
class SeedRange:
    """Seeds ``first``..``last`` (both included), used for ``use`` at ``commit`` on
    ``date``; ``decision``: a choice was made on their results."""

    first: int
    last: int
    use: str
    decision: bool = False
    commit: str = ""
    date: str = ""

    def overlaps(self, first: int, last: int) -> bool:
        return self.first <= last and first <= self.last

    def line(self) -> str:
        mark = "decision" if self.decision else "no decision"
        return f"{self.first:,}-{self.last:,} ({mark}; {self.commit or '?'}, {self.date or '?'}): {self.use}"

    def toml(self) -> str:
        """The entry as the ledger stores it (strings quoted as JSON, which TOML reads)."""
        return (
            "\n[[range]]\n"
            f"first = {self.first}\n"
            f"last = {self.last}\n"
            f"use = {json.dumps(self.use, ensure_ascii=False)}\n"
            f"decision = {'true' if self.decision else 'false'}\n"
            f"commit = {json.dumps(self.commit)}\n"
            f"date = {json.dumps(self.date)}\n"
        )


def commit_of(folder: Path) -> str:
    """The commit the repository holding ``folder`` is at (``-dirty`` when its tracked
    files differ from it), or ``unknown`` outside a repository."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(folder), "describe", "--always", "--dirty", "--abbrev=10"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else "unknown"


class Ledger:
    """The ledger file at ``path`` (it must exist: a ledger is kept, not made by chance)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ConfigError(
                f"no seed ledger at {self.path}: run from the repository's root (the ledger "
                f"is {DEFAULT_LEDGER}) or name one with --ledger (an empty file starts one)"
            )
        try:
            data = tomllib.loads(self.path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"the seed ledger {self.path} is not valid TOML: {exc}") from None
        self.ranges: list[SeedRange] = []
        for k, entry in enumerate(data.get("range", [])):
            try:
                item = SeedRange(
                    int(entry["first"]),
                    int(entry["last"]),
                    str(entry["use"]),
                    bool(entry.get("decision", False)),
                    str(entry.get("commit", "")),
                    str(entry.get("date", "")),
                )
            except (KeyError, TypeError, ValueError):
                raise ConfigError(
                    f"the seed ledger {self.path}: range {k + 1} needs first, last and use"
                ) from None
            if item.last < item.first:
                raise ConfigError(f"the seed ledger {self.path}: range {item.line()} is empty")
            self.ranges.append(item)

    def touching(self, first: int, last: int) -> list[SeedRange]:
        """The recorded ranges that share a seed with ``first``..``last``."""
        return [r for r in self.ranges if r.overlaps(first, last)]

    def next_free(self, span: int, start: int = HELD_OUT_START) -> int:
        """The first seed from ``start`` on of ``span`` consecutive seeds that no
        recorded range touches."""
        if span < 1:
            raise ConfigError("a range of seeds needs at least 1 seed")
        first = start
        for r in sorted(self.ranges, key=lambda r: r.first):
            if r.last < first:
                continue
            if r.first > first + span - 1:
                break
            first = r.last + 1
        return first

    def check(self, first: int, last: int) -> SeedRange | None:
        """Refuse ``first``..``last`` where it overlaps a range a decision was taken on
        (ConfigError naming it); the entry recording exactly this range, if any (a
        resumed run records nothing new)."""
        if first < HELD_OUT_START:
            raise ConfigError(
                f"held-out seeds start at {HELD_OUT_START:,}; {first:,} is a development seed"
            )
        decided = [r for r in self.touching(first, last) if r.decision]
        if decided:
            raise ConfigError(
                f"seeds {first:,}-{last:,} overlap a range a decision was taken on, so they "
                f"are no longer held out: {decided[0].line()} ({self.path}); leave out --seed "
                "to take the next unused range"
            )
        same = [r for r in self.ranges if (r.first, r.last) == (first, last)]
        return same[0] if same else None

    def record(self, first: int, last: int, use: str, decision: bool = False) -> SeedRange:
        """Append an entry for ``first``..``last`` (the commit of the ledger's repository,
        today's date) and return it."""
        entry = SeedRange(
            first,
            last,
            use,
            decision,
            commit_of(self.path.resolve().parent),
            datetime.date.today().isoformat(),
        )
        text = self.path.read_text(encoding="utf-8")
        if text and not text.endswith("\n"):
            text += "\n"
        self.path.write_text(text + entry.toml(), encoding="utf-8")
        self.ranges.append(entry)
        return entry

    def claim(self, span: int, use: str, first: int | None = None) -> tuple[SeedRange, bool]:
        """The range a held-out run of ``span`` seeds plays: ``first``'s (checked, and
        recorded unless it already is) or the next unused one (recorded). Returns it and
        whether it was recorded now."""
        if first is None:
            first = self.next_free(span)
        last = first + span - 1
        known = self.check(first, last)
        if known is not None:
            return known, False
        return self.record(first, last, use), True


def lines(ranges: Iterable[SeedRange]) -> list[str]:
    return [r.line() for r in sorted(ranges, key=lambda r: r.first)]


__all__ = [
    "DEFAULT_LEDGER",
    "HELD_OUT_START",
    "Ledger",
    "SeedRange",
    "commit_of",
    "lines",
]
