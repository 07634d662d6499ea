"""Agents: players behind one interface that sees only a seat's :class:`View`.

An agent is asked :meth:`Agent.act` with the seat's view and the list of legal actions
(computed by the engine from what that seat may know). When ``required`` is false the
agent may answer ``None``: "nothing now".

Commands name agents by *spec* (:mod:`.specs`): a name registered here, an agent
published by a package in the ``bohnanza.agents`` entry-point group, or ``module:Class``.
The built-in names are in :mod:`.registry`.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence

from ..errors import ConfigError
from .base import Agent
from .heuristic import HeuristicAgent
from .heuristic_v1 import HeuristicV1Agent
from .registry import AGENTS, DESCRIPTIONS, PARAMETERS
from .search import SearchAgent
from .simple import AutarkyAgent, RandomAgent
from .specs import check_agent, describe_agents, resolve_agent
from .valuesearch import ValueSearchAgent

#: The bot that fills seats when nobody chooses one (the web lobby, ``bohnanza play``).
DEFAULT_BOT = "heuristic"


def lobby_agents() -> list[str]:
    """The registered agents a web lobby offers: a language model only when the server
    was started with an endpoint in its environment (``BOHNANZA_LLM_URL`` and
    ``BOHNANZA_LLM_MODEL``), since without one it cannot play; ``valuesearch`` only
    where numpy is installed."""
    configured = bool(os.environ.get("BOHNANZA_LLM_URL") and os.environ.get("BOHNANZA_LLM_MODEL"))
    # valuesearch reads its model with numpy (the rl extra), which a server may lack.
    numpy = importlib.util.find_spec("numpy") is not None
    # In the order of DESCRIPTIONS: the playing bots first, the test probes last.
    ordered = [b for b in DESCRIPTIONS if b in AGENTS] + sorted(set(AGENTS) - set(DESCRIPTIONS))
    return [b for b in ordered if (b != "llm" or configured) and (b != "valuesearch" or numpy)]


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
    "DEFAULT_BOT",
    "DESCRIPTIONS",
    "PARAMETERS",
    "Agent",
    "AutarkyAgent",
    "HeuristicAgent",
    "HeuristicV1Agent",
    "RandomAgent",
    "SearchAgent",
    "ValueSearchAgent",
    "agent_names",
    "check_agent",
    "describe_agents",
    "lobby_agents",
    "make_agent",
    "resolve_agent",
]
