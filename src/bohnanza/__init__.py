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
    "make_config",
]
