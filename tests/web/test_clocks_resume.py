"""Clocks, the phase-2 countdown and stand-ins outlive the server that runs a table
(web/turns.py): stored with every action, put back by the server that resumes it."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza.game import Game
from bohnanza.records import make_record
from bohnanza.web.clocks import Clocks, ClockSpec
from bohnanza.web.model import Seat, Table
from bohnanza.web.pump import clock_view
from bohnanza.web.store import StoredTable
from bohnanza.web.turns import LATE, live_state, resume_live, to_move
from bohnanza.web.waiting import your_turn

from .conftest import ServerThread

BOTS = [{"kind": "person"}, {"kind": "bot", "bot": "autarky"}, {"kind": "bot", "bot": "autarky"}]


def test_a_restarted_server_keeps_the_banks(make_server: Callable[..., ServerThread]) -> None:
    """SQLite, one server: restarted, Ada's running bank is what it was less the time
    that passed (the restart included), not a fresh one."""
    srv = make_server()
    made = srv.create(clock="custom:30,1,20", seats=BOTS, seed=5)
    table, token = made["table"]["id"], made["token"]
    ada = srv.client(table, token)
    assert ada.request({"type": "start"})["type"] == "ack"
    started = time.time()
    time.sleep(2.0)
    ada.close()
    srv.stop()
    again = make_server()
    ada = again.client(table, token)
    clock = clock_view(again.app.state.manager.tables[table])["clock"]
    expected = 30.0 - (time.time() - started)
    assert 0 in clock["running"]
    assert abs(clock["bank"][0] - expected) < 1.0, (clock, expected)
    assert ada.state is not None and abs(ada.state["clock"]["bank"][0] - expected) < 1.0
    ada.close()


def _table(players: int, people: frozenset[int], clock: str) -> Table:
    seats = [
        Seat(i, "person" if i in people else "bot", "", "", "h" if i in people else None)
        for i in range(players)
    ]
    settings = {"rules": "classic", "players": players, "clock": clock, "trade_limit": 30}
    return Table("t", 0.0, "playing", settings, seats)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2**31),
    # Gaps off the banks' grid: a bank that runs out exactly at an action's time is
    # timed out or not by a rounding error.
    st.lists(st.tuples(st.integers(0, 40), st.booleans()), min_size=2, max_size=100),
    st.data(),
)
def test_a_snapshot_and_the_actions_after_it_give_the_live_clocks(
    seed: int, steps: list[tuple[int, bool]], data: Any
) -> None:
    """The live pump's clocks (timeouts when a bank runs out between two actions, "back"
    when a timed-out person acts) equal the ones put back from a snapshot taken at any
    action plus the stored actions after it, replayed with their times."""
    spec = ClockSpec(5.0, 2.0, 30)
    people = frozenset({0, 2})
    game = Game.new("classic", 3, seed=seed)
    table = _table(3, people, "custom:5,2,30")
    table.game = game
    live = Clocks.new(spec, 3, people)
    table.clocks = live
    rng = random.Random(seed)
    base_mono, base_wall = time.monotonic(), time.time()
    now = base_mono
    live.update(game, now)
    cut = data.draw(st.integers(0, len(steps) - 1))
    snapshot: dict[str, Any] | None = None
    actions: list[tuple[int, dict[str, Any]]] = []
    times: list[float] = []
    autos: list[bool] = []
    for i, (tenths, person) in enumerate(steps):
        gap = tenths / 10 + 0.0371
        if game.over:
            break
        if i == cut:
            snapshot = live_state(table)
        # A timeout is seen by the pump when it is due, before the next action.
        for _ in range(3):
            due = live.due()
            if due is None or due > now + gap:
                break
            live.update(game, min(now + gap, due + LATE))
        now += gap
        seat = rng.choice(game.waiting_for())
        auto = not (person and seat in people)
        if not auto:
            live.back(seat)
        action = rng.choice(game.legal_actions(seat, offers=False))
        game.apply(seat, action)
        live.update(game, now)
        table.actions.append((seat, action))
        actions.append((seat, action.to_json()))
        times.append(base_wall + (now - base_mono))
        autos.append(auto)
    record = make_record(Game.new("classic", 3, seed=seed), [])
    setup = {k: v for k, v in record.items() if k not in ("actions", "result")}
    if snapshot is None:
        snapshot = live_state(table)
    stored = StoredTable(
        "t",
        0.0,
        "playing",
        table.settings,
        [],
        setup=setup,
        actions=actions,
        times=times,
        autos=autos,
        live=snapshot,
    )
    resumed = _table(3, people, "custom:5,2,30")
    resumed.game = game
    resume_live(resumed, stored)
    assert resumed.clocks is not None
    assert resumed.clocks.banks == pytest.approx(live.banks, abs=0.01)
    assert resumed.clocks.out == live.out and resumed.clocks.turn == live.turn
    assert resumed.clocks.topped == live.topped
    assert set(resumed.clocks.running) == set(live.running)
    for seat, since in live.running.items():  # a monotonic time of this process again
        assert resumed.clocks.running[seat] == pytest.approx(since, abs=0.05)


def test_timed_out_and_replaced_seats_stay_with_the_stand_in() -> None:
    game = Game.new("classic", 3, seed=1)
    table = _table(3, frozenset({0, 1}), "custom:5,2,30")
    table.game = game
    table.clocks = Clocks.new(ClockSpec(5.0, 2.0, 30), 3, frozenset({0, 1}))
    table.clocks.update(game, time.monotonic() - 10)
    table.clocks.update(game, time.monotonic())  # seat 0's bank ran out
    assert table.clocks.out == {0}
    table.seats[1].replaced, table.seats[1].away_since = True, time.monotonic() - 200
    table.seats[1].stand_in = True
    record = make_record(Game.new("classic", 3, seed=1), [])
    setup = {k: v for k, v in record.items() if k not in ("actions", "result")}
    stored = StoredTable(
        "t", 0.0, "playing", table.settings, [], setup=setup, live=live_state(table)
    )
    resumed = _table(3, frozenset({0, 1}), "custom:5,2,30")
    resumed.game = game
    resume_live(resumed, stored)
    assert resumed.clocks is not None and resumed.clocks.out == {0}
    assert resumed.clocks.banks[0] == 0
    seat = resumed.seats[1]
    assert seat.replaced and seat.stand_in
    assert seat.away_since is not None and time.monotonic() - seat.away_since > 199


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 150))
def test_the_stored_waiting_seats_are_your_turn(seed: int, steps: int) -> None:
    """``to_move`` (stored with every action, for "your games" of a table another
    instance owns) follows the rule of "your turn" at a live table."""
    game = Game.new("classic", 3, seed=seed)
    table = _table(3, frozenset({0, 1, 2}), "none")
    table.game = game
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        assert to_move(game) == [s for s in range(3) if your_turn(table, s)]
        seat = rng.choice(game.waiting_for())
        game.apply(seat, rng.choice(game.legal_actions(seat, offers=False)))
