"""The built-in agents by name: the registry every spec is looked up in first
(:mod:`.specs`). A new built-in agent is one line in ``AGENTS`` (plus one in
``DESCRIPTIONS``, else the first line of its docstring describes it, and one in
``PARAMETERS`` if it takes any). It imports every bot and is imported by the resolving
(:mod:`.specs`) and the package; no bot imports it.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Agent
from .heuristic import HeuristicAgent
from .heuristic_v1 import HeuristicV1Agent
from .params import ParamReader, heuristic_parameters, search_parameters
from .probes import AcceptAllAgent, LeaderShyAgent, SpamAgent
from .search import SearchAgent
from .simple import AutarkyAgent, RandomAgent
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
