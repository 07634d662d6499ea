"""An evening with friends, polished (issue 54), in Chromium: the table lobby says what
kind of table it is, refusals go away, a resigned friend keeps their name, a counter-offer
starts from the offer turned around, passkeys on a numeric address say what to open, the
player page has dates and opponents, and the phone replay keeps "This step" in view.
Screenshots of the lobby, a trade and the end in English and Polish, desktop and phone,
go to ``shots`` (docs/img/ holds the ones the docs show)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from bohnanza.web.accounts import AccountLimits, Accounts
from bohnanza.web.model import hash_token
from bohnanza.web.ratings import rate_finished
from bohnanza.web.store import Store, StoredSeat, StoredTable

from .client import Client
from .conftest import ServerThread, wait_for_status
from .test_browser import DESKTOP, PHONE
from .test_hardening import finished_game

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FAST = AccountLimits(hash_time_cost=1, hash_memory_kib=8192)


def _page(browser: Any, viewport: dict[str, int], errors: list[str], lang: str = "en") -> Any:
    ctx = browser.new_context(
        viewport=viewport,
        is_mobile=viewport["width"] < 600,
        bypass_csp=True,
        locale="pl-PL" if lang == "pl" else "en-GB",
    )
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page


def _claim(server: ServerThread, table: str, token: str) -> str:
    """The table page's address that gives this browser the seat (a hand-over code)."""
    with server.http() as http:
        code = http.post(f"/api/tables/{table}/handover", json={"token": token}).json()["code"]
    return f"{server.url}/t/{table}#claim={code}"


def _last_error_shown(page: Any) -> bool:
    return bool(page.evaluate("!document.getElementById('last-error').hidden"))


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_an_evening_table_reads_well(
    browser: Any, make_server: Any, shots: Path, lang: str
) -> None:
    server: ServerThread = make_server()
    errors: list[str] = []
    made = server.create(
        seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "bot": "heuristic"}],
        rated="bots",
        clock="turn12h",
        seed=7,
    )
    table = made["table"]["id"]
    bob_token = server.join(table, "Bob")["token"]
    page = _page(browser, DESKTOP, errors, lang)
    page.goto(_claim(server, table, made["token"]))
    page.wait_for_selector("#btn-start")
    # The lobby says the table is rated and gives an own-pace limit in hours.
    line = page.locator(".settings-line").inner_text()
    assert ("rated (with the bots)" if lang == "en" else "rankingowy (z botami)") in line
    assert ("12 h" if lang == "en" else "12 godz.") in line and "43200" not in line
    page.screenshot(path=str(shots / f"lobby-desktop-{lang}.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(shots / f"lobby-phone-{lang}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
    bob = Client(server.ws_url, table)
    bob.hello(bob_token)
    page.click("#btn-start")
    wait_for_status(server, table, "playing")
    page.wait_for_selector("#my-fields .field.target")

    # A refusal: shown, then gone at the player's next action.
    page.evaluate("act({type: 'harvest', field: 2})")
    page.wait_for_function("!document.getElementById('last-error').hidden")
    page.click("#my-fields .field.target >> nth=0")
    page.wait_for_function("document.getElementById('last-error').hidden")
    # Plant on and stop: Ada's trade phase.
    deadline = time.monotonic() + 30
    while not page.locator("#btn-end-trading").count():
        assert time.monotonic() < deadline, "Ada's trade phase never came"
        for sel in ("#my-fields .field.target:not(.empty)", "#btn-stop-planting"):
            if page.locator(sel).count():
                page.locator(sel).first.click()
                break
        time.sleep(0.2)

    # A refusal, then a change of the game: gone once it has been seen a few seconds.
    page.evaluate("act({type: 'harvest', field: 2})")
    page.wait_for_function("!document.getElementById('last-error').hidden")
    bob.drain(0.2)
    hand = bob.view["hand"]
    ada_hand = page.evaluate("T.state.view.hand.map(c => c.variety)")
    wanted = ada_hand[0]
    offer = {"to": 0, "give": [hand[0]["id"]], "want": [[wanted, 1]]}
    assert bob.act({"type": "propose", "offer": offer})["type"] == "ack"
    page.wait_for_selector(".offer.incoming .counter")
    assert _last_error_shown(page)  # not at once: a refusal is seen first
    page.wait_for_function("document.getElementById('last-error').hidden", timeout=10_000)
    # The counter-offer starts from Bob's offer turned around: his card wanted, and the
    # card he asked for already picked to give.
    page.click(".offer.incoming .counter")
    page.wait_for_selector("#offer-builder")
    picked = page.evaluate(
        "[...document.querySelectorAll('#offer-builder .give .card.selected')].length"
    )
    assert picked == 1
    page.screenshot(path=str(shots / f"trade-desktop-{lang}.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(shots / f"trade-phone-{lang}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)

    # Bob resigns: the table still calls him by his name.
    bob.request({"type": "leave"})
    bob.close()
    resigned = "Bob (resigned, played by" if lang == "en" else "Bob (zrezygnował(a), gra bot"
    page.wait_for_selector(f".seat[data-seat='1'] .seat-name:has-text('{resigned}')")
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_the_end_of_a_game_and_its_replay_on_a_phone(
    browser: Any, make_server: Any, shots: Path, lang: str
) -> None:
    server: ServerThread = make_server(away_timeout=0.0)
    heuristic = {"kind": "bot", "bot": "heuristic"}
    over = finished_game(
        server, seats=[{"kind": "person"}, heuristic, heuristic], stand_in_bot="heuristic"
    )
    errors: list[str] = []
    for viewport, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page = _page(browser, viewport, errors, lang)
        page.goto(f"{server.url}/t/{over}")
        page.wait_for_selector("#game-over")
        page.screenshot(path=str(shots / f"end-{name}-{lang}.png"), full_page=True)
        page.context.close()
    # The phone replay: "This step" between the controls and the board, so that a step's
    # button and what it did are on the screen together.
    page = _page(browser, PHONE, errors, lang)
    page.goto(f"{server.url}/replay/{over}")
    page.wait_for_selector("#board .seat")
    page.click("#r-next")
    boxes = page.evaluate(
        """() => ['#controls', '#log', '#board'].map(
             s => document.querySelector(s).getBoundingClientRect().top)"""
    )
    assert boxes[0] < boxes[1] < boxes[2], boxes
    assert boxes[1] < PHONE["height"]
    assert not errors, errors


def test_a_passkey_on_a_numeric_address_says_what_to_open(browser: Any, make_server: Any) -> None:
    """On 127.0.0.1 the browser only said "This is an invalid domain."."""
    server: ServerThread = make_server(accounts=FAST)
    errors: list[str] = []
    page = _page(browser, DESKTOP, errors)
    page.goto(server.url + "/account")
    page.fill("#register-name", "Pia")
    page.click("#passkey-register-btn")
    page.wait_for_selector(f"#account-error:has-text('localhost:{server.port}/account')")
    assert not errors, errors


def test_the_player_page_has_dates_opponents_and_says_what_the_star_means(
    browser: Any, make_server: Any
) -> None:
    server: ServerThread = make_server(accounts=FAST)
    store = Store(server.settings.database_url)
    store.on_game_over.append(rate_finished)
    try:
        accounts = Accounts(store, FAST)
        ada, _ = accounts.register("Ada", "correct horse", "a")
        settings = {"rules": "classic", "players": 3, "options": {}, "rated": "bots"}
        seats = [
            StoredSeat(0, "person", "", "Ada", hash_token("ta")),
            StoredSeat(1, "bot", "heuristic", "", None),
            StoredSeat(2, "person", "", "Kim", hash_token("tk")),
        ]
        store.create_table(StoredTable("t1", time.time(), "lobby", settings, seats))
        store.start_game("t1", {"format": "bohnanza-record", "rules": "classic", "players": 3})
        accounts.link_seat(ada.id, "t1", 0, hash_token("ta"))
        result = {"scores": [12, 9, 4], "winners": [0]}
        store.append_actions("t1", 0, [(0, {"type": "plant", "field": 0})], result)
    finally:
        store.close()
    errors: list[str] = []
    page = _page(browser, DESKTOP, errors)
    page.goto(server.url + "/player/Ada")
    page.wait_for_selector(".recent-games tbody tr")
    row = page.locator(".recent-games tbody tr").first
    assert "heuristic bot, Kim" in row.locator(".opponents").inner_text()
    assert row.locator(".game-date").inner_text().strip()
    assert page.locator(".fresh-note").inner_text().startswith("* ")
    assert not errors, errors
