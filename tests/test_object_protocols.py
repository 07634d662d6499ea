"""Every class of the modules mypyc compiles survives what Python does to objects: pickle
there and back, ``copy.copy``, ``copy.deepcopy``, and a trip to another process (spawn),
with the same state after (docs/design.md, "A compiled core").

A compiled class is not a Python class: by default its ``__new__`` runs ``__init__`` with
the arguments ``__new__`` got, so pickle's and copy's ``cls.__new__(cls)`` failed for every
class whose ``__init__`` takes arguments (``Encoding``, ``Memory``), and with it OpenSpiel,
Ray and the environment's ``clone()`` on the compiled build. The classes are found by
listing the compiled modules (pyproject.toml), their instances by walking the objects of
real games of every rule set, of the bots that play them and of the RL environment; a class
no walk reaches has to be named below with the reason. Both builds run this file: the pure
one shows that the check itself holds.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import importlib
import multiprocessing
import pickle
import tomllib
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import bohnanza
from bohnanza import Game
from bohnanza.agents import make_agent
from bohnanza.agents.base import Agent
from bohnanza.driver import AgentError, play
from bohnanza.testing.checker import configurations
from object_state import picture

ROOT = Path(__file__).resolve().parent.parent

#: One xdist worker runs the file: its instances are gathered once (a module fixture).
#: The file runs in the long mode (CI: the pure build's long stage and the compiled pass,
#: where it matters most); gathering and picturing the instances takes a minute or more.
pytestmark = [pytest.mark.xdist_group("object_protocols"), pytest.mark.long]

#: Classes that no walk of a game reaches, and why they need not (or are checked apart).
NOT_REACHED = {
    # Never instantiated: bases, abstract rules and the compiled enum alias.
    "bohnanza.actions._T": "an alias of ActionType",
    "bohnanza.modules.operations.Rule": "the abstract base of every rule",
    "bohnanza.modules.operations.TradeRule": "an abstract base of the trading rules",
    "bohnanza.modules.operations.OfferAnswerRule": "an abstract base of accept/decline",
    "bohnanza.modules.operations.AnytimeRule": "an abstract base of the any-time rules",
    "bohnanza.modules.fasolufka.PendingRule": "an abstract base of Fasolufka's answers",
    "bohnanza.agents.base.Agent": "the base class; its subclasses are walked",
    # Control flow and values that live only inside one call.
    "bohnanza.agents.search._Stop": "an exception the search raises and catches itself",
    "bohnanza.driver.AgentError": "an exception: checked by test_the_failures_pickle",
    "bohnanza.driver.AgentFailed": "an exception: checked by test_the_failures_pickle",
    "bohnanza.views._SEAT_VIEW": "a type alias",
    "bohnanza.shuffle.Shuffler": "a Protocol: the generators are random.Random and DeckRandom",
    "bohnanza.modules.duel.DuelStepRule": "an abstract base of the duel's steps",
    "bohnanza.modules.operations.DecisionRule": "the abstract base of a decision's answer",
    "bohnanza.refusals.Explanation": "built for a refusal's message: checked apart below",
    "bohnanza.modules.info.EventLabel": "module metadata: checked apart below",
    "bohnanza.modules.info.PileTurn": "module metadata: checked apart below",
    "bohnanza.modules.info.EncodingHints": "module metadata: checked apart below",
    "bohnanza.agents.heuristic._Context": "lives within one decision of the heuristic",
    "bohnanza.agents.search._Rollout": "lives within one decision of the search",
    "bohnanza.determinise.HandInference": "lives within one determinisation",
}


def compiled_classes() -> dict[str, type]:
    """Every class defined in a module that pyproject.toml lists for mypyc."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        paths = tomllib.load(f)["tool"]["bohnanza"]["compile"]["modules"]
    out: dict[str, type] = {}
    for path in paths:
        name = path.removesuffix(".py").replace("/", ".")
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, type) and value.__module__ == name:
                out[f"{name}.{attr}"] = value
    return out


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class _Watcher(Agent):
    """Plays as the wrapped bot and, every few decisions, keeps the game's objects."""

    def __init__(self, inner: Agent, game: Game, roots: list[Any], every: int) -> None:
        super().__init__(0)
        self.inner, self.game, self.roots, self.every, self.n = inner, game, roots, every, 0

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def act(self, view: Any, legal: Any, required: bool) -> Any:
        self.n += 1
        if self.n % self.every == 0:
            self.roots.extend([view, list(legal), self.game.clone(), self.inner])
        return self.inner.act(view, legal, required)


def _games() -> Iterator[Any]:
    """Objects of real play: a game of every other configuration (every rule set and
    module), most stopped midway (offers and decisions open), a few played to the end;
    the search bot in the short ones."""
    specs = ("heuristic", "search:2ro", "autarky", "random", "heuristic-v1")
    for i, (rules, players, options) in enumerate(configurations()):
        if i % 2:
            continue  # every rule set and module is among the even ones
        whole = i % 6 == 0
        game = Game.new(rules, players, options=options, seed=100 + i)
        roots: list[Any] = []
        names = [specs[(i + s) % len(specs)] for s in range(players)]
        if whole:
            names = [n if n != "search:2ro" else "heuristic" for n in names]
        agents = [
            _Watcher(make_agent(name, seed=s), game, roots, 41) for s, name in enumerate(names)
        ]
        with contextlib.suppress(AgentError):  # the short ones stop with an AgentError
            yield play(game, agents, max_actions=200_000 if whole else 250)
        yield from roots
        yield game
        yield game.view(0)
        yield game.view(None, lazy=False)
        yield from agents


def _engine_objects() -> Iterator[Any]:
    """What lives only within one call (a decision, a determinisation), built directly."""
    from bohnanza.agents.heuristic import Position, tables_for
    from bohnanza.cards import varieties
    from bohnanza.determinise import Determiniser
    from bohnanza.game import Pending
    from bohnanza.schedule import AskLoop, TradeScheduler

    game = Game.new("classic", 4, seed=9)
    scheduler = TradeScheduler()
    loop = AskLoop(game, scheduler)
    yield [scheduler, loop, loop.next()]
    yield [tables_for(game.config), Position(game.view(0), tables_for(game.config))]
    yield Determiniser(game.view(1))
    yield Pending(1, "move_lady", card=3)
    yield list(varieties().values())


def _rl_objects() -> Iterator[Any]:
    pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo")
    from bohnanza.rl import bohnanza_v0

    for rules, players in (("classic", 3), ("fasolki+fasolufka", 4), ("fasolki+duel", 2)):
        for mode in ("flat", "builder"):
            env = bohnanza_v0.raw_env(rules=rules, players=players, memory=True, action_mode=mode)
            env.reset(seed=5)
            for _ in range(40):
                if not env.agents:
                    break
                agent = env.agent_selection
                mask = env.observe(agent)["action_mask"]
                env.step(None if env.terminations[agent] else int(mask.nonzero()[0][0]))
            yield env.encoding
            yield env.memory
            yield env.game


def _walk(roots: Iterator[Any], wanted: set[type], per_class: int) -> dict[type, list[Any]]:
    """Instances of ``wanted`` reachable from ``roots`` (a few of each)."""
    found: dict[type, list[Any]] = {}
    seen: set[int] = set()
    keep: list[Any] = []
    for root in roots:
        stack = [root]
        while stack:
            obj = stack.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            keep.append(obj)
            cls = type(obj)
            if cls in wanted and len(found.setdefault(cls, [])) < per_class:
                found[cls].append(obj)
            module = getattr(cls, "__module__", "") or ""
            if isinstance(obj, (list, tuple, dict, set, frozenset)) or module.startswith(
                "bohnanza"
            ):
                stack.extend(
                    o for o in gc.get_referents(obj) if not isinstance(o, (type, type(gc)))
                )
    return found


@pytest.fixture(scope="module")
def instances() -> dict[type, list[Any]]:
    wanted = set(compiled_classes().values())
    roots: list[Any] = [*_games(), *_engine_objects()]
    with contextlib.suppress(pytest.skip.Exception):  # without the rl extra
        roots.extend(_rl_objects())
    return _walk(iter(roots), wanted, per_class=2)


Case = tuple[str, Any, Any]


@pytest.fixture(scope="module")
def cases(instances: dict[type, list[Any]]) -> list[Case]:
    """Each instance with its label and its picture (taken once: the costly part)."""
    out = []
    for cls, objs in sorted(instances.items(), key=lambda kv: _qualified(kv[0])):
        for k, obj in enumerate(objs):
            out.append((f"{_qualified(cls)}[{k}]", obj, picture(obj)))
    return out


def test_every_compiled_class_is_reached_or_named(instances: dict[type, list[Any]]) -> None:
    classes = compiled_classes()
    reached = {_qualified(c) for c in instances}
    missing = sorted(
        name
        for name, cls in classes.items()
        if _qualified(cls) not in reached and name not in NOT_REACHED
    )
    assert not missing, f"compiled classes no game reaches and no reason names: {missing}"
    stale = sorted(n for n in NOT_REACHED if n not in classes)
    assert not stale, f"NOT_REACHED names classes that are gone: {stale}"
    # The walk is worth something: the engine's, the bots' and the RL classes are there.
    for name in ("Game", "View", "Action", "Offer", "HeuristicAgent", "SearchAgent", "Event"):
        assert any(c.__name__ == name for c in instances), name


def _same(value: Any) -> Any:
    """What must be equal in a shallow copy: an object itself, a plain value its value
    (compiled, a number kept unboxed comes out as a new object at each read)."""
    return value if isinstance(value, (int, float, str, bytes, bool, type(None))) else id(value)


def _parts(obj: Any) -> Any:
    """An object's own state, one level deep: each part by identity (a shallow copy shares
    its parts with the original, so a deeper picture of a cyclic object differs)."""
    recipe = obj.__reduce_ex__(4)
    if isinstance(recipe, str):
        return recipe
    state = recipe[2] if len(recipe) > 2 else None
    slots: dict[str, Any] = {}
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state[0] or {}, state[1] or {}
    if isinstance(state, dict):
        return {k: _same(v) for k, v in {**state, **slots}.items()}
    return picture(recipe[1]) if state is None else picture(state)


def _failures(
    cases: list[Case], make: Callable[[Any], Any], differs: Callable[[Any, Any, Any], list[str]]
) -> list[str]:
    """Each case's duplicate made by ``make``, and what ``differs(original, its picture
    before, duplicate)`` finds wrong with it; a duplicate that cannot be made is one too."""
    out = []
    for label, obj, before in cases:
        try:
            other = make(obj)
        except Exception as exc:
            out.append(f"{label}: {type(exc).__name__}: {exc}")
            continue
        if type(other) is not type(obj):
            out.append(f"{label}: a {type(other).__name__} came back")
            continue
        out.extend(f"{label}: {why}" for why in differs(obj, before, other))
    return out


def test_pickle_round_trip_keeps_the_state(cases: list[Case]) -> None:
    def differs(_obj: Any, before: Any, back: Any) -> list[str]:
        return [] if picture(back) == before else ["another state after pickle"]

    def round_trip(obj: Any) -> Any:
        return pickle.loads(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))

    failures = _failures(cases, round_trip, differs)
    assert not failures, "\n".join(failures)


def test_a_shallow_copy_shares_the_parts(cases: list[Case]) -> None:
    def differs(obj: Any, _before: Any, other: Any) -> list[str]:
        return [] if _parts(other) == _parts(obj) else ["other parts after copy.copy"]

    failures = _failures(cases, copy.copy, differs)
    assert not failures, "\n".join(failures)


def test_a_deep_copy_keeps_the_state(cases: list[Case]) -> None:
    def differs(obj: Any, before: Any, other: Any) -> list[str]:
        out = [] if picture(other) == before else ["another state after copy.deepcopy"]
        return out + ([] if picture(obj) == before else ["copy.deepcopy changed the original"])

    failures = _failures(cases, copy.deepcopy, differs)
    assert not failures, "\n".join(failures)


def _pictures_of(blobs: list[bytes]) -> list[Any]:
    """In the other process: load each object and take its picture."""
    return [picture(pickle.loads(b)) for b in blobs]


def test_objects_cross_a_process_boundary(cases: list[Case]) -> None:
    """What a process pool, Ray or OpenSpiel's workers do: pickle here, load in a fresh
    interpreter (spawn: nothing inherited), with the same state there."""
    blobs = [pickle.dumps(obj) for _, obj, _ in cases]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        theirs = pool.submit(_pictures_of, blobs).result(timeout=300)
    mismatched = [label for (label, _, p), q in zip(cases, theirs, strict=True) if p != q]
    assert not mismatched, f"another state in the spawned process: {mismatched}"
    # and the other process runs the same build as this one
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        assert pool.submit(bohnanza.compiled_core).result(timeout=60) is bohnanza.compiled_core()


def test_the_research_objects_of_the_issue() -> None:
    """The reproducers: the encoding pickled, a memory environment cloned and deep-copied,
    and both go on to play the same game as the original."""
    pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo")
    from bohnanza.rl import bohnanza_v0

    enc = bohnanza_v0.raw_env(rules="classic", players=3).encoding
    assert picture(pickle.loads(pickle.dumps(enc))) == picture(enc)
    env = bohnanza_v0.raw_env(rules="classic", players=3, memory=True)
    env.reset(seed=3)
    for duplicate in (lambda e: e.clone(), copy.deepcopy):
        twin = duplicate(env)
        for _ in range(30):
            if not env.agents:
                break
            a = env.agent_selection
            mask = env.observe(a)["action_mask"]
            assert (twin.observe(a)["action_mask"] == mask).all()
            assert (twin.observe(a)["observation"] == env.observe(a)["observation"]).all()
            move = int(mask.nonzero()[0][-1])
            env.step(move)
            twin.step(move)
        env.reset(seed=3)


def test_the_failures_pickle() -> None:
    """The driver's failures cross process pools (a tournament's workers report them)."""
    from bohnanza.driver import AgentError, AgentFailed

    for exc in (AgentFailed("seat 3 raised", seat=2, cause=ValueError("bad")), AgentError("no")):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc)


def test_module_metadata_and_refusals_pickle_and_copy() -> None:
    from bohnanza.modules import module_info
    from bohnanza.modules.info import EncodingHints, EventLabel, PileTurn
    from bohnanza.refusals import Explanation

    objects: list[Any] = [Explanation("hand_order", "R-PLANT-1", {"field": 1})]
    for name in (None, "fasolufka", "duel", "fasolkopajaki", "new-varieties"):
        objects.append(module_info(name))
    reached = set(_walk(iter(objects), {EventLabel, PileTurn, EncodingHints}, 3))
    assert reached == {EventLabel, PileTurn, EncodingHints}
    for obj in objects:
        for duplicate in (copy.copy, copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))):
            assert picture(duplicate(obj)) == picture(obj)
