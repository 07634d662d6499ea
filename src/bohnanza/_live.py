"""Completing the live views a game handed out, before the game changes (issue 34).

Kept out of the compiled core on purpose (it is not in ``[tool.bohnanza.compile]``): it
asks the interpreter how many references a view has, and interpreted code holds them
the same way whatever calls it. A live :class:`~bohnanza.views.View` computes its parts
from the game when they are read; before the game's next action, every live view that
someone still holds (an agent that kept it, a caller's variable) is completed from the
unchanged state; one that nobody holds any more is simply let go, its unread parts never
computed - the saving of a lazy view.
"""

from __future__ import annotations

import sys
from typing import Any

_refs = sys.getrefcount


def _base() -> int:
    """References to a view held only by the game's list, as :func:`retire` counts
    them (the list, the loop variable, the call's argument): measured, not assumed."""
    live: list[Any] = [object()]
    for view in live:
        return _refs(view)
    raise AssertionError("unreachable")


_BASE = _base()


def retire(live: list[Any]) -> None:
    """Complete every view of ``live`` held elsewhere, and empty ``live``."""
    for view in live:
        if _refs(view) > _BASE:
            view._freeze()
    live.clear()
