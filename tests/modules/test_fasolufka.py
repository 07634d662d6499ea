"""Module 3, Fasolufka (RULES.md §8): men, ladies and children (R-LADY-1 … R-LADY-9)."""

from __future__ import annotations

from collections import Counter

import pytest

from bohnanza import Action, Game, Offer, make_config
from bohnanza.game import Pending
from bohnanza.modules.fasolufka import move_lady, place_child
from bohnanza.testing.helpers import (
    assert_conserved,
    assert_illegal,
    card_ids,
    card_ids_in_json,
    deal,
    dumps,
    gift,
    give_coins,
    kinds,
    pass_turn,
    plant,
    shrink_pile,
    stage_field,
)

FU = "fasolki+fasolufka"
CFG = make_config(FU, 4)
MEN = ("cowboy/man", "pyromaniac/man", "fatty/man", "drunkard/man")


def ids(variety: str, kind: str) -> list[int]:
    return card_ids(CFG, variety, kind)


def game_with(hands=(), pile=(), players: int = 4, seed: int = 0) -> Game:
    """A Fasolufka game whose hands are padded with men (no kinds to hide by accident)."""
    return deal(FU, players, hands=hands, pile=pile, fill=MEN, fill_all=True, seed=seed)


# ---------------------------------------------------------------------------- R-LADY-1


def test_deck_composition_r_lady_1():
    # R-LADY-1: men kept from the base game plus ladies and children; 110 cards.
    table = Counter((CFG.variety_of(i), CFG.card_kind[i]) for i in range(CFG.deck_size))
    men = {"cowboy": 11, "pyromaniac": 10, "fatty": 9, "drunkard": 9}
    men |= {"hippie": 8, "boxer": 7, "golas": 5, "gardener": 4}
    ladies = {"cowboy": 5, "pyromaniac": 4, "fatty": 4, "drunkard": 3}
    ladies |= {"hippie": 2, "boxer": 2, "golas": 1, "gardener": 1}
    children = {"cowboy": 5, "pyromaniac": 5, "fatty": 4, "drunkard": 3}
    children |= {"hippie": 3, "boxer": 2, "golas": 2, "gardener": 1}
    for v in men:
        assert table[(v, "man")] == men[v], v
        assert table[(v, "lady")] == ladies[v], v
        assert table[(v, "child")] == children[v], v
    totals = Counter(CFG.variety_of(i) for i in range(CFG.deck_size))
    assert totals == {
        "cowboy": 21,
        "pyromaniac": 19,
        "fatty": 17,
        "drunkard": 15,
        "hippie": 13,
        "boxer": 11,
        "golas": 8,
        "gardener": 6,
    }
    assert CFG.deck_size == 110
    assert set(CFG.card_kind) == {"man", "lady", "child"}


# ---------------------------------------------------------------------------- R-LADY-2


def test_men_ladies_children_share_a_field_new_card_on_top_r_lady_2():
    # R-LADY-2: one variety's men, ladies and children share a field; each new card goes
    # on top (the end of the bottom→top list).
    man, lady, child = ids("fatty", "man")[0], ids("fatty", "lady")[0], ids("fatty", "child")[0]
    game = game_with(hands=[[lady, man]], pile=[child, "hippie/man"])
    plant(game, 0, 0)
    assert game.fields[0][0] == [lady, man]
    game.apply(0, Action.end_trading())
    game.apply(0, Action.plant_traded(child, 0))
    assert game.fields[0][0] == [lady, man, child]
    # The child has a lady below it: its owner declines the move (R-LADY-8).
    assert game.pending == Pending(0, "move_lady", field=0, child=child)
    game.apply(0, move_lady(None))
    assert game.fields[0][0] == [lady, man, child]
    # A card of another variety may not join the field, whatever its kind (R-PLANT-3).
    hippie = game.trade[0][0]
    assert_illegal(game, 0, Action.plant_traded(hippie, 0))
    game.apply(0, Action.plant_traded(hippie, 1))
    assert_conserved(game)


# ---------------------------------------------------------------------------- R-LADY-3 / 4


def harvest_staged(cards: list[int], seat: int = 1) -> tuple[Game, int, list[int]]:
    """Stage ``cards`` (bottom first) on a field of ``seat``, harvest it with a real action
    and return the game, the coins shown before, and the new treasury."""
    game = Game.new(FU, 4, seed=1)
    stage_field(game, seat, 0, cards)
    shown = game.view(0).seats[seat].payouts[0]
    discard = list(game.discard)
    game.apply(seat, Action.harvest(0))
    coins = list(game.treasury[seat])
    assert len(coins) == shown
    assert coins == cards[len(cards) - shown :]  # the coins are the top cards
    assert game.discard == discard + cards[: len(cards) - shown]
    assert_conserved(game)
    return game, shown, coins


def test_lady_on_top_pays_by_her_beanometer_r_lady_3():
    # R-LADY-3/4: Cowboy lady 3/4/6/8; 3 men + lady = 4 cards pay 2 (a man on top: 1).
    m = ids("cowboy", "man")
    lady = ids("cowboy", "lady")[0]
    _, shown, coins = harvest_staged([m[0], m[1], m[2], lady])
    assert shown == 2
    assert coins == [m[2], lady]


def test_man_on_top_pays_by_the_man_beanometer_r_lady_3():
    # R-LADY-3: the top card decides; a lady lower down does not count.
    m = ids("cowboy", "man")
    lady = ids("cowboy", "lady")[0]
    _, shown, _ = harvest_staged([lady, m[0], m[1], m[2]])
    assert shown == 1  # Cowboy man 4/6/8/10: 4 cards pay 1


def test_child_on_top_pays_nothing_r_lady_3():
    # R-LADY-3: a child on top pays nothing, however many cards lie below it.
    m = ids("cowboy", "man")
    child = ids("cowboy", "child")[0]
    game, shown, coins = harvest_staged([*m[:8], child])
    assert shown == 0 and coins == []
    assert game.discard[-1] == child


def test_count_includes_children_and_ladies_r_lady_3():
    # R-LADY-3: the beanometer applies to all the field's cards, children included.
    c = ids("pyromaniac", "child")
    lady = ids("pyromaniac", "lady")[0]
    man = ids("pyromaniac", "man")[0]
    _, shown, _ = harvest_staged([c[0], c[1], lady, man])
    assert shown == 1  # Pyromaniac man 3/6/8/9: 4 cards pay 1
    _, shown, _ = harvest_staged([c[0], c[1], c[2], c[3], c[4], man])
    assert shown == 2  # 6 cards pay 2


LADY_BEANOMETERS = {
    "cowboy": (3, 4, 6, 8),
    "pyromaniac": (2, 4, 6, 7),
    "fatty": (2, 3, 5, 6),
    "drunkard": (2, 3, 4, 5),
    "hippie": (1, 2, 4, 5),
    "boxer": (1, 2, 3, 4),
    "golas": (1, 2, 3, 4),
}


@pytest.mark.parametrize("variety", sorted(LADY_BEANOMETERS))
def test_lady_beanometers_r_lady_4(variety):
    # R-LADY-4 (assumed card data): beans for 1/2/3/4 coins with a lady on top.
    lady = ids(variety, "lady")[0]
    others = ids(variety, "man") + ids(variety, "child")
    for level, needed in enumerate(LADY_BEANOMETERS[variety], start=1):
        for n, coins in ((needed, level), (needed - 1, level - 1)):
            if n < 1:
                continue
            game = Game.new(FU, 4, seed=2)
            stage_field(game, 2, 1, [*others[: n - 1], lady])
            assert game.view(3).seats[2].payouts[1] == coins, (variety, n)
    # One real harvest at the 4-coin level.
    n = LADY_BEANOMETERS[variety][3]
    _, shown, _ = harvest_staged([*others[: n - 1], lady])
    assert shown == 4


# ---------------------------------------------------------------------------- R-LADY-5

G_MEN = ids("gardener", "man")
G_LADY = ids("gardener", "lady")[0]
G_CHILD = ids("gardener", "child")[0]


def gardener_game(field: list[int], discard: int, draw: int | None = None) -> Game:
    """Seat 1's field 0 holds ``field``; the discard pile holds ``discard`` cards (taken from
    the bottom of the draw pile); with ``draw``, only that many cards stay on the draw
    pile (the rest leave the game)."""
    game = Game.new(FU, 4, seed=4)
    stage_field(game, 1, 0, field)
    for _ in range(discard):
        game.discard.append(game.draw.pop(0))
    if draw is not None:
        shrink_pile(game, draw, to="out")
    assert_conserved(game)
    return game


def test_four_gardeners_with_lady_on_top_pay_five_from_the_discard_pile_r_lady_5():
    # R-LADY-5, printed in 000: 4 Gardeners (lady on top) pay 5 coins from the discard pile.
    field = [*G_MEN[:3], G_LADY]
    game = gardener_game(field, discard=7)
    assert game.view(0).seats[1].payouts[0] == 5
    old = list(game.discard)
    draw = list(game.draw)
    game.apply(1, Action.harvest(0))
    assert sorted(game.treasury[1]) == sorted(old[-5:])  # the top 5 of the discard pile
    assert game.discard == old[:-5] + field  # then all field cards go to the discard pile
    assert game.draw == draw
    assert game.fields[1][0] == []
    assert_conserved(game)


@pytest.mark.parametrize(
    ("field", "coins"),
    [
        ([G_LADY], 2),
        ([G_MEN[0], G_LADY], 3),
        ([*G_MEN[:4], G_LADY], 6),  # no 4-coin cap
        ([*G_MEN[:4], G_CHILD, G_LADY], 7),
    ],
)
def test_gardener_lady_pays_n_plus_one_uncapped_r_lady_5(field, coins):
    # R-LADY-5: N + 1 coins with no 4-coin cap (assumed except N = 4).
    game = gardener_game(field, discard=10)
    assert game.view(2).seats[1].payouts[0] == coins
    game.apply(1, Action.harvest(0))
    assert len(game.treasury[1]) == coins
    assert_conserved(game)


def test_gardener_lady_coins_continue_from_the_draw_pile_r_lady_5():
    # R-LADY-5: discard pile first (as it stood before the harvest), then the draw pile.
    field = [G_MEN[0], G_MEN[1], G_LADY]  # N = 3: 4 coins
    game = gardener_game(field, discard=2)
    old = list(game.discard)
    top_two = game.draw[-2:]
    game.apply(1, Action.harvest(0))
    assert sorted(game.treasury[1]) == sorted(old + top_two)
    assert game.discard == field  # the field's own cards are not used as coins
    assert_conserved(game)


def test_gardener_lady_coins_can_run_the_pile_out_r_lady_5_r_end_1():
    # R-LADY-5 with R-END-1: taking the draw pile's last card as a coin is a run-out; the
    # reshuffle waits until a card is next needed.
    game = gardener_game([G_LADY], discard=0, draw=2)
    pile = list(game.draw)
    game.apply(1, Action.harvest(0))
    assert sorted(game.treasury[1]) == sorted(pile)
    assert game.runouts == 1 and not game.final_runout
    assert game.draw == [] and game.discard == [G_LADY]
    assert_conserved(game)


def test_gardener_lady_gets_fewer_coins_when_both_piles_run_short_r_lady_5():
    # R-LADY-5: if both piles run short the owner gets fewer. Here the one pile card is
    # taken (a run-out) and the next coin finds both piles empty: the final run-out
    # (R-END-1); play goes on to the end of the active player's phase 3 (R-END-2).
    game = gardener_game([G_MEN[0], G_LADY], discard=0, draw=1)
    pile = list(game.draw)
    game.apply(1, Action.harvest(0))  # in seat 0's phase 1
    assert game.treasury[1] == pile
    assert game.final_runout and not game.over
    assert game.discard == [G_MEN[0], G_LADY]
    plant(game, 0)
    assert game.drawn == []  # nothing left to turn over, no reshuffle
    game.apply(0, Action.end_trading())
    assert game.over
    assert game.result()["scores"][1] == 1
    assert_conserved(game)


def test_final_harvests_start_with_the_active_player_r_end_5_r_lady_5():
    # R-END-5: the final harvests go in turn order from the active player, each player's
    # fields in order. The game ends in seat 1's turn, so seat 1's Gardener lady (R-LADY-5)
    # is harvested before seat 0's Fatties: her coins are the top of the discard pile as it
    # stood at the end, not the Fatties that seat 0's harvest puts there. (The deck holds
    # one Gardener lady, R-LADY-1; the other final harvest is what feeds the pile.)
    others = ("pyromaniac/man", "drunkard/man", "hippie/man", "boxer/man")
    game = deal(
        FU,
        4,
        hands=[["fatty/man"], ["cowboy/man"]],
        # Seat 0's turn: 2 turned over, 3 drawn; seat 1's: 2 turned over, 3 drawn.
        pile=["fatty/man", "fatty/man", *others[:3], "cowboy/man", "cowboy/man", *others[:3]],
        fill=others,
        fill_all=True,
        fields={0: [["fatty/man"] * 3], 1: [["gardener/man", "gardener/lady"]]},
    )
    shrink_pile(game, 10)
    game.runouts = 2
    pass_turn(game)  # seat 0 plants a Fatty and keeps two more: six Fatties pay 2 coins
    assert game.active == 1 and game.treasury == [[], [], [], []]
    plant(game, 1)
    game.apply(1, Action.end_trading())
    before_end = list(game.discard)
    events: list = []
    for card in list(game.trade[1]):
        events += game.apply(1, Action.plant_traded(card, 1))
    assert game.over and game.final_runout  # in seat 1's phase 4 (R-END-2)
    finals = [(e.seat, e.data["field"]) for e in events if e.type == "harvest"]
    assert finals == [(1, 0), (1, 1), (0, 0)]
    # N = 2 cards: 3 coins, the top three of the discard pile as it stood.
    assert sorted(game.treasury[1]) == sorted(before_end[-3:])
    assert kinds(game, game.treasury[0]) == ["man", "man"]
    assert len(game.treasury[0]) == 2
    assert_conserved(game)


# ---------------------------------------------------------------------------- R-LADY-6


def test_offered_hand_card_shows_only_its_variety_r_lady_6():
    # R-LADY-6: the receiver (and everybody else) sees only the variety of an offered hand
    # card until the transfer completes; never man, lady or child.
    lady = ids("golas", "lady")[0]
    game = game_with(hands=[[], ["cowboy/man", lady]], pile=["hippie/man", "boxer/man"])
    plant(game, 0)
    events = game.apply(1, Action.propose(Offer(0, (lady,), (("hippie", 1),))))
    for viewer in (0, 2, 3, None):
        view = game.view(viewer)
        (offer,) = view.offers
        assert offer.give == (None,)
        assert offer.shown == ({"variety": "golas"},)
        data = view.to_json()
        assert data["offers"][0]["give"] == [{"variety": "golas"}]
        assert lady not in card_ids_in_json(data)
        assert "lady" not in dumps(data)  # every other visible card is a man
        for ev in events:
            shown = ev.for_seat(viewer)
            assert "lady" not in dumps(shown)
            assert lady not in card_ids_in_json(shown)
            assert lady not in shown.get("give_cards", [])
    # After the trade the kind is public (the card lies in seat 0's trade area).
    hippie = game.drawn[0]
    game.apply(0, Action.accept(max(game.offers), (hippie,)))
    for viewer in (0, 2, None):
        area = game.view(viewer).to_json()["seats"][0]["trade_area"]
        assert {"id": lady, "variety": "golas", "kind": "lady"} in area
    assert_conserved(game)


@pytest.mark.parametrize("claim", ["lady", "man", "child", "red"])
def test_kind_may_not_be_declared_r_lady_6(claim):
    # R-LADY-6: a player may never say whether the card is a man, lady or child.
    lady = ids("golas", "lady")[0]
    game = game_with(hands=[[], [lady]])
    plant(game, 0)
    assert_illegal(game, 1, Action.propose(Offer(0, (lady,), (), (claim,))))


def test_drawn_cards_show_their_kind_r_lady_6():
    # R-LADY-6: drawn (face-up) cards show their kind, also when offered.
    child, lady = ids("hippie", "child")[0], ids("boxer", "lady")[0]
    game = game_with(pile=[child, lady])
    plant(game, 0)
    for viewer in (1, None):
        data = game.view(viewer).to_json()
        assert data["drawn"] == [
            {"id": child, "variety": "hippie", "kind": "child"},
            {"id": lady, "variety": "boxer", "kind": "lady"},
        ]
    events = game.apply(0, Action.propose(Offer(1, (child,), ())))
    assert game.view(1).offers[0].give == (child,)
    shown = next(e for e in events if e.type == "offer").for_seat(1)
    assert shown["give"] == [{"card": child, "variety": "hippie", "kind": "child"}]


# ---------------------------------------------------------------------------- R-LADY-7


def test_received_child_goes_at_once_onto_its_field_r_lady_7():
    # R-LADY-7: a child received in phase 2 goes at once on top of the receiver's field of
    # that variety (here the only one), not into the trade area.
    man, child = ids("golas", "man")[0], ids("golas", "child")[0]
    game = game_with(hands=[[man, "cowboy/man"], [child]])
    plant(game, 0, 1)
    events = gift(game, 1, 0, [child])
    assert game.fields[0][0] == [man, child]
    assert game.trade[0] == []
    assert game.pending is None  # no lady on the field: nothing to decide
    assert any(e.type == "place_child" and e.data["field"] == 0 for e in events)
    assert game.phase == "trade"
    assert_conserved(game)


def test_received_child_with_two_matching_fields_receiver_chooses_r_lady_7():
    # R-LADY-7: with two fields of the variety the receiver chooses; nothing else may
    # happen in between (R-HARV-1).
    m = ids("golas", "man")
    child = ids("golas", "child")[0]
    game = game_with(hands=[[m[0], m[1]], [child]])
    plant(game, 0, 1)
    gift(game, 1, 0, [child])
    assert game.pending == Pending(0, "place_child", card=child)
    assert game.waiting_for() == [0]
    assert_illegal(game, 0, Action.end_trading(), "R-LADY-7")
    assert_illegal(game, 2, Action.harvest(0), "R-HARV-1")
    assert set(game.legal_actions(0)) == {
        place_child(child, 0),
        place_child(child, 1),
    }
    game.apply(0, place_child(child, 1))
    assert game.fields[0] == [[m[0]], [m[1], child]]
    assert game.pending is None and game.trade[0] == []
    assert_conserved(game)


def test_received_child_without_matching_field_waits_for_phase_3_r_lady_7():
    # R-LADY-7: with no field of its variety the child waits in the trade area and is
    # planted in phase 3.
    child = ids("hippie", "child")[0]
    game = game_with(hands=[["cowboy/man"], [child]])
    plant(game, 0)
    gift(game, 1, 0, [child])
    assert game.trade[0] == [child]
    assert game.pending is None
    game.apply(0, Action.end_trading())
    assert game.phase == "plant_traded"
    assert child in game.trade[0]
    game.apply(0, Action.plant_traded(child, 1))
    assert game.fields[0][1] == [child]
    assert_conserved(game)


def test_child_and_man_given_together_child_goes_first_r_lady_7():
    # R-LADY-7 (000's tip): given a child and a man, the child is placed at once and the
    # man only in phase 3, on top of it.
    m = ids("golas", "man")
    child = ids("golas", "child")[0]
    game = game_with(hands=[[m[0]], [m[1], child]])
    plant(game, 0)
    gift(game, 1, 0, [m[1], child])
    assert game.fields[0][0] == [m[0], child]
    assert game.trade[0] == [m[1]]
    game.apply(0, Action.end_trading())
    game.apply(0, Action.plant_traded(m[1], 0))
    assert game.fields[0][0][:3] == [m[0], child, m[1]]
    assert_conserved(game)


def test_place_child_on_wrong_field_is_refused_r_lady_7():
    m = ids("golas", "man")[0]
    child = ids("golas", "child")[0]
    game = game_with(hands=[[m, ids("golas", "man")[1]], [child]])
    plant(game, 0, 1)
    gift(game, 1, 0, [child])
    assert_illegal(game, 0, place_child(child, 2), "R-LADY-7")
    other = ids("cowboy", "child")[0]
    assert_illegal(game, 0, place_child(other, 0), "R-LADY-7")


def test_kept_drawn_child_is_planted_in_phase_3_r_lady_7():
    # R-LADY-7 covers children received in a trade or gift; a drawn child the active
    # player keeps goes to its trade area like any drawn card (R-TRADE-7).
    man, child = ids("golas", "man")[0], ids("golas", "child")[0]
    game = game_with(hands=[[man]], pile=[child, "cowboy/man"])
    plant(game, 0)
    game.apply(0, Action.end_trading())
    assert child in game.trade[0]
    assert game.fields[0][0] == [man]


# ---------------------------------------------------------------------------- R-LADY-8

GM = ids("golas", "man")
GL = ids("golas", "lady")[0]
GC = ids("golas", "child")


def lady_example() -> Game:
    """The position of 000's example, reached by real actions: seat 0's Golas field is
    man, man, lady, man, man; seat 1 is active and trading, holding both Golas children."""
    game = game_with(
        hands=[
            [GM[0], GM[1], "cowboy/man", "cowboy/man", "cowboy/man"],
            ["pyromaniac/man", GM[3], GC[0], GC[1], "fatty/man"],
        ],
        pile=[GL, GM[2]],
    )
    plant(game, 0, 0)  # man, man
    gift(game, 1, 0, [GM[3]])  # a man as a gift: to the trade area
    game.apply(0, Action.end_trading())  # the drawn lady and man are kept
    for c in (GL, GM[2], GM[3]):
        game.apply(0, Action.plant_traded(c, 0))
    assert game.active == 1
    plant(game, 0)
    assert game.phase == "trade"
    assert kinds(game, game.fields[0][0]) == ["man", "man", "lady", "man", "man"]
    return game


def test_rulebook_lady_example_two_children_r_lady_8():
    # R-LADY-8, the example of 000 (Golas): man,man,lady,man,man + child →
    # man,man,man,man,lady,child; + child → man,man,man,man,child,child,lady.
    game = lady_example()
    gift(game, 1, 0, [GC[0]])  # R-LADY-7: placed at once
    assert game.fields[0][0] == [GM[0], GM[1], GL, GM[2], GM[3], GC[0]]
    assert game.pending == Pending(0, "move_lady", field=0, child=GC[0])
    assert set(game.legal_actions(0)) == {move_lady(GL), move_lady(None)}
    game.apply(0, move_lady(GL))
    assert kinds(game, game.fields[0][0]) == ["man", "man", "man", "man", "lady", "child"]
    assert game.fields[0][0] == [GM[0], GM[1], GM[2], GM[3], GL, GC[0]]
    assert game.pending is None
    gift(game, 1, 0, [GC[1]])
    assert game.pending == Pending(0, "move_lady", field=0, child=GC[1])
    game.apply(0, move_lady(GL))
    assert kinds(game, game.fields[0][0]) == [
        "man",
        "man",
        "man",
        "man",
        "child",
        "child",
        "lady",
    ]
    assert game.fields[0][0] == [GM[0], GM[1], GM[2], GM[3], GC[0], GC[1], GL]
    # The lady's beanometer now pays (R-LADY-3/4: Golas lady, 7 cards → 4 coins).
    assert game.view(2).seats[0].payouts[0] == 4
    assert game.phase == "trade" and game.active == 1
    assert_conserved(game)


def test_skipping_a_pending_lady_move_is_refused_r_lady_8():
    # R-LADY-8 / R-HARV-1: the lady move is decided before anything else happens.
    game = lady_example()
    gift(game, 1, 0, [GC[0]])
    assert game.waiting_for() == [0]
    assert_illegal(game, 0, Action.harvest(1), "R-LADY-8")
    assert_illegal(game, 0, Action.harvest(0), "R-LADY-8")
    assert_illegal(game, 1, Action.end_trading(), "R-HARV-1")
    assert_illegal(game, 1, Action.propose(Offer(0, (GC[1],), ())), "R-HARV-1")
    assert_illegal(game, 2, Action.harvest(0), "R-HARV-1")
    assert game.legal_actions(1) == [] and game.legal_actions(2) == []
    # Only a lady below the child may move: not a man, not the child, not another card.
    assert_illegal(game, 0, move_lady(GM[0]), "R-LADY-8")
    assert_illegal(game, 0, move_lady(GC[0]), "R-LADY-8")
    assert_illegal(game, 0, move_lady(ids("cowboy", "lady")[0]), "R-LADY-8")


def test_one_move_per_child_r_lady_8():
    game = lady_example()
    gift(game, 1, 0, [GC[0]])
    game.apply(0, move_lady(GL))
    assert game.pending is None
    assert_illegal(game, 0, move_lady(GL))
    assert_illegal(game, 0, move_lady(None))


def test_lady_move_may_be_declined_r_lady_8():
    game = lady_example()
    before = list(game.fields[0][0])
    gift(game, 1, 0, [GC[0]])
    game.apply(0, move_lady(None))
    assert game.fields[0][0] == [*before, GC[0]]
    assert game.pending is None and game.phase == "trade"


def test_lady_moves_to_the_top_if_fewer_than_two_cards_above_r_lady_8():
    # R-LADY-8 in phase 1: lady, then a child from the hand; she can move only one place.
    lady, child = ids("cowboy", "lady")[0], ids("cowboy", "child")[0]
    game = game_with(hands=[[lady, child]], pile=["hippie/man", "boxer/man"])
    game.apply(0, Action.plant(0))
    game.apply(0, Action.plant(0))
    assert game.pending == Pending(0, "move_lady", field=0, child=child)
    assert game.phase == "plant" and game.drawn == []  # phase 2 waits for the decision
    game.apply(0, move_lady(lady))
    assert game.fields[0][0] == [child, lady]
    assert game.phase == "trade" and len(game.drawn) == 2  # then phase 2 starts
    assert_conserved(game)


def test_declined_move_in_phase_1_keeps_the_optional_second_plant_r_lady_8():
    # R-LADY-8 in phase 1: after the decision the turn goes on where it was.
    lady, child = ids("cowboy", "lady")[0], ids("cowboy", "child")[0]
    game = game_with(hands=[[child, "cowboy/man"]], pile=["hippie/man", "boxer/man"])
    stage_field(game, 0, 0, [lady])
    game.apply(0, Action.plant(0))
    assert game.pending == Pending(0, "move_lady", field=0, child=child)
    assert_illegal(game, 0, Action.stop_planting(), "R-LADY-8")
    assert_illegal(game, 0, Action.plant(0), "R-LADY-8")
    game.apply(0, move_lady(None))
    assert game.fields[0][0] == [lady, child]
    assert game.phase == "plant" and game.planted == 1
    game.apply(0, Action.plant(0))  # the optional second card
    assert game.phase == "trade"
    assert_conserved(game)


def test_every_lady_below_the_child_may_move_r_lady_8():
    lady, child = ids("cowboy", "lady")[0], ids("cowboy", "child")[0]
    game = game_with(hands=[[lady, child, "cowboy/man"]])
    stage_field(game, 0, 1, [ids("cowboy", "lady")[1]])
    game.apply(0, Action.plant(1))  # the lady on top of the other lady: no child, no move
    assert game.pending is None
    game.apply(0, Action.plant(1))
    assert game.pending == Pending(0, "move_lady", field=1, child=child)
    assert set(game.legal_actions(0)) == {
        move_lady(ids("cowboy", "lady")[1]),
        move_lady(lady),
        move_lady(None),
    }


def test_choose_which_lady_moves_r_lady_8():
    # R-LADY-8: the owner picks one of the ladies below the child.
    cl = ids("cowboy", "lady")
    cm = ids("cowboy", "man")
    child = ids("cowboy", "child")[0]
    game = game_with(hands=[[child]])
    stage_field(game, 0, 0, [cl[0], cm[0], cl[1]])
    game.apply(0, Action.plant(0))
    game.apply(0, move_lady(cl[0]))
    assert game.fields[0][0] == [cm[0], cl[1], cl[0], child]
    assert_conserved(game)


def test_child_without_lady_below_needs_no_decision_r_lady_8():
    cm = ids("cowboy", "man")
    child = ids("cowboy", "child")[0]
    game = game_with(hands=[[cm[0], child]])
    plant(game, 0, 0)
    assert game.pending is None
    assert game.fields[0][0] == [cm[0], child]
    assert game.phase == "trade"


def test_lady_move_in_phase_3_r_lady_8():
    # R-LADY-8 Decision: in any phase, here when a traded child is planted in phase 3.
    lady, child = ids("drunkard", "lady")[0], ids("drunkard", "child")[0]
    game = game_with(hands=[[lady]], pile=[child, "hippie/man"])
    plant(game, 0)
    game.apply(0, Action.end_trading())
    game.apply(0, Action.plant_traded(child, 0))
    assert game.pending == Pending(0, "move_lady", field=0, child=child)
    hippie = game.trade[0][0]
    assert_illegal(game, 0, Action.plant_traded(hippie, 1), "R-LADY-8")
    game.apply(0, move_lady(lady))
    assert game.fields[0][0] == [child, lady]
    game.apply(0, Action.plant_traded(hippie, 1))
    assert game.active == 1
    assert_conserved(game)


def test_second_child_of_a_gift_waits_for_the_first_lady_move_r_lady_8():
    # R-LADY-8 / R-HARV-1: "a child with its lady move" is one indivisible step, and the
    # lady moves "right after" her child is placed. With two children given at once, the
    # second is placed only after the first one's lady move: on man, lady, the first
    # child lets the lady move to the top (one place: only the child lies above her);
    # declining the second child's move leaves man, child, lady, child.
    m = ids("golas", "man")[0]
    game = game_with(hands=[[m, GL], [GC[0], GC[1]]])
    plant(game, 0, 0)
    assert game.fields[0][0] == [m, GL]
    gift(game, 1, 0, [GC[0], GC[1]])
    assert game.pending == Pending(0, "move_lady", field=0, child=GC[0])
    assert game.fields[0][0] == [m, GL, GC[0]]  # the second child is not placed yet
    game.apply(0, move_lady(GL))
    assert game.fields[0][0] == [m, GC[0], GL, GC[1]]
    game.apply(0, move_lady(None))
    assert game.fields[0][0] == [m, GC[0], GL, GC[1]]
    assert_conserved(game)


# ---------------------------------------------------------------------------- R-LADY-9


def test_third_field_only_in_own_turn_r_lady_9():
    # R-LADY-9: a third field may be bought only in one's own turn, for 3 coins.
    game = Game.new(FU, 4, seed=8)
    assert game.supply == 2  # R-SETUP-1: only 2 third-field cards
    give_coins(game, 1, 3)
    assert_illegal(game, 1, Action.buy_field(), "R-LADY-9")
    assert Action.buy_field() not in game.legal_actions(1)
    give_coins(game, 0, 2)
    assert_illegal(game, 0, Action.buy_field(), "R-FIELD-2")  # 3 coins, not 2
    give_coins(game, 0, 1)
    paid = list(game.treasury[0])
    game.apply(0, Action.buy_field())  # own turn, phase 1
    assert len(game.fields[0]) == 3 and game.treasury[0] == []
    assert game.discard[-3:] == paid
    assert game.supply == 1
    pass_turn(game)
    assert game.active == 1
    game.apply(1, Action.buy_field())
    assert game.supply == 0
    assert_conserved(game)


def test_only_two_third_fields_exist_r_lady_9():
    game = Game.new(FU, 4, seed=8)
    for seat in (0, 1, 2):
        give_coins(game, seat, 3)
    game.apply(0, Action.buy_field())
    pass_turn(game)
    game.apply(1, Action.buy_field())
    pass_turn(game)
    assert game.active == 2
    assert_illegal(game, 2, Action.buy_field(), "R-FIELD-1")


def test_third_field_in_own_turn_phase_2_and_3_r_lady_9():
    # "Only in their own turn": any phase of it.
    game = game_with(hands=[["cowboy/man"]], pile=["hippie/man", "boxer/man"])
    give_coins(game, 0, 3)
    give_coins(game, 2, 3)
    plant(game, 0)
    assert_illegal(game, 2, Action.buy_field(), "R-LADY-9")
    game.apply(0, Action.end_trading())
    game.apply(0, Action.buy_field())  # phase 3 of its own turn
    assert len(game.fields[0]) == 3


def test_out_of_turn_purchase_is_a_fasolufka_restriction_r_lady_9():
    # Contrast: in plain fasolki a third field may be bought out of turn (R-FIELD-1).
    game = Game.new("fasolki", 4, seed=8)
    give_coins(game, 1, 3)
    game.apply(1, Action.buy_field())
    assert len(game.fields[1]) == 3
