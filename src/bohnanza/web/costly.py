"""The HTTP endpoints that cost CPU: QR codes, replay frames and the table list.

Each took tens of milliseconds on the event loop, unauthenticated and without a limit:
eight client loops asking for QR codes raised the players' move acknowledgements from
3 ms to 1.5 s (issue 35). Now each answer is

- cached: a QR code is a pure function of its text, a replay frame of a finished game
  never changes, and the table list changes only on events (``Session.changes``);
- computed off the event loop, one at a time (``run``): Python threads share one
  interpreter lock, so several busy threads would still starve the loop. The waiting
  requests are served by address in turn, at most ``PER_ADDRESS`` each; past ``QUEUE``
  an address holding more than one gives its newest up to the newcomer, else 503. A
  queue served first come first served let 16-64 addresses fill it and refuse everybody
  else's QR code (issue 51);
- rate-limited per client address (``Limits.qr_per_minute`` and the like): 429.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from fastapi.responses import JSONResponse

from .limits import ASGIApp, Limits, RateLimiter, Receive, Scope, Send, client_address
from .model import LobbyError

K = TypeVar("K")
V = TypeVar("V")

#: Requests that may wait for the worker at once.
QUEUE = 64
#: Requests one address may have waiting or running at once; more are answered 429.
PER_ADDRESS = 2
#: The longest a table list is served from the cache without any event.
LIST_TTL = 2.0
#: The shortest a table list is served from the cache, events or not: every spectator's
#: ``hello`` changes a listed table, and one address connecting in a loop made the
#: server rebuild the list for every request (issue 51).
LIST_MIN_AGE = 1.0


def costly_kind(scope: Scope) -> str | None:
    """Which costly endpoint an HTTP request asks for (a key of ``Costly.limiters``)."""
    method, path = scope.get("method"), scope.get("path", "")
    if method == "POST" and path == "/api/qr":
        return "qr"
    if method == "GET":
        if path == "/api/tables":
            return "list"
        if path.startswith("/api/tables/") and path.endswith("/replay"):
            return "replay"
    return None


class Lru(Generic[K, V]):
    """The ``size`` most recently used answers."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self.items.get(key)
        if value is not None:
            self.items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


class Costly:
    """The caches, the worker and the per-address limits of the costly endpoints."""

    def __init__(self, limits: Limits) -> None:
        self.limiters = {
            "qr": RateLimiter(limits.qr_per_minute),
            "replay": RateLimiter(limits.replay_per_minute),
            "list": RateLimiter(limits.list_per_minute),
        }
        self.qr_codes: Lru[str, str] = Lru(256)
        self.frames: Lru[tuple[str, int], dict[str, Any]] = Lru(512)
        # The fair queue: each address's waiting turns (futures set when its job may
        # start), addresses in the order they are served; the count held per address.
        self._lines: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()
        self._held: dict[str, int] = {}
        self._waiting = 0
        self._running = False
        self._listed: tuple[tuple[int, int], float, list[dict[str, Any]]] | None = None
        self._listing = asyncio.Lock()

    def check(self, kind: str, address: str) -> int | None:
        """None if ``address`` may make one more ``kind`` request now; else the seconds
        to wait."""
        limiter = self.limiters[kind]
        if limiter.allow(address):
            return None
        return limiter.retry_after(address)

    def middleware(self, app: ASGIApp, limits: Limits) -> ASGIApp:
        """``app`` behind the per-address limits of the costly routes, checked before
        anything else is done for the request (a refused flood must cost little)."""

        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            kind = costly_kind(scope) if scope["type"] == "http" else None
            if kind is not None:
                address = client_address(scope, limits.trust_proxy, limits.ipv6_prefix)
                wait = self.check(kind, address)
                if wait is not None:
                    response = JSONResponse(
                        {"error": "too many requests; wait a little", "code": "rate_limited"},
                        status_code=429,
                        headers={"Retry-After": str(wait)},
                    )
                    await response(scope, receive, send)
                    return
            await app(scope, receive, send)

        return guarded

    async def run(self, address: str, fn: Callable[..., V], *args: Any) -> V:
        """``fn(*args)`` in a thread, when it is ``address``'s turn."""
        if self._held.get(address, 0) >= PER_ADDRESS:
            raise LobbyError("wait for your earlier requests", 429, "busy")
        if self._waiting >= QUEUE and not self._give_up_one():
            raise LobbyError("the server is busy; try again in a moment", 503, "busy")
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._lines.setdefault(address, deque()).append(turn)
        self._held[address] = self._held.get(address, 0) + 1
        self._waiting += 1
        try:
            self._next()
            await turn
            return await asyncio.to_thread(fn, *args)
        finally:
            self._waiting -= 1
            self._held[address] -= 1
            if not self._held[address]:
                del self._held[address]
            if turn.done() and not turn.cancelled() and turn.exception() is None:
                self._running = False  # it was this job's turn (run, or cancelled at once)
            else:
                line = self._lines.get(address)
                if line is not None and turn in line:
                    line.remove(turn)
                    if not line:
                        del self._lines[address]
            self._next()

    def _next(self) -> None:
        """Start the next address's oldest job if none runs (addresses take turns)."""
        while not self._running and self._lines:
            address, line = next(iter(self._lines.items()))
            turn = line.popleft()
            if line:
                self._lines.move_to_end(address)
            else:
                del self._lines[address]
            if not turn.done():
                turn.set_result(None)
                self._running = True

    def _give_up_one(self) -> bool:
        """The queue is full: the newest waiting job of an address holding more than one
        is refused (503), to make room. False if every address holds one."""
        line = max(self._lines.values(), key=len, default=None)
        if line is None or len(line) < 2:
            return False
        turn = line.pop()
        turn.set_exception(LobbyError("the server is busy; try again in a moment", 503, "busy"))
        return True

    async def qr(self, address: str, text: str, draw: Callable[[str], str]) -> str:
        svg = self.qr_codes.get(text)
        if svg is None:
            svg = await self.run(address, draw, text)
            self.qr_codes.put(text, svg)
        return svg

    async def frame(
        self, address: str, table_id: str, step: int, make: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        """A finished game's replay frame (the caller checks that it is finished)."""
        frame = self.frames.get((table_id, step))
        if frame is None:
            frame = await self.run(address, make)
            self.frames.put((table_id, step), frame)
        return frame

    async def listing(
        self, tables: int, changes: int, build: Callable[[], Awaitable[list[dict[str, Any]]]]
    ) -> list[dict[str, Any]]:
        """The table list, rebuilt at once when the number of live ``tables`` changed
        (a table made or gone), when a listed table ``changes`` but at most every
        LIST_MIN_AGE seconds, and after LIST_TTL in any case."""
        async with self._listing:  # concurrent requests wait for one build
            cached = self._listed
            if cached is not None:
                (count, seen), built, listed = cached
                age = time.monotonic() - built
                if count == tables and age < LIST_TTL and (seen == changes or age < LIST_MIN_AGE):
                    return listed
            listed = await build()
            self._listed = ((tables, changes), time.monotonic(), listed)
            return listed
