"""Polish sentences of the web pages decline the beans' names (issue 54, item 8), in
Chromium: the pages build their log lines in JavaScript (board.js, common.js), so the
trade line "dostaje Niebieską, daje 2 Zielone" is checked where it is built. The forms
themselves come from the card data (tests/test_polish.py checks them)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import ServerThread
from .test_browser import DESKTOP, new_page

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: Cards by id as a table describes them (variety, kind): a Blue, two Greens, five Reds,
#: two red spiders.
CARDS = {
    0: ["blue"],
    1: ["green"],
    2: ["green"],
    **{k: ["red"] for k in range(3, 8)},
    10: ["fasolkopajak", "red"],
    11: ["fasolkopajak", "red"],
}
TABLE = {"seats": [{"kind": "person", "name": "Ola"}, {"kind": "person", "name": "Jan"}]}
EVENTS = {
    "trade": {"type": "trade", "seat": 0, "proposer": 1, "gave": [0], "got": [1, 2]},
    "offer": {
        "type": "offer",
        "seat": 1,
        "to": 0,
        "give_cards": [3, 4, 5, 6, 7],
        "want": [["blue", 1]],
    },
    "gift": {"type": "trade", "seat": 0, "proposer": 1, "gift": True, "gave": [1, 2], "got": []},
    "spiders": {"type": "trade", "seat": 0, "proposer": 1, "gave": [10, 11], "got": [0]},
    "harvest": {"type": "harvest", "seat": 0, "field": 0, "cards": [3, 4, 5, 6, 7], "coins": 4},
}


def test_the_log_declines_the_beans_in_polish(browser: Any, server: ServerThread) -> None:
    errors: list[str] = []
    page = new_page(browser, DESKTOP, errors)
    page.goto(server.url + "/")
    page.wait_for_function("() => window.B && B.strings !== null")
    page.add_script_tag(url=server.url + "/static/board.js")
    page.wait_for_function("() => window.Board && Board.eventText")
    lines = page.evaluate(
        """([cards, table, events]) => {
             Board.cards = cards;
             const out = {};
             for (const lang of ["en", "pl"]) {
               B.lang = lang;
               for (const [name, e] of Object.entries(events)) out[lang + "." + name] = Board.eventText(table, e);
               out[lang + ".without"] = B.t("without", { bean: B.bean("coffee", "gen") });
             }
             return out;
           }""",
        [CARDS, TABLE, EVENTS],
    )
    # A trade's cards are objects: "dostaje" / "daje" + the accusative, counted ones in
    # the plural the number asks for.
    assert lines["pl.trade"] == "Ola wymienia się z graczem Jan: dostaje Niebieską, daje 2 Zielone"
    assert lines["en.trade"] == "Ola trades with Jan: gets Blue, gives 2× Green"
    assert lines["pl.offer"] == "Jan proponuje graczowi Ola 5 Czerwonych za 1 Niebieską"
    # A gift names its cards after a colon: the nominative.
    assert lines["pl.gift"] == "Ola przyjmuje prezent od gracza Jan: 2 Zielone"
    # A card with a kind is named one by one (its kind word does not follow a plural).
    assert lines["pl.spiders"] == (
        "Ola wymienia się z graczem Jan: dostaje Fasolkopająka (czerwony), "
        "Fasolkopająka (czerwony), daje Niebieską"
    )
    assert lines["en.spiders"] == "Ola trades with Jan: gets 2× Fasolkopająk (red), gives Blue"
    assert lines["pl.harvest"] == "Ola zbiera pole 1 (5 Czerwonych): 4 monety"
    assert lines["en.harvest"] == "Ola harvests field 1 (5 × Red): 4 coins"
    assert (lines["pl.without"], lines["en.without"]) == ("bez Kawowej", "without Coffee")
    assert not errors, errors
