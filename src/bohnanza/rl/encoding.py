"""The fixed action encoding and the observation vector of the RL environment.

Everything here is built from one seat's :class:`bohnanza.views.View` (what that seat may
know, R-INFO-1…3) and, for the action mask, the engine's legal actions for that seat;
nothing reads the game state itself. The full table is in ``docs/rl.md``.

An :class:`Encoding` is fixed per game configuration (rule set, module, player count,
options): its action space is ``Discrete(encoding.n_actions)`` and its observation a
float32 vector of ``encoding.obs_size`` values in [0, 1]. Cards that must be named by an
action are named by *slot*: their position in the hand, the trade area, a module's public
pile, or the order of open offers; trade offers are chosen from templates ("to partner
p, give k cards of variety a, for one card of variety b or as a gift").

A module's own actions are laid out from their shapes (:class:`bohnanza.shapes.ActionShape`,
declared on the module's rules): one segment per action type, sized by its parameters'
kinds (a hand card: a hand position; a field; a card of the named places: a position in
each place; a card on a field: field x depth from the top; the pending decision's card: one
value; an optional parameter: one more value for "none"). So a new module's action is
offered and masked with no edit here; nothing in this file names a module or its actions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from mypy_extensions import mypyc_attr
from numpy.typing import NDArray

from ..actions import Action, ActionType, Offer
from ..cards import catalogue
from ..coins import with_coins
from ..game import MAX_OPEN_OFFERS, OVER, PLANT, PLANT_TRADED, TRADE, decision_args
from ..modules import hooks_for, module_info
from ..pickling import dataclass_reduce
from ..rules import GameConfig
from ..shapes import BASE_SHAPES, ActionShape, ParamKind
from ..views import OfferView, SeatView, View

_T = ActionType

#: Field slots per seat (two, or three with a third field).
FIELDS = 3
#: Hand positions shown one by one in the observation (the rest only as counts).
HAND_SLOTS = 12
#: Trade-area positions that ``plant_traded`` can name (a longer trade area is planted
#: from the front: slots shift as cards leave).
TRADE_SLOTS = 8
#: Open offers addressed to the seat (accept/decline) and made by it (withdraw), oldest
#: first; later ones become reachable as earlier ones close.
OFFER_SLOTS = 6
#: Hand positions a module action may name: more than the observation shows one by one
#: (a hand grows to 20 cards and beyond under random play, and a module action such as
#: the toll may take any of them).
ACTION_HAND_SLOTS = 24
#: Positions of a module's public pile (``ModuleInfo.public``) in the observation and in
#: a module action that names a card of it.
PILE_SLOTS = 8
#: Cards of one field a module action may name (a ``field_card`` parameter), counted down
#: from the top card.
FIELD_DEPTH = 8
#: Offer templates give 1 or 2 cards.
GIVE_COUNTS = (1, 2)


def _phases() -> tuple[str, ...]:
    """The phase one-hot's order: the base phases, each data-file module's own phases in
    the file's order (ModuleInfo.phases), then ``over``. A module registered at run time
    appends its phases after ``over`` in its own encoding only (see Encoding.phases)."""
    extra = tuple(p for m in catalogue()["modules"] for p in module_info(m).phases)
    return (PLANT, TRADE, PLANT_TRADED, *extra, OVER)


PHASES = _phases()

PASS = "pass"


@dataclass(frozen=True, slots=True)
class GiveClass:
    """Which cards an offer template gives: a variety, optionally only one kind (colour),
    optionally declared as something else (the fasolkopajaki bluff, R-BLUFF-1)."""

    variety: int
    kind: str | None = None
    declared: str | None = None

    def label(self, config: GameConfig) -> str:
        name = config.varieties[self.variety]
        if self.kind:
            name += f"({self.kind})"
        if self.declared:
            name += f" declared {self.declared}"
        return name

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


#: Parameter kinds the layout cannot name by a bounded index (a whole offer, a payment, a
#: coin list): a module action taking one gets no segment and is never offered.
#: The kinds of a decision's arguments, as the strings the observation compares.
_FIELD_KIND = ParamKind.FIELD.value
_SEAT_KIND = ParamKind.SEAT.value
_OFFER_KIND = ParamKind.OFFER_ID.value
_VARIETY_KIND = ParamKind.VARIETY.value
_UNLAID = frozenset({ParamKind.OFFER.value, ParamKind.PAYMENT.value, ParamKind.COINS.value})
#: Card kinds named by a position in one of their places.
_PLACED = frozenset(
    {
        ParamKind.HAND_CARD.value,
        ParamKind.PILE_CARD.value,
        ParamKind.TRADE_CARD.value,
        ParamKind.CARD.value,
    }
)


@dataclass(frozen=True, slots=True)
class ParamSlots:
    """One parameter of a module action, laid out: its kind (a ``ParamKind`` value), the
    ``Action`` field it fills, how many values it takes (``size``, the "none" answer of an
    optional parameter last) and, for a card named by position, its places in order as
    (text token, slots)."""

    kind: str
    fills: str
    size: int
    optional: bool
    places: tuple[tuple[str, int], ...] = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


@dataclass(frozen=True, slots=True)
class ShapeSlots:
    """A module action's segment: its type, the segment's start and its parameters, the
    last one varying fastest."""

    type: ActionType
    start: int
    size: int
    params: tuple[ParamSlots, ...]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


@mypyc_attr(allow_interpreted_subclasses=True)
class Encoding:
    """Action indices and observation layout for one game configuration."""

    #: The last view's incoming and outgoing offers (see :meth:`_in_out`).
    _io: tuple[View | None, list[OfferView], list[OfferView]]

    def __init__(self, config: GameConfig, max_trade_rounds: int = 6) -> None:
        self.config = config
        self.n = config.players
        self.max_trade_rounds = max_trade_rounds
        self.varieties = config.varieties
        self.v = len(config.varieties)
        self.kinds: tuple[str, ...] = tuple(sorted({k for k in config.card_kind if k}))
        self.c = self.v + len(self.kinds)  # width of one card's features
        self._kind_index = {k: i for i, k in enumerate(self.kinds)}
        self.card_variety = config.card_variety
        self.card_kind = config.card_kind
        # What the module tells the encoding (ModuleInfo): no module names here.
        self.info = info = module_info(config.module)
        self.trading = info.trading
        #: The module's own action shapes (its rules' types beyond the base game's), in its
        #: rules' listing order: one action segment each (see :meth:`_build_actions`).
        shapes: list[ActionShape] = []
        for cls in hooks_for(config).rule_classes:
            shape = cls.shape()
            if shape.type not in BASE_SHAPES and shape not in shapes:
                shapes.append(shape)
        self.shapes: tuple[ActionShape, ...] = tuple(shapes)
        #: Pending decisions the module's rules answer (``declare_decision``): per kind,
        #: its arguments with their kinds; observed as one block (see
        #: :meth:`_build_observation`).
        self.pending_kinds: dict[str, tuple[tuple[str, ParamKind], ...]] = {}
        for shape in self.shapes:
            args = decision_args(shape.type)
            if args is not None:
                self.pending_kinds[shape.type] = args
        self.pending = bool(self.pending_kinds)
        #: The reader's own coins are observed where the rule set shows them (R-LADY-10).
        self.treasury = info.own_treasury_visible
        #: The module's public piles (``ModuleInfo.public``), by text token and key.
        self.piles: tuple[str, ...] = info.public
        self._pile_of_token: dict[str, str] = {tok: key for key, tok in info.pile_tokens.items()}
        self.drawn_slots = max(2, info.turn_cards or 2)
        self.phases: tuple[str, ...] = PHASES + tuple(p for p in info.phases if p not in PHASES)
        # Card features, one row per card id (a view holds ids of visible cards only).
        feats = np.zeros((config.deck_size, self.c), dtype=np.float32)
        for card, v in enumerate(config.card_variety):
            feats[card, v] = 1.0
            kind = config.card_kind[card]
            if kind:
                feats[card, self.v + self._kind_index[kind]] = 1.0
        self._card_feats = feats
        # The same as index lists: the one or two feature offsets that are 1 for a card.
        self._card_offs: tuple[tuple[int, ...], ...] = tuple(
            tuple(int(i) for i in np.flatnonzero(row)) for row in feats
        )
        self._variety_index = {k: i for i, k in enumerate(self.varieties)}
        self._phase_index = {ph: i for i, ph in enumerate(self.phases)}
        self.give_classes: tuple[GiveClass, ...] = self._give_classes()
        # Per card, the give classes it counts for (told truly / declared, R-BLUFF-1).
        self._card_classes: tuple[tuple[int, ...], ...] = tuple(
            self._classes_of(card, declared=False) for card in range(config.deck_size)
        )
        self._card_declared_classes: tuple[tuple[int, ...], ...] = tuple(
            self._classes_of(card, declared=True) for card in range(config.deck_size)
        )
        self._any_declared = any(gc.declared for gc in self.give_classes)
        # Offer templates that want a card of the given class's own variety are pointless.
        want_ok = np.ones((len(self.give_classes), 1, self.v + 1), dtype=np.int8)
        for i, gc in enumerate(self.give_classes):
            want_ok[i, 0, gc.variety + 1] = 0
        self._want_ok = want_ok
        self._build_actions()
        self._build_observation()

    # ------------------------------------------------------------------ action layout

    def _give_classes(self) -> tuple[GiveClass, ...]:
        out: list[GiveClass] = []
        special = self.info.encoding.give_classes
        for v, key in enumerate(self.varieties):
            if key in special:  # e.g. R-BLUFF-1: red, black told truly, black declared red
                out += [GiveClass(v, kind, declared) for kind, declared in special[key]]
            else:
                out.append(GiveClass(v))
        return tuple(out)

    def _classes_of(self, card: int, *, declared: bool) -> tuple[int, ...]:
        v = self.card_variety[card]
        k = self.card_kind[card]
        return tuple(
            i
            for i, gc in enumerate(self.give_classes)
            if (gc.declared is not None) == declared
            and gc.variety == v
            and (gc.kind is None or gc.kind == k)
        )

    def _build_actions(self) -> None:
        segs: list[tuple[str, int]] = [
            ("plant", FIELDS),
            ("stop_planting", 1),
            ("harvest", FIELDS),
            ("buy_field", 1),
            ("end_trading", 1),
            (PASS, 1),
            ("plant_traded", TRADE_SLOTS * FIELDS),
        ]
        if self.trading:
            segs += [
                ("accept", OFFER_SLOTS),
                ("decline", OFFER_SLOTS),
                ("withdraw", OFFER_SLOTS),
                (
                    "offer",
                    (self.n - 1) * len(self.give_classes) * len(GIVE_COUNTS) * (self.v + 1),
                ),
            ]
        # The module's own actions, one segment per shape, sized by its parameters.
        laid: list[tuple[ActionShape, tuple[ParamSlots, ...], int]] = []
        #: Module action types left out of the layout (a parameter of a kind in _UNLAID).
        self.unlaid: tuple[str, ...] = ()
        for shape in self.shapes:
            params = self._param_slots(shape)
            if params is None:
                self.unlaid += (shape.type,)
                continue
            size = 1
            for ps in params:
                size *= ps.size
            if shape.type in (name for name, _ in segs):
                raise ValueError(f"module action {shape.type!r} clashes with an RL segment name")
            segs.append((shape.type, size))
            laid.append((shape, params, size))
        self.segments: dict[str, tuple[int, int]] = {}
        start = 0
        for name, size in segs:
            self.segments[name] = (start, size)
            start += size
        #: Per module action type value, its segment (see :class:`ShapeSlots`).
        self._shape_slots: dict[str, ShapeSlots] = {
            shape.type: ShapeSlots(
                ActionType(shape.type), self.segments[shape.type][0], size, params
            )
            for shape, params, size in laid
        }
        self._seg_start = {name: st for name, (st, _) in self.segments.items()}
        self.n_actions = start
        self._seg_of = np.zeros(start, dtype=np.int16)
        self._seg_names = [name for name, _ in segs]
        for i, (name, _) in enumerate(segs):
            s, size = self.segments[name]
            self._seg_of[s : s + size] = i

    def _param_slots(self, shape: ActionShape) -> tuple[ParamSlots, ...] | None:
        """How each parameter of ``shape`` is numbered (None: a kind in _UNLAID)."""
        out: list[ParamSlots] = []
        for p in shape.params:
            kind = p.kind.value
            places: tuple[tuple[str, int], ...] = ()
            if kind in _UNLAID:
                return None
            if kind in _PLACED:
                places = tuple(
                    (tok, self._place_slots(tok))
                    for tok in p.card_places
                    if tok in "hdt" or tok in self._pile_of_token
                )
                size = sum(n for _, n in places)
            elif kind == ParamKind.FIELD.value:
                size = FIELDS
            elif kind == ParamKind.FIELD_CARD.value:
                size = FIELDS * FIELD_DEPTH
            elif kind == ParamKind.SEAT.value:
                size = self.n
            elif kind == ParamKind.OFFER_ID.value:
                size = OFFER_SLOTS
            else:  # the pending decision's card: read from the view
                size = 1
            if p.optional:
                size += 1
            out.append(ParamSlots(kind, p.fills, size, p.optional, places))
        return tuple(out)

    def _place_slots(self, token: str) -> int:
        if token == "h":
            return ACTION_HAND_SLOTS
        if token == "t":
            return TRADE_SLOTS
        if token == "d":
            return self.drawn_slots
        return PILE_SLOTS

    def _place(self, view: View, token: str) -> Sequence[int]:
        """The cards a text token's place holds for the reader, in position order."""
        if token == "h":
            return view.hand or ()
        if token == "d":
            return view.drawn
        if token == "t":
            assert view.seat is not None
            return view.seats[view.seat].trade_area
        cards = view.public.get(self._pile_of_token.get(token, ""), ())
        return cards if isinstance(cards, (list, tuple)) else ()

    def base(self, segment: str) -> int:
        return self.segments[segment][0]

    def segment_of(self, index: int) -> tuple[str, int]:
        """(segment name, offset inside it) of an action index."""
        name = self._seg_names[int(self._seg_of[index])]
        return name, index - self.segments[name][0]

    def offer_index(self, partner: int, give_class: int, count: int, want: int | None) -> int:
        """Index of the template "to seat +``partner`` (1…n-1, relative to the proposer),
        give ``count`` cards of ``give_classes[give_class]``, for one card of variety
        ``want`` (an index into the varieties) or as a gift (``None``)."""
        k = GIVE_COUNTS.index(count)
        w = 0 if want is None else want + 1
        g = len(self.give_classes)
        return (
            self.base("offer")
            + (((partner - 1) * g + give_class) * len(GIVE_COUNTS) + k) * (self.v + 1)
            + w
        )

    def _offer_parts(self, offset: int) -> tuple[int, int, int, int | None]:
        w = offset % (self.v + 1)
        rest = offset // (self.v + 1)
        k = rest % len(GIVE_COUNTS)
        rest //= len(GIVE_COUNTS)
        gc = rest % len(self.give_classes)
        partner = rest // len(self.give_classes) + 1
        return partner, gc, GIVE_COUNTS[k], (None if w == 0 else w - 1)

    def describe(self, index: int) -> str:
        """A short human-readable name of an action index (for rendering and docs)."""
        name, off = self.segment_of(index)
        if name in ("plant", "harvest"):
            return f"{name} field {off}"
        if name == "plant_traded":
            return f"{name} slot {off // FIELDS} -> field {off % FIELDS}"
        if name in ("accept", "decline", "withdraw"):
            return f"{name} slot {off}"
        spec = self._shape_slots.get(name)
        if spec is not None:
            return " ".join([name, *self._describe_params(spec, off)])
        if name == "offer":
            partner, gc, count, want = self._offer_parts(off)
            what = self.give_classes[gc].label(self.config)
            for_ = "as a gift" if want is None else f"for 1 {self.varieties[want]}"
            return f"offer to seat +{partner}: {count} {what} {for_}"
        return name

    def _offsets(self, spec: ShapeSlots, off: int) -> list[int]:
        """Each parameter's value number inside a segment offset (the last fastest)."""
        ks = [0] * len(spec.params)
        for i in range(len(spec.params) - 1, -1, -1):
            size = spec.params[i].size
            ks[i] = off % size
            off //= size
        return ks

    def _describe_params(self, spec: ShapeSlots, off: int) -> list[str]:
        out: list[str] = []
        for ps, k in zip(spec.params, self._offsets(spec, off), strict=True):
            if ps.optional and k == ps.size - 1:
                out.append("none")
            elif ps.places:
                for tok, slots in ps.places:
                    if k < slots:
                        out.append(f"{tok}{k + 1}")
                        break
                    k -= slots
            elif ps.kind == ParamKind.FIELD_CARD.value:
                out.append(f"field {k // FIELD_DEPTH} card {k % FIELD_DEPTH} from the top")
            elif ps.kind == ParamKind.PENDING_CARD.value:
                out.append("(pending card)")
            elif ps.kind == ParamKind.SEAT.value:
                out.append(f"seat +{k}")
            else:
                out.append(f"{ps.fills} {k}")
        return out

    # ------------------------------------------------------------------ slots from a view

    def incoming(self, view: View) -> list[OfferView]:
        """Open offers addressed to the reader, oldest first (accept/decline slots)."""
        return list(self._in_out(view)[1])

    def outgoing(self, view: View) -> list[OfferView]:
        """Open offers the reader made, oldest first (withdraw slots)."""
        return list(self._in_out(view)[2])

    def _in_out(self, view: View) -> tuple[View | None, list[OfferView], list[OfferView]]:
        """Both lists, split once per view (views are immutable; the environment reads
        one view for the mask and the observation)."""
        io: tuple[View | None, list[OfferView], list[OfferView]] = self._io
        if io[0] is not view:
            me = view.seat
            offers = view.offers
            io = (
                view,
                [o for o in offers if o.to == me and o.proposer != me],
                [o for o in offers if o.proposer == me],
            )
            self._io = io
        return io

    def tradeable(self, view: View) -> list[int]:
        """Cards the reader may give, in the order templates and accepts take them:
        the drawn cards first (active seat only), then the hand from the front."""
        hand = list(view.hand or ())
        return list(view.drawn) + hand if view.seat == view.active else hand

    def _pick(self, view: View, gc: GiveClass, count: int) -> list[int]:
        pool = self.tradeable(view) if gc.declared is None else list(view.hand or ())
        cv = self.card_variety
        ck = self.card_kind
        out = [c for c in pool if cv[c] == gc.variety and (gc.kind is None or ck[c] == gc.kind)]
        return out[:count]

    def accept_cards(self, view: View, offer: OfferView) -> tuple[int, ...] | None:
        """The canonical answer to ``offer``: for each wanted variety, the first matching
        cards in :meth:`tradeable` order; ``None`` if the reader cannot pay."""
        mine = self.tradeable(view)
        out: list[int] = []
        for key, count in offer.want:
            v = self.varieties.index(key) if key in self.varieties else -1
            pool = [c for c in mine if self.card_variety[c] == v]
            if len(pool) < count:
                return None
            out += pool[:count]
        return tuple(out)

    # ------------------------------------------------------------------ actions

    def index_of(self, view: View, action: Action) -> int | None:
        """The index that stands for an engine action, or ``None`` if the encoding cannot
        name it (beyond a slot bound, or an offer outside the templates). Every accept
        of one offer maps to the same index (its canonical cards)."""
        t = action.type
        seg = self.segments
        if t is _T.PLANT:
            return seg["plant"][0] + action.field  # type: ignore[operator]
        if t is _T.HARVEST:
            return seg["harvest"][0] + action.field  # type: ignore[operator]
        if t is _T.STOP_PLANTING:
            return seg["stop_planting"][0]
        if t is _T.BUY_FIELD:
            return seg["buy_field"][0]  # every choice of coins (R-LADY-10) maps here
        if t is _T.END_TRADING:
            return seg["end_trading"][0]
        if t is _T.PLANT_TRADED:
            assert view.seat is not None
            area = view.seats[view.seat].trade_area
            pos = area.index(action.card) if action.card in area else TRADE_SLOTS
            if pos >= TRADE_SLOTS:
                return None
            return seg["plant_traded"][0] + pos * FIELDS + action.field  # type: ignore[operator]
        if t in (_T.ACCEPT, _T.DECLINE, _T.WITHDRAW):
            offers = self.outgoing(view) if t is _T.WITHDRAW else self.incoming(view)
            ids = [o.offer_id for o in offers]
            if action.offer_id not in ids:
                return None
            j = ids.index(action.offer_id)
            return seg[t.value][0] + j if j < OFFER_SLOTS else None
        spec = self._shape_slots.get(t.value)
        if spec is None:
            return None
        off = 0
        for ps in spec.params:
            k = self._value_slot(view, ps, getattr(action, ps.fills))
            if k is None:
                return None
            off = off * ps.size + k
        return spec.start + off

    def _value_slot(self, view: View, ps: ParamSlots, value: Any) -> int | None:
        """The number of a module action parameter's ``value`` in its segment, or None."""
        if value is None:
            return ps.size - 1 if ps.optional else None
        kind = ps.kind
        if ps.places:
            at = 0
            for tok, slots in ps.places:
                cards = self._place(view, tok)
                if value in cards:
                    pos = cards.index(value)
                    return at + pos if pos < slots else None
                at += slots
            return None
        me = view.seat
        assert me is not None
        if kind == ParamKind.FIELD.value:
            return int(value) if 0 <= value < FIELDS else None
        if kind == ParamKind.FIELD_CARD.value:
            for f, field in enumerate(view.seats[me].fields[:FIELDS]):
                if value in field:
                    depth = len(field) - 1 - field.index(value)
                    return f * FIELD_DEPTH + depth if depth < FIELD_DEPTH else None
            return None
        if kind == ParamKind.SEAT.value:
            return int((value - me) % self.n)
        if kind == ParamKind.OFFER_ID.value:
            ids = [o.offer_id for o in view.offers]
            j = ids.index(value) if value in ids else OFFER_SLOTS
            return j if j < OFFER_SLOTS else None
        return 0  # the pending decision's card: one value

    def mask(self, view: View, legal: Sequence[Action], may_pass: bool) -> NDArray[np.int8]:
        """The legal-action mask: 1 for every index that :meth:`decode` turns into an
        action the engine accepts now (or into a pass, where ``may_pass``).

        ``legal`` is the engine's list for the reader (offer templates may be left out of
        it: the encoding builds its own). The slot lists (offers, trade area) are read once
        per call, not once per action: this is on every environment step."""
        m = np.zeros(self.n_actions, dtype=np.int8)
        seg = self._seg_start
        on: list[int] = []
        incoming: dict[int, int] | None = None
        outgoing: dict[int, int] | None = None
        for a in legal:
            t = a.type
            if t is _T.PROPOSE:
                continue
            if t is _T.ACCEPT or t is _T.DECLINE:
                if incoming is None:
                    incoming = {o.offer_id: j for j, o in enumerate(self._in_out(view)[1])}
                j = incoming.get(a.offer_id, OFFER_SLOTS)  # type: ignore[arg-type]
                if j < OFFER_SLOTS:
                    on.append(seg[t.value] + j)
            elif t is _T.WITHDRAW:
                if outgoing is None:
                    outgoing = {o.offer_id: j for j, o in enumerate(self._in_out(view)[2])}
                j = outgoing.get(a.offer_id, OFFER_SLOTS)  # type: ignore[arg-type]
                if j < OFFER_SLOTS:
                    on.append(seg["withdraw"] + j)
            else:
                i = self.index_of(view, a)
                if i is not None:
                    on.append(i)
        if may_pass:
            on.append(seg[PASS])
        if on:
            m[on] = 1
        if (
            self.trading
            and view.phase == "trade"
            and view.pending is None
            and view.seat is not None
            and len(self._in_out(view)[2]) < MAX_OPEN_OFFERS
        ):
            self._offer_mask(view, m)
        return m

    def _class_pools(self, view: View) -> list[list[int]]:
        """For each give class, the cards :meth:`_pick` takes from, in its order (one pass
        over the reader's cards instead of one per class)."""
        pools: list[list[int]] = [[] for _ in self.give_classes]
        plain = self._card_classes
        for c in self.tradeable(view):
            for i in plain[c]:
                pools[i].append(c)
        if self._any_declared:
            declared = self._card_declared_classes
            for c in view.hand or ():
                for i in declared[c]:
                    pools[i].append(c)
        return pools

    def _offer_mask(self, view: View, m: NDArray[np.int8]) -> None:
        me = view.seat
        assert me is not None
        n = self.n
        pools = self._class_pools(view)
        top = GIVE_COUNTS[-1]
        have = tuple([min(len(pool), top) for pool in pools])
        block = self._template_blocks.get(have)
        if block is None:
            avail = np.array([[h >= k for k in GIVE_COUNTS] for h in have], dtype=np.int8)
            # One partner's block: give class x count x wanted variety (a card for one of
            # its own variety is pointless and never offered).
            block = self._template_blocks[have] = (avail[:, :, None] & self._want_ok).reshape(-1)
        s = self._seg_start["offer"]
        size = block.size
        if me == view.active:
            m[s : s + (n - 1) * size].reshape(n - 1, size)[:] = block
        else:
            p = (view.active - me) % n - 1
            m[s + p * size : s + (p + 1) * size] = block
        # A template that would repeat one of the seat's open offers exactly is masked out.
        for o in self._in_out(view)[2]:
            k = len(o.give)
            if k not in GIVE_COUNTS or not (o.is_gift or (len(o.want) == 1 and o.want[0][1] == 1)):
                continue
            want = None if o.is_gift else o.want[0][0]
            if want is not None and want not in self._variety_index:
                continue
            w = None if want is None else self._variety_index[want]
            claims = tuple([sh.get("declared") or "" for sh in o.shown])
            first = o.give[0]
            if first is None:  # pragma: no cover - the reader sees its own offers' cards
                continue
            # Only the classes of the first given card can have picked these cards.
            for i in self._card_classes[first] + self._card_declared_classes[first]:
                declared = (self.give_classes[i].declared or "",) * k
                if claims == declared and tuple(pools[i][:k]) == o.give:
                    m[self.offer_index((o.to - me) % n, i, k, w)] = 0

    def decode(self, view: View, index: int) -> Action | None:
        """The engine action an index stands for in this view (``None``: pass).

        Meaningful where the mask allows the index; otherwise the action may be illegal
        (:meth:`bohnanza.game.Game.apply` then refuses it) or :class:`ValueError` is raised
        when a slot is empty."""
        if not 0 <= index < self.n_actions:
            raise ValueError(f"action index {index} out of range 0..{self.n_actions - 1}")
        name, off = self.segment_of(index)
        me = view.seat
        assert me is not None
        if name == "plant":
            return Action.plant(off)
        if name == "harvest":
            return Action.harvest(off)
        if name == "stop_planting":
            return Action.stop_planting()
        if name == "buy_field":
            # Where the buyer chooses coins: the canonical ones, least useful to the others
            # (R-LADY-10).
            return with_coins(view, Action.buy_field())
        if name == "end_trading":
            return Action.end_trading()
        if name == PASS:
            return None
        if name == "plant_traded":
            area = view.seats[me].trade_area
            return Action.plant_traded(_slot(area, off // FIELDS, name), off % FIELDS)
        if name in ("accept", "decline"):
            offer = _slot(self.incoming(view), off, name)
            if name == "decline":
                return Action.decline(offer.offer_id)
            cards = self.accept_cards(view, offer)
            if cards is None:
                raise ValueError(f"cannot pay for offer {offer.offer_id}")
            return Action.accept(offer.offer_id, cards)
        if name == "withdraw":
            return Action.withdraw(_slot(self.outgoing(view), off, name).offer_id)
        if name == "offer":
            partner, gc_i, count, want = self._offer_parts(off)
            gc = self.give_classes[gc_i]
            give = self._pick(view, gc, count)
            if len(give) < count:
                raise ValueError(f"not enough {gc.label(self.config)} cards to give {count}")
            wanted = () if want is None else ((self.varieties[want], 1),)
            declared = (gc.declared,) * count if gc.declared else ()
            return Action.propose(Offer((me + partner) % self.n, tuple(give), wanted, declared))
        spec = self._shape_slots.get(name)
        if spec is not None:
            values: dict[str, Any] = {}
            for ps, k in zip(spec.params, self._offsets(spec, off), strict=True):
                values[ps.fills] = self._slot_value(view, name, ps, k)
            return Action(spec.type, **values)
        raise ValueError(f"unknown action segment {name}")  # pragma: no cover

    def _slot_value(self, view: View, name: str, ps: ParamSlots, k: int) -> Any:
        """The value a module action parameter's number ``k`` stands for in ``view``."""
        if ps.optional and k == ps.size - 1:
            return None
        me = view.seat
        assert me is not None
        if ps.places:
            for tok, slots in ps.places:
                if k < slots:
                    return _slot(self._place(view, tok), k, name)
                k -= slots
        kind = ps.kind
        if kind == ParamKind.FIELD.value:
            return k
        if kind == ParamKind.FIELD_CARD.value:
            field = (
                view.seats[me].fields[k // FIELD_DEPTH]
                if k // FIELD_DEPTH < len(view.seats[me].fields)
                else ()
            )
            return _slot(tuple(reversed(field)), k % FIELD_DEPTH, name)
        if kind == ParamKind.SEAT.value:
            return (me + k) % self.n
        if kind == ParamKind.OFFER_ID.value:
            return _slot(view.offers, k, name).offer_id
        p = view.pending
        cards = p.cards() if p is not None and p.kind == name and p.seat == me else []
        if not cards:
            raise ValueError(f"{name}: no pending decision names its card")
        return cards[0]

    # ------------------------------------------------------------------ observation

    def _build_observation(self) -> None:
        c, v, n = self.c, self.v, self.n
        parts: list[tuple[str, int]] = [
            ("phase", len(self.phases)),
            ("active", n),
            ("planted", 1),
            ("trade_round", 1),
            ("piles", 6),  # draw, discard, run-outs, final run-out, third fields left, turn
            ("discard_top", c),
            ("hand", HAND_SLOTS * c),
            ("hand_counts", c),
            ("hand_size", 1),
            ("seats", n * (FIELDS * (c + 3) + 2 + c)),
            ("trade_slots", TRADE_SLOTS * c),
            ("drawn", 2 * c),
        ]
        if self.trading:
            parts += [
                ("incoming", OFFER_SLOTS * (1 + n + c + v)),
                ("outgoing", OFFER_SLOTS * (1 + n + c + v)),
            ]
        # The reader's open pending decision: per kind the module's rules answer, a flag
        # and its arguments, by their declared kinds (a field: one-hot; a seat: one-hot
        # relative to the reader; an offer: one-hot of its slot; a variety: one-hot; a
        # card: its features).
        self._pending_at: dict[str, tuple[int, tuple[tuple[str, str, int], ...]]] = {}
        widths = {
            ParamKind.FIELD.value: FIELDS,
            ParamKind.SEAT.value: n,
            ParamKind.OFFER_ID.value: OFFER_SLOTS,
            ParamKind.VARIETY.value: v,
        }
        width = 0
        for kind, typed in self.pending_kinds.items():
            args: list[tuple[str, str, int]] = []
            at = width + 1
            for arg, arg_kind in typed:
                args.append((arg, arg_kind.value, at))
                at += widths.get(arg_kind.value, c)
            self._pending_at[kind] = (width, tuple(args))
            width = at
        if self.pending:
            parts += [("pending", width)]
        if self.treasury:
            parts += [("treasury", self.c)]
        # Each public pile of the module (ModuleInfo.public), card by card.
        parts += [(f"pile_{key}", PILE_SLOTS * c) for key in self.piles]
        self.obs_parts: dict[str, tuple[int, int]] = {}
        start = 0
        for name, size in parts:
            self.obs_parts[name] = (start, size)
            start += size
        self.obs_size = start
        #: Each public pile's key and the start of its part.
        self._pile_parts: tuple[tuple[str, int], ...] = tuple(
            (key, self.obs_parts[f"pile_{key}"][0]) for key in self.piles
        )
        self._seat_width = FIELDS * (c + 3) + 2 + c
        #: Encoded offers by content (see :meth:`_offers`).
        self._offer_blocks: dict[tuple[Any, ...], tuple[list[int], list[float]]] = {}
        #: The last view's incoming and outgoing offers (mask and observation share a view).
        self._io = (None, [], [])
        #: Encoded hands (slots, counts, size) by content (see :meth:`observe`).
        self._hand_blocks: dict[tuple[int, ...], NDArray[np.float32]] = {}
        #: Encoded seat blocks by content (see :meth:`observe`).
        self._seat_blocks: dict[SeatView, NDArray[np.float32]] = {}
        #: Offer-template blocks of one partner by what the reader can give (see
        #: :meth:`_offer_mask`).
        self._template_blocks: dict[tuple[int, ...], NDArray[np.int8]] = {}

    def observe(self, view: View, trade_round: int = 0) -> NDArray[np.float32]:
        """The observation vector of ``view``'s reader: values in [0, 1], seats ordered
        relative to the reader (the reader first). ``trade_round`` is the environment's
        public count of finished trading rounds this turn.

        On every environment step, so it collects the indices of ones and the other values
        in two Python lists and writes them with two numpy calls (a card is one or two
        ones, from a per-card table); ``tests/rl_reference.py`` builds the same vector the
        plain way and ``tests/test_rl_fast.py`` compares them."""
        me = view.seat
        if me is None:
            raise ValueError("observations are built for a seat, not a spectator")
        n = self.n
        cfg = self.config
        offs = self._card_offs
        p = self.obs_parts
        out = np.zeros(self.obs_size, dtype=np.float32)
        ones: list[int] = []
        at: list[int] = []
        val: list[float] = []
        one = ones.append
        try:
            one(p["phase"][0] + self._phase_index[view.phase])
        except KeyError:
            raise ValueError(f"{view.phase!r} is not in list") from None
        one(p["active"][0] + (view.active - me) % n)
        s = p["planted"][0]
        deck = cfg.deck_size
        at += (s, s + 1, s + 2, s + 3, s + 4, s + 5, s + 6, s + 7)  # planted, trade round, piles
        val += (
            view.planted / 2,
            min(trade_round / max(1, self.max_trade_rounds), 1.0),
            view.draw_size / deck,
            view.discard_size / deck,
            min(view.runouts / cfg.runouts_to_end, 1.0),
            float(view.final_runout),
            min(view.third_fields_left / max(1, cfg.third_fields), 1.0),
            min(view.turn / 100, 1.0),
        )
        if view.discard_top is not None:
            b = p["discard_top"][0]
            for o in offs[view.discard_top]:
                one(b + o)
        # The hand's slots, counts and size are one contiguous block, cached by content:
        # a hand changes only when its owner plants, draws or trades.
        hand = view.hand or ()
        s = p["hand"][0]
        block = self._hand_blocks.get(hand)
        if block is None:
            if len(self._hand_blocks) >= 4096:
                self._hand_blocks.clear()
            h_ones: list[int] = []
            h_at: list[int] = []
            h_val: list[float] = []
            self._slots(h_ones, 0, hand, HAND_SLOTS)
            self._counts(h_at, h_val, p["hand_counts"][0] - s, hand)
            h_at.append(p["hand_size"][0] - s)
            h_val.append(min(len(hand) / 20, 1.0))
            block = np.zeros(p["hand_size"][0] + 1 - s, dtype=np.float32)
            block[h_ones] = 1.0
            block[h_at] = h_val
            self._hand_blocks[hand] = block
        out[s : s + block.size] = block
        s = p["seats"][0]
        width = self._seat_width
        seats = view.seats
        blocks = self._seat_blocks
        for rel in range(n):
            sv = seats[(me + rel) % n]
            # A seat's public part changes only when an action touches that seat, so its
            # block is encoded once per content (SeatView is an immutable tuple).
            block = blocks.get(sv)
            if block is None:
                if len(blocks) >= 4096:
                    blocks.clear()
                block = blocks[sv] = self._seat_block(sv)
            out[s + rel * width : s + (rel + 1) * width] = block
        self._slots(ones, p["trade_slots"][0], seats[me].trade_area, TRADE_SLOTS)
        self._slots(ones, p["drawn"][0], view.drawn, 2)
        if self.trading and view.offers:
            self._offers(at, val, p["incoming"][0], self._in_out(view)[1], me, True)
            self._offers(at, val, p["outgoing"][0], self._in_out(view)[2], me, False)
        if self.treasury and view.treasury:
            # One's own coins, which the buyer of a third field chooses from (R-LADY-10).
            self._counts(at, val, p["treasury"][0], view.treasury)
        pend = view.pending
        if pend is not None and pend.seat == me and pend.kind in self._pending_at:
            s = p["pending"][0]
            flag, args = self._pending_at[pend.kind]
            one(s + flag)
            given = pend.args
            for arg, arg_kind, pos in args:
                value = given.get(arg)
                if value is None:
                    continue
                if arg_kind == _FIELD_KIND:
                    if 0 <= value < FIELDS:
                        one(s + pos + value)
                elif arg_kind == _SEAT_KIND:
                    one(s + pos + (value - me) % n)
                elif arg_kind == _OFFER_KIND:
                    ids = [o.offer_id for o in view.offers[:OFFER_SLOTS]]
                    if value in ids:
                        one(s + pos + ids.index(value))
                elif arg_kind == _VARIETY_KIND:
                    if 0 <= value < self.v:
                        one(s + pos + value)
                elif 0 <= value < deck:
                    for o in offs[value]:
                        one(s + pos + o)
        for key, start in self._pile_parts:
            cards = view.public.get(key, ())
            if cards:
                self._slots(ones, start, cards, PILE_SLOTS)
        out[ones] = 1.0
        out[at] = val
        return out

    def _seat_block(self, sv: SeatView) -> NDArray[np.float32]:
        """One seat's public part: per field (exists, top card, size, payout), then coins,
        hand size and the trade area's counts."""
        c = self.c
        offs = self._card_offs
        fw = c + 3
        ones: list[int] = []
        at: list[int] = []
        val: list[float] = []
        for f, field in enumerate(sv.fields[:FIELDS]):
            fb = f * fw
            ones.append(fb)  # the field exists
            if field:
                for o in offs[field[-1]]:
                    ones.append(fb + 1 + o)
                at.append(fb + 1 + c)
                val.append(min(len(field) / 20, 1.0))
                at.append(fb + 2 + c)
                val.append(min(sv.payouts[f] / 4, 1.0))
        tb = FIELDS * fw
        at.append(tb)
        val.append(min(sv.coins / 40, 1.0))
        at.append(tb + 1)
        val.append(min(sv.hand_size / 20, 1.0))
        if sv.trade_area:
            self._counts(at, val, tb + 2, sv.trade_area)
        block = np.zeros(self._seat_width, dtype=np.float32)
        block[ones] = 1.0
        block[at] = val
        return block

    def _slots(self, ones: list[int], start: int, cards: Sequence[int], slots: int) -> None:
        """One card's features per slot, the first ``slots`` cards."""
        offs = self._card_offs
        c = self.c
        for i, card in enumerate(cards[:slots]):
            b = start + i * c
            for o in offs[card]:
                ones.append(b + o)

    def _counts(self, at: list[int], val: list[float], start: int, cards: Sequence[int]) -> None:
        """Per feature, how many of ``cards`` have it, over 10 (at most 1)."""
        if not cards:
            return
        counts: dict[int, int] = {}
        offs = self._card_offs
        for card in cards:
            for o in offs[card]:
                counts[o] = counts.get(o, 0) + 1
        for o, k in counts.items():
            at.append(start + o)
            val.append(min(k / 10.0, 1.0))

    def _offers(
        self,
        at: list[int],
        val: list[float],
        start: int,
        offers: list[OfferView],
        me: int,
        incoming: bool,
    ) -> None:
        """Open offers, one block each (see :meth:`_offer_block`), cached by what the block
        depends on: an offer stays open over many steps and is read by every seat."""
        width = 1 + self.n + self.c + self.v
        n = self.n
        cache = self._offer_blocks
        for j, o in enumerate(offers[:OFFER_SLOTS]):
            other = ((o.proposer if incoming else o.to) - me) % n
            hidden = (
                tuple([(sh.get("variety"), sh.get("declared")) for sh in o.shown])
                if None in o.give
                else ()
            )
            key = (other, o.give, o.want, hidden)
            block = cache.get(key)
            if block is None:
                if len(cache) >= 4096:
                    cache.clear()
                block = cache[key] = self._offer_block(o, other)
            b = start + j * width
            at += [b + i for i in block[0]]
            val += block[1]

    def _offer_block(self, o: OfferView, other: int) -> tuple[list[int], list[float]]:
        """One offer, indices relative to its block: present, the other seat (relative to
        the reader), what is given (features, a quarter per card; a hidden card by its shown
        variety and declared kind) and what is wanted (a quarter per card), each at most 1."""
        offs = self._card_offs
        vi = self._variety_index
        ki = self._kind_index
        g = 1 + self.n
        acc: dict[int, float] = {0: 1.0, 1 + other: 1.0}
        for card, shown in zip(o.give, o.shown, strict=True):
            if card is not None:
                for f in offs[card]:
                    acc[g + f] = acc.get(g + f, 0.0) + 0.25
            else:
                key = shown.get("variety")
                if key in vi:
                    acc[g + vi[key]] = acc.get(g + vi[key], 0.0) + 0.25
                claim = shown.get("declared")
                if claim in ki:
                    i = g + self.v + ki[claim]
                    acc[i] = acc.get(i, 0.0) + 0.25
        w = g + self.c
        for key, count in o.want:
            if key in vi:
                acc[w + vi[key]] = acc.get(w + vi[key], 0.0) + count / 4
        return list(acc), [min(x, 1.0) for x in acc.values()]

    # ------------------------------------------------------------------ text

    def render(
        self,
        view: View,
        mask: NDArray[np.int8] | None = None,
        limit: int = 40,
        describe: Callable[[int], str] | None = None,
    ) -> str:
        """A text rendering of the reader's view (``render_mode="ansi"``); ``describe``
        names the mask's indices (default: this encoding's :meth:`describe`)."""
        me = view.seat
        cfg = self.config
        lines = [
            f"{cfg.rules}, {self.n} players - turn {view.turn}, seat {view.active} active, "
            f"phase {view.phase}; draw pile {view.draw_size}, discard {view.discard_size}, "
            f"run-outs {view.runouts}/{cfg.runouts_to_end}"
        ]
        if me is not None:
            lines.append(f"seat {me} (you), hand: {_names(cfg, view.hand or ())}")
        if view.treasury:
            lines.append(f"your coins: {_names(cfg, view.treasury)}")
        if view.drawn:
            lines.append(f"drawn: {_names(cfg, view.drawn)}")
        for sv in view.seats:
            who = " (you)" if sv.seat == me else ""
            fields = " | ".join(_names(cfg, f) or "-" for f in sv.fields)
            line = (
                f"  seat {sv.seat}{who}: {sv.coins} coins, {sv.hand_size} in hand; fields: {fields}"
            )
            if sv.trade_area:
                line += f"; trade area: {_names(cfg, sv.trade_area)}"
            lines.append(line)
        for o in view.offers:
            give = ", ".join(_shown(cfg, c, sh) for c, sh in zip(o.give, o.shown, strict=True))
            want = ", ".join(f"{n} {v}" for v, n in o.want) or "nothing (gift)"
            lines.append(
                f"  offer {o.offer_id}: seat {o.proposer} -> seat {o.to}: {give} for {want}"
            )
        for key, cards in view.public.items():
            if isinstance(cards, list) and cards:
                lines.append(f"{key}: {_names(cfg, cards)}")
        if view.pending is not None:
            lines.append(f"pending: {view.pending.legacy_json()}")
        if view.scores is not None:
            lines.append(
                f"game over: scores {list(view.scores)}, winners {list(view.winners or ())}"
            )
        if mask is not None:
            legal = [int(i) for i in np.flatnonzero(mask)]
            name = describe or self.describe
            names = [f"{i}: {name(i)}" for i in legal[:limit]]
            more = f" (+{len(legal) - limit} more)" if len(legal) > limit else ""
            lines.append(f"legal actions ({len(legal)}){more}:")
            lines += [f"  {x}" for x in names]
        return "\n".join(lines)


def _slot(items: Sequence[Any], i: int, what: str) -> Any:
    if i >= len(items):
        raise ValueError(f"{what}: slot {i} is empty")
    return items[i]


def _names(config: GameConfig, cards: Sequence[int]) -> str:
    return ", ".join(config.describe(c) for c in cards)


def _shown(config: GameConfig, card: int | None, shown: dict[str, Any]) -> str:
    if card is not None:
        return config.describe(card)
    text = str(shown.get("variety", "?"))
    if shown.get("declared"):
        text += f" (declared {shown['declared']})"
    return text


__all__ = [
    "ACTION_HAND_SLOTS",
    "FIELDS",
    "FIELD_DEPTH",
    "GIVE_COUNTS",
    "HAND_SLOTS",
    "OFFER_SLOTS",
    "PASS",
    "PHASES",
    "PILE_SLOTS",
    "TRADE_SLOTS",
    "Encoding",
    "GiveClass",
    "ParamSlots",
    "ShapeSlots",
]
