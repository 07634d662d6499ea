"""Read-only containers for views and configs.

Views are handed to bots (and pickled to search worker processes) and configs are shared
by every game of a rule set, so neither may be changed by a reader: a bot that edited
``view.public`` or ``config.options`` would change what other readers see, or the options
recorded for a later game. :class:`types.MappingProxyType` cannot be pickled, so these are
small subclasses of ``dict`` and ``list`` whose mutating methods raise ``TypeError``.
They stay ``dict``/``list`` instances, so JSON encoding and code that tests
``isinstance(value, list)`` work as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NoReturn, TypeVar

_K = TypeVar("_K")
_V = TypeVar("_V")
_T = TypeVar("_T")


def _read_only(self: object, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(f"{type(self).__name__} is read-only")


class FrozenDict(dict[_K, _V]):
    """A ``dict`` that cannot be changed after it is built (hashable if its values are)."""

    __slots__ = ()

    __setitem__ = _read_only
    __delitem__ = _read_only
    __ior__ = _read_only
    clear = _read_only
    pop = _read_only
    popitem = _read_only
    setdefault = _read_only
    update = _read_only

    def __reduce__(self) -> tuple[type[FrozenDict[_K, _V]], tuple[dict[_K, _V]]]:
        return (type(self), (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items(), key=repr)))

    def __copy__(self) -> FrozenDict[_K, _V]:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict[_K, _V]:
        return self

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


class FrozenList(list[_T]):
    """A ``list`` that cannot be changed after it is built."""

    __slots__ = ()

    def __init__(self, items: Iterable[_T] = ()) -> None:
        list.extend(self, items)

    __setitem__ = _read_only
    __delitem__ = _read_only
    __iadd__ = _read_only
    __imul__ = _read_only
    append = _read_only
    extend = _read_only
    insert = _read_only
    pop = _read_only
    remove = _read_only
    clear = _read_only
    sort = _read_only
    reverse = _read_only

    def __reduce__(self) -> tuple[type[FrozenList[_T]], tuple[list[_T]]]:
        return (type(self), (list(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))


__all__ = ["FrozenDict", "FrozenList"]
