"""Tournaments between bots at scale: seats rotated, games stored in SQLite (resumable),
OpenSkill ratings, win rates with 95% intervals, plots and a Markdown report.

>>> from bohnanza.tournament import TournamentSpec
>>> TournamentSpec("classic", 4, ("heuristic", "autarky", "autarky", "autarky")).seats_for(1)
('autarky', 'heuristic', 'autarky', 'autarky')

The command line is ``bohnanza tournament`` (:mod:`bohnanza.tournament.command`).
"""

from __future__ import annotations

from .runner import (
    Outcome,
    TournamentSpec,
    build_agent,
    default_workers,
    parse_agent,
    play_game,
    run_tournament,
)
from .stats import ratings, summarise, wilson
from .storage import Store

__all__ = [
    "Outcome",
    "Store",
    "TournamentSpec",
    "build_agent",
    "default_workers",
    "parse_agent",
    "play_game",
    "ratings",
    "run_tournament",
    "summarise",
    "wilson",
]
