"""Two baselines: ``random`` (uniform over legal actions, trading bounded) and ``autarky``
(never trades: keeps what it draws, plants and harvests greedily)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from mypy_extensions import mypyc_attr

from ..actions import Action, ActionType, shape_of
from ..modules import hooks_class, module_info
from ..modules.info import ModuleInfo
from ..shapes import BASE_SHAPES, CARD_KINDS, ParamKind
from ..views import View
from .base import Agent

_T = ActionType


@mypyc_attr(allow_interpreted_subclasses=True)
class RandomAgent(Agent):
    """Uniform over the legal actions (and "nothing now" when allowed), with at most
    ``max_offers`` proposals per turn so that every trade phase ends."""

    name = "random"

    def __init__(self, seed: int = 0, max_offers: int = 2) -> None:
        super().__init__(seed)
        self.rng = random.Random(seed)
        self.coin_rng = random.Random(f"coins {seed}")
        self.max_offers = max_offers
        self._turn = -1
        self._offers = 0

    def wants_offers(self, turn: int) -> bool:
        """Skip listing offer templates once this turn's proposals are used up."""
        return turn != self._turn or self._offers < self.max_offers

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if view.turn != self._turn:
            self._turn, self._offers = view.turn, 0
        options: list[Action | None] = list(legal)
        if self._offers >= self.max_offers:
            options = [a for a in options if a is None or a.type is not _T.PROPOSE]
        if not required:
            options.append(None)
        if not options:
            return None
        choice = self.rng.choice(options)
        if choice is not None and choice.type is _T.PROPOSE:
            self._offers += 1
        if choice is not None and choice.type is _T.BUY_FIELD and view.treasury is not None:
            # R-LADY-10: any three coins of the treasury, in any order onto the discard pile.
            price = view.config.field_price
            # Its own generator, so the choice leaves the stream of other decisions as it was.
            choice = Action.buy_field(tuple(self.coin_rng.sample(view.treasury, price)))
        return choice


@mypyc_attr(allow_interpreted_subclasses=True)
class AutarkyAgent(Agent):
    """The usual non-trading baseline: ends trading at once, refuses every offer, plants
    each card on a field of its variety if it has one, else on an empty field, and when
    stuck harvests the field that pays most (fewest beans lost on a tie). Never buys a
    field and harvests only when a card fits nowhere."""

    name = "autarky"
    proposes = False

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if not legal:
            return None
        # The driver hands a list: compiled, a loop over a list is an indexed C loop, one
        # over a Sequence goes through Python's iterator protocol.
        actions = legal if isinstance(legal, list) else list(legal)
        phase = view.phase
        if phase == "trade":
            for a in actions:
                if a.type is _END_TRADING:
                    return a
            for a in actions:
                if a.type is _DECLINE:
                    return a
            return None
        if not required:
            return None
        module = view.config.module
        if module is not None:
            if module not in _LEARNED:
                _learn(module)
            info = module_info(module)
            if phase in info.phases:  # a module's own steps (a pile turn, R-DUEL-3)
                return _autarky_pile_turn(view, legal, info)
        # One pass (this runs for every decision of a simulation): the first plant onto a
        # field already growing that variety wins; else note the alternatives.
        me = view.me()  # the own seat alone (a live view computes no other)
        fields = me.fields
        first_plant = stop = other = None
        harvests: list[Action] = []
        for a in actions:
            t = a.type
            if t in _PLANTS:
                if fields[a.field]:  # type: ignore[index]
                    return a
                if first_plant is None:
                    first_plant = a
            elif t is _HARVEST:
                harvests.append(a)
            elif t is _STOP_PLANTING:
                stop = a
            elif t in _OTHER and other is None:
                other = a
        if first_plant is not None:
            # An empty field only for a card that must be planted (not the optional second).
            if stop is not None and first_plant.type is _PLANT:
                return stop
            return first_plant
        if stop is not None:
            return stop
        if harvests:
            # The field that pays most, fewest beans lost on a tie; the first such (as
            # ``max`` picks), in a plain loop: compiled, no closure, no call per harvest.
            payouts = me.payouts
            best = harvests[0]
            best_coins = best_beans = -1
            for a in harvests:
                f: int = a.field  # type: ignore[assignment]
                coins, beans = payouts[f], len(fields[f])
                if coins > best_coins or (coins == best_coins and beans < best_beans):
                    best, best_coins, best_beans = a, coins, beans
            return best
        return other if other is not None else legal[0]


#: What autarky makes of the action types, read from their shapes (a module's when
#: its first decision comes, :func:`_learn`): those that put a card on a field (the
#: front card, or a card they name), and a module's steps that name no field (a lady
#: move, a skipped discard). Sets of values: the listing is scanned at every decision.
#: Final, as the action types below: compiled, each is a C static, read without a
#: look-up in the module's globals (an enum member read through its class is a call of
#: the enum's ``__getattr__``), at every decision.
_PLANTS: Final[set[str]] = {_T.PLANT.value, _T.PLANT_TRADED.value}
_OTHER: Final[set[str]] = set()
_LEARNED: Final[set[str]] = set()
_PLANT: Final = ActionType.PLANT
_HARVEST: Final = ActionType.HARVEST
_STOP_PLANTING: Final = ActionType.STOP_PLANTING
_END_TRADING: Final = ActionType.END_TRADING
_DECLINE: Final = ActionType.DECLINE


def _learn(module: str) -> None:
    """Sort a module's own action types into :data:`_PLANTS` and :data:`_OTHER`."""
    for rule in hooks_class(module).rule_classes:
        t = rule.type
        if t.value in BASE_SHAPES:
            continue
        kinds = {p.kind for p in rule.shape().params}
        if ParamKind.FIELD in kinds and kinds & CARD_KINDS:
            _PLANTS.add(t.value)
        elif ParamKind.FIELD not in kinds:
            _OTHER.add(t.value)
    _LEARNED.add(module)


def _places_card(a: Action) -> bool:
    """Whether ``a`` puts a card of a public pile on a field (a module's pile turn)."""
    shape = shape_of(a.type)
    kinds = {p.kind for p in shape.params}
    return ParamKind.FIELD in kinds and ParamKind.PILE_CARD in kinds


def _autarky_pile_turn(view: View, legal: Sequence[Action], info: ModuleInfo) -> Action:
    """Pile-turn steps (R-DUEL-3): take offered or revealed cards that fit a growing or empty field; discard
    the rest of the offer; never discard from the hand; harvest only when nothing fits."""
    me = view.me()
    plants = [a for a in legal if _places_card(a)]
    for a in plants:
        if me.fields[a.field]:  # type: ignore[index]
            return a
    if plants:
        return plants[0]
    hand_discard = view.phase in info.hand_discard_phases
    for a in legal:
        # A step that names no field: discard an offered card, leave the rest, keep the
        # hand; never one that names a card where a click discards from the hand.
        if a.type in _OTHER and not (hand_discard and shape_of(a.type).params):
            return a
    return legal[0]
