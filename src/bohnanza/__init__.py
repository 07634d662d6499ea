"""Bohnanza and Fasolki: a rules engine with structured trading, views and records.

>>> from bohnanza import Game, Action, Phase
>>> game = Game.new("classic", players=4, seed=7)
>>> game.phase, game.active
(Phase.PLANT, 0)
>>> Action.plant(0) in game.legal_actions(0)
True
"""

from __future__ import annotations

#: This release's version (pyproject.toml's; docs/releasing.md: when it changes, and how).
__version__ = "0.1.0"

from typing import TYPE_CHECKING

from .actions import Action, ActionType, Offer, add_type_loader
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
from .game import Game, Phase, register_determiniser
from .rules import GameConfig, all_rulesets, make_config
from .views import View

if TYPE_CHECKING:
    import random

    from .determinise import SeenCards


# The layers above the core plug into it here, loaded when first needed (issue 55: the
# core imports downward only): the built-in modules, for an action type named before any
# module was imported (a record read first), and the determiniser (Game.determinise).


def _load_modules() -> None:
    from . import modules  # noqa: F401  (imports every built-in module: their types)


def _determinise(view: View, rng: random.Random, seen: SeenCards | None = None) -> Game:
    from .determinise import determinise

    return determinise(view, rng, seen)


add_type_loader(_load_modules)
register_determiniser(_determinise)


def compiled_core() -> bool:
    """Whether the engine's core runs compiled (built by mypyc from the same sources: what
    ``pip install .`` installs where a C compiler works) rather than as pure Python (an
    editable install, no compiler, or ``BOHNANZA_COMPILE=0``). The games are the same
    either way; benchmarks print it, since it changes every speed figure. The engine keeps
    the answer itself (:data:`bohnanza.shuffle.COMPILED`, compiled with the rest)."""
    from .shuffle import COMPILED

    return COMPILED


#: What the long-running commands say once when the pure-Python core runs.
PURE_CORE_NOTICE = (
    "bohnanza: running the pure-Python core (an editable install, or no C compiler when "
    "installed); the compiled one plays the same games 2-3x faster: pip install . "
    "(not -e) where a C compiler works (docs/performance.md)"
)

_notice_given = False


def notice_pure_core() -> bool:
    """Say once per process, on stderr, that the pure-Python core runs and how to get the
    compiled one; nothing when compiled. For the commands whose users wait on the engine
    (``simulate``, ``tournament``, RL training): a newcomer's first install is often
    editable, and nothing else would tell them their runs could be 2-3 times faster.
    Returns whether it spoke."""
    global _notice_given
    if _notice_given or compiled_core():
        return False
    _notice_given = True
    import sys

    print(PURE_CORE_NOTICE, file=sys.stderr, flush=True)
    return True


__all__ = [
    "PURE_CORE_NOTICE",
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
    "__version__",
    "all_rulesets",
    "compiled_core",
    "make_config",
    "notice_pure_core",
]
