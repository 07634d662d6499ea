"""Refusals as data (bohnanza.refusals): every refused action gets a code, its rule and
1-based numbers read from the state, whatever the game and the moment."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza.actions import Action
from bohnanza.errors import IllegalAction
from bohnanza.game import Game
from bohnanza.refusals import CODES, explain
from bohnanza.web.i18n import EN, PL

GAMES = [("classic", 4), ("classic", 3), ("fasolki+fasolufka", 4), ("fasolki+duel", 2)]


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
                refusal = explain(game, seat, action, exc)
                assert refusal.code in CODES
                assert refusal.rule == exc.rule or exc.rule is None
                params = refusal.params
                if "field" in params:
                    assert params["field"] == action.field + 1  # type: ignore[operator]
                if refusal.code == "field_price":  # R-FIELD-2
                    assert params == {
                        "price": game.config.field_price,
                        "coins": game.coins(seat),
                    }
                    assert params["coins"] < params["price"]
                if refusal.code == "field_protected":  # R-HARV-3
                    assert params["n"] > 1 and params["other"] != params["field"]
                if refusal.code == "field_price":
                    assert exc.rule in (None, "R-FIELD-2")
                if refusal.code == "field_empty":
                    assert exc.rule is None and not game.fields[seat][action.field or 0]
                if refusal.code == "no_field":
                    assert params["n"] == len(game.fields[seat]) < params["field"]
                if refusal.code == "own_turn_only":  # R-DUEL-2, R-LADY-9
                    assert seat != game.active
                if "active" in params and game.pending is None:
                    assert params["active"] == game.active + 1
    assert game.to_dict() == before  # explaining changes nothing


def test_every_refusal_code_has_words_in_both_languages() -> None:
    for code in CODES:
        assert f"err.{code}" in EN and f"err.{code}" in PL
