"""Browser tests: Playwright driving Debian's Chromium against a server on loopback.

A person plays a whole game against bots through the UI; two browser contexts trade with
each other (offer, accept by picking cards, counter, a refused gift); a reload mid-game
reconnects; the language switches to Polish. Screenshots of the main screens go to
``out/screenshots`` (or ``$BOHNANZA_SCREENSHOTS``).
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import ServerThread, wait_for_player, wait_for_status

PlaywrightTimeout = pytest.importorskip("playwright.sync_api").TimeoutError

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def new_page(browser: Any, viewport: dict[str, int], errors: list[str]) -> Any:
    # bypass_csp: Playwright's wait_for_function evaluates strings, which the pages'
    # Content-Security-Policy forbids; test_security checks the pages under the CSP.
    ctx = browser.new_context(viewport=viewport, is_mobile=viewport["width"] < 600, bypass_csp=True)
    page = ctx.new_page()
    page.set_default_timeout(30_000)  # a loaded machine paints slowly (docs/testing.md)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def seq(page: Any) -> int:
    value = page.evaluate("document.body.dataset.seq || '-1'")
    return int(value)


def wait_seq_change(page: Any, before: int, timeout: float = 5.0) -> None:
    with contextlib.suppress(Exception):
        page.wait_for_function(
            "s => (document.body.dataset.seq || '-1') !== String(s)",
            arg=before,
            timeout=timeout * 1000,
        )


def ui_step(page: Any) -> bool:
    """One decision through the UI, like a simple player; False if nothing to do."""
    if page.locator("#confirm").count():
        page.click("#confirm-yes")
        return True
    if page.locator("#game-over").count():
        return False
    for sel in (
        "#my-fields .field.target:not(.empty)",
        "#my-fields .field.target",
        "#btn-stop-planting",
        ".offer.incoming .decline",
        "#btn-end-trading",
        "#choices button",
    ):
        loc = page.locator(sel)
        if loc.count():
            try:
                loc.first.click(timeout=3000)
            except PlaywrightTimeout:  # re-rendered away between the count and the click
                return False
            return True
    if page.evaluate("document.body.dataset.need") == "1":
        # Nothing fits: harvest the fullest field, seeing the payout first.
        best = page.evaluate(
            """() => {
              let best = -1, most = 0;
              document.querySelectorAll('#my-fields .field').forEach((f, i) => {
                const n = f.querySelectorAll('.card').length;
                if (n > most) { most = n; best = i; }
              });
              return best;
            }"""
        )
        if best >= 0:
            page.click(f"#my-fields button.harvest[data-harvest='{best}']")
            page.wait_for_selector("#confirm")
            assert page.locator("#harvest-payout").inner_text()
            page.click("#confirm-yes")
            return True
    return False


def test_a_person_plays_a_whole_game_against_bots(
    browser: Any, make_server: Any, shots: Path
) -> None:
    server: ServerThread = make_server()
    errors: list[str] = []
    page = new_page(browser, DESKTOP, errors)
    page.goto(server.url + "/")
    page.wait_for_selector("#f-rules option", state="attached")
    page.fill("#f-name", "Ada")
    page.select_option("#f-rules", "classic")
    page.select_option("#f-players", "3")
    page.screenshot(path=str(shots / "home-desktop.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(shots / "home-phone.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    table = page.url.split("/t/", 1)[1].split("#", 1)[0]
    wait_for_player(server, table)
    page.wait_for_selector("#btn-start", timeout=60_000)
    page.screenshot(path=str(shots / "table-lobby.png"), full_page=True)
    page.click("#btn-start")
    wait_for_status(server, table, "playing")
    page.wait_for_selector("#board:not([hidden])", timeout=60_000)
    deadline = time.monotonic() + 150
    steps = 0
    shot_mid = False
    while not page.locator("#game-over").count():
        assert time.monotonic() < deadline, "the game did not finish through the UI in time"
        before = seq(page)
        if ui_step(page):
            steps += 1
            wait_seq_change(page, before, 3)
        else:
            wait_seq_change(page, before, 2)
        if not shot_mid and steps > 40 and page.evaluate("document.body.dataset.phase") == "plant":
            page.screenshot(path=str(shots / "board-desktop.png"), full_page=True)
            page.set_viewport_size(PHONE)
            page.screenshot(path=str(shots / "board-phone.png"), full_page=True)
            page.set_viewport_size(DESKTOP)
            shot_mid = True
    assert steps > 20
    assert page.locator("#scores tbody tr").count() == 3
    page.screenshot(path=str(shots / "game-over.png"), full_page=True)
    assert "Game over" in page.locator("#log").inner_text()
    # The replay steps through the record with every hand revealed.
    page.click("#replay-link")
    page.wait_for_selector(".players.all .seat")
    page.click("#r-next")
    page.wait_for_function("document.body.dataset.step === '1'")
    assert page.locator(".hand.revealed").count() == 3
    page.click("#r-last")
    page.wait_for_selector("#scores")
    page.screenshot(path=str(shots / "replay.png"), full_page=True)
    assert not errors, errors


DECK = [
    # seat 0 (Ada)
    "cowboy", "cowboy", "fatty", "hippie", "boxer",
    # seat 1 (Bob)
    "pyromaniac", "hippie", "drunkard", "golas", "fatty",
    # seat 2 (the bot)
    "drunkard", "drunkard", "drunkard", "drunkard", "drunkard",
    # drawn in turn 1
    "gardener", "cowboy",
]  # fmt: skip


def test_two_browsers_trade_with_each_other(
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
    a = new_page(browser, DESKTOP, errors)
    a.goto(server.url + "/")
    a.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"bohnanza.token.{table}", made["token"]])
    a.goto(f"{server.url}/t/{table}")
    wait_for_player(server, table)
    a.wait_for_selector("#btn-start", timeout=60_000)
    # Bob joins by the link, on a phone.
    b = new_page(browser, PHONE, errors)
    b.goto(f"{server.url}/t/{table}")
    b.wait_for_selector(".take-seat")
    b.fill("#join-name", "Bob")
    b.click(".take-seat")
    wait_for_player(server, table, 1)
    a.wait_for_selector("#btn-start:not([disabled])", timeout=60_000)
    a.click("#btn-start")
    wait_for_status(server, table, "playing")
    a.wait_for_selector("#board:not([hidden])", timeout=60_000)
    b.wait_for_selector("#board:not([hidden])", timeout=60_000)
    # Ada plants her two Cowboys on field 1; phase 2 begins.
    a.click("#my-fields .field.target")
    a.wait_for_selector("#my-fields .field.target:not(.empty)")
    a.click("#my-fields .field.target:not(.empty)")
    a.wait_for_selector("#btn-end-trading")
    assert a.locator("#drawn .card").count() == 2
    # Ada offers Bob her Fatty for one Hippie.
    a.click("#btn-new-offer")
    a.click("#offer-builder .give .card[data-variety='fatty']")
    a.click("#offer-builder .stepper[data-variety='hippie'] .plus")
    a.screenshot(path=str(shots / "trade-offer-builder.png"), full_page=True)
    a.click("#offer-send")
    a.wait_for_selector(".offer.outgoing")
    # Bob sees it, picks his Hippie and accepts.
    b.wait_for_selector(".offer.incoming")
    b.screenshot(path=str(shots / "trade-incoming-phone.png"), full_page=True)
    b.click(".offer.incoming .accept")
    b.wait_for_selector("#my-hand .card.selected[data-variety='hippie']")
    b.click("#accept-confirm")
    b.click("#confirm-yes")  # the payment is shown before it is made
    a.wait_for_selector("#my-trade .card[data-variety='hippie']")
    b.wait_for_selector("#my-trade .card[data-variety='fatty']")
    # Bob offers a gift (his Golas); Ada refuses it, and Bob keeps the card.
    b.click("#btn-new-offer")
    b.click("#offer-builder .give .card[data-variety='golas']")
    b.click("#offer-send")
    a.wait_for_selector(".offer.incoming .decline")
    assert "Gift from Bob" in a.locator(".offer.incoming").inner_text()
    a.click(".offer.incoming .decline")
    a.wait_for_selector(".offer.incoming", state="detached")
    b.wait_for_function("() => !document.querySelector('.offer.outgoing')")
    assert b.locator("#my-hand .card[data-variety='golas']").count() == 1
    # Bob asks for the drawn Gardener for his Drunkard; Ada counters: the Gardener
    # for the Drunkard is fine, but she adds nothing and wants the Golas too.
    b.click("#btn-new-offer")
    b.click("#offer-builder .give .card[data-variety='drunkard']")
    b.click("#offer-builder .stepper[data-variety='gardener'] .plus")
    b.click("#offer-send")
    a.wait_for_selector(".offer.incoming .counter")
    a.click(".offer.incoming .counter")
    a.wait_for_selector("#offer-builder")
    assert "Drunkard ×1" in a.locator("#offer-builder .want").inner_text()
    # The counter-offer starts from Bob's turned around: the Gardener he asked for is
    # already picked to give.
    assert a.locator("#offer-builder .give .card.selected[data-variety='gardener']").count() == 1
    a.click("#offer-builder .stepper[data-variety='golas'] .plus")
    a.click("#offer-send")
    b.wait_for_selector(".offer.incoming .accept")
    b.click(".offer.incoming .accept")
    b.wait_for_function("document.querySelectorAll('#my-hand .card.selected').length === 2")
    b.click("#accept-confirm")
    b.click("#confirm-yes")  # the payment is shown before it is made
    a.wait_for_selector("#my-trade .card[data-variety='drunkard']")
    b.wait_for_selector("#my-trade .card[data-variety='gardener']")
    log = a.locator("#log").inner_text()
    assert "Bob trades with Ada: gets Gardener, gives Drunkard, Golas" in log
    # Ada ends trading; the kept Cowboy joins her trade area; both plant in phase 3.
    a.click("#btn-end-trading")
    a.wait_for_function("document.body.dataset.phase === 'plant_traded'")
    a.screenshot(path=str(shots / "phase3-desktop.png"), full_page=True)
    deadline = time.monotonic() + 30
    while a.evaluate("document.body.dataset.phase") == "plant_traded":
        assert time.monotonic() < deadline
        before = seq(a)
        if not (ui_step(a) or ui_step(b)):
            wait_seq_change(a, before, 1)
        else:
            wait_seq_change(a, before, 2)
    # A reload mid-game comes back to the same view (the token is kept).
    b.wait_for_function(f"document.body.dataset.seq === '{seq(a)}'")
    hand_before = b.locator("#my-hand").inner_text()
    seq_before = seq(b)
    b.reload()
    b.wait_for_selector("#board:not([hidden])")
    b.wait_for_function(f"document.body.dataset.seq === '{seq_before}'")
    assert b.locator("#my-hand").inner_text() == hand_before
    assert b.evaluate("document.body.dataset.seat") == "1"
    # It is Bob's turn now, and he goes on after the reload.
    assert b.evaluate("document.body.dataset.need") == "1"
    before = seq(b)
    assert ui_step(b)
    wait_seq_change(b, before)
    assert seq(b) == before + 1
    # The other language: Polish names of the Fasolki beans.
    a.click(".lang button[data-lang='pl']")
    assert "Kowboj" in a.locator("#board").inner_text()
    assert "Tura" in a.locator(".status-line").inner_text()
    a.screenshot(path=str(shots / "board-polish.png"), full_page=True)
    b.screenshot(path=str(shots / "board-phone-after-reload.png"), full_page=True)
    assert not errors, errors


def test_fasolufka_buyer_picks_three_coins_in_order_r_lady_10(
    browser: Any, server: ServerThread, shots: Path
) -> None:
    # R-LADY-10: the buyer sees their own coins, picks three in discard order (the order is
    # shown, the buy button waits for exactly three) and the engine pays with exactly those.
    made = server.create(rules="fasolki+fasolufka", players=3, seed=2)
    table_id = made["table"]["id"]
    errors: list[str] = []
    page = new_page(browser, DESKTOP, errors)
    page.goto(server.url + "/")
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)", [f"bohnanza.token.{table_id}", made["token"]]
    )
    page.goto(f"{server.url}/t/{table_id}")
    page.click("#btn-start")
    page.wait_for_selector("#board:not([hidden])")
    # Stage five coins (the bottom of the draw pile) while the person is to plant; the bots
    # wait for the person meanwhile. The page reloads to get the new state.
    game = server.app.state.manager.tables[table_id].game
    assert game is not None and game.active == 0 and game.phase == "plant"
    coins = game.draw[:5]
    del game.draw[:5]
    game.treasury[0] += coins
    game.invalidate_views()
    page.reload()
    page.wait_for_selector("#board:not([hidden])")
    page.wait_for_function("document.querySelectorAll('#my-treasury .card').length === 5")
    page.click("#btn-buy-field")
    page.wait_for_selector("#coin-pick")
    assert page.locator("#confirm-yes").is_disabled()
    for c in (coins[3], coins[0], coins[4]):
        page.click(f"#coin-pick .card[data-coin='{c}']")
    ranks = page.locator("#coin-pick .coin-rank").all_inner_texts()
    assert sorted(ranks) == ["1", "2", "3"]
    assert page.locator("#coin-order").inner_text().count("→") == 2
    page.screenshot(path=str(shots / "fasolufka-coins.png"), full_page=True)
    assert page.locator("#confirm-yes").is_enabled()
    page.click("#confirm-yes")
    page.wait_for_function("document.querySelectorAll('#my-fields .field').length >= 3")
    page.wait_for_function("document.querySelectorAll('#my-treasury .card').length === 2")
    # The server installs a clone with the buy once the database write is done (a loaded
    # machine makes that slow): wait for it before reading the game.
    deadline = time.monotonic() + 30
    game = server.app.state.manager.tables[table_id].game  # the server may swap the object
    while game is not None and len(game.treasury[0]) != 2 and time.monotonic() < deadline:
        time.sleep(0.05)
        game = server.app.state.manager.tables[table_id].game
    assert game is not None
    assert game.discard[-3:] == [coins[3], coins[0], coins[4]]
    assert game.treasury[0] == [coins[1], coins[2]]
    assert "→" in page.locator("#log").inner_text()
    assert not errors, errors


def test_the_lobby_names_each_module_from_its_module_info(browser: Any, make_server: Any) -> None:
    """The built-in modules' titles and notes live in their ModuleInfo (issue 27), not in
    the page's string tables: the lobby still shows them, in both languages."""
    from bohnanza.modules import module_info

    server: ServerThread = make_server()
    errors: list[str] = []
    page = new_page(browser, DESKTOP, errors)
    page.goto(server.url + "/")
    page.wait_for_selector("#f-rules option", state="attached")
    info = module_info("duel")
    assert info.title is not None and info.note is not None
    page.select_option("#f-rules", "fasolki+duel")
    option = page.locator("#f-rules option[value='fasolki+duel']")
    assert option.text_content() == info.title[0]
    page.wait_for_function(
        "t => document.querySelector('#rules-note').textContent === t", arg=info.note[0]
    )
    assert not errors, errors
