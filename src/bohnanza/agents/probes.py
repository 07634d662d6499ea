"""Probe bots for the benchmark suite (``bohnanza benchmark bots``, scenario S4): each
plays like ``heuristic`` except in one trading habit that a good trader must cope with.

* ``probe-accept`` accepts every offer and gift addressed to it: does the candidate
  exploit a partner that takes anything (without feeding it into the lead)?
* ``probe-spam`` makes an offer at every chance, drawn at random from the listed offer
  templates: does the candidate keep its own trading going under a flood?
* ``probe-shy`` never trades with the seat that leads (coins, then what its fields pay
  now): does the candidate cope with partners that turn away from a leader?
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import Action, ActionType, Offer
from ..views import View
from .heuristic import HeuristicAgent, Position

_T = ActionType


class AcceptAllAgent(HeuristicAgent):
    """``heuristic`` that accepts every offer addressed to it, giving what is asked for
    as listed first."""

    name = "probe-accept"

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if view.phase == "trade" and view.pending is None:
            for a in legal:
                if a.type is _T.ACCEPT:
                    return a
        return super().act(view, legal, required)


class SpamAgent(HeuristicAgent):
    """``heuristic`` that, when it has nothing to accept, proposes a random listed offer
    template at every chance (at most ``max_spam`` a turn, so that trading ends)."""

    name = "probe-spam"

    def __init__(self, seed: int = 0, *, max_spam: int = 6) -> None:
        super().__init__(seed)
        self.rng = random.Random(seed)
        self.max_spam = max_spam
        self._spam_turn = -1
        self._spam = 0

    def wants_offers(self, turn: int) -> bool:
        return turn != self._spam_turn or self._spam < self.max_spam

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if view.phase != "trade" or view.pending is not None:
            return super().act(view, legal, required)
        if view.turn != self._spam_turn:
            self._spam_turn, self._spam = view.turn, 0
        choice = super().act(view, legal, required)
        if choice is not None and choice.type in (_T.ACCEPT, _T.HARVEST, _T.BUY_FIELD):
            return choice
        offers = [a for a in legal if a.type is _T.PROPOSE]
        if offers and self._spam < self.max_spam:
            self._spam += 1
            return self.rng.choice(offers)
        return choice


class LeaderShyAgent(HeuristicAgent):
    """``heuristic`` that never trades with the leading seat: it declines the leader's
    offers and makes it none."""

    name = "probe-shy"

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if view.phase == "trade" and view.pending is None and view.seat is not None:
            lead = _leader(view)
            if lead is not None and lead != view.seat:
                for o in view.offers:
                    if o.to == view.seat and o.proposer == lead:
                        no = Action.decline(o.offer_id)
                        if no in legal:
                            return no
                legal = [a for a in legal if not (a.type is _T.ACCEPT and _from(view, a) == lead)]
        return super().act(view, legal, required)

    def _candidates(self, pos: Position, partners: tuple[int, ...]) -> list[tuple[float, Offer]]:
        lead = _leader(pos.view)
        return super()._candidates(pos, tuple(p for p in partners if p != lead))


def _leader(view: View) -> int | None:
    """The seat strictly ahead of all others, if any."""
    score = [s.coins + 0.5 * sum(s.payouts) for s in view.seats]
    best = max(score)
    top = [k for k, x in enumerate(score) if x == best]
    return top[0] if len(top) == 1 and best > 0 else None


def _from(view: View, a: Action) -> int | None:
    for o in view.offers:
        if o.offer_id == a.offer_id:
            return o.proposer
    return None


__all__ = ["AcceptAllAgent", "LeaderShyAgent", "SpamAgent"]
