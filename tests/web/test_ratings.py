"""Ratings (web/ratings.py): OpenSkill per rule set, updated in the transaction that
ends a rated game (on SQLite and PostgreSQL), the leaderboard and the player's page."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.engine import Connection

from bohnanza.web.accounts import AccountLimits, Accounts
from bohnanza.web.model import hash_token
from bohnanza.web.ratings import MU, leaderboard, player, rate_finished
from bohnanza.web.store import Store, StoredSeat, StoredTable

from .conftest import ServerThread

FAST = AccountLimits(hash_time_cost=1, hash_memory_kib=8192)


def _table(store: Store, table_id: str, rated: str, seats: list[StoredSeat]) -> None:
    settings = {"rules": "classic", "players": len(seats), "options": {}, "rated": rated}
    store.create_table(StoredTable(table_id, time.time(), "lobby", settings, seats))
    store.start_game(table_id, {"format": "bohnanza-record", "rules": "classic", "players": 3})


def _person(seat: int, token: str) -> StoredSeat:
    return StoredSeat(seat, "person", "", f"P{seat}", hash_token(token))


def test_a_rated_game_updates_ratings_with_its_end(db_url: str) -> None:
    store = Store(db_url)
    store.on_game_over.append(rate_finished)
    accounts = Accounts(store, FAST)
    try:
        ada, _ = accounts.register("Ada", "correct horse", "a")
        bob, _ = accounts.register("Bob", "correct horse", "b")
        # People only: Ada and Bob are ranked, the guest in seat 2 is not.
        _table(store, "t1", "people", [_person(0, "ta"), _person(1, "tb"), _person(2, "tg")])
        accounts.link_seat(ada.id, "t1", 0, hash_token("ta"))
        accounts.link_seat(bob.id, "t1", 1, hash_token("tb"))
        store.append_actions("t1", 0, [(0, {"type": "plant", "field": 0})])
        store.append_actions(
            "t1", 1, [(1, {"type": "plant", "field": 0})], {"scores": [9, 12, 15], "winners": [2]}
        )
        with store.engine.connect() as conn:
            board = leaderboard(conn, "classic")
            assert [p["name"] for p in board] == ["Bob", "Ada"]  # 12 coins beat 9
            assert all(p["games"] == 1 and p["provisional"] for p in board)
            assert board[0]["mu"] > MU > board[1]["mu"]
            assert board[0]["mean_coins"] == 12 and board[0]["win_share"] == 0
            page = player(conn, ada.id)
        assert page["history"][0]["table"] == "t1" and page["history"][0]["replay"] == "/replay/t1"
        assert page["history"][0]["fresh"] and page["history"][0]["rank"] == 2
        # Bots at fixed ratings: Ada beats two bots and rises; nothing is stored for bots.
        bots = [_person(0, "ta2"), StoredSeat(1, "bot", "random", "", None)]
        _table(store, "t2", "bots", [*bots, StoredSeat(2, "bot", "heuristic", "", None)])
        accounts.link_seat(ada.id, "t2", 0, hash_token("ta2"))
        before = page["ratings"]["classic"]["mu"]
        store.append_actions(
            "t2", 0, [(0, {"type": "plant", "field": 0})], {"scores": [20, 3, 5], "winners": [0]}
        )
        with store.engine.connect() as conn:
            after = player(conn, ada.id)["ratings"]["classic"]
        assert after["mu"] > before and after["games"] == 2 and after["win_share"] == 0.5
        # An unrated table and a table whose seat changed hands rate nobody.
        _table(store, "t3", "no", [_person(0, "ta3"), _person(1, "tb3"), _person(2, "x")])
        accounts.link_seat(ada.id, "t3", 0, hash_token("ta3"))
        accounts.link_seat(bob.id, "t3", 1, hash_token("old token"))
        store.append_actions(
            "t3", 0, [(0, {"type": "plant", "field": 0})], {"scores": [1, 2, 3], "winners": [2]}
        )
        with store.engine.connect() as conn:
            assert player(conn, ada.id)["ratings"]["classic"]["games"] == 2
    finally:
        store.close()


def test_a_failing_rating_update_leaves_the_game_unfinished(db_url: str) -> None:
    """One transaction: if the ratings cannot be written, the game's end is not either."""
    store = Store(db_url)

    def broken(_conn: Connection, _table_id: str, _result: dict[str, Any]) -> None:
        raise RuntimeError("the ratings table is away")

    store.on_game_over.append(broken)
    try:
        _table(store, "t1", "people", [_person(0, "a"), _person(1, "b"), _person(2, "c")])
        with pytest.raises(RuntimeError):
            store.append_actions(
                "t1", 0, [(0, {"type": "plant", "field": 0})], {"scores": [1, 2, 3], "winners": [2]}
            )
        loaded = store.load("t1")
        assert loaded is not None and loaded.status == "playing" and loaded.actions == []
    finally:
        store.close()


def test_a_rated_table_over_http_ranks_its_account(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = make_server(accounts=FAST)
    with srv.http() as c:
        assert (
            c.post("/api/account/register", json={"name": "Rita", "password": "correct horse"})
        ).status_code == 200
        bad = c.post(
            "/api/tables",
            json={
                "rules": "classic",
                "players": 3,
                "rated": "maybe",
                "name": "Rita",
                "seats": [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}],
            },
        )
        assert bad.status_code == 400
        made = c.post(
            "/api/tables",
            json={
                "rules": "classic",
                "players": 3,
                "rated": "bots",
                "name": "Rita",
                "seed": 3,
                "seats": [
                    {"kind": "person"},
                    {"kind": "bot", "bot": "heuristic"},
                    {"kind": "bot", "bot": "heuristic"},
                ],
            },
        ).json()
        table = made["table"]["id"]
        assert made["table"]["rated"] == "bots"
        claim = {"seats": [{"table": table, "token": made["token"]}]}
        assert c.post("/api/account/claim", json=claim).json()["claimed"]
        ws = srv.client(table, made["token"])
        ws.request({"type": "start"})
        ws.request({"type": "leave"})  # resigned: the stand-in plays on, Rita is rated
        ws.close()
        deadline = time.monotonic() + 60
        while c.get(f"/api/tables/{table}").json()["status"] != "over":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        board = c.get("/api/ratings/classic").json()["players"]
        assert [p["name"] for p in board] == ["Rita"] and board[0]["games"] == 1
        page = c.get("/api/players/rita").json()
        assert page["name"] == "Rita" and page["history"][0]["table"] == table
        assert c.get(page["history"][0]["replay"]).status_code == 200
        assert c.get("/api/ratings/nonsense").status_code == 404
        assert c.get("/api/players/nobody").status_code == 404
