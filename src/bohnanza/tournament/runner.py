"""Playing a tournament: many seeded games between agents, seats rotated, in parallel.

Game ``i`` of a tournament with seed ``S`` has seed ``S + i`` and its seats are the
line-up rotated by ``i`` places (with ``--no-rotate``, not rotated): over every
``players`` consecutive games each agent of the line-up sits once at every seat. Agents
are seeded as in :mod:`bohnanza.simulate`. A game's result depends only on its seed and
seats, so a run gives the same rows with any number of workers, on either backend, and a
resumed run the same rows as an uninterrupted one (time-budgeted search aside: its
choices depend on the machine's speed).

A failing agent ends its game only (:mod:`bohnanza.forfeits`): the game is stored as a
forfeit (the ``forfeits`` table, not ``games``), counted in the summary as a loss of the
seat that failed (:mod:`.stats`), and not played again on a resume; ``fail_fast`` stops
the tournament at the first one instead.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import multiprocessing
import os
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..actions import Action
from ..agents import Agent
from ..agents.base import MAX_STATS
from ..agents.llm import LLMGaveUp, gave_up_warnings, is_llm_spec, set_on_failure
from ..agents.specs import (
    add_import_paths,
    check_agent,
    import_paths,
    one_line,
    resolve_agent,
)
from ..errors import ConfigError
from ..game import Game
from ..rules import make_config
from ..seeding import agent_seed, game_seed, game_seeds
from ..views import View
from .fingerprint import fingerprint
from .hosting import (
    DEFAULT_MOVE_TIMEOUT,
    BotFailure,
    Host,
    HostedAgent,
    close_host,
    host_for,
    trusted,
)
from .stats import forfeit_row, summarise
from .storage import Store

Row = dict[str, Any]
Progress = Callable[[int, int], None]


# ---------------------------------------------------------------------------- agents


def parse_agent(spec: str) -> tuple[str, dict[str, Any]]:
    """``"heuristic"`` → ("heuristic", {}); ``"search:0.2"`` → seconds per decision;
    ``"search:50it"`` → roll-out iterations per decision; ``"search:0.2:d8"`` also limits
    roll-outs to 8 turns (``d0``: to the end of the game); ``"mypkg.bots:Greedy:k=1"`` →
    ("mypkg.bots:Greedy", {"k": 1}). The grammar is :mod:`bohnanza.agents.specs`."""
    resolved = resolve_agent(spec)
    return resolved.name, dict(resolved.kwargs)


def build_agent(spec: str, seed: int) -> Agent:
    return resolve_agent(spec).build(seed)


def agent_stats(agent: Agent, spec: str) -> dict[str, float]:
    """The counters ``agent`` reports at the end of a game, checked: a name and a
    number each, at most ``MAX_STATS``."""
    try:
        raw = agent.stats()
    except Exception as exc:
        raise ConfigError(f"agent {spec!r}: stats() failed: {one_line(exc)}") from None
    if not isinstance(raw, Mapping) or len(raw) > MAX_STATS:
        raise ConfigError(
            f"agent {spec!r}: stats() must return a dict of at most {MAX_STATS} counters"
        )
    out: dict[str, float] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or not key or len(key) > 64:
            raise ConfigError(f"agent {spec!r}: stats() key {key!r} is not a short name")
        if not isinstance(value, int | float) or not math.isfinite(value):
            raise ConfigError(f"agent {spec!r}: stats() value of {key!r} is not a number")
        out[key] = value
    return out


class Timed(Agent):
    """Wraps an agent and records how long each non-trivial decision took (the agent sees
    the same view, legal actions and nothing else). A trivial decision - a required one
    with at most one legal action - is only counted: those take no thought, and a median
    over all calls would mostly measure them (issue 36)."""

    def __init__(self, inner: Agent) -> None:
        super().__init__(inner.seed)
        self.inner = inner
        self.proposes = inner.proposes
        self.times: list[float] = []
        self.trivial = 0

    def timing(self) -> dict[str, float]:
        """The counters stored with the agent's own (``agent_stats``)."""
        return {"timed.decisions": len(self.times) + self.trivial, "timed.trivial": self.trivial}

    def __repr__(self) -> str:  # errors name the agent, not its stopwatch
        return repr(self.inner)

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def stats(self) -> Mapping[str, float]:
        return self.inner.stats()

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if required and len(legal) <= 1:
            self.trivial += 1
            return self.inner.act(view, legal, required)
        start = time.perf_counter()
        try:
            return self.inner.act(view, legal, required)
        finally:
            # A hosted agent's own time, measured in its process: not the crossing.
            took = self.inner.last_seconds if isinstance(self.inner, HostedAgent) else None
            self.times.append(time.perf_counter() - start if took is None else took)


# ---------------------------------------------------------------------------- one game


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """Which games a tournament plays. ``lineup`` has one agent per seat."""

    rules: str
    players: int
    lineup: tuple[str, ...]
    options: tuple[tuple[str, str], ...] = ()
    seed: int = 1
    rotate: bool = True
    #: Folders the line-up's external agents were loaded from: workers add them to
    #: ``sys.path`` before resolving the specs themselves (Ray workers lack them).
    import_paths: tuple[str, ...] = field(default=(), init=False, compare=False, repr=False)
    #: What a language-model seat does after its endpoint failed ``give_up`` decisions
    #: in a row: ``stop`` the tournament (LLMGaveUp) or let the ``heuristic`` play on.
    #: Not part of the identity: a rerun may change it.
    llm_fallback: str = field(default="stop", compare=False)
    #: A folder for each game's record (``game-SEED.json``, a model's transcript
    #: included), or None.
    records: str | None = field(default=None, compare=False)
    #: Stop at the first forfeit (RunStopped) instead of storing it and going on.
    fail_fast: bool = field(default=False, compare=False)
    #: Seconds of wall time a hosted (untrusted) agent has for each call, or None for no
    #: limit (:mod:`.hosting`); ``--move-timeout``.
    move_timeout: float | None = field(default=DEFAULT_MOVE_TIMEOUT, compare=False)
    #: How hosts start (fork, spawn, forkserver; None: Python's default), as the local
    #: backend's workers do (``--start-method``).
    start_method: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        make_config(self.rules, self.players, dict(self.options))
        if self.llm_fallback not in ("stop", "heuristic"):
            raise ConfigError(f"unknown llm fallback {self.llm_fallback!r}; use stop or heuristic")
        if len(self.lineup) != self.players:
            raise ConfigError(f"{len(self.lineup)} agents for {self.players} seats")
        if self.move_timeout is not None and not self.move_timeout > 0:
            raise ConfigError("the move timeout must be a positive number of seconds")
        for a in self.lineup:
            check_agent(a)
        object.__setattr__(self, "import_paths", import_paths(self.lineup))

    def seats_for(self, index: int) -> tuple[str, ...]:
        """The agent at each seat of game ``index``: the line-up turned by ``index``."""
        n = self.players
        r = index % n if self.rotate else 0
        return tuple(self.lineup[(k - r) % n] for k in range(n))

    def identity(self) -> dict[str, Any]:
        """What must match for a stored game to count in this tournament: the agents'
        code and parameters included (:mod:`.fingerprint`)."""
        return {
            "rules": self.rules,
            "players": self.players,
            "options": dict(self.options),
            "lineup": list(self.lineup),
            "seed": self.seed,
            "rotate": self.rotate,
            "fingerprints": {a: fingerprint(a) for a in dict.fromkeys(self.lineup)},
        }


def play_game(spec: TournamentSpec, index: int) -> Row:
    """Play game ``index`` and return its row (see :mod:`.storage`), or, when an agent
    failed in it, ``{"forfeit": ...}`` (with ``spec.fail_fast``: :class:`RunStopped`).
    An agent fails by raising, passing where it must act or answering illegally (the
    driver), by failing to be made or to report its counters, and - played from a host
    (:mod:`.hosting`) - by taking longer than ``spec.move_timeout``, exiting or dying."""
    from ..driver import AgentFailed
    from ..forfeits import RunStopped, forfeit_of

    try:
        return _play_game(spec, index)
    except AgentFailed as exc:
        forfeit = forfeit_of(exc, game_seed(spec.seed, index), index, spec.seats_for(index))
    if spec.fail_fast:
        raise RunStopped(forfeit)
    print(f"warning: {forfeit.line()}", file=sys.stderr, flush=True)
    return {"seed": forfeit.seed, "forfeit": forfeit.to_json()}


def _make_agents(spec: TournamentSpec, seats: Sequence[str], seed: int) -> list[Timed]:
    """The game's agents: trusted ones here, the others in this worker's host (started
    for the game, or again after a failure killed it). An agent that cannot be made
    fails its seat (AgentFailed), wherever it was made."""
    from ..driver import AgentFailed

    agents: list[Timed] = []
    host: Host | None = None
    for k, name in enumerate(seats):
        try:
            if trusted(name):
                agent: Agent = build_agent(name, agent_seed(seed, k))
            else:
                if host is None:
                    host = host_for(spec.start_method, spec.import_paths)
                    host.reset(k, [a for a in dict.fromkeys(seats) if not trusted(a)])
                agent = HostedAgent.make(host, name, agent_seed(seed, k), k, spec.move_timeout)
        except (ConfigError, BotFailure) as exc:
            raise AgentFailed(f"agent {name!r} at seat {k}: {exc}", seat=k) from None
        except Exception as exc:  # the bot's own exception from its constructor, in a host
            raise AgentFailed(
                f"agent {name!r} at seat {k} could not be made: {one_line(exc)}", seat=k
            ) from None
        agents.append(Timed(agent))
    return agents


def _play_game(spec: TournamentSpec, index: int) -> Row:
    from ..driver import AgentFailed, play

    add_import_paths(spec.import_paths)
    seed = game_seed(spec.seed, index)
    seats = spec.seats_for(index)
    game = Game.new(spec.rules, spec.players, options=dict(spec.options), seed=seed, events=False)
    agents = _make_agents(spec, seats, seed)
    set_on_failure(agents, "heuristic" if spec.llm_fallback == "heuristic" else "stop")
    start = time.perf_counter()
    cpu = time.process_time()
    try:
        log = play(game, agents, contain=True)
    except LLMGaveUp as exc:
        raise exc.in_game(seed) from None
    except BotFailure as exc:  # outside a decision (wants_offers): still that seat's failure
        raise AgentFailed(
            f"agent {seats[exc.seat]!r} at seat {exc.seat}: {exc}", seat=exc.seat
        ) from None
    seconds = time.perf_counter() - start
    # The worker's own CPU time: with other processes on the machine the wall time above
    # overstates what a game costs (a thread pool's games share one process: there it
    # is the process's time, taken only where one game runs at a time).
    cpu = time.process_time() - cpu
    for line in gave_up_warnings(agents, seed):
        print(line, file=sys.stderr, flush=True)
    if spec.records:
        from ..simulate import write_record

        write_record(spec.records, seed, game, log.actions, seats, [a.inner for a in agents])
    assert game.scores is not None and game.winners is not None
    held: dict[str, list[int]] = {}
    for k, name in enumerate(seats):
        held.setdefault(name, []).append(k)
    return {
        "seed": seed,
        "game": index,
        "rules": game.config.rules,
        "players": spec.players,
        "options": dict(spec.options),
        "seats": list(seats),
        "agents": held,
        "scores": list(game.scores),
        "winners": list(game.winners),
        "hand_sizes": [len(h) for h in game.hands],
        "turns": game.turn,
        "actions": len(log.actions),
        "seconds": round(seconds, 4),
        "cpu_seconds": round(cpu, 4),
        "decision_ms": [
            round(statistics.median(a.times) * 1000, 4) if a.times else 0.0 for a in agents
        ],
        "agent_stats": _counters(agents, seats),
    }


def _counters(agents: Sequence[Timed], seats: Sequence[str]) -> list[dict[str, float]]:
    """Every seat's counters; an agent whose ``stats()`` fails (raises, returns no
    counters, or - hosted - times out or dies) forfeits the game it played."""
    from ..driver import AgentFailed

    out: list[dict[str, float]] = []
    for k, (agent, name) in enumerate(zip(agents, seats, strict=True)):
        try:
            out.append({**agent_stats(agent, name), **agent.timing()})
        except ConfigError as exc:
            raise AgentFailed(f"{exc} (seat {k}, at the end of the game)", seat=k) from None
    return out


def play_batch(spec: TournamentSpec, indices: Sequence[int]) -> list[Row]:
    return [play_game(spec, i) for i in indices]


# ---------------------------------------------------------------------------- backends


def default_workers() -> int:
    """Every core this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


#: The CPU time a task (a batch of games sent to a worker) should take when the batch
#: size is chosen automatically: long enough that sending it, its rows coming back and
#: storing them (~1 ms a task, in the main process, which shares the cores) are noise,
#: short enough that the rows are stored often and the last tasks even out.
TASK_SECONDS = 0.3


def auto_batch(
    spec: TournamentSpec,
    todo: Sequence[int],
    workers: int,
    target: float = TASK_SECONDS,
) -> tuple[list[Row], int]:
    """Measure what a game of ``spec`` costs by playing the first one or two of ``todo``
    here (the second timed: the first also pays for the first-call caches), and choose
    the games per task from it: about ``target`` seconds of CPU a task, at least 4 tasks
    per worker (so that they end together), at least 1 game. Returns the rows of the
    games played (they count: the caller stores them) and the size.

    Why measured: one game per task, the old default, costs more in sending and storing
    than a compiled ``autarky`` game (~1 ms) costs to play, and ``-w 2`` then ran slower
    than ``-w 1``; a fixed size would make a slow line-up's (search, Fasolufka) tasks
    long and its progress coarse."""
    rows: list[Row] = []
    per_game = target
    for i in todo[:2]:
        start = time.process_time()
        rows.append(play_game(spec, i))
        per_game = time.process_time() - start
        if per_game >= target:
            break
    left = len(todo) - len(rows)
    spread = max(1, math.ceil(left / (workers * 4)))
    return rows, max(1, min(round(target / max(per_game, 1e-6)), spread))


def _batches(indices: Sequence[int], size: int) -> list[list[int]]:
    return [list(indices[i : i + size]) for i in range(0, len(indices), size)]


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the main process, which stops them (and keeps what
    finished) instead of each dying with a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop_workers(pool: Executor) -> None:
    """Stop at once: drop the queued games and end the games in flight (a thread pool's
    games, waiting on a model's answers, end at their next question)."""
    processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
    for proc in list(processes.values()):
        if proc.is_alive():
            proc.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


@contextmanager
def _deferred_sigint() -> Iterator[threading.Event]:
    """Ctrl-C as a flag instead of an exception raised wherever the main thread is.

    Raised inside ``concurrent.futures.wait`` (which holds the futures' locks while it
    registers a waiter), a KeyboardInterrupt can leave a future's lock held for good;
    the pool's manager thread then blocks cancelling that future while the main thread
    waits for it to finish: the tournament hung instead of stopping (about one Ctrl-C in
    five on this machine). The loop checks the flag between waits and raises there.
    Only where Python's own handler is installed, in the main thread; elsewhere (an
    embedding application's handler, or a thread) nothing changes."""
    hit = threading.Event()
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main else None
    if previous is not signal.default_int_handler:
        yield hit
        return
    signal.signal(signal.SIGINT, lambda _signum, _frame: hit.set())
    try:
        yield hit
    finally:
        signal.signal(signal.SIGINT, previous)


def run_local(
    spec: TournamentSpec,
    indices: Sequence[int],
    workers: int,
    batch: int,
    start_method: str | None = None,
) -> Iterator[list[Row]]:
    """Batches of rows as they finish, from a process pool (in-process for 1 worker)
    whose workers start by ``start_method`` (fork, spawn, forkserver; default: Python's).
    An interruption (Ctrl-C, an error, the caller closing the iterator) stops the
    workers at once: the games in flight are lost, the ones yielded are not."""
    if workers <= 1:
        for b in _batches(indices, batch):
            yield play_batch(spec, b)
        return
    # A language model's games wait on HTTP: threads keep ``workers`` requests in flight.
    llm = any(is_llm_spec(a) for a in spec.lineup)
    pool: Executor = (
        ThreadPoolExecutor(max_workers=workers)
        if llm
        else ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context(start_method),
            initializer=_ignore_sigint,
        )
    )
    finished = False
    with _deferred_sigint() as interrupted:
        try:
            pending: set[Future[list[Row]]] = {
                pool.submit(play_batch, spec, b) for b in _batches(indices, batch)
            }
            while pending:
                if interrupted.is_set():
                    raise KeyboardInterrupt
                # A short timeout, so that Ctrl-C is seen at once (its flag is checked
                # between waits).
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for f in done:
                    yield f.result()
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:
                _stop_workers(pool)


def run_ray(
    spec: TournamentSpec, indices: Sequence[int], batch: int, address: str | None = None
) -> Iterator[list[Row]]:
    """The same batches as tasks on a Ray cluster: the one already initialised in this
    process, the one at ``address`` (or ``RAY_ADDRESS``), else a new local one."""
    try:
        import ray
    except ImportError:
        raise ConfigError("the ray backend needs Ray: pip install 'bohnanza[ray]'") from None
    if not ray.is_initialized():
        if address or os.environ.get("RAY_ADDRESS"):
            ray.init(address=address or os.environ["RAY_ADDRESS"])
        else:
            ray.init(include_dashboard=False)
    task = ray.remote(play_batch)
    pending = [task.remote(spec, b) for b in _batches(indices, batch)]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        for ref in pending:
            ray.cancel(ref)


# ---------------------------------------------------------------------------- the run


@contextmanager
def _closing_host() -> Iterator[None]:
    """Stop the host this process started for the run's untrusted bots, if any, when the
    run ends (a long-lived caller - a test session, the suite - would keep one per run)."""
    try:
        yield
    finally:
        close_host()


@dataclass
class Outcome:
    """What :func:`run_tournament` did: the summary of every stored game of the
    tournament, how many were played now and how many were already there. ``rows`` are
    the finished games, ``counted`` those and the forfeits as the statistics count them
    (:func:`.stats.forfeit_row`), in seed order."""

    summary: dict[str, Any]
    played: int
    skipped: int
    out: Path
    rows: list[Row] = field(repr=False, default_factory=list)
    counted: list[Row] = field(repr=False, default_factory=list)


def run_tournament(
    spec: TournamentSpec,
    games: int,
    out: str | Path,
    *,
    workers: int | None = None,
    backend: str = "local",
    batch: int | None = None,
    ray_address: str | None = None,
    progress: Progress | None = None,
    start_method: str | None = None,
) -> Outcome:
    """Play the games of ``spec`` not yet stored in ``out`` and summarise all of them.

    Rows are stored as their game (batch, with ``batch``) finishes, so an interrupted
    run - Ctrl-C included: the workers are stopped, the finished games kept - loses at
    most the games in flight; running again with the same arguments plays only what is
    missing.
    """
    if games < 1:
        raise ConfigError("a tournament needs at least 1 game")
    workers = workers or default_workers()
    if workers < 1:
        raise ConfigError("workers must be at least 1")
    if backend not in ("local", "ray"):
        raise ConfigError(f"unknown backend {backend!r}; use local or ray")
    methods = multiprocessing.get_all_start_methods()
    if start_method is not None and start_method not in methods:
        raise ConfigError(f"unknown start method {start_method!r}; use {', '.join(methods)}")
    if spec.records:
        Path(spec.records).mkdir(parents=True, exist_ok=True)
    if start_method is not None and spec.start_method is None:
        # The hosts of untrusted bots start as the workers do.
        spec = dataclasses.replace(spec, start_method=start_method)
    with Store(out) as store, _closing_host():
        store.claim(spec.identity())
        have = store.seeds()
        wanted = game_seeds(spec.seed, games)
        todo = [i for i in range(games) if wanted[i] not in have]
        skipped = games - len(todo)
        done = skipped
        if progress:
            progress(done, games)
        first: list[Row] = []
        if batch:
            size = batch
        elif backend == "ray":
            size = max(1, min(25, len(todo) // (workers * 4)))
        elif workers > 1 and len(todo) > 1 and not any(is_llm_spec(a) for a in spec.lineup):
            # Games per task from a measured game (auto_batch): the first games are
            # played here, and stored like the others.
            first, size = auto_batch(spec, todo, workers)
            close_host()  # the workers make their own; none inherits this one's pipe
        else:
            # One process, or a language model's games (seconds each, waiting on HTTP):
            # one game per task, each stored as soon as it ends.
            size = 1
        rest = todo[len(first) :]
        if todo:
            source = (
                run_ray(spec, rest, size, ray_address)
                if backend == "ray"
                else run_local(spec, rest, workers, size, start_method)
            )
            last = time.monotonic()
            try:
                for rows in itertools.chain([first] if first else [], source):
                    # Committed at most twice a second (and at the end, or on Ctrl-C).
                    store.add_forfeits([r["forfeit"] for r in rows if "forfeit" in r])
                    store.add([r for r in rows if "forfeit" not in r], commit=False)
                    if time.monotonic() - last > 0.5:
                        store.commit()
                        last = time.monotonic()
                    done += len(rows)
                    if progress:
                        progress(done, games)
            finally:
                if isinstance(source, Iterator):
                    source.close()  # type: ignore[attr-defined]
                store.commit()
        rows = store.rows(wanted)
        forfeits = store.forfeits(wanted)
    counted = sorted(
        [*rows, *(forfeit_row(f, spec.seats_for(int(f["game"]))) for f in forfeits)],
        key=lambda r: int(r["seed"]),
    )
    summary = {**summarise(counted, spec.identity()), "forfeited": forfeits}
    return Outcome(summary, len(todo), skipped, Path(out), rows, counted)


__all__ = [
    "TASK_SECONDS",
    "Outcome",
    "Timed",
    "TournamentSpec",
    "agent_stats",
    "auto_batch",
    "build_agent",
    "default_workers",
    "parse_agent",
    "play_batch",
    "play_game",
    "run_local",
    "run_ray",
    "run_tournament",
]
