"""The typed parts of a game's state that the rules' hooks share with the engine: the
phases, pending decisions (:class:`Pending`, declared by :func:`declare_decision`) and a
module's own state (:class:`ModuleState`).

A layer below :mod:`bohnanza.game` and :mod:`bohnanza.modules` (issue 55: the engine's
files import downward only): both import it, it imports neither. :mod:`bohnanza.game`
re-exports every name, where programs have always found them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Final, NewType, Self, overload

from mypy_extensions import mypyc_attr

from .errors import RecordError
from .shapes import CARD_KINDS, ParamKind

if TYPE_CHECKING:
    from .actions import Action
    from .game import Game


class Phase(StrEnum):
    """The base game's phases (a module adds its own, as another ``StrEnum``). Members are
    strings, so comparisons with ``"plant"`` and the JSON forms are as before."""

    # Hashed as the string it equals: Enum's own __hash__ is a Python function (a call
    # on every dict or set lookup; these are looked up after every action) and hashes the
    # member's name, so ``{"plant"}`` did not find the member that equals "plant".
    __hash__ = str.__hash__

    PLANT = "plant"  # phase 1: planting from the hand
    TRADE = "trade"  # phase 2: drawn cards turned over, trading
    PLANT_TRADED = "plant_traded"  # phase 3: planting traded and kept cards
    OVER = "over"  # the game has ended

    def __repr__(self) -> str:
        # A repr that pastes back (python-chess style), not <Phase.PLANT: 'plant'>.
        return f"Phase.{self.name}"


# Final: compiled, a final module constant is a C static, read without a look-up in the
# module's globals (these are read after every action).
PLANT: Final = Phase.PLANT
TRADE: Final = Phase.TRADE
PLANT_TRADED: Final = Phase.PLANT_TRADED
OVER: Final = Phase.OVER
#: A card id: an index into the config's card tables.
CardId = NewType("CardId", int)
#: A seat number, 0 to players - 1.
SeatId = NewType("SeatId", int)
#: A field of one seat, 0 to 2, bottom card first.
FieldId = NewType("FieldId", int)


#: The named arguments of each kind of pending decision, in order, with their kinds, as
#: declared by the rule that answers it (:func:`declare_decision`): ``{kind: ((name,
#: ParamKind), …)}``. Every reader of a decision reads its arguments' kinds here: the
#: views and the invariant checker (which arguments are cards a seat may not see), the
#: front ends and the RL observation (how to show or encode each), records in the old
#: list form (``[seat, kind, *args]``: their names).
_DECISIONS: dict[str, tuple[tuple[str, ParamKind], ...]] = {}

#: The kinds an argument of a decision may have: one number each.
DECISION_KINDS = frozenset(
    {ParamKind.CARD, ParamKind.SEAT, ParamKind.FIELD, ParamKind.OFFER_ID, ParamKind.VARIETY}
)

#: The kind of an argument declared by its name only (the older
#: ``declare_decision(kind, ("card",))``): read once, when it is declared.
_NAMED_KINDS: dict[str, ParamKind] = {
    "card": ParamKind.CARD,
    "child": ParamKind.CARD,
    "field": ParamKind.FIELD,
    "seat": ParamKind.SEAT,
    "offer_id": ParamKind.OFFER_ID,
    "variety": ParamKind.VARIETY,
}


def declare_decision(
    _kind: str, _names: tuple[str, ...] | None = None, /, **kinds: ParamKind
) -> None:
    """Declare a kind of pending decision: ``kind`` is the action type (its value) that
    answers it, and its arguments in order, each with its kind (a card, a seat, a field,
    an offer number, a variety: :data:`DECISION_KINDS`)::

        declare_decision("barter", card=ParamKind.CARD, to=ParamKind.SEAT)

    The older form names them only (``declare_decision("place_child", ("card",))``): a
    name of :data:`_NAMED_KINDS` gives its kind, any other is an error. A module calls
    this once, at import, next to the rule that answers the decision; declaring a kind
    again otherwise is a programming error. (The positional parameters' names are taken
    by no argument: the compiled build ignores ``/``.)"""
    kind, names = _kind, _names
    if names is not None:
        if kinds:
            raise TypeError("declare_decision takes names or name=kind arguments, not both")
        unknown = [n for n in names if n not in _NAMED_KINDS]
        if unknown:
            raise ValueError(
                f"pending decision {kind!r}: declare the kind of {unknown} (name=ParamKind.…)"
            )
        kinds = {n: _NAMED_KINDS[n] for n in names}
    for name, k in kinds.items():
        if k not in DECISION_KINDS:
            raise ValueError(
                f"pending decision {kind!r}: argument {name!r} is a {k}; a decision's "
                f"argument is one of {sorted(DECISION_KINDS)}"
            )
    typed = tuple((n, ParamKind(k)) for n, k in kinds.items())
    known = _DECISIONS.setdefault(kind, typed)
    if known != typed:
        raise ValueError(f"pending decision {kind!r} declared with {known} and {typed}")


def decision_names(kind: str) -> tuple[str, ...] | None:
    """The declared argument names of ``kind`` (None: not declared)."""
    typed = _DECISIONS.get(kind)
    return None if typed is None else tuple(n for n, _ in typed)


def decision_args(kind: str) -> tuple[tuple[str, ParamKind], ...] | None:
    """The declared arguments of ``kind`` with their kinds, in order (None: not
    declared)."""
    return _DECISIONS.get(kind)


def decision_arg_kind(kind: str, name: str) -> ParamKind:
    """The kind of argument ``name`` of a decision of ``kind``. An argument no
    declaration names is taken for a card: a leak check then errs on the safe side."""
    for n, k in _DECISIONS.get(kind, ()):
        if n == name:
            return k
    return _NAMED_KINDS.get(name, ParamKind.CARD)


@mypyc_attr(native_class=False)
class Pending:
    """A pending indivisible decision (R-HARV-1): the seat that must take it (``seat``),
    what is asked (``kind``: the value of the action type whose rule answers it, a
    module's own) and the question's named numbers (``args``: a field, a card), as the
    module declared them (:func:`declare_decision`).

    The allowed answers are the game's legal actions for ``seat`` while the decision is
    open (:meth:`answers`): the answering rule lists them from the state, so they are
    never stored twice. Immutable and hashable; read its numbers by name
    (``pending["field"]``). Its JSON form is ``{"seat", "asks", "args"}``; records and
    saved states written before it was typed hold the list ``[seat, kind, *args]``, which
    :meth:`from_json` still reads (with the names the answering rule declared,
    :func:`declare_decision`), and :meth:`legacy_json` writes back.
    """

    __slots__ = ("_args", "kind", "seat")

    seat: int
    kind: str
    _args: tuple[tuple[str, int], ...]

    def __init__(self, _seat: int, _kind: str, /, *values: int, **args: int) -> None:
        # The deciding seat and the kind are positional only, under names no decision's
        # argument takes: an argument may be named ``seat`` (a seat, ParamKind.SEAT) or
        # ``kind`` (the compiled build ignores ``/``, so the names matter too).
        seat, kind = _seat, _kind
        if values:  # the tuple's form, Pending(seat, kind, *args): deprecated
            from .deprecation import warn_deprecated

            warn_deprecated("Pending(seat, kind, *args)", "Pending(seat, kind, name=value, ...)")
            names = decision_names(kind)
            if names is None or len(names) != len(values) or args:
                raise TypeError(f"pending {kind!r} takes named arguments {names}, got {values}")
            args = dict(zip(names, values, strict=True))
        object.__setattr__(self, "seat", seat)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "_args", tuple(args.items()))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a pending decision cannot be changed ({name})")

    def __reduce__(self) -> tuple[object, ...]:
        return (_pending, (self.seat, self.kind, self._args))

    @property
    def args(self) -> dict[str, int]:
        """The named numbers, in their declared order (a fresh dict)."""
        return dict(self._args)

    def kinds(self) -> dict[str, ParamKind]:
        """Each argument's kind, as the answering rule declared it
        (:func:`declare_decision`)."""
        return {name: decision_arg_kind(self.kind, name) for name, _ in self._args}

    def cards(self) -> list[int]:
        """The card ids among the arguments (those of a card kind): whoever is shown this
        decision is shown these cards."""
        kind = self.kind
        return [v for name, v in self._args if decision_arg_kind(kind, name) in CARD_KINDS]

    def without(self, names: frozenset[str] | set[str]) -> Pending:
        """The same decision without the arguments ``names`` (what a seat that may not
        see a card is shown of it: :meth:`bohnanza.modules.base.Hooks.public_pending`)."""
        return _pending(self.seat, self.kind, tuple(a for a in self._args if a[0] not in names))

    @overload
    def __getitem__(self, name: str) -> int: ...

    @overload
    def __getitem__(self, name: int | slice) -> Any: ...

    def __getitem__(self, name: str | int | slice) -> Any:
        if not isinstance(name, str):  # the tuple's indexing, (seat, kind, *args)[i]
            from .deprecation import warn_deprecated

            warn_deprecated("pending[i] (Pending as a tuple)", "pending.seat, .kind, ['name']")
            return tuple(self.legacy_json())[name]
        for key, value in self._args:
            if key == name:
                return value
        raise KeyError(f"pending {self.kind} has no argument {name!r}")

    def __iter__(self) -> Iterator[Any]:
        """Deprecated: unpacking as the tuple ``(seat, kind, *args)`` it was before 0.2.0."""
        from .deprecation import warn_deprecated

        warn_deprecated(
            "seat, kind, *args = pending (Pending as a tuple)",
            "pending.seat, pending.kind and pending['name'] or pending.args",
        )
        return iter(self.legacy_json())

    def answers(self, game: Game) -> list[Action]:
        """The answers ``game`` allows now (its legal actions for the deciding seat)."""
        return game.legal_actions(self.seat)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "asks": self.kind, "args": dict(self._args)}

    def legacy_json(self) -> list[int | str]:
        """The list form records and states held before decisions were typed."""
        return [self.seat, self.kind, *(v for _, v in self._args)]

    @classmethod
    def from_json(cls, data: object) -> Pending:
        """Parse the JSON form or the old list form; anything else raises
        :class:`RecordError`."""
        if isinstance(data, dict):
            seat, kind, args = data.get("seat"), data.get("asks"), data.get("args", {})
            if (
                type(seat) is not int
                or not isinstance(kind, str)
                or not isinstance(args, dict)
                or set(data) - {"seat", "asks", "args"}
                or not all(isinstance(k, str) and type(v) is int for k, v in args.items())
            ):
                raise RecordError(f"malformed pending decision {data!r}")
            return cls(seat, kind, **args)
        if (
            not isinstance(data, list | tuple)
            or len(data) < 2
            or type(data[0]) is not int
            or not isinstance(data[1], str)
            or not all(type(a) is int for a in data[2:])
        ):
            raise RecordError(f"malformed pending decision {data!r}")
        values = data[2:]
        names = decision_names(data[1])
        if names is None and values:
            raise RecordError(f"pending decision {data!r} of an undeclared kind")
        if names is not None and len(names) != len(values):
            raise RecordError(f"pending decision {data!r}: {data[1]} takes {list(names)}")
        return cls(data[0], data[1], **dict(zip(names or (), values, strict=True)))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Pending)
            and self.seat == other.seat
            and self.kind == other.kind
            and self._args == other._args
        )

    def __hash__(self) -> int:
        return hash((self.seat, self.kind, self._args))

    def __repr__(self) -> str:
        named = "".join(f", {k}={v}" for k, v in self._args)
        return f"Pending({self.seat}, {self.kind!r}{named})"


def _pending(seat: int, kind: str, args: tuple[tuple[str, int], ...]) -> Pending:
    return Pending(seat, kind, **dict(args))


@mypyc_attr(allow_interpreted_subclasses=True)
class ModuleState:
    """The typed part of the state beyond the piles: the queue of pending decisions behind
    :attr:`Game.pending`, and what a module adds in a subclass (its ``Hooks.state_class``;
    the duel's offer and revealed cards). Its JSON form is the ``extra`` object of
    :meth:`Game.to_dict`, so saved states keep their shape.

    A subclass declares its fields in ``__slots__`` and extends :meth:`to_json`,
    :meth:`load` and :meth:`copy`; the card piles it holds are lists of card ids, which
    the invariant checker counts and checks for sharing (:meth:`parts`).
    """

    __slots__ = ("queue",)
    #: Whether views show a public part of it (``Hooks.public_extra``); the queue is not.
    public: ClassVar[bool] = False

    def __init__(self) -> None:
        #: Indivisible decisions waiting behind ``game.pending`` (R-HARV-1), oldest first.
        self.queue: list[Pending] = []

    def to_json(self) -> dict[str, Any]:
        return {"queue": [p.to_json() for p in self.queue]} if self.queue else {}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Parse :meth:`to_json`'s form; a malformed one raises :class:`RecordError`."""
        if not isinstance(data, Mapping):
            raise RecordError(f"malformed module state {data!r}")
        state = cls()
        state.load(data)
        return state

    def load(self, data: Mapping[str, Any]) -> None:
        queue = data.get("queue", [])
        if not isinstance(queue, list):
            raise RecordError(f"malformed pending queue {queue!r}")
        self.queue = [Pending.from_json(p) for p in queue]

    def copy(self) -> Self:
        new = type(self)()
        new.queue = self.queue[:]  # Pending values are immutable
        return new

    def parts(self) -> dict[str, Any]:
        """Every field by name (for the invariant checker's walk over the state)."""
        return {
            name: getattr(self, name)
            for klass in type(self).__mro__
            for name in getattr(klass, "__slots__", ())
        }

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.to_json() == other.to_json()

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its JSON form, which every subclass keeps complete: compiled, the
        # default recipe fails (it would restore the ``__hash__`` marker as a field).
        return (_module_state, (type(self), self.to_json()))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_json({self.to_json()!r})"


def _module_state(cls: type[ModuleState], data: dict[str, Any]) -> ModuleState:
    """Unpickle a :class:`ModuleState` (see its ``__reduce__``)."""
    return cls.from_json(data)


#: An open offer may hold at most this many cards on either side, and a seat may keep at
#: most this many offers open: bounds that keep bots and network clients from flooding.
MAX_OFFER_CARDS = 12
MAX_OPEN_OFFERS = 16


__all__ = [
    "DECISION_KINDS",
    "MAX_OFFER_CARDS",
    "MAX_OPEN_OFFERS",
    "OVER",
    "PLANT",
    "PLANT_TRADED",
    "TRADE",
    "CardId",
    "FieldId",
    "ModuleState",
    "Pending",
    "Phase",
    "SeatId",
    "decision_arg_kind",
    "decision_args",
    "decision_names",
    "declare_decision",
]
