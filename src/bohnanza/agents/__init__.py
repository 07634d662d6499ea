"""Agents: players behind one interface that sees only a seat's :class:`View`.

An agent is asked :meth:`Agent.act` with the seat's view and the list of legal actions
(computed by the engine from what that seat may know). When ``required`` is false the
agent may answer ``None``: "nothing now".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import ConfigError
from .base import Agent
from .heuristic import HeuristicAgent
from .heuristic_v1 import HeuristicV1Agent
from .probes import AcceptAllAgent, LeaderShyAgent, SpamAgent
from .search import SearchAgent
from .simple import AutarkyAgent, RandomAgent

AGENTS: dict[str, Callable[[int], Agent]] = {
    "random": RandomAgent,
    "autarky": AutarkyAgent,
    "heuristic": HeuristicAgent,
    "heuristic-v1": HeuristicV1Agent,
    "search": SearchAgent,
    "probe-accept": AcceptAllAgent,
    "probe-spam": SpamAgent,
    "probe-shy": LeaderShyAgent,
}

#: One line per bot, for ``--help`` and the web lobby: what it does and how strong it is.
DESCRIPTIONS: dict[str, str] = {
    "random": "uniform over the legal actions: the weakest",
    "autarky": "never trades, plants greedily: a beginner that plays alone",
    "heuristic": "trades actively with everyone, minds the score: the strongest quick bot",
    "heuristic-v1": "the earlier heuristic, frozen as a baseline: trades little",
    "search": "Monte Carlo search over heuristic play-outs: slow (1 s a decision)",
    "probe-accept": "test bot: heuristic that accepts every offer",
    "probe-spam": "test bot: heuristic that floods the table with random offers",
    "probe-shy": "test bot: heuristic that never trades with the leader",
}

#: The bot that fills seats when nobody chooses one (the web lobby, ``bohnanza play``).
DEFAULT_BOT = "heuristic"


def make_agent(name: str, seed: int = 0) -> Agent:
    """Build an agent by name, or raise ConfigError listing the known ones."""
    factory = AGENTS.get(name)
    if factory is None:
        raise ConfigError(f"unknown agent {name!r}; known agents: {', '.join(sorted(AGENTS))}")
    return factory(seed)


def agent_names(spec: str | Sequence[str], players: int) -> list[str]:
    """``"random,autarky"`` for 4 players → the list repeated to fill every seat."""
    names = [n.strip() for n in spec.split(",")] if isinstance(spec, str) else list(spec)
    names = [n for n in names if n]
    if not names:
        raise ConfigError("no agents given")
    for n in names:
        if n not in AGENTS:
            raise ConfigError(f"unknown agent {n!r}; known agents: {', '.join(sorted(AGENTS))}")
    if len(names) > players:
        raise ConfigError(f"{len(names)} agents given for {players} players")
    return [names[i % len(names)] for i in range(players)]


__all__ = [
    "AGENTS",
    "DEFAULT_BOT",
    "DESCRIPTIONS",
    "Agent",
    "AutarkyAgent",
    "HeuristicAgent",
    "HeuristicV1Agent",
    "RandomAgent",
    "SearchAgent",
    "agent_names",
    "make_agent",
]
