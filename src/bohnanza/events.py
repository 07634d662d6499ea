"""Events: what happened, for logs, UIs and replays.

An event has a public part that everyone may see and an optional ``private`` part that
only ``seat`` may see (a drawn card's identity, the ids behind one's own offer). Use
:meth:`Event.for_seat` before showing an event to anybody (R-INFO-3).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .pickling import dataclass_reduce


@dataclass(frozen=True, slots=True)
class Event:
    type: str
    seat: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    private: Mapping[str, Any] | None = None

    def for_seat(self, viewer: int | None) -> dict[str, Any]:
        """The event as ``viewer`` may see it (``None``: a spectator), as JSON."""
        out: dict[str, Any] = {"type": self.type}
        if self.seat is not None:
            out["seat"] = self.seat
        out.update(self.data)
        if self.private is not None and viewer is not None and viewer == self.seat:
            out.update(self.private)
        return out

    def to_json(self) -> dict[str, Any]:
        """Everything, private parts included: for finished-game records only."""
        out = self.for_seat(self.seat)
        return out

    def __str__(self) -> str:
        bits = " ".join(f"{k}={v}" for k, v in self.data.items())
        who = f"seat {self.seat} " if self.seat is not None else ""
        return f"{who}{self.type} {bits}".strip()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


#: The public names (tests/test_public_api.py; CHANGELOG.md says when they change).
__all__ = [
    "Event",
]
