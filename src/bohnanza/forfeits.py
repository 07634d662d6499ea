"""A failing agent ends its game, not the run: the game is recorded as a forfeit of the
seat whose agent raised, passed where it had to act, or answered with an illegal action
(:class:`bohnanza.driver.AgentFailed`). ``simulate`` and ``tournament`` count forfeits
in their summaries and go on; with ``--fail-fast`` the first one stops the run
(:class:`RunStopped`, exit 2) with the same details. A forfeit counts as a loss of the
seat that failed and a win shared by the other seats, in every summary and rating
(issue 53: left out, the games a bot gave up - often the ones it was losing - flattered
it).

A language model that gave up (:class:`bohnanza.agents.llm.LLMGaveUp`) is not a forfeit:
it keeps its own stop policy (``--llm-fallback``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .driver import AgentFailed
from .errors import BohnanzaError


@dataclass(frozen=True, slots=True)
class Forfeit:
    """Game ``game`` (0-based index in its run) seeded ``seed`` ended because the agent
    ``agent`` (its spec) at ``seat`` failed with ``error``."""

    seed: int
    game: int
    seat: int
    agent: str
    error: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        return (
            f"game {self.game} (seed {self.seed}): seat {self.seat} ({self.agent}) "
            f"forfeits: {self.error}"
        )


class RunStopped(BohnanzaError):
    """``--fail-fast``: the run stops at its first forfeit."""

    def __init__(self, forfeit: Forfeit) -> None:
        super().__init__(f"stopped at the first forfeit (--fail-fast): {forfeit.line()}")
        self.forfeit = forfeit

    def __reduce__(self) -> tuple[Any, ...]:  # across process pools and Ray
        return (RunStopped, (self.forfeit,))


def summary_lines(forfeited: Sequence[Mapping[str, Any]]) -> list[str]:
    """A summary's forfeits (``Forfeit.to_json`` each) as the lines the commands print."""
    if not forfeited:
        return []
    return [
        f"{len(forfeited)} game(s) forfeited by a failing bot (counted above as a loss of "
        "the seat that failed, a win shared by the others):",
        *(f"  {Forfeit(**f).line()}" for f in forfeited),
    ]


def forfeit_of(exc: AgentFailed, seed: int, game: int, seats: Sequence[str]) -> Forfeit:
    """The forfeit ``exc`` makes of game ``game`` played by ``seats``."""
    seat = exc.failed_seat
    return Forfeit(seed, game, seat, seats[seat], str(exc))


__all__ = ["Forfeit", "RunStopped", "forfeit_of", "summary_lines"]
