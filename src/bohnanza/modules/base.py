"""The base game's rules as overridable hooks.

:class:`Hooks` *is* the base game (RULES.md §3–§5): the turn's phases, planting, trading,
harvesting and the end. Each module subclasses it in its own file and overrides only the
points it changes (deck, payout, what an offer shows, who may buy a field, the duel's turn).
The engine (:mod:`bohnanza.game`) owns the state and calls these methods; it never asks
which module is in play.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from ..actions import Action, ActionType, Offer
from ..errors import IllegalAction, NotYourTurn, Refusal
from ..frozen import FrozenDict
from ..shapes import CARD_KINDS
from ..state import OVER, PLANT, PLANT_TRADED, TRADE, ModuleState, Pending
from ..views import EMPTY
from .info import BASE_INFO, ModuleInfo
from .operations import BASE_RULES, Rule, listers, listing

if TYPE_CHECKING:
    from ..game import Game
    from ..rules import GameConfig
    from ..views import View

# The phases compared after every action, as plain ``str`` constants: compiled, ``str ==
# str`` is a C string check (the same object, at once), where the game's enum members
# would be compared through Python's generic comparison (as in :mod:`bohnanza.schedule`).
_PLANT: Final[str] = PLANT
_TRADE: Final[str] = TRADE
_PLANT_TRADED: Final[str] = PLANT_TRADED


#: What tells one configuration's shared hooks from another's: rule set, players, options.
ConfigKey = tuple[str, int, tuple[tuple[str, str], ...]]

#: The hooks of each configuration, one object shared by all its games: filled by
#: :func:`bohnanza.modules.hooks_for` and by :func:`shared_hooks`.
SHARED: dict[ConfigKey, Hooks] = {}

#: Each module's hook class: found from its data entry by
#: :func:`bohnanza.modules.hooks_class` (for every built-in module as the package is
#: imported, so before any game can be unpickled) or registered with
#: :func:`bohnanza.modules.register_module`.
CLASSES: dict[str, type[Hooks]] = {}


def config_key(config: GameConfig) -> ConfigKey:
    return (config.rules, config.players, tuple(sorted(config.options.items())))


def shared_hooks(cls: type[Hooks], config: GameConfig) -> Hooks:
    """How a pickled :class:`Hooks` comes back: the shared hooks of ``config`` when they
    are of class ``cls``; else a new ``cls``, which becomes the shared one when it is the
    class the configuration plays with and none is shared yet (a fresh process unpickling
    many games of one configuration gets one hooks object, not one per game), and stays
    apart when it is another (a test's own subclass)."""
    key = config_key(config)
    hooks = SHARED.get(key)
    if hooks is not None and type(hooks) is cls:
        return hooks
    made = cls(config)
    own = CLASSES.get(config.module) if config.module else Hooks
    if hooks is None and cls is own:
        SHARED[key] = made
    return made


@mypyc_attr(allow_interpreted_subclasses=True)
class Hooks:
    """Default behaviour: the base game. One instance per config, shared by clones.

    The rules of the actions are objects (:mod:`bohnanza.modules.operations`), one per
    action type, built from ``rule_classes``: a module lists its own there (with
    :func:`~bohnanza.modules.operations.with_rules`) to add an action type or to change
    how one is listed, checked or carried out.
    """

    #: What the code outside ``bohnanza.modules`` may know about this module (its phases,
    #: public state, labels, behaviour flags, RL encoding hints): a module sets its own.
    info: ClassVar[ModuleInfo] = BASE_INFO
    trading: ClassVar[bool] = True  # duel: False (R-DUEL-1)
    #: Every value ``game.phase`` may take under these rules.
    phases: ClassVar[frozenset[str]] = frozenset((PLANT, TRADE, PLANT_TRADED, OVER))
    #: The rule objects' classes, in listing order (anytime rules last).
    rule_classes: ClassVar[tuple[type[Rule], ...]] = BASE_RULES
    #: The class of ``game.extra``: the pending queue, plus a module's own typed state.
    state_class: ClassVar[type[ModuleState]] = ModuleState

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.payout = config.payout
        self.card_variety = config.card_variety
        # Hot-path shortcut: true while planting follows the base rule (R-PLANT-3).
        self._base_planting = type(self).can_plant is Hooks.can_plant
        self._base_payout = type(self).field_coins is Hooks.field_coins
        self._shown: dict[tuple[int, str | None], FrozenDict[str, Any]] = {}
        # The function's name, not the function: a test that replaces ``offered_card`` may
        # build hooks (cached per configuration) while it is replaced, and a stored local
        # function would make every later game of that configuration unpicklable.
        self._offered_card = _name_of(type(self).offered_card)
        #: One rule object per action type.
        self.rules: dict[ActionType, Rule] = {}
        for cls in self.rule_classes:
            self.rules[cls.type] = cls(self)
        table = list(self.rules.values())
        # Per phase, the functions whose results make up the legal list, in order.
        self._listing = {
            phase: listers(
                listing(
                    [
                        r
                        for r in table
                        if not r.pending and r.phases is not None and phase in r.phases
                    ]
                    + [r for r in table if not r.pending and r.phases is None]
                )
            )
            for phase in self.phases
            if phase != OVER
        }
        self._pending_listing = listers(listing([r for r in table if r.pending]))
        #: The rule that answers each kind of decision (its action type's value).
        self._answers: dict[str, Rule] = {r.type.value: r for r in table if r.pending}
        n = config.players
        #: The seats in turn order from each active seat.
        self._turn_order = [[(a + i) % n for i in range(n)] for a in range(n)]

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled (and deep-copied) as what it is made from, like its configuration: the
        # configuration's shared hooks come back, not a copy carrying this process's view
        # cache (``_shown``), which grows as games of the configuration are played anywhere
        # in the process and made every pickled game bigger and unequal to its last picture.
        return (shared_hooks, (type(self), self.config))

    # ------------------------------------------------------------------ setup and flow

    def setup(self, game: Game) -> None:
        """Called once after dealing, before the first turn."""

    def start_turn(self, game: Game, seat: int) -> None:
        game.active = seat
        game.phase = PLANT
        game.planted = 0
        game.turn += 1
        if game._events is not None:
            game.emit("turn", seat, turn=game.turn)
        if not game.hands[seat]:  # R-PLANT-1: skipped with an empty hand
            self.start_trade(game)

    def start_trade(self, game: Game) -> None:
        """Phase 2: turn over the drawn cards (R-TRADE-1)."""
        game.phase = TRADE
        for _ in range(self.config.drawn_count):
            card = game.draw_card()
            if card is None:
                break
            game.drawn.append(card)
            if game._events is not None:
                game.emit("turn_over", game.active, card=card, variety=self.config.variety_of(card))
            if game.final_runout:
                break
        if game.final_runout and self.config.end_immediately:
            game.end_game()  # R-END-2, first-edition: at once; the drawn cards are discarded

    def end_trading(self, game: Game) -> None:
        """R-TRADE-6/7: cancel open offers, kept drawn cards go to the trade area."""
        if game.offers:
            for oid in list(game.offers):
                game.emit("offer_cancelled", offer_id=oid, reason="trading ended")
            game.offers.clear()
        a = game.active
        if game.drawn:
            game.trade[a].extend(game.drawn)
            if game._events is not None:
                game.emit("keep_drawn", a, cards=list(game.drawn))
            game.drawn.clear()
        game.phase = PLANT_TRADED
        self.after_step(game)

    def after_step(self, game: Game) -> None:
        """Run the automatic steps that follow once nobody is needed any more."""
        if game.phase == _PLANT_TRADED and game.pending is None:
            for cards in game.trade:  # a loop: compiled, ``any`` is a call through Python
                if cards:
                    return
            self.end_phase3(game)

    def end_phase3(self, game: Game) -> None:
        """End of phase 3: the end (R-END-2) or phase 4's draws (R-DRAW-1), next turn."""
        if game.final_runout:
            game.end_game()
            return
        a = game.active
        for _ in range(self.config.draw_count):
            card = game.draw_card()
            if card is not None:
                game.hands[a].append(card)
                if game._events is not None:
                    game.emit("draw", a, private={"card": card})
            if game.final_runout:  # R-END-2: in phase 4 the game ends at once
                if not game.over:
                    game.end_game()
                return
        self.start_turn(game, (a + 1) % self.config.players)

    def on_final_runout(self, game: Game) -> None:
        """Called inside the draw that runs the pile out for the last time. The game never
        ends *inside* a draw (the drawn card must first land somewhere): the step that
        drew ends it (R-END-2), at the end of phase 3, or at once in phase 4 and in
        ``first-edition``."""

    def waiting_for(self, game: Game) -> list[int]:
        phase = game.phase
        if phase in (_PLANT, _TRADE):  # compiled: two string checks, no tuple
            return [game.active]
        if phase == _PLANT_TRADED:
            trade = game.trade
            seats = []  # a plain loop: interpreted, a comprehension is a frame of its own
            for s in self._turn_order[game.active]:
                if trade[s]:
                    seats.append(s)
            return seats
        return []

    def extra_cards(self, game: Game) -> list[int]:
        """Cards in module-owned places (for conservation checks)."""
        return []

    def table_piles(self, game: Game) -> list[list[int]]:
        """Module-owned piles whose cards are discarded when the game ends."""
        return []

    # ------------------------------------------------------------------ who knows which cards
    #
    # One declaration of what each seat may know (R-INFO-1…3), read by the views
    # (public_pending, View.visible_cards), the determiniser (the cards of a view it
    # keeps) and the invariant checker (a view shows nothing else, wherever in it).

    def public_cards(self, game: Game) -> set[int]:
        """The cards everyone sees (R-INFO-1): the drawn cards, the top of the discard
        pile, the trade areas, the fields and the module-owned areas
        (:meth:`extra_cards`, public by design: :meth:`public_extra`)."""
        out = set(game.drawn)
        if game.discard:
            out.add(game.discard[-1])
        for s in range(game.players):
            out.update(game.trade[s])
            for f in game.fields[s]:
                out.update(f)
        out.update(self.extra_cards(game))
        return out

    def private_cards(self, game: Game, seat: int | None) -> set[int]:
        """The cards ``seat`` alone (with their holder) knows by id (R-INFO-2): its hand,
        its own treasury where the rule set shows it (:attr:`own_treasury_visible`), the
        cards of its own open offers, and the cards of the open decision it must take
        (its arguments of a card kind, :func:`~bohnanza.game.declare_decision`). A
        module whose rules show a seat more (a card shown to the seat a decision is
        about) adds it here; its views may then show it to that seat, and to no other."""
        if seat is None:
            return set()
        out = set(game.hands[seat])
        if self.own_treasury_visible:
            out.update(game.treasury[seat])
        for p, o in game.offers.values():
            if p == seat:
                out.update(o.give)
        pending = game.pending
        if pending is not None and pending.seat == seat:
            out.update(pending.cards())
        return out

    def known_cards(self, game: Game, seat: int | None) -> set[int]:
        """Every card id ``seat`` (None: a spectator) may see now: the public ones and
        its private ones."""
        return self.public_cards(game) | self.private_cards(game, seat)

    def public_pending(self, game: Game, seat: int | None) -> Pending | None:
        """The pending indivisible decision as ``seat`` may see it: who decides what is
        public; an argument that is a card ``seat`` may not see
        (:meth:`known_cards`) is left out."""
        pending = game.pending
        if pending is None:
            return None
        cards = pending.cards()
        if not cards or seat == pending.seat:
            return pending
        known = self.known_cards(game, seat)
        if all(c in known for c in cards):
            return pending
        kinds = pending.kinds()
        return pending.without(
            {
                name
                for name, value in pending.args.items()
                if kinds[name] in CARD_KINDS and value not in known
            }
        )

    def public_extra(self, game: Game, seat: int | None) -> FrozenDict[str, Any]:
        """Module-owned public state for views (e.g. the duel's offer), read-only
        (:class:`~bohnanza.frozen.FrozenDict`, card piles as ``FrozenList``)."""
        return EMPTY

    # ------------------------------------------------------------------ fields

    def can_plant(self, game: Game, seat: int, card: int, field: int) -> bool:
        f = game.fields[seat][field]
        return not f or self.card_variety[f[-1]] == self.card_variety[card]

    def place(self, game: Game, seat: int, card: int, field: int) -> None:
        """Put a card on top of a field (R-PLANT-3)."""
        game.fields[seat][field].append(card)

    def plant_refusal(
        self, game: Game, seat: int, what: str, card: int, field: int | None
    ) -> Refusal | None:
        """Why ``seat`` may not plant ``card`` (its own, or a public one) on ``field``:
        no such field, or one of another variety (R-PLANT-3), with the field and both
        varieties as the reason's details."""
        n = len(game.fields[seat])
        if not isinstance(field, int) or isinstance(field, bool) or not 0 <= field < n:
            why = f"there is no field {field!r} (seat {seat} has {n})"
            if isinstance(field, int) and not isinstance(field, bool):
                return Refusal(
                    seat, what, why, None, IllegalAction, "no_field", {"field": field, "n": n}
                )
            return Refusal(seat, what, why, None, IllegalAction, "malformed", {})
        if not self.can_plant(game, seat, card, field):
            top = game.fields[seat][field][-1]
            config = self.config
            why = (
                f"field {field} holds {config.describe(top)}, not "
                f"{config.describe(card)}; harvest a field first or plant elsewhere (R-PLANT-3)"
            )
            details: dict[str, int | str] = {
                "field": field,
                "top": config.variety_of(top),
                "card": config.variety_of(card),
            }
            return Refusal(seat, what, why, "R-PLANT-3", IllegalAction, "field_variety", details)
        return None

    def field_coins(self, game: Game, seat: int, field: int) -> int:
        """Coins a harvest of this field would pay now (R-HARV-2)."""
        f = game.fields[seat][field]
        return self.payout[self.card_variety[f[-1]]][len(f)] if f else 0

    def seat_payouts(self, game: Game, seat: int) -> tuple[int, ...]:
        """What each of ``seat``'s fields would pay now (public; shown in views)."""
        if not self._base_payout:
            return tuple([self.field_coins(game, seat, f) for f in range(len(game.fields[seat]))])
        payout = self.payout
        cv = self.card_variety
        return tuple([payout[cv[f[-1]]][len(f)] if f else 0 for f in game.fields[seat]])

    def harvest(self, game: Game, seat: int, field: int, final: bool = False) -> None:
        """Carry out a harvest (R-HARV-2): the top ``coins`` cards become coins, the rest
        go to the discard pile bottom first, so the field's top card ends on top."""
        self.pay_harvest(game, seat, field, self.field_coins(game, seat, field), final)

    def pay_harvest(self, game: Game, seat: int, field: int, coins: int, final: bool) -> None:
        f = game.fields[seat][field]
        split = len(f) - coins
        if game._events is not None:
            game.emit("harvest", seat, field=field, cards=f[:], coins=coins, final=final)
        game.discard.extend(f[:split])
        game.treasury[seat].extend(f[split:])
        f.clear()

    def buy_field(self, game: Game, seat: int, coins: tuple[int, ...] = ()) -> None:
        """Pay with the coins on top of the treasury (R-FIELD-3), or with the ``coins``
        chosen where the rule set lets the buyer choose (checked by its rule object),
        which go onto the discard pile in that order."""
        price = self.config.field_price
        t = game.treasury[seat]
        if coins:
            paid = list(coins)
            for c in paid:
                t.remove(c)
        else:
            paid = t[len(t) - price :]
            del t[len(t) - price :]
        self.spend_coins(game, paid)
        game.fields[seat].append([])
        game.supply -= 1
        if game._events is not None:
            self.emit_buy(game, seat, price, paid)

    def emit_buy(self, game: Game, seat: int, price: int, paid: list[int]) -> None:
        game.emit("buy_field", seat, price=price)

    #: Whether a seat's view shows the cards of its own treasury (R-LADY-10); elsewhere
    #: coins are face down and a view holds only their count (R-INFO-2).
    own_treasury_visible: ClassVar[bool] = False

    def spend_coins(self, game: Game, cards: list[int]) -> None:
        game.discard.extend(cards)

    @staticmethod
    def coin_usefulness(view: View, card: int) -> float:
        """How much the coin ``card`` would help the seats other than the reader if it
        came back into play (paid for a field where the buyer chooses the coins,
        R-LADY-10): the lower, the better it pays (:func:`bohnanza.coins.choose_coins`).
        Here every coin is alike."""
        return 0.0

    # ------------------------------------------------------------------ offers

    def offered_card(self, game: Game, card: int, declared: str | None) -> dict[str, Any]:
        """What everyone but the proposer sees of a card offered from a hand: its variety.
        Modules hide or replace attributes (R-BLUFF-1, R-LADY-6); it may depend only on
        the card and the claim (views reuse it: :meth:`shown_card`)."""
        return {"variety": self.config.variety_of(card)}

    def shown_card(self, game: Game, card: int, declared: str | None) -> FrozenDict[str, Any]:
        """:meth:`offered_card` as the read-only value views hold, built once per card and
        claim (``offered_card`` depends on nothing else)."""
        if _name_of(type(self).offered_card) != self._offered_card:  # replaced since (a test)
            return FrozenDict(self.offered_card(game, card, declared))
        key = (card, declared)
        got = self._shown.get(key)
        if got is None:
            got = self._shown[key] = FrozenDict(self.offered_card(game, card, declared))
        return got

    def declared_error(self, game: Game | None, card: int, declared: str) -> str | None:
        """Whether ``declared`` is an allowed claim about ``card`` ("" is no claim; the
        base game allows no other). ``game`` is None when a front end asks with only a
        seat's view (bohnanza.text): the answer may depend on the card tables only."""
        if declared == "":
            return None
        return "nothing may be declared about a card in this rule set"

    def declarations(self, game: Game, card: int) -> list[str | None]:
        """Claims a proposer may make about ``card`` (None: no claim)."""
        return [None]

    def receive(self, game: Game, seat: int, card: int) -> None:
        """A card received in phase 2 goes to the trade area (R-TRADE-5)."""
        game.trade[seat].append(card)

    # ------------------------------------------------------------------ rules

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        """Why ``seat`` may not take ``action`` now, asked of the rule object of its type."""
        if game.pending is not None:
            return self.pending_refusal(game, seat, action)
        rule = self.rules.get(action.type)
        if rule is None or rule.pending:
            why = f"that is not possible now in {self.config.rules}"
            # An answer with no decision open, or an action no rule of the game knows.
            code = "no_decision" if rule is not None else "not_in_game"
            return Refusal(seat, action.type.value, why, None, NotYourTurn, code, {})
        refused = rule.refusal(game, seat, action)
        phases = rule.phases
        if refused is None and phases is not None and game.phase not in phases:
            # A rule's phases are declared once (``Rule.phases``, which also decides its
            # listing) and enforced here, whether or not its own check looks at them.
            return rule.phase_refusal(game, seat, action)
        return refused

    def pending_refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        """While a decision is pending (R-HARV-1) nothing else may happen: the deciding
        seat's answer goes to the rule that answers the decision (the rule whose action
        type's value is the decision's kind, :class:`~bohnanza.modules.operations.
        DecisionRule`), which checks it; every other action waits."""
        p = game.pending
        assert p is not None
        rule = self._answers.get(p.kind)
        if rule is not None and seat == p.seat and action.type is rule.type:
            return rule.refusal(game, seat, action)
        return Refusal(
            seat,
            action.type.value,
            f"seat {p.seat} must first finish {p.kind}",
            None,
            NotYourTurn,
            "decision_pending",
            {"active": p.seat},
        )

    def execute(self, game: Game, seat: int, action: Action) -> None:
        """Carry out an action that passed :meth:`refusal`."""
        rule = self.rules.get(action.type)
        if rule is None:
            raise IllegalAction(f"{action!r} is not handled in {self.config.rules}")
        rule.execute(game, seat, action)

    # A queue of indivisible decisions (R-HARV-1): ``game.pending`` is the head, the rest
    # wait in ``game.extra.queue``. When the last is done, the interrupted flow resumes.

    def push_pending(self, game: Game, item: Pending) -> None:
        if game.pending is None:
            game.pending = item
        else:
            game.extra.queue.append(item)

    def pop_pending(self, game: Game) -> None:
        queue = game.extra.queue
        if queue:
            game.pending = queue.pop(0)
            return
        game.pending = None
        self.resume(game)

    def resume(self, game: Game) -> None:
        """Continue the turn after the last pending decision."""
        if game.phase == _PLANT:
            self.after_plant(game)
        else:
            self.after_step(game)

    def after_plant(self, game: Game) -> None:
        """After a phase-1 plant: the optional second card, else on to phase 2."""
        if game.planted >= 2 or not game.hands[game.active]:
            self.start_trade(game)

    def propose(self, game: Game, seat: int, offer: Offer) -> None:
        oid = game.next_offer_id
        game.next_offer_id += 1
        game.offers[oid] = (seat, offer)
        shown = [self.public_offered(game, seat, c, d) for c, d in _with_declared(offer)]
        game.emit(
            "offer",
            seat,
            private={"give_cards": list(offer.give)},
            offer_id=oid,
            to=offer.to,
            give=shown,
            want=[list(w) for w in offer.want],
        )

    def public_offered(
        self, game: Game, seat: int, card: int, declared: str | None
    ) -> dict[str, Any]:
        """An offered card as others see it: drawn cards face up, hand cards by hook."""
        if card in game.drawn:
            return {
                "card": card,
                "variety": self.config.variety_of(card),
                **({"kind": self.config.card_kind[card]} if self.config.card_kind[card] else {}),
            }
        return self.offered_card(game, card, declared)

    def accept(self, game: Game, seat: int, action: Action) -> None:
        """Execute a trade atomically: both sides' cards to the other's trade area."""
        proposer, offer = game.offers.pop(action.offer_id)  # type: ignore[arg-type]
        for who, cards in ((proposer, offer.give), (seat, action.cards)):
            hand = game.hands[who]
            for c in cards:
                if c in hand:
                    hand.remove(c)
                else:
                    game.drawn.remove(c)
        game.emit(
            "trade",
            seat,
            offer_id=action.offer_id,
            proposer=proposer,
            gave=list(offer.give),
            got=list(action.cards),
            gift=offer.is_gift,
        )
        for c in offer.give:
            self.receive(game, seat, c)
        for c in action.cards:
            self.receive(game, proposer, c)
        self.drop_stale_offers(game)

    def drop_stale_offers(self, game: Game) -> None:
        for oid, (p, o) in list(game.offers.items()):
            held = game.tradeable(p)
            if any(c not in held for c in o.give):
                del game.offers[oid]
                game.emit("offer_cancelled", p, offer_id=oid, reason="offered cards are gone")

    # ------------------------------------------------------------------ listing legal actions

    def legal_actions(self, game: Game, seat: int, offers: bool = True) -> list[Action]:
        """The union of the candidates of the rules that apply now (see
        :mod:`bohnanza.modules.operations`)."""
        acts: list[Action] = []
        for entry in (
            self._listing.get(game.phase, ()) if game.pending is None else self._pending_listing
        ):
            part = entry.candidates(game, seat, offers)
            if part:  # most rules have nothing to list at most moments
                acts.extend(part)
        return acts


def _name_of(function: object) -> str:
    """Where a function was defined (module and qualified name), to tell a replaced one."""
    return f"{getattr(function, '__module__', '')}.{getattr(function, '__qualname__', '')}"


def _with_declared(offer: Offer) -> list[tuple[int, str | None]]:
    if offer.declared:
        return [(c, d or None) for c, d in zip(offer.give, offer.declared, strict=True)]
    return [(c, None) for c in offer.give]
