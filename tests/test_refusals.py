"""Refusals carry their reason (bohnanza.refusals, issue 27): the rule that refuses an
action gives a code (one per distinct reason) and the numbers the reason needs; every code
is worded in English and Polish, and a real illegal action produces each one."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza.actions import Action, Offer
from bohnanza.errors import IllegalAction
from bohnanza.game import MAX_OFFER_CARDS, MAX_OPEN_OFFERS, Game
from bohnanza.modules.duel import discard, plant_revealed
from bohnanza.modules.fasolufka import move_lady, place_child
from bohnanza.refusals import CODES, REASONS, Explanation, explain, render
from bohnanza.rules import make_config
from bohnanza.web.i18n import EN, PL

GAMES = [("classic", 4), ("classic", 3), ("fasolki+fasolufka", 4), ("fasolki+duel", 2)]


def _refused(game: Game, seat: Any, action: Any) -> Explanation:
    """The explanation of a refused ``action``; an accepted one fails the test."""
    before = game.to_dict()
    with pytest.raises(IllegalAction) as info:
        game.check(seat, action)
    assert game.to_dict() == before
    if isinstance(action, Action):
        return explain(action, info.value)
    assert info.value.refusal is not None
    return Explanation(info.value.refusal.code, info.value.rule, {})


def _edited(
    rules: str, players: int, edit: Callable[[dict[str, Any]], None], seed: int = 3
) -> Game:
    """A game whose saved state ``edit`` changed (a position play reaches rarely)."""
    data = Game.new(rules, players, seed=seed).to_dict()
    edit(data)
    return Game.from_dict(data)


def _card(rules: str, players: int, variety: str, kind: str | None = None) -> int:
    cfg = make_config(rules, players)
    return next(
        c
        for c in range(len(cfg.card_variety))
        if cfg.variety_of(c) == variety and (kind is None or cfg.card_kind[c] == kind)
    )


def _move(data: dict[str, Any], card: int, to: list[int]) -> None:
    """Move ``card`` (wherever it lies in the saved state) onto the list ``to``."""
    for pile in [data["draw"], data["discard"], *data["hands"], *data["treasury"]]:
        if card in pile:
            pile.remove(card)
            break
    for fields in data["fields"]:
        for f in fields:
            if card in f:
                f.remove(card)
    to.append(card)


def _trading(rules: str = "classic", players: int = 3, seed: int = 1) -> Game:
    game = Game.new(rules, players, seed=seed)
    game.apply(game.active, game.legal_actions(game.active)[0])
    game.apply(game.active, Action.stop_planting())
    assert game.phase == "trade"
    return game


def _until(rules: str, players: int, phase: str) -> Game:
    """A random game played until ``phase``."""
    for seed in range(50):
        game = Game.new(rules, players, seed=seed)
        rng = random.Random(seed)
        for _ in range(400):
            if game.phase == phase or game.over:
                break
            seat = game.waiting_for()[0]
            game.apply(seat, rng.choice(game.legal_actions(seat, offers=False)))
        if game.phase == phase:
            return game
    raise AssertionError(f"no game reached {phase}")


def _fasolufka_pending(kind: str) -> tuple[Game, int]:
    """Seat 1 of a Fasolufka game must place a received child (R-LADY-7) or move a lady
    (R-LADY-8); the child's card."""
    rules = "fasolki+fasolufka"
    child = _card(rules, 3, "cowboy", "child")
    lady = _card(rules, 3, "cowboy", "lady")

    def edit(data: dict[str, Any]) -> None:
        _move(data, lady, data["fields"][1][0])
        if kind == "place_child":
            man = _card(rules, 3, "cowboy", "man")
            _move(data, man, data["fields"][1][1])
            _move(data, child, data["trade"][1])
            data["pending"] = {"seat": 1, "asks": "place_child", "args": {"card": child}}
        else:
            _move(data, child, data["fields"][1][0])
            data["pending"] = {"seat": 1, "asks": "move_lady", "args": {"field": 0, "child": child}}
        data["phase"] = "trade"

    return _edited(rules, 3, edit), child


def _scenarios() -> dict[str, Callable[[], tuple[Explanation, dict[str, Any]]]]:
    """Per code: a real illegal action that gets it, and the params it must carry."""
    out: dict[str, Callable[[], tuple[Explanation, dict[str, Any]]]] = {}

    def add(code: str) -> Callable[[Callable[[], tuple[Explanation, dict[str, Any]]]], Any]:
        def put(fn: Callable[[], tuple[Explanation, dict[str, Any]]]) -> Any:
            out[code] = fn
            return fn

        return put

    @add("game_over")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("classic", 3, seed=2)
        rng = random.Random(2)
        while not game.over:
            seat = game.waiting_for()[0]
            game.apply(seat, rng.choice(game.legal_actions(seat, offers=False)))
        return _refused(game, 0, Action.harvest(0)), {}

    @add("not_now")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("classic", 3, seed=1)
        return _refused(game, 1, Action.plant(0)), {"active": 1, "action": "plant"}

    @add("wrong_phase")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("classic", 3, seed=1)
        return _refused(game, 0, Action.end_trading()), {"phase": "plant"}

    @add("own_turn_only")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("fasolki+duel", 2, seed=1)
        return _refused(game, 1, Action.harvest(0)), {"active": 1}

    @add("decision_pending")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game, _child = _fasolufka_pending("place_child")
        return _refused(game, 0, Action.harvest(0)), {"active": 2}

    @add("place_child_first")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game, _child = _fasolufka_pending("place_child")
        return _refused(game, 1, Action.harvest(0)), {}

    @add("move_lady_first")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game, child = _fasolufka_pending("move_lady")
        return _refused(game, 1, move_lady(child)), {}

    @add("no_decision")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("fasolki+fasolufka", 3, seed=1)
        return _refused(game, 0, place_child(game.hands[0][0], 0)), {}

    @add("not_in_game")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("classic", 3, seed=1)
        return _refused(game, 0, discard(game.hands[0][0])), {}

    @add("malformed")
    def _() -> tuple[Explanation, dict[str, Any]]:
        return _refused(Game.new("classic", 3, seed=1), 0, "plant"), {}

    @add("no_seat")
    def _() -> tuple[Explanation, dict[str, Any]]:
        return _refused(Game.new("classic", 3, seed=1), 5, Action.plant(0)), {}

    @add("planted_two")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _edited("classic", 3, lambda d: d.update(planted=2))
        return _refused(game, 0, Action.plant(0)), {}

    @add("hand_empty")
    def _() -> tuple[Explanation, dict[str, Any]]:
        def edit(d: dict[str, Any]) -> None:
            d["discard"] += d["hands"][0]
            d["hands"][0] = []

        return _refused(_edited("classic", 3, edit), 0, Action.plant(0)), {}

    @add("plant_first")
    def _() -> tuple[Explanation, dict[str, Any]]:
        return _refused(Game.new("classic", 3, seed=1), 0, Action.stop_planting()), {}

    @add("no_field")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("classic", 4, seed=1)
        return _refused(game, 0, Action.plant(2)), {"field": 3, "n": 2}

    @add("field_variety")
    def _() -> tuple[Explanation, dict[str, Any]]:
        # R-PLANT-3: the engine knew "field 1 holds Chili, not Wax".
        chili, chili2 = (_card("classic", 3, "chili") + i for i in (0, 1))
        wax = _card("classic", 3, "wax")

        def edit(d: dict[str, Any]) -> None:
            _move(d, chili, d["fields"][0][0])
            _move(d, chili2, d["fields"][0][1])
            _move(d, wax, d["hands"][0])
            d["hands"][0].insert(0, d["hands"][0].pop())

        game = _edited("classic", 3, edit)
        assert game.config.variety_of(chili2) == "chili"
        return _refused(game, 0, Action.plant(0)), {"field": 1, "top": "chili", "card": "wax"}

    @add("not_in_trade_area")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _edited("classic", 3, lambda d: d.update(phase="plant_traded"))
        return _refused(game, 0, Action.plant_traded(game.hands[0][0], 0)), {}

    @add("field_empty")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("classic", 3, seed=1)
        return _refused(game, 0, Action.harvest(1)), {"field": 2}

    @add("field_protected")
    def _() -> tuple[Explanation, dict[str, Any]]:
        def edit(d: dict[str, Any]) -> None:
            a, b, c = d["draw"][:3]
            d["draw"] = d["draw"][3:]
            d["fields"][0] = [[a], [b, c]]

        game = _edited("classic", 3, edit)
        return _refused(game, 0, Action.harvest(0)), {"field": 1, "other": 2, "n": 2}

    @add("have_third_field")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("classic", 3, seed=1)  # three players start with three fields
        return _refused(game, 0, Action.buy_field()), {}

    @add("no_third_field_left")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _edited("classic", 4, lambda d: d.update(supply=0))
        return _refused(game, 0, Action.buy_field()), {}

    @add("field_price")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("classic", 4, seed=1)
        return _refused(game, 0, Action.buy_field()), {"price": 3, "coins": 0}

    def rich(rules: str) -> Game:
        def edit(d: dict[str, Any]) -> None:
            d["treasury"][0] = d["draw"][:4]
            d["draw"] = d["draw"][4:]

        return _edited(rules, 4, edit)

    @add("coins_not_chosen")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = rich("classic")
        return _refused(game, 0, Action.buy_field(tuple(game.treasury[0][:3]))), {}

    @add("coin_count")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = rich("fasolki+fasolufka")
        coins = tuple(game.treasury[0][:2])
        return _refused(game, 0, Action.buy_field(coins)), {"price": 3, "n": 2}

    @add("coin_twice")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = rich("fasolki+fasolufka")
        c = game.treasury[0][0]
        return _refused(game, 0, Action.buy_field((c, c, game.treasury[0][1]))), {}

    @add("not_a_coin")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = rich("fasolki+fasolufka")
        coins = (*game.treasury[0][:2], game.hands[0][0])
        return _refused(game, 0, Action.buy_field(coins)), {}

    @add("no_trading")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = Game.new("fasolki+duel", 2, seed=1)
        offer = Offer(1, (game.hands[0][0],), ())
        return _refused(game, 0, Action.propose(offer)), {}

    @add("offer_gone")
    def _() -> tuple[Explanation, dict[str, Any]]:
        return _refused(_trading(), 1, Action.decline(999)), {}

    def offered() -> tuple[Game, int]:
        game = _trading()
        game.apply(1, Action.propose(Offer(0, (game.hands[1][0],), ())))
        return game, next(iter(game.offers))

    @add("not_your_offer")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game, oid = offered()
        return _refused(game, 0, Action.withdraw(oid)), {"partner": 2}

    @add("offer_to_other")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game, oid = offered()
        return _refused(game, 2, Action.decline(oid)), {"partner": 1}

    @add("offer_cards_gone")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game, oid = offered()
        # The offered card left the proposer's hand, and nothing cancelled the offer (the
        # engine cancels such offers; a module that moved the card itself might not):
        # the accept is still refused (R-TRADE-3).
        card = game.offers[oid][1].give[0]
        game.hands[1].remove(card)
        game.discard.append(card)
        return _refused(game, 0, Action.accept(oid, ())), {"partner": 2}

    @add("card_twice")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _trading()
        c = game.hands[1][0]
        return _refused(game, 1, Action.propose(Offer(0, (c, c), ()))), {}

    @add("not_tradeable")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _trading()
        return _refused(game, 1, Action.propose(Offer(0, (game.hands[2][0],), ()))), {}

    @add("wrong_cards")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _trading()
        game.apply(0, Action.propose(Offer(1, (), (("coffee", 1),))))
        oid = next(iter(game.offers))
        wrong = next(c for c in game.hands[1] if game.config.variety_of(c) != "coffee")
        return _refused(game, 1, Action.accept(oid, (wrong,))), {}

    @add("bad_partner")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _trading()
        return _refused(game, 0, Action.propose(Offer(0, (game.hands[0][0],), ()))), {}

    @add("trade_with_active")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _trading()
        offer = Offer(2, (game.hands[1][0],), ())
        return _refused(game, 1, Action.propose(offer)), {"active": 1}

    @add("too_many_offers")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _trading()
        for _ in range(MAX_OPEN_OFFERS):
            game.apply(0, Action.propose(Offer(1, (), (("coffee", 1),))))
        offer = Offer(1, (), (("coffee", 1),))
        return _refused(game, 0, Action.propose(offer)), {"most": MAX_OPEN_OFFERS}

    @add("empty_offer")
    def _() -> tuple[Explanation, dict[str, Any]]:
        return _refused(_trading(), 0, Action.propose(Offer(1, (), ()))), {}

    @add("offer_too_big")
    def _() -> tuple[Explanation, dict[str, Any]]:
        offer = Offer(1, (), (("wax", MAX_OFFER_CARDS + 1),))
        return _refused(_trading(), 0, Action.propose(offer)), {"most": MAX_OFFER_CARDS}

    @add("bad_want")
    def _() -> tuple[Explanation, dict[str, Any]]:
        offer = Offer(1, (), (("no-such-bean", 1),))
        return _refused(_trading(), 0, Action.propose(offer)), {}

    @add("bad_declaration")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _trading()
        offer = Offer(1, (game.hands[0][0],), (), ("red",))
        return _refused(game, 0, Action.propose(offer)), {}

    @add("drawn_declared")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _trading()
        offer = Offer(1, (game.drawn[0],), (), ("red",))
        return _refused(game, 0, Action.propose(offer)), {}

    @add("not_in_offer")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _until("fasolki+duel", 2, "duel_offer")
        return _refused(game, game.active, discard(game.hands[game.active][0])), {}

    @add("not_in_revealed")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _until("fasolki+duel", 2, "duel_reveal")
        card = game.hands[game.active][0]
        return _refused(game, game.active, plant_revealed(card, 0)), {}

    @add("not_in_hand")
    def _() -> tuple[Explanation, dict[str, Any]]:
        game = _until("fasolki+duel", 2, "duel_discard")
        return _refused(game, game.active, discard(game.hands[1 - game.active][0])), {}

    return out


SCENARIOS = _scenarios()


def test_every_code_has_a_real_illegal_action_that_produces_it() -> None:
    assert sorted(SCENARIOS) == sorted(CODES), "a code without a scenario, or one too many"


@pytest.mark.parametrize("code", CODES)
def test_a_real_illegal_action_produces_the_code_with_its_numbers(code: str) -> None:
    got, params = SCENARIOS[code]()
    assert got.code == code, got
    for key, value in params.items():
        assert got.params.get(key) == value, (key, got.params)


_PLACEHOLDER = re.compile(r"\{(\w+)(?:\|[^{}]*)?\}")


@pytest.mark.parametrize("code", CODES)
def test_every_code_is_worded_in_english_and_polish_with_the_same_numbers(code: str) -> None:
    en, pl = REASONS[code]
    assert en and pl and en != pl
    assert set(_PLACEHOLDER.findall(en)) == set(_PLACEHOLDER.findall(pl)), code
    # The pages take the same words (web/i18n.py's err.* strings).
    assert EN[f"err.{code}"] == en and PL[f"err.{code}"] == pl


@pytest.mark.parametrize("code", CODES)
def test_a_produced_refusal_renders_with_every_placeholder_filled(code: str) -> None:
    got, _ = SCENARIOS[code]()
    for lang in ("en", "pl"):
        text = render(got, lang)
        assert "{" not in text and "}" not in text, (lang, text)


def test_the_variety_refusal_says_what_the_engine_knew_r_plant_3() -> None:
    got, _ = SCENARIOS["field_variety"]()
    text = render(got, "en", words={"chili": "Chili", "wax": "Wax"})
    assert text.startswith("field 1 holds Chili, not Wax") and text.endswith("(R-PLANT-3)")
    assert "holds a single bean" in render(SCENARIOS["field_protected"]()[0], "en")
    assert render(SCENARIOS["field_price"]()[0], "pl").startswith("trzecie pole kosztuje 3 monety")


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(GAMES), st.integers(0, 2**31), st.integers(0, 120))
def test_every_refusal_is_explained_with_one_based_numbers(
    game_spec: tuple[str, int], seed: int, steps: int
) -> None:
    rules, players = game_spec
    game = Game.new(rules, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):  # somewhere into a random game
        if game.over:
            break
        seat = rng.choice(game.waiting_for())
        game.apply(seat, rng.choice(game.legal_actions(seat, offers=False)))
    before = game.to_dict()
    for seat in range(players):
        tries = [Action.buy_field(), Action.end_trading(), Action.stop_planting()]
        tries += [Action.harvest(f) for f in range(4)]
        for action in tries:
            try:
                game.check(seat, action)
            except IllegalAction as exc:
                refusal = explain(action, exc)
                assert refusal.code in CODES
                assert refusal.rule == exc.rule or exc.rule is None
                params = refusal.params
                if "field" in params:
                    assert params["field"] == action.field + 1  # type: ignore[operator]
                if refusal.code == "field_price":  # R-FIELD-2
                    assert params["price"] == game.config.field_price
                    assert params["coins"] == game.coins(seat) < params["price"]
                if refusal.code == "field_protected":  # R-HARV-3
                    assert params["n"] > 1 and params["other"] != params["field"]
                if refusal.code == "field_empty":
                    assert not game.fields[seat][action.field or 0]
                if refusal.code == "no_field":
                    assert params["n"] == len(game.fields[seat]) < params["field"]
                if refusal.code == "own_turn_only":  # R-DUEL-2, R-LADY-9
                    assert seat != game.active
                if refusal.code == "not_now":
                    assert params["active"] != seat + 1
                if "active" in params and game.pending is None:
                    assert params["active"] == game.active + 1
    assert game.to_dict() == before  # explaining changes nothing
