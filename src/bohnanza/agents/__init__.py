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

import importlib.util
import os
from collections.abc import Callable, Sequence

from ..errors import ConfigError
from .base import Agent
from .heuristic import HeuristicAgent
from .heuristic_v1 import HeuristicV1Agent
from .probes import AcceptAllAgent, LeaderShyAgent, SpamAgent
from .search import SearchAgent
from .simple import AutarkyAgent, RandomAgent
from .specs import (
    ParamReader,
    check_agent,
    describe_agents,
    heuristic_parameters,
    resolve_agent,
    search_parameters,
)
from .valuesearch import ValueSearchAgent, valuesearch_parameters


def _llm(seed: int, target: str = "") -> Agent:
    """``llm`` (model and URL from the environment) or ``llm:MODEL@URL``."""
    from .llm import make_llm_agent  # HTTP machinery only for those who use it

    return make_llm_agent(f"llm:{target}" if target else "llm", seed)


def llm_parameters(text: str) -> dict[str, str]:
    """Everything after ``llm:`` is the target, colons (``http://host:8000``) included;
    checked here, so that a bad one fails before any worker starts."""
    from .llm import endpoint_from_spec

    endpoint_from_spec(f"llm:{text}")
    return {"target": text}


AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "autarky": AutarkyAgent,
    "heuristic": HeuristicAgent,
    "heuristic-v1": HeuristicV1Agent,
    "search": SearchAgent,
    "valuesearch": ValueSearchAgent,
    "probe-accept": AcceptAllAgent,
    "probe-spam": SpamAgent,
    "probe-shy": LeaderShyAgent,
    "llm": _llm,
}

#: Readers of ``NAME:PARAMS`` for the registered agents that take parameters.
PARAMETERS: dict[str, ParamReader] = {
    "heuristic": heuristic_parameters,
    "search": search_parameters,
    "valuesearch": valuesearch_parameters,
    "llm": llm_parameters,
}

#: One line per bot, for ``--help`` and the web lobby: what it does and how strong it is.
DESCRIPTIONS: dict[str, str] = {
    "random": "uniform over the legal actions: the weakest",
    "autarky": "never trades, plants greedily: a beginner that plays alone",
    "heuristic": "trades actively with everyone, minds the score: the strongest quick bot",
    "heuristic-v1": "the earlier heuristic, frozen as a baseline: trades little",
    "search": (
        "Monte Carlo search of each trading decision over heuristic play-outs, buys its "
        "third field sooner, keeps hand cards for ties, trades more: about 0.03 s a "
        "searched decision, wins 54% against three heuristic bots (parity: 25%)"
    ),
    "valuesearch": (
        "search whose roll-outs stop at the end of the trading and are scored by a value "
        "model learned from play, more candidates, opponents modelled by their refusals "
        "(docs/value.md; needs numpy)"
    ),
    "probe-accept": "test bot: heuristic that accepts every offer",
    "probe-spam": "test bot: heuristic that floods the table with random offers",
    "probe-shy": "test bot: heuristic that never trades with the leader",
    "llm": "a language model behind an OpenAI-compatible endpoint: llm:MODEL@URL (docs/llm.md)",
}

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
