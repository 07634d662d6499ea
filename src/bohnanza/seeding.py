"""Where every seed of a run comes from: one place for the formulas.

A run (``bohnanza simulate``, a tournament, the benchmark suite, the invariant checker)
has one seed ``S``. Game ``i`` of the run is seeded :func:`game_seed` ``(S, i) = S + i``
and the agent at seat ``k`` of a game seeded ``g`` is seeded :func:`agent_seed`
``(g, k) = g * 1009 + k``. Every tool that plays seeded games with bots goes through these
two functions, so a game of a tournament is the game ``bohnanza simulate`` plays for the
same seed and line-up, and a failure of the checker reproduces with either.

The numbers are part of stored results (tournament databases, benchmark reports, records
and the tests that compare against them): changing a formula changes every game played
since. A few places seed differently on purpose; they have their own named functions here
rather than an inline formula:

* :func:`table_agent_seed`: a bot at a web table, seeded by the table's seed, its seat and
  the table's sequence number (two tables with the same seed get different bots);
* :func:`load_client_seed`: a client of the web load generator (``bohnanza load``);
* :func:`checker_seed`: the invariant checker's own choices (which actions to probe), kept
  apart from the game's and the agents' generators so that checking does not change the game.

Run seeds from 900,001 on are held out for published figures, each range used once: the
seed ledger (``docs/seeds.toml``, :mod:`bohnanza.tournament.ledger`) records which were.
"""

from __future__ import annotations

__all__ = [
    "AGENT_STRIDE",
    "agent_seed",
    "agent_seeds",
    "checker_seed",
    "game_seed",
    "game_seeds",
    "load_client_seed",
    "table_agent_seed",
]

#: The factor between the seeds of consecutive games' agents: a prime larger than any
#: table, so that the agents of two different games never share a seed.
AGENT_STRIDE = 1009


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game ``index`` (0-based) of a run seeded ``run_seed``."""
    return run_seed + index


def game_seeds(run_seed: int, games: int) -> list[int]:
    """The seeds of the first ``games`` games of a run seeded ``run_seed``, in order."""
    return [game_seed(run_seed, i) for i in range(games)]


def agent_seed(game_seed: int, seat: int) -> int:
    """The seed of the agent at ``seat`` in a game seeded ``game_seed``."""
    return game_seed * AGENT_STRIDE + seat


def agent_seeds(game_seed: int, players: int) -> list[int]:
    """The seeds of the agents at every seat of a game seeded ``game_seed``, seat 0 first."""
    return [agent_seed(game_seed, k) for k in range(players)]


def table_agent_seed(table_seed: int, seat: int, sequence: int) -> int:
    """The seed of a bot playing ``seat`` at a web table (the table's ``seed`` setting and
    its sequence number ``sequence``), reduced to 31 bits for storage."""
    return (table_seed * AGENT_STRIDE + seat * 7919 + sequence) % 2**31


def load_client_seed(run_seed: int, table: int, seat: int) -> int:
    """The seed of the load generator's client playing ``seat`` at its ``table``-th table."""
    return run_seed * 7919 + table * 31 + seat


def checker_seed(game_seed: int) -> int:
    """The seed of the invariant checker's own random choices for a game seeded
    ``game_seed`` (see :mod:`bohnanza.testing.checker`)."""
    return game_seed * 7919 + 17
