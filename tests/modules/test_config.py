"""Module rule sets: which combinations exist (§1), their deck sizes (§2c) and setup."""

from __future__ import annotations

from collections import Counter

import pytest

from bohnanza import ConfigError, Game, all_rulesets, make_config
from bohnanza.testing.helpers import assert_conserved

# ---------------------------------------------------------------------------- §2c deck sizes

# (rules, players, options, whole deck, draw pile after dealing)
DECK_SIZES = [
    ("fasolki+fasolkopajaki", 3, None, 104, 89),
    ("fasolki+fasolkopajaki", 4, None, 104, 84),
    ("fasolki+fasolkopajaki", 5, None, 104, 79),
    ("fasolki+new-varieties", 3, None, 150, 135),
    ("fasolki+new-varieties", 4, {"remove": "glutton"}, 129, 109),
    ("fasolki+new-varieties", 4, {"remove": "farmer"}, 130, 110),
    ("fasolki+new-varieties", 5, {"remove": "glutton"}, 129, 104),
    ("fasolki+new-varieties", 5, {"remove": "farmer"}, 130, 105),
    ("fasolki+new-varieties", 6, None, 144, 114),
    ("fasolki+new-varieties", 7, None, 144, 108),
    ("fasolki+fasolufka", 3, None, 110, 95),
    ("fasolki+fasolufka", 4, None, 110, 90),
    ("fasolki+fasolufka", 5, None, 110, 85),
    ("fasolki+duel", 2, None, 144, 134),
]


@pytest.mark.parametrize(("rules", "players", "options", "deck", "pile"), DECK_SIZES)
def test_module_deck_sizes_section_2c(rules, players, options, deck, pile):
    # RULES.md §2c, module rows: whole deck / draw pile after dealing.
    game = Game.new(rules, players, options=options, seed=3)
    assert game.config.deck_size == deck
    assert len(game.draw) == pile
    assert sum(len(h) for h in game.hands) == deck - pile
    assert_conserved(game)


def test_fasolkopajaki_deck_replaces_gardeners_with_six_spiders():
    # §7 / §2b: the 6 Gardeners are replaced by 6 Fasolkopajaks, 3 red and 3 black.
    cfg = make_config("fasolki+fasolkopajaki", 4)
    assert "gardener" not in cfg.varieties
    spiders = [i for i in range(cfg.deck_size) if cfg.variety_of(i) == "fasolkopajak"]
    assert Counter(cfg.card_kind[i] for i in spiders) == {"red": 3, "black": 3}
    # The other cards are the fasolki base cards unchanged.
    counts = Counter(cfg.variety_of(i) for i in range(cfg.deck_size))
    assert counts == {
        "cowboy": 20,
        "pyromaniac": 18,
        "fatty": 16,
        "drunkard": 14,
        "hippie": 12,
        "boxer": 10,
        "golas": 8,
        "fasolkopajak": 6,
    }


@pytest.mark.parametrize("rules", ["fasolki+fasolkopajaki", "fasolki+fasolufka"])
def test_three_player_modules_play_normal_rules_r_var_3_decision(rules):
    # R-VAR-3 Decision: fasolkopajaki and fasolufka with 3 players: two fields, a third
    # field may be bought, the game ends at the third run-out; 5 cards each (R-SETUP-2).
    game = Game.new(rules, 3, seed=1)
    assert [len(fs) for fs in game.fields] == [2, 2, 2]
    assert game.config.runouts_to_end == 3
    assert game.config.hand_sizes == (5, 5, 5)


# ---------------------------------------------------------------------------- §1 combinations


@pytest.mark.parametrize(
    ("rules", "players", "options", "says"),
    [
        # two modules at once
        ("fasolki+duel+fasolufka", 2, None, ["one module", "fasolki+duel"]),
        ("fasolki+fasolufka+duel", 4, None, ["one module", "fasolki+fasolufka"]),
        # a module on top of another base rule set
        ("classic+duel", 2, None, ["fasolki", "fasolki+duel"]),
        ("first-edition+fasolkopajaki", 4, None, ["fasolki", "fasolki+fasolkopajaki"]),
        # player counts outside the module's range
        ("fasolki+fasolufka", 6, None, ["3", "5", "6"]),
        ("fasolki+fasolkopajaki", 2, None, ["3", "5", "2"]),
        ("fasolki+duel", 3, None, ["2", "3"]),
        ("fasolki+new-varieties", 8, None, ["3", "7", "8"]),
        # unknown module
        ("fasolki+gardening", 4, None, ["gardening", "duel"]),
    ],
)
def test_combinations_outside_rules_are_refused_section_1(rules, players, options, says):
    # RULES.md §1: modules apply only on top of fasolki, one at a time, for their player
    # counts; anything else is refused with an error naming what is allowed.
    with pytest.raises(ConfigError) as info:
        Game.new(rules, players, options=options)
    message = str(info.value)
    for word in says:
        assert word in message, f"{word!r} missing from: {message}"


def test_modules_given_separately_obey_the_same_rules():
    # Modules may also come as a list: still one at a time, still on fasolki only.
    game = Game.new("fasolki", 2, modules=["duel"])
    assert game.config.rules == "fasolki+duel"
    with pytest.raises(ConfigError):
        Game.new("fasolki", 2, modules=["duel", "fasolufka"])
    with pytest.raises(ConfigError):
        Game.new("classic", 4, modules=["fasolkopajaki"])


@pytest.mark.parametrize("players", [4, 5])
@pytest.mark.parametrize("options", [None, {}, {"remove": "gardener"}, {"remove": "businessman"}])
def test_new_varieties_4_5_players_need_a_valid_remove_option_r_new_45(players, options):
    # R-NEW-45: the table must choose to remove Glutton or Farmer; no default is guessed.
    with pytest.raises(ConfigError) as info:
        Game.new("fasolki+new-varieties", players, options=options)
    message = str(info.value)
    assert "remove" in message
    assert "glutton" in message and "farmer" in message


def test_all_rulesets_lists_the_modules():
    # RULES.md §1: the four modules, each on top of fasolki, with their player counts.
    table = {r["rules"]: r for r in all_rulesets()}
    expected = {
        "fasolki+new-varieties": (3, 7),
        "fasolki+fasolkopajaki": (3, 5),
        "fasolki+fasolufka": (3, 5),
        "fasolki+duel": (2, 2),
    }
    for name, (lo, hi) in expected.items():
        assert name in table, f"{name} not listed"
        assert (table[name]["min_players"], table[name]["max_players"]) == (lo, hi)
    opt = table["fasolki+new-varieties"]["options"]["remove"]
    assert sorted(opt["values"]) == ["farmer", "glutton"]
    assert sorted(opt["required_for_players"]) == [4, 5]
    # Every listed combination can really be created.
    for r in all_rulesets():
        for n in range(r["min_players"], r["max_players"] + 1):
            options = (
                {"remove": "farmer"}
                if n in r["options"].get("remove", {}).get("required_for_players", [])
                else None
            )
            Game.new(r["rules"], n, options=options)
    # No two-module or non-fasolki module combination is listed.
    for name in table:
        assert name.count("+") <= 1
        if "+" in name:
            assert name.startswith("fasolki+")
