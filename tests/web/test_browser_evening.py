"""Browser tests for a real group's evening (issue 31): Playwright driving Debian's Chromium.

Two sessions, each checking several things (browser tests are slow): double clicks on
"Create" and on action buttons (one table, one action each, the control pending
meanwhile), a refusal whose rule link stays through the next events until dismissed, a
replay that jumps to a turn and ``/replay/unknown``; then a stand-in that trades for a
person who closed their tab, the banner when they are back, and a seat moved from
``127.0.0.1`` to another device with a link another device can reach (the first page
then watches).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable
from typing import Any

import pytest

from bohnanza.agents import make_agent
from bohnanza.driver import play
from bohnanza.game import Game
from bohnanza.records import make_record
from bohnanza.web.store import StoredSeat, StoredTable

from .conftest import ServerThread, wait_for_player, wait_for_status, wait_until
from .test_browser import DESKTOP, PHONE, PlaywrightTimeout, new_page, seq, ui_step
from .test_browser_friends import with_token
from .test_protocol import DECK

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def finished_table(server: ServerThread) -> tuple[str, int]:
    """A finished 3-player game of bots, stored as the server stores one: its id and its
    number of turns."""
    game = Game.new("classic", 3, seed=11)
    log = play(game, [make_agent("random", 1), make_agent("autarky", 2), make_agent("random", 3)])
    store = server.app.state.manager.store
    seats = [StoredSeat(i, "bot", "random", "", None) for i in range(3)]
    table = "finished1"
    settings = {"rules": "classic", "players": 3, "options": {}, "trade_limit": 0}
    store.create_table(StoredTable(table, time.time(), "lobby", settings, seats))
    seat_info = [{"kind": "bot", "bot": "random", "name": ""}] * 3
    store.start_game(table, make_record(Game.new("classic", 3, seed=11), [], seat_info))
    rows = [(s, a.to_json()) for s, a in log.actions]
    store.append_actions(table, 0, rows, game.result())
    return table, game.turn


def test_double_clicks_a_refusal_that_stays_and_a_replay_turn(
    browser: Any, make_server: Callable[..., ServerThread]
) -> None:
    server = make_server(bot_delay=0.05)
    errors: list[str] = []
    page = new_page(browser, DESKTOP, errors)
    # A double click on "Create": one table.
    page.goto(server.url + "/")
    page.wait_for_selector("#f-rules option", state="attached")
    page.fill("#f-name", "Ada")
    page.select_option("#f-players", "4")  # two fields each: a third costs 3 coins
    page.dblclick("#create-btn")
    tables = server.app.state.manager.tables
    wait_until(lambda: bool(tables), 60, "the table the form created")
    page.wait_for_url("**/t/*", timeout=60_000)
    assert len(tables) == 1, list(tables)
    table = next(iter(tables))
    wait_for_player(server, table)
    page.click("#btn-start")
    wait_for_status(server, table, "playing")
    page.wait_for_selector("#my-fields .field.target", timeout=60_000)
    page.click("#my-fields .field.target")
    page.wait_for_selector("#btn-stop-planting")
    # Two clicks on "Stop planting" before the answer: sent once, the button pending
    # (disabled) meanwhile, no refusal.
    marks = page.evaluate(
        """() => { const b = document.querySelector('#btn-stop-planting'); b.click();
                   const marks = [b.disabled, b.classList.contains('pending')]; b.click();
                   return marks; }"""
    )
    assert marks == [True, True]
    page.wait_for_selector("#btn-end-trading")
    time.sleep(0.3)
    assert page.locator("#log li.ev-stop_planting").count() == 1
    assert page.locator(".toast.error").count() == 0  # no "Not allowed"
    # A real double click on "End trading": one action.
    before = seq(page)
    page.dblclick("#btn-end-trading")
    page.wait_for_function("s => Number(document.body.dataset.seq) > s", arg=before)
    time.sleep(0.3)
    ends = page.locator("#log li.ev-end_trading").count()
    assert ends == 1, ends
    assert page.locator(".toast.error").count() == 0
    # Finish the turn; the bots play on. A refusal (no coins for a third field, R-FIELD-2)
    # keeps its rule link, above the board and on its pop-up, through the next events.
    # Trading is ended rather than the bots' offers declined one by one: the trading
    # bots may make more offers than a fixed number of steps declines, and the table
    # then waits for the person (the deal is the lobby's, a fresh one each run).
    deadline = time.monotonic() + 30
    while page.evaluate("document.body.dataset.myTurn") == "1":
        assert time.monotonic() < deadline, "the person's turn did not end"
        end = page.locator("#btn-end-trading:not([disabled])")
        if end.count():
            # (It may re-render away between the count and the click.)
            with contextlib.suppress(PlaywrightTimeout):
                end.first.click(timeout=3000)
        elif not ui_step(page):
            page.wait_for_timeout(100)  # the bots are answering
    page.evaluate("act({type: 'buy_field'})")
    page.wait_for_selector("#last-error:not([hidden]) a.rule-link[href$='#R-FIELD-2']")
    assert page.locator(".toast.refusal a.rule-link[href$='#R-FIELD-2']").count() == 1
    # Its close button is one node through the renders that follow: a button rebuilt by
    # every event (the bots' come many a second) swallowed clicks.
    page.evaluate("document.querySelector('#last-error-close').dataset.kept = '1'")
    # Three more events, whoever makes them: on a slow machine the bots may have played
    # their turns by now, and the table then waits for the person, who plays on.
    shown = seq(page)
    deadline = time.monotonic() + 30
    while seq(page) < shown + 3:
        assert time.monotonic() < deadline, "no three events after the refusal"
        if page.evaluate("document.body.dataset.need") != "1" or not ui_step(page):
            page.wait_for_timeout(100)  # the bots are playing
    assert page.locator("#last-error:not([hidden]) a.rule-link").count() == 1
    assert page.locator(".toast.refusal a.rule-link").count() == 1
    assert "3 coins" in page.inner_text("#last-error")
    assert page.locator("#last-error-close[data-kept='1']").count() == 1
    page.click("#last-error-close")
    assert page.locator(".toast.refusal").count() == 0
    assert page.locator("#last-error:not([hidden])").count() == 0
    # A replay jumps to a turn; an unknown replay is a 404 page.
    table, turns = finished_table(server)
    page.goto(f"{server.url}/replay/{table}")
    page.wait_for_selector("#board .status-line")
    page.fill("#r-turn", "3")
    page.click("#r-turn-go")
    page.wait_for_function("document.querySelector('.st-turn').innerText.includes('3')")
    step = int(page.evaluate("document.body.dataset.step"))
    assert 0 < step < 200 and turns > 3
    page.fill("#r-turn", str(turns))
    page.click("#r-turn-go")
    page.wait_for_function(f"document.querySelector('.st-turn').innerText.includes('{turns}')")
    assert page.goto(server.url + "/replay/unknown").status == 404
    # The lobby list names a winning bot with its seat, not just "bot (random)".
    page.goto(server.url + "/")
    winner = page.inner_text(f".table-item[data-table='{table}'] .winner")
    assert re.fullmatch(r"won by Bot [123] \(random\)(, Bot [123] \(random\))*", winner), winner
    assert not errors, errors


def test_a_stand_in_trades_the_banner_on_return_and_a_seat_moved_to_a_phone(
    browser: Any, make_server: Callable[..., ServerThread]
) -> None:
    server = make_server(away_timeout=0.2)
    server.app.state.manager.settings.public_addresses = ("http://192.0.2.7:8000/",)
    # The host chose the bot that accepts every offer: its acceptance is certain.
    made = server.create(
        seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "bot": "autarky"}],
        seed=11,
        deck=DECK,
        stand_in_bot="probe-accept",
    )
    table = made["table"]["id"]
    joined = server.join(table, "Bob")
    errors: list[str] = []
    ada = new_page(browser, DESKTOP, errors)
    with_token(ada, server.url, table, made["token"])
    bob = new_page(browser, PHONE, errors)
    with_token(bob, server.url, table, joined["token"])
    bob.wait_for_selector("#btn-leave")
    ada.click("#btn-start:not([disabled])")
    ada.wait_for_selector("#my-fields .field.target")
    bob.wait_for_selector("#board:not([hidden])")
    bob.context.close()  # Bob closes his tab: a bot plays for him
    badge = ".seat[data-seat='1'] .badge.played"
    ada.wait_for_selector(badge)
    assert ada.text_content(badge) == "played by a bot while Bob is away"
    assert "Bob is away: a bot plays for them" in ada.inner_text("#log")
    ada.click("#my-fields .field.target")
    ada.wait_for_selector("#btn-stop-planting")
    ada.click("#btn-stop-planting")
    ada.wait_for_selector("#btn-end-trading")
    card = ada.evaluate("T.state.view.hand[0].id")
    ada.evaluate(f"act({{type: 'propose', offer: {{to: 1, give: [{card}], want: []}}}})")
    ada.wait_for_selector("#log li.ev-trade")
    assert "Bob" in ada.inner_text("#log li.ev-trade")
    # Bob is back on a phone: the banner says what the bot played for him, and the seat
    # is his again.
    phone = new_page(browser, PHONE, errors)
    with_token(phone, server.url, table, joined["token"])
    phone.wait_for_selector("#returned-box li")
    assert "Ada" in phone.inner_text("#returned-box")
    ada.wait_for_selector(badge, state="detached")
    phone.click("#returned-ok")
    phone.wait_for_selector("#returned-box", state="detached")
    # Bob opened 127.0.0.1: the link for another device is built from an address a phone
    # can reach. Opening it (on loopback here) moves the seat; this page then watches.
    phone.click("#btn-device")
    phone.wait_for_selector("#device-dialog .warning")
    link = phone.input_value("#device-link")
    assert link.startswith(f"http://192.0.2.7:8000/t/{table}#claim=")
    other = new_page(browser, DESKTOP, errors)
    other.goto(link.replace("http://192.0.2.7:8000", server.url))
    other.wait_for_function("document.body.dataset.seat === '1'")
    phone.wait_for_function("document.body.dataset.seat === ''")
    assert "another device" in phone.inner_text("#watching")
    assert phone.evaluate("localStorage.getItem('bohnanza.token." + table + "')") is None
    assert not errors, errors
