"""The card catalogue, read once from ``data/cards.toml``.

Cards in a game are small ints (card ids) indexing per-game tables built from this
catalogue (see :class:`bohnanza.rules.GameConfig`); nothing here is per game.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from .pickling import dataclass_reduce


@dataclass(frozen=True, slots=True)
class Variety:
    """One bean variety as printed: key, names, how many cards exist, its beanometer."""

    key: str
    name: str
    name_pl: str
    count: int
    beanometer: tuple[int, int, int, int]
    assumed: bool = False

    def payout(self, beans: int, beanometer: tuple[int, ...] | None = None) -> int:
        """Coins for a field of ``beans`` cards: the highest level reached (R-HARV-2)."""
        coins = 0
        for level, needed in enumerate(beanometer or self.beanometer, start=1):
            if needed and beans >= needed:
                coins = level
        return coins

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


@cache
def catalogue() -> dict[str, Any]:
    """The raw card data file, parsed. Cached: it never changes while running."""
    text = resources.files("bohnanza").joinpath("data/cards.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@cache
def varieties() -> dict[str, Variety]:
    """Every variety of every rule set and module, by key."""
    out: dict[str, Variety] = {}
    for key, raw in catalogue()["varieties"].items():
        bm = tuple(int(x) for x in raw["beanometer"])
        assert len(bm) == 4, key
        out[key] = Variety(
            key=key,
            name=str(raw["name"]),
            name_pl=str(raw.get("name_pl", raw["name"])),
            count=int(raw["count"]),
            beanometer=(bm[0], bm[1], bm[2], bm[3]),
            assumed=bool(raw.get("assumed", False)),
        )
    return out


@cache
def lady_beanometers() -> dict[str, tuple[int, ...]]:
    """R-LADY-4 (assumed): beanometers of Fasolufka ladies, by variety."""
    return {k: tuple(int(x) for x in v) for k, v in catalogue()["lady_beanometers"].items()}
