"""Browser tests for playing with friends (issue 13): Playwright driving Debian's Chromium.

Invite links from the browser's own address, the "your turn" title, a clock that runs out,
paying with a turned-up card, no buttons for illegal actions, a Polish refusal linking to
the rules page, a seat continued on another device, a stale token, a rematch joined by one
player and declined by another. Screenshots go to ``out/screenshots`` (and, with
``BOHNANZA_DOC_SHOTS=1``, the ones ``docs/web.md`` shows to ``docs/img``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, ServerThread
from .test_browser import DECK, DESKTOP, PHONE, new_page

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def doc_shot(page: Any, shots: Path, name: str, full_page: bool = True) -> None:
    page.screenshot(path=str(shots / name), full_page=full_page)
    if os.environ.get("BOHNANZA_DOC_SHOTS") == "1":
        page.screenshot(path=str(ROOT / "docs" / "img" / name), full_page=full_page)


def with_token(page: Any, origin: str, table: str, token: str) -> None:
    page.goto(origin + "/rules")  # any page of the origin, to reach its localStorage
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"bohnanza.token.{table}", token])
    page.goto(f"{origin}/t/{table}")


def test_friends_invite_trade_with_turned_up_cards_and_move_devices(
    browser: Any, server: ServerThread, shots: Path
) -> None:
    made = server.create(
        rules="fasolki",
        seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "bot": "autarky"}],
        seed=1,
        deck=DECK,
    )
    table = made["table"]["id"]
    errors: list[str] = []
    # Ada opened the server as "localhost": her invite link says so (not 127.0.0.1).
    a = new_page(browser, DESKTOP, errors)
    local = f"http://localhost:{server.port}"
    with_token(a, local, table, made["token"])
    a.wait_for_selector("#btn-start")
    a.wait_for_function("document.querySelector('#share-link').value.includes('localhost')")
    assert a.input_value("#share-link") == f"{local}/t/{table}"
    a.wait_for_selector("#invite-qr svg")
    # The QR code is real SVG, drawn at a size a phone's camera can read.
    box = a.locator("#invite-qr svg").bounding_box()
    assert box is not None and box["width"] >= 100 and box["height"] >= 100
    assert a.evaluate("document.querySelector('#invite-qr svg').namespaceURI").endswith("svg")
    doc_shot(a, shots, "table-lobby-desktop-en.png")
    # Bob joins on a phone, in Polish, without typing a name: he is "Gracz 2".
    b = new_page(browser, PHONE, errors)
    b.goto(server.url + "/rules")
    b.evaluate("localStorage.setItem('bohnanza.lang', 'pl')")
    b.goto(f"{server.url}/t/{table}")
    b.wait_for_selector(".take-seat")
    b.click(".take-seat")
    a.wait_for_selector("#btn-start:not([disabled])")
    assert "Gracz 2" in a.locator("#lobby").inner_text()
    a.click("#btn-start")
    a.wait_for_selector("#board:not([hidden])")
    b.wait_for_selector("#board:not([hidden])")
    # The tab says whose turn it is.
    a.wait_for_function("document.title.startsWith('● Your turn')")
    assert not b.title().startswith("●")
    assert a.get_attribute("#favicon", "href") == "/static/favicon-turn.svg"
    # Only legal actions are buttons: no coins, no third field; nothing to harvest yet.
    assert a.locator("#btn-buy-field").count() == 0
    assert a.locator("#my-fields button.harvest").count() == 0
    # Ada plants one Cowboy and keeps the other in her hand; two cards are turned up.
    a.click("#my-fields .field.target")
    a.wait_for_selector("#btn-stop-planting")
    a.click("#btn-stop-planting")
    a.wait_for_selector("#btn-end-trading")
    assert a.locator("#drawn .card.drawn-card .drawn-mark").count() == 2
    assert a.locator("#my-fields .next-step").first.inner_text() == "3 more for 1 coin"
    # Bob asks for a Cowboy for his Hippie; Ada has one in hand and one turned up.
    b.click("#btn-new-offer")
    b.click("#offer-builder .give .card[data-variety='hippie']")
    b.click("#offer-builder .stepper[data-variety='cowboy'] .plus")
    b.wait_for_selector("#offer-builder .give .card.selected")
    doc_shot(b, shots, "trade-builder-phone-pl.png")
    b.click("#offer-send")
    a.wait_for_function("document.title.startsWith('● Your turn')")
    a.wait_for_selector(".offer.incoming .accept")
    a.click(".offer.incoming .accept")
    picker = "#pay-picker .card[data-variety='cowboy']"
    a.wait_for_selector(picker)
    assert a.locator(picker).count() == 2  # both may pay: the hand's and the turned-up one
    drawn_id = a.get_attribute(f"{picker}.drawn-card", "data-card")
    # Pay with the turned-up Cowboy only.
    for card in a.locator(f"{picker}.selected").all():
        card.click()
    assert a.is_disabled("#accept-confirm")
    a.click(f"{picker}.drawn-card")
    a.wait_for_selector(f"{picker}.drawn-card.selected")
    assert "turned up" in a.inner_text("#pay-summary")
    doc_shot(a, shots, "trade-accept-desktop-en.png")
    a.click("#accept-confirm")
    assert "Cowboy (turned up)" in a.inner_text("#confirm-pay")  # shown before it is paid
    a.click("#confirm-yes")
    b.wait_for_selector("#my-trade .card[data-variety='cowboy']")
    a.wait_for_selector("#my-trade .card[data-variety='hippie']")
    assert a.locator(f"#drawn .card[data-card='{drawn_id}']").count() == 0
    assert a.locator("#my-hand .card[data-variety='cowboy']").count() == 1  # kept
    doc_shot(b, shots, "board-phone-pl.png")
    doc_shot(a, shots, "board-desktop-en.png")
    # A refused action is worded in Polish, with 1-based numbers and a link to its rule.
    a.click(".lang button[data-lang='pl']")
    a.evaluate("act({type: 'buy_field'})")
    a.wait_for_selector("#last-error:not([hidden]) a.rule-link")
    text = a.inner_text("#last-error")
    assert "trzecie pole kosztuje 3 monety, a masz 0" in text and "cannot" not in text
    href = a.get_attribute("#last-error a.rule-link", "href")
    assert href == "/rules?lang=pl#R-FIELD-2"
    doc_shot(a, shots, "board-desktop-pl.png")
    rules = new_page(browser, PHONE, errors)
    rules.goto(server.url + href)
    assert "kosztuje 3 monety" in rules.inner_text("li#R-FIELD-2")
    assert rules.evaluate("document.querySelector(':target').id") == "R-FIELD-2"
    doc_shot(rules, shots, "rules-phone-pl.png", full_page=False)
    # The Polish page is the whole text: the same sections and rule IDs, in the same order.
    outline = "() => [...document.querySelectorAll('h2, li.rule')].map(e => e.tagName === 'H2' ? 'h2' : e.id)"
    polish = rules.evaluate(outline)
    rules.goto(server.url + "/rules#R-LADY-5")
    english = rules.evaluate(outline)
    assert polish == english and english.count("h2") >= 8
    assert len([x for x in english if x != "h2"]) >= 58
    # Bob continues on another device: the link carries a one-time code for his seat
    # (not his token: the other browser's history keeps the link it opened).
    b.click("#btn-device")
    b.wait_for_selector("#device-dialog .warning")
    b.wait_for_selector("#device-qr svg")
    link = b.input_value("#device-link")
    assert link.startswith(f"{server.url}/t/{table}#claim=")
    bob_token = b.evaluate(f"localStorage.getItem(B.tokenKey({table!r}))")
    assert bob_token and bob_token not in link
    b.click("#device-close")
    other = new_page(browser, DESKTOP, errors)
    other.goto(link)
    other.wait_for_selector("#board:not([hidden])")
    other.wait_for_function("document.body.dataset.seat === '1'")
    assert "#" not in other.url  # the code left the address bar
    with server.http() as http:  # ... and is spent
        code = link.split("#claim=", 1)[1]
        assert http.post(f"/api/tables/{table}/claim", json={"code": code}).status_code == 404
    # A stored token that matches no seat: said so, not a silent spectator.
    stale = new_page(browser, PHONE, errors)
    with_token(stale, server.url, table, "not-a-seat-token")
    stale.wait_for_selector("#stale-token")
    assert "no longer yours" in stale.inner_text("#stale-token")
    assert stale.evaluate("document.body.dataset.seat") == ""
    stale.click("#stale-watch")
    stale.wait_for_selector("#stale-token", state="detached")
    assert not errors, errors


def test_the_turn_alert_and_a_clock_that_runs_out(
    browser: Any, make_server: Any, shots: Path
) -> None:
    # The stand-in trades for the timed-out player and would end trading after the bots'
    # grace; a long grace leaves it to the countdown this test watches.
    server: ServerThread = make_server(bot_grace=30.0)
    made = server.create(
        seats=[{"kind": "bot"}, {"kind": "person"}, {"kind": "bot"}],
        clock="custom:2,0,3",
        seed=5,
    )
    table = made["table"]["id"]
    errors: list[str] = []
    page = new_page(browser, PHONE, errors)
    with_token(page, server.url, table, made["token"])
    page.wait_for_selector("#btn-start")
    page.evaluate("localStorage.setItem('bohnanza.sound', '1')")
    page.click("#btn-start")
    page.wait_for_selector("#clocks")
    # Seat 1's turn comes after the bot's: the title changes then.
    page.wait_for_function("document.title.startsWith('● Your turn')", timeout=20_000)
    assert page.evaluate("document.body.dataset.myTurn") == "1"
    page.wait_for_selector(".clock.mine.running")
    doc_shot(page, shots, "clock-phone-en.png")
    # Ada does nothing: her bank runs out and her bot plays; the log says so.
    page.wait_for_function(
        "document.querySelector('#log').innerText.includes('Time ran out: the bot plays for Ada')",
        timeout=10_000,
    )
    page.wait_for_selector(".clock.mine.out")
    # The trading limit runs out too: the log says so, not "Bot 1 ends trading".
    page.wait_for_function(
        "document.querySelector('#log').innerText.includes('Time ran out: trading ends')",
        timeout=10_000,
    )
    log = page.inner_text("#log")
    after = log.split("Time ran out: trading ends", 1)[1].split("\n")[1]
    assert "ends trading" not in after
    assert not errors, errors


def test_a_rematch_is_joined_by_one_player_and_declined_by_another(
    browser: Any, make_server: Any
) -> None:
    server: ServerThread = make_server(away_timeout=0.0)
    made = server.create(seats=[{"kind": "person"}] * 3, seed=8)
    table = made["table"]["id"]
    tokens = [made["token"], server.join(table, "Bob")["token"], server.join(table, "Cid")["token"]]
    clients = [server.client(table, t) for t in tokens]
    clients[0].request({"type": "start"})
    for c in clients:
        c.close()  # away: the bots play the game to its end
    deadline = time.monotonic() + 60
    with server.http() as http:
        while http.get(f"/api/tables/{table}").json()["status"] != "over":
            assert time.monotonic() < deadline
            time.sleep(0.1)
    errors: list[str] = []
    pages = []
    for token in tokens:
        p = new_page(browser, DESKTOP, errors)
        with_token(p, server.url, table, token)
        p.wait_for_selector("#game-over")
        pages.append(p)
    watcher = new_page(browser, DESKTOP, errors)
    watcher.goto(f"{server.url}/t/{table}")
    watcher.wait_for_selector("#game-over")
    ada, bob, cid = pages
    ada.click("#btn-rematch")
    ada.wait_for_url(lambda url: not url.endswith(f"/t/{table}"))
    new = ada.url.rsplit("/", 1)[1]
    assert new != table
    bob.wait_for_selector("#btn-rematch-join")
    assert "Ada proposes a rematch" in bob.inner_text("#rematch-invite")
    # The invitation shows in the tab's title; the finished game highlights no seat.
    assert bob.title().startswith("● Ada proposes a rematch")
    assert bob.locator(".seat.is-active").count() == 0
    cid.wait_for_selector("#btn-rematch-decline")
    cid.click("#btn-rematch-decline")
    cid.wait_for_function("!document.title.startsWith('●')")  # answered: no more alert
    bob.click("#btn-rematch-join")
    bob.wait_for_url(f"{server.url}/t/{new}")
    bob.wait_for_function("document.body.dataset.seat === '1'")
    cid.wait_for_selector("#to-rematch")  # cid stays; he may still watch it
    assert cid.url.endswith(f"/t/{table}")
    ada.wait_for_selector("#btn-start:not([disabled])")
    assert "Bot 3" in ada.inner_text("#lobby")
    # The spectator stayed at the finished table.
    watcher.wait_for_selector("#to-rematch")
    assert watcher.url.endswith(f"/t/{table}")
    ada.click("#btn-start")
    ada.wait_for_selector("#board:not([hidden])")
    assert not errors, errors


def test_unknown_tables_are_a_404_page(browser: Any, server: ServerThread) -> None:
    errors: list[str] = []
    page = new_page(browser, PHONE, errors)
    response = page.goto(server.url + "/t/nope")
    assert response is not None and response.status == 404
    assert "There is no such table" in page.inner_text("#not-found")
    assert not errors, errors


def test_lobby_refusals_speak_the_pages_language(browser: Any, server: ServerThread) -> None:
    """A refused lobby request carries a code, and a Polish page words it in Polish
    (the server's English stays for requests the pages never send)."""
    from bohnanza.web.i18n import EN, PL

    made = server.create()  # still in the lobby: no replay yet
    table = made["table"]["id"]
    with server.http() as http:
        r = http.get(f"/api/tables/{table}/replay")
        assert r.status_code == 403 and r.json()["code"] == "not_over"
        r = http.get("/api/tables/nope")
        assert r.status_code == 404 and r.json()["code"] == "no_table"
        r = http.post("/api/tables", json={"rules": "classic", "players": 99})
        assert r.status_code == 400 and "code" not in r.json()
    assert {k for k in EN if k.startswith("lobby.")} == {k for k in PL if k.startswith("lobby.")}
    errors: list[str] = []
    page = new_page(browser, DESKTOP, errors)
    page.goto(server.url + "/")
    page.evaluate("localStorage.setItem('bohnanza.lang', 'pl')")
    page.goto(f"{server.url}/replay/{table}")
    page.wait_for_selector("#board p.error")
    assert page.inner_text("#board p.error") == PL["lobby.not_over"]
    # An unknown table's replay is the 404 page (both languages), not an empty replay.
    assert page.goto(f"{server.url}/replay/nope").status == 404
    assert "Nie ma takiego stołu" in page.inner_text("#not-found")
    assert not errors, errors
