"""Agent specs: the one way every command (simulate, tournament, play, the web lobby)
names an agent, built-in or someone else's.

A spec is one item of a comma-separated ``--agents`` list (so it holds no comma)::

    NAME[:PARAMS]             a registered agent (``bohnanza.agents.AGENTS``), or an agent
                              published by an installed package in the entry-point group
                              ``bohnanza.agents`` under NAME
    MODULE:ATTR[:PARAMS]      any importable agent class or factory, e.g.
                              ``mypkg.bots:Greedy`` (MODULE and ATTR may be dotted)

The first part decides, in this order: a registered name, an entry-point name, else a
module to import (then the second part is required). So a module that happens to share a
registered or published name is reached through a dotted path, and a name in
``AGENTS`` cannot be taken over by a package.

``PARAMS`` is the rest of the spec after ``NAME:`` (or ``MODULE:ATTR:``), handed whole to
the agent's parameter reader, which turns it into keyword arguments for its factory:

* a registered agent's reader is ``PARAMETERS[name]`` (``search:0.2:d8``); without one
  the agent takes no parameters;
* an external agent's reader is its factory's ``spec_params(text) -> dict`` when it has
  one; otherwise PARAMS is ``KEY=VALUE`` pairs separated by ``:`` whose values read as
  int, float, ``true``/``false``/``none`` or else text (``mypkg.bots:Greedy:greed=0.7``).

The factory is called as ``factory(seed, **kwargs)`` and must return an :class:`Agent`.
Workers (process pools under any start method, Ray tasks) receive the spec text, never a
class, and resolve it themselves; :func:`import_paths` names the folders they need on
``sys.path`` for that.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .base import Agent
from .params import (
    ParamReader,
    keyword_parameters,
    search_parameters,
)
from .registry import AGENTS, DESCRIPTIONS, PARAMETERS

#: The entry-point group installed packages publish their agents in.
ENTRY_POINT_GROUP = "bohnanza.agents"

Factory = Callable[..., Agent]


def one_line(exc: BaseException) -> str:
    """An exception as one line of text (error messages are one line)."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# ---------------------------------------------------------------------------- resolving


@dataclass(frozen=True)
class Resolved:
    """What a spec names: its factory, the keyword arguments its parameters gave, and
    where it came from (``builtin``, ``entry point`` or ``module``)."""

    spec: str
    name: str
    source: str
    factory: Factory
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    #: Folders a worker needs on ``sys.path`` to resolve the spec itself.
    paths: tuple[str, ...] = ()

    def build(self, seed: int) -> Agent:
        """A fresh agent (one per seat and game); a failing factory is a ConfigError."""
        try:
            agent = self.factory(seed, **self.kwargs)
        except ConfigError:
            raise
        except Exception as exc:
            raise ConfigError(f"agent {self.spec!r} could not be made: {one_line(exc)}") from None
        if not isinstance(agent, Agent):
            raise ConfigError(
                f"agent {self.spec!r}: its factory returned {type(agent).__name__}, "
                "not a bohnanza.agents.Agent"
            )
        return agent


#: Resolved entry-point and module specs: looking up entry points scans every installed
#: distribution, too slow to repeat for every seat of every game.
_CACHE: dict[str, Resolved] = {}


#: Agents of optional extras, by name: resolved as ``MODULE:ATTR`` specs (imported only
#: when named, so a missing extra fails with the spec, not at start-up; kept out of the
#: registry, so that the web lobby does not offer them).
OPTIONAL: dict[str, str] = {
    "openspiel-ismcts": "bohnanza.rl.openspiel:ISMCTSAgent",  # needs open-spiel (docs/rl.md)
    # A trained policy file (bohnanza train export): rl:PATH, rl:PATH:sample; numpy only.
    "rl": "bohnanza.rl.policy:PolicyAgent",
}


def _registry() -> tuple[Mapping[str, Factory], Mapping[str, ParamReader], Mapping[str, str]]:
    return AGENTS, PARAMETERS, DESCRIPTIONS


def entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    """Published agents by name (the first of a name wins; registered names are kept)."""
    agents, _, _ = _registry()
    out: dict[str, importlib.metadata.EntryPoint] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name not in agents and ep.name not in out and ":" not in ep.name:
            out[ep.name] = ep
    return out


def _root_of(module_name: str) -> list[str]:
    """The ``sys.path`` folders holding the top-level package of ``module_name``."""
    top = sys.modules.get(module_name.split(".")[0])
    spec = getattr(top, "__spec__", None)
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [str(Path(p).parent) for p in spec.submodule_search_locations]
    if spec.origin and spec.has_location:
        return [str(Path(spec.origin).parent)]
    return []


def _external(spec: str, target: str, load: Callable[[], Any]) -> Factory:
    try:
        obj = load()
    except ConfigError as exc:
        raise ConfigError(f"agent {spec!r}: {exc}") from None
    except Exception as exc:
        raise ConfigError(f"agent {spec!r}: cannot load {target}: {one_line(exc)}") from None
    if inspect.isclass(obj):
        if not issubclass(obj, Agent):
            raise ConfigError(
                f"agent {spec!r}: {target} is a class but not a bohnanza.agents.Agent subclass"
            )
    elif not callable(obj):
        raise ConfigError(f"agent {spec!r}: {target} is not a class or a factory function")
    return obj  # type: ignore[no-any-return]


def _params_of(spec: str, factory: Factory, rest: str | None) -> dict[str, Any]:
    if rest is None:
        return {}
    reader: ParamReader | None = getattr(factory, "spec_params", None)
    try:
        return dict((reader or keyword_parameters)(rest))
    except ConfigError as exc:
        raise ConfigError(f"agent {spec!r}: {exc}") from None
    except Exception as exc:
        raise ConfigError(f"agent {spec!r}: bad parameters: {one_line(exc)}") from None


def resolve_agent(spec: str) -> Resolved:
    """What ``spec`` names (see the module's docstring), or a one-line ConfigError."""
    text = spec.strip()
    hit = _CACHE.get(text)
    if hit is not None:
        return hit
    agents, readers, _ = _registry()
    first, sep, rest = text.partition(":")
    first = first.strip()
    if not first:
        raise ConfigError(f"empty agent name in {spec!r}")
    if first in agents:
        if sep and first not in readers:
            raise ConfigError(f"agent {first!r} takes no parameters (got {text!r})")
        try:
            kwargs = readers[first](rest) if sep else {}
        except ConfigError as exc:
            raise ConfigError(f"{exc} (in {text!r})") from None
        # Not cached: a lookup is cheap, and the registry may change (tests patch it).
        return Resolved(text, first, "builtin", agents[first], kwargs)
    else:
        published = entry_points()
        if first in OPTIONAL:
            module, _, attr = OPTIONAL[first].partition(":")
            factory = _external(text, OPTIONAL[first], lambda: _load(module, attr))
            kwargs = _params_of(text, factory, rest if sep else None)
            resolved = Resolved(text, first, "module", factory, kwargs, tuple(_root_of(module)))
        elif first in published:
            ep = published[first]
            factory = _external(text, f"entry point {ep.name} = {ep.value}", ep.load)
            paths = _root_of(ep.module)
            if ep.dist is not None:
                paths.append(str(ep.dist.locate_file("")))
            kwargs = _params_of(text, factory, rest if sep else None)
            resolved = Resolved(text, first, "entry point", factory, kwargs, tuple(paths))
        elif sep:
            attr, sep2, params = rest.partition(":")
            attr = attr.strip()
            dotted = [*first.split("."), *attr.split(".")]
            if not attr or not all(p.isidentifier() for p in dotted):
                raise ConfigError(f"agent {text!r}: expected MODULE:ATTR, e.g. mypkg.bots:Greedy")
            factory = _external(text, f"{first}:{attr}", lambda: _load(first, attr))
            kwargs = _params_of(text, factory, params if sep2 else None)
            name = f"{first}:{attr}"
            resolved = Resolved(text, name, "module", factory, kwargs, tuple(_root_of(first)))
        else:
            known = ", ".join(sorted({*agents, *published}))
            raise ConfigError(
                f"unknown agent {first!r}; known agents: {known} (or MODULE:CLASS for your own)"
            )
    _CACHE[text] = resolved
    return resolved


def _load(module: str, attr: str) -> Any:
    try:
        obj: Any = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            raise ConfigError(f"no module named {exc.name!r} (is it on PYTHONPATH?)") from None
        raise
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"module {module!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def check_agent(spec: str) -> Resolved:
    """Resolve ``spec`` and make one agent, so that a broken factory or bad parameters
    are reported before any game starts (and not by a worker, mid-run)."""
    resolved = resolve_agent(spec)
    resolved.build(0)
    return resolved


def import_paths(specs: Iterable[str]) -> tuple[str, ...]:
    """Folders the code behind ``specs`` was loaded from, for workers whose ``sys.path``
    lacks them (Ray workers do not inherit the driver's)."""
    out: list[str] = []
    for spec in specs:
        for p in resolve_agent(spec).paths:
            if p not in out:
                out.append(p)
    return tuple(out)


def add_import_paths(paths: Iterable[str]) -> None:
    """Worker set-up: append the folders of :func:`import_paths` that ``sys.path`` lacks
    (appended, so that the worker's own packages come first)."""
    for p in paths:
        if p not in sys.path:
            sys.path.append(p)


# ---------------------------------------------------------------------------- listing


def _first_line(obj: Any) -> str:
    text = getattr(obj, "description", None)
    if not isinstance(text, str):
        text = inspect.getdoc(obj) or ""
    return text.strip().splitlines()[0] if text.strip() else ""


#: The forms of a spec that are not one registered name, one line each for
#: ``bohnanza agents``: the optional extras' agents (:data:`OPTIONAL`) and your own.
OTHER_FORMS: dict[str, tuple[str, str]] = {
    "rl:PATH": (
        "optional",
        "a trained policy file (bohnanza train export), greedy; rl:PATH:grouped, "
        "rl:PATH:sample, rl:PATH:tT; numpy only (docs/rl.md)",
    ),
    "openspiel-ismcts:SIMS": (
        "optional",
        "OpenSpiel's information-set MCTS, SIMS simulations a decision (30 without), "
        "leaves valued by the coin standing; needs open-spiel (docs/rl.md)",
    ),
    "openspiel-ismcts:SIMS:value": (
        "optional",
        "the same with leaves valued by the value model (valuesearch's): the outside "
        "yardstick; needs open-spiel and numpy (docs/rl.md)",
    ),
    "MODULE:CLASS[:KEY=VALUE...]": (
        "module",
        "your own Agent class or factory, importable, with keyword parameters (docs/bots.md)",
    ),
}


def describe_agents() -> list[dict[str, Any]]:
    """Every form a spec can take: the registered agents (``form`` says how to give one
    parameters), the published ones (a published agent that fails to load is listed
    with the reason), then :data:`OTHER_FORMS`."""
    agents, readers, descriptions = _registry()
    out: list[dict[str, Any]] = []
    for name, factory in agents.items():
        out.append(
            {
                "name": name,
                "source": "builtin",
                "description": descriptions.get(name) or _first_line(factory),
                "parameters": name in readers,
                "form": f"{name}[:PARAMS]" if name in readers else name,
            }
        )
    for name, ep in sorted(entry_points().items()):
        item: dict[str, Any] = {
            "name": name,
            "source": "entry point",
            "package": ep.dist.name if ep.dist is not None else None,
            "target": ep.value,
        }
        try:
            item["description"] = _first_line(resolve_agent(name).factory)
        except ConfigError as exc:
            item["description"] = ""
            item["error"] = str(exc)
        out.append(item)
    for form, (source, text) in OTHER_FORMS.items():
        first = form.partition(":")[0]
        out.append(
            {
                "name": form,
                "source": source,
                "target": OPTIONAL.get(first, "your module"),
                "description": text,
                "parameters": True,
                "form": form,
            }
        )
    return out


__all__ = [
    "ENTRY_POINT_GROUP",
    "Resolved",
    "add_import_paths",
    "check_agent",
    "describe_agents",
    "entry_points",
    "import_paths",
    "keyword_parameters",
    "one_line",
    "resolve_agent",
    "search_parameters",
]
