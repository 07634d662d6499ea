"""The card catalogue, read once from ``data/cards.toml``.

Cards in a game are small ints (card ids) indexing per-game tables built from this
catalogue (see :class:`bohnanza.rules.GameConfig`); nothing here is per game.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from .pickling import dataclass_reduce

#: How a Polish sentence uses a variety's name, each a form stored in the card data
#: (``name_pl`` and ``name_pl_forms``): ``nom`` the name itself (a label, a subject, after
#: a colon), ``acc`` as the object of a verb or after "za" ("daje Niebieską"), ``gen``
#: after "bez"/"brak" ("bez Niebieskiej"), ``few`` after 2, 3, 4, 22… ("3 Niebieskie"),
#: ``many`` after 5–21, 25… and as "a field of" ("5 Niebieskich", "pole Niebieskich").
#: These are all the UI's sentences need: after a number above 1 the form is the same as
#: subject and as object, so counts need no case of their own.
PlForm = Literal["nom", "acc", "gen", "few", "many"]
PL_FORMS: tuple[PlForm, ...] = ("nom", "acc", "gen", "few", "many")


def polish_number(n: int) -> Literal["one", "few", "many"]:
    """Which form a Polish noun takes after the number ``n``: 1 the singular; 2–4 and
    every number ending in 2–4 but 12–14 the plural; the rest the genitive plural."""
    if n == 1:
        return "one"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "few"
    return "many"


@dataclass(frozen=True, slots=True)
class Variety:
    """One bean variety as printed: key, names, how many cards exist, its beanometer."""

    key: str
    name: str
    name_pl: str
    count: int
    beanometer: tuple[int, int, int, int]
    assumed: bool = False
    #: The Polish name's other forms (see :data:`PL_FORMS`); the nominative where the
    #: data has none (the test suite requires them all).
    pl_acc: str = ""
    pl_gen: str = ""
    pl_few: str = ""
    pl_many: str = ""

    def pl(self, form: PlForm = "nom") -> str:
        """The Polish name in the form a sentence needs it in (:data:`PL_FORMS`)."""
        if form == "nom":
            return self.name_pl
        other = {"acc": self.pl_acc, "gen": self.pl_gen, "few": self.pl_few, "many": self.pl_many}
        return other[form] or self.name_pl

    def pl_count(self, n: int, case: Literal["nom", "acc"] = "nom") -> str:
        """``n`` cards of this variety in Polish, as a subject (``nom``) or an object
        (``acc``): "1 Niebieska", "1 Niebieską", "3 Niebieskie", "5 Niebieskich". Only
        the singular differs between the two."""
        number = polish_number(n)
        return f"{n} {self.pl(case if number == 'one' else number)}"

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
        forms = raw.get("name_pl_forms", {})
        out[key] = Variety(
            key=key,
            name=str(raw["name"]),
            name_pl=str(raw.get("name_pl", raw["name"])),
            count=int(raw["count"]),
            beanometer=(bm[0], bm[1], bm[2], bm[3]),
            assumed=bool(raw.get("assumed", False)),
            pl_acc=str(forms.get("acc", "")),
            pl_gen=str(forms.get("gen", "")),
            pl_few=str(forms.get("few", "")),
            pl_many=str(forms.get("many", "")),
        )
    return out


@cache
def lady_beanometers() -> dict[str, tuple[int, ...]]:
    """R-LADY-4 (assumed): beanometers of Fasolufka ladies, by variety."""
    return {k: tuple(int(x) for x in v) for k, v in catalogue()["lady_beanometers"].items()}
