"""What the code outside ``bohnanza.modules`` may know about a module: one frozen
:class:`ModuleInfo` per module, the class attribute ``info`` of its hook class.

The CLI, the terminal, the text renderer, the web UI (which receives :meth:`ModuleInfo.to_json`
with the table), the RL encoding and the bots read these fields instead of testing module
names, so a new module describes itself here, in one place, and none of them changes. The
base game's info is :data:`BASE_INFO`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..frozen import FrozenDict
from ..pickling import dataclass_reduce

#: A short text in English and Polish (the languages of the UI).
Label = tuple[str, str]


def _frozen(mapping: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    # FrozenDict, not MappingProxyType: an info travels with pickled games and environments
    # (OpenSpiel's serialise test, worker processes), and a mapping proxy cannot be pickled.
    return FrozenDict(mapping or {})


@dataclass(frozen=True, slots=True)
class EventLabel:
    """One wording of a module's event (``ModuleInfo.event_labels``): an English and a
    Polish template, used for an event whose keys named in ``when`` are all present and
    true (the first such wording of the event's list wins; ``when=()`` always fits).

    Placeholders, filled by every front end (the terminal and :mod:`bohnanza.text` through
    :func:`bohnanza.text.event_text`, the page through board.js): ``{who}``, the event's
    seat; ``{card}`` and ``{cards}``, its card or cards by name; ``{card_acc}`` and
    ``{cards_acc}``, the same as the object of a sentence (the Polish accusative);
    ``{field}``, its field numbered from 1; any other ``{key}``, the event's value (a card
    kind such as ``red`` in the page's words). English templates are in the third person
    ("{who} reveals {card}"): the terminal turns them to "You reveal" for its player."""

    text: Label
    when: tuple[str, ...] = ()

    def fits(self, event: Mapping[str, Any]) -> bool:
        return all(event.get(key) for key in self.when)

    def to_json(self) -> dict[str, Any]:
        return {"text": list(self.text), "when": list(self.when)}

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


@dataclass(frozen=True, slots=True)
class CardKind:
    """A kind of card a module's cards carry (``GameConfig.card_kind``: Fasolufka's man,
    lady and child, R-LADY-1; Fasolkopająki's red and black, R-RACE-1), as the front ends
    show it (``ModuleInfo.kinds``).

    ``label``: its word (EN, PL), after a card's name ("Cowboy (lady)") and in event
    texts; ``mark``: a symbol drawn on the web page's card; ``beanometers``: per variety
    key, the beanometer that pays a field topped by a card of this kind instead of the
    variety's (R-LADY-4: a lady's own); ``pays_on_top``: False where a field topped by
    such a card pays nothing (R-LADY-3: a child), so the page shows no next step."""

    label: Label
    mark: str = ""
    beanometers: Mapping[str, tuple[int, ...]] = field(default_factory=_frozen)
    pays_on_top: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "beanometers", _frozen(self.beanometers))

    def to_json(self) -> dict[str, Any]:
        return {
            "label": list(self.label),
            "mark": self.mark,
            "beanometers": {k: list(v) for k, v in self.beanometers.items()},
            "pays_on_top": self.pays_on_top,
        }

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


@dataclass(frozen=True, slots=True)
class PileTurn:
    """A turn that plants from public piles instead of trading (R-DUEL-3): the bots play
    it (the RL encoding and the web read the piles from ``View.public`` and the actions
    from their shapes).

    ``offer`` is the pile left by the opponent (planted or discarded in ``offer_phase``),
    ``revealed`` the pile turned up in ``reveal_phase``; in ``discard_phase`` the active
    seat may discard one hand card or skip. The turn's own actions, by their type's value
    (``ActionType(value)``), so that a bot plays them without importing the module:
    ``plant`` plants a pile card on a field, ``discard`` discards a card, ``keep`` are
    those that move on without a card (keep the hand, leave the rest as the offer)."""

    offer: str
    revealed: str
    offer_phase: str
    discard_phase: str
    reveal_phase: str
    plant: str = ""
    discard: str = ""
    keep: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


@dataclass(frozen=True, slots=True)
class EncodingHints:
    """What :mod:`bohnanza.rl.encoding` and the bots cannot read from the rules' shapes.

    ``give_classes``: per variety key, the (kind, declared) classes a trade offer template
    may give instead of "any card of the variety" (R-BLUFF-1: red, black told truly, black
    declared red). ``pile_turn``: see :class:`PileTurn` (the bots' pile turn).
    ``paid_by_kinds``: per variety key whose field pays by its cards' kinds in planting
    order rather than by its beanometer, the coins such a field pays, given the kinds
    bottom first (R-RACE-2: Fasolkopająki's bean races); the bots value fields with it.

    A module's own actions and pending decisions need no hint: the encoding lays out one
    segment per action shape and observes the decisions its rules declare
    (``declare_decision``)."""

    give_classes: Mapping[str, tuple[tuple[str | None, str | None], ...]] = field(
        default_factory=_frozen
    )
    pile_turn: PileTurn | None = None
    paid_by_kinds: Mapping[str, Callable[[list[str]], int]] = field(default_factory=_frozen)

    def __post_init__(self) -> None:
        object.__setattr__(self, "give_classes", _frozen(self.give_classes))
        object.__setattr__(self, "paid_by_kinds", _frozen(self.paid_by_kinds))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


@dataclass(frozen=True, slots=True)
class ModuleInfo:
    """A module's description for everything outside ``bohnanza.modules``.

    Names (for the web lobby, EN and PL): ``title``, the rule set's name; ``note``, one
    line about it.
    Phases and labels:
        ``phases``: the phases the module adds, in turn order (``game.phase`` values).
        ``phase_labels``: per added phase, a short label (EN, PL) for the terminal and text.
        ``event_labels``: per event type the module emits (``game.emit``) that is not an
        action's own (those are worded from the action's shape), its wordings
        (:class:`EventLabel`), tried in order.
        ``event_notes``: per event type of the base game that the module's hooks emit with
        keys of their own (a ``harvest`` with ``farmer_field``, R-FARM-1), words that
        follow the base wording when the keys fit (:class:`EventLabel`, the first that
        fits), e.g. ``"and a free third field"``.
        ``kinds``: per card kind the module's cards carry, how it is shown
        (:class:`CardKind`: its word, its mark, its own beanometers).
        ``variety_notes``: per variety the module brings whose beanometer does not say what
        it pays (a Farmer pair, R-FARM-1; a bean race, R-RACE-2), a short note (EN, PL)
        that the web page's card shows instead.
        ``source_labels``: per ``source`` of a ``plant`` event (a pile the module plants
        from), the words that follow the card, e.g. ``("from the offer", "z oferty")``.
        ``action_labels``: per added action type (``ActionType`` value), its name (EN, PL);
        only for a module that declares none on its rules (the shapes' labels win).
        ``pile_tokens``: per public pile (a ``View.public`` key), the prefix that names its
        cards in text commands (``{"offer": "o"}``: ``o1``…); ``pile_names``: its name
        (EN, PL) in messages; ``pile_labels``: its heading (EN, PL) on the web page.
        ``hint_phases``: phases in which the web page shows ``hint.<phase>`` to the seat
        to act (``hints``: that text, EN and PL, where ``web/i18n.py`` has none); ``hand_discard_phases``: phases in which clicking a hand card discards it.
    Public state:
        ``public``: the keys of ``View.public`` (card lists, shown to everybody).
    Behaviour the outside needs:
        ``trading``: phase 2 exists (R-DUEL-1: not in the duel).
        ``buyer_chooses_coins``: a third field is paid with coins the buyer names (R-LADY-10).
        ``own_treasury_visible``: a seat sees its own coin cards (R-LADY-10).
        ``declarations``: offers may declare a card as something else (R-BLUFF-1).
        ``top_card_pays``: a field pays by the kind of its top card (men, ladies, children,
        R-LADY-3…5): bots value fields by kind.
        ``turn_cards``: cards turned up per turn in place of the two drawn ones (the duel's
        three revealed cards, R-DUEL-3); ``None``: the rule set's ``drawn_count``.
        ``last_turn_public``: ``View.public`` lacks a ``last_turn`` flag the state keeps
        (R-DUEL-4: seat 1's extra turn after the final run-out); a search bot that
        rebuilds a state from a view sets it when the final run-out is on and seat 1 acts.
        ``cards_traceable``: a card that leaves the public places goes only where the base
        rules send it (a covered discard top stays in the discard pile, a harvest pays its
        top cards into the owner's treasury), so a seat's card memory may follow it. Not
        so where cards leave the discard pile or move inside fields (Fasolufka's Gardener
        lady and lady moves, R-LADY-5, R-LADY-8) or discarded cards are turned up again
        (the duel, R-DUEL-3): there the memory keeps only "left play".
    Encoding:
        ``encoding``: :class:`EncodingHints` for the RL observation and action layout.
    """

    title: Label | None = None
    note: Label | None = None
    phases: tuple[str, ...] = ()
    phase_labels: Mapping[str, Label] = field(default_factory=_frozen)
    hints: Mapping[str, Label] = field(default_factory=_frozen)
    source_labels: Mapping[str, Label] = field(default_factory=_frozen)
    event_labels: Mapping[str, tuple[EventLabel, ...]] = field(default_factory=_frozen)
    event_notes: Mapping[str, tuple[EventLabel, ...]] = field(default_factory=_frozen)
    kinds: Mapping[str, CardKind] = field(default_factory=_frozen)
    variety_notes: Mapping[str, Label] = field(default_factory=_frozen)
    action_labels: Mapping[str, Label] = field(default_factory=_frozen)
    pile_tokens: Mapping[str, str] = field(default_factory=_frozen)
    pile_names: Mapping[str, Label] = field(default_factory=_frozen)
    pile_labels: Mapping[str, Label] = field(default_factory=_frozen)
    hint_phases: tuple[str, ...] = ()
    hand_discard_phases: tuple[str, ...] = ()
    public: tuple[str, ...] = ()
    trading: bool = True
    buyer_chooses_coins: bool = False
    own_treasury_visible: bool = False
    declarations: bool = False
    top_card_pays: bool = False
    turn_cards: int | None = None
    last_turn_public: bool = False
    cards_traceable: bool = True
    encoding: EncodingHints = field(default_factory=EncodingHints)

    def __post_init__(self) -> None:
        # Read-only mappings: one ModuleInfo is shared by every game of the module.
        for name in (
            "phase_labels",
            "hints",
            "source_labels",
            "event_labels",
            "event_notes",
            "kinds",
            "variety_notes",
            "action_labels",
            "pile_tokens",
            "pile_names",
            "pile_labels",
        ):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    def to_json(self) -> dict[str, Any]:
        """The fields the web page reads (sent with the table, see ``Table.info``)."""
        return {
            "phases": list(self.phases),
            "phase_labels": {k: list(v) for k, v in self.phase_labels.items()},
            "action_labels": {k: list(v) for k, v in self.action_labels.items()},
            "event_labels": {
                k: [label.to_json() for label in v] for k, v in self.event_labels.items()
            },
            "event_notes": {
                k: [label.to_json() for label in v] for k, v in self.event_notes.items()
            },
            "kinds": {k: v.to_json() for k, v in self.kinds.items()},
            "variety_notes": {k: list(v) for k, v in self.variety_notes.items()},
            "hint_phases": list(self.hint_phases),
            "hand_discard_phases": list(self.hand_discard_phases),
            "public": list(self.public),
            "pile_labels": {k: list(v) for k, v in self.pile_labels.items()},
            "trading": self.trading,
            "buyer_chooses_coins": self.buyer_chooses_coins,
            "own_treasury_visible": self.own_treasury_visible,
            "declarations": self.declarations,
        }

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


#: The base game (and every rule set without a module).
BASE_INFO = ModuleInfo()

__all__ = [
    "BASE_INFO",
    "CardKind",
    "EncodingHints",
    "EventLabel",
    "Label",
    "ModuleInfo",
    "PileTurn",
]
