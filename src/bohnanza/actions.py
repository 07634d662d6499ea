"""Actions and offers: small immutable values with one JSON form each way.

They are named tuples rather than frozen dataclasses because bots create and compare
them by the thousand per game, and tuples are several times cheaper to build.

An :class:`Action` is what a seat asks the engine to do; the seat itself is not part of
it (the engine is told who acts), so the same action value can be checked for any seat.
Reprs are constructor calls that can be pasted back: ``Action.harvest(1)`` for the base
game's types, ``Action.of('toll', 17, 1)`` for a module's own, whose type the module makes
with :meth:`ActionType.extend` from the action's shape (:mod:`bohnanza.shapes`; the
example module is ``tests/fixtures/module_toll.py``, docs/modules.md).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, NamedTuple

from .errors import RecordError
from .shapes import BASE_SHAPES, ActionShape, ParamKind, shape_from_fields


class ActionType(StrEnum):
    # Hashed as the string it equals: Enum's own __hash__ is a Python function (a call
    # on every dict or set lookup; these are looked up after every action) and hashes the
    # member's name, so ``{"plant"}`` did not find the member that equals "plant".
    __hash__ = str.__hash__

    PLANT = "plant"  # phase 1: the front hand card onto a field (R-PLANT-1/2)
    STOP_PLANTING = "stop_planting"  # phase 1: decline the optional second card (R-PLANT-2)
    PROPOSE = "propose"  # phase 2: open an offer (R-TRADE-1…4)
    ACCEPT = "accept"  # phase 2: accept an offer addressed to you, choosing your cards
    DECLINE = "decline"  # phase 2: refuse an offer or gift addressed to you (R-TRADE-4)
    WITHDRAW = "withdraw"  # phase 2: take back your own open offer
    END_TRADING = "end_trading"  # phase 2: the active player ends trading (R-TRADE-6)
    PLANT_TRADED = "plant_traded"  # phase 3: plant a card from your trade area (R-PLANT-4)
    HARVEST = "harvest"  # any time allowed (R-HARV-1)
    BUY_FIELD = "buy_field"  # buy a third field (R-FIELD-1); cards: the chosen coins (R-LADY-10)

    @classmethod
    def _missing_(cls, value: object) -> ActionType | None:
        """A value that is no built-in type may be a module's own: the built-in modules
        are imported (they declare theirs, :meth:`extend`) and it is looked up again, so a
        built-in module's type resolves before anything imported its module (a record
        read first, an action unpickled in a worker process)."""
        if not isinstance(value, str):
            return None
        # The modules are a layer above this one: bohnanza.modules registers its loader
        # of the built-in modules here when imported (the package imports it).
        for load in _TYPE_LOADERS:
            load()
        found = cls._value2member_map_.get(value)
        return found if isinstance(found, ActionType) else None

    @classmethod
    def extend(cls, value: str | ActionShape, takes: tuple[str, ...] = ()) -> ActionType:
        """A module's own action type, added without editing this file (the module holds
        the returned value as a constant, usually as its rule's ``type``). It behaves like
        a member: ``ActionType(value)`` (records, JSON) returns it and ``is`` compares it;
        iterating ``ActionType`` lists only the built-in types.

        ``value``: the action's :class:`~bohnanza.shapes.ActionShape` (its parameters,
        labels and command words; :func:`shape_of` returns it), or just the type's name,
        with ``takes`` the :class:`Action` fields it names (a plain shape is made from
        them, :func:`~bohnanza.shapes.shape_from_fields`). Calling again with an equal
        shape (or the same name and fields) returns the same object; a built-in value,
        or another shape than the first call's, is refused."""
        if isinstance(value, ActionShape):
            if takes:
                raise ValueError("a shape names its fields itself: give no takes")
            shape = value
        else:
            shape = shape_from_fields(value, takes)
        name = shape.type
        existing = cls._value2member_map_.get(name)
        if existing is not None:
            if existing._name_ in cls._member_map_:
                raise ValueError(f"{name!r} is a built-in action type")
            old = _SHAPES[name]
            if old != shape and not (isinstance(value, str) and old.fields == shape.fields):
                raise ValueError(f"{name!r} was made with another shape: {old!r}")
            return existing  # type: ignore[return-value]
        member = str.__new__(cls, name)
        member._value_ = name
        member._name_ = name.upper()
        cls._value2member_map_[name] = member
        _SHAPES[name] = shape
        _TAKES[name] = shape.fields
        return member


#: Called when a value names no known action type, to load the modules that may declare
#: it: bohnanza.modules adds the loader of the built-in modules when it is imported (a
#: layer above this one, which this one does not import).
_TYPE_LOADERS: list[Callable[[], object]] = []


def add_type_loader(load: Callable[[], object]) -> None:
    """Let ``load`` declare more action types when a value names none yet
    (:meth:`ActionType._missing_`)."""
    if load not in _TYPE_LOADERS:
        _TYPE_LOADERS.append(load)


_T = ActionType
#: Every action type's shape, by value: the base game's (:data:`~bohnanza.shapes.BASE_SHAPES`)
#: and each module's own (:meth:`ActionType.extend`).
_SHAPES: dict[str, ActionShape] = dict(BASE_SHAPES)
#: The fields each action type names, from its shape. The rest stay at their defaults
#: (None, or no cards): :func:`shape_error` refuses a value there, so one decision has
#: one value - the one ``legal_actions`` lists and a record writes - and a client never
#: sees a field it sent silently ignored.
_TAKES: dict[str, frozenset[str]] = {k: s.fields for k, s in BASE_SHAPES.items()}
assert set(_SHAPES) == {t.value for t in ActionType}


def takes(kind: ActionType) -> frozenset[str]:
    """The :class:`Action` fields that actions of type ``kind`` name (its shape's)."""
    return _TAKES[kind]


def shape_of(kind: ActionType | str) -> ActionShape:
    """The shape of an action type (a built-in one, or one made by :meth:`ActionType.extend`);
    an unknown value raises ``KeyError``."""
    return _SHAPES[str(kind)]


def all_shapes() -> dict[str, ActionShape]:
    """Every action type known now (the built-in ones first), by value."""
    return dict(_SHAPES)


def action_type(value: str) -> ActionType:
    """The action type of a value, a module's own included (the built-in modules are
    imported when needed, :meth:`ActionType._missing_`). ``ValueError`` if there is no
    such type."""
    return ActionType(value)


class Offer(NamedTuple):
    """A proposal in the trade phase, seen from its proposer.

    ``give`` are card ids the proposer hands over (from the hand, or the drawn cards if the
    proposer is active); ``want`` is what the partner gives back, as (variety, count): the
    partner picks the actual cards on accepting. ``want == ()`` is a gift (R-TRADE-4).
    ``declared`` optionally names, per given card, what the proposer claims about it
    (a colour in ``fasolkopajaki``, R-BLUFF-1); empty means "the truth".
    """

    to: int
    give: tuple[int, ...] = ()
    want: tuple[tuple[str, int], ...] = ()
    declared: tuple[str, ...] = ()

    @property
    def is_gift(self) -> bool:
        return not self.want

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "to": self.to,
            "give": list(self.give),
            "want": [list(w) for w in self.want],
        }
        if self.declared:
            out["declared"] = list(self.declared)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Offer:
        if not isinstance(data, dict):
            raise RecordError(f"an offer must be an object, got {type(data).__name__}")
        try:
            to = data["to"]
            give = tuple(data.get("give", ()))
            want = tuple((str(v), n) for v, n in data.get("want", ()))
            declared = tuple(str(d) for d in data.get("declared", ()))
        except (KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"malformed offer {data!r}: {exc}") from None
        if (
            not _is_int(to)
            or not all(_is_int(c) for c in give)
            or not all(_is_int(n) for _, n in want)
        ):
            raise RecordError(f"malformed offer {data!r}: seats, cards and counts must be integers")
        return cls(to=to, give=give, want=want, declared=declared)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int_list(x: object) -> bool:
    return isinstance(x, tuple | list) and all(_is_int(c) for c in x)


def _unused(a: Any) -> list[str]:
    """The fields ``a`` sets that its type does not name."""
    own = _TAKES[a.type.value]
    out: list[str] = []
    if a.field is not None and "field" not in own:
        out.append("field")
    if a.card is not None and "card" not in own:
        out.append("card")
    if a.offer_id is not None and "offer_id" not in own:
        out.append("offer_id")
    if a.cards and "cards" not in own:
        out.append("cards")
    if a.offer is not None and "offer" not in own:
        out.append("offer")
    if a.target is not None and "target" not in own:
        out.append("target")
    return out


def shape_error(action: Action) -> str | None:
    """Why ``action``'s fields have the wrong types, or name what its type does not
    (:func:`takes`), or None.

    :meth:`Action.from_json` only builds well-typed actions, but Python callers (bots,
    scripts) can build any named tuple. The rule checks assume the types, so a wrong one
    would crash them (``TypeError``) - or worse, pass: ``True == 1``, so
    ``Action.decline(True)`` would decline offer 1 and then write a record that does not
    replay. :meth:`bohnanza.game.Game.check` refuses such actions first.
    """
    # Read as Any: its fields may hold anything, and a compiled core would check them
    # against their declared types on every read (a TypeError instead of this answer).
    a: Any = action
    if not isinstance(a.type, ActionType):
        return f"{a.type!r} is not an action type"
    for key in ("field", "card", "offer_id", "target"):
        value = getattr(a, key)
        if value is not None and not _is_int(value):
            return f"{key} must be an integer or None, not {value!r}"
    if not _int_list(a.cards):
        return f"cards must be a tuple of integers, not {a.cards!r}"
    extra = _unused(a)
    if extra:
        return f"{a.type.value} takes no {' or '.join(extra)}"
    offer = a.offer
    if offer is None:
        return None
    if not isinstance(offer, Offer):
        return f"offer must be an Offer, not {offer!r}"
    offer = a.offer  # Any again (isinstance made it an Offer, with typed fields)
    if not _is_int(offer.to) or not _int_list(offer.give):
        return f"an offer's seat and cards must be integers: {offer!r}"
    if not isinstance(offer.want, tuple | list) or not all(
        isinstance(w, tuple | list) and len(w) == 2 and isinstance(w[0], str) and _is_int(w[1])
        for w in offer.want
    ):
        return f"an offer's want must be (variety, count) pairs: {offer!r}"
    if not isinstance(offer.declared, tuple | list) or not all(
        isinstance(d, str) for d in offer.declared
    ):
        return f"an offer's declarations must be strings: {offer!r}"
    return None


class Action(NamedTuple):
    """One decision of one seat. Which fields it names depends on ``type`` (:func:`takes`);
    the others keep their defaults."""

    type: ActionType
    field: int | None = None
    card: int | None = None
    offer_id: int | None = None
    cards: tuple[int, ...] = ()
    offer: Offer | None = None
    #: The seat the action names (a parameter of kind SEAT: the seat a card goes to).
    #: Not ``seat``: a record's action carries its acting seat under that key.
    target: int | None = None

    # Constructors, one per type, so callers never build an inconsistent action.
    @classmethod
    def plant(cls, field: int) -> Action:
        if type(field) is int and 0 <= field < _CACHED:
            return _PLANT[field]
        return cls(ActionType.PLANT, field=field)

    @classmethod
    def stop_planting(cls) -> Action:
        return _STOP

    @classmethod
    def propose(cls, offer: Offer) -> Action:
        return cls(ActionType.PROPOSE, offer=offer)

    @classmethod
    def accept(cls, offer_id: int, cards: tuple[int, ...] = ()) -> Action:
        return cls(ActionType.ACCEPT, offer_id=offer_id, cards=tuple(cards))

    @classmethod
    def decline(cls, offer_id: int) -> Action:
        return cls(ActionType.DECLINE, offer_id=offer_id)

    @classmethod
    def withdraw(cls, offer_id: int) -> Action:
        return cls(ActionType.WITHDRAW, offer_id=offer_id)

    @classmethod
    def end_trading(cls) -> Action:
        return _END_TRADING

    @classmethod
    def plant_traded(cls, card: int, field: int) -> Action:
        return cls(ActionType.PLANT_TRADED, card=card, field=field)

    @classmethod
    def harvest(cls, field: int) -> Action:
        if type(field) is int and 0 <= field < _CACHED:
            return _HARVEST[field]
        return cls(ActionType.HARVEST, field=field)

    @classmethod
    def buy_field(cls, coins: tuple[int, ...] = ()) -> Action:
        """``coins``: in ``fasolufka`` the three treasury cards that pay, in the order they
        go onto the discard pile (the last ends on top, R-LADY-10). Empty: the coins on top
        of the treasury pay (R-FIELD-3; the only form the other rule sets accept)."""
        if not coins:
            return _BUY
        return cls(ActionType.BUY_FIELD, cards=tuple(coins))

    @classmethod
    def of(cls, kind: ActionType | str, *args: Any) -> Action:
        """An action of any type from its arguments in its shape's order (a module's own
        type included): ``Action.of("toll", 17, 1)``, and ``None`` for an optional
        parameter's "none" answer. This is the constructor a
        module's actions repr as, so every repr can be pasted back (once the module is
        imported). A wrong number of arguments raises ``TypeError``."""
        t = kind if isinstance(kind, ActionType) else action_type(kind)
        params = _SHAPES[t.value].params
        if len(args) > len(params):
            raise TypeError(f"{t.value} takes {len(params)} arguments, got {len(args)}")
        values: dict[str, Any] = {}
        for p, value in zip(params, args, strict=False):
            if p.fills == "cards":
                value = tuple(value)
            values[p.fills] = value
        for p in params[len(args) :]:
            if p.fills != "cards" and not p.optional:
                raise TypeError(f"{t.value} needs its {p.fills} ({p.label[0]})")
        return cls(t, **values)

    # Deprecated since 0.2.0, removed in 0.3.0 (CHANGELOG.md): the modules' constructors
    # moved to the modules that own their actions. Each still builds the same action
    # (from its type's shape, Action.of), after a DeprecationWarning naming its
    # replacement; the modules are a layer above this one, and are not imported here.
    @classmethod
    def move_lady(cls, card: int | None) -> Action:
        """Deprecated: :func:`bohnanza.modules.fasolufka.move_lady`."""
        from .deprecation import warn_deprecated

        warn_deprecated("Action.move_lady(card)", "bohnanza.modules.fasolufka.move_lady(card)")
        return cls.of("move_lady", card)

    @classmethod
    def place_child(cls, card: int, field: int) -> Action:
        """Deprecated: :func:`bohnanza.modules.fasolufka.place_child`."""
        from .deprecation import warn_deprecated

        warn_deprecated(
            "Action.place_child(card, field)",
            "bohnanza.modules.fasolufka.place_child(card, field)",
        )
        return cls.of("place_child", card, field)

    @classmethod
    def discard(cls, card: int) -> Action:
        """Deprecated: :func:`bohnanza.modules.duel.discard`."""
        from .deprecation import warn_deprecated

        warn_deprecated("Action.discard(card)", "bohnanza.modules.duel.discard(card)")
        return cls.of("discard", card)

    @classmethod
    def skip_discard(cls) -> Action:
        """Deprecated: :func:`bohnanza.modules.duel.skip_discard`."""
        from .deprecation import warn_deprecated

        warn_deprecated("Action.skip_discard()", "bohnanza.modules.duel.skip_discard()")
        return cls.of("skip_discard")

    @classmethod
    def plant_revealed(cls, card: int, field: int) -> Action:
        """Deprecated: :func:`bohnanza.modules.duel.plant_revealed`."""
        from .deprecation import warn_deprecated

        warn_deprecated(
            "Action.plant_revealed(card, field)",
            "bohnanza.modules.duel.plant_revealed(card, field)",
        )
        return cls.of("plant_revealed", card, field)

    @classmethod
    def end_reveal(cls) -> Action:
        """Deprecated: :func:`bohnanza.modules.duel.end_reveal`."""
        from .deprecation import warn_deprecated

        warn_deprecated("Action.end_reveal()", "bohnanza.modules.duel.end_reveal()")
        return cls.of("end_reveal")

    def __repr__(self) -> str:
        # Derived from the shape: every parameter is shown, in the constructor's order.
        # Built-in types repr as their own constructors, a module's through Action.of.
        a: Any = self
        t = a.type
        if not isinstance(t, ActionType) or _unused(a):
            return (
                f"Action({t!r}, field={a.field!r}, card={a.card!r}, offer_id={a.offer_id!r}, "
                f"cards={a.cards!r}, offer={a.offer!r}"
                + (f", target={a.target!r})" if a.target is not None else ")")
            )
        params = _SHAPES[t.value].params
        args = [repr(getattr(a, p.fills)) for p in params]
        if params and params[-1].kind is ParamKind.COINS and not a.cards:
            args.pop()  # the default: the coins on top pay (Action.buy_field())
        if t.value in BASE_SHAPES:
            return f"Action.{t.value}({', '.join(args)})"
        return f"Action.of({', '.join([repr(t.value), *args])})"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type.value}
        if self.field is not None:
            out["field"] = self.field
        if self.card is not None:
            out["card"] = self.card
        if self.offer_id is not None:
            out["offer_id"] = self.offer_id
        if self.cards:
            out["cards"] = list(self.cards)
        if self.offer is not None:
            out["offer"] = self.offer.to_json()
        if self.target is not None:
            out["target"] = self.target
        return out

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Parse an action; anything malformed raises :class:`RecordError`, never crashes."""
        if not isinstance(data, dict):
            raise RecordError(f"an action must be an object, got {type(data).__name__}")
        try:
            kind = action_type(str(data.get("type")))
        except ValueError:
            known = ", ".join(_SHAPES)
            raise RecordError(f"unknown action type {data.get('type')!r}; known: {known}") from None
        extra = set(data) - {"type", "field", "card", "offer_id", "cards", "offer", "target"}
        if extra:
            raise RecordError(f"unexpected key(s) {', '.join(sorted(extra))} in action {data!r}")
        for key in ("field", "card", "offer_id", "target"):
            if key in data and data[key] is not None and not _is_int(data[key]):
                raise RecordError(f"{key} must be an integer in action {data!r}")
        cards = data.get("cards", [])
        if not isinstance(cards, list) or not all(_is_int(c) for c in cards):
            raise RecordError(f"cards must be a list of integers in action {data!r}")
        offer = Offer.from_json(data["offer"]) if data.get("offer") is not None else None
        return cls(
            kind,
            field=data.get("field"),
            card=data.get("card"),
            offer_id=data.get("offer_id"),
            cards=tuple(cards),
            offer=offer,
            target=data.get("target"),
        )


# Shared instances of the commonest argument-free or small actions: building them is a
# measurable share of a bot game's time, and actions are immutable.
_CACHED = 4
_PLANT = [Action(ActionType.PLANT, field=i) for i in range(_CACHED)]
_HARVEST = [Action(ActionType.HARVEST, field=i) for i in range(_CACHED)]
_STOP = Action(ActionType.STOP_PLANTING)
_END_TRADING = Action(ActionType.END_TRADING)
_BUY = Action(ActionType.BUY_FIELD)


def _module_type(value: str) -> Callable[[], object]:
    def load() -> object:
        return ActionType(value)  # a module's own type, found through _TYPE_LOADERS

    return load


def _deprecate_module_members() -> None:
    """The Fasolufka and duel action types were members of :class:`ActionType` until
    0.2.0; their modules hold them now. Reading ``ActionType.MOVE_LADY`` still answers
    the module's type, with a DeprecationWarning (until 0.3.0); they are not members
    again (iterating ``ActionType`` lists the base game's types)."""
    from .deprecation import DeprecatedAttribute

    moved = {
        "MOVE_LADY": ("fasolufka", "MOVE_LADY_TYPE", "move_lady"),
        "PLACE_CHILD": ("fasolufka", "PLACE_CHILD_TYPE", "place_child"),
        "DISCARD": ("duel", "DISCARD_CARD", "discard"),
        "SKIP_DISCARD": ("duel", "SKIP_DISCARD", "skip_discard"),
        "PLANT_REVEALED": ("duel", "PLANT_REVEALED", "plant_revealed"),
        "END_REVEAL": ("duel", "END_REVEAL", "end_reveal"),
    }
    for old, (module, name, value) in moved.items():
        new = f"bohnanza.modules.{module}.{name}"
        attribute = DeprecatedAttribute(f"ActionType.{old}", new, _module_type(value))
        setattr(ActionType, old, attribute)


_deprecate_module_members()


#: The public names (tests/test_public_api.py; CHANGELOG.md says when they change).
__all__ = [
    "Action",
    "ActionType",
    "Offer",
    "action_type",
    "add_type_loader",
    "all_shapes",
    "shape_error",
    "shape_of",
    "takes",
]
