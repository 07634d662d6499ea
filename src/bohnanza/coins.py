"""Which coins pay for a third field in ``fasolufka`` (R-LADY-10), seen from one view.

The paid coins go onto the discard pile face up and come back into play at the next
reshuffle, so a buyer gives back the cards least useful to the *other* seats. A card is
useful to an opponent when it fits one of their fields: most when the field is topped by
a lady of that variety (another lady keeps the better beanometer on top, R-LADY-3/4), and
Gardener cards while an opponent grows Gardeners (a Gardener lady pays N + 1, R-LADY-5).
Ladies are worth more than men, children least (a child on top pays nothing).

The order matters as well: the last coin ends on top of the discard pile, where the next
Gardener-lady harvest takes its coins first (R-LADY-5), taking them out of circulation
before a reshuffle can return them. So the most useful of the three goes last.

Bots, the RL encoding and the interfaces' suggested default share this one function.
"""

from __future__ import annotations

from .actions import Action, ActionType
from .views import View

#: What one card of a kind is worth to a field of its variety (see the module docstring).
_KIND_WORTH = {"lady": 1.0, "man": 0.6, "child": 0.3, "": 0.6}


def usefulness(view: View, card: int) -> float:
    """How much ``card`` would help the seats other than the reader if it came back."""
    cfg = view.config
    variety = cfg.card_variety[card]
    gardener = cfg.varieties.index("gardener") if "gardener" in cfg.varieties else -1
    worth = _KIND_WORTH.get(cfg.card_kind[card], 0.6)
    score = 0.0
    for sv in view.seats:
        if sv.seat == view.seat:
            continue
        for field in sv.fields:
            if not field or cfg.card_variety[field[-1]] != variety:
                continue
            lady_top = cfg.card_kind[field[-1]] == "lady"
            score += worth * (2.0 if lady_top else 1.0)
            if variety == gardener:
                score += 1.0 + (1.0 if lady_top else 0.0)
    return score


def choose_coins(view: View) -> tuple[int, ...]:
    """The coins the reader pays a third field with, in discard order (R-LADY-10):
    the ``field_price`` least useful to others, the most useful of them last (on top).
    Ties keep the oldest coins first, so the choice is deterministic. Empty when the
    view shows no treasury (rule sets where the top coins pay, R-FIELD-3)."""
    coins = view.treasury
    price = view.config.field_price
    if coins is None or len(coins) < price:
        return ()
    ranked = sorted(range(len(coins)), key=lambda i: (usefulness(view, coins[i]), i))
    chosen = [coins[i] for i in ranked[:price]]
    chosen.sort(key=lambda c: usefulness(view, c))
    return tuple(chosen)


def with_coins(view: View, action: Action) -> Action:
    """``action``, with the reader's coin choice filled in when it is a buy that names
    none in a rule set where the buyer chooses (the legal-action list holds one buy
    template, like offer templates); anything else unchanged."""
    if action.type is not ActionType.BUY_FIELD or action.cards or view.treasury is None:
        return action
    coins = choose_coins(view)
    return Action.buy_field(coins) if coins else action
