"""Fasolufka: the buyer of a third field chooses its three coins and their order (R-LADY-10).

Every other rule set keeps R-FIELD-3 (the coins on top of the treasury pay, and a buy names
no coins); a fasolufka buy that names none pays the same way, which is how records written
before R-LADY-10 replay.
"""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza import Action, ActionType, Game
from bohnanza.agents import make_agent
from bohnanza.agents.search import Determiniser
from bohnanza.coins import choose_coins, usefulness, with_coins
from bohnanza.driver import play
from bohnanza.records import make_record, replay
from bohnanza.seeding import agent_seed
from bohnanza.testing.helpers import (
    assert_conserved,
    assert_illegal,
    card_ids,
    card_ids_in_json,
    give_coins,
    pass_turn,
    take,
)

FU = "fasolki+fasolufka"


def buyer(coins: int = 5, players: int = 4, seed: int = 3) -> Game:
    """A fasolufka game in seat 0's phase 1, with ``coins`` coins in seat 0's treasury
    and a few in every other seat's."""
    game = Game.new(FU, players, seed=seed)
    give_coins(game, 0, coins)
    for seat in range(1, players):
        give_coins(game, seat, 2)
    return game


def test_the_buyer_chooses_the_coins_and_their_order_r_lady_10():
    # R-LADY-10: any three coins of one's own treasury pay; they go onto the discard pile
    # in the order named, so the last one ends on top.
    game = buyer(coins=5)
    t = list(game.treasury[0])
    discard = list(game.discard)
    choice = (t[3], t[0], t[1])
    events = game.apply(0, Action.buy_field(choice))
    assert game.treasury[0] == [t[2], t[4]]  # the rest keep their order
    assert game.discard == discard + list(choice)
    assert game.discard[-1] == t[1]
    assert len(game.fields[0]) == 3 and game.supply == 1
    # Everyone sees the three cards once they lie on the discard pile.
    for viewer in (None, 0, 1, 2, 3):
        ev = [e.for_seat(viewer) for e in events if e.type == "buy_field"]
        assert ev == [{"type": "buy_field", "seat": 0, "price": 3, "cards": list(choice)}]
    assert_conserved(game)


def test_another_order_of_the_same_coins_changes_only_the_discard_order_r_lady_10():
    games = [buyer(coins=4), buyer(coins=4)]
    t = list(games[0].treasury[0])
    games[0].apply(0, Action.buy_field((t[0], t[1], t[2])))
    games[1].apply(0, Action.buy_field((t[2], t[0], t[1])))
    assert games[0].treasury[0] == games[1].treasury[0] == [t[3]]
    assert games[0].discard[-3:] == [t[0], t[1], t[2]]
    assert games[1].discard[-3:] == [t[2], t[0], t[1]]
    assert games[1].view(1).discard_top == t[1]


def test_a_buy_naming_no_coins_pays_with_the_top_of_the_treasury_r_lady_10():
    # The template (and every fasolufka buy recorded before R-LADY-10): R-FIELD-3.
    game = buyer(coins=5)
    t = list(game.treasury[0])
    assert Action.buy_field() in game.legal_actions(0)
    game.apply(0, Action.buy_field())
    assert game.treasury[0] == t[:2]
    assert game.discard[-3:] == t[2:]


def test_only_the_owner_sees_the_treasury_cards_r_lady_10():
    # R-LADY-10 / R-INFO-2: a seat looks at its own coins; the others and the spectator see
    # only how many there are, in the view object and in its JSON.
    game = buyer(coins=5)
    coins = set(game.treasury[0])
    assert not coins & set(game.discard[-1:])
    mine = game.view(0)
    assert mine.treasury == tuple(game.treasury[0])
    assert [c["id"] for c in mine.to_json()["treasury"]] == game.treasury[0]
    assert coins <= mine.visible_cards()
    for viewer in (1, 2, 3, None):
        view = game.view(viewer)
        assert view.seats[0].coins == 5
        assert not coins & view.visible_cards()
        assert not coins & set(card_ids_in_json(view.to_json()))
        own = tuple(game.treasury[viewer]) if viewer is not None else None
        assert view.treasury == own


def test_other_rule_sets_keep_the_top_coins_and_refuse_a_coin_list_r_field_3():
    # R-FIELD-3: outside fasolufka the coins are face down and the top ones pay.
    for rules in ("classic", "fasolki", "fasolki+fasolkopajaki"):
        game = Game.new(rules, 4, seed=1)
        give_coins(game, 0, 4)
        assert game.view(0).treasury is None
        t = list(game.treasury[0])
        assert_illegal(game, 0, Action.buy_field((t[0], t[1], t[2])), "R-FIELD-3")
        game.apply(0, Action.buy_field())
        assert game.discard[-3:] == t[1:]


def test_a_wrong_coin_choice_is_refused_and_changes_nothing_r_lady_10():
    game = buyer(coins=5)
    t = list(game.treasury[0])
    other = game.treasury[1][0]
    hand = game.hands[0][0]
    bad = [
        (t[0], t[1]),  # fewer than three
        (t[0], t[1], t[2], t[3]),  # more than three
        (t[0], t[0], t[1]),  # a coin named twice
        (t[0], t[1], other),  # another seat's coin
        (t[0], t[1], hand),  # a card of its hand
        (t[0], t[1], game.discard[-1] if game.discard else game.draw[0]),
    ]
    for coins in bad:
        assert_illegal(game, 0, Action.buy_field(coins), "R-LADY-10")
    # The other refusals still come first: not in its own turn (R-LADY-9).
    assert_illegal(game, 1, Action.buy_field(tuple(game.treasury[1][:2])), "R-LADY-9")


def test_bot_games_with_coin_choices_replay_from_their_records_r_lady_10():
    # The whole path: bots choose coins, the record holds the choice, a replay rebuilds the
    # same game. A record written before R-LADY-10 (the buy without coins) replays to the
    # R-FIELD-3 default: the three top coins, in treasury order.
    found = 0
    for seed in range(40):
        game = Game.new(FU, 3, seed=seed)
        log = play(game, [make_agent("heuristic", agent_seed(seed, k)) for k in range(3)])
        buys = [i for i, (_, a) in enumerate(log.actions) if a.type is ActionType.BUY_FIELD]
        if not buys:
            continue
        record = json.loads(json.dumps(make_record(game, log.actions)))
        for i in buys:
            assert len(record["actions"][i]["cards"]) == 3
        again = replay(record)
        assert again.to_dict() == game.to_dict()
        i = buys[0]
        seat = record["actions"][i]["seat"]
        before = replay(dict(record, actions=record["actions"][:i], result=None))
        top = list(before.treasury[seat])
        old_buy = {"seat": seat, "type": "buy_field"}
        old = replay(dict(record, actions=[*record["actions"][:i], old_buy], result=None))
        assert old.discard[-3:] == top[-3:] and old.treasury[seat] == top[:-3]
        chosen = replay(dict(record, actions=record["actions"][: i + 1], result=None))
        assert chosen.discard[-3:] == record["actions"][i]["cards"]
        found += 1
        if found >= 2:
            break
    assert found, "no heuristic game bought a third field"


@settings(max_examples=60, deadline=None)
@given(
    st.integers(3, 9),
    st.data(),
)
def test_any_choice_of_three_coins_in_any_order_pays_exactly_those_r_lady_10(n, data):
    game = buyer(coins=n, seed=5)
    t = list(game.treasury[0])
    choice = tuple(data.draw(st.permutations(t))[:3])
    discard = list(game.discard)
    before = game.to_dict()
    # A list that is not three distinct coins of the treasury is refused, state unchanged.
    junk = data.draw(st.lists(st.integers(0, game.config.deck_size - 1), max_size=5))
    valid = len(junk) == 3 and len(set(junk)) == 3 and set(junk) <= set(t)
    if junk and not valid:
        assert_illegal(game, 0, Action.buy_field(tuple(junk)), "R-LADY-10")
        assert game.to_dict() == before
    game.apply(0, Action.buy_field(choice))
    assert game.discard == discard + list(choice)
    assert game.treasury[0] == [c for c in t if c not in choice]
    assert_conserved(game)


# ---------------------------------------------------------------------------- bots


def _staged_for_bots() -> tuple[Game, dict[str, int]]:
    """Seat 1 grows Cowboys under a Cowboy lady and Gardeners; seat 0 holds coins of
    Cowboys, Gardeners and Fatties (nobody grows Fatties)."""
    game = Game.new(FU, 3, seed=2)
    cfg = game.config
    cowboy_man, cowboy_lady = card_ids(cfg, "cowboy", "man")[0], card_ids(cfg, "cowboy", "lady")[0]
    g_man = card_ids(cfg, "gardener", "man")[0]
    fat = card_ids(cfg, "fatty", "man")[:2] + card_ids(cfg, "fatty", "child")[:1]
    for f in game.fields[1]:
        for c in f:
            game.discard.append(c)
        f.clear()
    game.fields[1][0] += [take(game, card_ids(cfg, "cowboy", "man")[1]), take(game, cowboy_lady)]
    game.fields[1][1] += [take(game, card_ids(cfg, "gardener", "man")[1])]
    game.treasury[0] = [take(game, c) for c in (cowboy_man, fat[0], g_man, fat[1], fat[2])]
    names = {"cowboy": cowboy_man, "gardener": g_man}
    return game, names


def test_bots_pay_with_the_coins_least_useful_to_others_r_lady_10():
    game, named = _staged_for_bots()
    view = game.view(0)
    assert usefulness(view, named["cowboy"]) > 0 and usefulness(view, named["gardener"]) > 0
    coins = choose_coins(view)
    assert len(coins) == 3 and named["cowboy"] not in coins and named["gardener"] not in coins
    assert game.is_legal(0, Action.buy_field(coins))
    assert with_coins(view, Action.buy_field()) == Action.buy_field(coins)
    assert with_coins(view, Action.end_trading()) == Action.end_trading()
    # The random bot pays with three distinct coins of its own, in any order.
    bot = make_agent("random", 7)
    legal = game.legal_actions(0)
    for _ in range(20):
        a = bot.act(view, [x for x in legal if x.type.value == "buy_field"], True)
        assert a is not None and game.is_legal(0, a) and len(a.cards) == 3


def test_the_search_samples_its_own_treasury_as_it_is_r_lady_10():
    game, _ = _staged_for_bots()
    view = game.view(0)
    det = Determiniser(view)
    for k in range(3):
        sample = det.sample(random.Random(k))
        assert sample.treasury[0] == game.treasury[0]
        assert sorted(sample.all_card_locations()) == list(range(game.config.deck_size))
    pass_turn(game)  # the state stays playable
