"""Coach mode in the browser (issue 36, static/coach.js): the hint button of a person's
seat at a table whose host chose the coach shows up to three actions with their coins
and reasons; a table without the coach has no button."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ServerThread, wait_for_player, wait_for_status
from .test_browser import DESKTOP, new_page

pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def open_started(browser: Any, server: ServerThread, coach: bool, errors: list[str]) -> Any:
    made = server.create(coach=coach, seed=7)
    table = made["table"]["id"]
    page = new_page(browser, DESKTOP, errors)
    page.goto(server.url + "/")
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)", [f"bohnanza.token.{table}", made["token"]]
    )
    page.goto(f"{server.url}/t/{table}")
    wait_for_player(server, table)
    page.wait_for_selector("#btn-start:not([disabled])", timeout=60_000)
    page.click("#btn-start")
    wait_for_status(server, table, "playing")
    page.wait_for_selector("#board:not([hidden])", timeout=60_000)
    return page


def test_the_hint_button_shows_three_actions_at_a_coach_table(
    browser: Any, server: ServerThread
) -> None:
    errors: list[str] = []
    page = open_started(browser, server, True, errors)
    page.click("#btn-hint")
    page.wait_for_selector("#hint-box li.hint", timeout=30_000)
    hints = page.locator("#hint-box li.hint")
    assert 1 <= hints.count() <= 3
    assert "coins" in hints.first.inner_text()
    # Each option shows its rank; options the coach cannot tell apart share one, marked
    # "1=" (issue 53, item 6: ties shown as ties, in the page as in the command line).
    ranks = [int(hints.nth(i).get_attribute("data-rank") or 0) for i in range(hints.count())]
    assert ranks[0] == 1 and ranks == sorted(ranks)
    for i, rank in enumerate(ranks):
        label = hints.nth(i).locator(".hint-rank").inner_text().strip()
        tied = ranks.count(rank) > 1
        assert label == f"{rank}{'=' if tied else ''}.", (label, ranks)
    other = open_started(browser, server, False, errors)
    other.wait_for_timeout(500)  # coach.js has asked for the table and found no coach
    assert other.locator("#btn-hint").count() == 0
    assert not errors
