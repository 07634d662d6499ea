"""The draw pile, run-outs, the end of the game and scoring (R-DECK-1, R-END-*, R-VAR-3).

To reach a run-out without playing a hundred turns, most tests shorten the draw pile right
after the deal (``shrink_pile`` moves the other cards to the discard pile, or out of the
game) and set how many run-outs have already happened. One test plays whole games.
"""

from __future__ import annotations

import pytest

from bohnanza import Action, Game, GameOver, IllegalAction, Offer
from bohnanza.testing.helpers import (
    OVER,
    PLANT,
    PLANT_TRADED,
    TRADE,
    assert_conserved,
    assert_illegal,
    coins,
    deal,
    drawn,
    event_types,
    find,
    hand,
    pass_turn,
    plant,
    plant_trade_areas,
    shrink_pile,
    trade_area,
)


def near_end(
    rules: str = "classic",
    players: int = 4,
    hands=(),
    pile=(),
    *,
    keep: int,
    runouts: int,
    to: str = "discard",
    fill=None,
) -> Game:
    """A game whose draw pile holds only its top ``keep`` cards, after ``runouts``
    earlier run-outs."""
    game = deal(rules, players, hands, pile, fill=fill or FILL[rules])
    shrink_pile(game, keep, to)
    game.runouts = runouts
    assert_conserved(game)
    return game


FIRST = ["blue", "chili", "soy", "soy", "soy"]
FILL = {
    "classic": ["wax", "stink", "green"],
    "first-edition": ["stink", "green", "black-eyed"],
    "fasolki": ["fatty", "drunkard", "boxer"],
}


# ---------------------------------------------------------------------------- R-DECK-1


def test_the_discard_pile_is_reshuffled_when_a_card_is_next_needed_r_deck_1():
    # R-DECK-1 Decision: not when the pile empties, but when the next card is needed; what
    # was discarded in between is shuffled in too.
    game = near_end(hands=[FIRST], pile=["wax", "red"], keep=2, runouts=0)
    discard = len(game.discard)
    plant(game, 0)
    assert drawn(game) == ["wax", "red"]
    assert game.draw == []
    assert game.runouts == 1 and not game.final_runout
    assert len(game.discard) == discard  # no reshuffle yet
    blue = game.fields[0][0][0]
    game.apply(0, Action.harvest(0))  # discarded after the run-out
    assert game.discard[-1] == blue
    game.apply(0, Action.end_trading())
    wax, red = game.trade[0]
    game.apply(0, Action.plant_traded(wax, 0))
    events = game.apply(0, Action.plant_traded(red, 1))
    assert event_types(events)[:3] == ["plant", "reshuffle", "draw"]
    assert game.discard == []
    assert len(game.draw) == discard + 1 - 3
    assert blue in game.draw or blue in game.hands[0]
    assert game.runouts == 1
    assert game.active == 1
    assert_conserved(game)


def test_a_reshuffle_in_the_middle_of_phase_2_r_deck_1():
    # R-DECK-1: the first drawn card empties the pile (run-out 1); the second comes from
    # the reshuffled discard pile.
    game = near_end(hands=[FIRST], pile=["garden"], keep=1, runouts=0)
    discard = len(game.discard)
    events = game.apply(0, Action.plant(0))
    events += game.apply(0, Action.stop_planting())
    assert event_types(events).count("runout") == 1
    assert "reshuffle" in event_types(events)
    assert len(game.drawn) == 2 and drawn(game)[0] == "garden"
    assert game.runouts == 1
    assert len(game.draw) == discard - 1 and game.discard == []
    assert_conserved(game)


def test_reshuffles_are_reproducible_r_deck_1_r_setup_5():
    # R-DECK-1 with R-SETUP-5: the game's own seeded RNG shuffles.
    a = near_end(hands=[FIRST], pile=["garden"], keep=1, runouts=0)
    b = near_end(hands=[FIRST], pile=["garden"], keep=1, runouts=0)
    plant(a, 0)
    plant(b, 0)
    assert a.to_dict() == b.to_dict()


# ---------------------------------------------------------------------------- R-END-1


def test_run_outs_are_counted_when_a_draw_removes_the_last_card_r_end_1():
    # R-END-1: a run-out is a step that removes the last card; with 4 players the second
    # does not end the game, the third does.
    game = near_end(hands=[FIRST], pile=["wax"], keep=1, runouts=1)
    plant(game, 0)
    assert game.runouts == 2
    assert not game.final_runout
    assert len(game.drawn) == 2  # a reshuffle gave the second card
    game = near_end(hands=[FIRST], pile=["wax", "red"], keep=2, runouts=2)
    plant(game, 0)
    assert game.runouts == 3 and game.final_runout
    assert game.view(1).runouts == 3


@pytest.mark.parametrize(
    ("rules", "final"), [("classic", True), ("first-edition", False), ("fasolki", False)]
)
def test_three_players_end_at_the_second_run_out_in_classic_only_r_end_1_r_var_3(rules, final):
    # R-END-1, R-VAR-3: the second run-out ends a 3-player classic game only.
    first = {"classic": FIRST, "first-edition": FIRST, "fasolki": ["cowboy"] * 5}[rules]
    game = near_end(rules, 3, hands=[first], keep=2, runouts=1)
    plant(game, 0)
    assert game.runouts == 2
    assert game.final_runout is final
    if final:
        game.apply(0, Action.end_trading())
        plant_trade_areas(game)
        assert game.over


def test_no_reshuffle_after_the_final_run_out_r_end_1():
    # R-END-1: after the final run-out the remaining draws simply do not happen.
    game = near_end(hands=[FIRST], pile=["wax"], keep=1, runouts=2)
    discard = list(game.discard)
    plant(game, 0)
    assert drawn(game) == ["wax"]  # one card only
    assert game.final_runout and game.runouts == 3
    assert game.draw == [] and game.discard == discard
    assert game.phase == TRADE  # R-END-2: play goes on to the end of phase 3


def test_empty_draw_and_discard_piles_count_as_the_final_run_out_r_end_1():
    # R-END-1: a card is needed, both piles are empty: the final run-out, even at run-out 0.
    game = near_end(hands=[FIRST], keep=0, runouts=0, to="out")
    assert game.draw == [] and game.discard == []
    plant(game, 0)
    assert game.final_runout
    assert game.drawn == []
    assert game.phase == TRADE
    game.apply(0, Action.end_trading())
    assert game.over


@pytest.mark.parametrize(
    ("rules", "players", "runouts"),
    [
        ("classic", 4, 3),
        ("classic", 3, 2),
        ("first-edition", 3, 3),
        ("fasolki", 4, 3),
    ],
)
def test_whole_games_end_at_the_right_run_out_r_end_1(rules, players, runouts):
    # R-END-1, R-VAR-3: played from the deal to the end with real actions only.
    game = Game.new(rules, players, seed=21)
    seen = []
    while not game.over:
        before = game.runouts
        pass_turn(game)
        if game.runouts != before:
            seen.append(game.runouts)
        assert_conserved(game)
    assert seen == list(range(1, runouts + 1))
    assert game.runouts == runouts and game.final_runout
    assert game.phase == OVER
    assert game.scores == tuple(coins(game, s) for s in range(players))


# ---------------------------------------------------------------------------- R-END-2


def test_final_run_out_in_phase_2_play_goes_on_to_the_end_of_phase_3_r_end_2():
    # R-END-2 (classic): trading and phase 3 still happen; then the game ends, with no
    # phase 4 draws and no further turn.
    game = near_end(hands=[FIRST, ["chili"] * 5], pile=["wax", "red"], keep=2, runouts=2)
    plant(game, 0)
    assert game.final_runout and not game.over
    game.apply(1, Action.propose(Offer(0, (find(game, 1, "chili"),), (("wax", 1),))))
    oid = max(game.offers)
    game.apply(0, Action.accept(oid, (game.drawn[0],)))
    game.apply(0, Action.end_trading())
    assert game.phase == PLANT_TRADED
    assert trade_area(game, 0) == ["chili", "red"]
    assert trade_area(game, 1) == ["wax"]
    game.apply(0, Action.plant_traded(game.trade[0][0], 1))
    game.apply(1, Action.plant_traded(game.trade[1][0], 0))
    assert not game.over
    game.apply(0, Action.harvest(0))  # make room for the Red
    game.apply(0, Action.plant_traded(game.trade[0][0], 0))
    assert game.over
    assert len(game.hands[0]) == 4  # nothing drawn in phase 4
    assert game.turn == 1 and game.active == 0
    assert_conserved(game)


def test_final_run_out_in_phase_2_with_one_drawn_card_r_end_2():
    # R-END-2: "so with one drawn card only, if that was all there was".
    game = near_end("fasolki", 4, hands=[["cowboy"] * 5], pile=["boxer"], keep=1, runouts=2)
    plant(game, 0)
    assert drawn(game) == ["boxer"]
    assert not game.over
    game.apply(0, Action.end_trading())
    assert game.phase == PLANT_TRADED
    plant_trade_areas(game)
    assert game.over and len(game.hands[0]) == 4


def test_final_run_out_in_phase_4_ends_at_once_r_end_2():
    # R-END-2: in phase 4 the game ends at once; the cards drawn stay in the hand.
    game = near_end(hands=[FIRST], pile=["chili", "chili", "red", "garden"], keep=4, runouts=2)
    plant(game, 0)
    game.apply(0, Action.end_trading())
    assert not game.final_runout
    plant_trade_areas(game)
    assert game.final_runout and game.over
    assert hand(game, 0) == ["chili", "soy", "soy", "soy", "red", "garden"]
    assert game.turn == 1
    assert_conserved(game)


def test_a_non_final_run_out_in_phase_4_goes_on_r_end_2_r_deck_1():
    game = near_end(hands=[FIRST], pile=["chili", "chili", "red"], keep=3, runouts=1)
    plant(game, 0)
    game.apply(0, Action.end_trading())
    plant_trade_areas(game)
    assert game.runouts == 2 and not game.over
    assert len(game.hands[0]) == 7 and hand(game, 0)[4] == "red"
    assert game.active == 1 and game.phase == PLANT


def test_first_edition_ends_at_once_in_phase_2_r_end_2():
    # R-END-2 Decision for first-edition: the game ends at once; cards in the drawn area
    # are discarded unplanted.
    game = near_end("first-edition", 3, hands=[FIRST], pile=["green", "red"], keep=2, runouts=2)
    discard = len(game.discard)
    plant(game, 0)
    assert game.over
    assert game.drawn == [] and all(t == [] for t in game.trade)
    assert_illegal(game, 0, Action.end_trading(), exc=GameOver)
    assert len(game.hands[0]) == 4
    assert_conserved(game)
    # Both turned-over cards, the Blue of the final harvest and the old discards.
    assert len(game.discard) == discard + 3


def test_first_edition_ends_at_once_even_on_the_first_drawn_card_r_end_2():
    # R-END-2 first-edition: the single last card is turned over and discarded.
    game = near_end("first-edition", 3, hands=[FIRST], pile=["green"], keep=1, runouts=2)
    green = game.draw[-1]
    plant(game, 0)
    assert game.over
    assert game.drawn == []
    assert green in game.discard
    assert_conserved(game)


def test_first_edition_ends_at_once_in_phase_4_r_end_2_r_end_4():
    # R-END-2: in phase 4 the drawn cards stay in the hand, and count for the tie-break
    # (R-END-4). Everybody has 0 coins; seat 0 holds 4 + 2 cards, the others 5 each.
    game = near_end(
        "first-edition",
        3,
        hands=[FIRST],
        pile=["chili", "chili", "red", "garden"],
        keep=4,
        runouts=2,
    )
    plant(game, 0)
    game.apply(0, Action.end_trading())
    for card in list(game.trade[0]):
        game.apply(0, Action.plant_traded(card, 1))
    assert game.over
    assert hand(game, 0) == ["chili", "soy", "soy", "soy", "red", "garden"]
    assert game.scores == (0, 0, 0)
    assert game.winners == (0,)
    assert_conserved(game)


@pytest.mark.parametrize("rules", ["classic", "fasolki"])
def test_phase_4_tie_break_counts_the_cards_drawn_r_end_2_r_end_4(rules):
    # The same situation in classic and fasolki (001): seat 0 wins on hand size.
    first = FIRST if rules == "classic" else ["cowboy", "pyromaniac", "hippie", "hippie", "hippie"]
    two = ["chili", "chili"] if rules == "classic" else ["pyromaniac", "pyromaniac"]
    game = near_end(
        rules,
        3 if rules == "fasolki" else 4,
        hands=[first],
        pile=[*two, two[0], two[0]],
        keep=4,
        runouts=2,
    )
    plant(game, 0)
    game.apply(0, Action.end_trading())
    for card in list(game.trade[0]):
        game.apply(0, Action.plant_traded(card, 1))
    assert game.over
    assert len(game.hands[0]) == 6
    assert set(game.scores) == {0}
    assert game.winners == (0,)


# ---------------------------------------------------------------------------- R-END-3


def test_final_harvest_ignores_protection_r_end_3():
    # R-END-3: every field is harvested, single beans too; hand cards are worth nothing.
    game = near_end(
        hands=[["garden", "garden", "chili", "chili", "stink"]],
        pile=["garden", "blue"],
        keep=2,
        runouts=2,
    )
    plant(game, 0, 0)
    give = (find(game, 0, "chili"), find(game, 0, "chili", nth=1), find(game, 0, "stink"))
    game.apply(0, Action.propose(Offer(1, give)))
    game.apply(1, Action.accept(max(game.offers), ()))
    game.apply(0, Action.end_trading())
    plant_trade_areas(game, order=[1, 0])
    assert game.over
    assert all(f == [] for fs in game.fields for f in fs)
    # Seat 0: Garden ×3 pays 3, the single Blue pays nothing but is harvested.
    # Seat 1: Chili ×2 and a single Stink: nothing, both harvested.
    assert game.scores == (3, 0, 0, 0)
    assert game.hands[0] == [] and all(len(h) == 5 for h in game.hands[1:])
    assert game.result()["scores"] == [3, 0, 0, 0]
    assert game.result()["winners"] == [0]
    assert_conserved(game)


def test_final_harvest_events_r_end_3():
    game = near_end(hands=[FIRST], pile=["chili", "red"], keep=2, runouts=2)
    plant(game, 0)
    game.apply(0, Action.end_trading())
    events = game.apply(0, Action.plant_traded(game.trade[0][0], 1))
    events += game.apply(0, Action.harvest(1))
    events += game.apply(0, Action.plant_traded(game.trade[0][0], 1))
    finals = [e for e in events if e.type == "harvest" and e.data["final"]]
    assert [e.data["field"] for e in finals] == [0, 1]
    assert event_types(events)[-1] == "game_over"


def test_final_harvests_go_in_turn_order_from_the_active_player_r_end_5():
    # R-END-5: the game ends in seat 1's phase 4; the final harvests start with seat 1 and
    # go round the table (2, 3, then 0), each player's fields in order.
    game = deal(
        "classic",
        4,
        hands=[["stink"], ["green"]],
        pile=["stink", "stink", "wax", "wax", "wax", "green", "green", "wax", "wax", "wax"],
        fill=["wax", "black-eyed"],
        fill_all=True,
        fields={0: [["red"], ["chili"]], 2: [["soy", "soy"]], 3: [["blue"], ["red", "red"]]},
    )
    shrink_pile(game, 10)
    game.runouts = 2
    pass_turn(game)  # seat 0: a Stink planted, two kept
    assert game.active == 1
    plant(game, 0)
    game.apply(1, Action.end_trading())
    events = []
    for card in list(game.trade[1]):
        events += game.apply(1, Action.plant_traded(card, 0))
    assert game.over and game.active == 1
    finals = [(e.seat, e.data["field"]) for e in events if e.type == "harvest"]
    assert all(e.data["final"] for e in events if e.type == "harvest")
    assert {seat for seat, _ in finals} == {0, 1, 2, 3}
    assert finals == sorted(finals, key=lambda sf: ((sf[0] - 1) % 4, sf[1]))
    assert finals[0] == (1, 0) and finals[-1] == (0, 1)
    assert_conserved(game)


# ---------------------------------------------------------------------------- R-END-4


def _tie_game(gifts: int) -> Game:
    """Everybody ends with 0 coins; ``gifts`` of seats 1, 2 give seat 0 one Blue each
    (so they hold one card fewer)."""
    game = near_end(
        hands=[FIRST, ["blue"] * 5, ["blue"] * 5, ["soy"] * 5],
        pile=["chili", "chili"],
        keep=2,
        runouts=2,
    )
    plant(game, 0)
    for seat in (1, 2)[:gifts]:
        game.apply(seat, Action.propose(Offer(0, (game.hands[seat][0],))))
        game.apply(0, Action.accept(max(game.offers), ()))
    game.apply(0, Action.end_trading())
    for card in list(game.trade[0]):
        v = game.config.variety_of(card)
        game.apply(0, Action.plant_traded(card, 0 if v == "blue" else 1))
    assert game.over
    assert game.scores == (0, 0, 0, 0)
    return game


def test_most_coins_wins_r_end_4():
    # R-END-4: seat 0 has fewer hand cards, but more coins.
    game = near_end(
        hands=[["garden", "garden", "soy", "soy", "soy"]], pile=["garden", "soy"], keep=2, runouts=2
    )
    plant(game, 0, 0)
    game.apply(0, Action.end_trading())
    plant_trade_areas(game)
    assert game.over
    assert game.scores == (3, 0, 0, 0)
    assert game.winners == (0,)


def test_a_tie_is_broken_by_the_most_hand_cards_r_end_4():
    # R-END-4: all have 0 coins; hands 4, 4, 4, 5: seat 3 wins alone.
    game = _tie_game(gifts=2)
    assert [len(h) for h in game.hands] == [4, 4, 4, 5]
    assert game.winners == (3,)
    assert game.result()["winners"] == [3]


def test_still_tied_is_a_shared_win_r_end_4():
    # R-END-4: all have 0 coins; hands 4, 4, 5, 5: seats 2 and 3 share the win.
    game = _tie_game(gifts=1)
    assert [len(h) for h in game.hands] == [4, 4, 5, 5]
    assert game.winners == (2, 3)


def test_no_result_before_the_end_and_no_action_after_it_r_end_4():
    game = near_end(hands=[FIRST], pile=["chili"], keep=1, runouts=2)
    with pytest.raises(IllegalAction):
        game.result()
    plant(game, 0)
    game.apply(0, Action.end_trading())
    plant_trade_areas(game)
    assert game.over
    for seat in range(4):
        assert game.legal_actions(seat) == []
        assert_illegal(game, seat, Action.harvest(0), exc=GameOver)
    assert game.view(None).winners == game.winners
    assert game.phase == OVER and game.active == 0


def test_the_log_tells_the_draw_before_the_run_out_it_causes_r_end_1():
    # R-END-1: the run-out happens when a step takes the last card, so the log reports
    # that card (turned over in phase 2) first and the run-out after it, then the reshuffle
    # of the next draw.
    game = near_end(hands=[FIRST], pile=["garden"], keep=1, runouts=0)
    events = game.apply(0, Action.plant(0))
    events += game.apply(0, Action.stop_planting())
    types = event_types(events)
    first = types.index("runout")
    assert types[first - 1] == "turn_over" and events[first - 1].data["variety"] == "garden"
    assert types[first + 1 :].index("reshuffle") < types[first + 1 :].index("turn_over")
