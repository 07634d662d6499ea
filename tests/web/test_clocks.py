"""The clocks' bookkeeping (web/clocks.py) on real games with made-up time."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza.game import TRADE, Game
from bohnanza.web.clocks import PRESETS, Clocks, ClockSpec, parse_clock


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.lists(st.floats(0, 5), min_size=1, max_size=150))
def test_banks_run_only_while_the_game_waits_for_that_person(seed: int, gaps: list[float]) -> None:
    game = Game.new("classic", 4, seed=seed)
    people = frozenset({0, 2})
    clocks = Clocks.new(ClockSpec(6.0, 2.0, 30), 4, people)
    rng = random.Random(seed)
    now = 0.0
    clocks.update(game, now)
    for gap in gaps:
        if game.over:
            break
        before = list(clocks.banks)
        running = dict(clocks.running)
        turn = game.turn
        now += gap
        seat = rng.choice(game.waiting_for())
        game.apply(seat, rng.choice(game.legal_actions(seat, offers=False)))
        notes = clocks.update(game, now)
        for s in range(4):
            assert clocks.banks[s] >= 0
            spent = min(before[s], gap) if s in running else 0.0
            bonus = 2.0 if game.turn != turn and s == game.active and s in people else 0.0
            assert clocks.banks[s] == pytest.approx(before[s] - spent + bonus)
        # Banks run for people the game waits for, never in phase 2's trading.
        assert set(clocks.running) <= people
        if game.phase == TRADE and game.pending is None:
            assert not clocks.running
        for note in notes:  # a timeout only for an empty bank, once until the next turn
            assert note.type == "clock_timeout" and clocks.banks[note.seat] == 0
            assert note.seat in clocks.out


def test_presets_and_custom_clocks() -> None:
    assert parse_clock("none", False) is None and parse_clock("", False) is None
    assert parse_clock("fast", False) == PRESETS["fast"]
    assert parse_clock("custom:3,1,20", True) == ClockSpec(3.0, 1.0, 20)
    # The fourth number: phase 2's countdown while the active player is timed out.
    assert parse_clock("custom:3,1,20,0.5", True) == ClockSpec(3.0, 1.0, 20, 0.5)
    assert all(spec.out_trade == 5.0 for spec in PRESETS.values())
    for bad, testing in (
        ("custom:3,1,20", False),
        ("custom:0,1,20", True),
        ("custom:3,1,20,0", True),
        ("custom:3,1,20,1,1", True),
        ("blitz", True),
    ):
        with pytest.raises(ValueError):
            parse_clock(bad, testing)
    with pytest.raises(ValueError):
        parse_clock("custom:3,1,0", True)  # every clock limits phase 2


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31))
def test_coming_back_cannot_make_time(seed: int) -> None:
    """A staller waits out the bank, lets the stand-in move, says "I'm back" and waits
    again. Each "back" used to top the bank up to an increment, so every decision of the
    seat cost the others a full increment (issue 51, Low 9: 17 actions a minute instead of
    167). Topped up once a turn, the staller holds the table for at most the first bank
    and two increments a turn (the turn's own and the one top-up)."""
    spec = ClockSpec(6.0, 2.0, 30)
    game = Game.new("classic", 3, seed=seed)
    clocks = Clocks.new(spec, 3, frozenset({0}))
    rng = random.Random(seed)
    now = held = 0.0
    clocks.update(game, now)
    for _ in range(400):
        if game.over:
            break
        if 0 in clocks.running and 0 not in clocks.out:  # the staller waits it out
            wait = clocks.banks[0]
            now += wait
            held += wait
            clocks.update(game, now)
            assert 0 in clocks.out
        seat = rng.choice(game.waiting_for())
        game.apply(seat, rng.choice(game.legal_actions(seat, offers=False)))
        clocks.update(game, now)
        if seat == 0 and 0 in clocks.out:  # the stand-in moved for the staller: "back"
            clocks.back(0)
            clocks.update(game, now)
    turns = game.turn + 1
    assert held <= spec.bank + 2 * spec.increment * turns + 1e-6, (held, turns)
