"""Rule sets, deck sizes, setup and the player-count variants (RULES.md §1–§3, R-VAR-*)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza import Action, ConfigError, Game, IllegalAction, make_config
from bohnanza.testing.helpers import (
    PLANT,
    assert_conserved,
    assert_illegal,
    deal,
    fields,
    hand,
    pass_turn,
    pile_top,
    plant,
)

# Table 2a: cards per variety.
BOHNANZA_COUNTS = {
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
FIRST_EDITION = ["blue", "chili", "stink", "green", "soy", "black-eyed", "red", "garden"]
# Table 2b: the 8 Fasolki base varieties.
FASOLKI_COUNTS = {
    "cowboy": 20,
    "pyromaniac": 18,
    "fatty": 16,
    "drunkard": 14,
    "hippie": 12,
    "boxer": 10,
    "golas": 8,
    "gardener": 6,
}

# Table 2c (base rule sets only): (whole deck, draw pile after dealing).
DECK_SIZES = {
    ("classic", 3): (150, 135),
    ("classic", 4): (130, 110),
    ("classic", 5): (130, 105),
    ("classic", 6): (144, 114),
    ("classic", 7): (144, 108),
    ("first-edition", 3): (104, 89),
    ("first-edition", 4): (104, 84),
    ("first-edition", 5): (104, 79),
    ("fasolki", 3): (104, 89),
    ("fasolki", 4): (104, 84),
    ("fasolki", 5): (104, 79),
}


# ---------------------------------------------------------------------------- §1 rule sets


@pytest.mark.parametrize(
    ("rules", "lo", "hi"), [("classic", 3, 7), ("first-edition", 3, 5), ("fasolki", 3, 5)]
)
def test_player_ranges_of_the_base_rule_sets(rules, lo, hi):
    for players in range(lo, hi + 1):
        assert make_config(rules, players).players == players
    for players in (lo - 1, hi + 1):
        with pytest.raises(ConfigError) as info:
            make_config(rules, players)
        assert str(lo) in str(info.value) and str(hi) in str(info.value)


def test_classic_refuses_two_players():
    # §1 Decision: classic is for 3–7 players; two players play fasolki+duel.
    with pytest.raises(ConfigError):
        Game.new("classic", 2)


@pytest.mark.parametrize("rules", ["monopoly", "classic+duel", "first-edition+new-varieties", ""])
def test_unknown_rule_sets_and_combinations_are_refused_naming_what_is_allowed(rules):
    with pytest.raises(ConfigError) as info:
        make_config(rules, 4)
    assert "classic" in str(info.value) or "fasolki" in str(info.value)


def test_config_error_is_a_value_error():
    assert issubclass(ConfigError, ValueError)
    assert issubclass(IllegalAction, ValueError)


# ---------------------------------------------------------------------------- §2 cards, §2c sizes


@pytest.mark.parametrize(("rules", "players"), sorted(DECK_SIZES))
def test_deck_sizes_of_table_2c(rules, players):
    whole, pile = DECK_SIZES[(rules, players)]
    game = Game.new(rules, players, seed=3)
    assert game.config.deck_size == whole
    assert len(game.draw) == pile
    assert sum(len(h) for h in game.hands) == whole - pile
    assert_conserved(game)


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_classic_variety_counts_follow_table_2a_and_the_variants(players):
    # R-VAR-3: remove Cocoa; R-VAR-45: remove Coffee; R-VAR-67: remove Cocoa and Garden.
    removed = {3: {"cocoa"}, 4: {"coffee"}, 5: {"coffee"}, 6: {"cocoa", "garden"}}
    removed[7] = removed[6]
    config = make_config("classic", players)
    counts = Counter(config.variety_of(c) for c in range(config.deck_size))
    expected = {k: n for k, n in BOHNANZA_COUNTS.items() if k not in removed[players]}
    assert dict(counts) == expected


@pytest.mark.parametrize("players", [3, 4, 5])
def test_first_edition_has_blue_to_garden(players):
    config = make_config("first-edition", players)
    counts = Counter(config.variety_of(c) for c in range(config.deck_size))
    assert dict(counts) == {k: BOHNANZA_COUNTS[k] for k in FIRST_EDITION}


@pytest.mark.parametrize("players", [3, 4, 5])
def test_fasolki_has_the_eight_fasolki_varieties(players):
    config = make_config("fasolki", players)
    counts = Counter(config.variety_of(c) for c in range(config.deck_size))
    assert dict(counts) == FASOLKI_COUNTS


# ---------------------------------------------------------------------------- §3 setup


@pytest.mark.parametrize(
    ("rules", "players", "supply"),
    [
        ("classic", 4, 7),
        ("classic", 5, 7),
        ("classic", 7, 7),
        ("first-edition", 4, 6),
        ("first-edition", 3, 6),
        ("fasolki", 5, 6),
        ("fasolki", 3, 6),
    ],
)
def test_third_field_supply_r_setup_1(rules, players, supply):
    # R-SETUP-1: classic 7, first-edition 6, fasolki 6 third-field cards set aside.
    game = Game.new(rules, players)
    assert game.supply == supply
    assert all(len(fs) == 2 for fs in game.fields)
    assert game.view(0).third_fields_left == supply


def test_third_field_supply_with_three_classic_players_r_setup_1_r_var_3():
    # R-SETUP-1 + R-VAR-3: of the 7 classic third fields, each of the 3 players takes one.
    game = Game.new("classic", 3)
    assert game.supply + sum(len(fs) - 2 for fs in game.fields) == 7


@pytest.mark.parametrize(
    ("rules", "players"),
    [("classic", 3), ("classic", 4), ("classic", 5), ("first-edition", 4), ("fasolki", 3)],
)
def test_five_cards_each_r_setup_2(rules, players):
    # R-SETUP-2: each player gets 5 cards, unless a variant says otherwise.
    game = Game.new(rules, players, seed=11)
    assert [len(h) for h in game.hands] == [5] * players
    assert game.config.hand_sizes == (5,) * players


def test_hands_are_dealt_in_seat_order_and_keep_their_order_r_setup_3():
    # R-SETUP-3: a hand keeps its order; planting takes from the front; new cards go to
    # the back, in the order they are drawn.
    game = deal(
        hands=[
            ["blue", "chili", "stink", "green", "soy"],
            ["red", "wax", "garden", "cocoa", "black-eyed"],
        ],
        pile=["wax", "wax", "red", "garden", "cocoa", "blue"],
        fill="soy",
    )
    assert hand(game, 0) == ["blue", "chili", "stink", "green", "soy"]
    assert hand(game, 1) == ["red", "wax", "garden", "cocoa", "black-eyed"]
    assert hand(game, 2) == ["soy"] * 5
    front = game.hands[0][0]
    game.apply(0, Action.plant(0))
    assert game.fields[0][0] == [front]  # the front card was planted
    assert hand(game, 0) == ["chili", "stink", "green", "soy"]
    game.apply(0, Action.stop_planting())
    assert pile_top(game, 4) == ["red", "garden", "cocoa", "blue"]
    game.apply(0, Action.end_trading())
    # The two drawn wax cards go to the trade area and are planted on the empty field.
    for card in list(game.trade[0]):
        game.apply(0, Action.plant_traded(card, 1))
    # Phase 4: red, garden, cocoa drawn one by one to the back.
    assert hand(game, 0) == ["chili", "stink", "green", "soy", "red", "garden", "cocoa"]
    assert game.active == 1
    # Seat 1 plants from its front too.
    game.apply(1, Action.plant(0))
    assert fields(game, 1)[0] == ["red"]
    assert hand(game, 1) == ["wax", "garden", "cocoa", "black-eyed"]


def test_seat_zero_starts_and_turns_pass_to_the_next_seat_r_setup_4():
    # R-SETUP-4: seat 0 starts; R-DRAW-1: then seat + 1, wrapping round after the dealer.
    game = Game.new("classic", 4, seed=5)
    assert (game.active, game.phase, game.turn) == (0, PLANT, 1)
    order = []
    for _ in range(6):
        order.append(game.active)
        pass_turn(game)
    assert order == [0, 1, 2, 3, 0, 1]


def test_same_seed_same_game_r_setup_5():
    # R-SETUP-5: the deck is reproducible.
    a = Game.new("classic", 5, seed=1234)
    b = Game.new("classic", 5, seed=1234)
    assert a.to_dict() == b.to_dict()
    for _ in range(8):
        pass_turn(a)
        pass_turn(b)
    assert a.to_dict() == b.to_dict()
    c = Game.new("classic", 5, seed=1235)
    assert c.initial_deck != a.initial_deck


def test_explicit_card_order_r_setup_5():
    # R-SETUP-5: a game can start from an explicit card order; the rest follows the seed.
    top = ["red", "garden", "blue", "cocoa", "chili", "wax", "soy"]
    a = Game.new("classic", 4, seed=9, deck=top)
    b = Game.new("classic", 4, seed=9, deck=top)
    assert [a.config.variety_of(c) for c in a.initial_deck[:7]] == top
    assert a.initial_deck == b.initial_deck
    assert sorted(a.initial_deck) == list(range(130))


def test_explicit_deck_by_card_ids_r_setup_5():
    # R-SETUP-5: card ids work too, and every id is used once.
    game = Game.new("first-edition", 3, deck=[7, 3, 99])
    assert game.initial_deck[:3] == (7, 3, 99)
    assert game.hands[0][:3] == [7, 3, 99]
    with pytest.raises(ConfigError):
        Game.new("first-edition", 3, deck=[7, 7])
    with pytest.raises(ConfigError):
        Game.new("classic", 4, deck=["coffee"])  # no Coffee with 4 players (R-VAR-45)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    rules_players=st.sampled_from(sorted(DECK_SIZES)),
    data=st.data(),
)
def test_any_explicit_prefix_is_dealt_in_seat_order_r_setup_3_r_setup_5(seed, rules_players, data):
    # R-SETUP-3, R-SETUP-5: hands are dealt in seat order from the explicit order, then
    # the draw pile continues with the next cards (top first).
    rules, players = rules_players
    config = make_config(rules, players)
    shuffled = data.draw(st.permutations(range(config.deck_size)))
    prefix = list(shuffled[: data.draw(st.integers(0, 40))])
    game = Game.new(rules, players, seed=seed, deck=prefix)
    order = list(game.initial_deck)
    assert order[: len(prefix)] == prefix
    dealt = [c for h in game.hands for c in h]
    assert dealt == order[: len(dealt)]
    assert game.draw[::-1] == order[len(dealt) :]
    assert_conserved(game)


# ---------------------------------------------------------------------------- variants


def test_three_players_r_var_3():
    # R-VAR-3: Cocoa removed, a third field from the start, no buying, 2nd run-out ends.
    game = deal("classic", 3, hands=[["red"] * 5], fill="blue")
    config = game.config
    assert "cocoa" not in config.varieties
    assert config.runouts_to_end == 2
    assert all(len(fs) == 3 for fs in game.fields)
    # Three fields from the start: three different varieties can be planted at once.
    plant(game, 0, 0)
    assert fields(game, 0) == [["red", "red"], [], []]
    # Nobody may buy a field, however rich: give seat 0 five coins from the draw pile.
    game.treasury[0].extend(game.draw[-5:])
    del game.draw[-5:]
    assert_conserved(game)
    for seat in range(3):
        assert Action.buy_field() not in game.legal_actions(seat)
    err = assert_illegal(game, 0, Action.buy_field())
    assert "third field" in str(err)


@pytest.mark.parametrize("rules", ["first-edition", "fasolki"])
def test_three_players_outside_classic_play_normal_rules_r_var_3(rules):
    # R-VAR-3 Decision: only classic uses the 3-player variant.
    config = make_config(rules, 3)
    game = Game(config)
    assert all(len(fs) == 2 for fs in game.fields)
    assert config.runouts_to_end == 3
    assert config.field_price == 3
    assert config.hand_sizes == (5, 5, 5)


@pytest.mark.parametrize("players", [4, 5])
def test_four_or_five_players_r_var_45(players):
    # R-VAR-45: remove Coffee; everything else is the base game.
    config = make_config("classic", players)
    assert "coffee" not in config.varieties
    assert "cocoa" in config.varieties and "garden" in config.varieties
    assert config.hand_sizes == (5,) * players
    assert config.draw_count == 3
    assert config.field_price == 3
    assert config.runouts_to_end == 3
    assert not config.start_with_third_field


@pytest.mark.parametrize(
    ("players", "sizes"), [(6, (3, 4, 5, 6, 6, 6)), (7, (3, 4, 5, 6, 6, 6, 6))]
)
def test_six_or_seven_players_r_var_67(players, sizes):
    # R-VAR-67: no Cocoa or Garden; hands 3, 4, 5, then 6; draw 4; a third field costs 2.
    game = Game.new("classic", players, seed=2)
    config = game.config
    assert "cocoa" not in config.varieties and "garden" not in config.varieties
    assert "coffee" in config.varieties
    assert config.hand_sizes == sizes
    assert tuple(len(h) for h in game.hands) == sizes
    assert config.draw_count == 4
    assert config.field_price == 2
    assert config.runouts_to_end == 3
    assert all(len(fs) == 2 for fs in game.fields)


def test_six_players_deal_in_seat_order_with_growing_hands_r_var_67():
    # R-VAR-67 with R-SETUP-3: seat 0 takes the first 3 cards, seat 1 the next 4, ...
    game = deal(
        "classic",
        6,
        hands=[
            ["red", "soy", "blue"],
            ["wax", "wax", "chili", "red"],
            ["coffee"] * 5,
            ["green"] * 6,
            ["stink"] * 6,
            ["black-eyed"] * 6,
        ],
    )
    assert hand(game, 0) == ["red", "soy", "blue"]
    assert hand(game, 1) == ["wax", "wax", "chili", "red"]
    assert hand(game, 2) == ["coffee"] * 5
    assert [len(h) for h in game.hands] == [3, 4, 5, 6, 6, 6]
