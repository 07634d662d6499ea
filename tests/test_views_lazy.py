"""Lazy views (issue 34): a view's parts are computed when read, with the values, the
immutability and the leak guarantees of a view built whole."""

from __future__ import annotations

import pickle
import random

import pytest

from bohnanza.actions import Action
from bohnanza.game import Game
from bohnanza.testing.checker import _find_reference, _state_containers
from bohnanza.views import HELD_BASE, VIEW_FIELDS, View, live_view, make_view, retire

RULE_SETS = [
    ("classic", 4),
    ("fasolki+duel", 2),
    ("fasolki+fasolufka", 3),
    ("fasolki+new-varieties", 3),
    ("fasolki+fasolkopajaki", 3),
]


def _random_actions(game: Game, rng: random.Random, steps: int) -> list[tuple[int, Action]]:
    done = []
    for _ in range(steps):
        if game.over:
            break
        seat = rng.choice(game.waiting_for())
        legal = game.legal_actions(seat)
        if not legal:
            break
        action = rng.choice(legal)
        game.apply(seat, action)
        done.append((seat, action))
    return done


@pytest.mark.parametrize(("rules", "players"), RULE_SETS)
def test_a_held_live_view_keeps_the_values_of_its_moment(rules: str, players: int) -> None:
    """A live view held across the game's next action shows what a whole view built at
    its moment shows, part by part, however little of it was read before the action;
    then it is complete and holds no game."""
    rng = random.Random(7)
    game = Game.new(rules, players, seed=11)
    for step in range(300):
        if game.over:
            break
        seat = rng.choice(game.waiting_for())
        viewers = [seat, None, (seat + 1) % players]
        whole = [make_view(game, k) for k in viewers]
        live = [game.view(k, cached=True) for k in viewers]
        # Read a varying few parts before the game moves on (none, one, the own seat).
        if step % 3 == 1:
            assert live[0].hand == whole[0].hand
        if step % 3 == 2:
            assert live[0].me() == whole[0].me()
        legal = game.legal_actions(seat)
        if not legal:
            break
        game.apply(seat, rng.choice(legal))
        for w, v in zip(whole, live, strict=True):
            assert v._game is None  # completed before the action, the game let go
            for name in VIEW_FIELDS:
                assert getattr(v, name) == getattr(w, name), (step, name)
            assert v == w and hash(v) == hash(w) and tuple(v) == tuple(w)


def test_a_live_view_nobody_holds_is_let_go_without_computing() -> None:
    game = Game.new("classic", 4, seed=3)
    seat = game.waiting_for()[0]
    game.view(seat, cached=True)  # dropped at once
    kept = game.view(seat, cached=True)
    assert len(game._live_views) == 2
    game.apply(seat, game.legal_actions(seat)[0])
    assert game._live_views == []
    assert kept._game is None and kept._todo == 0


def test_a_live_view_is_a_value_like_the_named_tuple_was() -> None:
    game = Game.new("fasolki+duel", 2, seed=3)
    _random_actions(game, random.Random(1), 40)
    seat = game.waiting_for()[0]
    live, whole = game.view(seat, cached=True), game.view(seat)
    assert type(live) is View and live == whole
    assert (live != whole) is False
    assert hash(live) == hash(whole) and repr(live) == repr(whole)
    assert pickle.loads(pickle.dumps(game.view(seat, cached=True))) == whole
    assert live._asdict() == dict(zip(VIEW_FIELDS, whole, strict=True))
    changed = game.view(seat, cached=True)._replace(turn=99, seats=())
    assert changed.turn == 99 and changed.seats == () and changed.hand == whole.hand
    with pytest.raises(ValueError, match="no part"):
        whole._replace(nothing=1)
    assert live != whole._replace(turn=whole.turn + 1)
    assert View(*tuple(whole)) == whole  # built from its parts, in field order
    assert live.to_json() == whole.to_json()
    assert live.visible_cards() == whole.visible_cards()


@pytest.mark.parametrize("name", VIEW_FIELDS)
def test_a_view_part_cannot_be_replaced(name: str) -> None:
    game = Game.new("classic", 3, seed=5)
    for view in (game.view(0, cached=True), game.view(0)):
        with pytest.raises(AttributeError):
            setattr(view, name, None)


def test_a_complete_cached_view_reaches_nothing_of_the_state() -> None:
    """The checker's reference search looks into a view's parts and its game link: a
    live view reaches the game (until completed), a complete one nothing of it."""
    game = Game.new("fasolki+fasolufka", 3, seed=2)
    _random_actions(game, random.Random(4), 60)
    seat = game.waiting_for()[0]
    view = game.view(seat, cached=True)
    found = _find_reference(view, _state_containers(game))
    assert found is not None and "live view" in found
    view._freeze()
    assert _find_reference(view, _state_containers(game)) is None
    assert view == game.view(seat)


def test_the_own_seat_alone_matches_the_whole_seats() -> None:
    game = Game.new("classic", 4, seed=9)
    rng = random.Random(2)
    for _ in range(80):
        seat = game.waiting_for()[0]
        me = game.view(seat, cached=True).me()
        assert me == make_view(game, seat).seats[seat]
        assert game.view(seat, cached=True).seats == make_view(game, seat).seats
        _random_actions(game, rng, 1)
    with pytest.raises(ValueError, match="spectator"):
        game.view(None, cached=True).me()


def test_only_a_view_held_elsewhere_is_completed() -> None:
    """The reference count that tells a held view from one let go is measured by the
    function that completes them (compiled or not): a view held by the list alone is seen
    with exactly that count and left as it is; one more holder, and it is completed."""
    game = Game.new("classic", 4, seed=3)
    seat = game.waiting_for()[0]
    assert retire([live_view(game, seat)], HELD_BASE) == HELD_BASE
    held, live = live_view(game, seat), [live_view(game, seat)]
    live.append(held)
    assert retire(live, HELD_BASE) == HELD_BASE + 1
    assert live == [] and held._todo == 0 and held._game is None
    assert held == make_view(game, seat)
