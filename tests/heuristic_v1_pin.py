"""The games that pin ``heuristic-v1`` (tests/test_heuristic_v1.py), and how their
fingerprint is computed. Run as a script to print the fingerprints of the current code:
``python tests/heuristic_v1_pin.py``.

Each game is dealt from a full, explicit deck order (a permutation drawn by this file's
own ``random.Random``, not by the engine), and only the decisions made before the draw
pile first runs out are fingerprinted: up to there nothing depends on the engine's
shuffle generator (which reshuffles the discard pile later), so the pin survives a change
of that generator."""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
from collections.abc import Sequence

from bohnanza import Action, Game, View
from bohnanza.agents import Agent, make_agent
from bohnanza.driver import play

#: (rules, players, options, games): every rule set whose legal actions are settled.
PINNED: tuple[tuple[str, int, dict[str, str], int], ...] = (
    ("classic", 3, {}, 3),
    ("classic", 4, {}, 4),
    ("classic", 5, {}, 3),
    ("fasolki", 4, {}, 3),
    ("fasolki+fasolkopajaki", 4, {}, 3),
    ("fasolki+new-varieties", 4, {"remove": "glutton"}, 2),
    ("fasolki+duel", 2, {}, 3),
)


class _Reshuffle(Exception):
    """The draw pile ran out: what follows depends on the engine's shuffle."""


class Recorder(Agent):
    """Passes every decision to the inner agent and writes down what it was asked and
    what it answered, until the first run-out."""

    def __init__(self, inner: Agent, seat: int, out: list[str]) -> None:
        super().__init__(inner.seed)
        self.inner, self.seat, self.out = inner, seat, out
        self.proposes = inner.proposes

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if view.runouts > 0:
            raise _Reshuffle
        choice = self.inner.act(view, legal, required)
        self.out.append(
            json.dumps(
                [self.seat, view.turn, view.phase, len(legal), choice and choice.to_json()],
                sort_keys=True,
            )
        )
        return choice


def fingerprint(agent: str, rules: str, players: int, options: dict[str, str], games: int) -> tuple[str, int]:  # fmt: skip
    """sha256 over every recorded decision of ``games`` games, and their number."""
    lines: list[str] = []
    for k in range(games):
        probe = Game.new(rules, players, options=options, seed=0)
        deck = list(range(probe.config.deck_size))
        random.Random(f"{rules}/{players}/{k}").shuffle(deck)
        game = Game.new(rules, players, options=options, seed=k, deck=deck)
        agents = [Recorder(make_agent(agent, 100 * k + s), s, lines) for s in range(players)]
        with contextlib.suppress(_Reshuffle):
            play(game, agents)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest(), len(lines)


def current(agent: str = "heuristic-v1") -> dict[str, list[object]]:
    out: dict[str, list[object]] = {}
    for rules, players, options, games in PINNED:
        digest, n = fingerprint(agent, rules, players, options, games)
        out[f"{rules}/{players}"] = [digest, n]
    return out


if __name__ == "__main__":
    import sys

    print(json.dumps(current(*sys.argv[1:]), indent=1, sort_keys=True))
