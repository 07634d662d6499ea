"""The games that pin the ``heuristic`` bot's play (tests/test_heuristic_digest.py), and
how their digests are computed.

Issue 34 made the bot cheaper with the same decisions; this pin keeps it so: every game
below is played to its end with the engine's default generator (seeds 1, 2, ...), and the
SHA-256 of its action log (seat and action of every action taken, then the scores) must
match tests/data/heuristic_digest.json. A change that alters one decision of the bot, in
any pinned table, fails the test.

The digests were made from the code before issue 34's speed-up (main at fa460a5) and
hold after it. A change that *means* to alter play (a retuned constant, a new rule) or the
deals (another shuffle generator, other seeding) regenerates them on purpose, after
checking the new play, with::

    PYTHONPATH=src python tests/heuristic_pin.py > tests/data/heuristic_digest.json
"""

from __future__ import annotations

import hashlib
import json

from bohnanza import Game
from bohnanza.agents import make_agent
from bohnanza.driver import play
from bohnanza.seeding import agent_seed

#: (rules, players, options, agents per seat, games): every rule set the bot plays, and
#: the parameters and subclasses of the bot (memory, rivalry, hand card, kingmaking,
#: the probes' overridden offer lists) that go through its other paths.
PINNED: tuple[tuple[str, int, dict[str, str], tuple[str, ...], int], ...] = (
    ("classic", 4, {}, ("heuristic",) * 4, 4),
    ("classic", 3, {}, ("heuristic",) * 3, 3),
    ("classic", 5, {}, ("heuristic",) * 5, 2),
    ("fasolki", 4, {}, ("heuristic",) * 4, 2),
    ("fasolki+fasolufka", 4, {}, ("heuristic",) * 4, 3),
    ("fasolki+fasolufka", 3, {}, ("heuristic",) * 3, 2),
    ("fasolki+fasolkopajaki", 4, {}, ("heuristic",) * 4, 2),
    ("fasolki+new-varieties", 4, {"remove": "glutton"}, ("heuristic",) * 4, 2),
    ("fasolki+duel", 2, {}, ("heuristic",) * 2, 2),
    (
        "classic",
        4,
        {},
        ("heuristic:count", "heuristic:wary", "heuristic:hc0.1", "heuristic:king"),
        2,
    ),
    ("classic", 4, {}, ("probe-shy", "probe-accept", "heuristic:fg0.9", "heuristic"), 1),
)


def table_key(rules: str, players: int, agents: tuple[str, ...]) -> str:
    return f"{rules}/{players}/{','.join(agents)}"


def game_digest(
    rules: str, players: int, options: dict[str, str], agents: tuple[str, ...], seed: int
) -> tuple[str, int]:
    """SHA-256 of one seeded game's action log and scores, and its number of actions."""
    game = Game.new(rules, players, options=options, seed=seed, events=False)
    seats = [make_agent(name, agent_seed(seed, k)) for k, name in enumerate(agents)]
    log = play(game, seats)
    digest = hashlib.sha256()
    for seat, action in log.actions:
        line = json.dumps(action.to_json(), sort_keys=True, separators=(",", ":"))
        digest.update(f"{seat} {line}\n".encode())
    digest.update(f"scores {tuple(game.scores or ())}\n".encode())
    return digest.hexdigest(), len(log.actions)


def table_digest(
    rules: str, players: int, options: dict[str, str], agents: tuple[str, ...], games: int
) -> list[object]:
    """[sha256 over the table's games' digests, total actions]."""
    digest = hashlib.sha256()
    actions = 0
    for seed in range(1, games + 1):
        d, n = game_digest(rules, players, options, agents, seed)
        digest.update(f"{seed} {d}\n".encode())
        actions += n
    return [digest.hexdigest(), actions]


def current() -> dict[str, list[object]]:
    return {
        table_key(rules, players, agents): table_digest(rules, players, options, agents, games)
        for rules, players, options, agents, games in PINNED
    }


if __name__ == "__main__":
    print(json.dumps(current(), indent=1, sort_keys=True))
