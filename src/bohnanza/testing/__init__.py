"""Testing tools for the engine, its modules and bots: the invariant checker and the helpers
the engine's own tests use.

* :mod:`bohnanza.testing.checker`: plays seeded games between bots through the real driver
  and checks every engine invariant after every action (card conservation, no leaks in
  views and events, save/load, clone, legal actions agree with :meth:`Game.check`, the
  record replays, the same seed gives the same game). A new module is checked by
  ``check_random_games("fasolki+my-module", games=20)``; :class:`InvariantChecker` runs the
  same checks one by one on a game a test plays its own way.
* :mod:`bohnanza.testing.helpers`: a game with given hands and draw pile (:func:`deal`),
  readers by variety name, scripted moves (:func:`plant`, :func:`pass_turn`, …) and
  assertions (:func:`assert_illegal`, :func:`assert_conserved`).

Seeds come from :mod:`bohnanza.seeding`. See docs/testing.md.
"""

from __future__ import annotations

from .checker import (
    CHEAP,
    FULL,
    Checks,
    Configuration,
    GameStats,
    InvariantChecker,
    InvariantError,
    Summary,
    check_game,
    check_games,
    check_random_games,
    configurations,
    option_sets,
    position,
)
from .helpers import (
    assert_conserved,
    assert_illegal,
    deal,
    pass_turn,
    plant,
)

__all__ = [
    "CHEAP",
    "FULL",
    "Checks",
    "Configuration",
    "GameStats",
    "InvariantChecker",
    "InvariantError",
    "Summary",
    "assert_conserved",
    "assert_illegal",
    "check_game",
    "check_games",
    "check_random_games",
    "configurations",
    "deal",
    "option_sets",
    "pass_turn",
    "plant",
    "position",
]
