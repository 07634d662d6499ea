"""Replay frames and records of a finished table (``web/replays.py``): every rebuild of
a game goes through :func:`bohnanza.records.replay`, and a frame must show the game after
exactly ``step`` actions, with the events of the last one and every hand revealed."""

from __future__ import annotations

import pytest

from bohnanza import Game
from bohnanza.agents import make_agent
from bohnanza.driver import play
from bohnanza.events import Event
from bohnanza.records import replay
from bohnanza.web.replays import rebuild, replay_frame, stored_record, table_record
from bohnanza.web.tables import LobbyError, Seat, Table


def _finished_table() -> Table:
    game = Game.new("classic", 3, seed=11)
    log = play(game, [make_agent("random", 1), make_agent("autarky", 2), make_agent("random", 3)])
    seats = [
        Seat(0, "person", "", "Ada"),
        Seat(1, "bot", "autarky", ""),
        Seat(2, "bot", "random", ""),
    ]
    table = Table("t", 0.0, "over", {"rules": "classic", "players": 3}, seats)
    table.game, table.actions = game, list(log.actions)
    return table


def test_replay_frames_show_each_step_with_the_events_of_its_action() -> None:
    table = _finished_table()
    assert table.game is not None and table.game.over
    total = table.seq
    again = Game.new("classic", 3, seed=11)
    last: list[Event] = []
    for step in range(total + 1):
        if step > 0:
            seat, action = table.actions[step - 1]
            last = again.apply(seat, action)
        if step % 9 and step not in (1, total):
            continue
        frame = replay_frame(table, step)
        assert (frame["step"], frame["total"]) == (step, total)
        assert frame["view"] == again.view(None).to_json()
        assert frame["events"] == ([e.to_json() for e in last] if step else [])
        cj = again.view(None).card_json
        assert frame["hands"] == [[cj(c) for c in h] for h in again.hands]
        if step:
            seat, action = table.actions[step - 1]
            assert frame["action"] == {"seat": seat, **action.to_json()}
        else:
            assert frame["action"] is None
    for bad in (-1, total + 1):
        with pytest.raises(LobbyError):
            replay_frame(table, bad)


def test_record_of_a_table_replays_and_a_stored_game_rebuilds() -> None:
    table = _finished_table()
    record = table_record(table)
    assert record["seats"][0] == {"kind": "person", "name": "Ada"}
    assert replay(record) == table.game
    setup = {**record, "actions": [], "result": None}
    rows = [(seat, action.to_json()) for seat, action in table.actions]
    game, done, events = rebuild(setup, rows)
    assert game == table.game and done == table.actions and events
    assert stored_record(setup, rows)["actions"] == record["actions"]


def test_records_and_replays_wait_for_the_end_of_the_game() -> None:
    table = _finished_table()
    table.status = "playing"
    for call in (lambda: table_record(table), lambda: replay_frame(table, 0)):
        with pytest.raises(LobbyError) as info:
            call()
        assert info.value.status == 403 and info.value.code == "not_over"


def test_a_replay_can_jump_to_the_start_of_each_turn() -> None:
    table = _finished_table()
    steps = replay_frame(table, 0)["turn_steps"]
    assert steps[0] == 0 and steps == sorted(set(steps))
    assert table.game is not None and len(steps) == table.game.turn
    for turn in (2, len(steps) // 2, len(steps)):
        frame = replay_frame(table, steps[turn - 1])
        # The frame at a turn's first step shows that turn, before its first action.
        assert frame["view"]["turn"] == turn and frame["view"]["phase"] == "plant"
        before = replay_frame(table, steps[turn - 1] - 1)
        assert before["view"]["turn"] == turn - 1
