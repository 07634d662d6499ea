"""A fingerprint of an agent's code and parameters, so that a resumed tournament never
mixes games played by an older version of a bot with new ones (issue 36).

The code is the file of every module that defines a class of the agent (its factory's
class and that class's bases, or its factory function), and of every module of the same
top-level package those modules refer to (the search's ``bohnanza.determinise``, the
engine's modules it reads: a change there can change the games too): the bytes of the
``.py`` file, or of the compiled extension when the module is compiled. The parameters
are the keyword arguments its spec gives.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from ..agents.specs import resolve_agent


def _modules_of(obj: object) -> Iterator[ModuleType]:
    classes = inspect.getmro(obj) if inspect.isclass(obj) else (obj,)
    for c in classes:
        if c is object:
            continue
        module = sys.modules.get(getattr(c, "__module__", "") or "")
        if module is not None:
            yield module


def _package(module: ModuleType) -> str:
    return module.__name__.partition(".")[0]


def code_modules(factory: object) -> list[ModuleType]:
    """The modules whose files make an agent's code, sorted by name."""
    found: dict[str, ModuleType] = {}
    for module in _modules_of(factory):
        found[module.__name__] = module
        package = _package(module)
        for value in vars(module).values():
            other = value if inspect.ismodule(value) else None
            if other is None:
                other = sys.modules.get(getattr(value, "__module__", None) or "")
            if other is not None and other.__name__.startswith(package + "."):
                found.setdefault(other.__name__, other)
    return [found[n] for n in sorted(found)]


def fingerprint(spec: str) -> str:
    """16 hex digits: the same while the agent's code files and parameters stay the same."""
    resolved = resolve_agent(spec)
    h = hashlib.sha256()
    h.update(json.dumps(dict(resolved.kwargs), sort_keys=True, default=repr).encode())
    for module in code_modules(resolved.factory):
        h.update(module.__name__.encode() + b"\0")
        file = getattr(module, "__file__", None)
        if file and Path(file).is_file():
            h.update(Path(file).read_bytes())
    return h.hexdigest()[:16]


__all__ = ["code_modules", "fingerprint"]
