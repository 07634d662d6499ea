"""Harvest, payouts, protection and the third field (R-HARV-*, R-FIELD-*)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza import Action, Game, Offer
from bohnanza.testing.helpers import (
    PLANT,
    PLANT_TRADED,
    TRADE,
    assert_conserved,
    assert_illegal,
    coins,
    deal,
    fields,
    find,
    pass_turn,
    plant,
    plant_trade_areas,
    put_on_field,
)

# Table 2a, copied literally: beans on one field for 1, 2, 3, 4 coins (None: "–").
BEANOMETER = {
    "coffee": (4, 7, 10, 12),
    "wax": (4, 7, 9, 11),
    "blue": (4, 6, 8, 10),
    "chili": (3, 6, 8, 9),
    "stink": (3, 5, 7, 8),
    "green": (3, 5, 6, 7),
    "soy": (2, 4, 6, 7),
    "black-eyed": (2, 4, 5, 6),
    "red": (2, 3, 4, 5),
    "garden": (None, 2, 3, None),
    "cocoa": (None, 2, 3, 4),
}
COUNTS = {
    "coffee": 24,
    "wax": 22,
    "blue": 20,
    "chili": 18,
    "stink": 16,
    "green": 14,
    "soy": 12,
    "black-eyed": 10,
    "red": 8,
    "garden": 6,
    "cocoa": 4,
}


def expected_coins(variety: str, beans: int) -> int:
    """R-HARV-2: the highest level of the beanometer that the count reaches."""
    levels = [lvl for lvl, need in enumerate(BEANOMETER[variety], 1) if need and beans >= need]
    return max(levels, default=0)


def game_with(variety: str) -> Game:
    # Coffee is in the 3-player deck only (R-VAR-45, R-VAR-67 keep it for 6–7 too),
    # Cocoa in the 4–5-player deck only (R-VAR-3, R-VAR-67).
    # Hands hold other beans, so that every card of the variety is on the draw pile.
    players = 3 if variety == "coffee" else 4
    fill = "blue" if variety == "wax" else "wax"
    return deal("classic", players, hands=[[]] * players, fill=fill)


# ---------------------------------------------------------------------------- R-HARV-2


@pytest.mark.parametrize(
    ("variety", "beans", "paid"),
    [
        ("coffee", 3, 0),
        ("coffee", 4, 1),
        ("coffee", 7, 2),
        ("coffee", 11, 3),
        ("coffee", 12, 4),
        ("wax", 9, 3),
        ("blue", 6, 2),
        ("chili", 9, 4),
        ("stink", 5, 2),
        ("green", 6, 3),
        ("soy", 7, 4),
        ("black-eyed", 4, 2),
        ("red", 2, 1),
        ("red", 5, 4),
        ("garden", 1, 0),
        ("garden", 2, 2),
        ("garden", 3, 3),
        ("garden", 6, 3),
        ("cocoa", 1, 0),
        ("cocoa", 2, 2),
        ("cocoa", 3, 3),
        ("cocoa", 4, 4),
    ],
)
def test_table_2a_values_r_harv_2(variety, beans, paid):
    # R-HARV-2: spot checks of table 2a, including Garden and Cocoa with their "–".
    assert expected_coins(variety, beans) == paid
    game = game_with(variety)
    put_on_field(game, 1, 0, variety, beans)
    assert game.view(2).seats[1].payouts[0] == paid
    game.apply(1, Action.harvest(0))
    assert coins(game, 1) == paid


@pytest.mark.parametrize("variety", sorted(BEANOMETER))
def test_every_count_of_every_variety_r_harv_2(variety):
    # R-HARV-2: for every possible field size, the coins are the top cards of the field,
    # put on top of the treasury; the rest go to the discard pile.
    for beans in range(1, COUNTS[variety] + 1):
        game = game_with(variety)
        field = put_on_field(game, 0, 0, variety, beans)
        paid = expected_coins(variety, beans)
        events = game.apply(0, Action.harvest(0))
        assert game.treasury[0] == field[beans - paid :], (variety, beans)
        assert sorted(game.discard) == sorted(field[: beans - paid])
        assert game.fields[0][0] == []
        assert [e.type for e in events] == ["harvest"]
        assert events[0].data["coins"] == paid
        assert_conserved(game)


@settings(max_examples=60, deadline=None)
@given(variety=st.sampled_from(sorted(BEANOMETER)), data=st.data())
def test_coins_go_on_top_of_the_treasury_r_harv_2(variety, data):
    # R-HARV-2: coins from a second harvest lie on top of those from the first.
    game = game_with(variety)
    half = COUNTS[variety] // 2
    first = data.draw(st.integers(1, half))
    second = data.draw(st.integers(1, half))
    put_on_field(game, 0, 0, variety, first)
    game.apply(0, Action.harvest(0))
    below = list(game.treasury[0])
    field = put_on_field(game, 0, 1, variety, second)
    game.apply(0, Action.harvest(1))
    paid = expected_coins(variety, second)
    assert game.treasury[0] == below + field[second - paid :]


def test_real_harvests_pay_by_the_beanometer_r_harv_2():
    # R-HARV-2 with real play: Garden ×3 pays 3 (every card a coin); Red ×3 pays 2.
    game = deal(
        hands=[["garden", "garden", "red", "red", "soy"]],
        pile=["garden", "red"],
        fill="wax",
    )
    plant(game, 0, 0)
    game.apply(0, Action.end_trading())
    garden, red = game.trade[0]
    game.apply(0, Action.plant_traded(garden, 0))
    game.apply(0, Action.plant_traded(red, 1))
    g3 = list(game.fields[0][0])
    game.apply(0, Action.harvest(0))
    assert game.treasury[0] == g3
    assert game.discard == []
    # Seat 0's next turn: Red, Red on the red field make Red ×3.
    for _ in range(3):
        pass_turn(game)
    assert game.active == 0
    plant(game, 1, 1)
    reds = list(game.fields[0][1])
    assert fields(game, 0)[1] == ["red"] * 3
    game.apply(0, Action.harvest(1))
    assert game.treasury[0] == g3 + reds[1:]
    assert reds[0] in game.discard


# ---------------------------------------------------------------------------- R-HARV-1


def _gift_game() -> Game:
    """Turn 1: seat 0 gives seat 1 four Reds (two drawn, two from the hand)."""
    game = deal(
        hands=[
            ["soy", "red", "red", "chili", "chili"],
            ["blue", "wax", "wax", "wax", "wax"],
            ["green"] * 5,
            ["stink"] * 5,
        ],
        pile=["red", "red", "soy", "soy", "soy", "blue", "blue", "wax", "wax", "wax"],
    )
    plant(game, 0)
    give = (*game.drawn, find(game, 0, "red"), find(game, 0, "red", nth=1))
    game.apply(0, Action.propose(Offer(1, give)))
    game.apply(1, Action.accept(max(game.offers), ()))
    game.apply(0, Action.end_trading())
    return game


def test_harvest_out_of_turn_in_every_phase_r_harv_1():
    # R-HARV-1: any player may harvest whenever a decision is pending, also in other
    # players' turns.
    game = _gift_game()
    assert game.phase == PLANT_TRADED and game.active == 0
    reds = list(game.trade[1])
    game.apply(1, Action.plant_traded(reds[0], 0))
    game.apply(1, Action.plant_traded(reds[1], 0))
    # Seat 1 harvests in seat 0's phase 3, with two cards still to plant.
    game.apply(1, Action.harvest(0))
    assert coins(game, 1) == 1
    game.apply(1, Action.plant_traded(reds[2], 0))
    game.apply(1, Action.plant_traded(reds[3], 0))
    # Seat 1's own turn: Blue on field 1; the drawn Blues join it.
    assert game.active == 1
    pass_turn(game)
    assert fields(game, 1) == [["red", "red"], ["blue"] * 3]
    # Seat 2's turn, phase 1: seat 1 harvests its Reds.
    assert (game.active, game.phase) == (2, PLANT)
    game.apply(1, Action.harvest(0))
    assert coins(game, 1) == 2
    game.apply(2, Action.plant(0))
    game.apply(2, Action.stop_planting())
    # Phase 2: seat 1 harvests its Blues (no coin for 3 Blues).
    assert game.phase == TRADE
    game.apply(1, Action.harvest(1))
    assert coins(game, 1) == 2
    assert fields(game, 1) == [[], []]
    assert_conserved(game)


def test_harvest_in_own_phase_1_before_planting_r_harv_1():
    # R-HARV-1: the active player may harvest before planting, e.g. to make room.
    game = _gift_game()
    plant_trade_areas(game)
    assert fields(game, 1) == [["red"] * 4, []]
    assert game.active == 1 and game.planted == 0
    assert Action.harvest(0) in game.legal_actions(1)
    game.apply(1, Action.harvest(0))
    assert coins(game, 1) == 3  # Red ×4 pays 3
    assert game.phase == PLANT and game.planted == 0


def test_harvest_needs_a_non_empty_existing_field_r_harv_1():
    game = deal(hands=[["blue"] * 5], fill="wax")
    assert_illegal(game, 0, Action.harvest(0))
    assert_illegal(game, 0, Action.harvest(2))
    assert_illegal(game, 1, Action.harvest(0))
    assert not any(a.type.value == "harvest" for a in game.legal_actions(1))


# ---------------------------------------------------------------------------- R-HARV-3


def test_a_single_bean_is_protected_by_a_bigger_field_r_harv_3():
    # R-HARV-3: a one-card field cannot be harvested while another field has more.
    game = deal(hands=[["blue", "chili", "soy", "soy", "soy"]], pile=["chili", "wax"], fill="wax")
    plant(game, 0, 1)
    assert fields(game, 0) == [["blue"], ["chili"]]
    game.apply(0, Action.end_trading())
    chili, wax = game.trade[0]
    game.apply(0, Action.plant_traded(chili, 1))
    assert fields(game, 0) == [["blue"], ["chili", "chili"]]
    assert_illegal(game, 0, Action.harvest(0), rule="R-HARV-3")
    assert Action.harvest(0) not in game.legal_actions(0)
    assert Action.harvest(1) in game.legal_actions(0)
    # Out of turn it is protected just the same (seat 0 is not active any more later).
    game.apply(0, Action.harvest(1))
    game.apply(0, Action.plant_traded(wax, 1))
    assert game.active == 1
    assert fields(game, 0) == [["blue"], ["wax"]]


def test_when_every_field_has_one_bean_any_may_be_harvested_r_harv_3():
    # R-HARV-3 Decision: every non-empty field holds one card: any of them, for nothing.
    game = deal(hands=[["blue", "chili", "soy", "soy", "soy"]], fill="wax")
    plant(game, 0, 1)
    assert {Action.harvest(0), Action.harvest(1)} <= set(game.legal_actions(0))
    blue = game.fields[0][0][0]
    game.apply(0, Action.harvest(0))
    assert coins(game, 0) == 0
    assert game.discard == [blue]
    # A single bean next to an empty field may be harvested too.
    game.apply(0, Action.harvest(1))
    assert fields(game, 0) == [[], []]


def test_protection_with_three_fields_r_harv_3():
    # R-HARV-3 with three fields (R-VAR-3): two single beans are both protected by a
    # field of two; once that one is gone, both may go.
    game = deal(
        "classic", 3, hands=[["blue", "chili", "soy", "soy", "soy"]], pile=["stink"] * 2, fill="wax"
    )
    plant(game, 0, 1)
    game.apply(0, Action.end_trading())
    for card in list(game.trade[0]):
        game.apply(0, Action.plant_traded(card, 2))
    assert fields(game, 0) == [["blue"], ["chili"], ["stink", "stink"]]
    assert_illegal(game, 0, Action.harvest(0), rule="R-HARV-3")
    assert_illegal(game, 0, Action.harvest(1), rule="R-HARV-3")
    game.apply(0, Action.harvest(2))
    assert game.is_legal(0, Action.harvest(0)) and game.is_legal(0, Action.harvest(1))


# ---------------------------------------------------------------------------- R-FIELD-*


def _three_coin_game(players: int = 4) -> Game:
    """Seat 0 grows Garden ×3 in turn 1 (3 coins when harvested) and Red ×2 (a gift from
    seat 1 and a drawn Red), both in phase 3."""
    game = deal(
        "classic",
        players,
        hands=[["garden", "garden", "soy", "soy", "soy"], ["red", "wax", "wax", "wax", "wax"]],
        pile=["garden", "red"],
        fill="green",
    )
    plant(game, 0, 0)
    game.apply(1, Action.propose(Offer(0, (find(game, 1, "red"),))))
    game.apply(0, Action.accept(max(game.offers), ()))
    game.apply(0, Action.end_trading())
    red_gift, garden, red_drawn = game.trade[0]
    game.apply(0, Action.plant_traded(garden, 0))
    game.apply(0, Action.plant_traded(red_gift, 1))
    assert fields(game, 0) == [["garden"] * 3, ["red"]]
    assert game.trade[0] == [red_drawn]
    return game


def test_buying_a_third_field_r_field_1_r_field_2():
    # R-FIELD-1: once per player, while the supply lasts; R-FIELD-2: 3 coins.
    game = _three_coin_game()
    assert_illegal(game, 0, Action.buy_field(), rule="R-FIELD-2")  # no coins yet
    game.apply(0, Action.harvest(0))
    assert coins(game, 0) == 3
    assert game.supply == 7
    assert Action.buy_field() in game.legal_actions(0)
    events = game.apply(0, Action.buy_field())
    assert [e.type for e in events] == ["buy_field"]
    assert len(game.fields[0]) == 3
    assert coins(game, 0) == 0
    assert game.supply == 6
    assert game.view(3).third_fields_left == 6
    assert len(game.view(3).seats[0].fields) == 3
    # The new field is usable at once.
    game.apply(0, Action.plant_traded(game.trade[0][0], 2))
    assert fields(game, 0) == [[], ["red"], ["red"]]
    # Once per player: even with coins again it cannot buy a fourth.
    game.apply(0, Action.harvest(1))
    game.apply(0, Action.harvest(2))
    game.treasury[0].extend(game.draw[-3:])
    del game.draw[-3:]
    err = assert_illegal(game, 0, Action.buy_field(), rule="R-FIELD-1")
    assert "third field" in str(err)


def _red_coins_game(players: int) -> Game:
    """Seat 0 grows Red ×3 in turn 1 and harvests it in phase 3: 2 coins."""
    game = deal(
        "classic",
        players,
        hands=[["red", "red", "soy"]],
        pile=["red", "wax"],
        fill=["green", "stink", "chili"],
    )
    plant(game, 0, 0)
    game.apply(0, Action.end_trading())
    red, _wax = game.trade[0]
    game.apply(0, Action.plant_traded(red, 0))
    game.apply(0, Action.harvest(0))
    assert coins(game, 0) == 2
    return game


@pytest.mark.parametrize("players", [4, 5])
def test_two_coins_are_not_enough_r_field_2(players):
    # R-FIELD-2: a third field costs 3 coins with 4–5 players.
    game = _red_coins_game(players)
    err = assert_illegal(game, 0, Action.buy_field(), rule="R-FIELD-2")
    assert "3 coins" in str(err)
    assert Action.buy_field() not in game.legal_actions(0)


@pytest.mark.parametrize("players", [6, 7])
def test_a_third_field_costs_two_with_six_or_seven_players_r_field_2_r_var_67(players):
    # R-FIELD-2, R-VAR-67: 2 coins are enough with 6–7 players.
    game = _red_coins_game(players)
    game.apply(0, Action.buy_field())
    assert coins(game, 0) == 0
    assert len(game.fields[0]) == 3
    assert game.supply == 6


def test_the_price_is_paid_with_the_top_coins_to_the_discard_pile_r_field_3():
    # R-FIELD-3: the most recently gained coins pay; they go onto the discard pile.
    game = _three_coin_game()
    game.apply(0, Action.plant_traded(game.trade[0][0], 1))  # Red ×2; phase 4 follows
    assert game.active == 1
    gardens = list(game.fields[0][0])
    reds = list(game.fields[0][1])
    game.apply(0, Action.harvest(0))  # 3 Garden coins (out of turn)
    game.apply(0, Action.harvest(1))  # 1 Red coin: the top Red
    assert game.treasury[0] == [*gardens, reds[1]]
    discard_before = list(game.discard)
    game.apply(0, Action.buy_field())  # out of turn too (R-FIELD-1)
    assert game.treasury[0] == gardens[:1]
    paid = [gardens[1], gardens[2], reds[1]]
    assert game.discard[: len(discard_before)] == discard_before
    assert sorted(game.discard[len(discard_before) :]) == sorted(paid)
    assert game.view(2).discard_top in paid
    assert_conserved(game)


def test_buying_out_of_turn_r_field_1():
    # R-FIELD-1: a field may be bought whenever a harvest would be allowed: here seat 1
    # in seat 0's phase 3, after harvesting three Gardens given by seat 0.
    game = deal(
        hands=[["soy", "garden", "garden", "wax", "wax"]],
        pile=["garden", "chili"],
        fill=["green", "stink"],
    )
    plant(game, 0)
    give = (find(game, 0, "garden"), find(game, 0, "garden", nth=1), game.drawn[0])
    game.apply(0, Action.propose(Offer(1, give)))
    game.apply(1, Action.accept(max(game.offers), ()))
    game.apply(0, Action.end_trading())
    for card in list(game.trade[1]):
        game.apply(1, Action.plant_traded(card, 0))
    game.apply(1, Action.harvest(0))
    assert coins(game, 1) == 3
    assert game.active == 0 and game.phase == PLANT_TRADED
    game.apply(1, Action.buy_field())
    assert len(game.fields[1]) == 3 and coins(game, 1) == 0
    assert game.supply == 6


def test_no_field_when_the_supply_is_gone_r_field_1():
    # R-FIELD-1: while the supply lasts.
    game = _three_coin_game()
    game.apply(0, Action.harvest(0))
    game.supply = 0  # every third field already sold
    err = assert_illegal(game, 0, Action.buy_field(), rule="R-FIELD-1")
    assert "supply" in str(err)
    assert Action.buy_field() not in game.legal_actions(0)
