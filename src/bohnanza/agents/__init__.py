"""Agents: players behind one interface that sees only a seat's :class:`View`.

An agent is asked :meth:`Agent.act` with the seat's view and the list of legal actions
(computed by the engine from what that seat may know). When ``required`` is false the
agent may answer ``None``: "nothing now".
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from ..errors import ConfigError
from .base import Agent
from .heuristic import HeuristicAgent
from .search import SearchAgent
from .simple import AutarkyAgent, RandomAgent

AGENTS: dict[str, Callable[[int], Agent]] = {
    "random": RandomAgent,
    "autarky": AutarkyAgent,
    "heuristic": HeuristicAgent,
    "search": SearchAgent,
}


def _llm_from_env(seed: int) -> Agent:
    from .llm import make_llm_agent

    return make_llm_agent("llm", seed)


# A language model is a bot everywhere agents are listed (the web lobby) only when an
# endpoint is configured (bohnanza.agents.llm).
if os.environ.get("BOHNANZA_LLM_URL") and os.environ.get("BOHNANZA_LLM_MODEL"):
    AGENTS["llm"] = _llm_from_env


def make_agent(name: str, seed: int = 0) -> Agent:
    """Build an agent by name, or raise ConfigError listing the known ones."""
    if name == "llm" or name.startswith("llm:"):  # a language model (issue 16)
        from .llm import make_llm_agent

        return make_llm_agent(name, seed)
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
        if n not in AGENTS and not (n == "llm" or n.startswith("llm:")):
            raise ConfigError(f"unknown agent {n!r}; known agents: {', '.join(sorted(AGENTS))}")
    if len(names) > players:
        raise ConfigError(f"{len(names)} agents given for {players} players")
    return [names[i % len(names)] for i in range(players)]


__all__ = [
    "AGENTS",
    "Agent",
    "AutarkyAgent",
    "HeuristicAgent",
    "RandomAgent",
    "SearchAgent",
    "agent_names",
    "make_agent",
]
