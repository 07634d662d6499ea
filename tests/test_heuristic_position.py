"""The ``heuristic`` bot's positions (issue 34): what they reuse from the last position
(the card counts, when the seats' views are the same) is what they would compute afresh,
and the offers it lists are plain ``Offer`` values."""

from __future__ import annotations

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
