"""A real group's evening (issue 31), over HTTP and real WebSockets: stand-ins that trade,
no double moves, refusals as data. The browser side is in ``test_browser_evening.py``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from bohnanza.actions import Action, Offer
from bohnanza.errors import IllegalAction
from bohnanza.game import Game
from bohnanza.modules import module_info
from bohnanza.refusals import explain
from bohnanza.web.i18n import EN, PL, strings
from bohnanza.web.limits import Limits
from bohnanza.web.model import Table
from bohnanza.web.standin import away_delay

from .conftest import ServerThread
from .test_friends import STATIC
from .test_protocol import DECK, two_people


def test_the_away_delay_follows_the_tables_clock() -> None:
    def delay(clock: str | None) -> float:
        table = Table("t", 0.0, "lobby", {"rules": "classic", "players": 3, "clock": clock}, [])
        return away_delay(table, 60.0)

    # Without a clock or with a relaxed one a lost connection has time to come back; a
    # fast table does not wait out most of a bank for nobody.
    assert delay(None) == delay("none") == delay("relaxed") > delay("normal") > delay("fast")
    assert delay("fast") <= 20


def test_an_away_person_is_played_by_the_tables_trading_bot_and_told_on_return(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = make_server(away_timeout=0.2)
    # The default stand-in is a trading bot.
    assert srv.create()["table"]["stand_in_bot"] == "heuristic"
    # The host chose the bot that accepts every offer: its acceptance is certain.
    table, a, b = two_people(srv, stand_in_bot="probe-accept")
    b.close()  # Bob closes his tab
    a.wait_for(lambda m: m["type"] == "table" and m["table"]["seats"][1]["played"], 10)
    a.act({"type": "plant", "field": 0})
    a.act({"type": "plant", "field": 0})
    a.wait_for(lambda m: m["type"] == "state" and m["view"]["phase"] == "trade", 10)
    card = a.view["hand"][0]["id"]
    offer = {"to": 1, "give": [card], "want": []}
    assert a.act({"type": "propose", "offer": offer})["type"] == "ack"
    traded = a.wait_for(
        lambda m: m["type"] == "state" and any(e["type"] == "trade" for e in m["events"]), 10
    )
    trade = next(e for e in traded["events"] if e["type"] == "trade")
    assert trade["seat"] == 1 and trade["proposer"] == 0  # the stand-in accepted
    # Bob is back: the seat is his again at once, and he is told what was played.
    back = srv.client(table, b.token, hello=False)
    welcome = back.hello(b.token)
    assert welcome["table"]["seats"][1]["replaced"] is False
    returned = back.wait_for(lambda m: m["type"] == "returned", 10)
    assert returned["seat"] == 1
    assert any(e["type"] == "trade" and e["proposer"] == 0 for e in returned["played"])
    a.wait_for(lambda m: m["type"] == "state" and {"type": "back", "seat": 1} in m["events"])
    log = [
        (e["type"], e.get("seat")) for m in a.messages if m["type"] == "state" for e in m["events"]
    ]
    assert ("away", 1) in log and ("back", 1) in log
    assert log.index(("away", 1)) < log.index(("back", 1))


def test_a_resigned_seat_gets_the_tables_stand_in(server: ServerThread) -> None:
    _table, a, b = two_people(server, stand_in_bot="random")
    assert b.request({"type": "leave"})["type"] == "left"
    info = a.wait_for(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "bot")
    assert info["table"]["seats"][1]["bot"] == "random"
    with server.http() as http:
        body = {"rules": "classic", "players": 3, "name": "Ada", "stand_in_bot": "nobody"}
        body["seats"] = [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}]
        r = http.post("/api/tables", json=body)
        assert r.status_code == 400 and "stand-in" in r.json()["error"]
        # A searching bot thinks long a move: never the stand-in of every person at once.
        r = http.post("/api/tables", json={**body, "stand_in_bot": "search"})
        assert r.status_code == 400 and "stand-in" in r.json()["error"]


def test_a_repeated_client_id_is_carried_out_once(server: ServerThread) -> None:
    _table, a, _b = two_people(server)
    msg = {"type": "action", "id": "page1234.7", "action": {"type": "plant", "field": 0}}
    a.send(msg)
    a.send(msg)  # a double click, or a resend on a slow line
    answers = [a.wait_for(lambda m: m.get("id") == "page1234.7") for _ in range(2)]
    assert answers[0] == answers[1] and answers[0]["type"] == "ack"
    assert answers[0]["seq"] == 1
    # A refusal is repeated as it was, and a new id is a new message.
    again = {"type": "action", "id": "page1234.8", "action": {"type": "buy_field"}}
    a.send(again)
    a.send(again)
    refusals = [a.wait_for(lambda m: m.get("id") == "page1234.8") for _ in range(2)]
    assert refusals[0] == refusals[1] and refusals[0]["code"] == "illegal"
    assert a.act({"type": "plant", "field": 0})["seq"] == 2  # the plant happened once


def test_creating_a_table_twice_with_one_request_id_makes_one_table(
    server: ServerThread,
) -> None:
    body: dict[str, Any] = {
        "rules": "classic",
        "players": 3,
        "name": "Ada",
        "seats": [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}],
        "request_id": "create-0001",
        "deck": DECK,
    }
    answers: list[dict[str, Any]] = []

    def post() -> None:
        with server.http() as http:
            r = http.post("/api/tables", json=body)
            assert r.status_code == 200
            answers.append(r.json())

    threads = [threading.Thread(target=post) for _ in range(3)]  # a triple click
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(answers) == 3
    assert len({x["table"]["id"] for x in answers}) == 1
    assert len({x["token"] for x in answers}) == 1
    with server.http() as http:
        other = http.post("/api/tables", json={**body, "request_id": "create-0002"}).json()
        listed = [t["id"] for t in http.get("/api/tables").json()["tables"]]
    assert other["table"]["id"] != answers[0]["table"]["id"]
    assert sorted(listed) == sorted({answers[0]["table"]["id"], other["table"]["id"]})


def test_a_seat_moves_to_another_device_and_the_first_one_watches(
    server: ServerThread,
) -> None:
    table, a, _b = two_people(server)
    link = a.request({"type": "move"})
    assert link["type"] == "move" and link["token"] != a.token
    # Until the link is opened the seat stays where it is.
    assert a.act({"type": "plant", "field": 0})["type"] == "ack"
    phone = server.client(table, link["token"])
    assert phone.seat == 0
    moved = a.wait_for(lambda m: m["type"] == "moved")
    assert moved["state"]["legal"] == []  # a spectator's state
    assert a.act({"type": "plant", "field": 0})["code"] == "not_seated"
    # The seat was moved, not copied: the old token is void, the host role moved with it.
    stale = server.client(table, hello=False)
    assert stale.hello(a.token)["code"] == "bad_token"
    assert phone.info is not None and phone.info["host"] == 0
    assert phone.act({"type": "plant", "field": 0})["type"] == "ack"
    # The link's token is the seat's own now (the phone keeps it in its storage).
    late = server.client(table, hello=False)
    assert late.hello(link["token"])["seat"] == 0


def test_refusals_are_exact_for_the_active_seat_and_for_a_fields_variety(
    server: ServerThread,
) -> None:
    # Seat 0's hand: Blue, Chili, ... (the deck is dealt in order).
    deck = ["blue", "chili", "chili", "soy", "wax"] + ["chili", "soy", "wax", "green"] * 2
    _table, a, _b = two_people(server, deck=deck)
    assert a.act({"type": "plant", "field": 0})["type"] == "ack"
    # R-PLANT-3: the field's variety and the card's, not "planting is not possible now".
    refused = a.act({"type": "plant", "field": 0})
    assert refused["refusal"] == {
        "code": "field_variety",
        "rule": "R-PLANT-3",
        "params": {"field": 1, "top": "blue", "card": "chili"},
    }
    # A second "stop planting" (a double click) tells seat 1 the phase, not that "the
    # active player is seat 1" (R-PLANT-2).
    assert a.act({"type": "stop_planting"})["type"] == "ack"
    again = a.act({"type": "stop_planting"})
    assert again["refusal"] == {
        "code": "wrong_phase",
        "rule": "R-PLANT-2",
        "params": {"action": "stop_planting", "phase": "trade"},
    }


def test_polish_variety_names_take_the_accusative_as_objects() -> None:
    beans = strings()["beans"]
    # The forms come from the card data (every form of every variety: tests/test_polish.py).
    assert all(b["pl_acc"] for b in beans.values())
    assert beans["stink"]["pl_acc"] == "Śmierdzącą" and beans["chili"]["pl_acc"] == "Chili"
    for b in beans.values():
        if b["pl"].endswith("a"):  # the feminine adjectives: -a, -ą
            assert b["pl_acc"] == b["pl"][:-1] + "ą"
    # Every Polish line that names a card as its object is worded with the accusative
    # (board.js passes acc=true for these; the others name cards after a colon).
    board = (STATIC / "board.js").read_text(encoding="utf-8")
    for key in ("ev.plant", "ev.draw_own"):
        line = next(x for x in board.splitlines() if f'"{key}"' in x)
        assert "Board.cardText(e.card, true)" in line, key
    # A module's events name their object {card_acc}, which the page fills accusative.
    line = next(x for x in board.splitlines() if '"card_acc") return Board.cardText' in x)
    assert 'key === "card_acc")' in line
    pull = module_info("duel").event_labels["pull_discard"][0].text[1]
    assert "{card_acc}" in pull
    assert "{who} sadzi {card}" in PL["ev.plant"]
    # The seat menus describe the bots in Polish too.
    for bot in ("random", "autarky", "heuristic", "search"):
        assert PL[f"bot_desc.{bot}"] and PL[f"bot_desc.{bot}"] != EN[f"bot_desc.{bot}"]


def test_unknown_names_replays_and_the_scriptless_home_form(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = make_server(limits=Limits(allowed_hosts=("localhost",)))
    with srv.http() as http:
        # A friend's browser on a LAN name the server was not told: a page saying how.
        page = http.get("/", headers={"Host": "pc.lan:8000", "Accept": "text/html"})
        assert page.status_code == 400 and "text/html" in page.headers["content-type"]
        assert "--allowed-host pc.lan" in page.text
        api = http.get("/api/tables", headers={"Host": "pc.lan:8000", "Accept": "text/html"})
        assert api.status_code == 400 and api.json()["code"] == "unknown_host"
        plain = http.get("/", headers={"Host": "pc.lan:8000"})
        assert plain.status_code == 400 and plain.json()["error"] == "unknown host name"
        local = {"Host": "localhost"}
        assert http.get("/replay/doesnotexist", headers=local).status_code == 404
        # Before the scripts load, "Create" posts the form: the typed name is kept.
        posted = http.post(
            "/new", headers=local, data={"name": "Ola", "players": "3", "rules": "classic"}
        )
        assert posted.status_code == 303
        target = posted.headers["location"]
        # A one-time code, not the token: the token would stay in the browser's history.
        assert target.startswith("/t/") and "#claim=" in target and "#seat=" not in target
        table = target.split("/t/", 1)[1].split("#", 1)[0]
        code = target.split("#claim=", 1)[1]
        claimed = http.post(f"/api/tables/{table}/claim", headers=local, json={"code": code})
        assert claimed.status_code == 200 and claimed.json()["token"]
        again = http.post(f"/api/tables/{table}/claim", headers=local, json={"code": code})
        assert again.status_code == 404
        info = http.get(f"/api/tables/{table}", headers=local).json()
        assert info["seats"][0]["name"] == "Ola" and info["players"] == 3
        assert [s["kind"] for s in info["seats"]] == ["person", "bot", "bot"]
        home = http.get("/", headers=local).text
        assert 'action="/new"' in home and 'name="name"' in home and ">Your name<" in home


def test_offer_refusals_name_the_active_player_and_a_gone_offer() -> None:
    game = Game.new("classic", 4, seed=5)
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    card = game.hands[1][0]
    # R-TRADE-2: seat 2 may not offer to seat 3 (neither is active); seat 1 is told who is.
    between = Action.propose(Offer(to=3, give=(card,), want=()))
    with pytest.raises(IllegalAction) as caught:
        game.check(1, between)
    refusal = explain(between, caught.value)
    assert refusal.to_json() == {
        "code": "trade_with_active",
        "rule": "R-TRADE-2",
        "params": {"active": 1},  # what its words need (bohnanza.refusals.REASONS)
    }
    # An answer to an offer that is no longer open (a double click on "Decline").
    gone = Action.decline(99)
    with pytest.raises(IllegalAction) as caught:
        game.check(1, gone)
    assert explain(gone, caught.value).code == "offer_gone"
    assert "err.trade_with_active" in PL and "{who}" in PL["err.trade_with_active"]
