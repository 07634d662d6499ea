"""Which coins pay for a third field where the buyer chooses them (R-LADY-10), seen
from one view.

The paid coins come back into play, so a buyer gives back the cards least useful to the
*other* seats; how useful a coin is to them is the module's own knowledge
(:meth:`bohnanza.modules.base.Hooks.coin_usefulness`). The order matters as well: the
last coin ends on top of the discard pile, where it is taken first, so the most useful
of the chosen coins goes last.

Bots, the RL encoding and the interfaces' suggested default share this one function.
"""

from __future__ import annotations

from .actions import Action, ActionType
from .modules import hooks_class
from .views import View


def usefulness(view: View, card: int) -> float:
    """How much ``card`` would help the seats other than the reader if it came back
    (the view's module decides: :meth:`~bohnanza.modules.base.Hooks.coin_usefulness`)."""
    return hooks_class(view.config.module).coin_usefulness(view, card)


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
