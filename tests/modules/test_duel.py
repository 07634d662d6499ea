"""Module 4, Duel (RULES.md §9): R-DUEL-1 … R-DUEL-4."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bohnanza import Action, ActionType, Game, Offer, make_config
from bohnanza.modules.duel import discard, end_reveal, plant_revealed, skip_discard
from bohnanza.testing.helpers import (
    FASOLKI_FILL,
    assert_conserved,
    assert_illegal,
    card_ids_in_json,
    deal,
    give_coins,
    names,
    shrink_pile,
    take,
)

DUEL = "fasolki+duel"
TRADING = {
    ActionType.PROPOSE,
    ActionType.ACCEPT,
    ActionType.DECLINE,
    ActionType.WITHDRAW,
    ActionType.END_TRADING,
}


def duel(hands=(), pile=(), seed: int = 0) -> Game:
    return deal(DUEL, 2, hands=hands, pile=pile, seed=seed, fill=FASOLKI_FILL, fill_all=True)


def hand(game: Game, seat: int) -> list[str]:
    return names(game, game.hands[seat])


# ---------------------------------------------------------------------------- R-DUEL-1


def test_deck_and_hands_r_duel_1():
    # R-DUEL-1: Fasolki base + Partygoer + Businessman, without Gardeners: 144 cards;
    # 5 cards each.
    cfg = make_config(DUEL, 2)
    assert Counter(cfg.variety_of(i) for i in range(cfg.deck_size)) == {
        "cowboy": 20,
        "pyromaniac": 18,
        "fatty": 16,
        "drunkard": 14,
        "hippie": 12,
        "boxer": 10,
        "golas": 8,
        "businessman": 24,
        "partygoer": 22,
    }
    game = Game.new(DUEL, 2, seed=1)
    assert [len(h) for h in game.hands] == [5, 5]
    assert len(game.draw) == 134
    assert [len(fs) for fs in game.fields] == [2, 2]
    assert game.active == 0 and game.phase == "plant"
    assert game.extra.to_json() == {"offer": [], "revealed": []}
    assert_conserved(game)


def test_no_trading_and_no_gifts_r_duel_1():
    # R-DUEL-1: no trading and no gifts at all, in any step; refusals change nothing.
    game = duel(hands=[["cowboy", "golas"], ["golas"]], pile=["hippie", "boxer", "fatty"])
    mine, theirs = game.hands[0][1], game.hands[1][0]
    for step in ("plant", "duel_discard", "duel_reveal"):
        assert game.phase == step
        assert_illegal(game, 0, Action.propose(Offer(1, (mine,), ())), "R-DUEL-1")
        assert_illegal(game, 0, Action.propose(Offer(1, (mine,), (("golas", 1),))), "R-DUEL-1")
        assert_illegal(game, 1, Action.propose(Offer(0, (theirs,), ())), "R-DUEL-1")
        assert_illegal(game, 0, Action.end_trading(), "R-DUEL-1")
        assert_illegal(game, 1, Action.accept(1, ()), "R-DUEL-1")
        assert not any(a.type in TRADING for s in (0, 1) for a in game.legal_actions(s))
        if step == "plant":
            game.apply(0, Action.plant(0))
            game.apply(0, Action.stop_planting())
        elif step == "duel_discard":
            game.apply(0, skip_discard())


def test_a_whole_duel_has_no_trade_phase_r_duel_1():
    # R-DUEL-1 over a whole random game: no trade step, no trade actions ever offered.
    game = Game.new(DUEL, 2, seed=7)
    rng = random.Random(7)
    phases = set()
    for _ in range(5000):
        if game.over:
            break
        phases.add(game.phase)
        seat = game.waiting_for()[0]
        legal = game.legal_actions(seat)
        assert not any(a.type in TRADING for a in legal)
        assert game.legal_actions(1 - seat) == []  # only the active seat acts (R-DUEL-2)
        # Prefer planting and moving on, so the game ends in reasonable time.
        steps = [a for a in legal if a.type is not ActionType.HARVEST] or legal
        game.apply(seat, rng.choice(steps))
        assert_conserved(game)
    assert game.over
    assert "trade" not in phases and "plant_traded" not in phases
    assert {"plant", "duel_discard", "duel_reveal", "duel_offer"} <= phases
    assert game.runouts == 1  # R-DUEL-4: the first run-out ends it


# ---------------------------------------------------------------------------- R-DUEL-2


def test_harvest_only_in_own_turn_r_duel_2():
    # R-DUEL-2: a player may harvest only in their own turn.
    game = duel(hands=[["cowboy", "cowboy"], ["golas", "golas"]], pile=["hippie"] * 3)
    game.apply(0, Action.plant(0))
    game.apply(0, Action.plant(0))
    game.apply(0, skip_discard())
    game.apply(0, end_reveal())
    assert game.active == 1
    game.apply(1, discard(game.extra.offer[0]))
    game.apply(1, discard(game.extra.offer[0]))
    game.apply(1, discard(game.extra.offer[0]))
    game.apply(1, Action.plant(0))
    game.apply(1, Action.plant(0))
    assert game.phase == "duel_discard"
    # Seat 0 holds 2 Cowboys: it may not harvest in seat 1's turn, in any step.
    assert_illegal(game, 0, Action.harvest(0), "R-DUEL-2")
    assert game.legal_actions(0) == []
    game.apply(1, skip_discard())
    assert_illegal(game, 0, Action.harvest(0), "R-DUEL-2")
    # Seat 1 may harvest in its own turn (here during step 3).
    assert Action.harvest(0) in game.legal_actions(1)
    game.apply(1, Action.harvest(0))
    assert game.fields[1][0] == []
    assert_conserved(game)


def test_harvest_allowed_in_each_step_of_own_turn_r_duel_2():
    game = duel(hands=[["cowboy", "cowboy"], ["golas", "golas"]], pile=["hippie"] * 3)
    game.apply(0, Action.plant(0))
    game.apply(0, Action.harvest(0))  # step 2, between the two plants
    game.apply(0, Action.plant(0))
    game.apply(0, Action.harvest(0))  # step 2, the optional discard
    assert game.phase == "duel_discard"
    game.apply(0, skip_discard())
    assert game.is_legal(0, plant_revealed(game.extra.revealed[0], 0))
    game.apply(0, end_reveal())
    game.apply(1, plant_revealed(game.extra.offer[0], 0))
    game.apply(1, Action.harvest(0))  # step 1, the offer
    assert game.phase == "duel_offer"
    assert game.fields[1][0] == []
    assert_conserved(game)


def test_third_field_costs_three_coins_that_leave_the_game_r_duel_2():
    # R-DUEL-2: a third field costs 3 coins, which leave the game (not the discard pile);
    # bought only in one's own turn.
    game = Game.new(DUEL, 2, seed=3)
    give_coins(game, 1, 3)
    assert_illegal(game, 1, Action.buy_field(), "R-DUEL-2")
    give_coins(game, 0, 2)
    assert_illegal(game, 0, Action.buy_field(), "R-FIELD-2")
    give_coins(game, 0, 1)
    paid = list(game.treasury[0])
    discard = list(game.discard)
    game.apply(0, Action.buy_field())
    assert len(game.fields[0]) == 3
    assert game.treasury[0] == []
    assert game.out[-3:] == paid
    assert game.discard == discard
    assert_conserved(game)


# ---------------------------------------------------------------------------- R-DUEL-3


def test_first_turn_skips_the_offer_step_r_duel_3():
    game = Game.new(DUEL, 2, seed=2)
    assert game.phase == "plant" and game.extra.offer == []
    # Planting the front card is mandatory (R-PLANT-1): nothing else first.
    assert_illegal(game, 0, Action.stop_planting(), "R-PLANT-1")
    assert_illegal(game, 0, skip_discard(), "R-DUEL-3")
    assert_illegal(game, 0, end_reveal(), "R-DUEL-3")


def test_a_full_turn_step_by_step_r_duel_3():
    # R-DUEL-3: (2) plant 1–2 front cards, then discard one hand card of one's choice face
    # up; (3) reveal 3, pull matching discards, plant any, leave the rest as the offer;
    # (4) draw 2 one by one to the back of the hand.
    game = duel(
        hands=[
            ["cowboy", "cowboy", "golas", "hippie", "boxer"],
            ["fatty", "drunkard", "pyromaniac", "businessman", "partygoer"],
        ],
        pile=["golas", "partygoer", "hippie", "boxer", "fatty"],
    )
    top3 = list(reversed(game.draw[-3:]))
    draws = list(reversed(game.draw[-5:-3]))
    # Step 2.
    game.apply(0, Action.plant(0))
    game.apply(0, Action.plant(0))
    assert game.phase == "duel_discard"
    assert_illegal(game, 0, Action.plant(1), "R-PLANT")
    hippie = game.hands[0][1]  # not the front card: any card of the hand may go
    events = game.apply(0, discard(hippie))
    # The discard is face up: the opponent sees the card.
    assert any(e.type == "discard" and e.for_seat(1)["card"] == hippie for e in events)
    # Step 3 follows at once: 3 revealed, then the discarded Hippie matches the revealed
    # Hippie and is pulled off the discard pile.
    assert game.phase == "duel_reveal"
    assert game.extra.revealed == [*top3, hippie]
    assert game.discard == []
    for viewer in (0, 1, None):
        public = game.view(viewer).public
        assert public["revealed"] == [*top3, hippie]
        assert public["offer"] == []
    assert_illegal(game, 0, discard(game.hands[0][0]), "R-DUEL-3")  # only one
    golas = top3[0]
    game.apply(0, plant_revealed(golas, 1))
    assert game.fields[0] == [game.fields[0][0], [golas]]
    assert names(game, game.fields[0][0]) == ["cowboy", "cowboy"]
    # Step 4 after leaving the rest as the offer.
    hand_before = list(game.hands[0])
    game.apply(0, end_reveal())
    assert game.extra.offer == [top3[1], top3[2], hippie]
    assert game.extra.revealed == []
    assert game.hands[0] == hand_before + draws
    assert game.active == 1 and game.phase == "duel_offer"
    assert_conserved(game)


def test_offer_step_plant_or_discard_each_card_in_any_order_r_duel_3():
    # R-DUEL-3 (1): the active player plants or discards each card of the offer, in an
    # order of its choice, before planting from the hand.
    game = duel(
        hands=[["cowboy"], ["fatty", "hippie"]],
        pile=["hippie", "partygoer", "boxer", "golas", "golas"],
    )
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    game.apply(0, skip_discard())
    game.apply(0, end_reveal())
    hippie, party, boxer = game.extra.offer
    assert game.phase == "duel_offer"
    # Not yet the hand, not the revealed-step actions.
    assert_illegal(game, 1, Action.plant(0), "R-PLANT-1")
    assert_illegal(game, 1, end_reveal(), "R-DUEL-3")
    assert_illegal(game, 1, discard(game.hands[1][0]), "R-DUEL-3")
    # The last card first, then the first: the order is free.
    game.apply(1, discard(boxer))
    assert game.discard[-1] == boxer
    game.apply(1, plant_revealed(hippie, 1))
    assert game.phase == "duel_offer"
    game.apply(1, discard(party))
    assert game.phase == "plant"
    assert game.fields[1][1] == [hippie]
    assert game.extra.offer == []
    # The offer cards never reach the hand.
    assert hippie not in game.hands[1] and party not in game.hands[1]
    assert_conserved(game)


def test_offer_card_must_fit_a_field_r_duel_3():
    game = duel(
        hands=[["cowboy"], ["fatty", "drunkard"]],
        pile=["hippie", "partygoer", "boxer", "golas", "golas"],
    )
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    game.apply(0, skip_discard())
    game.apply(0, end_reveal())
    hippie = game.extra.offer[0]
    # Seat 1's fields are empty: stage both with other varieties taken from its hand.
    assert game.fields[1] == [[], []]
    a, b = game.hands[1][0], game.hands[1][1]
    game.fields[1][0].append(take(game, a))
    game.fields[1][1].append(take(game, b))
    assert_illegal(game, 1, plant_revealed(hippie, 0), "R-PLANT-3")
    assert game.is_legal(1, Action.harvest(0))  # make room in its own turn
    game.apply(1, Action.harvest(0))
    game.apply(1, plant_revealed(hippie, 0))
    assert game.fields[1][0] == [hippie]


def test_matching_discards_are_pulled_while_they_match_r_duel_3():
    # R-DUEL-3 (3): while the discard pile's top card matches a revealed variety it joins
    # the revealed cards; the first non-matching card stops it.
    game = duel(hands=[["cowboy"]], pile=["golas", "cowboy", "hippie"])
    boxer, g1, h1, g2 = _four(game)
    for c in (boxer, g1, h1, g2):
        game.discard.append(take(game, c))
    top3 = list(reversed(game.draw[-3:]))
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    game.apply(0, skip_discard())
    assert game.extra.revealed == [*top3, g2, h1, g1]
    assert game.discard == [boxer]
    assert_conserved(game)


def _four(game: Game) -> tuple[int, int, int, int]:
    """A Boxer, a Golas, a Hippie and another Golas from below the top 3 of the pile."""
    below = game.draw[:-3]
    boxer = next(c for c in below if game.config.variety_of(c) == "boxer")
    golas = [c for c in below if game.config.variety_of(c) == "golas"]
    hippie = next(c for c in below if game.config.variety_of(c) == "hippie")
    return boxer, golas[0], hippie, golas[1]


def test_revealed_cards_may_all_be_left_r_duel_3():
    # R-DUEL-3 (3): the player need not plant any revealed card.
    game = duel(hands=[["cowboy"]], pile=["golas", "boxer", "hippie", "fatty", "fatty"])
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    game.apply(0, skip_discard())
    revealed = list(game.extra.revealed)
    game.apply(0, end_reveal())
    assert game.extra.offer == revealed
    assert names(game, game.hands[0][-2:]) == ["fatty", "fatty"]


def test_revealed_cards_may_all_be_planted_with_harvests_r_duel_3():
    game = duel(hands=[["cowboy"]], pile=["golas", "golas", "hippie", "fatty", "fatty"])
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    game.apply(0, skip_discard())
    g1, g2, h = game.extra.revealed
    game.apply(0, plant_revealed(g1, 1))
    game.apply(0, plant_revealed(g2, 1))
    assert_illegal(game, 0, plant_revealed(h, 0), "R-PLANT-3")
    game.apply(0, Action.harvest(1))  # 2 Golas: 1 coin (2/3/4/5)
    assert len(game.treasury[0]) == 1
    game.apply(0, plant_revealed(h, 1))
    game.apply(0, end_reveal())
    assert game.extra.offer == []
    assert game.active == 1 and game.phase == "plant"  # nothing offered: step 1 skipped
    assert_conserved(game)


def test_revealed_and_offer_are_public_r_duel_3():
    game = duel(hands=[["cowboy"]], pile=["golas", "boxer", "hippie"])
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    game.apply(0, skip_discard())
    revealed = game.extra.revealed
    for viewer in (1, None):
        data = game.view(viewer).to_json()
        assert [c["id"] for c in data["public"]["revealed"]] == revealed
    # The opponent's hand stays private.
    assert not set(game.hands[0]) & card_ids_in_json(game.view(1).to_json())


# ---------------------------------------------------------------------------- R-DUEL-4


def play_turn(game: Game) -> None:
    """The active seat's whole duel turn: discard the offer, plant the front card (making
    room if needed), keep its hand, plant nothing revealed."""
    a = game.active
    turn = game.turn
    while game.phase == "duel_offer":
        game.apply(a, discard(game.extra.offer[0]))
    if game.phase == "plant":
        card = game.hands[a][0]
        v = game.config.card_variety[card]
        fields = game.fields[a]
        target = next((i for i, f in enumerate(fields) if f and game.variety(f[-1]) == v), None)
        if target is None:
            target = next((i for i, f in enumerate(fields) if not f), None)
        if target is None:
            game.apply(a, Action.harvest(max(range(len(fields)), key=lambda i: len(fields[i]))))
            target = next(i for i, f in enumerate(fields) if not f)
        game.apply(a, Action.plant(target))
        game.apply(a, Action.stop_planting())
    if game.phase == "duel_discard":
        game.apply(a, skip_discard())
    assert game.phase == "duel_reveal"
    game.apply(a, end_reveal())
    assert game.over or game.turn == turn + 1


def test_runout_in_seat_0_turn_gives_seat_1_one_more_turn_r_duel_4():
    # R-DUEL-4: the first run-out ends the duel after the current turn; if that was seat
    # 0's turn, seat 1 plays one more full turn. Missing draws are skipped, no reshuffle.
    game = Game.new(DUEL, 2, seed=5)
    shrink_pile(game, 4, to="out")  # seat 0 reveals 3 and draws the last card: the run-out
    events = game.record_events()
    hand0 = len(game.hands[0])
    play_turn(game)
    assert game.runouts == 1 and game.final_runout
    assert len(game.hands[0]) == hand0 - 1 + 1  # one draw happened, the second skipped
    assert not game.over
    assert game.active == 1 and game.phase == "duel_offer"  # seat 1's full turn
    offer = list(game.extra.offer)
    assert len(offer) == 3
    play_turn(game)  # seat 1: the offer, planting, nothing to reveal, nothing to draw
    assert game.over
    assert game.turn == 2
    assert not [e for e in events if e.type == "reshuffle"]
    assert game.draw == []
    assert set(offer) <= set(game.discard)
    assert_final_harvest(game)


def test_runout_during_seat_1_reveal_ends_after_its_turn_r_duel_4():
    # R-DUEL-4: the run-out in seat 1's reveal: the missing reveal and the draws are
    # skipped, the turn is completed, the duel ends; the last offer is discarded unscored.
    game = Game.new(DUEL, 2, seed=6)
    shrink_pile(game, 7, to="out")  # seat 0 uses 5; seat 1 reveals the last 2
    play_turn(game)
    assert not game.final_runout and game.active == 1
    a = game.active
    while game.phase == "duel_offer":
        game.apply(a, discard(game.extra.offer[0]))
    game.apply(a, Action.plant(_fit(game, a)))
    game.apply(a, Action.stop_planting())
    hand1 = list(game.hands[1])
    game.apply(a, skip_discard())
    assert game.final_runout and not game.over
    revealed = list(game.extra.revealed)
    assert len(revealed) >= 2
    # The turn is completed: seat 1 may still plant revealed cards...
    assert game.phase == "duel_reveal"
    game.apply(a, end_reveal())
    # ... then the game ends at once (no extra turn for seat 0), nothing was drawn.
    assert game.over
    assert game.turn == 2
    assert game.hands[1] == hand1
    # The last offer goes to the discard pile and is worth nothing.
    assert set(revealed) <= set(game.discard)
    assert not set(revealed) & {c for t in game.treasury for c in t}
    assert_final_harvest(game)


def test_runout_during_seat_0_reveal_r_duel_4():
    # R-DUEL-4: run-out in seat 0's reveal (2 cards left): its draws are skipped, seat 1
    # then plays the offer and a turn without reveals or draws, and the duel ends.
    game = Game.new(DUEL, 2, seed=8)
    shrink_pile(game, 2, to="out")
    hand0 = list(game.hands[0])
    play_turn(game)
    assert game.final_runout and game.active == 1
    assert game.hands[0] == hand0[1:]  # planted the front card, drew nothing
    assert len(game.extra.offer) == 2
    play_turn(game)
    assert game.over and game.turn == 2
    assert_final_harvest(game)


def test_duel_is_not_decided_by_later_runouts_r_duel_4():
    # R-DUEL-4 contrast: before the first run-out the duel goes on, turn after turn.
    game = Game.new(DUEL, 2, seed=9)
    shrink_pile(game, 12, to="out")  # 2 full turns of 5 cards, the third turn runs out
    play_turn(game)
    play_turn(game)
    assert not game.final_runout and game.turn == 3 and game.active == 0
    play_turn(game)  # seat 0's turn: reveals 2 of 3 and runs out
    assert game.final_runout and not game.over and game.active == 1
    play_turn(game)
    assert game.over and game.turn == 4


def _fit(game: Game, seat: int) -> int:
    card = game.hands[seat][0]
    fields = game.fields[seat]
    v = game.config.card_variety[card]
    for i, f in enumerate(fields):
        if f and game.config.card_variety[f[-1]] == v:
            return i
    for i, f in enumerate(fields):
        if not f:
            return i
    game.apply(seat, Action.harvest(max(range(len(fields)), key=lambda i: len(fields[i]))))
    return _fit(game, seat)


def assert_final_harvest(game: Game) -> None:
    """R-END-3/R-END-4 after a duel: every field harvested, scores are the treasuries."""
    assert all(f == [] for fs in game.fields for f in fs)
    assert game.extra.offer == [] and game.extra.revealed == []
    result = game.result()
    assert result["scores"] == [len(t) for t in game.treasury]
    assert_conserved(game)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_duel_turns_are_equal_at_the_end_r_duel_4(seed):
    # R-DUEL-4: both players have had as many turns when the duel ends.
    game = Game.new(DUEL, 2, seed=seed)
    events = game.record_events()
    while not game.over:
        play_turn(game)
    # Turns alternate from seat 0 (turn 1, before events were recorded): equal turns
    # means an even number of turns, the last one seat 1's.
    assert game.turn % 2 == 0
    seats = [e.seat for e in events if e.type == "turn"]
    assert seats[-1] == 1 and Counter(seats) == {0: game.turn // 2 - 1, 1: game.turn // 2}
    assert game.runouts == 1
    assert_final_harvest(game)
