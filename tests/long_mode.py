"""The long mode's switch, for the size options (docs/testing.md, "The long modes"):
``BOHNANZA_LONG=1`` runs the tests marked ``long`` and makes the sizes below their long
defaults. An explicit size option (``BOHNANZA_FUZZ_EXAMPLES=…``) wins either way."""

from __future__ import annotations

import os

LONG = os.environ.get("BOHNANZA_LONG", "") not in ("", "0")


def size(option: str, default: int, long: int) -> int:
    """The size ``option`` asks for, else its default in this mode."""
    return int(os.environ.get(option) or (long if LONG else default))
