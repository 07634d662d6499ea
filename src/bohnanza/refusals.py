"""Refusals as data: why an action is not allowed, as a code, a rule ID and numbers.

The engine's :class:`~bohnanza.errors.IllegalAction` message is English prose for
programmers ("seat 0 cannot buy a third field: ..."). A player's screen needs the reason in
its own language and numbering (seat 1, field 2), so :func:`explain` turns a refusal into a
``code`` with ``params`` that a message catalogue renders (the web app's ``err.*``
strings). The parameters are read from the game state, never parsed out of the prose; seat
and field numbers in ``params`` are 1-based, as players count them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .actions import Action, ActionType
from .errors import GameOver, IllegalAction, InvalidOffer, NotYourTurn
from .game import Game

#: Every ``code`` :func:`explain` gives (the web app has a string for each: ``err.<code>``).
CODES = (
    "game_over",
    "have_third_field",
    "no_third_field_left",
    "field_price",
    "field_empty",
    "no_field",
    "field_protected",
    "not_now",
    "own_turn_only",
    "bad_offer",
    "not_allowed",
)


#: Modules in which harvesting or buying a field is for the active player only.
_OWN_TURN_RULES = frozenset(("R-DUEL-2", "R-LADY-9"))


@dataclass(frozen=True, slots=True)
class Refusal:
    code: str
    rule: str | None
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "rule": self.rule, "params": dict(self.params)}


def explain(game: Game, seat: int, action: Action, exc: IllegalAction) -> Refusal:
    """The refusal of ``action`` by ``seat`` (which raised ``exc``) as data."""
    rule = exc.rule
    kind = action.type.value
    if isinstance(exc, GameOver):
        return Refusal("game_over", rule)
    timed = action.type in (ActionType.BUY_FIELD, ActionType.HARVEST)
    if timed and rule in _OWN_TURN_RULES and seat != game.active:
        return Refusal("own_turn_only", rule, {"action": kind, "active": game.active + 1})
    if timed and game.pending is not None:  # R-HARV-1: not inside an indivisible step
        return Refusal("not_now", rule, {"action": kind, "active": game.pending[0] + 1})
    if action.type is ActionType.BUY_FIELD:
        fields = game.fields[seat]
        price = game.config.field_price
        if len(fields) >= 3:
            return Refusal("have_third_field", rule or "R-FIELD-1")
        if game.supply <= 0:
            return Refusal("no_third_field_left", rule or "R-FIELD-1")
        if game.coins(seat) < price and rule in (None, "R-FIELD-2"):
            return Refusal(
                "field_price", rule or "R-FIELD-2", {"price": price, "coins": game.coins(seat)}
            )
    if action.type is ActionType.HARVEST and isinstance(action.field, int):
        fields = game.fields[seat]
        if rule is None and not 0 <= action.field < len(fields):
            return Refusal("no_field", rule, {"field": action.field + 1, "n": len(fields)})
        if rule is None and not fields[action.field]:
            return Refusal("field_empty", rule, {"field": action.field + 1})
        if len(fields[action.field]) == 1 and rule == "R-HARV-3":
            other = max(range(len(fields)), key=lambda i: len(fields[i]))
            return Refusal(
                "field_protected",
                rule,
                {"field": action.field + 1, "other": other + 1, "n": len(fields[other])},
            )
    if isinstance(exc, NotYourTurn):
        return Refusal("not_now", rule, {"action": kind, "active": game.active + 1})
    if isinstance(exc, InvalidOffer):
        return Refusal("bad_offer", rule, {"action": kind})
    return Refusal("not_allowed", rule, {"action": kind})
