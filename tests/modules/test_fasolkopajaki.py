"""Module 2, Fasolkopajaki (RULES.md §7): bean races (R-RACE-1/2), bluffing (R-BLUFF-1/2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza import Action, Game, InvalidOffer, Offer, make_config
from bohnanza.modules.fasolkopajaki import race_coins
from bohnanza.testing.helpers import (
    FASOLKI_FILL,
    assert_conserved,
    assert_illegal,
    card_ids_in_json,
    deal,
    dumps,
    kinds,
    plant,
    propose,
    stage_field,
)

FK = "fasolki+fasolkopajaki"
CFG = make_config(FK, 4)
RED = [i for i in range(CFG.deck_size) if CFG.card_kind[i] == "red"]
BLACK = [i for i in range(CFG.deck_size) if CFG.card_kind[i] == "black"]
SPIDERS = RED + BLACK


def test_spider_ids_are_one_variety_in_two_colours():
    assert len(RED) == 3 and len(BLACK) == 3
    assert {CFG.variety_of(c) for c in SPIDERS} == {"fasolkopajak"}


def pick(colours: list[str]) -> list[int]:
    """Distinct card ids with the given colours, in order."""
    pools = {"red": list(RED), "black": list(BLACK)}
    return [pools[c].pop(0) for c in colours]


def runs(colours: list[str]) -> int:
    """Number of unbroken single-colour runs (independent of the engine)."""
    return sum(1 for i, c in enumerate(colours) if i == 0 or colours[i - 1] != c)


# ---------------------------------------------------------------------------- R-RACE-2 directly

PRINTED = [
    (["red", "red", "black", "black"], 2),
    (["black", "red", "red", "red", "black"], 3),
    (["black", "black", "red", "black", "red"], 4),
]


@pytest.mark.parametrize(("colours", "coins"), PRINTED)
def test_race_coins_printed_examples_r_race_2(colours, coins):
    # R-RACE-2: the three printed examples.
    assert race_coins(colours) == coins


@pytest.mark.parametrize(
    ("colours", "coins"),
    [
        ([], 0),
        (["red"], 0),  # a single card pays nothing
        (["black"], 0),
        (["red", "red"], 1),  # one group of 2 pays 1
        (["black", "black", "black"], 1),
        (["red", "black"], 2),  # one red and one black: 2 groups (000)
        (["red", "black", "red"], 3),
        (["red", "black", "red", "black"], 4),
        (["red", "black", "red", "black", "red", "black"], 4),  # 4 or more groups pay 4
    ],
)
def test_race_coins_small_cases_r_race_2(colours, coins):
    assert race_coins(colours) == coins


colour_lists = st.lists(st.sampled_from(["red", "black"]), max_size=14)


@given(colour_lists)
def test_race_coins_property_r_race_1_r_race_2(colours):
    # R-RACE-1/2: coins = number of unbroken colour runs, capped at 4; one card pays 0.
    expected = 0 if len(colours) < 2 else min(runs(colours), 4)
    assert race_coins(colours) == expected
    # Symmetries: swapping the colours or reading the field the other way round does not
    # change the number of runs.
    swapped = ["black" if c == "red" else "red" for c in colours]
    assert race_coins(swapped) == expected
    assert race_coins(colours[::-1]) == expected
    # Planting one more card never lowers the payout.
    for extra in ("red", "black"):
        assert race_coins([*colours, extra]) >= expected


@settings(max_examples=60, deadline=None)
@given(st.permutations(SPIDERS), st.integers(min_value=1, max_value=6))
def test_field_payout_follows_planting_order_property_r_race_1(order, k):
    # R-RACE-1: a field keeps its planting order; the payout counts runs in that order.
    cards = list(order[:k])
    game = Game.new(FK, 4, seed=0)
    stage_field(game, 1, 0, cards)
    colours = kinds(game, cards)
    expected = 0 if k < 2 else min(runs(colours), 4)
    assert game.view(0).seats[1].payouts[0] == expected
    assert_conserved(game)


# ---------------------------------------------------------------------------- real fields


def grow_field(colours: list[str]) -> tuple[Game, list[int]]:
    """Seat 0 grows ``colours`` on field 0 with real actions in its first turn: the first
    two from its hand (phase 1), the next two turned over and kept (phase 2), a fifth as
    a gift from seat 1; phase 3 plants them in the given order."""
    cards = pick(colours)
    hand0 = cards[:2] + ["cowboy"] * 3
    hand1 = cards[4:5]
    game = deal(FK, 4, hands=[hand0, hand1], pile=cards[2:4], fill=FASOLKI_FILL, fill_all=True)
    plant(game, 0, 0)
    assert game.drawn == cards[2:4]
    if len(cards) > 4:
        oid = propose(game, 1, Offer(0, (cards[4],), (), (colours[4],)))
        game.apply(0, Action.accept(oid, ()))
    game.apply(0, Action.end_trading())
    for c in cards[2:]:
        game.apply(0, Action.plant_traded(c, 0))
    assert game.active == 1  # phase 4 done, seat 1's turn
    return game, cards


@pytest.mark.parametrize(("colours", "coins"), PRINTED)
def test_printed_examples_on_real_fields_r_race_1_r_race_2(colours, coins):
    # R-RACE-1/2: the printed examples grown by real planting, then harvested.
    game, cards = grow_field(colours)
    assert game.fields[0][0] == cards  # the planting order is kept
    assert kinds(game, game.fields[0][0]) == colours
    for viewer in (0, 1, None):
        assert game.view(viewer).seats[0].payouts[0] == coins
    game.apply(0, Action.harvest(0))  # out of turn (R-HARV-1)
    assert len(game.treasury[0]) == coins
    assert game.treasury[0] == cards[len(cards) - coins :]  # the top cards are the coins
    assert game.discard[-(len(cards) - coins) :] == cards[: len(cards) - coins]
    assert game.fields[0][0] == []
    assert_conserved(game)


def test_single_spider_pays_nothing_r_race_2():
    game = deal(FK, 4, hands=[[RED[0], BLACK[0], "cowboy"]], fill=FASOLKI_FILL, fill_all=True)
    plant(game, 0, 1)
    assert game.view(0).seats[0].payouts == (0, 0)
    game.apply(0, Action.harvest(0))
    assert game.treasury[0] == []


def test_group_needs_unbroken_run_r_race_1():
    # R-RACE-1: red, black, red, red is three groups, not "red and black" (= 2 groups).
    game, _ = grow_field(["red", "black", "red", "red"])
    assert game.view(0).seats[0].payouts[0] == 3


# ---------------------------------------------------------------------------- R-BLUFF-1 / 2


def bluff_game() -> Game:
    """Seat 0 is trading (it planted a Cowboy; Hippie and Boxer are turned over); seat 1
    holds a black and a red Fasolkopajak, no other spider is visible anywhere."""
    game = deal(
        FK,
        4,
        hands=[["cowboy"] * 5, [BLACK[0], RED[0], "golas", "golas", "golas"]],
        pile=["hippie", "boxer"],
        fill=FASOLKI_FILL,
        fill_all=True,
    )
    plant(game, 0, 0)
    assert game.phase == "trade"
    return game


def test_black_card_may_be_declared_red_and_is_shown_as_declared_r_bluff_1():
    # R-BLUFF-1: a black card may be declared red; others see only "Fasolkopajak, red".
    game = bluff_game()
    black = BLACK[0]
    events = game.apply(1, Action.propose(Offer(0, (black,), (("hippie", 1),), ("red",))))
    oid = max(game.offers)
    for viewer in (0, 2, 3, None):
        view = game.view(viewer)
        (offer,) = view.offers
        assert offer.give == (None,)
        assert offer.shown == ({"variety": "fasolkopajak", "declared": "red"},)
        data = view.to_json()
        assert black not in card_ids_in_json(data)
        assert "black" not in dumps(data)  # the true colour appears nowhere
        for ev in events:
            shown = ev.for_seat(viewer)
            assert "black" not in dumps(shown)
            assert black not in card_ids_in_json(shown)
            assert str(black) not in dumps(shown.get("give_cards", []))
    # The proposer itself sees its own card.
    mine = game.view(1).offers[0]
    assert mine.give == (black,)
    # Legal answers for the receiver do not leak the id either (it chooses only its side).
    assert all(black not in a.cards for a in game.legal_actions(0) if a.offer_id == oid)
    assert_conserved(game)


def test_true_colour_is_revealed_to_everyone_after_the_trade_r_bluff_2():
    # R-BLUFF-2: once the transfer is completed the true colour is public; a lie has no
    # penalty.
    game = bluff_game()
    black = BLACK[0]
    oid = propose(game, 1, Offer(0, (black,), (("hippie", 1),), ("red",)))
    hippie = game.drawn[0]
    events = game.apply(0, Action.accept(oid, (hippie,)))
    assert black in game.trade[0]
    reveal = [e for e in events if e.type == "reveal"]
    assert len(reveal) == 1
    for viewer in (0, 1, 2, 3, None):
        shown = reveal[0].for_seat(viewer)
        assert shown["card"] == black
        assert shown["colour"] == "black"
        assert shown["declared"] == "red"
        assert shown["bluff"] is True
        data = game.view(viewer).to_json()
        area = data["seats"][0]["trade_area"]
        assert {"id": black, "variety": "fasolkopajak", "kind": "black"} in area
    # No penalty: the trade stands, seat 1 got its Hippie, nobody lost coins.
    assert hippie in game.trade[1]
    assert [len(t) for t in game.treasury] == [0, 0, 0, 0]
    assert_conserved(game)


def test_black_card_may_be_declared_black_r_bluff_1():
    game = bluff_game()
    propose(game, 1, Offer(0, (BLACK[0],), (), ("black",)))
    assert game.view(0).offers[0].shown == ({"variety": "fasolkopajak", "declared": "black"},)


def test_red_card_declared_black_is_refused_r_bluff_1():
    # R-BLUFF-1: a red card must be declared red.
    game = bluff_game()
    msg = assert_illegal(
        game, 1, Action.propose(Offer(0, (RED[0],), (("hippie", 1),), ("black",))), "R-BLUFF-1"
    )
    assert "red" in str(msg)
    game.apply(1, Action.propose(Offer(0, (RED[0],), (("hippie", 1),), ("red",))))
    assert game.view(0).offers[0].shown == ({"variety": "fasolkopajak", "declared": "red"},)


def test_red_card_offered_without_claim_shows_red_r_bluff_1():
    # R-BLUFF-1: a red card is always announced red, even with no explicit claim.
    game = bluff_game()
    propose(game, 1, Offer(0, (RED[0],), ()))
    assert game.view(0).offers[0].shown == ({"variety": "fasolkopajak", "declared": "red"},)
    assert RED[0] not in card_ids_in_json(game.view(0).to_json())


@pytest.mark.parametrize("claim", ["green", "lady", "RED"])
def test_only_red_or_black_may_be_declared_r_bluff_1(claim):
    game = bluff_game()
    assert_illegal(game, 1, Action.propose(Offer(0, (BLACK[0],), (), (claim,))), "R-BLUFF-1")


def test_declaring_another_variety_is_refused_r_bluff_1():
    game = bluff_game()
    golas = game.hands[1][2]
    assert_illegal(game, 1, Action.propose(Offer(0, (golas,), (), ("red",))), "R-BLUFF-1")


def test_drawn_cards_show_their_true_colour_r_bluff_2():
    # R-BLUFF-2: drawn (face-up) cards show their true colour; nothing may be declared.
    game = deal(
        FK, 4, hands=[["cowboy"] * 5], pile=[BLACK[1], RED[1]], fill=FASOLKI_FILL, fill_all=True
    )
    plant(game, 0, 0)
    black, red = game.drawn
    for viewer in (1, None):
        data = game.view(viewer).to_json()
        assert {"id": black, "variety": "fasolkopajak", "kind": "black"} in data["drawn"]
        assert {"id": red, "variety": "fasolkopajak", "kind": "red"} in data["drawn"]
    assert_illegal(game, 0, Action.propose(Offer(1, (black,), (), ("red",))), "R-BLUFF-2")
    events = game.apply(0, Action.propose(Offer(1, (black,), ())))
    (offer,) = game.view(1).offers
    assert offer.give == (black,)
    shown = next(e for e in events if e.type == "offer").for_seat(1)
    assert shown["give"] == [{"card": black, "variety": "fasolkopajak", "kind": "black"}]


def test_declared_offer_is_refused_with_invalid_offer_class_r_bluff_1():
    game = bluff_game()
    before = game.to_dict()
    with pytest.raises(InvalidOffer):
        game.apply(1, Action.propose(Offer(0, (RED[0],), (), ("black",))))
    assert game.to_dict() == before


def test_declined_or_withdrawn_bluff_stays_hidden_r_bluff_2():
    # R-BLUFF-2: the colour is revealed only when a transfer is completed; an offer that
    # is declined or withdrawn reveals nothing.
    game = bluff_game()
    black = BLACK[0]
    oid = propose(game, 1, Offer(0, (black,), (("hippie", 1),), ("red",)))
    events = game.apply(0, Action.decline(oid))
    oid = propose(game, 1, Offer(0, (black,), (), ("red",)))
    events += game.apply(1, Action.withdraw(oid))
    assert black in game.hands[1]
    for viewer in (0, 2, None):
        assert "black" not in dumps([e.for_seat(viewer) for e in events])
        data = game.view(viewer).to_json()
        assert "black" not in dumps(data) and black not in card_ids_in_json(data)
    assert not [e for e in events if e.type == "reveal"]


def test_active_player_bluffs_with_a_hand_card_r_bluff_1():
    # R-BLUFF-1 applies to any hand card offered, also by the active player.
    game = deal(
        FK,
        4,
        hands=[["cowboy", BLACK[2]]],
        pile=["hippie", "boxer"],
        fill=FASOLKI_FILL,
        fill_all=True,
    )
    plant(game, 0)
    propose(game, 0, Offer(2, (BLACK[2],), (), ("red",)))
    for viewer in (1, 2, 3):
        (offer,) = game.view(viewer).offers
        assert offer.give == (None,)
        assert offer.shown == ({"variety": "fasolkopajak", "declared": "red"},)
        assert "black" not in dumps(game.view(viewer).to_json())
    events = game.apply(2, Action.accept(max(game.offers), ()))
    assert game.trade[2] == [BLACK[2]]
    assert [e.for_seat(3)["colour"] for e in events if e.type == "reveal"] == ["black"]
