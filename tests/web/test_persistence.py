"""Persistence on SQLite and on a real PostgreSQL (a throwaway cluster): games are stored
as records (setup + actions), an action is acknowledged only once committed, and every
unfinished game resumes after a restart exactly where it was."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from bohnanza.records import replay
from bohnanza.web.store import ActionRow, Store, StoredSeat, StoredTable

from .client import simple_choice
from .conftest import ServerThread

PEOPLE = [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "bot": "random"}]


def test_store_round_trip(db_url: str) -> None:
    store = Store(db_url)
    try:
        seats = [
            StoredSeat(0, "person", "", "Ada", "h0"),
            StoredSeat(1, "bot", "autarky", "", None),
            StoredSeat(2, "person", "", "", None),
        ]
        settings = {"rules": "classic", "players": 3, "options": {}, "trade_limit": 30}
        store.create_table(StoredTable("t1", 1.0, "lobby", settings, seats))
        loaded = store.load("t1")
        assert loaded is not None and loaded.status == "lobby" and loaded.setup is None
        assert loaded.seats == seats and loaded.settings == settings
        seats[2].name, seats[2].token_hash = "Bob", "h2"
        store.save_seats("t1", [seats[2]])
        setup = {"format": "bohnanza-record", "rules": "classic", "players": 3, "seed": 1}
        store.start_game("t1", setup)
        store.append_actions("t1", 0, [(0, {"type": "plant", "field": 0})])
        store.append_actions(
            "t1", 1, [(0, {"type": "stop_planting"}), (0, {"type": "end_trading"})]
        )
        # A sequence number that exists already fails the whole write: nothing of it stays.
        with pytest.raises(IntegrityError):
            store.append_actions(
                "t1", 2, [(0, {"type": "harvest", "field": 0}), (1, {"type": "plant", "field": 1})]
            )
        loaded = store.load("t1")
        assert loaded is not None
        assert loaded.status == "playing" and loaded.setup == setup
        assert loaded.seats[2].name == "Bob"
        assert [a for _, a in loaded.actions] == [
            {"type": "plant", "field": 0},
            {"type": "stop_planting"},
            {"type": "end_trading"},
        ]
        assert [t.id for t in store.unfinished()] == ["t1"]
        store.append_actions("t1", 3, [(1, {"type": "plant", "field": 1})], result={"scores": [1]})
        loaded = store.load("t1")
        assert loaded is not None and loaded.status == "over" and loaded.result == {"scores": [1]}
        assert store.unfinished() == []
        assert store.add_chat("t1", 0, "Ada", "hi") > 0
        assert store.chat("t1")[0]["text"] == "hi"
        assert store.ping()
    finally:
        store.close()


def _start(
    server: ServerThread, seats: list[dict[str, str]] = PEOPLE, **extra: Any
) -> tuple[str, Any, Any]:
    made = server.create(seats=seats, seed=8, **extra)
    table = made["table"]["id"]
    joined = server.join(table)
    a = server.client(table, made["token"])
    b = server.client(table, joined["token"])
    a.token, b.token = made["token"], joined["token"]
    a.request({"type": "start"})
    a.wait_for(lambda m: m["type"] == "state")
    b.wait_for(lambda m: m["type"] == "state")
    return table, a, b


def _play(
    clients: list[Any], actions: int, proposed: dict[int, set[int]]
) -> list[tuple[int, int, dict[str, Any]]]:
    """Let the clients play ``actions`` acknowledged actions; returns (seq, seat, action)."""
    done: list[tuple[int, int, dict[str, Any]]] = []
    deadline = time.monotonic() + 60
    while len(done) < actions:
        assert time.monotonic() < deadline
        moved = False
        for c in clients:
            c.drain(0.01)
            choice = simple_choice(c, proposed.setdefault(c.seat, set()))
            if choice is not None:
                answer = c.act(choice)
                if answer["type"] == "ack":
                    done.append((answer["seq"], c.seat, choice))
                moved = True
            if c.state is not None and c.view["phase"] == "over":
                return done
        if not moved:
            clients[0].drain(0.05)
    return done


def test_an_action_is_acknowledged_only_after_it_is_committed(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    srv = make_server(db_url)
    table, a, b = _start(srv)
    reader = Store(db_url)
    try:
        acked = 0
        deadline = time.monotonic() + 30
        while acked < 8:
            assert time.monotonic() < deadline
            for who in (a, b):
                who.drain(0.02)
                choice = simple_choice(who, set())
                if choice is None:
                    continue
                answer = who.act(choice)
                if answer["type"] != "ack":
                    continue
                acked += 1
                # The moment the ack arrives, the action is in the database.
                with reader._session() as s:
                    stored = s.scalar(
                        select(func.count())
                        .select_from(ActionRow)
                        .where(ActionRow.table_id == table)
                    )
                assert stored is not None and stored >= answer["seq"]
    finally:
        reader.close()


def test_a_failed_commit_changes_nothing(make_server: Callable[..., ServerThread]) -> None:
    srv = make_server()
    table, a, _b = _start(srv)
    manager = srv.app.state.manager
    real = manager.store.append_actions

    def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk full")

    before = a.state
    manager.store.append_actions = broken
    try:
        answer = a.act({"type": "plant", "field": 0})
        assert answer["type"] == "error" and answer["code"] == "server_error"
    finally:
        manager.store.append_actions = real
    c = srv.client(table, a.token)
    assert before is not None and c.seq == before["seq"] and c.view == before["view"]
    assert a.act({"type": "plant", "field": 0})["type"] == "ack"


def test_a_write_committed_after_all_is_read_back_and_broadcast(
    make_server: Callable[..., ServerThread],
) -> None:
    """A commit whose answer was lost (the write went through, the server saw an error)
    leaves the table unsure: before its next write the server reads the record back
    (``Session.resync``, through ``records.replay``), installs the saved action and tells
    everybody, so memory and database agree and play goes on."""
    srv = make_server()
    # The bot never trades, so that no bot action follows the two checked below (a
    # random bot may propose as soon as phase 2 begins).
    table, a, b = _start(srv, [*PEOPLE[:2], {"kind": "bot", "bot": "autarky"}])
    manager = srv.app.state.manager
    real = manager.store.append_actions

    def committed_then_lost(*args: Any, **kwargs: Any) -> None:
        real(*args, **kwargs)
        raise OSError("connection lost during the commit")

    manager.store.append_actions = committed_then_lost
    try:
        answer = a.act({"type": "plant", "field": 0})
        assert answer["type"] == "error" and answer["code"] == "server_error"
    finally:
        manager.store.append_actions = real
    assert a.seq == 0  # nobody was told of the plant
    # Stopping after one planted card is legal only if the plant was saved: the next
    # write reads the record back first, installs the plant, then takes this action.
    answer = a.act({"type": "stop_planting"})
    assert answer["type"] == "ack" and answer["seq"] == 2
    b.wait_for(lambda m: m["type"] == "state" and m["seq"] == 2)
    live = manager.tables[table]
    stored = manager.store.load(table)
    assert stored is not None and stored.setup is not None
    assert stored.actions == [(0, {"type": "plant", "field": 0}), (0, {"type": "stop_planting"})]
    assert [(seat, action.to_json()) for seat, action in live.actions] == stored.actions
    again = replay({**stored.setup, "actions": [{"seat": s, **x} for s, x in stored.actions]})
    assert again == live.game


def test_games_resume_after_a_restart(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    first = make_server(db_url)
    # The bot never trades: a random bot, asked again after the restart with a fresh
    # memory, may make one more offer and move the game past the stored state.
    table, a, b = _start(first, [*PEOPLE[:2], {"kind": "bot", "bot": "autarky"}])
    proposed: dict[int, set[int]] = {}
    _play([a, b], 12, proposed)
    lobby = first.create(seats=PEOPLE)  # a table still in the lobby
    for c in (a, b):
        c.drain(0.2)
    a.close()
    b.close()
    spectator = first.client(table)
    # The bot seat may still be playing its turn: wait until the table is quiet.
    deadline = time.monotonic() + 30
    while True:
        seq = spectator.seq
        spectator.drain(0.5)
        if spectator.seq == seq:
            break
        assert time.monotonic() < deadline
    before = spectator.state
    assert before is not None and before["seq"] >= 12
    first.stop()

    second = make_server(db_url)
    a2 = second.client(table, a.token)
    b2 = second.client(table, b.token)
    assert a2.seat == 0 and b2.seat == 1
    watcher = second.client(table)
    assert watcher.seq == before["seq"]
    assert watcher.view == before["view"]
    assert a2.state is not None and a2.state["log"]  # the game log is rebuilt too
    done = _play([a2, b2], 5, proposed)
    assert done and done[0][0] > before["seq"]
    info = second.http().get(f"/api/tables/{lobby['table']['id']}").json()
    assert info["status"] == "lobby" and info["seats"][0]["name"] == "Ada"


def test_finished_games_stay_finished(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    first = make_server(db_url, away_timeout=0.0)
    made = first.create(seed=12)
    table = made["table"]["id"]
    c = first.client(table, made["token"])
    c.request({"type": "start"})
    c.close()  # the bots (and the bot standing in) finish the game
    deadline = time.monotonic() + 60
    with first.http() as http:
        while http.get(f"/api/tables/{table}").json()["status"] != "over":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        record = http.get(f"/api/tables/{table}/record").json()
    first.stop()
    second = make_server(db_url)
    with second.http() as http:
        assert http.get(f"/api/tables/{table}").json()["status"] == "over"
        assert http.get(f"/api/tables/{table}/record").json() == record
    assert replay(record).result() == record["result"]
