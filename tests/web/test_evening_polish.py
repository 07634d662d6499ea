"""An evening with friends, polished (issue 54, the server side): bots that do not bury a
person in offers, test bots kept out of a real server's menus."""

from __future__ import annotations

from collections.abc import Callable

from bohnanza.actions import Action, ActionType, Offer
from bohnanza.events import Event
from bohnanza.game import Game
from bohnanza.web.model import Seat, Settings, Table
from bohnanza.web.pump import TradeState, considerate
from bohnanza.web.standin import track

from .conftest import ServerThread


def _trading() -> tuple[Table, Game]:
    """A 3-player table in seat 0's trade phase: bots at seats 0 and 2, Bob at seat 1."""
    game = Game.new("classic", 3, seed=4)
    while game.phase != "trade":
        game.apply(0, game.legal_actions(0, False)[0])
    seats = [
        Seat(0, "bot", "heuristic", ""),
        Seat(1, "person", "", "Bob", "h"),
        Seat(2, "bot", "heuristic", ""),
    ]
    table = Table("t", 0.0, "playing", {"rules": "classic", "players": 3}, seats, game=game)
    table.trade = TradeState(game.turn, 0.0)
    return table, game


def test_a_bot_does_not_bury_a_person_in_offers() -> None:
    """A bot sent one person up to 6 near-identical offers, most greyed "You lack the
    cards". Now, towards a person: one open offer at a time, none the person declined
    this turn, none asking for more cards than their hand holds (public: its size)."""
    table, game = _trading()
    card = game.hands[0][0]
    want = game.legal_actions(0, True)
    to_bob = [
        a for a in want if a.type is ActionType.PROPOSE and a.offer is not None and a.offer.to == 1
    ]
    to_bot = [
        a for a in want if a.type is ActionType.PROPOSE and a.offer is not None and a.offer.to == 2
    ]
    assert to_bob and to_bot
    greedy = Action.propose(Offer(1, (card,), (("soy", len(game.hands[1]) + 1),)))
    kept = considerate(table, game, 0, [*want, greedy])
    assert greedy not in kept and set(want) <= set(kept)  # nothing else is taken away
    # An open offer to Bob: no second one to him; the bot seat may still be asked.
    first = to_bob[1]
    game.apply(0, first)
    kept = considerate(table, game, 0, game.legal_actions(0, True))
    assert not [a for a in kept if a.type is ActionType.PROPOSE and a.offer.to == 1]  # type: ignore[union-attr]
    assert [a for a in kept if a.type is ActionType.PROPOSE and a.offer.to == 2]  # type: ignore[union-attr]
    # Bob declines it: the same offer (whatever card of that variety) is not sent again
    # this turn; another one may be.
    (oid,) = [i for i, (p, o) in game.offers.items() if p == 0 and o.to == 1]
    decline = Action.decline(oid)
    assert table.trade is not None
    table.trade.declining(game, decline)
    game.apply(1, decline)
    again = [
        a
        for a in considerate(table, game, 0, game.legal_actions(0, True))
        if a.type is ActionType.PROPOSE and a.offer.to == 1
    ]  # type: ignore[union-attr]
    assert first not in again and again


def test_test_bots_stay_out_of_a_real_servers_menus(
    make_server: Callable[..., ServerThread],
) -> None:
    """``probe-accept``, ``probe-spam`` and ``probe-shy`` were offered in the seat menus
    and as stand-ins; they are test bots, for test servers only."""
    assert not [b for b in Settings(testing=False).bots() if b.startswith("probe-")]
    assert "probe-spam" in Settings(testing=True).bots()
    srv = make_server(testing=False)
    with srv.http() as http:
        assert not [b for b in http.get("/api/rules").json()["bots"] if b.startswith("probe-")]
        body = {
            "rules": "classic",
            "players": 3,
            "name": "Ada",
            "seats": [{"kind": "person"}, {"kind": "bot", "bot": "probe-accept"}, {"kind": "bot"}],
        }
        assert http.post("/api/tables", json=body).status_code == 400
        body["seats"][1] = {"kind": "bot"}
        assert (
            http.post("/api/tables", json={**body, "stand_in_bot": "probe-accept"}).status_code
            == 400
        )


def test_while_you_were_away_leaves_out_the_declines() -> None:
    """The list of what a stand-in played was mostly the offers it declined: it says what
    changed (plants, trades, harvests) now."""
    table, _game = _trading()
    bob = table.seats[1]
    bob.bot_from = len(table.events)
    table.events += [
        Event("decline", 1, {"offer_id": 3, "proposer": 0, "gift": False}, None),
        Event("withdraw", 1, {"offer_id": 4}, None),
        Event("plant", 1, {"field": 0, "card": 7}, None),
    ]
    _notes, back = track(table)
    assert [(seat, [m["type"] for m in moves]) for seat, moves in back] == [(1, ["plant"])]
