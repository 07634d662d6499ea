"""How the compiled classes are pickled and copied (docs/design.md, "A compiled core").

``pickle`` and ``copy`` make an object as ``cls.__new__(cls)`` and then set its state.
A class compiled by mypyc runs ``__init__`` inside ``__new__`` (so that its attributes are
always set), with the arguments ``__new__`` was given: none, so every compiled class whose
``__init__`` takes arguments failed to pickle, copy or cross to another process, and with
them OpenSpiel, Ray and the RL environment's ``clone()`` on the compiled build. A class
marked ``allow_interpreted_subclasses`` does not (a Python subclass must be free to define
its own ``__init__``); the others say how they are made again, with one of the recipes
here. ``tests/test_object_protocols.py`` checks every compiled class, on both builds.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def dataclass_reduce(obj: Any) -> tuple[Any, tuple[Any, ...]]:
    """The recipe for a dataclass: its class called again with its fields in order. A
    compiled frozen dataclass also refuses the default restore (its fields set one by
    one, which ``frozen`` forbids)."""
    fields = dataclasses.fields(obj)
    if not all(f.init and not f.kw_only for f in fields):
        raise TypeError(f"{type(obj).__name__}: dataclass_reduce needs positional fields only")
    return (type(obj), tuple(getattr(obj, f.name) for f in fields))


def rebuilt(obj: Any, *args: Any) -> tuple[Any, tuple[Any, ...], Any]:
    """The recipe for a class on a hot path, which ``allow_interpreted_subclasses`` would
    slow down: its class called with ``args`` (cheap ones that its ``__init__`` accepts),
    then every attribute set back as it was (``__getstate__``: mypyc's native one when
    compiled, Python's own otherwise)."""
    return (type(obj), args, obj.__getstate__())
