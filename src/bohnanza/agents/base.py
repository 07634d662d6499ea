"""The agent interface."""

from __future__ import annotations

from collections.abc import Sequence

from ..actions import Action
from ..views import View


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

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"
