"""``bohnanza.testing`` and ``bohnanza.seeding``: the tools the rule, module and bot tests
share (docs/testing.md). The rule and module tests exercise the helpers at length; these
tests pin what those tests take for granted."""

from __future__ import annotations

import pytest

from bohnanza import Action, Game, IllegalAction, NotYourTurn, seeding, simulate
from bohnanza.simulate import GameSpec, play_one
from bohnanza.testing import InvariantChecker, InvariantError
from bohnanza.testing.helpers import (
    apply_all,
    assert_conserved,
    assert_illegal,
    card_ids,
    coins,
    deal,
    event_types,
    fields,
    hand,
    kinds,
    pile_top,
    shrink_pile,
    take,
)
from bohnanza.tournament.runner import TournamentSpec, play_game

# ---------------------------------------------------------------------------- seeds


def test_seed_formulas_keep_their_values() -> None:
    """Stored tournaments, benchmark reports and records depend on these numbers."""
    assert seeding.game_seed(5, 3) == 8
    assert seeding.game_seeds(5, 3) == [5, 6, 7]
    assert seeding.agent_seed(7, 2) == 7 * 1009 + 2
    assert seeding.agent_seeds(7, 3) == [7063, 7064, 7065]
    assert seeding.table_agent_seed(3, 2, 11) == (3 * 1009 + 2 * 7919 + 11) % 2**31
    assert seeding.table_agent_seed(2**40, 0, 0) < 2**31
    assert seeding.load_client_seed(4, 5, 1) == 4 * 7919 + 5 * 31 + 1
    assert seeding.checker_seed(9) == 9 * 7919 + 17
    assert simulate.agent_seed is seeding.agent_seed  # the old import path still works


def test_a_tournament_game_is_the_simulators_game() -> None:
    """Both take game i's seed and the agents' seeds from bohnanza.seeding, so game i of a
    tournament replays with ``bohnanza simulate`` (no rotation at game 0)."""
    lineup = ("random", "autarky", "heuristic")
    spec = TournamentSpec("classic", 3, lineup, seed=40)
    row = play_game(spec, 0)
    outcome = play_one(GameSpec("classic", 3, (), lineup, None), seeding.game_seed(40, 0))
    assert row["seed"] == outcome.seed == 40
    assert (row["scores"], row["winners"], row["turns"], row["actions"]) == (
        list(outcome.scores),
        list(outcome.winners),
        outcome.turns,
        outcome.actions,
    )


# ---------------------------------------------------------------------------- deal


def test_deal_fixes_every_hand_when_a_pile_is_given() -> None:
    game = deal("classic", 3, hands=[["blue", "chili"]], pile=["wax", "red"], fill="stink")
    assert hand(game, 0) == ["blue", "chili", "stink", "stink", "stink"]
    assert hand(game, 1) == hand(game, 2) == ["stink"] * 5
    assert pile_top(game, 2) == ["wax", "red"]
    assert_conserved(game)


def test_deal_without_a_pile_shuffles_the_other_seats_unless_fill_all() -> None:
    shuffled = deal("classic", 3, hands=[["blue"] * 5], seed=4)
    plain = Game.new("classic", 3, seed=4, deck=["blue"] * 5)
    assert shuffled.to_dict() == plain.to_dict()
    fixed = deal("classic", 3, hands=[["blue"]], fill=["stink", "green"], fill_all=True)
    assert hand(fixed, 2) == ["green", "stink", "green", "stink", "green"]


def test_deal_names_cards_by_id_variety_or_kind() -> None:
    ladies = card_ids(Game.new("fasolki+fasolufka", 4), "cowboy", "lady")
    game = deal(
        "fasolki+fasolufka",
        4,
        hands=[[ladies[0], "cowboy/lady", "cowboy/child"]],
        fill=["cowboy/man", "pyromaniac/man", "fatty/man", "drunkard/man"],
        fill_all=True,
    )
    assert game.hands[0][:2] == ladies[:2]  # the explicit id first, then the lowest free one
    assert kinds(game, game.hands[0][:3]) == ["lady", "lady", "child"]
    assert_conserved(game)


def test_deal_refuses_impossible_hands() -> None:
    with pytest.raises(AssertionError, match="no fill"):
        deal("classic", 3, hands=[["blue"]], pile=["wax"])
    with pytest.raises(AssertionError, match="gets 5 cards, not 6"):
        deal("classic", 3, hands=[["blue"] * 6])
    with pytest.raises(AssertionError, match="repeated"):
        deal("classic", 3, hands=[[1, 1, 2, 3, 4]])


def test_deal_stages_fields_below_the_pile() -> None:
    game = deal(
        "classic",
        4,
        hands=[["blue", "chili"]],
        pile=["wax", "red"],
        fill=["stink", "blue"],
        fields={0: [["soy"] * 3], 2: [[], ["green", "green"]]},
    )
    assert fields(game, 0) == [["soy"] * 3, []]
    assert fields(game, 2) == [[], ["green", "green"]]
    assert hand(game, 0)[:2] == ["blue", "chili"] and pile_top(game, 2) == ["wax", "red"]
    assert_conserved(game)
    events = apply_all(game, [(0, Action.plant(1)), (0, Action.harvest(0))])
    assert "harvest" in event_types(events)
    assert coins(game, 0) == 1  # three soy beans pay one coin
    with pytest.raises(AssertionError, match="move #0"):
        apply_all(game, [(1, Action.end_trading())])


# ---------------------------------------------------------------------------- assertions


def test_assert_illegal_fails_on_a_legal_action_and_on_the_wrong_error() -> None:
    game = deal("classic", 3, hands=[["blue", "chili"]], fill="soy")
    with pytest.raises(AssertionError, match="was accepted"):
        assert_illegal(game, 0, Action.plant(0))
    with pytest.raises(AssertionError, match="not named"):
        assert_illegal(game, 0, Action.plant(0), "R-NO-SUCH-RULE")  # R-PLANT-3 is named
    with pytest.raises(AssertionError, match="not IllegalActionSubclass"):

        class IllegalActionSubclass(IllegalAction):
            pass

        assert_illegal(game, 0, Action.plant(0), exc=IllegalActionSubclass)
    err = assert_illegal(game, 1, Action.plant(1), "R-PLANT-1", exc=NotYourTurn)
    assert isinstance(err, NotYourTurn)
    assert fields(game, 0) == [["blue"], [], []]


def test_shrink_pile_keeps_every_card_in_one_place() -> None:
    for to in ("discard", "out"):
        game = Game.new("classic", 4, seed=1)
        top = pile_top(game, 3)
        moved = shrink_pile(game, 3, to=to)
        assert len(game.draw) == 3 and pile_top(game, 3) == top
        assert set(moved) <= set(game.discard if to == "discard" else game.out)
        assert_conserved(game)


# ---------------------------------------------------------------------------- the checker


def test_invariant_checker_runs_on_any_game_and_notices_a_lost_card() -> None:
    game = Game.new("fasolki+fasolkopajaki", 4, seed=2)
    checker = InvariantChecker(game)
    checker.conservation()
    checker.full()
    assert set(game.hands[1]).isdisjoint(checker.allowed(0))
    take(game, game.hands[1][0])
    with pytest.raises(InvariantError, match="game: at setup"):
        checker.conservation()
