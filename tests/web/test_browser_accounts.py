"""Accounts in Chromium: register on /account, create a rated table from the lobby (the
"rated" choice appears for accounts), resign so the stand-in finishes it, and find the
rating on the leaderboard and the player's page (plot, replay link); log in and out."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from bohnanza.web.accounts import AccountLimits

from .conftest import ServerThread, wait_for_player, wait_for_status
from .test_browser import DESKTOP, new_page, seq, ui_step, wait_seq_change

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FAST = AccountLimits(hash_time_cost=1, hash_memory_kib=8192)


def test_register_play_a_rated_game_and_see_the_rating(
    browser: Any, make_server: Any, shots: Path
) -> None:
    server: ServerThread = make_server(accounts=FAST)
    errors: list[str] = []
    page = new_page(browser, DESKTOP, errors)
    page.goto(server.url + "/account")
    page.wait_for_selector("#register-form")
    page.screenshot(path=str(shots / "account-guest-desktop.png"), full_page=True)
    page.fill("#register-name", "Ada")
    page.fill("#register-password", "short")
    page.click("#register-btn")
    # The server's reason is shown, and nothing was registered.
    page.wait_for_selector("#account-error:has-text('8')")
    page.fill("#register-password", "correct horse")
    page.click("#register-btn")
    page.wait_for_selector("#logged-in:has-text('Ada')")
    page.screenshot(path=str(shots / "account-desktop.png"), full_page=True)

    page.goto(server.url + "/")
    page.wait_for_selector("#f-rated")
    assert page.locator("#account-link").inner_text() == "Ada"
    page.fill("#f-name", "Ada")
    page.select_option("#f-players", "3")
    page.select_option("#f-rated", "bots")
    page.select_option("#f-stand-in", "autarky")
    page.click("#create-btn")
    page.wait_for_url("**/t/**")
    table = page.url.split("/t/", 1)[1].split("#", 1)[0]
    wait_for_player(server, table)
    page.wait_for_selector("#btn-start", timeout=60_000)
    page.click("#btn-start")
    wait_for_status(server, table, "playing")
    page.wait_for_selector("#btn-resign", timeout=60_000)
    # The lobby lists the game first, among "your games" (its seat is the account's).
    page.goto(server.url + "/")
    page.wait_for_selector(f"#your-games li[data-table='{table}']")
    assert page.evaluate("document.querySelector('main.home').firstElementChild.id") == "your-games"
    page.screenshot(path=str(shots / "home-your-games.png"), full_page=True)
    page.click(f"#your-games li[data-table='{table}'] a")
    page.wait_for_selector("#btn-resign")
    # Play a few moves through the UI, then resign: the stand-in finishes the game.
    moves = 0
    deadline = time.monotonic() + 30
    while moves < 4 and time.monotonic() < deadline:
        before = seq(page)
        if ui_step(page):
            moves += 1
        wait_seq_change(page, before, 2)
    assert moves >= 2
    page.click("#btn-resign")
    page.click("#confirm-yes")
    with server.http() as c:
        deadline = time.monotonic() + 90
        while c.get(f"/api/tables/{table}").json()["status"] != "over":
            assert time.monotonic() < deadline, "the stand-ins did not finish the game"
            time.sleep(0.3)

    page.goto(server.url + "/ratings?rules=classic")
    row = page.locator("#leaderboard tr[data-name='Ada']")
    row.wait_for()
    assert "provisional" in row.inner_text()
    # The change: from a new account's 0.0 (mu 25 - 3 sigma 25/3) to what the game gave.
    assert row.locator("td.rating").inner_text() != "0.0"
    page.screenshot(path=str(shots / "ratings-desktop.png"), full_page=True)
    row.locator("a").click()
    page.wait_for_selector("svg.rating-plot circle")
    assert page.locator("svg.rating-plot circle").count() == 1
    replay = page.locator("a.replay-link")
    assert replay.get_attribute("href") == f"/replay/{table}"
    page.screenshot(path=str(shots / "player-desktop.png"), full_page=True)

    # Log out, then in again: the account page shows the form, then the account.
    page.goto(server.url + "/account")
    page.click("#logout-btn")
    page.wait_for_selector("#login-form")
    page.fill("#login-name", "ada")
    page.fill("#login-password", "correct horse")
    page.click("#login-btn")
    page.wait_for_selector("#logged-in:has-text('Ada')")
    assert not errors, errors


def test_passkey_registration_and_login_with_a_virtual_authenticator(
    browser: Any, make_server: Any
) -> None:
    """Chromium's virtual authenticator (DevTools protocol) plays the phone or security
    key. The page is opened at localhost: WebAuthn needs a domain name (not an IP
    address) and a secure context (https, or localhost)."""
    server: ServerThread = make_server(accounts=FAST)
    base = f"http://localhost:{server.port}"
    errors: list[str] = []
    page = new_page(browser, DESKTOP, errors)
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    found = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    page.goto(base + "/account")
    page.fill("#register-name", "Pia")
    page.click("#passkey-register-btn")
    page.wait_for_selector("#logged-in:has-text('Pia')")
    creds = cdp.send("WebAuthn.getCredentials", {"authenticatorId": found["authenticatorId"]})
    assert len(creds["credentials"]) == 1 and creds["credentials"][0]["isResidentCredential"]
    # Out, and back in with the passkey alone (no name typed: a discoverable credential).
    page.click("#logout-btn")
    page.wait_for_selector("#login-form")
    page.click("#passkey-login-btn")
    page.wait_for_selector("#logged-in:has-text('Pia')")
    # The account has no password: a password login for it fails.
    with server.http() as c:
        r = c.post("/api/account/login", json={"name": "Pia", "password": "anything at all"})
        assert r.status_code == 401
    # A second passkey on the same authenticator is refused (it holds one already).
    page.click("#passkey-add-btn")
    page.wait_for_function(
        "document.querySelector('#account-error').textContent.length > 0", timeout=15000
    )
    assert not errors, errors
