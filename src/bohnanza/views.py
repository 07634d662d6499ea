"""What one seat may know (R-INFO-1…3), as immutable copies.

Views are named tuples (immutable, and cheap to build: a bot gets one per decision);
their mappings and module piles are read-only (:mod:`bohnanza.frozen`), since one view
part may be shared by several readers.
A :class:`View` is built from the game and then holds no reference to it: nothing private
can be reached from a view object. Card ids appear in a view only for cards its reader
may see (own hand, own treasury where the rule set shows it, fields, trade areas, drawn
cards, the discard pile's top, the cards of one's own offers); a card offered from another
seat's hand appears as what its owner declared about it, without its id (DESIGN-NOTES:
card ids that leak).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from .actions import Offer
from .frozen import FrozenDict
from .rules import GameConfig

if TYPE_CHECKING:
    from .game import Game, Pending


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


class View(NamedTuple):
    """Everything ``seat`` (``None``: a spectator) may know about the game now."""

    seat: int | None
    config: GameConfig
    phase: str
    active: int
    turn: int
    planted: int
    runouts: int
    final_runout: bool
    draw_size: int
    discard_size: int
    discard_top: int | None
    third_fields_left: int
    hand: tuple[int, ...] | None
    drawn: tuple[int, ...]
    seats: tuple[SeatView, ...]
    offers: tuple[OfferView, ...]
    pending: Pending | None
    public: FrozenDict[str, Any]
    scores: tuple[int, ...] | None
    winners: tuple[int, ...] | None
    #: The reader's own treasury, oldest coin first, where the rule set lets a player look
    #: at it (``fasolufka``, R-LADY-10); ``None`` elsewhere and for the spectator. Other
    #: seats' treasuries are only counts (``SeatView.coins``, R-INFO-2).
    treasury: tuple[int, ...] | None = None

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
        if self.seat is None:
            raise ValueError("a spectator has no seat")
        return self.seats[self.seat]

    def visible_cards(self) -> set[int]:
        """Every card id this view holds (for leak checks)."""
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
            "pending": self.pending.to_json() if self.pending is not None else None,
            "public": {
                k: [cj(c) for c in v] if isinstance(v, list) else v for k, v in self.public.items()
            },
            "scores": list(self.scores) if self.scores is not None else None,
            "winners": list(self.winners) if self.winners is not None else None,
        }


def _ids_in(public: Mapping[str, Any]) -> list[int]:
    out: list[int] = []
    for v in public.values():
        if isinstance(v, list):
            out += [c for c in v if isinstance(c, int)]
    return out


def seat_view(game: Game, s: int) -> SeatView:
    hooks = game.hooks
    fields = game.fields[s]
    if hooks._base_payout:  # the base payout inlined: this runs after most actions
        payout = hooks.payout
        cv = hooks.card_variety
        pays = []  # a plain loop: a comprehension would be a frame of its own
        for f in fields:
            pays.append(payout[cv[f[-1]]][len(f)] if f else 0)
        payouts = tuple(pays)
    else:
        payouts = hooks.seat_payouts(game, s)
    return _new_seat(
        SeatView,
        (
            s,
            tuple(map(tuple, fields)),
            len(game.treasury[s]),
            len(game.hands[s]),
            tuple(game.trade[s]),
            payouts,
        ),
    )


#: The public module state of the base game (none), shared by every view: read-only.
EMPTY: FrozenDict[str, Any] = FrozenDict()
_EMPTY = EMPTY
# Named tuples built with tuple.__new__ directly skip a Python-level __new__ frame; the
# field order is the class's (a test compares these against keyword construction).
_new_seat: Callable[[type[SeatView], tuple[Any, ...]], SeatView] = tuple.__new__
_new_view: Callable[[type[View], tuple[Any, ...]], View] = tuple.__new__


#: Offer views by (offer id, whether the reader is the proposer): what every other reader
#: sees of an open offer is the same, and it does not change while the offer is open
#: (its cards stay where they were: a card that leaves the drawn cards or a hand closes
#: every offer giving it). Each entry keeps its offer, so that an id reused by a clone
#: that went another way is not mistaken for it.
OfferViews = dict[tuple[int, bool], tuple[Offer, OfferView]]


def make_view(
    game: Game,
    seat: int | None,
    cache: list[SeatView | None] | None = None,
    offer_cache: OfferViews | None = None,
) -> View:
    """Build ``seat``'s view. With ``cache`` (one slot per seat, ``None`` = stale), public
    seat parts that did not change since the last view are reused (see Game.view); with
    ``offer_cache``, the views of open offers (:data:`OfferViews`)."""
    # Positional construction: this runs once per bot decision, so it is kept lean.
    hooks = game.hooks
    if cache is None:
        seats = tuple([seat_view(game, s) for s in range(game.players)])
    else:
        if None in cache:
            s = cache.index(None)
            while True:
                cache[s] = seat_view(game, s)
                if None not in cache:
                    break
                s = cache.index(None, s)
        seats = tuple(cache)  # type: ignore[arg-type]
    hands = game.hands
    if not game.offers:
        offers: tuple[OfferView, ...] = ()
    elif offer_cache is None:
        offers = tuple([_offer_view(game, seat, oid, p, o) for oid, (p, o) in game.offers.items()])
    else:
        if len(offer_cache) > 2 * len(game.offers) + 64:
            offer_cache.clear()  # closed offers
        got: list[OfferView] = []
        for oid, (p, o) in game.offers.items():
            key = (oid, seat == p)
            entry = offer_cache.get(key)
            if entry is None or entry[0] is not o:
                entry = offer_cache[key] = (o, _offer_view(game, seat, oid, p, o))
            got.append(entry[1])
        offers = tuple(got)
    discard = game.discard
    return _new_view(
        View,
        (
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
            tuple(hands[seat]) if seat is not None else None,
            tuple(game.drawn),
            seats,
            offers,
            hooks.public_pending(game, seat) if game.pending is not None else None,
            hooks.public_extra(game, seat) if game.extra.public else _EMPTY,
            game.scores,
            game.winners,
            tuple(game.treasury[seat]) if seat is not None and hooks.own_treasury_visible else None,
        ),
    )


_new_offer: Callable[[type[OfferView], tuple[Any, ...]], OfferView] = tuple.__new__


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
