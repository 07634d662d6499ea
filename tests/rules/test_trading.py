"""Phases 2–4: trading, planting traded cards, drawing (R-TRADE-*, R-PLANT-4, R-DRAW-1)."""

from __future__ import annotations

import pytest

from bohnanza import Action, Game, InvalidOffer, NotYourTurn, Offer
from bohnanza.testing.helpers import (
    PLANT,
    PLANT_TRADED,
    TRADE,
    assert_conserved,
    assert_illegal,
    deal,
    drawn,
    fields,
    find,
    hand,
    plant,
    plant_trade_areas,
    trade_area,
)

HANDS = [
    ["blue", "chili", "stink", "green", "soy"],
    ["red", "wax", "garden", "blue", "black-eyed"],
    ["green", "green", "soy", "red", "cocoa"],
    ["stink", "stink", "chili", "chili", "wax"],
]
PILE = ["wax", "red", "soy", "cocoa", "garden", "black-eyed", "black-eyed"]


def trading_game() -> Game:
    """Seat 0 has planted its Blue; Wax and Red are turned over (phase 2)."""
    game = deal(hands=HANDS, pile=PILE)
    plant(game, 0)
    assert game.phase == TRADE
    return game


def propose(game: Game, seat: int, offer: Offer) -> int:
    """Open an offer and return its id."""
    game.apply(seat, Action.propose(offer))
    return max(game.offers)


# ---------------------------------------------------------------------------- R-TRADE-1


def test_two_cards_are_turned_over_face_up_r_trade_1():
    # R-TRADE-1: the top 2 cards of the draw pile, face up for everyone.
    game = trading_game()
    assert drawn(game) == ["wax", "red"]
    assert len(game.draw) == 110 - 2
    for seat in (0, 1, 2, 3, None):
        assert game.view(seat).drawn == tuple(game.drawn)
    assert_conserved(game)


def test_drawn_cards_never_go_into_a_hand_r_trade_1_r_trade_7():
    # R-TRADE-1: drawn cards may be kept, traded or given, never taken into a hand.
    # R-TRADE-7: those kept go to the active player's trade area.
    game = trading_game()
    wax, red = game.drawn
    oid = propose(game, 0, Offer(1, (wax,)))  # given away
    game.apply(1, Action.accept(oid, ()))
    game.apply(0, Action.end_trading())  # Red kept
    assert game.phase == PLANT_TRADED
    assert game.drawn == []
    assert game.trade[0] == [red]
    assert game.trade[1] == [wax]
    assert hand(game, 0) == HANDS[0][1:]
    assert hand(game, 1) == HANDS[1]


# ---------------------------------------------------------------------------- R-TRADE-2


def test_active_player_trades_drawn_and_hand_cards_together_r_trade_2():
    # R-TRADE-2: the active player may trade drawn cards and hand cards, in any order.
    game = trading_game()
    wax = game.drawn[0]
    stink = find(game, 0, "stink")
    oid = propose(game, 0, Offer(1, (wax, stink), (("blue", 1),)))
    blue = find(game, 1, "blue")
    game.apply(1, Action.accept(oid, (blue,)))
    assert trade_area(game, 1) == ["wax", "stink"]
    assert trade_area(game, 0) == ["blue"]
    assert drawn(game) == ["red"]
    # Another trade, giving a hand card only, with another seat.
    green = find(game, 0, "green")
    oid = propose(game, 0, Offer(2, (green,), (("cocoa", 1),)))
    game.apply(2, Action.accept(oid, (find(game, 2, "cocoa"),)))
    assert trade_area(game, 0) == ["blue", "cocoa"]
    assert trade_area(game, 2) == ["green"]
    assert_conserved(game)


def test_non_active_players_never_trade_with_each_other_r_trade_2():
    # R-TRADE-2: other players trade only with the active player.
    game = trading_game()
    red = find(game, 1, "red")
    err = assert_illegal(
        game, 1, Action.propose(Offer(2, (red,), (("green", 1),))), exc=InvalidOffer
    )
    assert "R-TRADE-2" in str(err)
    assert_illegal(game, 1, Action.propose(Offer(3, (red,))), "R-TRADE-2", exc=InvalidOffer)
    assert_illegal(
        game, 2, Action.propose(Offer(1, (), (("red", 1),))), "R-TRADE-2", exc=InvalidOffer
    )
    for seat in (1, 2, 3):
        for a in game.legal_actions(seat):
            if a.type.value == "propose":
                assert a.offer.to == 0


def test_non_active_players_give_only_hand_cards_r_trade_2():
    # R-TRADE-2: the drawn cards belong to the active player's turn.
    game = trading_game()
    wax_drawn = game.drawn[0]
    assert_illegal(game, 1, Action.propose(Offer(0, (wax_drawn,))), "R-TRADE-2", exc=InvalidOffer)
    # ... nor may they pay with drawn cards when accepting.
    oid = propose(game, 0, Offer(1, (find(game, 0, "chili"),), (("red", 1),)))
    red_drawn = game.drawn[1]
    assert_illegal(game, 1, Action.accept(oid, (red_drawn,)), "R-TRADE-2", exc=InvalidOffer)
    # ... and nobody gives a card it does not hold.
    assert_illegal(game, 1, Action.propose(Offer(0, (find(game, 2, "cocoa"),))), exc=InvalidOffer)
    # With its own Red it works.
    game.apply(1, Action.accept(oid, (find(game, 1, "red"),)))
    assert trade_area(game, 0) == ["red"]
    assert drawn(game) == ["wax", "red"]


def test_a_non_active_player_trades_hand_cards_with_the_active_player_r_trade_2():
    # R-TRADE-2: seat 1 proposes; the active player pays with a drawn card.
    game = trading_game()
    garden = find(game, 1, "garden")
    oid = propose(game, 1, Offer(0, (garden,), (("wax", 1),)))
    assert_illegal(game, 2, Action.accept(oid, (find(game, 2, "soy"),)), exc=InvalidOffer)
    game.apply(0, Action.accept(oid, (game.drawn[0],)))
    assert trade_area(game, 0) == ["garden"]
    assert trade_area(game, 1) == ["wax"]
    assert drawn(game) == ["red"]
    assert hand(game, 1) == ["red", "wax", "blue", "black-eyed"]


def test_an_offer_needs_another_seat_r_trade_2():
    game = trading_game()
    chili = find(game, 0, "chili")
    assert_illegal(game, 0, Action.propose(Offer(0, (chili,))), exc=InvalidOffer)
    assert_illegal(game, 0, Action.propose(Offer(4, (chili,))), exc=InvalidOffer)


# ---------------------------------------------------------------------------- R-TRADE-3


def test_unequal_trades_from_anywhere_in_the_hand_r_trade_3():
    # R-TRADE-3: 3 cards for 1; taken from the middle of hands; the rest keep their order.
    game = trading_game()
    give = (game.drawn[0], find(game, 0, "stink"), find(game, 0, "green"))
    oid = propose(game, 0, Offer(1, give, (("garden", 1),)))
    game.apply(1, Action.accept(oid, (find(game, 1, "garden"),)))
    assert hand(game, 0) == ["chili", "soy"]
    assert hand(game, 1) == ["red", "wax", "blue", "black-eyed"]
    assert trade_area(game, 1) == ["wax", "stink", "green"]
    assert trade_area(game, 0) == ["garden"]
    # 2 for 0: seat 3 asks for two cards and gives nothing back, seat 0 agrees.
    oid = propose(game, 3, Offer(0, (), (("chili", 1), ("red", 1))))
    game.apply(0, Action.accept(oid, (find(game, 0, "chili"), game.drawn[0])))
    assert hand(game, 0) == ["soy"]
    assert trade_area(game, 3) == ["chili", "red"]
    assert_conserved(game)


def test_cards_leave_the_hand_only_when_the_trade_happens_r_trade_3():
    # R-TRADE-3: proposing moves nothing; the same card may be offered twice, and once
    # one trade takes it, the other offer can no longer be accepted.
    game = trading_game()
    before = [list(h) for h in game.hands], list(game.drawn)
    chili = find(game, 0, "chili")
    first = propose(game, 0, Offer(1, (chili,), (("wax", 1),)))
    second = propose(game, 0, Offer(2, (chili,), (("soy", 1),)))
    assert ([list(h) for h in game.hands], list(game.drawn)) == before
    game.apply(2, Action.accept(second, (find(game, 2, "soy"),)))
    assert chili in game.trade[2]
    assert_illegal(game, 1, Action.accept(first, (find(game, 1, "wax"),)), exc=InvalidOffer)
    assert hand(game, 1) == HANDS[1]


def test_accepting_must_give_exactly_what_was_asked_r_trade_3():
    game = trading_game()
    oid = propose(game, 0, Offer(3, (find(game, 0, "chili"),), (("stink", 2),)))
    one = (find(game, 3, "stink"),)
    assert_illegal(game, 3, Action.accept(oid, one), exc=InvalidOffer)
    wrong = (find(game, 3, "stink"), find(game, 3, "chili"))
    assert_illegal(game, 3, Action.accept(oid, wrong), exc=InvalidOffer)
    both = (find(game, 3, "stink"), find(game, 3, "stink", nth=1))
    game.apply(3, Action.accept(oid, both))
    assert trade_area(game, 0) == ["stink", "stink"]
    assert hand(game, 3) == ["chili", "chili", "wax"]


# ---------------------------------------------------------------------------- R-TRADE-4


def test_a_gift_is_a_trade_with_nothing_in_return_r_trade_4():
    # R-TRADE-4: the receiver accepts and gives nothing.
    game = trading_game()
    oid = propose(game, 0, Offer(2, (game.drawn[1],)))
    assert game.view(2).offers[0].is_gift
    game.apply(2, Action.accept(oid, ()))
    assert trade_area(game, 2) == ["red"]
    # A non-active player may give to the active player too.
    oid = propose(game, 3, Offer(0, (find(game, 3, "chili"),)))
    game.apply(0, Action.accept(oid, ()))
    assert trade_area(game, 0) == ["chili"]
    assert hand(game, 3) == ["stink", "stink", "chili", "wax"]


def test_a_refused_gift_stays_with_the_giver_r_trade_4():
    # R-TRADE-4: the receiver may refuse; the giver keeps the card, hand order untouched.
    game = trading_game()
    green = find(game, 0, "green")
    oid = propose(game, 0, Offer(1, (green,)))
    assert_illegal(game, 2, Action.decline(oid), exc=InvalidOffer)  # not addressed to seat 2
    events = game.apply(1, Action.decline(oid))
    assert [e.type for e in events] == ["decline"]
    assert game.offers == {}
    assert hand(game, 0) == HANDS[0][1:]
    assert game.trade[1] == []
    # A refused drawn card stays drawn and is kept in the end (R-TRADE-7).
    oid = propose(game, 0, Offer(3, (game.drawn[0],)))
    game.apply(3, Action.decline(oid))
    assert drawn(game) == ["wax", "red"]
    game.apply(0, Action.end_trading())
    assert trade_area(game, 0) == ["wax", "red"]


def test_offers_bind_nobody_until_accepted_r_trade_6():
    # R-TRADE-6: promises bind nobody: a proposer may withdraw an open offer.
    game = trading_game()
    oid = propose(game, 0, Offer(1, (find(game, 0, "soy"),), (("red", 1),)))
    assert_illegal(game, 1, Action.withdraw(oid), exc=InvalidOffer)
    game.apply(0, Action.withdraw(oid))
    assert_illegal(game, 1, Action.accept(oid, (find(game, 1, "red"),)), exc=InvalidOffer)
    assert hand(game, 0) == HANDS[0][1:]


# ---------------------------------------------------------------------------- R-TRADE-5


def test_received_cards_go_to_the_trade_area_and_cannot_be_traded_again_r_trade_5():
    # R-TRADE-5: set aside in the trade area; never into the hand; never traded again.
    game = trading_game()
    oid = propose(game, 1, Offer(0, (find(game, 1, "black-eyed"),), (("stink", 1),)))
    game.apply(0, Action.accept(oid, (find(game, 0, "stink"),)))
    got0 = game.trade[0][0]
    got1 = game.trade[1][0]
    assert trade_area(game, 0) == ["black-eyed"]
    assert trade_area(game, 1) == ["stink"]
    assert len(game.hands[0]) == 3 and len(game.hands[1]) == 4
    assert_illegal(game, 0, Action.propose(Offer(2, (got0,))), exc=InvalidOffer)
    assert_illegal(game, 1, Action.propose(Offer(0, (got1,))), exc=InvalidOffer)
    # Nor can they pay for an offer.
    oid = propose(game, 0, Offer(1, (find(game, 0, "green"),), (("stink", 1),)))
    assert_illegal(game, 1, Action.accept(oid, (got1,)), exc=InvalidOffer)
    for seat in (0, 1):
        for a in game.legal_actions(seat):
            if a.type.value in ("propose", "accept"):
                assert got0 not in (a.offer.give if a.offer else a.cards)
                assert got1 not in (a.offer.give if a.offer else a.cards)


# ---------------------------------------------------------------------------- R-TRADE-6/7


def test_only_the_active_player_ends_trading_r_trade_6():
    # R-TRADE-6: phase 2 ends when the active player ends it.
    game = trading_game()
    for seat in (1, 2, 3):
        assert_illegal(game, seat, Action.end_trading(), "R-TRADE-6", exc=NotYourTurn)
        assert Action.end_trading() not in game.legal_actions(seat)
    assert Action.end_trading() in game.legal_actions(0)
    oid = propose(game, 1, Offer(0, (find(game, 1, "wax"),)))
    game.apply(0, Action.end_trading())
    assert game.phase == PLANT_TRADED
    assert game.offers == {}  # open offers lapse
    assert_illegal(game, 0, Action.accept(oid, ()), exc=NotYourTurn)
    assert_illegal(game, 1, Action.propose(Offer(0, (find(game, 1, "red"),))), exc=NotYourTurn)
    assert hand(game, 1) == HANDS[1]


def test_trading_is_only_in_phase_2_r_trade_1():
    game = deal(hands=HANDS, pile=PILE)
    chili = game.hands[0][1]
    assert_illegal(game, 0, Action.propose(Offer(1, (chili,))), "R-TRADE-1", exc=NotYourTurn)


def test_kept_drawn_cards_go_to_the_trade_area_r_trade_7():
    # R-TRADE-7: neither traded nor given away: to the active player's trade area.
    game = trading_game()
    cards = list(game.drawn)
    events = game.apply(0, Action.end_trading())
    assert "keep_drawn" in [e.type for e in events]
    assert game.trade[0] == cards
    assert game.drawn == []
    assert hand(game, 0) == HANDS[0][1:]


# ---------------------------------------------------------------------------- R-PLANT-4


def test_every_player_plants_its_trade_area_in_any_order_r_plant_4():
    # R-PLANT-4: phase 3 for every player, in any order they choose; the turn goes on
    # only when every trade area is empty.
    game = trading_game()
    oid = propose(game, 0, Offer(3, (find(game, 0, "chili"), find(game, 0, "soy")), ()))
    game.apply(3, Action.accept(oid, ()))
    game.apply(0, Action.end_trading())
    assert trade_area(game, 0) == ["wax", "red"]
    assert trade_area(game, 3) == ["chili", "soy"]
    assert game.waiting_for() == [0, 3]
    # Seat 3 first, last card first.
    game.apply(3, Action.plant_traded(game.trade[3][1], 0))
    game.apply(3, Action.plant_traded(game.trade[3][0], 1))
    assert fields(game, 3) == [["soy"], ["chili"]]
    assert game.waiting_for() == [0]
    game.apply(0, Action.plant_traded(game.trade[0][1], 1))
    assert game.phase == PLANT_TRADED and game.active == 0
    assert fields(game, 0) == [["blue"], ["red"]]
    # Wax fits nowhere now: seat 0 must harvest first (here both fields hold one card).
    wax = game.trade[0][0]
    assert_illegal(game, 0, Action.plant_traded(wax, 0), rule="R-PLANT-3")
    assert set(game.legal_actions(0)) == {Action.harvest(0), Action.harvest(1)}
    game.apply(0, Action.harvest(0))
    game.apply(0, Action.plant_traded(wax, 0))
    assert fields(game, 0) == [["wax"], ["red"]]
    assert game.active == 1 and game.phase == PLANT


def test_phase_3_plants_only_trade_area_cards_r_plant_4():
    game = trading_game()
    game.apply(0, Action.end_trading())
    hand_card = game.hands[0][0]
    assert_illegal(game, 0, Action.plant_traded(hand_card, 1), rule="R-PLANT-4")
    assert_illegal(game, 1, Action.plant_traded(game.trade[0][0], 0), rule="R-PLANT-4")
    assert_illegal(game, 0, Action.plant(1), exc=NotYourTurn)
    # Not before phase 3 either.
    other = trading_game()
    assert_illegal(other, 0, Action.plant_traded(other.drawn[0], 1), "R-PLANT-4", exc=NotYourTurn)


def test_phase_3_waits_only_for_seats_with_cards_r_plant_4():
    # R-PLANT-4: the active player's area is empty (it gave both drawn cards away), so
    # only seat 2 must plant before phase 4.
    game = trading_game()
    oid = propose(game, 0, Offer(1, tuple(game.drawn)))
    game.apply(1, Action.decline(oid))
    oid = propose(game, 0, Offer(2, tuple(game.drawn)))
    game.apply(2, Action.accept(oid, ()))
    game.apply(0, Action.end_trading())
    assert game.phase == PLANT_TRADED  # seat 2 has two cards to plant
    assert game.waiting_for() == [2]
    plant_trade_areas(game)
    assert game.active == 1


# ---------------------------------------------------------------------------- R-DRAW-1


def test_phase_4_draws_three_to_the_back_then_the_next_seat_r_draw_1():
    # R-DRAW-1: 3 cards one by one to the back of the hand; then seat + 1 is active.
    game = trading_game()
    game.apply(0, Action.end_trading())
    plant_trade_areas(game)
    assert hand(game, 0) == [*HANDS[0][1:], "soy", "cocoa", "garden"]
    assert [hand(game, s) for s in (1, 2, 3)] == HANDS[1:]
    assert (game.active, game.phase, game.planted) == (1, PLANT, 0)
    assert len(game.draw) == 110 - 5


def test_draw_events_come_one_by_one_r_draw_1():
    # R-DRAW-1: one draw event per card, in order; the card is private to the drawer.
    game = trading_game()
    oid = propose(game, 0, Offer(1, tuple(game.drawn)))
    game.apply(1, Action.accept(oid, ()))
    game.apply(0, Action.end_trading())
    wax, red = game.trade[1]
    game.apply(1, Action.plant_traded(wax, 0))
    events = game.apply(1, Action.plant_traded(red, 1))
    draws = [e for e in events if e.type == "draw"]
    assert [e.seat for e in draws] == [0, 0, 0]
    assert [e.for_seat(0)["card"] for e in draws] == game.hands[0][-3:]
    assert all("card" not in e.for_seat(1) for e in draws)
    assert [e.type for e in events][-1] == "turn"


@pytest.mark.parametrize("players", [6, 7])
def test_phase_4_draws_four_with_six_or_seven_players_r_draw_1_r_var_67(players):
    # R-DRAW-1, R-VAR-67: 4 cards with 6–7 players.
    game = deal(
        "classic",
        players,
        hands=[["coffee", "wax", "wax"]],
        pile=["coffee", "coffee", "red", "soy", "green", "blue", "chili"],
        fill=["stink", "green", "soy"],
    )
    plant(game, 0)
    game.apply(0, Action.end_trading())
    plant_trade_areas(game)
    assert hand(game, 0) == ["wax", "wax", "red", "soy", "green", "blue"]
    assert game.active == 1
    assert fields(game, 0)[0] == ["coffee"] * 3
