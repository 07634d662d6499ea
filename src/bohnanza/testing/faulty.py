"""A bot that fails on purpose in one chosen game, to show that a run of many games
contains a failing agent (the game is that seat's forfeit, the run goes on).

``bohnanza.testing.faulty:Faulty:game_seed=3`` plays like ``autarky`` except in the game
seeded 3, where it fails as ``mode`` says:

* ``raise`` (the default): its first decision raises;
* ``illegal``: its first decision is an action the rules refuse;
* ``sleep``: its first decision never comes (it sleeps an hour: the move time limit);
* ``exit``: its first decision calls ``sys.exit(3)``;
* ``crash``: its first decision ends its process at once (``os._exit(3)``, as a crash in
  native code would, with no exception to catch);
* ``make``: its constructor raises (a bot that cannot be made for one seed);
* ``stats``: it plays the game to the end, then its ``stats()`` raises;
* ``chatty``: never fails, and prints a line to stdout at its first decision of each
  game (what a bot prints must not end up in a run's summary);
* ``behind``: in every game (``game_seed`` unused), it looks once, at its first decision
  from turn :data:`BEHIND_TURN` on, and raises if it has :data:`BEHIND_BY` coins or more
  fewer than the leader then - a bot that gives up when losing, whose forfeits must
  count as the losses they hide (issue 53).

It knows its game by its own seed (:func:`bohnanza.seeding.agent_seed`), so it fails in
that game at whichever seat it sits and with any number of workers.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping, Sequence

from ..actions import Action
from ..agents.simple import AutarkyAgent
from ..seeding import AGENT_STRIDE
from ..views import View

MODES = ("raise", "illegal", "sleep", "exit", "crash", "make", "stats", "chatty", "behind")
#: The turn from which ``behind`` looks at the score, once (an ``autarky`` game of four
#: lasts about 40 turns).
BEHIND_TURN = 36
#: How many coins behind the leader it must be then to give up.
BEHIND_BY = 2


class Faulty(AutarkyAgent):
    name = "faulty"

    def __init__(self, seed: int = 0, *, game_seed: int = -1, mode: str = "raise") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        super().__init__(seed)
        self.fails = seed // AGENT_STRIDE == game_seed
        self.mode = mode
        self.looked = False
        if self.fails and mode == "make":
            raise RuntimeError("the faulty bot cannot be made, on purpose")

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if self.mode == "chatty" and not self.looked:
            self.looked = True
            print(f"the faulty bot says hello from seat {view.seat}", flush=True)
        if self.mode == "behind":
            if not self.looked and view.turn >= BEHIND_TURN:
                self.looked = True
                if view.me().coins + BEHIND_BY <= max(s.coins for s in view.seats):
                    raise RuntimeError("the faulty bot gives up when behind")
        elif self.fails:
            if self.mode == "raise":
                raise RuntimeError("the faulty bot fails on purpose")
            if self.mode == "illegal":
                return Action.harvest(99)  # no seat has a 100th field
            if self.mode == "sleep":
                time.sleep(3600)
            elif self.mode == "exit":
                sys.exit(3)
            elif self.mode == "crash":
                os._exit(3)
        return super().act(view, legal, required)

    def stats(self) -> Mapping[str, float]:
        if self.fails and self.mode == "stats":
            raise RuntimeError("the faulty bot's counters fail on purpose")
        return super().stats()


__all__ = ["BEHIND_BY", "BEHIND_TURN", "MODES", "Faulty"]
