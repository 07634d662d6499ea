"""Helpers for the module tests (RULES.md §6–§9).

Games are built from explicit decks of card ids. A deck item is a card id, a variety key
(``"golas"``) or a variety with a kind (``"golas/lady"``, ``"fasolkopajak/red"``); every item
is resolved here to a distinct card id, so that keys never collide with ids named later.

A few tests stage one position directly (a field's content, coins in a treasury); they
*move* cards with :func:`take`, so that every card still lies in exactly one place.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from bohnanza import Action, Game, IllegalAction, Offer, make_config
from bohnanza.rules import GameConfig
from game_helpers import (  # shared with the other test folder; re-exported
    assert_conserved as assert_conserved,
)
from game_helpers import (
    card_ids_in_json as card_ids_in_json,
)
from game_helpers import (
    make_room as make_room,
)
from game_helpers import target_field as fitting_field

Spec = str | int

# ---------------------------------------------------------------------------- cards


def card_ids(cfg: GameConfig | Game, variety: str, kind: str | None = None) -> list[int]:
    """Every card id of ``variety`` (and ``kind``) in the deck, lowest first."""
    config = cfg.config if isinstance(cfg, Game) else cfg
    return [
        i
        for i in range(config.deck_size)
        if config.variety_of(i) == variety and (kind is None or config.card_kind[i] == kind)
    ]


def resolve(config: GameConfig, specs: Sequence[Spec]) -> list[int]:
    """Turn deck items into distinct card ids (explicit ids are reserved first)."""
    used = {s for s in specs if isinstance(s, int)}
    assert len(used) == sum(1 for s in specs if isinstance(s, int)), "a card id is repeated"
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
    fill: Sequence[str] = ("cowboy", "pyromaniac", "fatty", "drunkard"),
    options: dict[str, str] | None = None,
) -> list[int]:
    """Card ids for the given starting hands (front first, seat by seat), padded at the
    back with ``fill`` cards (used in turn), followed by the top of the draw pile."""
    config = make_config(rules, players, options)
    fillers = itertools.cycle(fill)
    specs: list[Spec] = []
    for seat in range(players):
        hand = list(hands[seat]) if seat < len(hands) else []
        size = config.hand_sizes[seat]
        assert len(hand) <= size, f"seat {seat} gets {size} cards, not {len(hand)}"
        specs += hand + [next(fillers) for _ in range(size - len(hand))]
    return resolve(config, specs + list(pile))


def deal(
    rules: str,
    players: int,
    hands: Sequence[Sequence[Spec]] = (),
    pile: Sequence[Spec] = (),
    *,
    fill: Sequence[str] = ("cowboy", "pyromaniac", "fatty", "drunkard"),
    options: dict[str, str] | None = None,
    seed: int = 0,
) -> Game:
    deck = deck_for(rules, players, hands, pile, fill=fill, options=options)
    return Game.new(rules, players, options=options, seed=seed, deck=deck)


def kinds(game: Game, cards: Iterable[int]) -> list[str]:
    return [game.config.card_kind[c] for c in cards]


def names(game: Game, cards: Iterable[int]) -> list[str]:
    return [game.config.variety_of(c) for c in cards]


# ---------------------------------------------------------------------------- staging


def _places(game: Game) -> list[list[int]]:
    places = [game.draw, game.discard, game.out, game.drawn]
    for s in range(game.players):
        places += [game.hands[s], game.treasury[s], game.trade[s], *game.fields[s]]
    for key in ("offer", "revealed"):
        if isinstance(game.extra.get(key), list):
            places.append(game.extra[key])
    return places


def take(game: Game, card: int) -> int:
    """Remove ``card`` from wherever it lies (to move it elsewhere)."""
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
    """Move ``n`` cards from the bottom of the draw pile into a treasury as coins."""
    coins = game.draw[:n]
    del game.draw[:n]
    game.treasury[seat].extend(coins)
    return coins


def shrink_pile(game: Game, keep: int) -> None:
    """Leave only the top ``keep`` cards on the draw pile; the rest leave the game."""
    moved = game.draw[: len(game.draw) - keep]
    del game.draw[: len(game.draw) - keep]
    game.out.extend(moved)


# ---------------------------------------------------------------------------- checking


def assert_illegal(game: Game, seat: int, action: Action, rule: str | None = None) -> str:
    """``action`` is refused (naming ``rule``) and leaves the state exactly as it was."""
    before = game.to_dict()
    with pytest.raises(IllegalAction) as info:
        game.apply(seat, action)
    assert game.to_dict() == before
    assert not game.is_legal(seat, action)
    if rule is not None:
        assert rule in str(info.value), f"{rule} not named in: {info.value}"
    return str(info.value)


def dumps(data: Any) -> str:
    return json.dumps(data, sort_keys=True)


# ---------------------------------------------------------------------------- scripted moves


def plant(game: Game, *targets: int) -> None:
    """Phase 1 for the active seat: plant the front card on each field in turn, and stop
    after one if only one target is given."""
    a = game.active
    for f in targets:
        game.apply(a, Action.plant(f))
    if game.phase == "plant" and game.planted == 1 and game.active == a:
        game.apply(a, Action.stop_planting())


def propose(game: Game, seat: int, offer: Offer) -> int:
    """Open an offer; returns its id."""
    game.apply(seat, Action.propose(offer))
    return max(game.offers)


def gift(game: Game, seat: int, to: int, cards: Sequence[int], declared: Sequence[str] = ()):
    """``seat`` gives ``cards`` to ``to``, who accepts; returns the accept's events."""
    oid = propose(game, seat, Offer(to, tuple(cards), (), tuple(declared)))
    return game.apply(to, Action.accept(oid, ()))


def plant_card_somewhere(game: Game, seat: int, card: int, how) -> None:
    """Plant ``card`` with ``how(field)`` where it fits, harvesting first if needed; any
    lady move it causes is declined."""
    f = fitting_field(game, seat, card)
    if f is None:
        make_room(game, seat)
        f = fitting_field(game, seat, card)
    assert f is not None
    game.apply(seat, how(f))
    decline_lady_moves(game)


def decline_lady_moves(game: Game) -> None:
    while game.pending is not None and game.pending[1] == "move_lady":
        game.apply(game.pending[0], Action.move_lady(None))


def pass_turn(game: Game) -> None:
    """Play the active seat's turn without trading (base turn structure)."""
    turn = game.turn
    a = game.active
    if game.phase == "plant" and game.hands[a]:
        plant_card_somewhere(game, a, game.hands[a][0], Action.plant)
        if game.phase == "plant" and game.active == a and game.turn == turn:
            game.apply(a, Action.stop_planting())
    if game.phase == "trade" and not game.over:
        game.apply(a, Action.end_trading())
    n = game.players
    for seat in [(a + i) % n for i in range(n)]:
        while game.phase == "plant_traded" and game.turn == turn and game.trade[seat]:
            card = game.trade[seat][0]
            plant_card_somewhere(game, seat, card, lambda f, c=card: Action.plant_traded(c, f))
    assert game.over or game.turn == turn + 1
