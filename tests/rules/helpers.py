"""Helpers for the rule tests: explicit decks, readable state, a few scripted moves.

Every test builds its situation from an explicit card order (``deal``) and real actions.
A few end-of-game tests also shorten the draw pile (``shrink_pile``) to reach a run-out
quickly; they move the cards elsewhere, so that every card still lies in exactly one place.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from bohnanza import Action, Game, IllegalAction, make_config
from game_helpers import (  # shared with the other test folder; re-exported
    assert_conserved as assert_conserved,
)
from game_helpers import (
    card_ids_in_json as card_ids_in_json,
)
from game_helpers import (
    make_room as make_room,
)
from game_helpers import (
    target_field as target_field,
)

PLANT = "plant"
TRADE = "trade"
PLANT_TRADED = "plant_traded"
OVER = "over"


# ---------------------------------------------------------------------------- creating games


def deck_for(
    rules: str,
    players: int,
    hands: Sequence[Sequence[str | int]] = (),
    pile: Sequence[str | int] = (),
    *,
    fill: str | Sequence[str] | None = None,
    options: dict[str, str] | None = None,
) -> list[str | int]:
    """The explicit deck order for the given starting hands (front first, seat by seat)
    followed by the top of the draw pile (top first).

    Hands shorter than the seat's hand size are padded at the back with ``fill`` (a
    variety, or several used in turn).
    """
    config = make_config(rules, players, options)
    fillers = itertools.cycle([fill] if isinstance(fill, str) else list(fill or ()))
    deck: list[str | int] = []
    last = players if pile else len(hands)
    for seat in range(last):
        hand = list(hands[seat]) if seat < len(hands) else []
        size = config.hand_sizes[seat]
        assert len(hand) <= size, f"seat {seat} gets {size} cards, not {len(hand)}"
        if len(hand) < size:
            assert fill is not None, f"seat {seat}'s hand is short and no fill is given"
            hand += [next(fillers) for _ in range(size - len(hand))]
        deck += hand
    return deck + list(pile)


def deal(
    rules: str = "classic",
    players: int = 4,
    hands: Sequence[Sequence[str | int]] = (),
    pile: Sequence[str | int] = (),
    *,
    fill: str | Sequence[str] | None = None,
    seed: int = 0,
    options: dict[str, str] | None = None,
) -> Game:
    """A new game whose hands and draw pile start as given (see :func:`deck_for`)."""
    deck = deck_for(rules, players, hands, pile, fill=fill, options=options)
    return Game.new(rules, players, options=options, seed=seed, deck=deck)


# ---------------------------------------------------------------------------- reading state


def names(game: Game, cards: Iterable[int]) -> list[str]:
    """Variety keys of ``cards``, in order."""
    return [game.config.variety_of(c) for c in cards]


def hand(game: Game, seat: int) -> list[str]:
    return names(game, game.hands[seat])


def fields(game: Game, seat: int) -> list[list[str]]:
    return [names(game, f) for f in game.fields[seat]]


def trade_area(game: Game, seat: int) -> list[str]:
    return names(game, game.trade[seat])


def drawn(game: Game) -> list[str]:
    return names(game, game.drawn)


def pile_top(game: Game, n: int) -> list[str]:
    """The top ``n`` cards of the draw pile, top first."""
    return names(game, reversed(game.draw[-n:])) if n else []


def coins(game: Game, seat: int) -> int:
    return len(game.treasury[seat])


def find(game: Game, seat: int, variety: str, where: str = "hand", nth: int = 0) -> int:
    """The id of the ``nth`` card of ``variety`` in a seat's hand (or ``trade``, or the
    ``drawn`` cards)."""
    pool = {
        "hand": game.hands[seat],
        "trade": game.trade[seat],
        "drawn": game.drawn,
    }[where]
    found = [c for c in pool if game.config.variety_of(c) == variety]
    assert len(found) > nth, f"no {variety} #{nth} in seat {seat}'s {where}: {names(game, pool)}"
    return found[nth]


def assert_illegal(
    game: Game,
    seat: int,
    action: Action,
    exc: type[IllegalAction] = IllegalAction,
    rule: str | None = None,
) -> IllegalAction:
    """``action`` is refused with ``exc`` (naming ``rule``) and changes nothing."""
    before = game.to_dict()
    with pytest.raises(exc) as info:
        game.apply(seat, action)
    assert game.to_dict() == before
    assert not game.is_legal(seat, action)
    if rule is not None:
        assert rule in str(info.value), f"{rule} not named in: {info.value}"
    return info.value


# ---------------------------------------------------------------------------- scripted moves


def plant(game: Game, *targets: int) -> None:
    """Phase 1 for the active seat: plant the front card on each target field in turn,
    then stop if only one was planted (R-PLANT-1, R-PLANT-2)."""
    a = game.active
    for f in targets:
        game.apply(a, Action.plant(f))
    if game.phase == PLANT and game.planted == 1:
        game.apply(a, Action.stop_planting())


def plant_front_anywhere(game: Game) -> None:
    """Phase 1: plant the active seat's front card where it fits (harvesting if needed)."""
    a = game.active
    card = game.hands[a][0]
    f = target_field(game, a, card)
    if f is None:
        make_room(game, a)
        f = target_field(game, a, card)
    assert f is not None
    game.apply(a, Action.plant(f))


def plant_trade_areas(game: Game, order: Sequence[int] | None = None) -> None:
    """Phase 3: every seat plants its whole trade area, in area order (R-PLANT-4)."""
    n = game.players
    seats = list(order) if order is not None else [(game.active + i) % n for i in range(n)]
    turn = game.turn
    for seat in seats:
        while game.phase == PLANT_TRADED and game.turn == turn and game.trade[seat]:
            card = game.trade[seat][0]
            f = target_field(game, seat, card)
            if f is None:
                make_room(game, seat)
                f = target_field(game, seat, card)
            assert f is not None
            game.apply(seat, Action.plant_traded(card, f))


def finish_turn(game: Game) -> None:
    """End trading and plant every trade area; phase 4 and the next turn follow."""
    if game.phase == TRADE:
        game.apply(game.active, Action.end_trading())
    if game.phase == PLANT_TRADED:
        plant_trade_areas(game)


def pass_turn(game: Game) -> None:
    """Play the active seat's whole turn without trading: plant one card, keep the drawn
    cards, plant every trade area."""
    turn = game.turn
    if game.phase == PLANT and game.hands[game.active]:
        plant_front_anywhere(game)
        if game.phase == PLANT:
            game.apply(game.active, Action.stop_planting())
    finish_turn(game)
    assert game.over or game.turn == turn + 1


def shrink_pile(game: Game, keep: int, to: str = "discard") -> list[int]:
    """Leave only the top ``keep`` cards on the draw pile; the others go to the bottom of
    the discard pile (``to="discard"``), or out of the game (``to="out"``), so that every
    card stays in exactly one place. Used only to reach a run-out without 100 turns."""
    moved = game.draw[: len(game.draw) - keep]
    del game.draw[: len(game.draw) - keep]
    if to == "discard":
        game.discard[:0] = moved
    else:
        assert to == "out"
        game.out.extend(moved)
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


def event_types(events: Iterable[Any]) -> list[str]:
    return [e.type for e in events]
