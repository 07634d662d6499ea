"""Whether a game waits for a person's seat: the one rule that "your games" lists
(``account_routes``) and the turn e-mail follows (``mail``), below both of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..game import TRADE

if TYPE_CHECKING:
    from .model import Table


def your_turn(table: Table, seat: int) -> bool:
    """Whether the game waits for this seat now (its decision, or its phase 2)."""
    game = table.game
    if table.status != "playing" or game is None or game.over:
        return False
    if game.pending is None and game.phase == TRADE:
        return game.active == seat
    return seat in game.waiting_for()
