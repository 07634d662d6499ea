"""Agents: players behind one interface that sees only a seat's :class:`View`.

An agent is asked :meth:`Agent.act` with the seat's view and the list of legal actions
(computed by the engine from what that seat may know). When ``required`` is false the
agent may answer ``None``: "nothing now".

Commands name agents by *spec* (:mod:`.specs`): a name registered here, an agent
published by a package in the ``bohnanza.agents`` entry-point group, or ``module:Class``.
A new built-in agent is one line in ``AGENTS`` (plus one in ``DESCRIPTIONS``, else the
first line of its docstring describes it, and one in ``PARAMETERS`` if it takes any).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import ConfigError
from .base import Agent
from .heuristic import HeuristicAgent
from .search import SearchAgent
from .simple import AutarkyAgent, RandomAgent
from .specs import (
    ParamReader,
    check_agent,
    describe_agents,
    resolve_agent,
    search_parameters,
)

AGENTS: dict[str, Callable[[int], Agent]] = {
    "random": RandomAgent,
    "autarky": AutarkyAgent,
    "heuristic": HeuristicAgent,
    "search": SearchAgent,
}

#: One line per agent for ``bohnanza agents`` and ``bohnanza rules --json``.
DESCRIPTIONS: dict[str, str] = {
    "random": "Uniform over the legal actions (a few offers per turn).",
    "autarky": "Never trades: keeps what it draws, plants and harvests greedily.",
    "heuristic": "Values cards for its fields and hand order; trades, gifts, harvests, buys.",
    "search": "Monte Carlo search with heuristic roll-outs: search:SECONDS, :Nit, :dTURNS.",
}

#: Readers of ``NAME:PARAMS`` for the registered agents that take parameters.
PARAMETERS: dict[str, ParamReader] = {
    "search": search_parameters,
}


def make_agent(spec: str, seed: int = 0) -> Agent:
    """Build the agent ``spec`` names (a registered name, ``search:0.2``, an entry-point
    name, ``module:Class``), or raise ConfigError naming the known ones."""
    return resolve_agent(spec).build(seed)


def agent_names(spec: str | Sequence[str], players: int) -> list[str]:
    """``"random,autarky"`` for 4 players → the list repeated to fill every seat. Every
    spec is checked by making one agent, so that a broken one fails here."""
    names = [n.strip() for n in spec.split(",")] if isinstance(spec, str) else list(spec)
    names = [n for n in names if n]
    if not names:
        raise ConfigError("no agents given")
    for n in names:
        check_agent(n)
    if len(names) > players:
        raise ConfigError(f"{len(names)} agents given for {players} players")
    return [names[i % len(names)] for i in range(players)]


__all__ = [
    "AGENTS",
    "DESCRIPTIONS",
    "PARAMETERS",
    "Agent",
    "AutarkyAgent",
    "HeuristicAgent",
    "RandomAgent",
    "SearchAgent",
    "agent_names",
    "check_agent",
    "describe_agents",
    "make_agent",
    "resolve_agent",
]
