"""Bohnanza and Fasolki: a rules engine with structured trading, views and records.

>>> from bohnanza import Game, Action, Phase
>>> game = Game.new("classic", players=4, seed=7)
>>> game.phase, game.active
(Phase.PLANT, 0)
>>> Action.plant(0) in game.legal_actions(0)
True
"""

from __future__ import annotations

from .actions import Action, ActionType, Offer
from .errors import (
    BohnanzaError,
    ConfigError,
    GameOver,
    IllegalAction,
    InvalidOffer,
    NotYourTurn,
    RecordError,
)
from .events import Event
from .game import Game, Phase
from .rules import GameConfig, all_rulesets, make_config
from .views import View


def compiled_core() -> bool:
    """Whether the engine's core runs compiled (installed with ``BOHNANZA_COMPILE=1``,
    built by mypyc from the same sources) rather than as pure Python. The games are the
    same either way; benchmarks print it, since it changes every speed figure. The engine
    keeps the answer itself (:data:`bohnanza.shuffle.COMPILED`, compiled with the rest)."""
    from .shuffle import COMPILED

    return COMPILED


__all__ = [
    "Action",
    "ActionType",
    "BohnanzaError",
    "ConfigError",
    "Event",
    "Game",
    "GameConfig",
    "GameOver",
    "IllegalAction",
    "InvalidOffer",
    "NotYourTurn",
    "Offer",
    "Phase",
    "RecordError",
    "View",
    "all_rulesets",
    "compiled_core",
    "make_config",
]
