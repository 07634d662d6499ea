"""A comparable picture of an object's state, for the tests that copy, pickle and send
objects to other processes (tests/test_object_protocols.py).

Compiled classes (mypyc) keep their attributes in C slots with no ``__dict__``, so
``vars()`` cannot compare them; what every class, compiled or not, does offer is the
recipe ``pickle`` and ``copy`` use, ``__reduce_ex__``. The picture is that recipe
followed all the way down: two objects with equal pictures are rebuilt from equal
parts. Sets are sorted (their order follows string hashes, which differ between
processes), shared and cyclic references become back-references in the order met.
"""

from __future__ import annotations

import enum
import types
from typing import Any

_ATOMS = (str, int, float, bool, bytes, complex, type(None))
_NAMED = (
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.ModuleType,
    types.MethodType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
)


def _name(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def picture(obj: Any) -> Any:
    """The state of ``obj`` as nested tuples of plain values (see the module)."""
    return _Pictures().of(obj)


class _Pictures:
    def __init__(self) -> None:
        self.seen: dict[int, int] = {}
        self.keep: list[Any] = []  # so that no id is reused while pictures are taken

    def of(self, obj: Any) -> Any:
        if isinstance(obj, float):
            return ("float", repr(obj))  # nan == nan
        if isinstance(obj, _ATOMS):
            return obj
        if isinstance(obj, enum.Enum):
            return ("enum", _name(type(obj)), obj.name)
        if isinstance(obj, _NAMED):
            return ("named", _name(obj))
        if isinstance(obj, tuple) and type(obj) is tuple:
            return ("tuple", tuple(self.of(x) for x in obj))
        if isinstance(obj, frozenset) and type(obj) is frozenset:
            return ("frozenset", tuple(sorted((self.of(x) for x in obj), key=repr)))
        key = id(obj)
        if key in self.seen:
            return ("ref", self.seen[key])
        self.seen[key] = len(self.seen)
        self.keep.append(obj)
        module = type(obj).__module__
        if module == "numpy" and hasattr(obj, "tobytes"):
            return ("ndarray", str(obj.dtype), tuple(obj.shape), obj.tobytes())
        if type(obj) is list:
            return ("list", tuple(self.of(x) for x in obj))
        if type(obj) is dict:
            return ("dict", tuple((self.of(k), self.of(v)) for k, v in obj.items()))
        if type(obj) in (set, frozenset):
            return (type(obj).__name__, tuple(sorted((self.of(x) for x in obj), key=repr)))
        recipe = obj.__reduce_ex__(4)
        if isinstance(recipe, str):
            return ("global", _name(type(obj)), recipe)
        parts = list(recipe) + [None] * (6 - len(recipe))
        func, args, state, items, pairs = parts[:5]
        return (
            "object",
            _name(type(obj)),
            self.of(func),
            self.of(args),
            self.of(state),
            None if items is None else tuple(self.of(x) for x in items),
            None if pairs is None else tuple((self.of(k), self.of(v)) for k, v in pairs),
        )
