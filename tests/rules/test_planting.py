"""Phase 1: planting from the hand (R-PLANT-1, R-PLANT-2, R-PLANT-3)."""

from __future__ import annotations

from bohnanza import Action, IllegalAction, NotYourTurn, Offer
from bohnanza.testing.helpers import (
    PLANT,
    TRADE,
    assert_illegal,
    coins,
    deal,
    drawn,
    fields,
    find,
    hand,
    pass_turn,
    plant,
    plant_trade_areas,
    trade_area,
)

HAND0 = ["blue", "chili", "stink", "soy", "soy"]


def test_front_card_must_be_planted_first_r_plant_1():
    # R-PLANT-1: planting the front card is mandatory; nothing else of phase 1 or 2 first.
    game = deal(hands=[HAND0], fill="wax")
    assert game.phase == PLANT and game.planted == 0
    assert_illegal(game, 0, Action.stop_planting(), rule="R-PLANT-1")
    assert_illegal(game, 0, Action.end_trading(), exc=NotYourTurn)
    assert_illegal(game, 0, Action.propose(Offer(1, (game.hands[0][1],))), exc=NotYourTurn)
    legal = game.legal_actions(0)
    assert set(legal) == {Action.plant(0), Action.plant(1)}
    front = game.hands[0][0]
    game.apply(0, Action.plant(1))
    assert game.fields[0] == [[], [front]]
    assert hand(game, 0) == HAND0[1:]


def test_only_the_active_seat_plants_in_phase_1_r_plant_1():
    # R-PLANT-1: phase 1 belongs to the active player.
    game = deal(hands=[HAND0, ["red"] * 5], fill="wax")
    for seat in (1, 2, 3):
        err = assert_illegal(game, seat, Action.plant(0), exc=NotYourTurn)
        assert "R-PLANT-1" in str(err)
        assert not any(a.type.value == "plant" for a in game.legal_actions(seat))


def test_phase_1_is_skipped_with_an_empty_hand_r_plant_1():
    # R-PLANT-1: skipped if the hand is empty. Seat 1 gives its whole hand away in seat 0's
    # turn, so its own turn starts straight with phase 2.
    game = deal(
        hands=[["blue", "wax", "wax", "wax", "wax"], ["blue"] * 5],
        pile=["blue", "blue", "wax", "wax", "wax", "red", "green"],
        fill="soy",
    )
    plant(game, 0)
    assert game.phase == TRADE
    gift = Offer(0, tuple(game.hands[1]))  # R-TRADE-4: a gift of 5 cards
    game.apply(1, Action.propose(gift))
    oid = game.view(0).offers[0].offer_id
    game.apply(0, Action.accept(oid, ()))
    assert game.hands[1] == []
    game.apply(0, Action.end_trading())
    plant_trade_areas(game)
    assert fields(game, 0) == [["blue"] * 8, []]
    # Seat 1's turn: no phase 1, the two cards are already turned over.
    assert game.active == 1
    assert game.phase == TRADE
    assert game.planted == 0
    assert drawn(game) == ["red", "green"]
    assert_illegal(game, 1, Action.plant(0), exc=NotYourTurn)


def test_a_second_card_may_be_planted_r_plant_2():
    # R-PLANT-2: the next front card may be planted too.
    game = deal(hands=[HAND0], fill="wax")
    game.apply(0, Action.plant(0))
    assert game.phase == PLANT
    assert Action.stop_planting() in game.legal_actions(0)
    game.apply(0, Action.plant(1))
    assert fields(game, 0) == [["blue"], ["chili"]]
    assert hand(game, 0) == ["stink", "soy", "soy"]


def test_never_more_than_two_cards_r_plant_2():
    # R-PLANT-2: after two cards phase 1 is over, even if the next card would fit.
    game = deal(hands=[["blue", "blue", "blue", "blue", "soy"]], fill="wax")
    game.apply(0, Action.plant(0))
    game.apply(0, Action.plant(0))
    assert game.phase == TRADE
    assert_illegal(game, 0, Action.plant(0), exc=IllegalAction)
    assert_illegal(game, 0, Action.stop_planting(), exc=IllegalAction)
    assert hand(game, 0) == ["blue", "blue", "soy"]
    assert not any(a.type.value == "plant" for a in game.legal_actions(0))


def test_stopping_after_one_card_r_plant_2():
    # R-PLANT-2: the second card is optional.
    game = deal(hands=[HAND0], pile=["red", "garden"], fill="wax")
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    assert game.phase == TRADE
    assert hand(game, 0) == HAND0[1:]
    assert drawn(game) == ["red", "garden"]


def test_a_field_holds_one_variety_r_plant_3():
    # R-PLANT-3: a card goes on an empty field or a field of its variety only.
    game = deal(hands=[["blue", "chili", "soy", "soy", "soy"]], fill="wax")
    game.apply(0, Action.plant(0))  # blue on field 0
    err = assert_illegal(game, 0, Action.plant(0), rule="R-PLANT-3")
    assert "Blue" in str(err) and "Chili" in str(err)
    assert game.legal_actions(0)[0] == Action.plant(1)
    assert Action.plant(0) not in game.legal_actions(0)
    game.apply(0, Action.plant(1))
    assert fields(game, 0) == [["blue"], ["chili"]]


def test_several_fields_may_hold_the_same_variety_r_plant_3():
    # R-PLANT-3: any empty field is allowed, even with the variety already on another field.
    game = deal(hands=[["blue", "blue", "soy", "soy", "soy"]], fill="wax")
    game.apply(0, Action.plant(0))
    assert set(game.legal_actions(0)) >= {Action.plant(0), Action.plant(1)}
    game.apply(0, Action.plant(1))
    assert fields(game, 0) == [["blue"], ["blue"]]


def test_no_such_field_r_plant_3():
    game = deal(hands=[HAND0], fill="wax")
    assert_illegal(game, 0, Action.plant(2))
    assert_illegal(game, 0, Action.plant(-1))


def _stuck_game():
    """Seat 0 ends turn 1 with Blue ×3 and Chili ×1; its turn-5 front card is a Stink."""
    game = deal(
        hands=[["blue", "chili", "stink", "soy", "soy"]],
        pile=["blue", "blue", "red", "red", "red"],
        fill="wax",
    )
    plant(game, 0, 1)
    game.apply(0, Action.end_trading())
    plant_trade_areas(game)
    assert fields(game, 0) == [["blue"] * 3, ["chili"]]
    for _ in range(3):
        pass_turn(game)
    assert game.active == 0 and game.phase == PLANT
    assert hand(game, 0)[0] == "stink"
    return game


def test_a_card_that_fits_nowhere_forces_a_harvest_r_plant_3():
    # R-PLANT-3: no field takes the Stink, so the player must harvest first, and the
    # protection rule picks which field (R-HARV-3: Chili ×1 is protected by Blue ×3).
    game = _stuck_game()
    for f in (0, 1):
        assert_illegal(game, 0, Action.plant(f), rule="R-PLANT-3")
    legal = game.legal_actions(0)
    assert not any(a.type.value == "plant" for a in legal)
    assert Action.harvest(0) in legal
    assert Action.harvest(1) not in legal
    assert_illegal(game, 0, Action.harvest(1), rule="R-HARV-3")
    game.apply(0, Action.harvest(0))  # Blue ×3 pays nothing (R-HARV-2)
    assert coins(game, 0) == 0
    assert Action.plant(0) in game.legal_actions(0)
    game.apply(0, Action.plant(0))
    assert fields(game, 0) == [["stink"], ["chili"]]


def test_a_card_that_fits_nowhere_may_go_on_a_bought_third_field_r_plant_3():
    # R-PLANT-3: "or buy a third field where allowed". Seat 0 earns 3 coins with Garden ×3
    # in turn 1 and gets a Chili from seat 1; in turn 5 its Stink fits nowhere.
    game = deal(
        hands=[["garden", "garden", "stink", "soy", "soy"], ["chili"]],
        pile=["garden", "red", "red", "red", "red"],
        fill="wax",
    )
    plant(game, 0, 0)
    game.apply(1, Action.propose(Offer(0, (find(game, 1, "chili"),))))
    game.apply(0, Action.accept(game.view(0).offers[0].offer_id, ()))
    game.apply(0, Action.end_trading())
    assert sorted(trade_area(game, 0)) == ["chili", "garden", "red"]
    plant_order = {"garden": 0, "red": 1}
    for v in ["garden", "red"]:
        card = find(game, 0, v, "trade")
        game.apply(0, Action.plant_traded(card, plant_order[v]))
    game.apply(0, Action.harvest(0))  # Garden ×3 pays 3 (R-HARV-2)
    assert coins(game, 0) == 3
    game.apply(0, Action.plant_traded(find(game, 0, "chili", "trade"), 0))
    assert fields(game, 0) == [["chili"], ["red"]]
    for _ in range(3):
        pass_turn(game)
    assert game.active == 0 and hand(game, 0)[0] == "stink"
    assert Action.buy_field() in game.legal_actions(0)
    game.apply(0, Action.buy_field())
    game.apply(0, Action.plant(2))
    assert fields(game, 0) == [["chili"], ["red"], ["stink"]]
    assert coins(game, 0) == 0


def test_a_one_card_hand_plants_it_and_goes_on_to_phase_2_r_plant_1_r_plant_2():
    # R-PLANT-1/2: with one card in hand there is no second card to plant.
    game = deal(
        hands=[["blue", "wax", "wax", "wax", "wax"], ["red", "blue", "blue", "blue", "blue"]],
        pile=["blue", "wax", "wax", "wax", "wax", "green", "soy"],
        fill="stink",
    )
    plant(game, 0)
    gift = Offer(0, tuple(game.hands[1][1:]))  # seat 1 keeps only its Red
    game.apply(1, Action.propose(gift))
    game.apply(0, Action.accept(max(game.offers), ()))
    game.apply(0, Action.end_trading())
    plant_trade_areas(game)
    assert game.active == 1 and hand(game, 1) == ["red"]
    game.apply(1, Action.plant(0))
    assert game.phase == TRADE
    assert drawn(game) == ["green", "soy"]
    assert_illegal(game, 1, Action.stop_planting(), exc=NotYourTurn)
