"""Module 1, New Bean Varieties (RULES.md §6): R-NEW-67, R-NEW-45, R-NEW-3, R-FARM-1/2."""

from __future__ import annotations

from collections import Counter

import pytest

from bohnanza import Action, Game, make_config
from bohnanza.testing.helpers import (
    FASOLKI_FILL,
    assert_conserved,
    assert_illegal,
    deal,
    give_coins,
    names,
    pass_turn,
    plant,
)

NV = "fasolki+new-varieties"
BASE_COUNTS = {
    "cowboy": 20,
    "pyromaniac": 18,
    "fatty": 16,
    "drunkard": 14,
    "hippie": 12,
    "boxer": 10,
    "golas": 8,
    "gardener": 6,
}
NEW_COUNTS = {"businessman": 24, "partygoer": 22, "glutton": 4, "farmer": 3}


def counts(rules: str, players: int, options: dict[str, str] | None = None) -> Counter[str]:
    cfg = make_config(rules, players, options)
    return Counter(cfg.variety_of(i) for i in range(cfg.deck_size))


def expected(removed: set[str]) -> dict[str, int]:
    return {k: n for k, n in {**BASE_COUNTS, **NEW_COUNTS}.items() if k not in removed}


# ---------------------------------------------------------------------------- R-NEW-67


@pytest.mark.parametrize("players", [6, 7])
def test_six_seven_players_deck_and_hands_r_new_67(players):
    # R-NEW-67: remove Gardener, Glutton, Farmer; starting hands 3, 4, 5, 6, 6...
    assert counts(NV, players) == expected({"gardener", "glutton", "farmer"})
    game = Game.new(NV, players, seed=2)
    assert [len(h) for h in game.hands] == [3, 4, 5] + [6] * (players - 3)
    # R-SETUP-1: 6 third-field cards plus the seventh of the module.
    assert game.supply == 7
    assert_conserved(game)


def test_six_players_phase_4_draws_four_r_new_67():
    # R-NEW-67 Decision (from R-VAR-67): phase 4 draws 4 cards to the back of the hand.
    game = deal(
        NV,
        6,
        hands=[["cowboy", "boxer", "golas"]],
        pile=["hippie"] * 2 + ["fatty"] * 4,
        fill=FASOLKI_FILL,
        fill_all=True,
    )
    plant(game, 0)
    assert names(game, game.drawn) == ["hippie", "hippie"]
    game.apply(0, Action.end_trading())
    for card in list(game.trade[0]):
        game.apply(0, Action.plant_traded(card, 1))
    assert game.active == 1
    assert names(game, game.hands[0]) == ["boxer", "golas", "fatty", "fatty", "fatty", "fatty"]
    assert_conserved(game)


@pytest.mark.parametrize("players", [6, 7])
def test_six_seven_players_third_field_costs_two_r_new_67(players):
    # R-NEW-67 Decision (from R-VAR-67): a third field costs 2 coins.
    game = Game.new(NV, players, seed=5)
    give_coins(game, 0, 1)
    assert_illegal(game, 0, Action.buy_field(), "R-FIELD-2")
    give_coins(game, 0, 1)
    paid = list(game.treasury[0])
    game.apply(0, Action.buy_field())
    assert len(game.fields[0]) == 3
    assert game.treasury[0] == []
    assert game.discard[-2:] == paid  # R-FIELD-3: paid coins go onto the discard pile
    assert game.supply == 6
    assert_conserved(game)


# ---------------------------------------------------------------------------- R-NEW-45


@pytest.mark.parametrize("players", [4, 5])
@pytest.mark.parametrize("choice", ["glutton", "farmer"])
def test_four_five_players_deck_r_new_45(players, choice):
    # R-NEW-45: Businessman removed; the chosen one of Glutton / Farmer removed too.
    assert counts(NV, players, {"remove": choice}) == expected({"businessman", choice})
    game = Game.new(NV, players, options={"remove": choice}, seed=4)
    assert [len(h) for h in game.hands] == [5] * players
    assert [len(fs) for fs in game.fields] == [2] * players
    assert game.supply == 7
    assert game.config.runouts_to_end == 3
    assert game.config.field_price == 3
    assert game.config.draw_count == 3


# ---------------------------------------------------------------------------- R-NEW-3


def test_three_players_deck_and_third_fields_r_new_3():
    # R-NEW-3: Glutton and Farmer removed; everyone starts with a third field.
    assert counts(NV, 3) == expected({"glutton", "farmer"})
    game = Game.new(NV, 3, seed=6)
    assert [len(fs) for fs in game.fields] == [3, 3, 3]
    assert [len(h) for h in game.hands] == [5, 5, 5]
    assert game.config.runouts_to_end == 2


def test_three_players_cannot_buy_a_field_r_new_3():
    # R-NEW-3: ... and cannot buy one.
    game = Game.new(NV, 3, seed=6)
    give_coins(game, 0, 5)
    assert_illegal(game, 0, Action.buy_field())
    assert Action.buy_field() not in game.legal_actions(0)


def _play_to_end(game: Game, max_turns: int = 400) -> list[int]:
    """Pass turns until the game ends; returns the run-out count after each turn."""
    history = []
    for _ in range(max_turns):
        if game.over:
            break
        pass_turn(game)
        history.append(game.runouts)
    assert game.over
    return history


def _short_pile(game: Game) -> None:
    # Keep 6 cards on the pile, 12 on the discard pile (for the reshuffle), the rest out.
    rest = game.draw[:-6]
    del game.draw[:-6]
    game.discard.extend(rest[-12:])
    game.out.extend(rest[:-12])
    assert_conserved(game)


def test_three_players_game_ends_at_second_runout_r_new_3():
    # R-NEW-3: with 3 players the game ends when the pile runs out the second time.
    game = Game.new(NV, 3, seed=11)
    _short_pile(game)
    events = game.collect_events()
    _play_to_end(game)
    assert game.runouts == 2
    finals = [e for e in events if e.type == "runout" and e.data.get("final")]
    assert len(finals) == 1 and finals[0].data["count"] == 2
    assert game.result()["scores"] == [len(t) for t in game.treasury]
    assert_conserved(game)


def test_four_players_new_varieties_play_past_second_runout_r_new_3_contrast():
    # R-NEW-3 applies to 3 players only: with 4 the third run-out ends the game.
    game = Game.new(NV, 4, options={"remove": "farmer"}, seed=11)
    _short_pile(game)
    game.collect_events()
    _play_to_end(game)
    runouts = [e.data for e in game.collect_events() if e.type == "runout"]
    # The second run-out did not end the game; the third did.
    assert [(r["count"], r["final"]) for r in runouts] == [(1, False), (2, False), (3, True)]
    assert game.runouts == 3


# ---------------------------------------------------------------------------- R-FARM-1 / R-FARM-2


def farmer_game(hand0, pile=(), **kw) -> Game:
    return deal(
        NV,
        4,
        hands=[hand0],
        pile=pile,
        options={"remove": "glutton"},
        fill=FASOLKI_FILL,
        fill_all=True,
        **kw,
    )


def test_two_farmers_harvested_give_a_free_third_field_r_farm_1():
    # R-FARM-1: a harvest of exactly 2 Farmers gives a third field instead of coins; both
    # cards go to the discard pile.
    game = farmer_game(["farmer", "farmer", "cowboy"], pile=["hippie", "boxer"])
    plant(game, 0, 0)
    farmers = list(game.fields[0][0])
    assert names(game, farmers) == ["farmer", "farmer"]
    assert game.view(1).seats[0].payouts[0] == 0  # no coins for it
    supply = game.supply
    events = game.apply(0, Action.harvest(0))
    assert game.treasury[0] == []
    assert len(game.fields[0]) == 3 and game.fields[0][2] == []
    assert game.supply == supply - 1
    assert game.discard[-2:] == farmers
    assert any(e.type == "harvest" and e.data.get("farmer_field") for e in events)
    # The new field is a real third field: a card can go on it.
    game.apply(0, Action.end_trading())
    hippie, boxer = game.trade[0]
    game.apply(0, Action.plant_traded(hippie, 0))
    game.apply(0, Action.plant_traded(boxer, 2))
    assert game.fields[0][2] == [boxer]
    assert_conserved(game)


def test_two_farmers_harvested_out_of_turn_r_farm_1():
    # R-FARM-1 with R-HARV-1: the free field also comes from an out-of-turn harvest.
    game = farmer_game(["farmer", "farmer", "cowboy"], pile=["hippie", "hippie"])
    plant(game, 0, 0)
    game.apply(0, Action.end_trading())
    for card in list(game.trade[0]):
        game.apply(0, Action.plant_traded(card, 1))
    assert game.active == 1
    game.apply(0, Action.harvest(0))
    assert len(game.fields[0]) == 3
    assert game.treasury[0] == []


def test_two_farmers_with_a_third_field_already_give_nothing_r_farm_1():
    # R-FARM-1: a player who already has a third field gets nothing for the 2 Farmers.
    game = farmer_game(["farmer", "farmer", "cowboy"])
    give_coins(game, 0, 3)
    game.apply(0, Action.buy_field())
    supply = game.supply
    plant(game, 0, 0)
    farmers = list(game.fields[0][0])
    game.apply(0, Action.harvest(0))
    assert len(game.fields[0]) == 3
    assert game.supply == supply
    assert game.treasury[0] == []  # nor coins
    assert game.discard[-2:] == farmers
    assert_conserved(game)


def test_two_farmers_with_empty_supply_give_nothing_r_farm_1():
    # R-FARM-1: ... nor when the supply of third-field cards is empty.
    game = farmer_game(["farmer", "farmer", "cowboy"])
    game.supply = 0  # stage: all third fields sold (no cards involved)
    plant(game, 0, 0)
    game.apply(0, Action.harvest(0))
    assert len(game.fields[0]) == 2
    assert game.supply == 0
    assert game.treasury[0] == []
    assert names(game, game.discard[-2:]) == ["farmer", "farmer"]


def test_three_farmers_pay_three_coins_and_no_field_r_farm_2():
    # R-FARM-2: 3 Farmers on a field pay 3 coins (R-HARV-2) and no field.
    game = farmer_game(["farmer", "farmer", "cowboy"], pile=["farmer", "hippie"])
    plant(game, 0, 0)
    game.apply(0, Action.end_trading())
    farmer = next(c for c in game.trade[0] if game.config.variety_of(c) == "farmer")
    hippie = next(c for c in game.trade[0] if c != farmer)
    game.apply(0, Action.plant_traded(farmer, 0))
    game.apply(0, Action.plant_traded(hippie, 1))
    field = list(game.fields[0][0])
    assert game.view(2).seats[0].payouts[0] == 3
    supply = game.supply
    game.apply(0, Action.harvest(0))
    assert game.treasury[0] == field
    assert len(game.fields[0]) == 2
    assert game.supply == supply
    assert_conserved(game)


def test_one_farmer_pays_nothing_r_farm_2():
    # R-FARM-2: 1 Farmer pays nothing (and brings no field).
    game = farmer_game(["farmer", "cowboy", "cowboy"])
    plant(game, 0, 1)
    assert game.view(0).seats[0].payouts == (0, 0)
    farmer = game.fields[0][0][0]
    game.apply(0, Action.harvest(0))  # every field holds one card: any may be harvested
    assert game.treasury[0] == []
    assert len(game.fields[0]) == 2
    assert game.discard[-1] == farmer
