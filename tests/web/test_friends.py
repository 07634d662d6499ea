"""Playing with friends (issue 13), over HTTP and real WebSockets: the rules reference and
its page, invite links and QR codes, clocks, refusals as data, rematches by consent."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bohnanza.web.limits import Limits
from bohnanza.web.rules_page import rule_ids

from .client import Client
from .conftest import ServerThread

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "bohnanza" / "web" / "static"
RULE = re.compile(r"\bR-[A-Z0-9]+-[A-Z0-9]+\b")


# ------------------------------------------------------------------ the rules reference


def test_every_rule_id_cited_by_the_code_and_tests_is_in_docs_rules_md() -> None:
    # The web app ships copies of the two documents; they must not drift apart.
    assert (STATIC / "rules.en.md").read_text() == (ROOT / "docs" / "rules.md").read_text()
    assert (STATIC / "rules.pl.md").read_text() == (ROOT / "docs" / "rules.pl.md").read_text()
    en, pl = rule_ids("en"), rule_ids("pl")
    assert len(en) == len(set(en)) >= 57 and en == pl  # same IDs, same order, no repeats
    cited: set[str] = set()
    for folder in ("src", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            cited |= set(RULE.findall(path.read_text(encoding="utf-8")))
    # The toy rules of the example modules in tests/fixtures (docs/modules.md's worked
    # example), which are not rules of the game, are the only others.
    cited -= {"R-TOLL-1", "R-COMPOST-1"}
    # Every ID the code and the tests cite resolves inside the repository.
    assert cited and cited <= set(en), sorted(cited - set(en))
    # The rule sets and modules each have their section.
    text = (ROOT / "docs" / "rules.md").read_text()
    for name in ("classic", "first-edition", "New Bean Varieties", "Fasolkopająki", "Fasolufka"):
        assert name in text


def test_the_rules_page_has_an_anchor_per_rule_in_both_languages(server: ServerThread) -> None:
    with server.http() as http:
        for lang, needle in (("en", "A third field costs 3 coins"), ("pl", "kosztuje 3 monety")):
            page = http.get("/rules", params={"lang": lang})
            assert page.status_code == 200 and f'<html lang="{lang}">' in page.text
            assert needle in page.text and "<script" not in page.text
            anchors = re.findall(r'<li id="(R-[A-Z0-9-]+)"', page.text)
            assert anchors == rule_ids(lang)
        # Rule IDs cited inside a rule link to their anchor.
        assert '<a href="#R-HARV-3">R-HARV-3</a>' in http.get("/rules").text


# ------------------------------------------------------------------ invites


def test_invite_links_use_the_address_the_browser_used(
    make_server: Callable[..., ServerThread],
) -> None:
    # A name the server answers to must be allowed (--allowed-host: DNS rebinding);
    # naming one replaces the default (localhost names and the bound address).
    limits = Limits(
        create_per_minute=0,
        open_tables_per_address=0,
        ws_per_address=0,
        allowed_hosts=("beans.lan", "127.0.0.1"),
    )
    srv = make_server(public_addresses=("http://192.0.2.7:8000/",), limits=limits)
    table = srv.create()["table"]["id"]
    with srv.http() as http:
        # A friend's browser that reached the server by its LAN name gets that name back.
        links = http.get(f"/api/tables/{table}/invite", headers={"Host": "beans.lan:8000"}).json()[
            "links"
        ]
        assert links == [f"http://beans.lan:8000/t/{table}"]
        # The creator on the server's own machine (the first address printed) gets the
        # network address first: the link, Copy and QR code friends can open.
        links = http.get(f"/api/tables/{table}/invite").json()["links"]
        assert links == [f"http://192.0.2.7:8000/t/{table}", f"{srv.url}/t/{table}"]
        # A proxy's headers count only with --trust-proxy.
        proxied = {"Host": "127.0.0.1:8000", "X-Forwarded-Host": "beans.example.org"}
        links = http.get(f"/api/tables/{table}/invite", headers=proxied).json()["links"]
        assert links[-1] == f"http://127.0.0.1:8000/t/{table}" and "beans.example" not in str(links)
        assert http.get("/api/tables/nope/invite").status_code == 404
    trusting = make_server(trust_proxy=True)
    table = trusting.create()["table"]["id"]
    with trusting.http() as http:
        headers = {**proxied, "X-Forwarded-Proto": "https"}
        links = http.get(f"/api/tables/{table}/invite", headers=headers).json()["links"]
        assert links == [f"https://beans.example.org/t/{table}"]


def test_the_invite_names_the_public_url_first(
    make_server: Callable[..., ServerThread],
) -> None:
    """Behind a proxy (``--public-url``), whatever address the host opened, the invite
    is the name players use."""
    srv = make_server(
        public_addresses=("http://192.0.2.7:8000/",), public_url="https://beans.example.org"
    )
    table = srv.create()["table"]["id"]
    with srv.http() as http:
        invite = http.get(f"/api/tables/{table}/invite").json()
    assert invite["links"][0] == f"https://beans.example.org/t/{table}"
    assert invite["reachable"] == invite["links"][0]


def test_serve_refuses_a_public_url_that_is_no_web_address(tmp_path: Any) -> None:
    from click.testing import CliRunner

    from bohnanza.web.command import serve

    db = ["--port", "0", "--database-url", f"sqlite:///{tmp_path / 'g.db'}"]
    result = CliRunner().invoke(serve, [*db, "--public-url", "javascript:alert(1)"])
    assert result.exit_code == 2 and "--public-url" in result.output


def test_qr_codes_are_svg_for_links_only(server: ServerThread) -> None:
    with server.http() as http:
        r = http.post("/api/qr", json={"text": "http://beans.lan:8000/t/abc"})
        assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
        assert r.text.lstrip().startswith("<svg") and "<script" not in r.text
        assert http.post("/api/qr", json={"text": "javascript:alert(1)"}).status_code == 400
        assert http.post("/api/qr", json={"text": "http://x/" + "a" * 700}).status_code == 400


def test_serve_public_prints_every_address() -> None:
    from bohnanza.web.invite import listen_addresses

    everywhere = listen_addresses("0.0.0.0", 8123)
    assert everywhere[0] == "http://127.0.0.1:8123/" and all(
        a.startswith("http://") and a.endswith(":8123/") for a in everywhere
    )
    assert listen_addresses("127.0.0.1", 80) == ["http://127.0.0.1:80/"]


# ------------------------------------------------------------------ clocks


def welcome(c: Client) -> dict:
    return next(m for m in c.messages if m["type"] == "welcome")


def states_until(c: Client, pred: Callable[[dict], bool], timeout: float = 15) -> list[dict]:
    """Every message up to (and including) the first ``state`` for which ``pred`` holds."""
    seen = []
    deadline = time.monotonic() + timeout
    while True:
        msg = c.recv(max(0.1, deadline - time.monotonic()))
        seen.append(msg)
        if msg["type"] == "state" and pred(msg):
            return seen
        assert time.monotonic() < deadline, "timed out"


def test_a_clock_runs_out_and_the_bot_plays_for_the_idle_player(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = make_server(bot_grace=30.0)  # the countdown, not the stand-in, ends trading
    made = srv.create(clock="custom:1.5,0,2", seed=3)
    assert made["table"]["clock"] == "custom:1.5,0,2" and made["table"]["trade_limit"] == 2
    a = srv.client(made["table"]["id"], made["token"])
    a.request({"type": "start"})
    first = a.wait_for(lambda m: m["type"] == "state")
    assert first["clock"]["running"] == [0] and first["clock"]["people"] == [0]
    assert 0 < first["clock"]["bank"][0] <= 1.5
    started = time.monotonic()
    # Seat 0 does nothing: after 1.5 s the log says so, and the bot plants for it.
    seen = states_until(a, lambda m: any(e["type"] == "plant" for e in m["events"]))
    events = [e for m in seen if m["type"] == "state" for e in m["events"]]
    assert time.monotonic() - started >= 1.2
    timeout = events.index({"type": "clock_timeout", "seat": 0})
    assert next(e for e in events[timeout:] if e["type"] == "plant")["seat"] == 0
    # Phase 2 has a countdown for everybody; it ends trading when it runs out.
    trade = states_until(a, lambda m: m["view"]["phase"] == "trade")[-1]
    assert 0 < trade["trade_left"] <= 2
    seen = states_until(a, lambda m: any(e["type"] == "end_trading" for e in m["events"]))
    events = [e["type"] for m in seen if m["type"] == "state" for e in m["events"]]
    assert "trade_time_up" in events
    assert events.index("trade_time_up") < events.index("end_trading")
    # A reconnecting client finds both notes in the log.
    b = srv.client(made["table"]["id"], made["token"])
    log = [e["type"] for e in welcome(b)["state"]["log"]]
    assert "clock_timeout" in log and "trade_time_up" in log


def test_a_bad_clock_is_refused(server: ServerThread) -> None:
    with server.http() as http:
        body = {"rules": "classic", "players": 3, "name": "Ada", "clock": "blitz"}
        body["seats"] = [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}]
        r = http.post("/api/tables", json=body)
        assert r.status_code == 400 and "relaxed" in r.json()["error"]


# ------------------------------------------------------------------ refusals


def test_a_refusal_carries_its_rule_and_one_based_numbers(server: ServerThread) -> None:
    made = server.create(seed=2, players=4, seats=[{"kind": "person"}] + [{"kind": "bot"}] * 3)
    a = server.client(made["table"]["id"], made["token"])
    a.request({"type": "start"})
    state = a.wait_for(lambda m: m["type"] == "state")
    # No coins: buying a third field is not offered, and refused with its reasons as data.
    assert not any(x["type"] == "buy_field" for x in state["legal"])
    answer = a.act({"type": "buy_field"})
    assert answer["code"] == "illegal" and answer["rule"] == "R-FIELD-2"
    assert answer["refusal"] == {
        "code": "field_price",
        "rule": "R-FIELD-2",
        "params": {"price": 3, "coins": 0},
    }
    answer = a.act({"type": "harvest", "field": 1})
    assert answer["refusal"]["code"] == "field_empty"
    assert answer["refusal"]["params"] == {"field": 2}  # players count fields from 1


# ------------------------------------------------------------------ rematch


def test_a_rematch_is_joined_by_choice(make_server: Callable[..., ServerThread]) -> None:
    srv = make_server(away_timeout=0.0)
    made = srv.create(seats=[{"kind": "person"}] * 3, seed=8)
    table = made["table"]["id"]
    bob = srv.join(table, "Bob")
    cid = srv.join(table, "Cid")
    tokens = [made["token"], bob["token"], cid["token"]]
    a, b, c = (srv.client(table, t) for t in tokens)
    a.request({"type": "start"})
    for x in (a, b, c):
        x.close()  # everybody away: their bots play the game to the end quickly
    deadline = time.monotonic() + 60
    with srv.http() as http:
        while http.get(f"/api/tables/{table}").json()["status"] != "over":
            assert time.monotonic() < deadline
            time.sleep(0.1)
    a, b, c = (srv.client(table, t) for t in tokens)
    watcher = srv.client(table)
    a.send({"type": "rematch"})
    mine = a.wait_for(lambda m: m["type"] == "rematch")
    new = mine["table"]
    # The others are invited; the spectator is not moved anywhere.
    assert b.wait_for(lambda m: m["type"] == "rematch_invite") == {
        "type": "rematch_invite",
        "table": new,
        "from": 0,
    }
    c.wait_for(lambda m: m["type"] == "rematch_invite")
    watcher.wait_for(lambda m: m["type"] == "table" and m["table"]["rematch"] == new)
    b.send({"type": "rematch_join"})
    joined = b.wait_for(lambda m: m["type"] == "rematch")
    c.send({"type": "rematch_decline"})
    declined = a.wait_for(lambda m: m["type"] == "rematch_declined")
    assert declined["seat"] == 2
    # A declined seat cannot be joined afterwards.
    c.send({"type": "rematch_join"})
    assert c.wait_for(lambda m: m["type"] == "error")["code"] == "not_allowed"
    a2 = srv.client(new, mine["token"])
    b2 = srv.client(new, joined["token"])
    assert (a2.seat, b2.seat) == (0, 1)
    seats = welcome(a2)["table"]["seats"]
    assert [(s["kind"], s["name"]) for s in seats[:2]] == [("person", "Ada"), ("person", "Bob")]
    assert seats[2]["kind"] == "bot"
    assert a2.request({"type": "start"})["type"] == "ack"
    with pytest.raises(TimeoutError):
        watcher.wait_for(lambda m: m["type"] == "rematch", timeout=0.5)


def test_mail_links_start_with_an_address_friends_can_open() -> None:
    """Without ``--public-url`` the links in e-mails used the first address printed,
    ``127.0.0.1``, which opens nothing on a friend's phone; the network address now."""
    from bohnanza.web.invite import reachable_base

    printed = ("http://127.0.0.1:8100/", "http://192.168.1.5:8100/")
    assert reachable_base(printed) == "http://192.168.1.5:8100/"
    assert reachable_base(("http://127.0.0.1:8100/",)) == "http://127.0.0.1:8100/"
