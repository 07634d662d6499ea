"""Games at your own pace (web/turns.py, the ``turn...`` clocks): a seat waits for its
player however long they are away, a stand-in plays only once the bank is empty, and the
banks survive a restart of the server (rebuilt from the stored actions' times)."""

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
from bohnanza.web.clocks import PRESETS, Clocks, ClockSpec, parse_clock, turn_based
from bohnanza.web.model import Seat, Table
from bohnanza.web.store import StoredTable
from bohnanza.web.turns import resumed_clocks

from .conftest import ServerThread

BOTS = [{"kind": "bot", "bot": "autarky"}] * 2


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.lists(st.floats(0, 40), min_size=1, max_size=120))
def test_banks_rebuilt_from_action_times_equal_the_live_ones(seed: int, gaps: list[float]) -> None:
    """The pump's banks (updated after each action) and the ones rebuilt at a restart
    from the same actions and times are the same, timed-out seats included."""
    game = Game.new("classic", 3, seed=seed)
    spec = ClockSpec(60.0, 20.0, 30)
    people = frozenset({0, 2})
    live = Clocks.new(spec, 3, people)
    rng = random.Random(seed)
    now = 1000.0
    actions: list[tuple[int, Any]] = []
    times: list[float] = []
    for gap in gaps:
        if game.over:
            break
        now += gap
        seat = rng.choice(game.waiting_for())
        action = rng.choice(game.legal_actions(seat, offers=False))
        if not times:
            live.update(game, now)  # the wait before the first action is not charged
        game.apply(seat, action)
        live.update(game, now)
        actions.append((seat, action))
        times.append(now)
    record = make_record(Game.new("classic", 3, seed=seed), [])
    setup = {k: v for k, v in record.items() if k not in ("actions", "result")}
    seats = [Seat(i, "person" if i in people else "bot", "", "") for i in range(3)]
    table = Table(
        "t", 0.0, "playing", {"rules": "classic", "players": 3, "clock": "turn:60,20,30"}, seats
    )
    stored = StoredTable(
        "t",
        0.0,
        "playing",
        table.settings,
        [],
        setup=setup,
        actions=[(s, a.to_json()) for s, a in actions],
        times=times,
    )
    rebuilt = resumed_clocks(table, stored)
    assert rebuilt is not None
    assert rebuilt.banks == pytest.approx(live.banks)
    assert rebuilt.out == live.out and rebuilt.turn == live.turn
    assert rebuilt.running == {}  # the live pump starts them from the restart


def test_turn_presets() -> None:
    assert turn_based("turn12h") and turn_based("turn3d") and turn_based("turn:5,1,30")
    assert not turn_based("relaxed") and not turn_based("none")
    assert parse_clock("turn12h", False) == PRESETS["turn12h"]
    assert PRESETS["turn12h"].increment == 12 * 3600 and PRESETS["turn3d"].bank == 6 * 86400
    with pytest.raises(ValueError):
        parse_clock("turn:5,1,30", False)  # a test server's clock only


def _state_clock(c: Any) -> dict[str, Any]:
    assert c.state is not None and "clock" in c.state
    clock: dict[str, Any] = c.state["clock"]
    return clock


def _wait_my_decision(c: Any, timeout: float = 30) -> None:
    """Until the game waits on this seat's own decision (its bank runs)."""
    deadline = time.monotonic() + timeout
    while not (c.state and c.seat in _state_clock(c)["running"] and c.legal):
        c.recv(max(0.05, deadline - time.monotonic()))


def test_a_turn_based_seat_waits_and_its_bank_survives_a_restart(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    srv = make_server(db_url, away_timeout=0.05)
    made = srv.create(clock="turn:100,50,30", seed=8, seats=[{"kind": "person"}, *BOTS])
    table = made["table"]["id"]
    assert made["table"]["clock"] == "turn:100,50,30"
    a = srv.client(table, made["token"])
    a.request({"type": "start"})
    _wait_my_decision(a)
    a.drain(0.05)
    plants = [x for x in a.legal if x["type"] == "plant"]
    assert a.act(plants[0])["type"] == "ack"  # at once: the record's first action
    a.wait_for(lambda m: m["type"] == "state")
    _wait_my_decision(a)
    time.sleep(2.5)  # the game waits on Ada: her bank runs
    a.drain(0.05)
    choice = next(x for x in a.legal if x["type"] in ("plant", "stop_planting"))
    assert a.act(choice)["type"] == "ack"
    a.drain(0.1)
    live = _state_clock(a)["bank"][0]
    assert live < 98.0
    a.close()
    # Away far longer than the hand-over delay: nobody plays for her.
    time.sleep(0.6)
    with srv.http() as c:
        seat = c.get(f"/api/tables/{table}").json()["seats"][0]
        assert not seat["replaced"] and not seat["played"]
    seq_before = srv.client(table).seq
    srv.stop()

    again = make_server(db_url, away_timeout=0.05)
    b = again.client(table, hello=False)
    welcome = b.hello(made["token"])
    bank = welcome["state"]["clock"]["bank"][0]
    # Rebuilt from the stored times: what it was, not a fresh 100 s bank.
    assert abs(bank - live) < 1.0, (bank, live)
    assert welcome["state"]["seq"] == seq_before
    b.close()


def test_only_an_empty_bank_hands_the_seat_to_the_stand_in(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = make_server(away_timeout=0.05)
    made = srv.create(clock="turn:1.5,0.5,30", seed=3, seats=[{"kind": "person"}, *BOTS])
    table = made["table"]["id"]
    a = srv.client(table, made["token"])
    a.request({"type": "start"})
    a.close()  # gone at once; the bank (1.5 s) runs only while the game waits on her
    watcher = srv.client(table)
    timeout = watcher.wait_for(
        lambda m: (
            m["type"] == "state"
            and any(e.get("type") == "clock_timeout" and e.get("seat") == 0 for e in m["events"])
        ),
        timeout=30,
    )
    assert 0 in timeout["clock"]["out"]
    start = watcher.seq
    watcher.wait_for(lambda m: m["type"] == "state" and m["seq"] > start + 3, timeout=30)
    watcher.close()
