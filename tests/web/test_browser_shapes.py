"""The page draws a module's actions from their shapes (issue 27): the worked example
(tests/fixtures/module_toll.py, a toy rule: plant a hand card other than the front one on a
field), registered with no edit to the page or web/, is played by clicking its card and
then a field; the server applies exactly that action. Fasolufka's pending decisions (a
received child's field, a lady's move) are answered on the fields, and the duel and
Fasolufka, whose actions the page no longer names, are played to the end through the
generic controls.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bohnanza.modules import module_info, module_shapes

from .conftest import ServerThread
from .test_browser import DESKTOP, new_page, seq, ui_step, wait_seq_change

pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def toll() -> Iterator[Any]:
    from fixtures import module_toll

    module_toll.register()
    try:
        yield module_toll
    finally:
        module_toll.unregister()


def open_table(browser: Any, server: ServerThread, rules: str, players: int, seed: int) -> Any:
    seats = [{"kind": "person"}] + [{"kind": "bot", "bot": "random"}] * (players - 1)
    made = server.create(rules=rules, players=players, seed=seed, seats=seats)
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
    return page, table_id, errors


def test_the_toll_module_is_played_in_the_page_by_its_shape(
    browser: Any, server: ServerThread, toll: Any, shots: Path
) -> None:
    page, table_id, errors = open_table(browser, server, "fasolki+toll", 3, seed=5)
    game = server.app.state.manager.tables[table_id].game
    assert game is not None and game.active == 0 and game.phase == "plant"
    hand = list(game.hands[0])
    chosen = hand[2]  # the third hand card: not the front one
    # The page learnt the action from the shape sent with the table, in both languages.
    shapes = page.evaluate("T.table.module_info.actions")
    assert shapes == module_shapes("fasolki+toll")
    label_en = next(s for s in shapes if s["type"] == "toll")["label"]  # [EN, PL]
    # Every legal toll is listed with its arguments: no two buttons read the same.
    page.wait_for_selector("#choices .choice.toll")
    texts = page.locator("#choices .choice.toll").all_inner_texts()
    legal = [a for a in game.legal_actions(0) if a.type.value == "toll"]
    assert len(texts) == len(legal) > 1
    assert len(set(texts)) == len(texts)
    assert all(x.startswith(label_en[0]) for x in texts)
    # In Polish the same buttons read the shape's Polish label and argument words.
    page.evaluate("B.setLang('pl')")
    page.wait_for_function(
        "l => document.querySelector('#choices .choice.toll').textContent.startsWith(l)",
        arg=label_en[1],
    )
    assert "pole 2" in " ".join(page.locator("#choices .choice.toll").all_inner_texts())
    page.evaluate("B.setLang('en')")
    page.wait_for_function(
        "l => document.querySelector('#choices .choice.toll').textContent.startsWith(l)",
        arg=label_en[0],
    )
    # Click the chosen hand card, then field 2: the fields light up for that card.
    page.click(f"#my-hand .card[data-card='{chosen}']")
    page.wait_for_selector(f"#my-hand .card.selected[data-card='{chosen}']")
    assert page.locator("#choices .choice.toll.match").count() == 2  # its two fields
    help_en = next(s for s in shapes if s["type"] == "toll")["help"][0]
    assert page.locator("#hint").inner_text().lower().startswith(help_en.lower())
    page.screenshot(path=str(shots / "toll-picked.png"), full_page=True)
    before = seq(page)
    page.click("#my-fields .field.target[data-field='1']")
    wait_seq_change(page, before, 5)
    game = server.app.state.manager.tables[table_id].game
    assert game is not None
    # The server applied toll(chosen, 1): the card left the hand for field 2.
    assert chosen not in game.hands[0]
    assert game.fields[0][1] == [chosen]
    assert game.planted == 1
    page.wait_for_function(
        "document.querySelectorAll('#my-fields .field')[1].querySelectorAll('.card').length === 1"
    )
    # The log tells the event from the shape's label, with its card and field.
    page.wait_for_function(
        "l => document.querySelector('#log').textContent.includes(l)", arg=label_en[0]
    )
    assert not errors, errors


def test_a_toll_action_sent_by_its_list_button_is_built_from_the_shape(
    browser: Any, server: ServerThread, toll: Any
) -> None:
    page, table_id, errors = open_table(browser, server, "fasolki+toll", 3, seed=7)
    page.wait_for_selector("#choices .choice.toll")
    button = page.locator("#choices .choice.toll").nth(1)
    card = int(button.get_attribute("data-card"))
    field = int(button.get_attribute("data-field"))
    built = page.evaluate(
        "([c, f]) => Shapes.build(Shapes.of('toll'), {card: c, field: f, offer_id: 3})",
        [card, field],
    )
    assert built == {"type": "toll", "card": card, "field": field}  # only the shape's fields
    before = seq(page)
    button.click()
    wait_seq_change(page, before, 5)
    game = server.app.state.manager.tables[table_id].game
    assert game is not None
    assert game.fields[0][field] == [card] and card not in game.hands[0]
    assert not errors, errors


@pytest.mark.parametrize(
    ("rules", "players"),
    [("fasolki+duel", 2), pytest.param("fasolki+fasolufka", 3, marks=pytest.mark.long)],
)
def test_a_module_game_is_played_to_the_end_through_the_generic_controls(
    browser: Any, server: ServerThread, rules: str, players: int
) -> None:
    page, _table_id, errors = open_table(browser, server, rules, players, seed=3)
    deadline = time.monotonic() + 150
    shaped = 0
    while not page.locator("#game-over").count():
        assert time.monotonic() < deadline, "the game did not finish through the UI in time"
        shaped += page.locator("#choices .choice, .card.shaped").count() > 0
        before = seq(page)
        if ui_step(page):
            wait_seq_change(page, before, 3)
        else:
            wait_seq_change(page, before, 2)
    if rules == "fasolki+duel":
        assert shaped > 0  # the duel's own actions were offered by the generic controls
        # The duel's own events are worded by the duel (ModuleInfo.event_labels), not by
        # the page: "Bot 1 reveals Chili", "… leaves … as the offer".
        told = "\n".join(page.locator("#log li").all_inner_texts())
        for event in ("reveal", "leave_offer"):
            en = module_info("duel").event_labels[event][0].text[0]
            verb = en.split("{who} ")[1].split(" ")[0]
            assert f" {verb} " in told, (event, told[-500:])
        # The replay heads the duel's public piles from its ModuleInfo, mid-game.
        labels = module_info("duel").pile_labels
        page.click("#replay-link")
        page.wait_for_selector(".players.all .seat")
        page.evaluate("load(Math.floor(R.total / 2))")
        page.wait_for_selector(".pile .label")
        heads = page.locator(".pile .label").all_text_contents()  # (CSS upper-cases them)
        assert heads and set(heads) <= {v[0] for v in labels.values()}
    # Every event is worded (a module's from its action's shape), none left as a bare type.
    lines = page.locator("#log li").all_inner_texts()
    assert lines and not [
        x for x in lines if x.strip().replace("_", "").isalpha() and x == x.lower()
    ]
    assert not errors, errors


def test_a_received_child_and_a_lady_move_are_picked_on_the_fields_r_lady_7_r_lady_8(
    browser: Any, server: ServerThread, shots: Path
) -> None:
    """Fasolufka's pending decisions, drawn from their shapes: the child a gift brought is
    placed by clicking a lit field (its card is the pending decision's, not picked), then
    the lady below it is moved by clicking her card on that field (R-LADY-7, R-LADY-8)."""
    seats = [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "bot": "random"}]
    made = server.create(rules="fasolki+fasolufka", players=3, seed=2, seats=seats)
    table_id = made["table"]["id"]
    bob = server.client(table_id, server.join(table_id, "Bob", seat=1)["token"])
    errors: list[str] = []
    page = new_page(browser, DESKTOP, errors)
    page.goto(server.url + "/")
    page.evaluate(
        "([k, v]) => localStorage.setItem(k, v)", [f"bohnanza.token.{table_id}", made["token"]]
    )
    page.goto(f"{server.url}/t/{table_id}")
    page.click("#btn-start")
    page.wait_for_selector("#board:not([hidden])")
    # Stage: seat 0's field 1 holds a cowboy lady under a cowboy man, field 2 a cowboy man
    # (two fields the child may go to: a choice), the front card is a cowboy man; Bob holds
    # a cowboy child.
    game = server.app.state.manager.tables[table_id].game
    assert game is not None and game.active == 0 and game.phase == "plant"
    cfg = game.config

    def one(kind: str) -> int:
        card = next(
            c for c in game.draw if cfg.variety_of(c) == "cowboy" and cfg.card_kind[c] == kind
        )
        game.draw.remove(card)
        return card

    lady, man, child = one("lady"), one("man"), one("child")
    game.fields[0][0] = [lady, man]
    game.fields[0][1] = [one("man")]
    game.draw.append(game.hands[0][0])
    game.hands[0][0] = one("man")
    game.hands[1].append(child)
    game.invalidate_views()
    page.reload()
    page.wait_for_selector(f"#my-fields .card[data-card='{lady}']")
    # Plant the front card, stop, and open trading.
    page.click("#my-fields .field.target[data-field='1']")
    page.click("#btn-stop-planting")
    page.wait_for_function("document.body.dataset.phase === 'trade'")
    bob.drain()
    answer = bob.act({"type": "propose", "offer": {"to": 0, "give": [child], "want": []}})
    assert answer["type"] == "ack", answer
    # Bob's gift, by its id: the random seat may have offered seat 0 something first.
    now = server.app.state.manager.tables[table_id].game
    assert now is not None
    gift = next(i for i, (p, o) in now.offers.items() if p == 1 and child in o.give)
    page.click(f".offer.incoming[data-offer='{gift}'] .accept")
    # The child waits for its field: both cowboy fields are lit, no card is to be picked.
    page.wait_for_selector("#my-fields .field.target[data-field='0']")
    assert page.locator("#my-fields .field.target").count() == 2
    place = next(s for s in module_shapes("fasolki+fasolufka") if s["type"] == "place_child")
    # The hint names the decision's card, shown to the deciding seat (its view carries it).
    hint = page.locator("#hint").inner_text().lower()
    assert hint.startswith(place["help"][0].lower() + " · "), hint
    assert "cowboy" in hint.split(" · ")[1] and "child" in hint.split(" · ")[1], hint
    page.click("#my-fields .field.target[data-field='0']")
    # Now the lady below the child is pickable on the field; "move no lady" is listed too.
    lady_sel = f"#my-fields .field[data-field='0'] .card.shaped[data-card='{lady}']"
    page.wait_for_selector(lady_sel)
    assert page.locator("#choices .choice.move_lady").count() == 2
    page.screenshot(path=str(shots / "fasolufka-lady-move.png"), full_page=True)
    page.click(lady_sel)
    page.wait_for_function("document.querySelectorAll('#choices .choice.move_lady').length === 0")
    table = server.app.state.manager.tables[table_id]
    mine = [(a.type.value, a.card, a.field) for s, a in table.actions if s == 0]
    assert ("place_child", child, 0) in mine
    assert ("move_lady", lady, None) in mine
    assert table.game is not None and lady in table.game.fields[0][0]
    assert not errors, errors
    bob.close()
