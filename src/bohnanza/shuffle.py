"""The generators that shuffle the deck, and how a game names them in its record.

A player sees some card ids (their own hand, the turned-up cards); with a predictable
generator those few outputs single out the seed, and the seed gives away every hand and
every future draw. So games shuffle with SHA-256 in counter mode
(:class:`DeckRandom`, named ``"sha256-ctr/1"``): each output is a hash of a secret key and a
counter, and no number of outputs tells anything about the key or the other outputs.
Games dealt without a seed take 128 bits from :mod:`secrets`.

Records made before this generator existed carry no generator name; they were shuffled
by Python's Mersenne Twister (``random.Random``), which :func:`make_generator` still
provides under the name ``"mt19937"`` so that those records replay exactly.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import MutableSequence
from types import FunctionType
from typing import Any, Final, Protocol, TypeVar

from .errors import ConfigError
from .pickling import rebuilt

T = TypeVar("T")

#: The generator of every new game.
DEFAULT = "sha256-ctr/1"
#: Python's ``random.Random``: the generator of records that name none.
LEGACY = "mt19937"
GENERATORS = (DEFAULT, LEGACY)

_DOMAIN = b"bohnanza deck shuffle v1\x00"
_WORDS_PER_BLOCK = 4  # a SHA-256 digest holds four 64-bit words
_TWO_64 = 1 << 64


class Shuffler(Protocol):
    """What the engine needs of a generator: a shuffle, and a state to save and restore."""

    def shuffle(self, x: MutableSequence[Any]) -> None: ...


def fresh_seed() -> int:
    """A seed nobody can guess: 128 bits from the operating system's secure source."""
    return secrets.randbits(128)


def _probe() -> None:
    """Compiled by mypyc along with this module, or not."""


#: Whether the engine's core runs compiled (``BOHNANZA_COMPILE=1``; this module is among
#: the compiled ones): a compiled function is a built-in, not a Python function. A
#: compiled class is made only through its constructor, while plain Python makes a bare
#: instance faster with ``Cls.__new__(Cls)`` (``DeckRandom.copy``, ``Game.clone``).
COMPILED: Final = not isinstance(_probe, FunctionType)


class DeckRandom:
    """SHA-256 in counter mode: word *i* of the stream is a quarter of
    ``SHA-256(key || i // 4)``, and ``key = SHA-256(domain || seed)``.

    Its whole state is the seed and the number of words used, so a copy is two integers
    (the Mersenne Twister copies 625) and a saved game stores one number.

    >>> a, b = DeckRandom(7), DeckRandom(7)
    >>> cards = list(range(10)); a.shuffle(cards)
    >>> again = list(range(10)); b.shuffle(again)
    >>> cards == again, sorted(cards) == list(range(10))
    (True, True)
    """

    __slots__ = ("_block", "_block_index", "_key", "seed", "used")

    name = DEFAULT

    def __init__(self, seed: int, used: int = 0, *, _key: bytes | None = None) -> None:
        if _key is not None:  # copy(): the key is the copied generator's
            self.seed, self.used, self._key = seed, used, _key
            self._block_index = -1
            self._block = b""
            return
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ConfigError(f"seed must be an integer, got {seed!r}")
        if isinstance(used, bool) or not isinstance(used, int) or used < 0:
            raise ConfigError(f"generator position must be a non-negative integer, got {used!r}")
        self.seed = seed
        self.used = used
        # The decimal text keeps every integer (negative, or wider than 128 bits) distinct.
        self._key = hashlib.sha256(_DOMAIN + str(seed).encode("ascii")).digest()
        self._block_index = -1
        self._block = b""

    def __reduce__(self) -> tuple[Any, ...]:  # compiled and hot: see bohnanza.pickling
        return rebuilt(self, self.seed, self.used)

    def _word(self) -> int:
        index, offset = divmod(self.used, _WORDS_PER_BLOCK)
        if index != self._block_index:
            self._block = hashlib.sha256(self._key + index.to_bytes(8, "big")).digest()
            self._block_index = index
        self.used += 1
        start = offset * 8
        return int.from_bytes(self._block[start : start + 8], "big")

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``0 .. n-1`` (rejection sampling: no modulo bias)."""
        if n <= 0:
            raise ValueError(f"randbelow needs a positive bound, got {n}")
        limit = _TWO_64 - _TWO_64 % n
        while True:
            w = self._word()
            if w < limit:
                return w % n

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Fisher–Yates, in place, from the last position down."""
        for i in range(len(x) - 1, 0, -1):
            j = self.randbelow(i + 1)
            x[i], x[j] = x[j], x[i]

    def copy(self) -> DeckRandom:
        if COMPILED:  # a compiled class is made only through its constructor
            g = DeckRandom(self.seed, self.used, _key=self._key)
        else:
            g = DeckRandom.__new__(DeckRandom)
            g.seed, g.used, g._key = self.seed, self.used, self._key
        g._block_index = self._block_index
        g._block = self._block
        return g

    def getstate(self) -> dict[str, Any]:
        return {"name": self.name, "used": self.used}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeckRandom) and self.seed == other.seed and self.used == other.used

    def __hash__(self) -> int:
        return hash((self.seed, self.used))

    def __repr__(self) -> str:
        return f"DeckRandom({self.seed!r}, used={self.used})"


Generator = DeckRandom | random.Random


def make_generator(name: str, seed: int) -> Generator:
    """The generator called ``name``, seeded; an unknown name raises ConfigError."""
    if name == DEFAULT:
        return DeckRandom(seed)
    if name == LEGACY:
        return random.Random(seed)
    raise ConfigError(f"unknown shuffle generator {name!r}; known: {', '.join(GENERATORS)}")


def generator_name(rng: Generator) -> str:
    return DEFAULT if isinstance(rng, DeckRandom) else LEGACY


def copy_generator(rng: Generator) -> Generator:
    if isinstance(rng, DeckRandom):
        return rng.copy()
    # Seeded with a constant, then overwritten: Random() would read the OS's entropy
    # twice first, the dearest part of a clone on a server (one per move).
    g = random.Random(0)
    g.setstate(rng.getstate())
    return g


def save_generator(rng: Generator) -> Any:
    """JSON-ready state: ``{"name", "used"}`` for the hash generator; the Mersenne Twister's
    ``[version, internal, gauss]`` list, as saved states have always stored it."""
    if isinstance(rng, DeckRandom):
        return rng.getstate()
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def load_generator(data: Any, seed: int) -> Generator:
    """The inverse of :func:`save_generator` (the hash generator's key comes from the seed)."""
    if isinstance(data, dict):
        if data.get("name") != DEFAULT:
            raise ConfigError(f"unknown shuffle generator {data.get('name')!r}")
        return DeckRandom(seed, data.get("used", -1))
    version, internal, gauss = data
    g = random.Random(0)
    g.setstate((int(version), tuple(int(x) for x in internal), gauss))
    return g


#: The public names (tests/test_public_api.py; CHANGELOG.md says when they change).
__all__ = [
    "COMPILED",
    "DEFAULT",
    "GENERATORS",
    "LEGACY",
    "DeckRandom",
    "Shuffler",
    "copy_generator",
    "fresh_seed",
    "generator_name",
    "load_generator",
    "make_generator",
    "save_generator",
]
