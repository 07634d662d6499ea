"""The agent interface."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mypy_extensions import mypyc_attr

from ..actions import Action
from ..views import View

#: The most counters one agent may report from :meth:`Agent.stats`.
MAX_STATS = 32


@mypyc_attr(allow_interpreted_subclasses=True)
class Agent:
    """A player. Subclasses override :meth:`act`; ``seed`` makes them reproducible."""

    name = "agent"
    #: False for agents that never propose: the driver then skips listing offer templates.
    proposes = True

    def wants_offers(self, turn: int) -> bool:
        """Whether the legal actions handed over in ``turn`` should list offer templates
        (they are the costliest part of the list)."""
        return self.proposes

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        """Choose one of ``legal``, or ``None`` ("nothing now") when not ``required``."""
        raise NotImplementedError

    def stats(self) -> Mapping[str, float]:
        """Counters of the game just played (offers made, gifts accepted, iterations...),
        read once when it ends; a tournament stores them per game and seat and sums them
        per agent in its summary. Numbers only; at most ``MAX_STATS`` of them."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"
