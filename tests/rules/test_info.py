"""Information rules (R-INFO-1…3), error messages, and random-play invariants."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bohnanza import Action, Game, IllegalAction, InvalidOffer, NotYourTurn, Offer
from bohnanza.testing.helpers import (
    PLANT,
    PLANT_TRADED,
    TRADE,
    assert_conserved,
    card_ids_in_json,
    deal,
    find,
    plant,
)

HANDS = [
    ["garden", "garden", "stink", "green", "soy"],
    ["red", "wax", "garden", "blue", "black-eyed"],
    ["green", "green", "soy", "red", "cocoa"],
    ["stink", "stink", "chili", "chili", "wax"],
]
PILE = ["garden", "red", "soy", "cocoa", "blue"]


def busy_game() -> Game:
    """Phase 2 of turn 1 with coins, a bought-nothing treasury, trade areas and offers.

    Seat 0 grew Garden ×2; seat 1 gave it a Garden (now in its trade area); seat 0
    harvested Garden ×2 for 2 coins; seat 1 and seat 0 have open offers.
    """
    game = deal(hands=HANDS, pile=PILE)
    plant(game, 0, 0)
    game.apply(0, Action.harvest(0))
    game.apply(1, Action.propose(Offer(0, (find(game, 1, "garden"),))))
    game.apply(0, Action.accept(max(game.offers), ()))
    game.apply(1, Action.propose(Offer(0, (find(game, 1, "blue"),), (("soy", 1),))))
    game.apply(0, Action.propose(Offer(2, (game.drawn[1], find(game, 0, "soy")), (("cocoa", 1),))))
    assert game.phase == TRADE and len(game.offers) == 2
    return game


def private_ids(game: Game, viewer: int | None) -> set[int]:
    """Cards ``viewer`` may not see: others' hands and treasuries, the draw pile."""
    out = set(game.draw)
    for s in range(game.players):
        if s != viewer:
            out |= set(game.hands[s]) | set(game.treasury[s])
    return out


# ---------------------------------------------------------------------------- R-INFO-1


@pytest.mark.parametrize("viewer", [0, 1, 2, 3, None])
def test_public_information_is_in_every_view_r_info_1(viewer):
    # R-INFO-1: fields (with order), coins, third fields, hand sizes, pile sizes, the
    # discard pile's top card, drawn cards, trade areas, run-outs.
    game = busy_game()
    view = game.view(viewer)
    assert view.phase == TRADE and view.active == 0
    for s in range(4):
        seat = view.seats[s]
        assert seat.fields == tuple(tuple(f) for f in game.fields[s])
        assert len(seat.fields) == len(game.fields[s])
        assert seat.coins == len(game.treasury[s])
        assert seat.hand_size == len(game.hands[s])
        assert seat.trade_area == tuple(game.trade[s])
    assert view.seats[0].coins == 2
    assert view.seats[0].trade_area == (game.trade[0][0],)
    assert view.draw_size == len(game.draw)
    assert view.discard_size == len(game.discard) == 0
    assert view.discard_top is None
    assert view.drawn == tuple(game.drawn)
    assert view.runouts == 0
    assert view.third_fields_left == 7
    data = view.to_json()
    assert json.loads(json.dumps(data)) == data
    assert data["seats"][0]["coins"] == 2


def test_the_discard_top_and_completed_trades_are_public_r_info_1():
    # R-INFO-1: the discard pile's top card and all completed transfers.
    game = deal(hands=[["blue", "chili", "soy", "soy", "soy"]], pile=["wax", "red"], fill="stink")
    plant(game, 0, 1)
    game.apply(0, Action.harvest(0))
    for viewer in (1, None):
        assert game.view(viewer).discard_top == game.discard[-1]
        assert game.view(viewer).to_json()["discard_top"]["variety"] == "blue"
    events = game.apply(0, Action.propose(Offer(1, (game.hands[0][0],))))
    events += game.apply(1, Action.accept(max(game.offers), ()))
    trade = next(e for e in events if e.type == "trade")
    soy = game.trade[1][0]
    for viewer in (0, 1, 2, None):
        assert trade.for_seat(viewer)["gave"] == [soy]


# ---------------------------------------------------------------------------- R-INFO-2


def test_a_hand_is_seen_only_by_its_owner_r_info_2():
    # R-INFO-2: the contents and order of a hand, to its owner only.
    game = busy_game()
    for k in range(4):
        view = game.view(k)
        assert view.hand == tuple(game.hands[k])
        ids = card_ids_in_json(view.to_json())
        for j in range(4):
            if j != k:
                assert not ids & set(game.hands[j]), (k, j)
        assert set(game.hands[k]) <= ids


def test_the_spectator_sees_no_hand_r_info_2():
    game = busy_game()
    view = game.view(None)
    assert view.hand is None
    data = view.to_json()
    assert data["hand"] is None
    assert not card_ids_in_json(data) & {c for h in game.hands for c in h}
    assert [s["hand_size"] for s in data["seats"]] == [len(h) for h in game.hands]


def test_treasury_cards_and_draw_order_are_private_r_info_2():
    # R-INFO-2: a treasury's cards and the draw pile's order are shown to nobody.
    game = busy_game()
    assert len(game.treasury[0]) == 2
    for viewer in (0, 1, 2, 3, None):
        data = game.view(viewer).to_json()
        ids = card_ids_in_json(data)
        assert not ids & set(game.treasury[0])
        assert not ids & set(game.draw)
        assert data["seats"][0]["coins"] == 2
        assert data["draw_size"] == len(game.draw)


def test_an_offered_hand_card_shows_its_variety_but_not_its_id_r_info_2():
    # R-INFO-2/3: a card offered from a hand is shown without its id to others; drawn
    # cards are face up anyway; the proposer sees its own cards.
    game = busy_game()
    blue = find(game, 1, "blue")
    for viewer in (0, 2, 3, None):
        offer = next(o for o in game.view(viewer).offers if o.proposer == 1)
        assert offer.give == (None,)
        assert offer.shown[0]["variety"] == "blue"
        assert blue not in card_ids_in_json(game.view(viewer).to_json())
    own = next(o for o in game.view(1).offers if o.proposer == 1)
    assert own.give == (blue,)
    drawn_red = game.drawn[1]
    soy = game.hands[0][2]
    for viewer in (1, 2, 3, None):
        offer = next(o for o in game.view(viewer).offers if o.proposer == 0)
        assert offer.give == (drawn_red, None)
    assert next(o for o in game.view(0).offers if o.proposer == 0).give == (drawn_red, soy)


# ---------------------------------------------------------------------------- R-INFO-3


def test_events_show_private_parts_to_their_owner_only_r_info_3():
    # R-INFO-3: no interface reveals private information: a drawn card to its drawer, an
    # offer's hand cards to its proposer.
    game = deal(hands=HANDS, pile=PILE)
    plant(game, 0)
    events = game.apply(1, Action.propose(Offer(0, (find(game, 1, "wax"),))))
    offer = events[0]
    wax = find(game, 1, "wax")
    assert offer.for_seat(1)["give_cards"] == [wax]
    for viewer in (0, 2, 3, None):
        shown = offer.for_seat(viewer)
        assert "give_cards" not in shown
        assert shown["give"] == [{"variety": "wax"}]
    events = game.apply(0, Action.end_trading())
    garden, red = game.trade[0]
    events += game.apply(0, Action.plant_traded(garden, 0))
    events += game.apply(0, Action.plant_traded(red, 1))
    draws = [e for e in events if e.type == "draw"]
    assert len(draws) == 3
    for e in draws:
        assert e.for_seat(0)["card"] in game.hands[0]
        for viewer in (1, 2, 3, None):
            assert "card" not in e.for_seat(viewer)


# ---------------------------------------------------------------------------- error messages


def _refused(rule: str) -> tuple[Game, int, Action]:
    """A game and an action of a seat that ``rule`` forbids."""
    game = deal(hands=HANDS, pile=["chili", "wax"])
    if rule == "R-PLANT-1":
        return game, 0, Action.stop_planting()
    if rule == "R-FIELD-2":
        return game, 0, Action.buy_field()
    plant(game, 0, 0)  # Garden ×2
    if rule == "R-TRADE-2":
        return game, 1, Action.propose(Offer(2, (game.hands[1][0],)))
    if rule == "R-TRADE-6":
        return game, 1, Action.end_trading()
    game.apply(0, Action.end_trading())
    if rule == "R-PLANT-3":
        return game, 0, Action.plant_traded(game.trade[0][0], 0)  # Chili on Garden
    assert rule == "R-HARV-3"
    game.apply(0, Action.plant_traded(game.trade[0][0], 1))  # Chili ×1 beside Garden ×2
    return game, 0, Action.harvest(1)


REFUSED = [
    ("R-PLANT-1", IllegalAction),
    ("R-PLANT-3", IllegalAction),
    ("R-HARV-3", IllegalAction),
    ("R-TRADE-2", InvalidOffer),
    ("R-TRADE-6", NotYourTurn),
    ("R-FIELD-2", IllegalAction),
]


@pytest.mark.parametrize(("rule", "exc"), REFUSED)
def test_illegal_actions_name_their_rule_in_the_message(rule, exc):
    # DESIGN-NOTES: messages say who, what, why, and the rule ID; nothing changes.
    game, seat, action = _refused(rule)
    before = game.to_dict()
    with pytest.raises(exc) as info:
        game.apply(seat, action)
    assert game.to_dict() == before
    assert rule in str(info.value)
    assert f"seat {seat}" in str(info.value)
    assert info.value.seat == seat


@pytest.mark.parametrize(("rule", "exc"), REFUSED)
def test_illegal_actions_carry_their_rule_id(rule, exc):
    # errors.IllegalAction: "``rule`` names the RULES.md rule that forbids it".
    game, seat, action = _refused(rule)
    with pytest.raises(exc) as info:
        game.apply(seat, action)
    assert info.value.rule == rule


# ---------------------------------------------------------------------------- random play


def random_action(game: Game, rng: random.Random) -> tuple[int, Action] | None:
    """Some legal action of some seat: usually whoever the game waits for."""
    n = game.players
    if game.phase == TRADE and rng.random() < 0.2:
        return game.active, Action.end_trading()
    waiting = game.waiting_for()
    seat = waiting[0] if waiting and rng.random() < 0.7 else rng.randrange(n)
    legal = game.legal_actions(seat)
    if not legal:
        return None
    return seat, rng.choice(legal)


def check_hands(before: Game, after: Game, seat: int, action: Action) -> None:
    """R-SETUP-3 / R-TRADE-1/3/5: hands keep their order; cards leave from anywhere only
    by planting (the front) or trading; new cards come from the piles, to the back."""
    for s in range(after.players):
        old, new = before.hands[s], after.hands[s]
        kept = [c for c in new if c in old]
        added = new[len(kept) :]
        assert new == kept + added, f"seat {s}: new cards not at the back"
        assert set(added) <= set(before.draw) | set(before.discard), "a hand got a non-pile card"
        it = iter(old)
        assert all(c in it for c in kept), f"seat {s}: hand order changed"
        if action.type.value == "plant" and s == seat:
            assert kept == old[1:]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31),
    setup=st.sampled_from(
        [("classic", 3), ("classic", 4), ("classic", 6), ("first-edition", 5), ("fasolki", 4)]
    ),
)
def test_random_play_keeps_every_invariant_r_info_3_r_setup_3(seed, setup):
    # R-INFO-3: no view shows another seat's hand or treasury or the draw pile; §2b:
    # every card in one place; R-SETUP-3: hand order; illegal actions change nothing.
    rules, players = setup
    rng = random.Random(seed)
    game = Game.new(rules, players, seed=seed)
    for _ in range(250):
        if game.over:
            break
        choice = random_action(game, rng)
        if choice is None:
            continue
        seat, action = choice
        before = game.clone()
        game.apply(seat, action)
        assert_conserved(game)
        check_hands(before, game, seat, action)
        assert game.phase in (PLANT, TRADE, PLANT_TRADED, "over")
        for viewer in [*range(players), None]:
            ids = card_ids_in_json(game.view(viewer).to_json())
            assert not ids & private_ids(game, viewer), (viewer, action)
        # Another seat's random move that is illegal changes nothing.
        other = rng.randrange(players)
        probe = rng.choice(
            [
                Action.plant(0),
                Action.end_trading(),
                Action.stop_planting(),
                Action.harvest(rng.randrange(3)),
                Action.buy_field(),
            ]
        )
        if not game.over and not game.is_legal(other, probe):
            snapshot = game.to_dict()
            with pytest.raises(IllegalAction):
                game.apply(other, probe)
            assert game.to_dict() == snapshot
