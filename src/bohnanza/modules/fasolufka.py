"""Module 3, Fasolufka (RULES.md §8): men, ladies and children of each variety.

A card's ``kind`` is ``"man"``, ``"lady"`` or ``"child"`` (card data, R-LADY-1). A field is
paid by its top card (R-LADY-3/4/5, the lady beanometers being *assumed* card data); a
child placed on a field lets its owner move a lady two places up (R-LADY-8), a decision
that is pending before anything else may happen; children received in a trade go straight
onto a matching field (R-LADY-7). Offers show only the variety (R-LADY-6: the base
behaviour already). Third fields: two in the box, bought only in one's own turn (R-LADY-9),
paid with three coins the buyer chooses, in the order they go onto the discard pile
(R-LADY-10).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mypy_extensions import mypyc_attr

from ..actions import Action, ActionType
from ..cards import lady_beanometers, varieties
from ..errors import Refusal
from ..game import Pending, declare_decision
from ..shapes import ActionShape, Param, ParamKind
from .base import Hooks
from .info import CardKind, EventLabel, ModuleInfo
from .operations import BuyFieldRule, Rule, with_rules

if TYPE_CHECKING:
    from ..game import Game
    from ..rules import GameConfig
    from ..views import View

_T = ActionType
#: What one coin card of a kind is worth to a field of its variety (coin_usefulness).
_KIND_WORTH = {"lady": 1.0, "man": 0.6, "child": 0.3, "": 0.6}
PLACE_CHILD = "place_child"
MOVE_LADY = "move_lady"
# The questions the two answering rules take (PlaceChildRule, MoveLadyRule): a received
# child to place, and a lady below a just-placed child on a field.
declare_decision(PLACE_CHILD, ("card",))
declare_decision(MOVE_LADY, ("field", "child"))

#: Put a received child onto a field of its variety (R-LADY-7).
PLACE_CHILD_TYPE = ActionType.extend(
    ActionShape(
        PLACE_CHILD,
        (
            Param(
                ParamKind.PENDING_CARD,
                "card",
                ("the child", "dziecko"),
                ("the child you received", "otrzymane dziecko"),
            ),
            Param(
                ParamKind.FIELD,
                "field",
                ("field", "pole"),
                ("a field of the child's variety", "pole odmiany dziecka"),
            ),
        ),
        ("place the child", "połóż dziecko"),
        (
            "put the child you received on a field of its variety (R-LADY-7)",
            "połóż otrzymane dziecko na polu jego odmiany (R-LADY-7)",
        ),
        ("place", "połóż"),
        ("poloz",),
    )
)
#: After a child, move a lady who lay below it two places up, or decline (R-LADY-8).
MOVE_LADY_TYPE = ActionType.extend(
    ActionShape(
        MOVE_LADY,
        (
            Param(
                ParamKind.FIELD_CARD,
                "card",
                ("lady", "pani"),
                (
                    "a lady below the child on that field (FIELD PLACE, place 1 at the bottom)",
                    "pani pod dzieckiem na tym polu (POLE MIEJSCE, miejsce 1 na spodzie)",
                ),
                optional=True,
                none_label=("move no lady", "nie przesuwaj"),
            ),
        ),
        ("move a lady two places up", "przesuń panią o dwa miejsca w górę"),
        (
            "move a lady two places up after a child, or none (R-LADY-8)",
            "przesuń panią o dwa miejsca w górę po dziecku albo nie (R-LADY-8)",
        ),
        ("move", "przesuń"),
        ("przesun",),
    )
)


def place_child(card: int, field: int) -> Action:
    """The child ``card`` onto ``field`` (R-LADY-7)."""
    return Action(PLACE_CHILD_TYPE, card=card, field=field)


def move_lady(card: int | None) -> Action:
    """Move the lady ``card`` two places up; ``None`` declines (R-LADY-8)."""
    return Action(MOVE_LADY_TYPE, card=card)


@mypyc_attr(allow_interpreted_subclasses=True)
class FasolufkaHooks(Hooks):
    info = ModuleInfo(
        title=("Fasolki + Fasolufka", "Fasolki + Fasolufka"),
        note=(
            "Men, ladies and children; a field pays by its top card.",
            "Panowie, panie i dzieci; pole płaci według wierzchniej karty.",
        ),
        buyer_chooses_coins=True,
        own_treasury_visible=True,
        top_card_pays=True,
        cards_traceable=False,
        # R-LADY-1: the kinds; a lady pays by her own beanometer (R-LADY-4), a child on
        # top pays nothing (R-LADY-3).
        kinds={
            "man": CardKind(("man", "pan"), "♂"),
            "lady": CardKind(("lady", "pani"), "♀", lady_beanometers()),
            "child": CardKind(("child", "dziecko"), "☺", pays_on_top=False),
        },
        # R-LADY-5: the Gardener lady's harvest.
        event_notes={
            "harvest": (
                EventLabel(("(Gardener lady)", "(pani Ogrodnik)"), when=("gardener_lady",)),
            )
        },
    )

    def __init__(self, config: GameConfig) -> None:
        super().__init__(config)
        per_variety = [config.card_variety.count(i) for i in range(len(config.varieties))]
        ladies = lady_beanometers()
        cat = varieties()
        self.lady_payout: list[tuple[int, ...] | None] = []
        for i, key in enumerate(config.varieties):
            bm = ladies.get(key)
            self.lady_payout.append(
                tuple(cat[key].payout(n, bm) for n in range(per_variety[i] + 1)) if bm else None
            )
        self.gardener = config.varieties.index("gardener")
        self.kind = config.card_kind

    # ---------------------------------------------------------------- payout (R-LADY-3/4/5)

    def field_coins(self, game: Game, seat: int, field: int) -> int:
        f = game.fields[seat][field]
        if not f:
            return 0
        top = f[-1]
        kind = self.kind[top]
        v = self.card_variety[top]
        if kind == "child":
            return 0
        if kind == "lady":
            if v == self.gardener:
                return len(f) + 1  # R-LADY-5: N + 1, uncapped (before the piles run short)
            table = self.lady_payout[v]
            assert table is not None
            return table[len(f)]
        return self.payout[v][len(f)]

    def harvest(self, game: Game, seat: int, field: int, final: bool = False) -> None:
        f = game.fields[seat][field]
        top = f[-1]
        if self.kind[top] != "lady" or self.card_variety[top] != self.gardener:
            super().harvest(game, seat, field, final)
            return
        # R-LADY-5: coins from the top of the discard pile as it stood, then the draw pile.
        wanted = len(f) + 1
        coins: list[int] = []
        while len(coins) < wanted and game.discard:
            coins.append(game.discard.pop())
        while len(coins) < wanted:
            card = game.draw_card() if not game.over else None
            if card is None:
                break
            coins.append(card)
        game.treasury[seat].extend(coins)
        cards = f[:]
        game.discard.extend(f)
        f.clear()
        game.emit(
            "harvest",
            seat,
            field=field,
            cards=cards,
            coins=len(coins),
            final=final,
            gardener_lady=True,
        )

    # ---------------------------------------------------------------- children and ladies

    def place(self, game: Game, seat: int, card: int, field: int) -> None:
        f = game.fields[seat][field]
        f.append(card)
        if self.kind[card] == "child" and any(self.kind[c] == "lady" for c in f[:-1]):
            self.push_pending(game, Pending(seat, MOVE_LADY, field=field, child=card))

    def receive(self, game: Game, seat: int, card: int) -> None:
        """R-LADY-7: a received child goes at once onto a field of its variety."""
        if self.kind[card] != "child":
            super().receive(game, seat, card)
            return
        v = self.card_variety[card]
        fields = [i for i, f in enumerate(game.fields[seat]) if f and self.card_variety[f[-1]] == v]
        game.trade[seat].append(card)  # held in the trade area until placed
        if fields and game.pending is not None:
            # Another child's lady move comes first (R-LADY-8: right after *its* child).
            self.push_pending(game, Pending(seat, PLACE_CHILD, card=card))
        elif len(fields) == 1:
            game.trade[seat].remove(card)
            game.emit("place_child", seat, card=card, field=fields[0])
            self.place(game, seat, card, fields[0])
        elif fields:
            self.push_pending(game, Pending(seat, PLACE_CHILD, card=card))

    def pop_pending(self, game: Game) -> None:
        """Next decision; a waiting child with only one field to go to is placed at once."""
        super().pop_pending(game)
        p = game.pending
        if p is not None and p.kind == PLACE_CHILD:
            rule = self.rules[PLACE_CHILD_TYPE]
            options = rule.candidates(game, p.seat, False)
            if len(options) == 1:
                rule.execute(game, p.seat, options[0])

    def pending_refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        p = game.pending
        assert p is not None
        what = action.type.value
        if seat != p.seat:
            why = f"seat {p.seat} must first finish {p.kind}"
            details: dict[str, int | str] = {"active": p.seat}
            return Refusal(seat, what, why, "R-HARV-1", code="decision_pending", details=details)
        rule = self.rules[PLACE_CHILD_TYPE if p.kind == PLACE_CHILD else MOVE_LADY_TYPE]
        if action not in rule.candidates(game, seat, False):
            if p.kind == PLACE_CHILD:
                why = f"the received child {p['card']} must first go onto a field of its variety"
                return Refusal(seat, what, why, "R-LADY-7", code="place_child_first")
            why = (
                "after a child, first move a lady who was on that field before it "
                "two places up, or decline (move_lady with no card)"
            )
            return Refusal(seat, what, why, "R-LADY-8", code="move_lady_first")
        return None

    # ---------------------------------------------------------------- the buyer's coins (R-LADY-10)

    #: The coin cards differ here (men, ladies, children), so their owner may look at them.
    own_treasury_visible = True

    @staticmethod
    def coin_usefulness(view: View, card: int) -> float:
        """R-LADY-10: the paid coins go onto the discard pile face up and come back at the
        next reshuffle, so a buyer gives back the cards least useful to the *other*
        seats. A card is useful to an opponent when it fits one of their fields: most
        when the field is topped by a lady of that variety (another lady keeps the better
        beanometer on top, R-LADY-3/4), and Gardener cards while an opponent grows
        Gardeners (a Gardener lady pays N + 1, R-LADY-5). Ladies are worth more than men,
        children least (a child on top pays nothing)."""
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

    def emit_buy(self, game: Game, seat: int, price: int, paid: list[int]) -> None:
        # The paid coins lie face up on the discard pile now: everyone may see them.
        game.emit("buy_field", seat, price=price, cards=list(paid))


# -------------------------------------------------------------------- Fasolufka's rules


@mypyc_attr(allow_interpreted_subclasses=True)
class PendingRule(Rule):
    """The answer to a pending decision (R-HARV-1): asked only while one is open."""

    pending = True

    def __init__(self, hooks: Hooks) -> None:
        super().__init__(hooks)
        assert isinstance(hooks, FasolufkaHooks)
        #: The hooks with Fasolufka's own helpers (``self.hooks`` typed as the module's).
        self.lady: FasolufkaHooks = hooks

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        return self.lady.pending_refusal(game, seat, action)


def _pending_now(game: Game) -> Pending | None:
    """``game.pending`` as it is now. Through a call: after ``game.pending = None`` and a
    call that may open a new decision, the type checker (and so the compiled core, which
    trusts it) would still take the attribute for None."""
    return game.pending


@mypyc_attr(allow_interpreted_subclasses=True)
class PlaceChildRule(PendingRule):
    """Put a received child onto a field of its variety (R-LADY-7)."""

    type = PLACE_CHILD_TYPE

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        p = game.pending
        if p is None or p.seat != seat or p.kind != PLACE_CHILD:
            return []
        card = p["card"]
        cv = self.lady.card_variety
        v = cv[card]
        return [
            place_child(card, i) for i, f in enumerate(game.fields[seat]) if f and cv[f[-1]] == v
        ]

    def execute(self, game: Game, seat: int, action: Action) -> None:
        card, field = action.card, action.field
        assert card is not None and field is not None
        hooks = self.lady
        game.trade[seat].remove(card)
        game.pending = None
        game.emit("place_child", seat, card=card, field=field)
        # The lady move (if any) becomes the next pending decision, ahead of the queue.
        state = game.extra
        queue, state.queue = state.queue, []
        hooks.place(game, seat, card, field)
        if queue:
            state.queue = queue
        if _pending_now(game) is None:
            hooks.pop_pending(game)


@mypyc_attr(allow_interpreted_subclasses=True)
class MoveLadyRule(PendingRule):
    """After a child: move a lady who lay below it two places up, or decline (R-LADY-8)."""

    type = MOVE_LADY_TYPE

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        p = game.pending
        if p is None or p.seat != seat or p.kind != MOVE_LADY:
            return []
        field, child = p["field"], p["child"]
        f = game.fields[seat][field]
        below = f[: f.index(child)]
        kind = self.lady.kind
        return [move_lady(c) for c in below if kind[c] == "lady"] + [move_lady(None)]

    def execute(self, game: Game, seat: int, action: Action) -> None:
        p = game.pending
        assert p is not None
        field = p["field"]
        f = game.fields[seat][field]
        if action.card is not None:
            i = f.index(action.card)
            f.pop(i)
            f.insert(min(i + 2, len(f)), action.card)
        game.emit("move_lady", seat, field=field, card=action.card)
        self.lady.pop_pending(game)


@mypyc_attr(allow_interpreted_subclasses=True)
class FasolufkaBuyFieldRule(BuyFieldRule):
    """Third fields only in one's own turn (R-LADY-9), paid with coins the buyer may name
    (R-LADY-10)."""

    own_turn_only = "in Fasolufka a third field is bought only in one's own turn (R-LADY-9)"

    def coins_refusal(
        self, game: Game, seat: int, what: str, coins: tuple[int, ...]
    ) -> Refusal | None:
        """The buyer names which coins pay and their order onto the discard pile. A buy
        that names none pays with the top of the treasury (the R-FIELD-3 default), which is
        also how records made before R-LADY-10 replay."""
        if not coins:
            return None
        price = self.config.field_price
        if len(coins) != price:
            why = (
                f"a third field is paid with exactly {price} coins of the treasury, "
                f"not {len(coins)} (R-LADY-10)"
            )
            return self.refuse(game, seat, what, why, code="coin_count", price=price, n=len(coins))
        if len(set(coins)) != len(coins):
            why = f"a coin is named twice in {list(coins)} (R-LADY-10)"
            return self.refuse(game, seat, what, why, code="coin_twice")
        mine = game.treasury[seat]
        missing = [c for c in coins if c not in mine]
        if missing:
            why = f"card {missing[0]} is not a coin in its treasury (R-LADY-10)"
            return self.refuse(game, seat, what, why, code="not_a_coin")
        return None


FasolufkaHooks.rule_classes = with_rules(
    Hooks.rule_classes, PlaceChildRule, MoveLadyRule, FasolufkaBuyFieldRule
)
