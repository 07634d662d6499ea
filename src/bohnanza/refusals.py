"""Refusals as data: why an action is not allowed, as a code, a rule ID and numbers.

The engine's :class:`~bohnanza.errors.IllegalAction` message is English prose for
programmers ("seat 0 cannot buy a third field: ..."). A player's screen needs the reason in
its own language and numbering (seat 1, field 2), so :func:`explain` turns a refusal into a
``code`` with ``params`` that a message catalogue renders (the web app's ``err.*``
strings). The parameters come from the typed refusal the rule object gave (``exc.refusal``), never
parsed out of the prose; seat and field numbers in ``params`` are 1-based, as players
count them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .actions import Action
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
    "wrong_phase",
    "field_variety",
    "trade_with_active",
    "offer_gone",
)

_OFFER_ANSWERS = frozenset(("accept", "decline", "withdraw"))


@dataclass(frozen=True, slots=True)
class Explanation:
    """A refusal as a message catalogue needs it: a code, the rule, 1-based numbers."""

    code: str
    rule: str | None
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "rule": self.rule, "params": dict(self.params)}


#: Codes whose parameters are the action and the seat whose move it is.
_WITH_ACTION = frozenset(("not_now", "own_turn_only", "bad_offer", "not_allowed"))


def explain(game: Game, seat: int, action: Action, exc: IllegalAction) -> Explanation:
    """The refusal of ``action`` by ``seat`` (which raised ``exc``) as data: the rule
    object's typed :class:`~bohnanza.errors.Refusal` (``exc.refusal``), renumbered from 1.

    Two refusals are made more exact than the rule object's code: a move refused to the
    active seat itself because its phase is over (a double click on "Stop planting") is
    ``wrong_phase`` with the phase, never "the active player is seat 1" told to seat 1;
    a card refused by a field of another variety (R-PLANT-3) is ``field_variety`` with
    the field, its variety and the card's; an offer between two players who are not
    active is ``trade_with_active`` (R-TRADE-2), and an answer to an offer that is no
    longer open is ``offer_gone``."""
    out = _explain(game, seat, action, exc)
    if out.params.get("active") == seat + 1 and out.code in ("not_now", "own_turn_only"):
        return Explanation(
            "wrong_phase", out.rule, {"action": out.params["action"], "phase": str(game.phase)}
        )
    fields = game.fields[seat]
    if out.code == "not_allowed" and action.field is not None and action.field >= len(fields):
        return Explanation("no_field", out.rule, {"field": action.field + 1, "n": len(fields)})
    if out.code == "bad_offer":
        kind = action.type.value
        offer = action.offer
        if (
            kind == "propose"
            and offer is not None
            and seat != game.active
            and offer.to != game.active
            and offer.to != seat
        ):
            # R-TRADE-2: "you trade only with the active player (Dora)".
            return Explanation(
                "trade_with_active", "R-TRADE-2", {"action": kind, "active": game.active + 1}
            )
        if kind in _OFFER_ANSWERS and action.offer_id not in game.offers:
            # Taken, declined, withdrawn or cancelled meanwhile (a double click too).
            return Explanation("offer_gone", out.rule, {"action": kind})
    if out.code == "not_allowed" and out.rule == "R-PLANT-3":
        variety = _field_variety(game, seat, action)
        if variety is not None:
            return Explanation("field_variety", out.rule, variety)
    return out


def _field_variety(game: Game, seat: int, action: Action) -> dict[str, Any] | None:
    """The field, its top card's variety and the planted card's, for R-PLANT-3."""
    field = action.field
    fields = game.fields[seat]
    if field is None or not 0 <= field < len(fields) or not fields[field]:
        return None
    card = action.card
    if card is None:  # planting from the hand: its front card
        hand = game.hands[seat]
        if not hand:
            return None
        card = hand[0]
    config = game.config
    top = fields[field][-1]
    return {"field": field + 1, "top": config.variety_of(top), "card": config.variety_of(card)}


def _explain(game: Game, seat: int, action: Action, exc: IllegalAction) -> Explanation:
    refusal = exc.refusal
    if isinstance(exc, GameOver):
        return Explanation("game_over", exc.rule)
    kind = action.type.value
    if refusal is None:  # refused before any rule was asked (a malformed action)
        code = (
            "not_now"
            if isinstance(exc, NotYourTurn)
            else "bad_offer"
            if isinstance(exc, InvalidOffer)
            else "not_allowed"
        )
        params: dict[str, Any] = {"action": kind}
        if code == "not_now":
            params["active"] = game.active + 1
        return Explanation(code, exc.rule, params)
    code = refusal.code
    details = refusal.details
    params = {}
    if code in _WITH_ACTION:
        params["action"] = kind
        if "active" in details:
            params["active"] = details["active"] + 1
    else:
        for key in ("field", "other"):
            if key in details:
                params[key] = details[key] + 1
        for key in ("n", "price", "coins"):
            if key in details:
                params[key] = details[key]
    return Explanation(code, refusal.rule, params)
