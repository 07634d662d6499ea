"""Protocol tests over real WebSockets: every bad message gets an error to its sender
alone and changes nothing; every client sees only what its seat may see (R-INFO-3)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from .client import Client, simple_choice
from .conftest import ServerThread

# seat 0: Blue, Blue, Chili, ...; the classic 3-player game.
DECK = ["blue", "blue", "chili", "soy", "wax"] + ["chili", "soy", "wax", "green", "stink"] * 2


def two_people(server: ServerThread, **extra: Any) -> tuple[str, Client, Client]:
    """A started 3-player table: seat 0 and seat 1 are people, seat 2 an autarky bot."""
    body: dict[str, Any] = {
        "seats": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "bot": "autarky"}],
        "seed": 11,
        "deck": DECK,
    }
    body.update(extra)
    made = server.create(**body)
    table = made["table"]["id"]
    joined = server.join(table, "Bob")
    a = server.client(table, made["token"])
    b = server.client(table, joined["token"])
    a.token, b.token = made["token"], joined["token"]
    assert a.seat == 0 and b.seat == 1
    answer = a.request({"type": "start"})
    assert answer["type"] != "error", answer
    a.wait_for(lambda m: m["type"] == "state")
    b.wait_for(lambda m: m["type"] == "state")
    return table, a, b


def snapshot(server: ServerThread, table: str, token: str | None) -> dict[str, Any]:
    """The full current state as a fresh connection of that seat gets it."""
    c = server.client(table, token, hello=False)
    welcome = c.hello(token)
    c.close()
    state = welcome["state"]
    return {"seq": state["seq"], "view": state["view"]}


def plant_trade_area(c: Client) -> None:
    """Plant every card of ``c``'s trade area in phase 3 (harvesting when needed)."""
    c.drain()
    for _ in range(10):
        mine = c.view["seats"][c.seat]
        if c.view["phase"] != "plant_traded" or not mine["trade_area"]:
            return
        plants = [x for x in c.legal if x["type"] == "plant_traded"]
        choice = plants[0] if plants else next(x for x in c.legal if x["type"] == "harvest")
        assert c.act(choice)["type"] == "ack"
        c.wait_for(lambda m: m["type"] == "state")
    raise AssertionError("the trade area did not empty")


def assert_alive(c: Client) -> None:
    assert c.request({"type": "ping"})["type"] == "pong"


# ------------------------------------------------------------------ HTTP side


def test_healthz_pages_and_strings(server: ServerThread) -> None:
    with server.http() as http:
        r = http.get("/healthz")
        assert r.status_code == 200 and r.json()["status"] == "ok"
        table = server.create()["table"]["id"]
        for path in ("/", f"/t/{table}", f"/replay/{table}", "/static/table.js"):
            assert http.get(path).status_code == 200, path
        # An unknown table is a 404 page, not a table page that reconnects forever (nor
        # an empty replay).
        for path in ("/t/abc", "/replay/abc"):
            missing = http.get(path)
            assert missing.status_code == 404 and 'id="not-found"' in missing.text
        rules = http.get("/api/rules").json()
        assert {r["rules"] for r in rules["rulesets"]} >= {"classic", "fasolki+duel"}
        # Every bot with a one-line description; the lobby preselects a bot that trades.
        assert rules["default_bot"] == "heuristic" and rules["bots"][:3] == [
            "random",
            "autarky",
            "heuristic",
        ]
        assert set(rules["bot_descriptions"]) == set(rules["bots"]) and all(
            rules["bot_descriptions"].values()
        )
        strings = http.get("/api/strings").json()
        assert set(strings["ui"]["en"]) == set(strings["ui"]["pl"])
        assert strings["beans"]["cowboy"]["pl"] == "Kowboj"  # the Polish edition's names
        assert strings["beans"]["glutton"]["pl"] == "Łakomczuch"


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"rules": "chess"}, "unknown rule set"),
        ({"players": 9}, "players"),
        ({"players": 4}, "4 players need 4 seats"),
        ({"seats": [{"kind": "bot"}] * 3}, "at least one seat for a person"),
        (
            {"seats": [{"kind": "person"}, {"kind": "bot", "bot": "genius"}, {"kind": "bot"}]},
            "unknown bot",
        ),
        ({"seats": [{"kind": "alien"}] * 3}, "seats"),
        ({"trade_limit": -1}, "trade_limit"),
        (
            {"rules": "fasolki+new-varieties", "players": 4, "seats": [{"kind": "person"}] * 4},
            "remove=",
        ),
        ({"deck": ["cocoa"]}, "unknown variety 'cocoa'"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_create_table_is_validated(server: ServerThread, body: dict[str, Any], needle: str) -> None:
    full: dict[str, Any] = {
        "rules": "classic",
        "players": 3,
        "seats": [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}],
    }
    full.update(body)
    with server.http() as http:
        r = http.post("/api/tables", json=full)
    assert r.status_code == 400, r.text
    assert needle in r.json()["error"]


def test_oversized_http_body_is_refused(server: ServerThread) -> None:
    with server.http() as http:
        r = http.post(
            "/api/tables",
            content=b"{" + b" " * 70_000 + b"}",
            headers={"content-type": "application/json"},
        )
    assert r.status_code == 413


def test_seed_and_deck_only_on_a_test_server(make_server: Callable[..., ServerThread]) -> None:
    srv = make_server(testing=False)
    with srv.http() as http:
        r = http.post(
            "/api/tables",
            json={
                "rules": "classic",
                "players": 3,
                "seats": [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}],
                "seed": 1,
            },
        )
    assert r.status_code == 400 and "test server" in r.json()["error"]


def test_join_full_table_and_unknown_table(server: ServerThread) -> None:
    made = server.create()
    with server.http() as http:
        r = http.post(f"/api/tables/{made['table']['id']}/join", json={"name": "X"})
        assert r.status_code == 409
        assert http.get("/api/tables/nope").status_code == 404
        assert http.post("/api/tables/nope/join", json={}).status_code == 404


# ------------------------------------------------------------------ hello, tokens, lobby


def test_unknown_table_websocket(server: ServerThread) -> None:
    c = Client(server.ws_url, "nope")
    msg = c.recv()
    assert msg["type"] == "error" and msg["code"] == "no_table"
    with pytest.raises(ConnectionClosed):
        c.recv(2)


def test_wrong_token_gets_an_error_and_nothing_changes(server: ServerThread) -> None:
    table, _a, _b = two_people(server)
    before = snapshot(server, table, None)
    c = server.client(table, hello=False)
    answer = c.hello("not-a-token")
    assert answer["type"] == "error" and answer["code"] == "bad_token"
    # Not authenticated: it may not act, nor chat, and it gets no state.
    answer = c.act({"type": "plant", "field": 0})
    assert answer["code"] == "not_authenticated"
    assert not any(m["type"] in ("state", "welcome") for m in c.messages)
    # A token from another table is just as wrong.
    other = server.create()
    answer = c.request({"type": "hello", "token": other["token"]})
    assert answer["code"] == "bad_token"
    assert snapshot(server, table, None) == before
    # The right token works on the same connection afterwards.
    joined = c.request({"type": "hello"})
    assert joined["type"] == "welcome" and joined["seat"] is None
    assert_alive(c)


def test_spectator_cannot_act_and_sees_no_hand(server: ServerThread) -> None:
    table, _a, _b = two_people(server)
    spectator = server.client(table)
    assert spectator.seat is None
    assert spectator.view["hand"] is None
    answer = spectator.act({"type": "plant", "field": 0})
    assert answer["type"] == "error" and answer["code"] == "not_seated"
    for kind in ("start", "leave", "rematch"):
        assert spectator.request({"type": kind})["code"] == "not_seated"


def test_action_before_start(server: ServerThread) -> None:
    made = server.create(seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}])
    table = made["table"]["id"]
    a = server.client(table, made["token"])
    assert a.state is None
    assert a.act({"type": "plant", "field": 0})["code"] == "not_started"
    # Start needs every person seat taken.
    answer = a.request({"type": "start"})
    assert answer["code"] == "not_allowed" and "2" in answer["message"]


def test_double_hello_is_refused(server: ServerThread) -> None:
    _table, a, _b = two_people(server)
    assert a.request({"type": "hello"})["code"] == "bad_message"


# ------------------------------------------------------------------ malformed and oversized


BAD_FRAMES: list[tuple[Any, str]] = [
    ("this is not json", "bad_json"),
    ("{", "bad_json"),
    ("[1, 2, 3]", "bad_message"),
    ('"hello"', "bad_message"),
    ("null", "bad_message"),
    ({"type": "teleport"}, "unknown_type"),
    ({"no": "type"}, "unknown_type"),
    ({"type": 7}, "unknown_type"),
    ({"type": "action"}, "bad_message"),
    ({"type": "action", "action": [1]}, "bad_message"),
    ({"type": "action", "action": {"type": "fly"}}, "bad_action"),
    ({"type": "action", "action": {"type": "plant", "field": "x"}}, "bad_action"),
    ({"type": "action", "action": {"type": "plant", "field": 0, "x": 1}}, "bad_action"),
    ({"type": "action", "action": {"type": "accept", "offer_id": 1, "cards": "abc"}}, "bad_action"),
    ({"type": "action", "action": {"type": "propose", "offer": {"to": "x"}}}, "bad_action"),
    ({"type": "action", "action": {"type": "plant", "field": 0}, "extra": 1}, "bad_message"),
    ({"type": "chat"}, "bad_message"),
    ({"type": "chat", "text": "   "}, "bad_message"),
    ({"type": "chat", "text": 5}, "bad_message"),
    ({"type": "ping", "id": [1]}, "bad_message"),
    ({"type": "ping", "id": True}, "bad_message"),
    ({"type": "hello", "token": 12}, "bad_message"),
    (b"\x00\x01binary", "bad_message"),
    ("[" * 100_00 + "]" * 100_00, "bad_json"),
]


def test_malformed_messages_get_an_error_and_change_nothing(server: ServerThread) -> None:
    table, a, b = two_people(server)
    tokens = {0: a, 1: b}
    before = snapshot(server, table, None)
    for frame, code in BAD_FRAMES:
        a.send(frame)
        answer = a.wait_for(lambda m: m["type"] in ("error", "pong", "ack", "chat"))
        assert answer["type"] == "error", (frame, answer)
        assert answer["code"] == code, (frame, answer)
        assert answer["message"]
    assert_alive(a)
    # Nobody else heard about any of it.
    b.drain()
    assert not any(m["type"] == "error" for m in b.messages)
    assert snapshot(server, table, None) == before
    assert tokens[0].seat == 0


def test_oversized_messages(server: ServerThread) -> None:
    table, a, b = two_people(server)
    before = snapshot(server, table, None)
    big = json.dumps({"type": "chat", "text": "x" * 70_000})
    a.send(big)
    answer = a.wait_for(lambda m: m["type"] == "error")
    assert answer["code"] == "too_large"
    big_action = json.dumps(
        {"type": "action", "action": {"type": "accept", "offer_id": 1, "cards": [1] * 25_000}}
    )
    assert len(big_action) > 64 * 1024
    a.send(big_action)
    assert a.wait_for(lambda m: m["type"] == "error")["code"] == "too_large"
    # Under the frame size but a chat line longer than allowed.
    answer = a.request({"type": "chat", "text": "y" * 501})
    assert answer["code"] == "too_large"
    assert_alive(a)
    assert snapshot(server, table, None) == before
    # Frames over 1 MiB are refused by the WebSocket layer: the connection closes (1009).
    a.send("z" * (1024 * 1024 + 10))
    with pytest.raises(ConnectionClosed) as info:
        a.wait_for(lambda m: False, 5)
    assert info.value.rcvd is not None and info.value.rcvd.code == 1009
    assert snapshot(server, table, None) == before
    assert_alive(b)


# ------------------------------------------------------------------ illegal moves


def test_acting_out_of_turn(server: ServerThread) -> None:
    table, a, b = two_people(server)
    before = snapshot(server, table, None)
    answer = b.act({"type": "plant", "field": 0})
    assert answer["type"] == "error" and answer["code"] == "illegal"
    assert answer["rule"] == "R-PLANT-1"
    assert "seat 1 cannot plant" in answer["message"]
    answer = b.act({"type": "end_trading"})
    assert answer["code"] == "illegal"
    answer = b.act({"type": "stop_planting"})
    assert answer["code"] == "illegal"
    assert snapshot(server, table, None) == before
    a.drain()
    assert not any(m["type"] == "error" for m in a.messages)


def test_illegal_moves_change_nothing(server: ServerThread) -> None:
    table, a, b = two_people(server)
    before = snapshot(server, table, None)
    cases = [
        ({"type": "harvest", "field": 0}, "field 0 is empty"),
        ({"type": "plant", "field": 7}, "no field 7"),
        ({"type": "stop_planting"}, "front card must be planted first"),
        ({"type": "buy_field"}, "third field"),
        ({"type": "accept", "offer_id": 99}, "phase 2"),
        ({"type": "plant_traded", "card": 3, "field": 0}, "phase 3"),
        ({"type": "propose", "offer": {"to": 1, "give": [0]}}, "phase 2"),
    ]
    for action, needle in cases:
        answer = a.act(action)
        assert answer["type"] == "error" and answer["code"] == "illegal", (action, answer)
        assert needle in answer["message"], (action, answer)
    assert snapshot(server, table, None) == before
    # A legal move is acknowledged after it is stored, and then everybody gets the state.
    answer = a.act({"type": "plant", "field": 0})
    assert answer["type"] == "ack" and answer["seq"] == before["seq"] + 1
    state = a.wait_for(lambda m: m["type"] == "state")
    assert state["seq"] == before["seq"] + 1
    assert [e["type"] for e in state["events"]] == ["plant"]
    b.wait_for(lambda m: m["type"] == "state" and m["seq"] == before["seq"] + 1)


def test_offers_show_no_hidden_facts(server: ServerThread) -> None:
    """R-BLUFF-1 over the wire: a black Fasolkopajak declared red shows as declared red,
    with no card id and no true colour, to everybody but its owner - until it changes hands."""
    from bohnanza.rules import make_config

    config = make_config("fasolki+fasolkopajaki", 3)
    black = next(
        c
        for c in range(config.deck_size)
        if config.variety_of(c) == "fasolkopajak" and config.card_kind[c] == "black"
    )
    made = server.create(
        rules="fasolki+fasolkopajaki",
        seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "bot": "autarky"}],
        seed=5,
        deck=["cowboy", "cowboy", black, "pyromaniac", "fatty"],
    )
    table = made["table"]["id"]
    joined = server.join(table)
    a = server.client(table, made["token"])
    b = server.client(table, joined["token"])
    spectator = server.client(table)
    a.request({"type": "start"})
    a.wait_for(lambda m: m["type"] == "state")
    assert a.act({"type": "plant", "field": 0})["type"] == "ack"
    assert a.act({"type": "plant", "field": 0})["type"] == "ack"
    a.wait_for(lambda m: m["type"] == "state" and m["view"]["phase"] == "trade")
    spider = a.view["hand"][0]
    assert spider == {"id": black, "variety": "fasolkopajak", "kind": "black"}
    offer = {"to": 1, "give": [black], "want": [], "declared": ["red"]}
    answer = a.act({"type": "propose", "offer": offer})
    assert answer["type"] == "ack", answer
    for c in (b, spectator):
        state = c.wait_for(lambda m: m["type"] == "state" and m["view"]["offers"])
        shown = state["view"]["offers"][0]["give"][0]
        assert shown == {"variety": "fasolkopajak", "declared": "red"}
        seen: set[int] = set()
        _cards_in(state, seen)
        assert black not in seen and '"black"' not in json.dumps(state)
        ev = next(e for e in state["events"] if e["type"] == "offer")
        assert "give_cards" not in ev and ev["give"] == [
            {"variety": "fasolkopajak", "declared": "red"}
        ]
    mine = a.wait_for(lambda m: m["type"] == "state" and m["view"]["offers"])
    assert mine["view"]["offers"][0]["give"][0]["id"] == black
    # Accepting the gift reveals the truth to everyone (R-BLUFF-2).
    oid = mine["view"]["offers"][0]["offer_id"]
    assert b.act({"type": "accept", "offer_id": oid})["type"] == "ack"
    state = spectator.wait_for(lambda m: m["type"] == "state" and not m["view"]["offers"])
    types = [e["type"] for e in state["events"]]
    assert "trade" in types and "reveal" in types


# ------------------------------------------------------------------ a whole game, no leaks


def _cards_in(obj: Any, out: set[int], key: str | None = None) -> None:
    """Every card id in a message: card objects' ids and event card fields."""
    if isinstance(obj, dict):
        if "variety" in obj and isinstance(obj.get("id"), int):
            out.add(obj["id"])
        for k, v in obj.items():
            if k == "card" and isinstance(v, int) and not isinstance(v, bool):
                out.add(v)
            # (a reshuffle's "cards" is a count, not a card: lists only)
            if isinstance(v, list) and (
                k in ("cards", "gave", "got", "give_cards") or (k == "give" and key == "offer")
            ):
                out.update(x for x in v if isinstance(x, int) and not isinstance(x, bool))
            _cards_in(v, out, k)
    elif isinstance(obj, list):
        for v in obj:
            _cards_in(v, out, key)


@pytest.mark.parametrize("rules", ["fasolki+fasolkopajaki", "fasolki+fasolufka"])
def test_whole_game_over_websockets_never_leaks_a_hand(server: ServerThread, rules: str) -> None:
    from bohnanza.actions import Action
    from bohnanza.game import Game

    made = server.create(
        rules=rules,
        seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "bot": "random"}],
        seed=3,
    )
    table = made["table"]["id"]
    joined = server.join(table)
    a = server.client(table, made["token"])
    b = server.client(table, joined["token"])
    spectator = server.client(table)
    a.request({"type": "start"})
    proposed: dict[int, set[int]] = {0: set(), 1: set()}
    deadline = time.monotonic() + 120
    over = False
    acted = 0
    while not over:
        assert time.monotonic() < deadline, "the game did not finish in time"
        progressed = False
        for c in (a, b):
            c.drain(0.01)
            choice = simple_choice(c, proposed[c.seat])  # type: ignore[index]
            if choice is not None:
                c.act(choice)
                acted += 1
                progressed = True
        spectator.drain(0.0)
        over = a.state is not None and a.view["phase"] == "over"
        if not progressed and not over:
            a.drain(0.05)
    for c in (a, b, spectator):
        c.drain(0.2)
    assert acted > 20
    with server.http() as http:
        record = http.get(f"/api/tables/{table}/record").json()
    # Replay the record; for every message, no card it names may sit in another hand.
    game = Game.new(
        record["rules"],
        record["players"],
        options=record["options"],
        seed=record["seed"],
        deck=record["deck"],
    )
    hands = [[set(h) for h in game.hands]]
    for entry in record["actions"]:
        body = {k: v for k, v in entry.items() if k != "seat"}
        game.apply(entry["seat"], Action.from_json(body))
        hands.append([set(h) for h in game.hands])
    assert game.over and game.result() == record["result"]
    checked = 0
    for c in (a, b, spectator):
        for msg in c.messages:
            state = (
                msg.get("state")
                if msg["type"] == "welcome"
                else msg
                if msg["type"] == "state"
                else None
            )
            if not state:
                continue
            seq = state["seq"]
            seen: set[int] = set()
            _cards_in(state, seen)
            for other in range(3):
                if other != c.seat:
                    leak = seen & hands[seq][other]
                    assert not leak, (c.seat, seq, other, leak)
            if c.seat is not None:
                assert {x["id"] for x in state["view"]["hand"]} == hands[seq][c.seat]
                assert all(s.get("hand") is None for s in state["view"]["seats"])
            else:
                assert state["view"]["hand"] is None
            checked += 1
    assert checked > 100
    # The replay of the finished game reveals everything, step by step.
    with server.http() as http:
        frame = http.get(f"/api/tables/{table}/replay", params={"step": 5}).json()
        assert frame["step"] == 5 and len(frame["hands"]) == 3
        assert http.get(f"/api/tables/{table}/replay", params={"step": 10**6}).status_code == 400


# ------------------------------------------------------------------ reconnect, away, timers


def test_reconnect_gets_the_full_view(server: ServerThread) -> None:
    table, a, _b = two_people(server)
    assert a.act({"type": "plant", "field": 0})["type"] == "ack"
    a.wait_for(lambda m: m["type"] == "state")
    before = a.state
    assert before is not None
    a.close()
    # The same token on a new connection: the same seat, the same view, and it goes on.
    c = server.client(table, a.token)
    assert c.seat == 0 and c.seq == before["seq"]
    assert c.view == before["view"]
    assert any(e["type"] == "plant" for e in c.state["log"])  # type: ignore[index]
    assert c.act({"type": "stop_planting"})["type"] == "ack"


def test_absent_player_is_replaced_by_a_bot_until_back(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = make_server(away_timeout=0.3)
    table, a, b = two_people(srv)
    b.close()  # seat 1 goes away
    # Seat 0 plays its turn; then seat 1's turn is played by a bot.
    a.act({"type": "plant", "field": 0})
    a.act({"type": "plant", "field": 0})
    a.act({"type": "end_trading"})
    plant_trade_area(a)
    info = a.wait_for(lambda m: m["type"] == "table" and m["table"]["seats"][1]["replaced"], 10)[
        "table"
    ]
    assert info["seats"][1]["connected"] is False
    a.wait_for(lambda m: m["type"] == "state" and m["view"]["active"] == 2, 15)
    # Seat 1 comes back: no longer replaced.
    back = srv.client(table, b.token)
    assert back.seat == 1
    info = a.wait_for(
        lambda m: m["type"] == "table" and not m["table"]["seats"][1]["replaced"], 10
    )["table"]
    assert info["seats"][1]["connected"] is True


def test_trading_time_limit_ends_phase_two(server: ServerThread) -> None:
    _table, a, _b = two_people(server, trade_limit=1)
    a.act({"type": "plant", "field": 0})
    a.act({"type": "plant", "field": 0})
    a.wait_for(lambda m: m["type"] == "state" and m["view"]["phase"] == "trade")
    started = time.monotonic()
    state = a.wait_for(lambda m: m["type"] == "state" and m["view"]["phase"] != "trade", 10)
    assert 0.8 < time.monotonic() - started < 5
    assert any(e["type"] == "end_trading" and e["seat"] == 0 for e in state["events"])


def test_bots_answer_offers(server: ServerThread) -> None:
    _table, a, _b = two_people(server)
    a.act({"type": "plant", "field": 0})
    a.act({"type": "plant", "field": 0})
    a.wait_for(lambda m: m["type"] == "state" and m["view"]["phase"] == "trade")
    card = a.view["hand"][0]["id"]
    assert (
        a.act({"type": "propose", "offer": {"to": 2, "give": [card], "want": []}})["type"] == "ack"
    )
    state = a.wait_for(
        lambda m: m["type"] == "state" and any(e["type"] == "decline" for e in m["events"])
    )
    assert not state["view"]["offers"]  # the autarky bot refused the gift


# ------------------------------------------------------------------ chat, leave, rematch


def test_chat_reaches_everybody(server: ServerThread) -> None:
    table, a, b = two_people(server)
    spectator = server.client(table)
    a.send({"type": "chat", "text": "  hello beans  "})
    for c in (a, b, spectator):
        line = c.wait_for(lambda m: m["type"] == "chat")
        assert line["text"] == "hello beans" and line["seat"] == 0 and line["name"] == "Ada"
    spectator.send({"type": "chat", "text": "nice"})
    assert a.wait_for(lambda m: m["type"] == "chat")["seat"] is None
    late = server.client(table)
    welcome = next(m for m in late.messages if m["type"] == "welcome")
    assert [m["text"] for m in welcome["chat"]] == ["hello beans", "nice"]


def test_leave_in_the_lobby_frees_the_seat(server: ServerThread) -> None:
    made = server.create(seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}])
    table = made["table"]["id"]
    joined = server.join(table, "Bob")
    b = server.client(table, joined["token"])
    assert b.request({"type": "leave"})["type"] == "left"
    info = b.wait_for(lambda m: m["type"] == "table")["table"]
    assert info["seats"][1]["taken"] is False
    # The old token is void now; the seat can be taken again.
    c = server.client(table, hello=False)
    assert c.hello(joined["token"])["code"] == "bad_token"
    assert server.join(table, "Cy")["seat"] == 1


def test_leave_during_the_game_hands_the_seat_to_a_bot(server: ServerThread) -> None:
    _table, a, b = two_people(server)
    assert b.request({"type": "leave"})["type"] == "left"
    info = a.wait_for(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "bot")
    assert info["table"]["seats"][1]["bot"] == "heuristic"  # the table's stand-in bot
    assert b.act({"type": "plant", "field": 0})["code"] == "not_seated"


def test_finished_game_rematch_and_replay(make_server: Callable[..., ServerThread]) -> None:
    from bohnanza.agents import lobby_agents

    # Every quick bot kind plays (a searching bot would make the test slow).
    quick = [k for k in lobby_agents() if k != "search"]
    srv = make_server(away_timeout=0.0)
    made = srv.create(
        seed=4,
        players=4,
        seats=[{"kind": "person"}]
        + [{"kind": "bot", "bot": quick[i % len(quick)]} for i in range(3)],
    )
    table = made["table"]["id"]
    a = srv.client(table, made["token"])
    a.request({"type": "start"})
    with srv.http() as http:
        assert http.get(f"/api/tables/{table}/record").status_code == 403
        assert http.get(f"/api/tables/{table}/replay").status_code == 403
    a.close()  # away at once: bots play the whole game
    deadline = time.monotonic() + 60
    with srv.http() as http:
        while http.get(f"/api/tables/{table}").json()["status"] != "over":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        record = http.get(f"/api/tables/{table}/record").json()
        assert record["result"] is not None and record["seats"][0]["kind"] == "person"
        first = http.get(f"/api/tables/{table}/replay", params={"step": 0}).json()
        last = http.get(f"/api/tables/{table}/replay", params={"step": first["total"]}).json()
        assert (
            last["view"]["phase"] == "over" and last["view"]["scores"] == record["result"]["scores"]
        )
        assert sum(len(h) for h in first["hands"]) == 20
    from bohnanza.records import replay

    assert replay(record).over
    a = srv.client(table, made["token"])
    assert a.view["phase"] == "over" and a.info["status"] == "over"  # type: ignore[index]
    assert a.act({"type": "plant", "field": 0})["code"] == "game_over"
    a.send({"type": "rematch"})
    msg = a.wait_for(lambda m: m["type"] == "rematch")
    new = msg["table"]
    assert new != table
    # The rematch is a new table in the lobby; its proposer holds their old seat there
    # with a new token, and the bots keep theirs.
    c = srv.client(new, msg["token"])
    assert c.seat == 0 and c.info["status"] == "lobby" and c.info["rematch_of"] == table  # type: ignore[index]
    assert [s["kind"] for s in c.info["seats"]] == ["person", "bot", "bot", "bot"]  # type: ignore[index]
    # Asking again does not make a second table: the seat there is already taken.
    a.send({"type": "rematch"})
    assert a.wait_for(lambda m: m["type"] == "error")["code"] == "not_allowed"
    with httpx.Client(base_url=srv.url) as http:
        listed = http.get("/api/tables").json()["tables"]
        assert {t["id"] for t in listed} >= {table, new}


def test_a_flood_is_rate_limited(server: ServerThread) -> None:
    _table, a, _b = two_people(server)
    for _ in range(150):
        a.send({"type": "ping"})
    answers = [a.wait_for(lambda m: m["type"] in ("pong", "error")) for _ in range(150)]
    limited = [m for m in answers if m["type"] == "error"]
    assert limited and all(m["code"] == "rate_limited" for m in limited)
    assert sum(1 for m in answers if m["type"] == "pong") >= 90
    time.sleep(0.3)
    assert_alive(a)


def test_every_string_the_pages_use_exists_in_both_languages() -> None:
    import re
    from pathlib import Path

    from bohnanza.web.i18n import EN, PL

    assert set(EN) == set(PL)
    static = Path(__file__).resolve().parents[2] / "src" / "bohnanza" / "web" / "static"
    text = "\n".join(p.read_text(encoding="utf-8") for p in static.glob("*.*"))
    used = set(re.findall(r'\bt\("([a-z_.]+)"', text))
    used |= set(re.findall(r'data-t(?:-ph|-title)?="([a-z_.]+)"', text))
    dynamic = {k for k in used if k.endswith(".")}
    missing = sorted(k for k in used - dynamic if k not in EN)
    assert not missing, missing
    for prefix in dynamic:
        assert any(k.startswith(prefix) for k in EN), prefix
    # The dynamic families are complete: the modules' names and phases come from their
    # ModuleInfo (sent in the same tables, strings()).
    from bohnanza.rules import all_rulesets
    from bohnanza.web.i18n import strings

    ui = strings()["ui"]
    for lang in ("en", "pl"):
        for r in all_rulesets():
            assert f"rules.{r['rules']}" in ui[lang] and f"rules_note.{r['rules']}" in ui[lang]
    EN = ui["en"]
    for phase in (
        "plant",
        "trade",
        "plant_traded",
        "over",
        "duel_offer",
        "duel_discard",
        "duel_reveal",
    ):
        assert f"phase.{phase}" in EN
    for kind in ("red", "black", "man", "lady", "child"):
        assert f"kind.{kind}" in EN


def test_a_slow_bot_does_not_block_the_server(
    server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bots think in a worker thread: a slow one (like a searching bot) keeps its table
    waiting, not the server."""
    from bohnanza.agents import AGENTS
    from bohnanza.agents.simple import AutarkyAgent

    class Sleepy(AutarkyAgent):
        def act(self, view: Any, legal: Any, required: bool) -> Any:
            time.sleep(0.6)
            return super().act(view, legal, required)

    monkeypatch.setitem(AGENTS, "sleepy", Sleepy)
    made = server.create(
        seats=[{"kind": "bot", "bot": "sleepy"}, {"kind": "person"}, {"kind": "bot"}]
    )
    table = made["table"]["id"]
    a = server.client(table, made["token"])
    assert a.seat == 1
    a.request({"type": "start"})
    a.wait_for(lambda m: m["type"] == "state")
    with server.http() as http:
        slowest = 0.0
        for _ in range(8):
            started = time.monotonic()
            assert http.get("/healthz").status_code == 200
            slowest = max(slowest, time.monotonic() - started)
            time.sleep(0.05)
    assert slowest < 0.4
    a.wait_for(lambda m: m["type"] == "state" and m["seq"] >= 1, 10)


def test_a_module_action_is_named_in_refusals_and_piles_headed_from_its_module() -> None:
    """A refusal names the refused action (act.<type>): a module's by its shape's label, in
    both languages, for a module registered after the strings were first built (issue 27);
    a public pile's heading comes from ModuleInfo.pile_labels, sent with the table."""
    from bohnanza.modules import module_info, module_json, module_shapes
    from bohnanza.web.i18n import strings
    from fixtures import module_toll

    shapes = {s["type"]: s for s in module_shapes("fasolki+fasolufka")}
    ui = strings()["ui"]
    assert ui["en"]["act.move_lady"] == shapes["move_lady"]["label"][0]
    assert ui["pl"]["act.move_lady"] == shapes["move_lady"]["label"][1]
    assert ui["en"]["act.plant"] == "planting"  # the base game's own words stay
    module_toll.register()
    try:
        toll = {s["type"]: s for s in module_shapes("fasolki+toll")}["toll"]
        ui = strings()["ui"]
        assert (ui["en"]["act.toll"], ui["pl"]["act.toll"]) == tuple(toll["label"])
    finally:
        module_toll.unregister()
    duel = module_json("fasolki+duel")
    assert set(duel["pile_labels"]) == set(duel["public"]) == set(module_info("duel").public)
