"""Helpers shared by the rule tests (tests/rules) and the module tests (tests/modules).

Importable as ``game_helpers`` because pytest puts ``tests/`` on the path
(``pythonpath`` in pyproject.toml).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from bohnanza import Action, Game


def assert_conserved(game: Game) -> None:
    """Every card is in exactly one place (RULES.md §2b)."""
    places = game.all_card_locations()
    counts = Counter(places)
    missing = sorted(set(range(game.config.deck_size)) - set(counts))
    twice = sorted(c for c, n in counts.items() if n > 1)
    assert not missing and not twice, f"cards lost: {missing}, cards in two places: {twice}"
    assert len(places) == game.config.deck_size


def card_ids_in_json(data: Any) -> set[int]:
    """Every card id that a view's JSON shows: the ``id`` of each card object."""
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


def target_field(game: Game, seat: int, card: int) -> int | None:
    """A field that takes ``card``: one of its variety first, else an empty one."""
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
    """Harvest the biggest field the protection rule allows."""
    choices = [i for i, f in enumerate(game.fields[seat]) if f]
    choices.sort(key=lambda i: -len(game.fields[seat][i]))
    for i in choices:
        if game.is_legal(seat, Action.harvest(i)):
            game.apply(seat, Action.harvest(i))
            return
    raise AssertionError(f"seat {seat} cannot harvest: {game.fields[seat]}")
