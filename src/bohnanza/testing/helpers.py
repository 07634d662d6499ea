"""Helpers for tests that build a position and play scripted moves.

Used by the engine's own rule and module tests, and meant for whoever writes a module or a
bot: set a game up with known hands and a known draw pile (:func:`deal`), read it back by
variety names (:func:`hand`, :func:`fields`, …), play the usual moves (:func:`plant`,
:func:`pass_turn`, :func:`gift`, …) and check that a refused action names its rule and
changes nothing (:func:`assert_illegal`) and that no card was lost (:func:`assert_conserved`).

Deck items (``hands``, ``pile``) are card ids, variety keys (``"blue"``) or a variety with a
kind (``"golas/lady"``, ``"fasolkopajak/red"``); :func:`resolve` turns them into distinct
card ids, the lowest free id of each variety, as :meth:`Game.new` would.

Situations are built from real deals and real actions. A few tests stage a position
directly (a field's content, coins in a treasury, a short draw pile): the staging helpers
(:func:`take`, :func:`stage_field`, :func:`give_coins`, :func:`put_on_field`,
:func:`shrink_pile`) *move* cards, so that every card still lies in exactly one place.

Nothing here depends on pytest: failures are plain ``AssertionError``.
"""

from __future__ import annotations

import functools
import itertools
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from ..actions import Action, ActionType, Offer, shape_of
from ..errors import IllegalAction
from ..events import Event
from ..game import OVER, PLANT, PLANT_TRADED, TRADE, Game
from ..rules import GameConfig, make_config

__all__ = [
    "FASOLKI_FILL",
    "OVER",
    "PLANT",
    "PLANT_TRADED",
    "TRADE",
    "Spec",
    "apply_all",
    "assert_conserved",
    "assert_illegal",
    "card_ids",
    "card_ids_in_json",
    "coins",
    "deal",
    "deck_for",
    "decline_lady_moves",
    "decline_pending",
    "drawn",
    "dumps",
    "event_types",
    "fields",
    "find",
    "finish_turn",
    "gift",
    "give_coins",
    "hand",
    "kinds",
    "make_room",
    "names",
    "pass_turn",
    "pile_top",
    "plant",
    "plant_anywhere",
    "plant_trade_areas",
    "propose",
    "put_on_field",
    "resolve",
    "shrink_pile",
    "stage_field",
    "take",
    "target_field",
    "trade_area",
]

#: A deck item: a card id, a variety key, or ``"variety/kind"``.
Spec = str | int

#: Fasolki varieties that no test hand names, handy as ``fill`` for the module tests.
FASOLKI_FILL = ("cowboy", "pyromaniac", "fatty", "drunkard")

# ---------------------------------------------------------------------------- creating games


def card_ids(cfg: GameConfig | Game, variety: str, kind: str | None = None) -> list[int]:
    """Every card id of ``variety`` (and of ``kind``, if given) in the deck, lowest first."""
    config = cfg.config if isinstance(cfg, Game) else cfg
    v = config.variety_index(variety)
    return [
        i
        for i in range(config.deck_size)
        if config.card_variety[i] == v and (kind is None or config.card_kind[i] == kind)
    ]


def resolve(config: GameConfig, specs: Sequence[Spec]) -> list[int]:
    """Turn deck items into distinct card ids: explicit ids are reserved first, then each
    variety (or ``variety/kind``) takes its lowest free id, in order."""
    ids = [s for s in specs if isinstance(s, int)]
    assert len(set(ids)) == len(ids), "a card id is repeated"
    used = set(ids)
    out: list[int] = []
    for s in specs:
        if isinstance(s, int):
            out.append(s)
            continue
        variety, _, kind = s.partition("/")
        free = [c for c in card_ids(config, variety, kind or None) if c not in used]
        assert free, f"no {s!r} card left in {config.rules}"
        used.add(free[0])
        out.append(free[0])
    return out


def deck_for(
    rules: str,
    players: int,
    hands: Sequence[Sequence[Spec]] = (),
    pile: Sequence[Spec] = (),
    *,
    fill: str | Sequence[str] | None = None,
    fill_all: bool = False,
    options: Mapping[str, str] | None = None,
) -> list[int]:
    """The card ids of the starting hands (front first, seat by seat) followed by the top
    of the draw pile (top first); the rest of the deck follows in shuffled order.

    A hand shorter than its seat's hand size is padded at the back with ``fill`` (a
    variety, or several used in turn); without ``fill`` every given hand must be complete.
    Seats after the last given hand are dealt from the shuffle, unless a ``pile`` is given
    or ``fill_all`` is set: then every seat's hand is fixed (padded with ``fill``), so that
    the pile starts right after the hands and no seat gets a card the test did not choose.
    """
    config = make_config(rules, players, dict(options) if options is not None else None)
    fillers = itertools.cycle([fill] if isinstance(fill, str) else list(fill or ()))
    specs: list[Spec] = []
    last = players if pile or fill_all else len(hands)
    for seat in range(last):
        cards = list(hands[seat]) if seat < len(hands) else []
        size = config.hand_sizes[seat]
        assert len(cards) <= size, f"seat {seat} gets {size} cards, not {len(cards)}"
        if len(cards) < size:
            assert fill, f"seat {seat}'s hand is short and no fill is given"
            cards += [next(fillers) for _ in range(size - len(cards))]
        specs += cards
    return resolve(config, specs + list(pile))


def deal(
    rules: str = "classic",
    players: int = 4,
    hands: Sequence[Sequence[Spec]] = (),
    pile: Sequence[Spec] = (),
    *,
    fill: str | Sequence[str] | None = None,
    fill_all: bool = False,
    seed: int = 0,
    options: Mapping[str, str] | None = None,
    fields: Mapping[int, Sequence[Sequence[Spec]]] | None = None,
) -> Game:
    """A new game whose hands and draw pile start as given (see :func:`deck_for`); the
    rest of the deck is shuffled by ``seed``.

    ``fields`` stages planted fields at the start: ``{seat: [field 0 cards, field 1
    cards, ...]}``, bottom first, in the same card notation. Those cards are chosen after
    the hands and the pile, dealt just below the pile and then moved onto the fields (as
    :func:`stage_field` does), so every card still lies in exactly one place and the draw
    pile reads ``pile`` then the shuffled rest. A staged position is not one real play can
    reach in every case (a field of another seat's variety, a field on a field not yet
    bought): stage only what the test needs.
    """
    staged = [
        (seat, f, list(cards))
        for seat, seat_fields in sorted((fields or {}).items())
        for f, cards in enumerate(seat_fields)
        if cards
    ]
    below = [c for _, _, cards in staged for c in cards]
    deck = deck_for(
        rules,
        players,
        hands,
        [*pile, *below],
        fill=fill,
        fill_all=fill_all,
        options=options,
    )
    opts = dict(options) if options is not None else None
    game = Game.new(rules, players, options=opts, seed=seed, deck=deck)
    at = len(deck) - len(below)
    for seat, f, cards in staged:
        assert f < len(game.fields[seat]), f"seat {seat} has no field {f}"
        stage_field(game, seat, f, deck[at : at + len(cards)])
        at += len(cards)
    return game


def apply_all(game: Game, moves: Iterable[tuple[int, Action]]) -> list[Event]:
    """Apply each ``(seat, action)`` in turn (as a record lists them); returns all their
    events. The first refused action raises, naming its place in ``moves``."""
    events: list[Event] = []
    for i, (seat, action) in enumerate(moves):
        try:
            events += game.apply(seat, action)
        except IllegalAction as err:
            raise AssertionError(f"move #{i} ({action!r} by seat {seat}) refused: {err}") from err
    return events


# ---------------------------------------------------------------------------- reading state


def names(game: Game, cards: Iterable[int]) -> list[str]:
    """Variety keys of ``cards``, in order."""
    return [game.config.variety_of(c) for c in cards]


def kinds(game: Game, cards: Iterable[int]) -> list[str]:
    """Kinds of ``cards`` (a module's card kinds; ``""`` for a plain card), in order."""
    return [game.config.card_kind[c] for c in cards]


def hand(game: Game, seat: int) -> list[str]:
    """The varieties in ``seat``'s hand, front first."""
    return names(game, game.hands[seat])


def fields(game: Game, seat: int) -> list[list[str]]:
    """The varieties on each of ``seat``'s fields, bottom first."""
    return [names(game, f) for f in game.fields[seat]]


def trade_area(game: Game, seat: int) -> list[str]:
    """The varieties in ``seat``'s trade area (cards to plant in phase 3)."""
    return names(game, game.trade[seat])


def drawn(game: Game) -> list[str]:
    """The varieties of the two cards turned over in phase 2."""
    return names(game, game.drawn)


def pile_top(game: Game, n: int) -> list[str]:
    """The top ``n`` cards of the draw pile, top first."""
    return names(game, reversed(game.draw[-n:])) if n else []


def coins(game: Game, seat: int) -> int:
    """How many coins ``seat`` has (cards in its treasury)."""
    return len(game.treasury[seat])


def find(
    game: Game,
    seat: int,
    variety: str,
    where: Literal["hand", "trade", "drawn"] = "hand",
    nth: int = 0,
) -> int:
    """The id of the ``nth`` card of ``variety`` in ``seat``'s hand (or its trade area,
    or the drawn cards)."""
    pool = {"hand": game.hands[seat], "trade": game.trade[seat], "drawn": game.drawn}[where]
    found = [c for c in pool if game.config.variety_of(c) == variety]
    assert len(found) > nth, f"no {variety} #{nth} in seat {seat}'s {where}: {names(game, pool)}"
    return found[nth]


def event_types(events: Iterable[Event]) -> list[str]:
    """The ``type`` of each event, in order."""
    return [e.type for e in events]


def dumps(data: Any) -> str:
    """Canonical JSON (sorted keys), to compare or search JSON forms as text."""
    return json.dumps(data, sort_keys=True)


def card_ids_in_json(data: Any) -> set[int]:
    """Every card id that a view's (or an event's) JSON shows: the ``id`` of each card
    object (a dict with ``id`` and ``variety``)."""
    found: set[int] = set()
    if isinstance(data, dict):
        if "id" in data and "variety" in data and isinstance(data["id"], int):
            found.add(data["id"])
        for v in data.values():
            found |= card_ids_in_json(v)
    elif isinstance(data, list | tuple):
        for v in data:
            found |= card_ids_in_json(v)
    return found


# ---------------------------------------------------------------------------- checking


def assert_conserved(game: Game) -> None:
    """Every card is in exactly one place (RULES.md §2b)."""
    places = game.all_card_locations()
    counts = Counter(places)
    missing = sorted(set(range(game.config.deck_size)) - set(counts))
    twice = sorted(c for c, n in counts.items() if n > 1)
    assert not missing and not twice, f"cards lost: {missing}, cards in two places: {twice}"
    assert len(places) == game.config.deck_size


def assert_illegal(
    game: Game,
    seat: int,
    action: Action,
    rule: str | None = None,
    *,
    exc: type[IllegalAction] = IllegalAction,
) -> IllegalAction:
    """``action`` by ``seat`` is refused with ``exc`` (its message naming ``rule``, if
    given), :meth:`Game.is_legal` agrees, and the state is exactly as it was. Returns the
    error, for further checks of its message or fields."""
    before = game.to_dict()
    try:
        game.apply(seat, action)
    except IllegalAction as err:
        assert isinstance(err, exc), f"{type(err).__name__} raised, not {exc.__name__}: {err}"
        error = err
    else:
        raise AssertionError(f"{action!r} by seat {seat} was accepted")
    assert game.to_dict() == before, "a refused action changed the state"
    assert not game.is_legal(seat, action)
    if rule is not None:
        assert rule in str(error), f"{rule} not named in: {error}"
    return error


# ---------------------------------------------------------------------------- staging


def _places(game: Game) -> list[list[int]]:
    places = [game.draw, game.discard, game.out, game.drawn]
    for s in range(game.players):
        places += [game.hands[s], game.treasury[s], game.trade[s], *game.fields[s]]
    places += game.hooks.table_piles(game)  # a module's own piles (the duel's)
    return places


def take(game: Game, card: int) -> int:
    """Remove ``card`` from wherever it lies (to put it elsewhere); returns it."""
    for place in _places(game):
        if card in place:
            place.remove(card)
            return card
    raise AssertionError(f"card {card} is nowhere")


def stage_field(game: Game, seat: int, field: int, cards: Sequence[int]) -> None:
    """Move ``cards`` onto a field, bottom first (only to stage a position)."""
    for c in cards:
        game.fields[seat][field].append(take(game, c))


def give_coins(game: Game, seat: int, n: int) -> list[int]:
    """Move ``n`` cards from the bottom of the draw pile into ``seat``'s treasury."""
    moved = game.draw[:n]
    del game.draw[:n]
    game.treasury[seat].extend(moved)
    return moved


def put_on_field(game: Game, seat: int, field: int, variety: str, n: int) -> list[int]:
    """Move ``n`` cards of ``variety`` from the draw pile onto a field (for payout tables,
    where only the field's content matters)."""
    v = game.config.variety_index(variety)
    cards = [c for c in game.draw if game.config.card_variety[c] == v][:n]
    assert len(cards) == n, f"only {len(cards)} {variety} left in the draw pile"
    for c in cards:
        game.draw.remove(c)
    game.fields[seat][field].extend(cards)
    return cards


def shrink_pile(game: Game, keep: int, to: Literal["discard", "out"] = "discard") -> list[int]:
    """Leave only the top ``keep`` cards on the draw pile; the others go to the bottom of
    the discard pile (``to="discard"``: they come back at the next reshuffle) or out of the
    game (``to="out"``). Used to reach a run-out without 100 turns; returns the moved cards."""
    moved = game.draw[: len(game.draw) - keep]
    del game.draw[: len(game.draw) - keep]
    if to == "discard":
        game.discard[:0] = moved
    else:
        assert to == "out", to
        game.out.extend(moved)
    return moved


# ---------------------------------------------------------------------------- scripted moves


def target_field(game: Game, seat: int, card: int) -> int | None:
    """A field of ``seat`` that takes ``card``: one of its variety first, else an empty
    one; ``None`` if every field holds another variety."""
    v = game.config.card_variety[card]
    fs = game.fields[seat]
    for i, f in enumerate(fs):
        if f and game.config.card_variety[f[-1]] == v:
            return i
    for i, f in enumerate(fs):
        if not f:
            return i
    return None


def make_room(game: Game, seat: int) -> None:
    """Harvest the biggest field of ``seat`` that the protection rule allows (R-HARV-3)."""
    choices = [i for i, f in enumerate(game.fields[seat]) if f]
    choices.sort(key=lambda i: -len(game.fields[seat][i]))
    for i in choices:
        if game.is_legal(seat, Action.harvest(i)):
            game.apply(seat, Action.harvest(i))
            return
    raise AssertionError(f"seat {seat} cannot harvest: {game.fields[seat]}")


def decline_pending(game: Game) -> None:
    """Answer "no" to every pending decision that may be declined: one answered by the
    action of its kind whose every argument may be None (a lady move after a child in
    Fasolufka, R-LADY-8). Others stay pending."""
    while game.pending is not None:
        try:
            shape = shape_of(game.pending.kind)
        except KeyError:
            return
        if not shape.params or not all(p.optional for p in shape.params):
            return
        game.apply(game.pending.seat, Action(ActionType(shape.type)))


#: The former name (the only declinable decision then was a lady move).
decline_lady_moves = decline_pending


def plant_anywhere(
    game: Game, seat: int, card: int, how: Callable[[int], Action] = Action.plant
) -> None:
    """Plant ``card`` with the action ``how(field)`` where it fits, harvesting the biggest
    allowed field first if none does; any lady move it causes is declined."""
    f = target_field(game, seat, card)
    if f is None:
        make_room(game, seat)
        f = target_field(game, seat, card)
    assert f is not None
    game.apply(seat, how(f))
    decline_pending(game)


def plant(game: Game, *targets: int) -> None:
    """Phase 1 for the active seat: plant the front card on each target field in turn,
    then stop if only one was planted (R-PLANT-1, R-PLANT-2)."""
    a = game.active
    for f in targets:
        game.apply(a, Action.plant(f))
    if game.phase == PLANT and game.planted == 1 and game.active == a:
        game.apply(a, Action.stop_planting())


def _plant_traded(card: int, field: int) -> Action:
    return Action.plant_traded(card, field)


def plant_trade_areas(game: Game, order: Sequence[int] | None = None) -> None:
    """Phase 3: every seat plants its whole trade area, in area order (R-PLANT-4), the
    seats in ``order`` (default: the active seat first, then clockwise)."""
    n = game.players
    seats = list(order) if order is not None else [(game.active + i) % n for i in range(n)]
    turn = game.turn
    for seat in seats:
        while game.phase == PLANT_TRADED and game.turn == turn and game.trade[seat]:
            card = game.trade[seat][0]
            plant_anywhere(game, seat, card, functools.partial(_plant_traded, card))


def finish_turn(game: Game) -> None:
    """End trading and plant every trade area; phase 4 and the next turn follow."""
    if game.phase == TRADE and not game.over:
        game.apply(game.active, Action.end_trading())
    if game.phase == PLANT_TRADED:
        plant_trade_areas(game)


def pass_turn(game: Game) -> None:
    """Play the active seat's whole turn without trading: plant one card where it fits,
    keep the drawn cards, plant every trade area."""
    turn = game.turn
    a = game.active
    if game.phase == PLANT and game.hands[a]:
        plant_anywhere(game, a, game.hands[a][0])
        if game.phase == PLANT and game.active == a and game.turn == turn:
            game.apply(a, Action.stop_planting())
    finish_turn(game)
    assert game.over or game.turn == turn + 1


def propose(game: Game, seat: int, offer: Offer) -> int:
    """``seat`` opens ``offer``; returns its id."""
    game.apply(seat, Action.propose(offer))
    return max(game.offers)


def gift(
    game: Game, seat: int, to: int, cards: Sequence[int], declared: Sequence[str] = ()
) -> list[Event]:
    """``seat`` gives ``cards`` to ``to``, who accepts; returns the accept's events."""
    oid = propose(game, seat, Offer(to, tuple(cards), (), tuple(declared)))
    return game.apply(to, Action.accept(oid, ()))
