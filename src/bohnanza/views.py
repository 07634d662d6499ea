"""What one seat may know (R-INFO-1…3), as immutable copies.

Views are read-only and computed part by part when read (a bot gets one per decision and
may read two of its parts; :class:`View`); seat and offer parts are named tuples; their
mappings and module piles are read-only (:mod:`bohnanza.frozen`), since one view part
may be shared by several readers.
A complete :class:`View` holds no reference to the game: nothing private can be reached
from it. A live one (the driver's, until the game's next action) reaches the game only
to compute its own parts, and is completed before the game changes. Card ids appear in a view only for cards its reader
may see (own hand, own treasury where the rule set shows it, fields, trade areas, drawn
cards, the discard pile's top, the cards of one's own offers); a card offered from another
seat's hand appears as what its owner declared about it, without its id (DESIGN-NOTES:
card ids that leak).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple

from .actions import Offer
from .frozen import FrozenDict
from .rules import GameConfig
from .shuffle import COMPILED

if TYPE_CHECKING:
    from .game import Game
    from .state import Pending


class SeatView(NamedTuple):
    """The public side of one seat (R-INFO-1)."""

    seat: int
    fields: tuple[tuple[int, ...], ...]
    coins: int
    hand_size: int
    trade_area: tuple[int, ...]
    payouts: tuple[int, ...]  # coins each field would pay if harvested now


class OfferView(NamedTuple):
    """An open offer as the reader sees it. ``give`` holds card ids only where the reader
    may see them (its own offer, drawn cards); ``shown`` describes every given card."""

    offer_id: int
    proposer: int
    to: int
    give: tuple[int | None, ...]
    shown: tuple[FrozenDict[str, Any], ...]
    want: tuple[tuple[str, int], ...]

    @property
    def is_gift(self) -> bool:
        return not self.want


#: The parts of a :class:`View`, in the order of its value (``tuple(view)``, equality,
#: pickling and :meth:`View._replace` use it; it was the named tuple's field order).
VIEW_FIELDS: tuple[str, ...] = (
    "seat",
    "config",
    "phase",
    "active",
    "turn",
    "planted",
    "runouts",
    "final_runout",
    "draw_size",
    "discard_size",
    "discard_top",
    "third_fields_left",
    "hand",
    "drawn",
    "seats",
    "offers",
    "pending",
    "public",
    "scores",
    "winners",
    "treasury",
)

# The parts still to compute (View._todo), one bit per group. Final: compiled, each is a
# C constant, not a look-up in the module's globals on every part read.
_HEAD: Final = 1  # the numbers of the table but the phase (set at once): active ... winners
_HAND: Final = 2
_DRAWN: Final = 4
_SEATS: Final = 8
_OFFERS: Final = 16
_PENDING: Final = 32
_PUBLIC: Final = 64
_TREASURY: Final = 128
_ALL: Final = 255


class View:
    """Everything ``seat`` (``None``: a spectator) may know about the game now.

    Read-only, and computed part by part when read (issue 34): a bot that reads two
    parts pays for two. A view taken with ``Game.view(seat, cached=True)`` (the driver's)
    is *live* until the game's next action: its parts are computed from the game as it
    stands, which has not changed since the view was made. Before that action the game
    completes every live view that someone still holds (:meth:`_freeze`), so a view
    never changes once made, and a complete view holds no reference to the game. Views
    made otherwise (``Game.view(seat)``, :func:`make_view`) are complete at once.
    Equality, hashing, ``tuple(view)``, pickling and :meth:`_replace` work on the
    values, as they did when a view was a named tuple (:data:`VIEW_FIELDS`)."""

    __slots__ = (
        "_active",
        "_config",
        "_discard_size",
        "_discard_top",
        "_draw_size",
        "_drawn",
        "_final_runout",
        "_game",
        "_hand",
        "_offers",
        "_pending",
        "_phase",
        "_planted",
        "_public",
        "_runouts",
        "_scores",
        "_seat",
        "_seats",
        "_supply",
        "_todo",
        "_treasury",
        "_turn",
        "_winners",
    )

    _fields: ClassVar[tuple[str, ...]] = VIEW_FIELDS

    _config: GameConfig
    _seat: int | None
    _game: Game | None
    _todo: int
    _phase: str
    _active: int
    _turn: int
    _planted: int
    _runouts: int
    _final_runout: bool
    _draw_size: int
    _discard_size: int
    _discard_top: int | None
    _supply: int
    _scores: tuple[int, ...] | None
    _winners: tuple[int, ...] | None
    _hand: tuple[int, ...] | None
    _drawn: tuple[int, ...]
    _seats: tuple[SeatView, ...]
    _offers: tuple[OfferView, ...]
    _pending: Pending | None
    _public: FrozenDict[str, Any]
    _treasury: tuple[int, ...] | None

    def __init__(
        self,
        seat: int | None,
        config: GameConfig,
        phase: str,
        active: int,
        turn: int,
        planted: int,
        runouts: int,
        final_runout: bool,
        draw_size: int,
        discard_size: int,
        discard_top: int | None,
        third_fields_left: int,
        hand: tuple[int, ...] | None,
        drawn: tuple[int, ...],
        seats: tuple[SeatView, ...],
        offers: tuple[OfferView, ...],
        pending: Pending | None,
        public: FrozenDict[str, Any],
        scores: tuple[int, ...] | None,
        winners: tuple[int, ...] | None,
        treasury: tuple[int, ...] | None = None,
    ) -> None:
        """A complete view from its parts (the named tuple's constructor, kept)."""
        self._seat = seat
        self._config = config
        self._game = None
        self._todo = 0
        self._phase = phase
        self._active = active
        self._turn = turn
        self._planted = planted
        self._runouts = runouts
        self._final_runout = final_runout
        self._draw_size = draw_size
        self._discard_size = discard_size
        self._discard_top = discard_top
        self._supply = third_fields_left
        self._hand = hand
        self._drawn = drawn
        self._seats = seats
        self._offers = offers
        self._pending = pending
        self._public = public
        self._scores = scores
        self._winners = winners
        self._treasury = treasury

    # ------------------------------------------------------------------ computing parts

    def _fill(self, parts: int) -> None:
        """Compute ``parts`` (bits of :data:`_ALL`) from the game, which has not changed
        since this view was made (the game completes its live views before it moves)."""
        game = self._game
        assert game is not None
        seat = self._seat
        todo = self._todo
        if todo != _ALL:
            # A second part read: a reader that reads two reads most (the heuristic bots,
            # the RL encoding); one pass over what is left beats a call per part.
            parts = todo
        if parts & _HEAD:
            self._active = game.active
            self._turn = game.turn
            self._planted = game.planted
            self._runouts = game.runouts
            self._final_runout = game.final_runout
            self._draw_size = len(game.draw)
            discard = game.discard
            self._discard_size = len(discard)
            self._discard_top = discard[-1] if discard else None
            self._supply = game.supply
            self._scores = game.scores
            self._winners = game.winners
        if parts & _HAND:
            self._hand = tuple(game.hands[seat]) if seat is not None else None
        if parts & _DRAWN:
            self._drawn = tuple(game.drawn)
        if parts & _SEATS:
            self._seats = _seat_views(game, game._seat_views)
        if parts & _OFFERS:
            self._offers = _offer_views(game, seat, game._offer_views) if game.offers else ()
        hooks = game.hooks
        if parts & _PENDING:
            self._pending = hooks.public_pending(game, seat) if game.pending is not None else None
        if parts & _PUBLIC:
            self._public = hooks.public_extra(game, seat) if game.extra.public else _EMPTY
        if parts & _TREASURY:
            self._treasury = (
                tuple(game.treasury[seat])
                if seat is not None and hooks.own_treasury_visible
                else None
            )
        todo &= ~parts
        self._todo = todo
        if not todo:
            self._game = None  # complete: nothing of the game is reachable from it

    def _freeze(self) -> None:
        """Compute every part still missing and let go of the game (the game calls this
        before it changes, for each live view still held elsewhere)."""
        if self._todo:
            self._fill(self._todo)

    # ------------------------------------------------------------------ the parts

    @property
    def seat(self) -> int | None:
        return self._seat

    @property
    def config(self) -> GameConfig:
        return self._config

    @property
    def phase(self) -> str:
        return self._phase  # set when the view is made: the part every bot reads

    @property
    def active(self) -> int:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._active

    @property
    def turn(self) -> int:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._turn

    @property
    def planted(self) -> int:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._planted

    @property
    def runouts(self) -> int:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._runouts

    @property
    def final_runout(self) -> bool:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._final_runout

    @property
    def draw_size(self) -> int:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._draw_size

    @property
    def discard_size(self) -> int:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._discard_size

    @property
    def discard_top(self) -> int | None:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._discard_top

    @property
    def third_fields_left(self) -> int:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._supply

    @property
    def scores(self) -> tuple[int, ...] | None:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._scores

    @property
    def winners(self) -> tuple[int, ...] | None:
        if self._todo & _HEAD:
            self._fill(_HEAD)
        return self._winners

    @property
    def hand(self) -> tuple[int, ...] | None:
        if self._todo & _HAND:
            self._fill(_HAND)
        return self._hand

    @property
    def drawn(self) -> tuple[int, ...]:
        if self._todo & _DRAWN:
            self._fill(_DRAWN)
        return self._drawn

    @property
    def seats(self) -> tuple[SeatView, ...]:
        if self._todo & _SEATS:
            self._fill(_SEATS)
        return self._seats

    @property
    def offers(self) -> tuple[OfferView, ...]:
        if self._todo & _OFFERS:
            self._fill(_OFFERS)
        return self._offers

    @property
    def pending(self) -> Pending | None:
        if self._todo & _PENDING:
            self._fill(_PENDING)
        return self._pending

    @property
    def public(self) -> FrozenDict[str, Any]:
        if self._todo & _PUBLIC:
            self._fill(_PUBLIC)
        return self._public

    @property
    def treasury(self) -> tuple[int, ...] | None:
        """The reader's own treasury, oldest coin first, where the rule set lets a player
        look at it (``fasolufka``, R-LADY-10); ``None`` elsewhere and for the spectator.
        Other seats' treasuries are only counts (``SeatView.coins``, R-INFO-2)."""
        if self._todo & _TREASURY:
            self._fill(_TREASURY)
        return self._treasury

    # ------------------------------------------------------------------ as a value

    def _astuple(self) -> tuple[Any, ...]:
        """The parts in :data:`VIEW_FIELDS` order (the named tuple's value)."""
        if self._todo:
            self._fill(self._todo)
        return (
            self._seat,
            self._config,
            self._phase,
            self._active,
            self._turn,
            self._planted,
            self._runouts,
            self._final_runout,
            self._draw_size,
            self._discard_size,
            self._discard_top,
            self._supply,
            self._hand,
            self._drawn,
            self._seats,
            self._offers,
            self._pending,
            self._public,
            self._scores,
            self._winners,
            self._treasury,
        )

    def __iter__(self) -> Iterator[Any]:
        return iter(self._astuple())

    def __len__(self) -> int:
        return len(VIEW_FIELDS)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, View):
            return NotImplemented
        return self is other or self._astuple() == other._astuple()

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, View):
            return NotImplemented
        return not (self is other or self._astuple() == other._astuple())

    def __hash__(self) -> int:
        return hash(self._astuple())

    def __repr__(self) -> str:
        parts = ", ".join(f"{k}={v!r}" for k, v in zip(VIEW_FIELDS, self._astuple(), strict=True))
        return f"View({parts})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_view_of, self._astuple())

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(VIEW_FIELDS, self._astuple(), strict=True))

    def _replace(self, **changes: Any) -> View:
        """A complete copy with some parts changed (as the named tuple's ``_replace``)."""
        values = self._asdict()
        for name in changes:
            if name not in values:
                raise ValueError(f"a view has no part {name!r}")
        values.update(changes)
        return _view_of(*values.values())

    # ------------------------------------------------------------------ derived

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def players(self) -> int:
        return self.config.players

    def variety(self, card: int) -> str:
        """Variety key of a visible card (the card table is public)."""
        return self.config.varieties[self.config.card_variety[card]]

    def kind(self, card: int) -> str:
        return self.config.card_kind[card]

    def me(self) -> SeatView:
        """The reader's own public seat part (computed alone while the view is live)."""
        seat = self._seat
        if seat is None:
            raise ValueError("a spectator has no seat")
        if self._todo & _SEATS:
            game = self._game
            assert game is not None
            cache = game._seat_views
            got = cache[seat]
            if got is None:
                got = cache[seat] = seat_view(game, seat)
            return got
        return self._seats[seat]

    def visible_cards(self) -> set[int]:
        """Every card id this view holds, wherever in it: the cards it places
        (:meth:`placed_cards`) and those its pending decision shows (its arguments of a
        card kind; a seat may be shown a card whose place it does not see, as the one a
        decision asks it about). What a seat may see is declared once,
        :meth:`bohnanza.modules.base.Hooks.known_cards`; the invariant checker holds
        every view to it."""
        out = self.placed_cards()
        pending = self.pending
        if pending is not None:
            out.update(pending.cards())
        return out

    def placed_cards(self) -> set[int]:
        """The card ids of this view whose place it shows (a hand, a field, an offer,
        the drawn cards, the top of the discard pile, a module's public pile)."""
        out: set[int] = set(self.hand or ()) | set(self.drawn) | set(self.treasury or ())
        if self.discard_top is not None:
            out.add(self.discard_top)
        for s in self.seats:
            out.update(s.trade_area)
            for f in s.fields:
                out.update(f)
        for o in self.offers:
            out.update(c for c in o.give if c is not None)
        out.update(_ids_in(self.public))
        return out

    def card_json(self, card: int) -> dict[str, Any]:
        out: dict[str, Any] = {"id": card, "variety": self.variety(card)}
        if self.config.card_kind[card]:
            out["kind"] = self.config.card_kind[card]
        return out

    def seats_json(self) -> list[dict[str, Any]]:
        """The seats' public parts as JSON-ready data (the same for every reader, so the
        web server's broadcast encodes them once for all seats)."""
        cj = self.card_json
        return [
            {
                "seat": s.seat,
                "fields": [[cj(c) for c in f] for f in s.fields],
                "coins": s.coins,
                "hand_size": s.hand_size,
                "trade_area": [cj(c) for c in s.trade_area],
                "payouts": list(s.payouts),
            }
            for s in self.seats
        ]

    def to_json(self) -> dict[str, Any]:
        """The view as JSON-ready data; cards as ``{"id", "variety"[, "kind"]}``."""
        cj = self.card_json
        return {
            "seat": self.seat,
            "rules": self.config.rules,
            "players": self.players,
            "phase": self.phase,
            "active": self.active,
            "turn": self.turn,
            "planted": self.planted,
            "runouts": self.runouts,
            "runouts_to_end": self.config.runouts_to_end,
            "final_runout": self.final_runout,
            "draw_size": self.draw_size,
            "discard_size": self.discard_size,
            "discard_top": cj(self.discard_top) if self.discard_top is not None else None,
            "third_fields_left": self.third_fields_left,
            "field_price": self.config.field_price,
            "hand": [cj(c) for c in self.hand] if self.hand is not None else None,
            "treasury": [cj(c) for c in self.treasury] if self.treasury is not None else None,
            "drawn": [cj(c) for c in self.drawn],
            "seats": self.seats_json(),
            "offers": [
                {
                    "offer_id": o.offer_id,
                    "proposer": o.proposer,
                    "to": o.to,
                    "give": [
                        {**sh, **cj(c)} if c is not None else dict(sh)
                        for c, sh in zip(o.give, o.shown, strict=True)
                    ],
                    "want": [list(w) for w in o.want],
                }
                for o in self.offers
            ],
            "pending": self._pending_json(),
            "public": {
                k: [cj(c) for c in v] if isinstance(v, list) else v for k, v in self.public.items()
            },
            "scores": list(self.scores) if self.scores is not None else None,
            "winners": list(self.winners) if self.winners is not None else None,
        }

    def _pending_json(self) -> dict[str, Any] | None:
        """The pending decision as :meth:`Pending.to_json` writes it, with the kind of
        each argument (``kinds``: card, seat, field, offer_id, variety) and the cards it
        is about as cards (``cards``), for a page that shows them."""
        p = self.pending
        if p is None:
            return None
        out = p.to_json()
        out["kinds"] = {name: kind.value for name, kind in p.kinds().items()}
        out["cards"] = [self.card_json(c) for c in p.cards()]
        return out


def _ids_in(public: Mapping[str, Any]) -> list[int]:
    out: list[int] = []
    for v in public.values():
        if isinstance(v, list):
            out += [c for c in v if isinstance(c, int)]
    return out


def seat_view(game: Game, s: int) -> SeatView:
    hooks = game.hooks
    fields = game.fields[s]
    # Plain loops: a comprehension would be a frame of its own, and ``map`` is, compiled,
    # a call through Python's protocol where ``tuple(list)`` is one C call.
    shown: list[tuple[int, ...]] = []
    if hooks._base_payout:  # the base payout inlined: this runs after most actions
        payout = hooks.payout
        cv = hooks.card_variety
        pays = []
        for f in fields:
            shown.append(tuple(f))
            pays.append(payout[cv[f[-1]]][len(f)] if f else 0)
        payouts = tuple(pays)
    else:
        for f in fields:
            shown.append(tuple(f))
        payouts = hooks.seat_payouts(game, s)
    return _new_seat(
        _SEAT_VIEW,
        (
            s,
            tuple(shown),
            len(game.treasury[s]),
            len(game.hands[s]),
            tuple(game.trade[s]),
            payouts,
        ),
    )


#: The public module state of the base game (none), shared by every view: read-only.
EMPTY: FrozenDict[str, Any] = FrozenDict()
_EMPTY: Final = EMPTY
# Named tuples built with tuple.__new__ directly skip a Python-level __new__ frame; the
# field order is the class's (a test compares these against keyword construction).
_new_seat: Final[Callable[[type[SeatView], tuple[Any, ...]], SeatView]] = tuple.__new__
_SEAT_VIEW: Final = SeatView  # compiled: a C static, not a look-up in the module's globals


#: Offer views by (offer id, whether the reader is the proposer): what every other reader
#: sees of an open offer is the same, and it does not change while the offer is open
#: (its cards stay where they were: a card that leaves the drawn cards or a hand closes
#: every offer giving it). Each entry keeps its offer, so that an id reused by a clone
#: that went another way is not mistaken for it.
OfferViews = dict[tuple[int, bool], tuple[Offer, OfferView]]


def _view_of(*values: Any) -> View:
    """A complete view from its values in :data:`VIEW_FIELDS` order (unpickling)."""
    return View(*values)


# ---------------------------------------------------------------------- completing live views
#
# Before the game's next action, every live view someone still holds (an agent that kept
# it, a caller's variable) is completed from the unchanged state; one that nobody holds
# any more is let go, its unread parts never computed - the saving of a lazy view. Who
# holds a view is told by its reference count. How many references the game's own list
# and this loop account for is measured, never assumed: by the very function that
# completes them, for an object held by nothing but the list (interpreted code holds the
# loop's item and the call's argument; compiled code does its own reference counting,
# which is mypyc's business and may change with it). Compiled, the whole check is a C
# loop with one call per view, where an interpreted helper cost a Python call per action.

_refs: Final = sys.getrefcount


def retire(live: list[Any], base: int) -> int:
    """Complete every view of ``live`` with more than ``base`` references as this loop
    sees them, and empty ``live``; returns the count seen for the last one. The game
    calls it before it changes, with ``base`` = :data:`HELD_BASE` (measured so)."""
    count = 0
    for view in live:
        count = _refs(view)
        if count > base:
            view._freeze()
    live.clear()
    return count


#: The references :func:`retire` sees to a view held by nothing but its list: a view
#: with more is held elsewhere.
HELD_BASE: Final = retire([object()], sys.maxsize)


def live_view(game: Game, seat: int | None) -> View:
    """``seat``'s view, computed part by part from ``game`` when read (the caller, the
    game, completes it before it next changes: :meth:`View._freeze`)."""
    if COMPILED:  # a native class: its constructor is a plain C call (its __new__ runs it)
        # The parts after the phase are placeholders, never shown: each part's bit in
        # ``View._todo`` says that it is still to compute.
        e = _EMPTY
        view = View(seat, game.config, game.phase, 0, 0, 0, 0, False, 0, 0, None, 0, None, (), (), (), None, e, None, None, None)  # fmt: skip
    else:  # plain Python: four slots, not a constructor call of 21 arguments
        view = View.__new__(View)
        view._seat = seat
        view._config = game.config
        view._phase = game.phase
    view._game = game
    view._todo = _ALL
    return view


def _seat_views(game: Game, cache: list[SeatView | None]) -> tuple[SeatView, ...]:
    """Every seat's public part, rebuilding only the stale (``None``) slots of ``cache``."""
    if None in cache:
        s = cache.index(None)
        while True:
            cache[s] = seat_view(game, s)
            if None not in cache:
                break
            s = cache.index(None, s)
    return tuple(cache)  # type: ignore[arg-type]


def _offer_views(game: Game, seat: int | None, offer_cache: OfferViews) -> tuple[OfferView, ...]:
    if len(offer_cache) > 2 * len(game.offers) + 64:
        offer_cache.clear()  # closed offers
    got: list[OfferView] = []
    for oid, (p, o) in game.offers.items():
        key = (oid, seat == p)
        entry = offer_cache.get(key)
        if entry is None or entry[0] is not o:
            entry = offer_cache[key] = (o, _offer_view(game, seat, oid, p, o))
        got.append(entry[1])
    return tuple(got)


def make_view(
    game: Game,
    seat: int | None,
    cache: list[SeatView | None] | None = None,
    offer_cache: OfferViews | None = None,
) -> View:
    """Build ``seat``'s complete view. With ``cache`` (one slot per seat, ``None`` =
    stale), public seat parts that did not change since the last view are reused (see
    Game.view); with ``offer_cache``, the views of open offers (:data:`OfferViews`)."""
    hooks = game.hooks
    if cache is None:
        seats = tuple([seat_view(game, s) for s in range(game.players)])
    else:
        seats = _seat_views(game, cache)
    if not game.offers:
        offers: tuple[OfferView, ...] = ()
    elif offer_cache is None:
        offers = tuple([_offer_view(game, seat, oid, p, o) for oid, (p, o) in game.offers.items()])
    else:
        offers = _offer_views(game, seat, offer_cache)
    discard = game.discard
    return View(
        seat,
        game.config,
        game.phase,
        game.active,
        game.turn,
        game.planted,
        game.runouts,
        game.final_runout,
        len(game.draw),
        len(discard),
        discard[-1] if discard else None,
        game.supply,
        tuple(game.hands[seat]) if seat is not None else None,
        tuple(game.drawn),
        seats,
        offers,
        hooks.public_pending(game, seat) if game.pending is not None else None,
        hooks.public_extra(game, seat) if game.extra.public else _EMPTY,
        game.scores,
        game.winners,
        tuple(game.treasury[seat]) if seat is not None and hooks.own_treasury_visible else None,
    )


_new_offer: Final[Callable[[type[OfferView], tuple[Any, ...]], OfferView]] = tuple.__new__


def _offer_view(game: Game, seat: int | None, oid: int, proposer: int, offer: Offer) -> OfferView:
    hooks = game.hooks
    declared = offer.declared or ("",) * len(offer.give)
    give: list[int | None] = []
    shown: list[FrozenDict[str, Any]] = []
    for c, claim in zip(offer.give, declared, strict=True):
        d = claim or None
        if seat == proposer:
            give.append(c)
            shown.append(_claim(d) if d is not None else _EMPTY)
        elif c in game.drawn:
            give.append(c)
            shown.append(_EMPTY)
        else:
            give.append(None)
            shown.append(hooks.shown_card(game, c, d))
    return _new_offer(OfferView, (oid, proposer, offer.to, tuple(give), tuple(shown), offer.want))


_CLAIMS: dict[str, FrozenDict[str, Any]] = {}


def _claim(declared: str) -> FrozenDict[str, Any]:
    """``{"declared": d}``, one read-only instance per claim (views share them)."""
    got = _CLAIMS.get(declared)
    if got is None:
        got = _CLAIMS[declared] = FrozenDict(declared=declared)
    return got


#: The public names (tests/test_public_api.py; CHANGELOG.md says when they change).
__all__ = [
    "VIEW_FIELDS",
    "OfferView",
    "SeatView",
    "View",
    "seat_view",
]
