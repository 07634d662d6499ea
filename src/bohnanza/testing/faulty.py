"""A bot that fails on purpose in one chosen game, to show that a run of many games
contains a failing agent (the game is that seat's forfeit, the run goes on).

``bohnanza.testing.faulty:Faulty:game_seed=3`` plays like ``autarky`` except in the game
seeded 3, where its first decision raises (``mode=raise``, the default) or answers with an
action the rules refuse (``mode=illegal``). It knows its game by its own seed
(:func:`bohnanza.seeding.agent_seed`), so it fails in that game at whichever seat it sits
and with any number of workers.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..actions import Action
from ..agents.simple import AutarkyAgent
from ..seeding import AGENT_STRIDE
from ..views import View

MODES = ("raise", "illegal")


class Faulty(AutarkyAgent):
    name = "faulty"

    def __init__(self, seed: int = 0, *, game_seed: int = -1, mode: str = "raise") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        super().__init__(seed)
        self.fails = seed // AGENT_STRIDE == game_seed
        self.mode = mode

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if self.fails:
            if self.mode == "raise":
                raise RuntimeError("the faulty bot fails on purpose")
            return Action.harvest(99)  # no seat has a 100th field
        return super().act(view, legal, required)


__all__ = ["Faulty"]
