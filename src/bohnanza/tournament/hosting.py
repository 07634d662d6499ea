"""Untrusted agents play from a process of their own, which the tournament can kill
(issue 53): no bot can stop or hang a run.

In a bot's own process (a "host": one per worker, reused from game to game, holding the
agents of every untrusted seat of the game under way) whatever the bot does - raise,
sleep, call ``sys.exit``, crash the interpreter - reaches the tournament as a
:class:`BotFailure` of its seat: the game becomes that seat's forfeit and the run goes
on. Every call into the bot (making it, each decision, ``wants_offers``, ``stats``) has
:data:`DEFAULT_MOVE_TIMEOUT` seconds of wall time (``--move-timeout``); a call that takes
longer kills the host, which the next game starts again.

Trusted agents - the registered built-in bots and the optional ones this package ships
(:func:`trusted`) - keep the in-process fast path: a decision crossing to another
process costs a few hundred microseconds, more than a whole ``autarky`` decision. They
have no time limit (the search keeps its own budget; a language model its own timeouts);
their exceptions and illegal answers are still contained by the driver, and a failing
constructor or ``stats()`` is still a forfeit.

Determinism: a hosted agent is made from the same spec and seed and receives the same
views (complete copies: a view a bot keeps no longer follows the game) and legal
actions, so a game's result does not depend on where its agents ran. Decision times are
measured in the host, without the crossing.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from multiprocessing.connection import Connection
from typing import Any

from ..actions import Action
from ..agents.base import Agent
from ..agents.specs import OPTIONAL, add_import_paths, one_line, resolve_agent
from ..errors import StopsRun
from ..views import View

#: Seconds of wall time a hosted bot has for each call (``--move-timeout``): a hundred
#: times what the slowest built-in bot's searched decision takes (the default ``search``,
#: a median of about 50 ms), so that only a bot that hangs reaches it.
DEFAULT_MOVE_TIMEOUT = 10.0
#: Seconds a new host has to start and answer (under ``spawn`` a new interpreter imports
#: the package and the bot's module first).
START_TIMEOUT = 60.0


class BotFailure(Exception):
    """A hosted bot failed outside an exception of its own: it took too long, left its
    process (``sys.exit``) or the process died. ``seat`` is its seat in the game."""

    def __init__(self, message: str, seat: int = -1) -> None:
        super().__init__(message)
        self.seat = seat

    def __reduce__(self) -> tuple[Any, ...]:  # across process pools
        return (type(self), (str(self), self.seat))


class MoveTimeout(BotFailure):
    """No answer within the move time limit: the bot's process was killed."""


class BotExited(BotFailure):
    """The bot raised ``SystemExit`` or another exception that would end a process."""


class BotDied(BotFailure):
    """The bot's process ended (a crash, ``os._exit``, a signal)."""


def trusted(spec: str) -> bool:
    """Whether ``spec`` plays in the worker's own process: the registered built-in bots
    and this package's optional ones; everything else (``MODULE:CLASS``, entry points)
    plays in a host."""
    resolved = resolve_agent(spec)
    return resolved.source == "builtin" or resolved.name in OPTIONAL


# ---------------------------------------------------------------------------- the host's side


def _watch_parent(parent: int) -> None:
    """End the host when the worker that started it is gone (killed on Ctrl-C, say),
    even while a bot sleeps in a call: the pipe's end of file would reach the host only
    between calls."""
    while True:
        time.sleep(0.5)
        try:
            os.kill(parent, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # alive, and someone else's: not ours to judge
            pass


def _portable(exc: BaseException) -> tuple[str, bytes | None, str]:
    """A bot's exception as the host sends it back: the exception itself where it
    survives pickling, and its type's name and text in any case."""
    try:
        data = pickle.dumps(exc)
        pickle.loads(data)
    except Exception:
        data = None
    return (type(exc).__name__, data, one_line(exc))


def serve(
    conn: Connection, inherited: Connection | None, paths: Sequence[str], parent: int
) -> None:
    """The host's loop: make agents, relay their calls, answer each with
    ``("ok", value, seconds)`` or ``("raised", (type, pickled, text), seconds)``."""
    if inherited is not None:  # fork: the worker's end, which would keep the pipe open
        inherited.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the tournament's to handle
    # What a bot prints goes to stderr: the run's stdout is its summary (--json).
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    add_import_paths(paths)
    agents: dict[int, Agent] = {}
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        op, handle, args = message
        if op == "reset":
            agents.clear()
            continue
        start = time.perf_counter()
        reply: tuple[Any, ...]
        try:
            if op == "make":
                spec, seed = args
                agent = resolve_agent(spec).build(seed)
                agents[handle] = agent
                asks = type(agent).wants_offers is not Agent.wants_offers
                value: Any = (repr(agent), bool(agent.proposes), asks)
            elif op == "act":
                value = agents[handle].act(*args)
            elif op == "wants":
                value = bool(agents[handle].wants_offers(*args))
            elif op == "stats":
                value = dict(agents[handle].stats())
            else:  # "ping": the host is up, with the line-up's modules imported
                for spec in args:
                    resolve_agent(spec)
                value = os.getpid()
            reply = ("ok", value, time.perf_counter() - start)
        except BaseException as exc:  # everything, SystemExit included, is the bot's failure
            reply = ("raised", _portable(exc), time.perf_counter() - start)
        try:
            conn.send(reply)
        except Exception as exc:  # an answer that cannot cross (not picklable)
            conn.send(("raised", _portable(TypeError(f"its answer cannot be sent: {exc}")), 0.0))


# ---------------------------------------------------------------------------- the worker's side


class Host:
    """One host process, started on first use and again after it was killed."""

    def __init__(self, start_method: str | None, paths: Sequence[str]) -> None:
        self.start_method = start_method
        self.paths = tuple(paths)
        #: The process that started the host: a forked worker inherits this object, but
        #: the host is not its to use (:func:`host_for`).
        self.owner = os.getpid()
        self.process: Any = None
        self.conn: Connection | None = None
        self.handles = 0

    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()

    def start(self, seat: int, specs: Sequence[str] = ()) -> None:
        """Start the host and import what ``specs`` need there (under ``spawn`` a new
        interpreter: :data:`START_TIMEOUT`, not the move time limit, covers it); a host
        that fails to start fails ``seat``."""
        context: Any = multiprocessing.get_context(self.start_method)
        mine, theirs = context.Pipe(duplex=True)
        inherited = mine if context.get_start_method() == "fork" else None
        self.process = context.Process(
            target=serve,
            args=(theirs, inherited, self.paths, os.getpid()),
            name="bohnanza-bot-host",
            daemon=True,
        )
        self.process.start()
        theirs.close()
        self.conn = mine
        self.call("ping", 0, tuple(specs), START_TIMEOUT, seat, "to start")

    def stop(self) -> None:
        """Kill the host (a bot in it may be sleeping: no polite request would reach it)."""
        if self.process is not None:
            if self.process.is_alive():
                self.process.kill()
            self.process.join(5)
        if self.conn is not None:
            self.conn.close()
        self.process = None
        self.conn = None

    def reset(self, seat: int, specs: Sequence[str] = ()) -> None:
        """A new game: drop the previous game's agents (start the host if it is not up,
        importing what ``specs`` need)."""
        if not self.alive():
            self.stop()
            self.start(seat, specs)
        assert self.conn is not None
        self.conn.send(("reset", 0, ()))

    def _ended(self) -> str:
        """What became of a host that stopped answering: its exit status, in words."""
        assert self.process is not None
        self.process.join(5)
        code = self.process.exitcode
        if code is None:
            return "its process stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"its process was killed by {name}"
        return f"its process ended with exit status {code}"

    def call(
        self,
        op: str,
        handle: int,
        args: tuple[Any, ...],
        timeout: float | None,
        seat: int,
        what: str,
    ) -> tuple[Any, float]:
        """Send one call and wait for its answer (``timeout`` seconds of wall time, None:
        no limit); returns (value, seconds the bot took). A bot's own exception is raised
        again here; a bot that took too long, exited or died raises :class:`BotFailure`."""
        conn = self.conn
        if conn is None:  # stopped after an earlier failure in this game
            raise BotDied(f"its process was stopped before it was asked {what}", seat)
        try:
            conn.send((op, handle, args))
            ready = conn.poll(timeout)
        except (OSError, EOFError):
            ready = True  # the host is gone: the receive below says how
        if not ready:
            self.stop()
            raise MoveTimeout(
                f"no answer {what} within {timeout:g} s (--move-timeout); its process was killed",
                seat,
            )
        try:
            status, value, seconds = conn.recv()
        except (OSError, EOFError):
            ended = self._ended()
            self.stop()
            raise BotDied(f"{ended} {what} (a crash, or os._exit)", seat) from None
        if status == "ok":
            return value, float(seconds)
        name, data, text = value
        raised: BaseException | None = None
        if data is not None:
            try:
                raised = pickle.loads(data)
            except Exception:
                raised = None
        if isinstance(raised, Exception) and not isinstance(raised, StopsRun):
            raise raised
        if name in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
            raise BotExited(f"it raised {text} {what}: a bot may not end the run", seat)
        raise BotFailure(f"{text} {what}", seat)


class HostedAgent(Agent):
    """The tournament's handle on an agent that lives in a host: every call crosses to
    it with the move time limit."""

    def __init__(
        self,
        host: Host,
        handle: int,
        seed: int,
        seat: int,
        timeout: float | None,
        described: str,
        proposes: bool,
        asks: bool,
    ) -> None:
        super().__init__(seed)
        self.host = host
        self.handle = handle
        self.seat = seat
        self.timeout = timeout
        self.described = described
        self.proposes = proposes
        #: Whether the bot answers ``wants_offers`` itself (else: its ``proposes``).
        self.asks = asks
        #: Seconds the bot itself took for its last decision, measured in the host.
        self.last_seconds = 0.0

    @classmethod
    def make(
        cls, host: Host, spec: str, seed: int, seat: int, timeout: float | None
    ) -> HostedAgent:
        """Make the agent for ``spec`` and ``seed`` in ``host`` (a failing constructor
        raises, as it would here)."""
        host.handles += 1
        handle = host.handles
        value, _ = host.call("make", handle, (spec, seed), timeout, seat, "while it was made")
        described, proposes, asks = value
        return cls(host, handle, seed, seat, timeout, str(described), bool(proposes), bool(asks))

    def __repr__(self) -> str:
        return self.described

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        value, self.last_seconds = self.host.call(
            "act", self.handle, (view, list(legal), required), self.timeout, self.seat,
            "to a decision",
        )  # fmt: skip
        if value is not None and not isinstance(value, Action):
            raise TypeError(f"it answered {type(value).__name__}, not an Action")
        return value

    def wants_offers(self, turn: int) -> bool:
        if not self.asks:
            return self.proposes
        try:
            value, _ = self.host.call(
                "wants", self.handle, (turn,), self.timeout, self.seat, "in wants_offers"
            )
        except BotFailure:
            raise
        except Exception as exc:  # not inside a decision: the runner makes it a forfeit
            raise BotFailure(f"wants_offers raised {one_line(exc)}", self.seat) from None
        return bool(value)

    def stats(self) -> Mapping[str, float]:
        value, _ = self.host.call("stats", self.handle, (), self.timeout, self.seat, "in stats()")
        return value  # type: ignore[no-any-return]


_local = threading.local()


def host_for(start_method: str | None, paths: Sequence[str]) -> Host:
    """This worker's host (this thread's, in a thread pool), made on first use. A host
    inherited from the process a worker was forked from is left to its owner."""
    host: Host | None = getattr(_local, "host", None)
    if host is not None and host.owner != os.getpid():
        host = None
    if host is None or host.start_method != start_method or host.paths != tuple(paths):
        if host is not None:
            host.stop()
        host = Host(start_method, paths)
        _local.host = host
    return host


def close_host() -> None:
    """Stop this thread's host, if it has one (the end of a run in the main process; a
    forked worker would otherwise inherit the pipe to it)."""
    host: Host | None = getattr(_local, "host", None)
    _local.host = None
    if host is not None and host.owner == os.getpid():
        with contextlib.suppress(Exception):
            host.stop()


__all__ = [
    "DEFAULT_MOVE_TIMEOUT",
    "START_TIMEOUT",
    "BotDied",
    "BotExited",
    "BotFailure",
    "Host",
    "HostedAgent",
    "MoveTimeout",
    "close_host",
    "host_for",
    "serve",
    "trusted",
]
