"""A bot package outside ``bohnanza``, written to a folder by the tests that need one: a
plain module (``byob_bots``), a distribution publishing two agents through the
``bohnanza.agents`` entry-point group (one of them broken), and a module that fails on
import. Nothing here is imported by the tests themselves: specs name it."""

from __future__ import annotations

import sys
from pathlib import Path

MODULE = "byob_bots"
#: The module's agent by ``module:Class`` spec.
COUNTING = f"{MODULE}:Counting"
#: The names the distribution publishes.
PUBLISHED = "byob-counting"
BROKEN = "byob-broken"
DISTRIBUTION = "byob-bots"

BOTS = '''
"""Someone else's bots: they know bohnanza only through its public Agent class."""

import os

from bohnanza.agents import AutarkyAgent


class Counting(AutarkyAgent):
    """Plays like autarky and counts its decisions."""

    def __init__(self, seed=0, *, bonus=0, trace=""):
        super().__init__(seed)
        self.decisions = 0
        self.bonus = bonus
        self.trace = trace

    def act(self, view, legal, required):
        if self.decisions == 0 and self.trace:
            with open(self.trace, "a") as f:
                f.write(f"{os.getpid()} seat {view.seat}\\n")
        self.decisions += 1
        return super().act(view, legal, required)

    def stats(self):
        return {"decisions": self.decisions, "bonus": self.bonus}


class NotAnAgent:
    """Any class that is not an Agent."""


class BadStats(Counting):
    """Reports text where a number belongs."""

    def stats(self):
        return {"mood": "cheerful"}


class FailingStats(Counting):
    """Its counters cannot be read."""

    def stats(self):
        return {"ratio": 1 / 0}


class Tuned(Counting):
    """Reads its own parameters: ``byob_bots:Tuned:3x`` is a bonus of 3."""

    @staticmethod
    def spec_params(text):
        if not text.endswith("x"):
            raise ValueError("say NUMBERx")
        return {"bonus": int(text[:-1])}


def make_counting(seed):
    """A factory function works as well as a class."""
    return Counting(seed, bonus=7)
'''

METADATA = f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: 1.0\n"
ENTRY_POINTS = f"""[bohnanza.agents]
{PUBLISHED} = {MODULE}:Counting
{BROKEN} = byob_missing_module:Nothing
"""


def write_bots(folder: Path) -> Path:
    """Write the package into ``folder`` (to be put on ``sys.path`` / ``PYTHONPATH``)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{MODULE}.py").write_text(BOTS, encoding="utf-8")
    (folder / "byob_fails_on_import.py").write_text("1 / 0\n", encoding="utf-8")
    info = folder / "byob_bots-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(METADATA, encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return folder


def forget_bots() -> None:
    """Drop the package from this process (imported modules and resolved specs), so that
    a test writing it into another folder resolves it there and not from an earlier test's."""
    from bohnanza.agents import specs

    for name in [m for m in sys.modules if m.startswith("byob_")]:
        del sys.modules[name]
    specs._CACHE.clear()
