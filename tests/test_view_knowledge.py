"""What a seat may know is declared once (issue 55): ``Hooks.known_cards`` (the public
places and ``Hooks.private_cards``), read by the views (``public_pending``,
``View.visible_cards``), the determiniser and the invariant checker, which catches a card
shown anywhere in a view - a pending decision's arguments included."""

from __future__ import annotations

import dataclasses

import pytest

from bohnanza import Game
from bohnanza.game import Pending, decision_args, declare_decision
from bohnanza.modules.base import Hooks
from bohnanza.modules.fasolufka import FasolufkaHooks
from bohnanza.shapes import ParamKind
from bohnanza.testing.checker import FULL, InvariantChecker, InvariantError, check_game

QUICK = dataclasses.replace(FULL, determinism=False)


def _fasolufka_with_pending() -> Game:
    """A Fasolufka game with a decision open for seat 0 (a lady move after a child)."""
    for seed in range(1, 200):
        g = Game.new("fasolki+fasolufka", 3, seed=seed)
        while not g.over and g.pending is None:
            seat = g.waiting_for()[0]
            legal = g.legal_actions(seat, offers=False)
            g.apply(seat, legal[seed % len(legal)])
        if g.pending is not None:
            return g
    raise AssertionError("no pending decision in 200 games")


def test_decision_arguments_have_kinds() -> None:
    assert decision_args("move_lady") == (("field", ParamKind.FIELD), ("child", ParamKind.CARD))
    assert decision_args("place_child") == (("card", ParamKind.CARD),)
    declare_decision("test_knowledge_ask", card=ParamKind.CARD, seat=ParamKind.SEAT)
    p = Pending(1, "test_knowledge_ask", card=7, seat=2)  # an argument named seat
    assert p.seat == 1 and p["seat"] == 2
    assert p.kinds() == {"card": ParamKind.CARD, "seat": ParamKind.SEAT}
    assert p.cards() == [7]
    assert p.without({"card"}) == Pending(1, "test_knowledge_ask", seat=2)
    with pytest.raises(ValueError, match="declare the kind"):
        declare_decision("test_knowledge_bad", ("mystery",))
    with pytest.raises(ValueError, match="argument"):
        declare_decision("test_knowledge_bad", coins=ParamKind.COINS)


def test_a_decisions_hidden_card_is_shown_to_the_deciding_seat_only() -> None:
    g = _fasolufka_with_pending()
    p = g.pending
    assert p is not None
    other = (p.seat + 1) % g.players
    hidden = g.hands[other][0] if g.hands[other] else g.draw[-1]
    # A decision about a card only its deciding seat may see (and its holder: none here).
    shown = Pending(p.seat, p.kind, **p.args, card=hidden)
    g.pending = shown
    g.invalidate_views()
    hooks = g.hooks
    assert hidden in hooks.private_cards(g, p.seat)
    assert hidden not in hooks.known_cards(g, (p.seat + 2) % g.players)
    assert g.view(p.seat).pending == shown
    assert hidden in g.view(p.seat).visible_cards()
    assert hidden not in g.view(p.seat).placed_cards() or other == p.seat
    third = (p.seat + 2) % g.players
    for k in (third, None):
        view = g.view(k)
        assert view.pending is not None and "card" not in view.pending.args
        assert view.pending.args == p.args
        assert hidden not in view.visible_cards()
    # The deciding seat's own knowledge is no leak: the checker's checks pass.
    checker = InvariantChecker(g, QUICK)
    checker.view_leaks()


@pytest.mark.patches_engine
def test_checker_catches_a_card_leaked_in_a_pending_decision(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A module that shows every seat the id of a hidden card in its decision (the
    bartered card of issue 55) is caught by the default checker."""

    def leaky(self: Hooks, game: Game, seat: int | None) -> Pending | None:
        p = game.pending
        if p is None:
            return None
        hand = game.hands[p.seat]
        if not hand or "card" in p.args:
            return p
        return Pending(p.seat, p.kind, **p.args, card=hand[0])

    # A class attribute, looked up at every call: nothing of it stays in cached hooks.
    monkeypatch.setattr(FasolufkaHooks, "public_pending", leaky)
    with pytest.raises(InvariantError, match="R-INFO-3"):
        for seed in range(1, 20):
            check_game("fasolki+fasolufka", 3, seed, agents="random", checks=QUICK)


@pytest.mark.patches_engine
def test_checker_catches_a_leak_deep_in_a_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """A card id in an undeclared argument of a decision counts as a card."""

    def leaky(self: Hooks, game: Game, seat: int | None) -> Pending | None:
        p = game.pending
        if p is None or not game.draw:
            return p
        return Pending(p.seat, p.kind, **p.args, peek=game.draw[-1])

    monkeypatch.setattr(FasolufkaHooks, "public_pending", leaky)
    with pytest.raises(InvariantError, match="draw pile"):
        for seed in range(1, 20):
            check_game("fasolki+fasolufka", 3, seed, agents="random", checks=QUICK)
