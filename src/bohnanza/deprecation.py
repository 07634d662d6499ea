"""Deprecated names: one warning, one form, pointing at the caller's own line.

A public name that is replaced stays one minor version (docs/releasing.md): it still
works, and each use warns with a :class:`DeprecationWarning` that says what to use
instead. The warning is attributed to the first frame outside this package, so that
Python's default filter (which shows deprecation warnings raised from ``__main__``) and
pytest's summary point at the user's line, not at the shim: a fixed ``stacklevel`` would
be wrong in one of the two builds, since functions compiled by mypyc have no frames.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path

_PACKAGE = str(Path(__file__).resolve().parent)


def _outside_stacklevel() -> int:
    """The ``stacklevel`` of the first caller frame whose code is not in this package."""
    frame = sys._getframe(1)  # warn_deprecated itself: stacklevel 1
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def warn_deprecated(old: str, new: str, removed_in: str = "0.3.0") -> None:
    """Warn that ``old`` is deprecated in favour of ``new`` (both as a reader writes them:
    ``"Action.move_lady(card)"``) and goes in version ``removed_in``."""
    warnings.warn(
        f"{old} is deprecated and will be removed in bohnanza {removed_in}; use {new} instead",
        DeprecationWarning,
        stacklevel=_outside_stacklevel(),
    )


class DeprecatedAttribute:
    """A class attribute that warns when read and answers what replaced it: for names
    that cannot be kept as they were, such as an enumeration's removed members (put back
    as members, they would be listed with the others). ``load`` gives the value, imported
    when first read."""

    def __init__(self, old: str, new: str, load: Callable[[], object]) -> None:
        self.old, self.new, self.load = old, new, load

    def __get__(self, obj: object, owner: type | None = None) -> object:
        warn_deprecated(self.old, self.new)
        return self.load()
