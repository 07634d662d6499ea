"""The ``heuristic`` bot's positions (issue 34): what they reuse from the last position
(the card counts, when the seats' views are the same) is what they would compute afresh,
and the offers it lists are plain ``Offer`` values."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from bohnanza import Action, Game, Offer, View
from bohnanza.agents.heuristic import HeuristicAgent, Position, tables_for
from bohnanza.driver import play


def _fresh_counts(view: View) -> list[int]:
    """Cards of each variety not on a field nor in a trade area, counted from scratch."""
    cv = view.config.card_variety
    avail = [0] * len(view.config.varieties)
    for v in cv:
        avail[v] += 1
    for s in view.seats:
        for f in s.fields:
            for c in f:
                avail[cv[c]] -= 1
        for c in s.trade_area:
            avail[cv[c]] -= 1
    return avail


class _Checking(HeuristicAgent):
    """A heuristic that checks every position's card counts before it decides."""

    checked = 0
    reused = 0

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if legal and view.seat is not None:
            t = tables_for(view.config)
            shared = t.seen_avail
            first = Position(view, t)
            second = Position(view, t)
            assert first.avail == _fresh_counts(view)
            assert second.avail == first.avail and second.hidden == first.hidden
            assert second.avail is t.seen_avail  # the second reuses the first's counts
            _Checking.reused += first.avail is shared
            # Cards counted out are never taken from (nor left in) the shared counts.
            out = [c for s in view.seats for f in s.fields for c in f][:1]
            if out:
                third = Position(view, t, out)
                want = _fresh_counts(view)
                want[view.config.card_variety[out[0]]] -= 1
                assert third.avail == want
                assert t.seen_avail == first.avail
            _Checking.checked += 1
        return super().act(view, legal, required)

    def _candidates(self, pos: Position, partners: tuple[int, ...]) -> list[tuple[float, Offer]]:
        got = super()._candidates(pos, partners)
        for _score, offer in got:
            assert type(offer) is Offer
            assert offer == Offer(offer.to, offer.give, offer.want, offer.declared)
        return got


@pytest.mark.parametrize(("rules", "players"), [("classic", 4), ("fasolki+fasolufka", 3)])
def test_positions_count_cards_as_if_afresh(rules: str, players: int) -> None:
    _Checking.checked = _Checking.reused = 0
    game = Game.new(rules, players, seed=5, events=False)
    play(game, [_Checking(seed=k) for k in range(players)])
    assert _Checking.checked > 100
    # Most positions follow one of the same seats' views: the counts are reused.
    assert _Checking.reused > _Checking.checked // 4


@pytest.mark.parametrize("their", [-0.5, 0.0, 0.3, 1.0, 5.0])
def test_the_acceptance_model_is_the_heuristic_s_unless_set(their: float) -> None:
    """``_score``: an offer's worth is our gain less the partner's weighed gain, times the
    chance of a yes: ``ACCEPT_GIFT`` for a gift, ``ACCEPT_SWAP`` (or ``accept_swap``) for
    an offer that asks for cards back, plus ``ACCEPT_SLOPE`` (or ``accept_slope``) per
    coin the partner gains, at most 0.95, and 0.05 when the partner loses."""
    from bohnanza.agents.heuristic import ACCEPT_GIFT, ACCEPT_SLOPE, ACCEPT_SWAP

    assert HeuristicAgent(1).acceptance() == (ACCEPT_SWAP, ACCEPT_SLOPE) == (0.2, 0.45)
    wary = HeuristicAgent(1, accept_swap=0.05, accept_slope=1.0).acceptance()
    assert wary == (0.05, 1.0)
    gain, weight = 2.0, 0.3
    net = gain - weight * max(0.0, their)

    def chance(first: float, slope: float) -> float:
        return 0.05 if their <= -0.1 else min(0.95, first + slope * max(0.0, their))

    score = HeuristicAgent._score
    assert score(gain, their, weight, 0.2, 0.45, 1.0) == chance(0.2, 0.45) * net
    assert score(gain, their, weight, ACCEPT_GIFT, 0.45, 1.0) == chance(ACCEPT_GIFT, 0.45) * net
    assert score(gain, their, weight, *wary, 1.0) == chance(0.05, 1.0) * net
    assert score(gain, their, weight, *wary, 0.5) == 0.5 * chance(0.05, 1.0) * net
    if 0.0 <= their < 0.3:
        # A swap the partner gains little by ranks lower with the warier model.
        assert score(gain, their, weight, *wary, 1.0) < score(gain, their, weight, 0.2, 0.45, 1.0)


def test_a_warier_acceptance_model_reorders_the_offers() -> None:
    """The same position, two models: the same offers, ranked by their own scores; the
    roll-outs' shared offer lists tell the two apart (``search._cands_key``)."""
    from bohnanza.agents.search import _cands_key

    game = Game.new("classic", 4, seed=7)
    plain = HeuristicAgent(1)
    wary = HeuristicAgent(1, accept_swap=0.05, accept_slope=1.0)
    seen = reordered = 0
    for _ in range(400):
        if game.over:
            break
        seat = game.active
        view = game.view(seat)
        if view.phase == "trade" and view.seat == view.active:
            t = tables_for(view.config)
            partners = tuple(s for s in range(4) if s != seat)
            a = plain._candidates(Position(view, t), partners)
            b = wary._candidates(Position(view, t), partners)
            assert sorted(map(repr, (o for _s, o in a))) == sorted(map(repr, (o for _s, o in b)))
            assert all(x >= y for (x, _), (y, _) in itertools.pairwise(a))
            assert all(x >= y for (x, _), (y, _) in itertools.pairwise(b))
            pos = Position(view, t)
            assert _cands_key(plain, pos, partners) != _cands_key(wary, pos, partners)
            seen += any(o.want for _s, o in a)
            reordered += [o for _s, o in a] != [o for _s, o in b]
        legal = game.legal_actions(seat)
        action = plain.act(view, legal, True)
        if action is None:
            action = next(x for x in legal if x.type.name == "END_TRADING")
        game.apply(seat, action)
    assert seen > 3 and reordered > 0
