"""Module hooks: each module of RULES.md §6–§9 lives in its own file here.

The one list of modules is the data file's ``[modules]`` table (``data/cards.toml``, read by
:func:`bohnanza.rules.module_names`); each entry's ``hooks = "file:Class"`` names its hook
class here, and the class's ``info`` (:class:`~bohnanza.modules.info.ModuleInfo`) says
what the code outside this package needs to know. :func:`hooks_for` and
:func:`module_info` are the only ways in; the engine never tests module names itself.
A module kept outside the package (a plugin, a test) joins with :func:`register_module`.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any

from ..actions import add_type_loader
from ..cards import catalogue
from ..errors import ConfigError
from ..rules import _register_spec, module_names, module_spec, split_rules
from ..shapes import BASE_SHAPES
from .base import CLASSES, SHARED, Hooks, config_key, shared_hooks
from .info import BASE_INFO, ModuleInfo

if TYPE_CHECKING:
    from ..rules import GameConfig


def hooks_class(module: str | None) -> type[Hooks]:
    """The hook class of a module (``None``: the base game), found from its data entry."""
    if not module:
        return Hooks
    cls = CLASSES.get(module)
    if cls is None:
        target = module_spec(module).get("hooks")
        if not target:
            cls = Hooks
        else:
            file, _, name = str(target).partition(":")
            cls = getattr(import_module(f"{__name__}.{file}"), name)
            if not (isinstance(cls, type) and issubclass(cls, Hooks)):
                raise ConfigError(f"module {module!r}: {target} is not a Hooks class")
        CLASSES[module] = cls
    return cls


def module_info(module: str | None) -> ModuleInfo:
    """What a module (``None``: the base game) tells the outside (see ModuleInfo)."""
    return hooks_class(module).info if module else BASE_INFO


def info_for_rules(rules: str) -> ModuleInfo:
    """The ModuleInfo of a rule set spelled like ``fasolki+duel`` (the base game's for a
    rule set without a module)."""
    _, mods = split_rules(rules)
    return module_info(mods[0] if mods else None)


def hooks_for(config: GameConfig) -> Hooks:
    """The (shared, stateless) hook object for a config."""
    key = config_key(config)
    hooks = SHARED.get(key)
    if hooks is None:
        hooks = SHARED[key] = hooks_class(config.module)(config)
    return hooks


def register_module(name: str, spec: Mapping[str, Any], hooks: type[Hooks]) -> None:
    """Add a module that lives outside this package: ``spec`` is its data, shaped like a
    ``[modules.NAME]`` table of ``cards.toml`` (``players``, ``add``, ``remove``,
    ``variants``…), ``hooks`` its hook class. It then plays as ``fasolki+NAME``."""
    if not (isinstance(hooks, type) and issubclass(hooks, Hooks)):
        raise ConfigError(f"module {name!r}: hooks must be a Hooks subclass, got {hooks!r}")
    _register_spec(name, dict(spec))
    CLASSES[name] = hooks
    SHARED.clear()


def unregister_module(name: str) -> None:
    """Remove a module added by :func:`register_module` (tests clean up with this)."""
    if name in module_names() and name not in catalogue()["modules"]:
        _register_spec(name, None)
        CLASSES.pop(name, None)
        SHARED.clear()


__all__ = [
    "Hooks",
    "ModuleInfo",
    "hooks_class",
    "hooks_for",
    "info_for_rules",
    "module_info",
    "module_json",
    "module_names",
    "module_shapes",
    "register_module",
    "shared_hooks",
    "unregister_module",
]


def _import_builtin_modules() -> None:
    """Import every built-in module's file, so that the action types they declare
    (``ActionType.extend``) exist before any record or JSON action names one."""
    for name in catalogue()["modules"]:
        hooks_class(name)


_import_builtin_modules()
# An action type named before its module was imported (a record read first) is found
# by importing the built-in modules (bohnanza.actions does not import this layer).
add_type_loader(_import_builtin_modules)


def module_shapes(rules: str) -> list[dict[str, Any]]:
    """The shapes (:meth:`~bohnanza.shapes.ActionShape.to_json`) of every action of a rule
    set spelled like ``fasolki+duel``, in its rules' listing order: what the web page
    builds its buttons and pickers from (sent as ``actions`` with the table's module
    info, :func:`module_json`)."""
    _, mods = split_rules(rules)
    cls = hooks_class(mods[0] if mods else None)
    return [rule.shape().to_json() for rule in cls.rule_classes]


def module_json(rules: str) -> dict[str, Any]:
    """What the web page is told of a rule set's module (sent with the table):
    :meth:`ModuleInfo.to_json`, with ``actions``, the shape of every action
    (:func:`module_shapes`), and ``action_labels`` naming each of the module's own
    actions (its shape's label, unless the ModuleInfo names it)."""
    out = info_for_rules(rules).to_json()
    shapes = module_shapes(rules)
    labels = {s["type"]: s["label"] for s in shapes if s["type"] not in BASE_SHAPES}
    labels.update(out.get("action_labels", {}))
    out["action_labels"] = labels
    out["actions"] = shapes
    return out
