"""Module hooks: each module of RULES.md §6–§9 lives in its own file here.

:func:`hooks_for` is the one place that maps a module name to its hook class; the engine
never tests module names itself.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from .base import Hooks

if TYPE_CHECKING:
    from ..rules import GameConfig

#: module name -> "file:Class" of its hooks; modules not listed play with the base hooks.
REGISTRY: dict[str, str] = {
    "new-varieties": "new_varieties:NewVarietiesHooks",
    "fasolkopajaki": "fasolkopajaki:FasolkopajakiHooks",
    "fasolufka": "fasolufka:FasolufkaHooks",
    "duel": "duel:DuelHooks",
}

_cache: dict[tuple[str, int, tuple[tuple[str, str], ...]], Hooks] = {}


def hooks_for(config: GameConfig) -> Hooks:
    """The (shared, stateless) hook object for a config."""
    key = (config.rules, config.players, tuple(sorted(config.options.items())))
    hooks = _cache.get(key)
    if hooks is None:
        target = REGISTRY.get(config.module or "")
        if target:
            mod_name, cls_name = target.split(":")
            cls = getattr(import_module(f"{__name__}.{mod_name}"), cls_name)
            hooks = cls(config)
        else:
            hooks = Hooks(config)
        _cache[key] = hooks
    return hooks


__all__ = ["REGISTRY", "Hooks", "hooks_for"]
