"""Rules as objects: one :class:`Rule` per action type (in the spirit of PokerKit's
operations), so that each rule is written once.

A rule object knows

* its action type (``type``) and the phases where it applies (``phases``; ``None``: any
  phase but the end, like a harvest, R-HARV-1), or that it answers a pending decision
  (``pending``);
* ``candidates(game, seat, offers)``: the actions of its type ``seat`` may take now (the
  legal listing; any fast path lives here, next to the check it must agree with);
* ``refusal(game, seat, action)``: why ``action`` is not allowed, as a typed
  :class:`~bohnanza.errors.Refusal` (rule ID, a code, numbers and the English message),
  or ``None``;
* ``execute(game, seat, action)``: carry out an action that passed ``refusal``.

:class:`~bohnanza.modules.base.Hooks` builds one instance of each class in its
``rule_classes`` (a table per hooks class): :meth:`Game.check` asks the rule of the
action's type, and :meth:`Game.legal_actions` is the union of the candidates of the rules
of the current phase, in table order (anytime rules last).

**How a module adds or changes an action type.** Subclass :class:`Rule` (or a base rule
to change it), set ``type`` and ``phases`` and write the three methods; then list it in
the module's hooks. A brand-new action type is declared on its rule, by its shape
(:class:`~bohnanza.shapes.ActionShape`: the parameters it takes, with their kinds and
EN/PL labels, and its command words): ``ActionType.extend`` makes the type, and every
front end derives its commands, menus and forms from that shape (``Rule.shape``)::

    class TollRule(Rule):  # tests/fixtures/module_toll.py, docs/modules.md
        type = ActionType.extend(ActionShape(
            "toll",
            (Param(ParamKind.HAND_CARD, "card", ("hand card", "karta z ręki")),
             Param(ParamKind.FIELD, "field", ("field", "pole"))),
            ("pay the toll and plant", "zapłać myto i zasadź"),
            words=("toll", "myto"),
        ))
        phases = frozenset({PLANT})

        def candidates(self, game, seat, offers):
            if seat != game.active or game.planted:
                return []
            return [Action(self.type, card=c, field=f) for c in game.hands[seat][1:]
                    for f in range(len(game.fields[seat]))
                    if self.hooks.can_plant(game, seat, c, f)]

        def refusal(self, game, seat, action):
            if action.card not in game.hands[seat][1:]:
                return self.refuse(game, seat, "pay the toll", "not a card behind the front one",
                                   RULE, code="toll_not_behind")  # its words: add_reasons
            return self.hooks.plant_refusal(game, seat, "pay the toll", action.card, action.field)

        def execute(self, game, seat, action):
            ...

    class MyHooks(Hooks):
        rule_classes = with_rules(Hooks.rule_classes, TollRule)

:func:`with_rules` replaces the rule of the same action type in place (a module's own
harvest rule, say) and puts new ones before the anytime rules. The core
:class:`~bohnanza.actions.ActionType` enum holds the base game's types only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations, product
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeAlias

from mypy_extensions import mypyc_attr

from ..actions import Action, ActionType, Offer, shape_of
from ..errors import IllegalAction, InvalidOffer, NotYourTurn, Refusal
from ..pickling import rebuilt
from ..refusals import add_reasons
from ..state import MAX_OFFER_CARDS, MAX_OPEN_OFFERS, OVER, PLANT, PLANT_TRADED, TRADE

if TYPE_CHECKING:
    from ..game import Game
    from ..rules import GameConfig
    from ..shapes import ActionShape
    from ..state import Pending
    from .base import Hooks

_T = ActionType

add_reasons(
    {
        "not_an_answer": (
            "{action} is not one of the answers to the open decision",
            "{action} nie jest jedną z odpowiedzi na czekającą decyzję",
        ),
    }
)
_ErrorKind: TypeAlias = "type[IllegalAction]"
# Final: compiled, each is a C static, read without a look-up in the module's globals
# (the listing reads them at every decision).
_HARVEST: Final = [Action.harvest(i) for i in range(3)]
_PLANT: Final = [Action.plant(i) for i in range(3)]
_STOP: Final = Action.stop_planting()
_END: Final = Action.end_trading()
_BUY: Final = Action.buy_field()
_PLANT_TRADED_T: Final = ActionType.PLANT_TRADED
_new_action: Callable[[type[Action], tuple[object, ...]], Action] = tuple.__new__
#: ``Action.plant_traded(card, field)`` at ``card * 3 + field`` (None: not made yet).
_PLANT_TRADED_TABLE: Final[list[Action | None]] = []
_ANSWERS: dict[tuple[ActionType, int], Action] = {}


def _answer(kind: ActionType, offer_id: int) -> Action:
    """``Action.withdraw(offer_id)`` or ``Action.decline(offer_id)``, one shared value per
    offer id (offers stay open over many listings; actions are immutable values)."""
    key = (kind, offer_id)
    got = _ANSWERS.get(key)
    if got is None:
        if len(_ANSWERS) >= 8192:
            _ANSWERS.clear()
        got = _ANSWERS[key] = Action(kind, offer_id=offer_id)
    return got


def _plant_traded(card: int, field: int) -> Action:
    """``Action.plant_traded(card, field)``, one shared value per card and field (listed
    for every phase-3 decision; actions are immutable values), kept in a list indexed by
    card and field: no key to build, no hashing."""
    if not (0 <= card < 4096 and 0 <= field < 3):  # a seat has at most three fields
        return Action(_PLANT_TRADED_T, field=field, card=card)
    table = _PLANT_TRADED_TABLE
    k = card * 3 + field
    if k >= len(table):
        table.extend([None] * (k + 1 - len(table)))
    got = table[k]
    if got is None:
        got = table[k] = Action(_PLANT_TRADED_T, field=field, card=card)
    return got


@mypyc_attr(allow_interpreted_subclasses=True)
class Rule:
    """One action type's rule: when it applies, what may be done, why not, and how."""

    #: The action type this rule decides.
    type: ClassVar[ActionType]
    #: Phases where the rule's actions are listed; ``None``: every phase but the end.
    phases: ClassVar[frozenset[str] | None] = None
    #: True for the answer to a pending indivisible decision (R-HARV-1): while one is
    #: open, only such rules are listed and asked.
    pending: ClassVar[bool] = False
    #: Rules with the same ``group`` that follow each other in a phase's listing are
    #: listed interleaved, ordered by the group's :meth:`order` (the answers to one offer
    #: together, say), as players read them.
    group: ClassVar[str | None] = None

    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks
        self.config: GameConfig = hooks.config

    def __reduce__(self) -> tuple[Any, ...]:
        # Like its hooks (``Hooks.__reduce__``): everything a rule holds comes from them
        # but its caches of candidates, which every game of the configuration fills; it
        # comes back as its hooks' own rule.
        return (shared_rule, (type(self), self.hooks))

    @classmethod
    def shape(cls) -> ActionShape:
        """The shape of this rule's action (its parameters, labels and command words),
        declared once with its type (:meth:`ActionType.extend`; the base game's in
        :mod:`bohnanza.shapes`)."""
        return shape_of(cls.type)

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        """Every action of this type ``seat`` may take now (``offers=False``: leave out
        proposal templates, the costliest part of the list)."""
        return []

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        """Why ``seat`` may not take ``action`` (of this rule's type) now, or None. The
        answer to a decision (``pending``) is by default one of its candidates: the
        engine asks it only for the deciding seat while its decision is open
        (:meth:`~bohnanza.modules.base.Hooks.pending_refusal`)."""
        if self.pending:
            if action in self.candidates(game, seat, False):
                return None
            what = action.type.value.replace("_", " ")
            why = "it is not one of the answers to the open decision"
            return self.refuse(game, seat, what, why, "R-HARV-1", code="not_an_answer")
        raise NotImplementedError

    def execute(self, game: Game, seat: int, action: Action) -> None:
        """Carry out ``action``, which passed :meth:`refusal`."""
        raise NotImplementedError

    def order(self, game: Game) -> Callable[[Action], int]:
        """The sort key of this rule's ``group`` in a listing."""
        raise NotImplementedError

    def phase_refusal(self, game: Game, seat: int, action: Action) -> Refusal:
        """The refusal of an action outside the rule's declared ``phases`` (the hooks
        enforce them: :meth:`~bohnanza.modules.base.Hooks.refusal`)."""
        what = action.type.value.replace("_", " ")
        why = not_now(game, f"{what} is not possible in phase {game.phase}")
        return self.refuse(game, seat, what, why, None, NotYourTurn)

    def refuse(
        self,
        game: Game,
        seat: int,
        what: str,
        why: str,
        rule: str | None = None,
        kind: _ErrorKind = IllegalAction,
        code: str = "",
        **details: int | str,
    ) -> Refusal:
        """The refusal "seat cannot <what>: <why> (rule)" with its reason's ``code`` and
        ``details`` (:data:`bohnanza.refusals.REASONS`). A refusal of kind
        :class:`NotYourTurn` without a code is ``not_now``, naming the seat whose move it
        is (``details["active"]``) - or ``wrong_phase`` (with the phase) when that seat is
        the refused one itself: its step is over or not yet begun."""
        if issubclass(kind, NotYourTurn):
            if "active" not in details:
                details["active"] = game.active
            if not code:
                if details["active"] == seat and game.phase != OVER:
                    code = "wrong_phase"
                    del details["active"]
                    details["phase"] = str(game.phase)
                else:
                    code = "not_now"
        return Refusal(seat, what, why, rule, kind, code, details)


def with_rules(base: Iterable[type[Rule]], *rules: type[Rule]) -> tuple[type[Rule], ...]:
    """``base`` with ``rules`` added: a rule replaces the one of its action type where it
    stands; a new one goes before the anytime rules (those without phases)."""
    table = list(base)
    for rule in rules:
        same = [i for i, r in enumerate(table) if r.type is rule.type]
        if same:
            table[same[0]] = rule
            continue
        anytime = [i for i, r in enumerate(table) if r.phases is None and not r.pending]
        table.insert(anytime[0] if anytime else len(table), rule)
    return tuple(table)


@mypyc_attr(allow_interpreted_subclasses=True)
class DecisionRule(Rule):
    """The rule that answers a pending decision (R-HARV-1) of its own kind (its action
    type's value, declared with :func:`~bohnanza.game.declare_decision`). The engine
    routes to it: while a decision is open only the deciding seat may act, only with
    this rule's action, and the action is checked by :meth:`refusal` (by default: one
    of :meth:`candidates`). A module writes :meth:`candidates` (the answers, from
    :meth:`decision`) and :meth:`execute`, which ends the decision with
    ``self.hooks.pop_pending(game)``."""

    pending = True

    def decision(self, game: Game, seat: int) -> Pending | None:
        """The open decision if it is this rule's and ``seat``'s to take, else None."""
        p = game.pending
        if p is None or p.seat != seat or p.kind != self.type.value:
            return None
        return p


def not_now(game: Game, why: str) -> str:
    if game.phase == OVER:
        return "the game is over"
    return f"{why}; now it is seat {game.active}'s turn, phase {game.phase}"


# ---------------------------------------------------------------------------- phase 1


@mypyc_attr(allow_interpreted_subclasses=True)
class PlantRule(Rule):
    """Phase 1: the front hand card onto a field (R-PLANT-1…3)."""

    type = _T.PLANT
    phases = frozenset({PLANT})

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        if seat != game.active:
            return []
        hand = game.hands[seat]
        if not hand or game.planted >= 2:
            return []
        card = hand[0]
        hooks = self.hooks
        if hooks._base_planting:
            # A plain loop: a comprehension would be a frame of its own, with closures.
            cv = hooks.card_variety
            v = cv[card]
            acts = []
            i = 0
            for f in game.fields[seat]:
                if not f or cv[f[-1]] == v:
                    acts.append(_PLANT[i])
                i += 1  # noqa: SIM113  (interpreted, enumerate costs more than this)
            return acts
        return [
            Action.plant(f)
            for f in range(len(game.fields[seat]))
            if hooks.can_plant(game, seat, card, f)
        ]

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        what = f"plant on field {action.field}"
        if game.phase != PLANT or seat != game.active:
            why = not_now(game, "planting from the hand is phase 1 of one's own turn")
            return self.refuse(game, seat, what, why, "R-PLANT-1", NotYourTurn)
        if game.planted >= 2:
            why = "two cards are already planted this turn"
            return self.refuse(game, seat, what, why, "R-PLANT-2", code="planted_two")
        hand = game.hands[seat]
        if not hand:
            why = "the hand is empty"
            return self.refuse(game, seat, what, why, "R-PLANT-1", code="hand_empty")
        return self.hooks.plant_refusal(game, seat, what, hand[0], action.field)

    def execute(self, game: Game, seat: int, action: Action) -> None:
        hooks = self.hooks
        card = game.hands[seat].pop(0)
        field = action.field
        assert field is not None
        if game._events is not None:
            game.emit("plant", seat, card=card, field=field, variety=self.config.variety_of(card))
        hooks.place(game, seat, card, field)
        game.planted += 1
        if game.pending is None:
            hooks.after_plant(game)


@mypyc_attr(allow_interpreted_subclasses=True)
class StopPlantingRule(Rule):
    """Phase 1: decline the optional second card (R-PLANT-2)."""

    type = _T.STOP_PLANTING
    phases = frozenset({PLANT})

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        return [_STOP] if seat == game.active and game.planted == 1 else []

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        if game.phase != PLANT or seat != game.active:
            why = not_now(game, "it is not its phase 1")
            return self.refuse(game, seat, "stop planting", why, "R-PLANT-2", NotYourTurn)
        if game.planted == 0:
            why = "the front card must be planted first"
            return self.refuse(game, seat, "stop planting", why, "R-PLANT-1", code="plant_first")
        return None

    def execute(self, game: Game, seat: int, action: Action) -> None:
        if game._events is not None:
            game.emit("stop_planting", seat)
        self.hooks.start_trade(game)


# ---------------------------------------------------------------------------- phase 2


@mypyc_attr(allow_interpreted_subclasses=True)
class TradeRule(Rule):
    """What every phase-2 action shares: there is trading, and it is phase 2."""

    phases = frozenset({TRADE})

    def trade_refusal(self, game: Game, seat: int, what: str) -> Refusal | None:
        if not self.hooks.trading:
            why = f"there is no trading in {self.config.rules}"
            return self.refuse(game, seat, what, why, "R-DUEL-1", NotYourTurn, code="no_trading")
        if game.phase != TRADE:
            why = not_now(game, "trading happens in phase 2")
            return self.refuse(game, seat, what, why, "R-TRADE-1", NotYourTurn)
        return None


@mypyc_attr(allow_interpreted_subclasses=True)
class OfferAnswerRule(TradeRule):
    """Withdraw, decline or accept one open offer: listed offer by offer."""

    group = "offer"

    def order(self, game: Game) -> Callable[[Action], int]:
        return _offer_id

    def open_offer(
        self, game: Game, seat: int, action: Action, what: str
    ) -> tuple[int, Offer] | Refusal:
        refused = self.trade_refusal(game, seat, what)
        if refused:
            return refused
        oid = action.offer_id
        entry = game.offers.get(oid) if isinstance(oid, int) else None
        if entry is None:
            why = f"there is no open offer {oid!r}"
            return self.refuse(game, seat, what, why, kind=InvalidOffer, code="offer_gone")
        return entry


def _offers_full(game: Game, seat: int) -> bool:
    """Whether ``seat`` keeps the most open offers allowed (counted only when that many
    offers are open at all)."""
    offers = game.offers
    if len(offers) < MAX_OPEN_OFFERS:
        return False
    return sum(1 for p, _ in offers.values() if p == seat) >= MAX_OPEN_OFFERS


_TEMPLATES: dict[tuple[int, int, str | None, str | None], Action] = {}


def _template(to: int, card: int, want: str | None, declared: str | None) -> Action:
    """The one-card proposal template ``card`` to ``to`` for one ``want`` card (None: a
    gift), claiming ``declared``: one shared value each (actions are immutable values)."""
    key = (to, card, want, declared)
    got = _TEMPLATES.get(key)
    if got is None:
        if len(_TEMPLATES) >= 65536:
            _TEMPLATES.clear()
        offer = Offer(
            to,
            (card,),
            ((want, 1),) if want is not None else (),
            (declared,) if declared is not None else (),
        )
        got = _TEMPLATES[key] = Action.propose(offer)
    return got


def _offer_id(action: Action) -> int:
    return action.offer_id or 0


@mypyc_attr(allow_interpreted_subclasses=True)
class WithdrawRule(OfferAnswerRule):
    """Take back one's own open offer."""

    type = _T.WITHDRAW

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        return [_answer(_T.WITHDRAW, oid) for oid, (p, _) in game.offers.items() if p == seat]

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        what = f"withdraw offer {action.offer_id}"
        entry = self.open_offer(game, seat, action, what)
        if isinstance(entry, Refusal):
            return entry
        proposer = entry[0]
        if proposer != seat:
            why = f"it was proposed by seat {proposer}"
            return self.refuse(
                game, seat, what, why, kind=InvalidOffer, code="not_your_offer", partner=proposer
            )
        return None

    def execute(self, game: Game, seat: int, action: Action) -> None:
        assert action.offer_id is not None
        game.offers.pop(action.offer_id)
        game.emit("withdraw", seat, offer_id=action.offer_id)


@mypyc_attr(allow_interpreted_subclasses=True)
class DeclineRule(OfferAnswerRule):
    """Refuse an offer or gift addressed to oneself (R-TRADE-4)."""

    type = _T.DECLINE

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        return [
            _answer(_T.DECLINE, oid)
            for oid, (p, o) in game.offers.items()
            if p != seat and o.to == seat
        ]

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        what = f"decline offer {action.offer_id}"
        entry = self.open_offer(game, seat, action, what)
        if isinstance(entry, Refusal):
            return entry
        offer = entry[1]
        if offer.to != seat:
            why = f"it is addressed to seat {offer.to}"
            return self.refuse(
                game, seat, what, why, kind=InvalidOffer, code="offer_to_other", partner=offer.to
            )
        return None

    def execute(self, game: Game, seat: int, action: Action) -> None:
        assert action.offer_id is not None
        proposer, offer = game.offers.pop(action.offer_id)
        game.emit("decline", seat, offer_id=action.offer_id, proposer=proposer, gift=offer.is_gift)


@mypyc_attr(allow_interpreted_subclasses=True)
class AcceptRule(OfferAnswerRule):
    """Accept an offer addressed to oneself, choosing the cards it asks for (R-TRADE-2/3)."""

    type = _T.ACCEPT

    def __init__(self, hooks: Hooks) -> None:
        super().__init__(hooks)
        #: The accepts of one offer by (offer id, what it wants, the reader's tradeable
        #: cards): all they depend on. Offers stay open over many listings.
        self._cache: dict[tuple[object, ...], list[Action]] = {}

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        acts: list[Action] = []
        mine: tuple[int, ...] | None = None
        cache = self._cache
        for oid, (p, o) in game.offers.items():
            if p != seat and o.to == seat:
                if mine is None:
                    mine = tuple(game.tradeable(seat))
                key = (oid, o.want, mine)
                got = cache.get(key)
                if got is None:
                    if len(cache) >= 4096:
                        cache.clear()
                    got = cache[key] = [
                        Action.accept(oid, c) for c in _choices(list(mine), o.want, self.config)
                    ]
                acts += got
        return acts

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        what = f"accept offer {action.offer_id}"
        entry = self.open_offer(game, seat, action, what)
        if isinstance(entry, Refusal):
            return entry
        proposer, offer = entry
        if offer.to != seat:
            why = f"it is addressed to seat {offer.to}"
            return self.refuse(
                game, seat, what, why, kind=InvalidOffer, code="offer_to_other", partner=offer.to
            )
        cards = action.cards
        if len(set(cards)) != len(cards):
            why = "a card is chosen twice"
            return self.refuse(game, seat, what, why, kind=InvalidOffer, code="card_twice")
        mine = game.tradeable(seat)
        for c in cards:
            if c not in mine:
                why = f"card {c} is not among its tradeable cards"
                return self.refuse(
                    game, seat, what, why, "R-TRADE-2", InvalidOffer, "not_tradeable"
                )
        want = {v: n for v, n in offer.want}
        got: dict[str, int] = {}
        for c in cards:
            v = self.config.variety_of(c)
            got[v] = got.get(v, 0) + 1
        if got != want:
            asked = ", ".join(f"{n} {v}" for v, n in offer.want) or "nothing"
            chosen = ", ".join(f"{n} {v}" for v, n in got.items()) or "nothing"
            why = f"the offer asks for {asked}; the chosen cards are {chosen}"
            return self.refuse(game, seat, what, why, kind=InvalidOffer, code="wrong_cards")
        theirs = game.tradeable(proposer)
        if any(c not in theirs for c in offer.give):
            why = f"seat {proposer} no longer holds the offered cards"
            return self.refuse(
                game,
                seat,
                what,
                why,
                "R-TRADE-3",
                InvalidOffer,
                "offer_cards_gone",
                partner=proposer,
            )
        return None

    def execute(self, game: Game, seat: int, action: Action) -> None:
        self.hooks.accept(game, seat, action)


@mypyc_attr(allow_interpreted_subclasses=True)
class ProposeRule(TradeRule):
    """Open an offer (R-TRADE-1…4). Listed as a finite sample of templates."""

    type = _T.PROPOSE
    #: Templates are remembered per (seat, active seat, hand, drawn cards, field tops,
    #: whether the seat may open more offers): everything the base templates and the
    #: modules' declarations read. Within a trading phase the same seat is asked again
    #: and again in an unchanged position, and building them was the costliest part of
    #: a listing. A module whose templates read more sets this to 0.
    cache_size: ClassVar[int] = 4096

    def __init__(self, hooks: Hooks) -> None:
        super().__init__(hooks)
        self._cache: dict[tuple[object, ...], list[Action]] = {}

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        if not offers or not self.hooks.trading:
            return []
        if not self.cache_size:
            return self.templates(game, seat)
        cv = self.hooks.card_variety
        full = _offers_full(game, seat)
        key = (
            seat,
            game.active,
            full,
            tuple(game.hands[seat]),
            tuple(game.drawn),
            tuple([cv[f[-1]] for f in game.fields[seat] if f]),
        )
        cached = self._cache.get(key)
        if cached is None:
            if len(self._cache) >= self.cache_size:
                self._cache.clear()
            cached = self._cache[key] = self.templates(game, seat)
        return cached[:]

    def templates(self, game: Game, seat: int) -> list[Action]:
        """A finite, useful sample of offers: each distinct card as a gift, or for one card
        of a variety the proposer grows (or, for a non-active seat, one of the drawn)."""
        if _offers_full(game, seat):
            return []
        config = self.config
        hooks = self.hooks
        a = game.active
        partners = [s for s in range(config.players) if s != seat] if seat == a else [a]
        wanted: list[str] = []
        for f in game.fields[seat]:
            if f:
                v = config.variety_of(f[-1])
                if v not in wanted:
                    wanted.append(v)
        if seat != a:
            for c in game.drawn:
                v = config.variety_of(c)
                if v not in wanted:
                    wanted.append(v)
        acts: list[Action] = []
        seen: set[tuple[int, str, bool]] = set()
        for card in game.tradeable(seat):
            key = (hooks.card_variety[card], config.card_kind[card], card in game.drawn)
            if key in seen:
                continue
            seen.add(key)
            own = config.variety_of(card)
            for d in [None] if card in game.drawn else hooks.declarations(game, card):
                for to in partners:
                    acts.append(_template(to, card, None, d))
                    for v in wanted:
                        if v != own:
                            acts.append(_template(to, card, v, d))
        return acts

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        what = "propose this offer"
        refused = self.trade_refusal(game, seat, what)
        if refused:
            return refused
        offer = action.offer
        if not isinstance(offer, Offer):
            why = "the action carries no offer"
            return self.refuse(game, seat, what, why, kind=InvalidOffer, code="malformed")
        return self.offer_refusal(game, seat, offer)

    def offer_refusal(self, game: Game, seat: int, offer: Offer) -> Refusal | None:
        """Why ``offer`` may not be opened by ``seat`` (any well-formed offer may)."""
        what = "propose this offer"
        n = self.config.players
        a = game.active
        to = offer.to

        def bad(why: str, code: str, rule: str | None = None, **details: int | str) -> Refusal:
            return self.refuse(game, seat, what, why, rule, InvalidOffer, code, **details)

        if not isinstance(to, int) or isinstance(to, bool) or not 0 <= to < n or to == seat:
            return bad(f"the partner must be another seat, not {to!r}", "bad_partner")
        if seat != a and to != a:
            why = f"non-active players trade only with the active seat {a}"
            return bad(why, "trade_with_active", "R-TRADE-2", active=a)
        if _offers_full(game, seat):
            why = f"at most {MAX_OPEN_OFFERS} offers may be open at once"
            return bad(why, "too_many_offers", most=MAX_OPEN_OFFERS)
        give = offer.give
        if not give and not offer.want:
            return bad("it neither gives nor asks for anything", "empty_offer")
        if len(give) > MAX_OFFER_CARDS or sum(c for _, c in offer.want) > MAX_OFFER_CARDS:
            why = f"at most {MAX_OFFER_CARDS} cards on each side"
            return bad(why, "offer_too_big", most=MAX_OFFER_CARDS)
        if len(set(give)) != len(give):
            return bad("a card is given twice", "card_twice")
        mine = game.tradeable(seat)
        for c in give:
            if c not in mine:
                where = "its hand or the drawn cards" if seat == a else "its hand"
                return bad(f"card {c} is not in {where}", "not_tradeable", "R-TRADE-2")
        seen: set[str] = set()
        for item in offer.want:
            if not (isinstance(item, tuple) and len(item) == 2):
                return bad(f"malformed want {item!r}", "bad_want")
            v, count = item
            if v not in self.config.varieties:
                return bad(f"{v!r} is not a variety of {self.config.rules}", "bad_want")
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                return bad(f"want count for {v} must be a positive integer", "bad_want")
            if v in seen:
                return bad(f"{v} is asked for twice", "bad_want")
            seen.add(v)
        if offer.declared:
            if len(offer.declared) != len(give):
                return bad("declare one claim per given card, or none", "bad_declaration")
            for c, d in zip(give, offer.declared, strict=True):
                if not isinstance(d, str):
                    return bad(f"a declaration must be a string, not {d!r}", "bad_declaration")
                if d and c in game.drawn:
                    why = "drawn cards are face up: nothing to declare"
                    return bad(why, "drawn_declared", "R-BLUFF-2")
                err = self.hooks.declared_error(game, c, d)
                if err:
                    return bad(err, "bad_declaration")
        return None

    def execute(self, game: Game, seat: int, action: Action) -> None:
        assert action.offer is not None
        self.hooks.propose(game, seat, action.offer)


@mypyc_attr(allow_interpreted_subclasses=True)
class EndTradingRule(TradeRule):
    """The active seat ends phase 2 (R-TRADE-6)."""

    type = _T.END_TRADING

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        return [_END] if seat == game.active else []

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        refused = self.trade_refusal(game, seat, "end trading")
        if refused:
            return refused
        if seat != game.active:
            why = f"only the active seat {game.active} ends phase 2"
            return self.refuse(game, seat, "end trading", why, "R-TRADE-6", NotYourTurn)
        return None

    def execute(self, game: Game, seat: int, action: Action) -> None:
        if game._events is not None:
            game.emit("end_trading", seat)
        self.hooks.end_trading(game)


# ---------------------------------------------------------------------------- phase 3


@mypyc_attr(allow_interpreted_subclasses=True)
class PlantTradedRule(Rule):
    """Phase 3: plant a card from one's trade area (R-PLANT-4)."""

    type = _T.PLANT_TRADED
    phases = frozenset({PLANT_TRADED})

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        trade = game.trade[seat]
        if not trade:
            return []
        hooks = self.hooks
        fields = game.fields[seat]
        if hooks._base_planting:
            # Plain loops with counters: interpreted, a comprehension is a frame of its
            # own and ``enumerate`` costs more than the loop's body.
            cv = hooks.card_variety
            tops: list[int] = []
            for f in fields:
                tops.append(cv[f[-1]] if f else -1)
            acts = []
            table = _PLANT_TRADED_TABLE
            known = len(table)
            for card in trade:
                v = cv[card]
                k = card * 3  # the card's row of the table (_plant_traded)
                i = 0
                for top in tops:
                    if top < 0 or top == v:
                        got = table[k + i] if i < 3 and k + i < known else None
                        acts.append(got if got is not None else _plant_traded(card, i))
                    i += 1  # noqa: SIM113
            return acts
        return [
            Action.plant_traded(card, f)
            for card in trade
            for f in range(len(fields))
            if hooks.can_plant(game, seat, card, f)
        ]

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        what = f"plant card {action.card} on field {action.field}"
        if game.phase != PLANT_TRADED:
            why = not_now(game, "traded cards are planted in phase 3")
            return self.refuse(game, seat, what, why, "R-PLANT-4", NotYourTurn)
        if action.card not in game.trade[seat]:
            why = "that card is not in its trade area"
            return self.refuse(game, seat, what, why, "R-PLANT-4", code="not_in_trade_area")
        assert action.card is not None
        return self.hooks.plant_refusal(game, seat, what, action.card, action.field)

    def execute(self, game: Game, seat: int, action: Action) -> None:
        hooks = self.hooks
        card, field = action.card, action.field
        assert card is not None and field is not None
        game.trade[seat].remove(card)
        if game._events is not None:
            game.emit(
                "plant",
                seat,
                card=card,
                field=field,
                variety=self.config.variety_of(card),
                traded=True,
            )
        hooks.place(game, seat, card, field)
        hooks.after_step(game)


# ---------------------------------------------------------------------------- any time


@mypyc_attr(allow_interpreted_subclasses=True)
class AnytimeRule(Rule):
    """Harvests and the field purchase: allowed at any moment (R-HARV-1), but never inside
    an indivisible step; a module may keep them to the active seat (``own_turn_only``)."""

    #: The reason (citing its rule) when only the active seat may do this, or None.
    own_turn_only: ClassVar[str | None] = None

    def timing(self, game: Game, seat: int, what: str) -> Refusal | None:
        own = self.own_turn_only
        if own is not None and seat != game.active:
            return self.refuse(game, seat, what, own, code="own_turn_only", active=game.active)
        p = game.pending
        if p is not None:
            why = f"seat {p.seat} must first finish {p.kind} (R-HARV-1)"
            return self.refuse(game, seat, what, why, code="decision_pending", active=p.seat)
        return None

    def may_act(self, game: Game, seat: int) -> bool:
        return game.pending is None and (self.own_turn_only is None or seat == game.active)


@mypyc_attr(allow_interpreted_subclasses=True)
class HarvestRule(AnytimeRule):
    """Harvest a field (R-HARV-1…3)."""

    type = _T.HARVEST

    def __init__(self, hooks: Hooks) -> None:
        super().__init__(hooks)
        #: ``own_turn_only`` read once: compiled, a class variable read through ``self``
        #: is a generic attribute look-up, and this is asked after nearly every action.
        self._own_turn_only = self.own_turn_only

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        if game.pending is not None or (self._own_turn_only is not None and seat != game.active):
            return []
        # R-HARV-3: while a field holds 2+ beans, only such fields may be harvested. Plain
        # loops over at most three fields: cheaper than any key to remember them by.
        fields = game.fields[seat]
        # Counted by hand: interpreted, ``enumerate`` costs more than the loop's body.
        acts: list[Action] = []
        i = 0
        for f in fields:
            if len(f) > 1:
                acts.append(_HARVEST[i])
            i += 1  # noqa: SIM113
        if not acts:
            i = 0
            for f in fields:
                if f:
                    acts.append(_HARVEST[i])
                i += 1  # noqa: SIM113
        return acts

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        what = f"harvest field {action.field}"
        refused = self.timing(game, seat, what)
        if refused:
            return refused
        fields = game.fields[seat]
        field = action.field
        if not isinstance(field, int) or isinstance(field, bool) or not 0 <= field < len(fields):
            why = f"there is no field {field!r} (seat {seat} has {len(fields)})"
            if isinstance(field, int):
                return self.refuse(
                    game, seat, what, why, code="no_field", field=field, n=len(fields)
                )
            return self.refuse(game, seat, what, why, code="malformed")
        n = len(fields[field])
        if n == 0:
            why = f"field {field} is empty"
            return self.refuse(game, seat, what, why, code="field_empty", field=field)
        if n == 1:
            for i, other in enumerate(fields):
                if len(other) > 1:
                    why = (
                        f"a field with one bean is protected while field {i} holds "
                        f"{len(other)} (R-HARV-3)"
                    )
                    most = max(range(len(fields)), key=lambda j: len(fields[j]))
                    return self.refuse(
                        game,
                        seat,
                        what,
                        why,
                        code="field_protected",
                        field=field,
                        other=most,
                        n=len(fields[most]),
                    )
        return None

    def execute(self, game: Game, seat: int, action: Action) -> None:
        assert action.field is not None
        self.hooks.harvest(game, seat, action.field)


@mypyc_attr(allow_interpreted_subclasses=True)
class BuyFieldRule(AnytimeRule):
    """Buy a third field (R-FIELD-1…3). Listed once, naming no coins: where the buyer
    chooses them (R-LADY-10), any valid choice passes just as the template does."""

    type = _T.BUY_FIELD

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        if (
            len(game.fields[seat]) < 3
            and game.supply > 0
            and len(game.treasury[seat]) >= self.config.field_price
            and self.may_act(game, seat)
        ):
            return [_BUY]
        return []

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        what = "buy a third field"
        refused = self.timing(game, seat, what)
        if refused:
            return refused
        if len(game.fields[seat]) >= 3:
            why = "it already has a third field; one per player (R-FIELD-1)"
            return self.refuse(game, seat, what, why, code="have_third_field")
        if game.supply <= 0:
            why = "no third-field card is left in the supply (R-FIELD-1)"
            return self.refuse(game, seat, what, why, code="no_third_field_left")
        price = self.config.field_price
        coins = game.coins(seat)
        if coins < price:
            why = f"a third field costs {price} coins and it has {coins} (R-FIELD-2)"
            return self.refuse(game, seat, what, why, code="field_price", price=price, coins=coins)
        return self.coins_refusal(game, seat, what, action.cards)

    def coins_refusal(
        self, game: Game, seat: int, what: str, coins: tuple[int, ...]
    ) -> Refusal | None:
        """Why a buy may not name ``coins``: here the price is always the top of the
        treasury (R-FIELD-3); a rule set that lets the buyer choose replaces this."""
        if coins:
            why = (
                f"in {self.config.rules} the price is paid with the coins on top of the "
                "treasury; a buy names no coins (R-FIELD-3)"
            )
            return self.refuse(game, seat, what, why, code="coins_not_chosen")
        return None

    def execute(self, game: Game, seat: int, action: Action) -> None:
        self.hooks.buy_field(game, seat, action.cards)


#: The base game's rules, in listing order (anytime rules last).
BASE_RULES: tuple[type[Rule], ...] = (
    PlantRule,
    StopPlantingRule,
    WithdrawRule,
    DeclineRule,
    AcceptRule,
    ProposeRule,
    EndTradingRule,
    PlantTradedRule,
    HarvestRule,
    BuyFieldRule,
)


def _choices(
    mine: list[int], want: tuple[tuple[str, int], ...], config: GameConfig, cap: int = 16
) -> list[tuple[int, ...]]:
    """Every way to pick the wanted cards from ``mine``, up to ``cap`` ways."""
    per: list[list[tuple[int, ...]]] = []
    for v, n in want:
        pool = [c for c in mine if config.variety_of(c) == v]
        if len(pool) < n:
            return []
        per.append(list(combinations(pool, n)))
    out: list[tuple[int, ...]] = []
    for combo in product(*per):
        out.append(tuple(c for part in combo for c in part))
        if len(out) >= cap:
            break
    return out


def shared_rule(cls: type[Rule], hooks: Hooks) -> Rule:
    """The rule of class ``cls`` that ``hooks`` hold, or a new one where they hold another
    (a test's own rule): how a pickled :class:`Rule` comes back."""
    rule = hooks.rules.get(cls.type)
    return rule if type(rule) is cls else cls(hooks)


def listing(rules: Iterable[Rule]) -> tuple[Rule | tuple[Rule, ...], ...]:
    """Rules in listing order, with each run of one ``group`` gathered into a tuple."""
    out: list[Rule | tuple[Rule, ...]] = []
    run: list[Rule] = []
    for rule in rules:
        if run and rule.group != run[0].group:
            out.append(tuple(run) if len(run) > 1 else run[0])
            run = []
        if rule.group is None:
            out.append(rule)
        else:
            run.append(rule)
    if run:
        out.append(tuple(run) if len(run) > 1 else run[0])
    return tuple(out)


class Merged:
    """A run of rules of one ``group``, listed as one: their candidates interleaved in
    the group's order."""

    __slots__ = ("rules",)

    def __init__(self, rules: tuple[Rule, ...]) -> None:
        self.rules = rules

    def __reduce__(self) -> tuple[Any, ...]:  # compiled and hot: see bohnanza.pickling
        # Made empty, then its rules set: they lead back to it (through their hooks'
        # listing), and a copy must meet this object there, not make a second one.
        return rebuilt(self, ())

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        acts: list[Action] = []
        lists = 0
        for rule in self.rules:
            part = rule.candidates(game, seat, offers)
            if part:
                acts += part
                lists += 1
        if lists > 1:
            acts.sort(key=self.rules[0].order(game))
        return acts


def listers(entries: tuple[Rule | tuple[Rule, ...], ...]) -> tuple[Rule | Merged, ...]:
    """The entries of a :func:`listing` as objects with ``candidates``: a rule, or a
    :class:`Merged` group. The legal list is the concatenation of their candidates."""
    return tuple(e if isinstance(e, Rule) else Merged(e) for e in entries)


__all__ = [
    "BASE_RULES",
    "AcceptRule",
    "AnytimeRule",
    "BuyFieldRule",
    "DecisionRule",
    "DeclineRule",
    "EndTradingRule",
    "HarvestRule",
    "OfferAnswerRule",
    "PlantRule",
    "PlantTradedRule",
    "ProposeRule",
    "Refusal",
    "Rule",
    "StopPlantingRule",
    "TradeRule",
    "WithdrawRule",
    "shared_rule",
    "with_rules",
]
