"""What an action looks like from outside the engine: its *shape*.

Every rule declares the shape of its action once (:class:`ActionShape`): the parameters
the action takes, each with a :class:`ParamKind` (a hand card, a field, an offer…), the
:class:`~bohnanza.actions.Action` field it fills, and a label and help text in English and
Polish; the action's own label, help and command words. Everything a front end needs is
derived from that one declaration instead of being written per action type: the fields an
action names (:func:`bohnanza.actions.takes`), ``Action``'s repr and JSON checks, the text
commands and their parser (:mod:`bohnanza.text`), the terminal menus and the page's
buttons (:meth:`ActionShape.to_json`).

The base game's shapes are here (:data:`BASE_SHAPES`, read by :mod:`bohnanza.actions`); a
module declares its own on its rule class (``type = ActionType.extend(ActionShape(...))``).
This module holds plain values only: no I/O, no imports from the rest of the package.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

#: A short text in English and Polish (the languages of the UI).
Label = tuple[str, str]


class ParamKind(StrEnum):
    """What a parameter names, and so how a front end asks for it and writes it."""

    __hash__ = str.__hash__

    #: A card in the acting seat's hand (text: its place, ``1``…).
    HAND_CARD = "hand_card"
    #: A card in a public area: the drawn/turned-up cards or a module's public pile
    #: (text: ``d1``…, or the pile's prefix, ``o1``/``r1`` in the duel).
    PILE_CARD = "pile_card"
    #: A card in the acting seat's trade area (text: ``t1``…).
    TRADE_CARD = "trade_card"
    #: A card in one of the places listed by the parameter's ``places`` (hand and piles).
    CARD = "card"
    #: A card on one of the acting seat's fields (text: ``FIELD PLACE``, place 1 at the
    #: bottom).
    FIELD_CARD = "field_card"
    #: The card the open pending decision is about: never written, read from the view.
    PENDING_CARD = "pending_card"
    #: One of the acting seat's fields (text: ``1``…).
    FIELD = "field"
    #: Coins of the acting seat's treasury, in paying order.
    COINS = "coins"
    #: A seat at the table.
    SEAT = "seat"
    #: A variety (its index in the configuration's varieties).
    VARIETY = "variety"
    #: A whole trade offer (its own sub-language in text).
    OFFER = "offer"
    #: The number of an open offer.
    OFFER_ID = "offer_id"
    #: Cards that pay for an accepted offer (hand or drawn cards).
    PAYMENT = "payment"


#: The :class:`~bohnanza.actions.Action` fields a parameter may fill.
ACTION_FIELDS = frozenset({"field", "card", "offer_id", "cards", "offer", "target"})

#: The places (text-token prefixes, ``h`` for the hand) a card of each kind may come
#: from, unless the parameter names its own.
DEFAULT_PLACES: dict[str, str] = {
    ParamKind.HAND_CARD: "h",
    ParamKind.PILE_CARD: "dor",
    ParamKind.TRADE_CARD: "t",
    ParamKind.CARD: "hdtor",
    ParamKind.PAYMENT: "hd",
}

#: The kinds that fill an integer field with one card id.
CARD_KINDS = frozenset(
    {
        ParamKind.HAND_CARD,
        ParamKind.PILE_CARD,
        ParamKind.TRADE_CARD,
        ParamKind.CARD,
        ParamKind.FIELD_CARD,
        ParamKind.PENDING_CARD,
    }
)

#: Which Action fields a kind may fill (one value, or a tuple of cards).
_FILLS: dict[str, frozenset[str]] = {
    **{k: frozenset({"card"}) for k in CARD_KINDS},
    ParamKind.FIELD: frozenset({"field"}),
    ParamKind.COINS: frozenset({"cards"}),
    # A seat fills ``target`` (the older modules' seats ride in another number).
    ParamKind.SEAT: frozenset({"target", "field", "card", "offer_id"}),
    ParamKind.VARIETY: frozenset({"field", "card", "offer_id"}),
    ParamKind.OFFER: frozenset({"offer"}),
    ParamKind.OFFER_ID: frozenset({"offer_id"}),
    ParamKind.PAYMENT: frozenset({"cards"}),
}


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of an action.

    ``fills``: the :class:`~bohnanza.actions.Action` field it sets (``card`` for a card
    kind, ``field`` for a field…). ``optional``: ``None`` is an answer (Fasolufka's lady
    move declined), written as the word *none* in text; ``none_label`` names that answer.
    ``places``: for a card, the text-token prefixes it may be named by (``h`` for the
    hand, ``d``, ``t``, ``o``, ``r``); empty: the kind's default. ``label`` and ``help``:
    English and Polish.
    """

    kind: ParamKind
    fills: str
    label: Label
    help: Label = ("", "")
    optional: bool = False
    none_label: Label = ("none", "nic")
    places: str = ""

    def __post_init__(self) -> None:
        if self.fills not in _FILLS.get(self.kind, frozenset()):
            raise ValueError(f"a {self.kind.value} parameter cannot fill {self.fills!r}")

    @property
    def card_places(self) -> str:
        """Where a card of this parameter may be named from (text-token prefixes)."""
        return self.places or DEFAULT_PLACES.get(self.kind, "")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind.value,
            "fills": self.fills,
            "label": list(self.label),
            "help": list(self.help),
        }
        if self.optional:
            out["optional"] = True
            out["none_label"] = list(self.none_label)
        if self.card_places:
            out["places"] = self.card_places
        return out


@dataclass(frozen=True, slots=True)
class ActionShape:
    """The shape of one action type.

    ``type``: the action type's value (``"plant"``). ``params``: in the order of the
    constructor's arguments and of the text command's. ``label``/``help``: English and
    Polish. ``words``: the text command word in English and in Polish as written
    (``("plant", "zasadź")``); ``aliases``: further words that mean it (folded: lower
    case, no diacritics). Several actions may share a command word (``plant FIELD``,
    ``plant tN FIELD``): the parser tells them apart by their arguments. ``text``:
    False for the actions whose text form :mod:`bohnanza.text` writes by hand (the
    offer's sub-language); every other form is derived from ``params``.
    """

    type: str
    params: tuple[Param, ...] = ()
    label: Label = ("", "")
    help: Label = ("", "")
    words: Label = ("", "")
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if (
            not self.type
            or not self.type.replace("_", "").isalnum()
            or self.type != self.type.lower()
        ):
            raise ValueError(f"an action type is a lower-case word, not {self.type!r}")
        seen: set[str] = set()
        for p in self.params:
            if p.fills in seen:
                raise ValueError(f"{self.type}: two parameters fill {p.fills!r}")
            seen.add(p.fills)
        if not self.label[0]:
            object.__setattr__(self, "label", (self.type.replace("_", " "),) * 2)
        if not self.words[0]:
            object.__setattr__(self, "words", (self.type, self.type))

    @property
    def fields(self) -> frozenset[str]:
        """The :class:`~bohnanza.actions.Action` fields this action names."""
        return frozenset(p.fills for p in self.params)

    def param(self, fills: str) -> Param | None:
        """The parameter filling ``fills``, or None."""
        for p in self.params:
            if p.fills == fills:
                return p
        return None

    def to_json(self) -> dict[str, Any]:
        """The shape for the web page (sent with the table's module info)."""
        return {
            "type": self.type,
            "label": list(self.label),
            "help": list(self.help),
            "words": list(self.words),
            "params": [p.to_json() for p in self.params],
        }


def shape_from_fields(value: str, fields: tuple[str, ...] | frozenset[str]) -> ActionShape:
    """A plain shape for an action type declared only by the fields it names (the older
    ``ActionType.extend(value, takes=...)``): one parameter per field, of the most general
    kind, in the :class:`~bohnanza.actions.Action` field order."""
    kinds = {
        "card": ParamKind.CARD,
        "field": ParamKind.FIELD,
        "offer_id": ParamKind.OFFER_ID,
        "cards": ParamKind.COINS,
        "offer": ParamKind.OFFER,
        "target": ParamKind.SEAT,
    }
    wanted = frozenset(fields)
    if not wanted <= ACTION_FIELDS:
        raise ValueError(f"an action names only {sorted(ACTION_FIELDS)}, not {tuple(fields)!r}")
    order = ("card", "field", "offer_id", "cards", "offer", "target")
    return ActionShape(
        value,
        tuple(
            Param(kinds[f], f, (f.replace("_", " "), f.replace("_", " ")))
            for f in order
            if f in wanted
        ),
    )


# ------------------------------------------------------------------ the base game's shapes

_FIELD = Param(
    ParamKind.FIELD,
    "field",
    ("field", "pole"),
    ("one of your fields, numbered from 1", "jedno z twoich pól, numerowanych od 1"),
)
_OFFER_ID = Param(
    ParamKind.OFFER_ID,
    "offer_id",
    ("offer", "oferta"),
    ("the number of an open offer", "numer otwartej oferty"),
)

PLANT = ActionShape(
    "plant",
    (_FIELD,),
    ("plant", "zasadź"),
    (
        "plant the front card of your hand on a field (R-PLANT-1)",
        "zasadź pierwszą kartę z ręki na polu (R-PLANT-1)",
    ),
    ("plant", "zasadź"),
    ("zasadz", "sadz"),
)
STOP_PLANTING = ActionShape(
    "stop_planting",
    (),
    ("stop planting", "nie sadź więcej"),
    ("do not plant a second card (R-PLANT-2)", "nie sadź drugiej karty (R-PLANT-2)"),
    ("stop", "dość"),
    ("dosc",),
)
PROPOSE = ActionShape(
    "propose",
    (
        Param(
            ParamKind.OFFER,
            "offer",
            ("offer", "oferta"),
            ("what you give and what you want", "co dajesz i czego chcesz"),
        ),
    ),
    ("propose a trade", "zaproponuj wymianę"),
    ("open a trade offer (R-TRADE-1)", "otwórz ofertę wymiany (R-TRADE-1)"),
    ("offer", "oferta"),
    ("oferuj",),
)
ACCEPT = ActionShape(
    "accept",
    (
        _OFFER_ID,
        Param(
            ParamKind.PAYMENT,
            "cards",
            ("your cards", "twoje karty"),
            ("the cards you give for it", "karty, które za nią dajesz"),
        ),
    ),
    ("accept", "przyjmij"),
    ("accept an offer made to you", "przyjmij ofertę skierowaną do ciebie"),
    ("accept", "przyjmij"),
)
DECLINE = ActionShape(
    "decline",
    (_OFFER_ID,),
    ("decline", "odrzuć"),
    ("refuse an offer made to you (R-TRADE-4)", "odrzuć ofertę skierowaną do ciebie (R-TRADE-4)"),
    ("decline", "odrzuć"),
)
WITHDRAW = ActionShape(
    "withdraw",
    (_OFFER_ID,),
    ("withdraw", "wycofaj"),
    ("take back your own offer", "wycofaj własną ofertę"),
    ("withdraw", "wycofaj"),
)
END_TRADING = ActionShape(
    "end_trading",
    (),
    ("end trading", "zakończ handel"),
    ("the active player ends trading (R-TRADE-6)", "aktywny gracz kończy handel (R-TRADE-6)"),
    ("end", "koniec"),
    ("zakoncz",),
)
PLANT_TRADED = ActionShape(
    "plant_traded",
    (
        Param(
            ParamKind.TRADE_CARD,
            "card",
            ("card", "karta"),
            ("a card of your trade area", "karta z twojego pola wymiany"),
        ),
        _FIELD,
    ),
    ("plant", "zasadź"),
    ("plant a traded card (R-PLANT-4)", "zasadź kartę z wymiany (R-PLANT-4)"),
    ("plant", "zasadź"),
)
HARVEST = ActionShape(
    "harvest",
    (_FIELD,),
    ("harvest", "zbierz"),
    ("harvest a field (R-HARV-1)", "zbierz plon z pola (R-HARV-1)"),
    ("harvest", "zbierz"),
)
BUY_FIELD = ActionShape(
    "buy_field",
    (
        Param(
            ParamKind.COINS,
            "cards",
            ("coins", "monety"),
            (
                "the treasury cards that pay, in paying order (empty: the top ones)",
                "karty ze skarbca, którymi płacisz, po kolei (bez: te z wierzchu)",
            ),
        ),
    ),
    ("buy a third field", "kup trzecie pole"),
    ("buy a third field (R-FIELD-1)", "kup trzecie pole (R-FIELD-1)"),
    ("buy", "kup"),
)

#: The base game's action shapes, by action type value, in the core enum's order.
BASE_SHAPES: dict[str, ActionShape] = {
    s.type: s
    for s in (
        PLANT,
        STOP_PLANTING,
        PROPOSE,
        ACCEPT,
        DECLINE,
        WITHDRAW,
        END_TRADING,
        PLANT_TRADED,
        HARVEST,
        BUY_FIELD,
    )
}

__all__ = [
    "ACTION_FIELDS",
    "BASE_SHAPES",
    "CARD_KINDS",
    "ActionShape",
    "Label",
    "Param",
    "ParamKind",
    "shape_from_fields",
]
