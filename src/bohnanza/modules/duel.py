"""Module 4, Duel (RULES.md §9): two players, no trading, a turn of four steps.

Phases of a duel turn (R-DUEL-3): ``duel_offer`` (plant or discard each card the opponent
left), ``plant`` (the base phase 1), ``duel_discard`` (optionally discard one hand card),
``duel_reveal`` (reveal 3, pull matching cards off the discard pile, plant any, leave the
rest as the offer); then 2 cards are drawn automatically. The offer and the revealed cards
live in ``game.extra`` and are public. Harvests and the field purchase happen only in
one's own turn, and coins paid for a field leave the game (R-DUEL-2). The game ends after
the turn in which the pile first runs out, plus one turn for seat 1 if seat 0 was active
(R-DUEL-4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from ..actions import Action, ActionType
from ..errors import RecordError, Refusal
from ..frozen import FrozenDict, FrozenList
from ..game import PLANT, ModuleState
from ..shapes import ActionShape, Param, ParamKind
from .base import Hooks
from .info import EncodingHints, EventLabel, ModuleInfo, PileTurn
from .operations import BuyFieldRule, HarvestRule, Rule, with_rules

if TYPE_CHECKING:
    from ..game import Game

_T = ActionType


class DuelPhase(StrEnum):
    """The duel's own steps of a turn (R-DUEL-3), besides the base ``plant``."""

    # Hashed as the string it equals: Enum's own __hash__ is a Python function (a call
    # on every dict or set lookup; these are looked up after every action) and hashes the
    # member's name, so ``{"plant"}`` did not find the member that equals "plant".
    __hash__ = str.__hash__

    OFFER = "duel_offer"  # plant or discard each card the opponent left
    DISCARD = "duel_discard"  # optionally discard one hand card
    REVEAL = "duel_reveal"  # reveal 3, pull matching cards, plant any

    def __repr__(self) -> str:
        return f"DuelPhase.{self.name}"


OFFER = DuelPhase.OFFER
DISCARD = DuelPhase.DISCARD
REVEAL = DuelPhase.REVEAL
REVEAL_COUNT = 3

_FIELD = Param(
    ParamKind.FIELD,
    "field",
    ("field", "pole"),
    ("one of your fields, numbered from 1", "jedno z twoich pól, numerowanych od 1"),
)
#: Plant a card of the opponent's offer or of the revealed cards (R-DUEL-3).
PLANT_REVEALED = ActionType.extend(
    ActionShape(
        "plant_revealed",
        (
            Param(
                ParamKind.PILE_CARD,
                "card",
                ("card", "karta"),
                (
                    "a card of the opponent's offer (o1…) or of the revealed cards (r1…)",
                    "karta z oferty przeciwnika (o1…) albo z odkrytych kart (r1…)",
                ),
                places="or",
            ),
            _FIELD,
        ),
        ("plant", "zasadź"),
        (
            "plant a card of the offer or of the revealed cards (R-DUEL-3)",
            "zasadź kartę z oferty albo z odkrytych kart (R-DUEL-3)",
        ),
        ("plant", "zasadź"),
    )
)
#: Discard a card of the opponent's offer, or one hand card in step 2 (R-DUEL-3).
DISCARD_CARD = ActionType.extend(
    ActionShape(
        "discard",
        (
            Param(
                ParamKind.CARD,
                "card",
                ("card", "karta"),
                (
                    "a card of the opponent's offer (o1…), or of your hand (1…) in step 2",
                    "karta z oferty przeciwnika (o1…) albo, w kroku 2, z ręki (1…)",
                ),
                places="oh",
            ),
        ),
        ("discard", "odrzuć"),
        (
            "discard a card of the offer, or one hand card (R-DUEL-3)",
            "wyrzuć kartę z oferty albo jedną kartę z ręki (R-DUEL-3)",
        ),
        ("discard", "wyrzuć"),
        ("wyrzuc",),
    )
)
#: Keep the whole hand (R-DUEL-3 step 2).
SKIP_DISCARD = ActionType.extend(
    ActionShape(
        "skip_discard",
        (),
        ("keep the hand", "zachowaj rękę"),
        ("discard no hand card (R-DUEL-3)", "nie wyrzucaj karty z ręki (R-DUEL-3)"),
        ("keep", "zatrzymaj"),
    )
)
#: Leave the rest of the revealed cards as the opponent's offer (R-DUEL-3 step 3).
END_REVEAL = ActionType.extend(
    ActionShape(
        "end_reveal",
        (),
        ("leave the rest as the offer", "zostaw resztę jako ofertę"),
        (
            "leave the other revealed cards as the opponent's offer (R-DUEL-3)",
            "zostaw pozostałe odkryte karty jako ofertę dla przeciwnika (R-DUEL-3)",
        ),
        ("leave", "zostaw"),
    )
)


def plant_revealed(card: int, field: int) -> Action:
    """Plant ``card`` of the offer or the revealed cards on ``field`` (R-DUEL-3)."""
    return Action(PLANT_REVEALED, card=card, field=field)


def discard(card: int) -> Action:
    """Discard ``card`` of the offer, or of the hand in step 2 (R-DUEL-3)."""
    return Action(DISCARD_CARD, card=card)


_SKIP = Action(SKIP_DISCARD)
_END = Action(END_REVEAL)


def skip_discard() -> Action:
    """Keep the whole hand (R-DUEL-3 step 2)."""
    return _SKIP


def end_reveal() -> Action:
    """Leave the rest of the revealed cards as the offer (R-DUEL-3 step 3)."""
    return _END


class DuelState(ModuleState):
    """The duel's public piles (R-DUEL-3): the cards the opponent left on offer, and the
    cards revealed this turn; ``last_turn`` once seat 1's extra turn after a run-out in
    seat 0's turn is granted (R-DUEL-4)."""

    __slots__ = ("last_turn", "offer", "revealed")
    public = True

    def __init__(self) -> None:
        super().__init__()
        self.offer: list[int] = []
        self.revealed: list[int] = []
        self.last_turn = False

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["offer"] = list(self.offer)
        out["revealed"] = list(self.revealed)
        if self.last_turn:
            out["last_turn"] = True
        return out

    def load(self, data: Mapping[str, Any]) -> None:
        super().load(data)
        for name in ("offer", "revealed"):
            pile = data.get(name, [])
            if not isinstance(pile, list) or not all(type(c) is int for c in pile):
                raise RecordError(f"malformed duel {name} pile {pile!r}")
            setattr(self, name, list(pile))
        self.last_turn = bool(data.get("last_turn", False))

    def copy(self) -> DuelState:
        new = super().copy()
        new.offer = self.offer[:]
        new.revealed = self.revealed[:]
        new.last_turn = self.last_turn
        return new


def _state(game: Game) -> DuelState:
    state = game.extra
    assert isinstance(state, DuelState)
    return state


@mypyc_attr(allow_interpreted_subclasses=True)
class DuelHooks(Hooks):
    info = ModuleInfo(
        phases=(OFFER, DISCARD, REVEAL),
        phase_labels={
            OFFER: ("plant or discard the offer", "zasadź lub wyrzuć ofertę"),
            DISCARD: ("discard a hand card (or not)", "wyrzuć kartę z ręki (albo nie)"),
            REVEAL: ("plant revealed cards", "zasadź odkryte karty"),
        },
        source_labels={
            OFFER: ("from the offer", "z oferty"),
            REVEAL: ("from the revealed cards", "z odkrytych kart"),
        },
        title=("Fasolki: the Duel", "Fasolki: Pojedynek"),
        note=(
            "Two players, no trading: the opponent's offer, a hand discard, three revealed cards.",
            "Dwóch graczy, bez handlu: oferta przeciwnika, odrzucenie karty z ręki, trzy "
            "odkryte karty.",
        ),
        hint_phases=(OFFER, DISCARD, REVEAL),
        hints={
            OFFER: (
                "Plant or discard each card of your opponent's offer.",
                "Posadź albo odrzuć każdą kartę z oferty przeciwnika.",
            ),
            DISCARD: (
                "You may discard one hand card (click it), or keep your hand.",
                "Możesz odrzucić jedną kartę z ręki (kliknij ją) albo zachować rękę.",
            ),
            REVEAL: (
                "Plant any revealed cards you want; the rest become the offer.",
                "Posadź dowolne odkryte karty; reszta zostanie ofertą.",
            ),
        },
        # The events of the reveal step (R-DUEL-3) that are no action's own.
        event_labels={
            "reveal": (EventLabel(("{who} reveals {card}", "{who} odkrywa kartę: {card}")),),
            "pull_discard": (
                EventLabel(
                    (
                        "{who} takes {card_acc} from the discard pile too",
                        "{who} bierze też {card_acc} ze stosu odrzuconych",
                    )
                ),
            ),
            "leave_offer": (
                EventLabel(("{who} leaves {cards} as the offer", "{who} zostawia ofertę: {cards}")),
            ),
        },
        hand_discard_phases=(DISCARD,),
        public=("offer", "revealed"),
        pile_tokens={"offer": "o", "revealed": "r"},
        pile_labels={
            "offer": ("Opponent's offer", "Oferta przeciwnika"),
            "revealed": ("Revealed cards", "Odkryte karty"),
        },
        pile_names={
            "offer": ("the offered cards", "oferowanych kartach"),
            "revealed": ("the revealed cards", "odkrytych kartach pojedynku"),
        },
        trading=False,
        turn_cards=REVEAL_COUNT,
        last_turn_public=True,
        cards_traceable=False,
        encoding=EncodingHints(
            pile_turn=PileTurn(
                offer="offer",
                revealed="revealed",
                offer_phase=OFFER,
                discard_phase=DISCARD,
                reveal_phase=REVEAL,
                plant=PLANT_REVEALED.value,
                discard=DISCARD_CARD.value,
                keep=(SKIP_DISCARD.value, END_REVEAL.value),
            )
        ),
    )
    trading = False
    phases = Hooks.phases | {OFFER, DISCARD, REVEAL}
    state_class = DuelState

    # ---------------------------------------------------------------- the turn

    def start_turn(self, game: Game, seat: int) -> None:
        game.active = seat
        game.planted = 0
        game.turn += 1
        game.emit("turn", seat, turn=game.turn)
        if _state(game).offer:
            game.phase = OFFER
        else:
            self.start_planting(game)

    def start_planting(self, game: Game) -> None:
        game.phase = PLANT
        if not game.hands[game.active]:
            self.start_trade(game)

    def start_trade(self, game: Game) -> None:
        """After phase 1 the duel has no trade: the optional hand discard comes instead."""
        game.phase = DISCARD
        if not game.hands[game.active]:
            self.reveal(game)

    def reveal(self, game: Game) -> None:
        game.phase = REVEAL
        revealed: list[int] = _state(game).revealed
        for _ in range(REVEAL_COUNT):
            card = game.draw_card()
            if card is None:
                break
            revealed.append(card)
            game.emit("reveal", game.active, card=card, variety=self.config.variety_of(card))
        kinds = {self.card_variety[c] for c in revealed}
        while game.discard and self.card_variety[game.discard[-1]] in kinds:
            card = game.discard.pop()
            revealed.append(card)
            game.emit("pull_discard", game.active, card=card, variety=self.config.variety_of(card))

    def end_reveal(self, game: Game) -> None:
        a = game.active
        state = _state(game)
        state.offer, state.revealed = state.revealed, []
        game.emit("leave_offer", a, cards=list(state.offer))
        for _ in range(self.config.draw_count):
            card = game.draw_card()
            if card is None:
                break
            game.hands[a].append(card)
            if game._events is not None:
                game.emit("draw", a, private={"card": card})
        if game.final_runout:
            if a == 0 and not state.last_turn:
                state.last_turn = True  # R-DUEL-4: equal turns
                self.start_turn(game, 1)
            else:
                game.end_game()
            return
        self.start_turn(game, 1 - a)

    def waiting_for(self, game: Game) -> list[int]:
        return [game.active]

    def extra_cards(self, game: Game) -> list[int]:
        state = _state(game)
        return state.offer + state.revealed

    def table_piles(self, game: Game) -> list[list[int]]:
        state = _state(game)
        return [state.offer, state.revealed]

    def public_extra(self, game: Game, seat: int | None) -> FrozenDict[str, Any]:
        state = _state(game)
        return FrozenDict(offer=FrozenList(state.offer), revealed=FrozenList(state.revealed))

    # ---------------------------------------------------------------- coins

    def spend_coins(self, game: Game, cards: list[int]) -> None:
        game.out.extend(cards)  # R-DUEL-2: paid coins leave the game


# -------------------------------------------------------------------- the duel's rules

_OWN_TURN = "in the duel one harvests and buys a field only in one's own turn (R-DUEL-2)"


@mypyc_attr(allow_interpreted_subclasses=True)
class DuelHarvestRule(HarvestRule):
    own_turn_only = _OWN_TURN


@mypyc_attr(allow_interpreted_subclasses=True)
class DuelBuyFieldRule(BuyFieldRule):
    own_turn_only = _OWN_TURN


@mypyc_attr(allow_interpreted_subclasses=True)
class DuelStepRule(Rule):
    """A step of the duel's turn (R-DUEL-3): the active seat's, in its phases."""

    def __init__(self, hooks: Hooks) -> None:
        super().__init__(hooks)
        assert isinstance(hooks, DuelHooks)
        #: The hooks with the duel's own steps (``self.hooks`` typed as the module's).
        self.duel: DuelHooks = hooks

    def step_refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        what = action.type.value.replace("_", " ")
        phases = self.phases
        if seat != game.active or (phases is not None and game.phase not in phases):
            why = f"now it is seat {game.active}'s step {game.phase}"
            if seat == game.active:
                phase = str(game.phase)
                return self.refuse(
                    game, seat, what, why, "R-DUEL-3", code="wrong_phase", phase=phase
                )
            return self.refuse(
                game, seat, what, why, "R-DUEL-3", code="not_now", active=game.active
            )
        return None


def _pile(game: Game) -> list[int]:
    state = _state(game)
    return state.offer if game.phase == OFFER else state.revealed


@mypyc_attr(allow_interpreted_subclasses=True)
class PlantRevealedRule(DuelStepRule):
    """Plant a card of the opponent's offer or of the revealed cards (R-DUEL-3)."""

    type = PLANT_REVEALED
    phases = frozenset({OFFER, REVEAL})
    group = "pile"

    def order(self, game: Game) -> Callable[[Action], int]:
        pile = _pile(game)
        return lambda a: pile.index(a.card) if a.card in pile else len(pile)

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        if seat != game.active:
            return []
        hooks = self.duel
        n = len(game.fields[seat])
        return [
            plant_revealed(card, f)
            for card in _pile(game)
            for f in range(n)
            if hooks.can_plant(game, seat, card, f)
        ]

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        refused = self.step_refusal(game, seat, action)
        if refused:
            return refused
        offer = game.phase == OFFER
        where = "the opponent's offer" if offer else "the revealed cards"
        if action.card not in _pile(game):
            what = f"plant card {action.card}"
            code = "not_in_offer" if offer else "not_in_revealed"
            return self.refuse(game, seat, what, f"it is not among {where}", "R-DUEL-3", code=code)
        assert action.card is not None
        what = f"plant card {action.card} on field {action.field}"
        return self.duel.plant_refusal(game, seat, what, action.card, action.field)

    def execute(self, game: Game, seat: int, action: Action) -> None:
        card, field = action.card, action.field
        assert card is not None and field is not None
        pile = _pile(game)
        pile.remove(card)
        game.emit(
            "plant",
            seat,
            card=card,
            field=field,
            variety=self.config.variety_of(card),
            source=game.phase,
        )
        self.duel.place(game, seat, card, field)
        if game.phase == OFFER and not pile:
            self.duel.start_planting(game)


@mypyc_attr(allow_interpreted_subclasses=True)
class DiscardRule(DuelStepRule):
    """Discard a card of the opponent's offer, or one hand card in step 2 (R-DUEL-3)."""

    type = DISCARD_CARD
    phases = frozenset({OFFER, DISCARD})
    group = "pile"

    def order(self, game: Game) -> Callable[[Action], int]:
        pile = _pile(game)
        return lambda a: pile.index(a.card) if a.card in pile else len(pile)

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        if seat != game.active:
            return []
        cards = _state(game).offer if game.phase == OFFER else game.hands[seat]
        return [discard(c) for c in cards]

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        refused = self.step_refusal(game, seat, action)
        if refused:
            return refused
        pile = _state(game).offer if game.phase == OFFER else game.hands[seat]
        if action.card not in pile:
            offer = game.phase == OFFER
            where = "the opponent's offer" if offer else "its hand"
            what = f"discard card {action.card}"
            code = "not_in_offer" if offer else "not_in_hand"
            return self.refuse(game, seat, what, f"it is not in {where}", "R-DUEL-3", code=code)
        return None

    def execute(self, game: Game, seat: int, action: Action) -> None:
        card = action.card
        assert card is not None
        hooks = self.duel
        if game.phase == OFFER:
            offer = _state(game).offer
            offer.remove(card)
            game.discard.append(card)
            game.emit("discard", seat, card=card, source="offer")
            if not offer:
                hooks.start_planting(game)
        else:
            game.hands[seat].remove(card)
            game.discard.append(card)
            game.emit(
                "discard", seat, card=card, source="hand", variety=self.config.variety_of(card)
            )
            hooks.reveal(game)


@mypyc_attr(allow_interpreted_subclasses=True)
class SkipDiscardRule(DuelStepRule):
    """Keep the whole hand (R-DUEL-3 step 2)."""

    type = SKIP_DISCARD
    phases = frozenset({DISCARD})

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        return [_SKIP] if seat == game.active else []

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        return self.step_refusal(game, seat, action)

    def execute(self, game: Game, seat: int, action: Action) -> None:
        game.emit("skip_discard", seat)
        self.duel.reveal(game)


@mypyc_attr(allow_interpreted_subclasses=True)
class EndRevealRule(DuelStepRule):
    """Leave the rest of the revealed cards as the opponent's offer (R-DUEL-3 step 3)."""

    type = END_REVEAL
    phases = frozenset({REVEAL})

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        return [_END] if seat == game.active else []

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        return self.step_refusal(game, seat, action)

    def execute(self, game: Game, seat: int, action: Action) -> None:
        self.duel.end_reveal(game)


DuelHooks.rule_classes = with_rules(
    Hooks.rule_classes,
    PlantRevealedRule,
    DiscardRule,
    SkipDiscardRule,
    EndRevealRule,
    DuelHarvestRule,
    DuelBuyFieldRule,
)
