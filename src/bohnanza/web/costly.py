"""The HTTP endpoints that cost CPU: QR codes, replay frames and the table list.

Each took tens of milliseconds on the event loop, unauthenticated and without a limit:
eight client loops asking for QR codes raised the players' move acknowledgements from
3 ms to 1.5 s (issue 35). Now each answer is

- cached: a QR code is a pure function of its text, a replay frame of a finished game
  never changes, and the table list changes only on events (``Session.changes``);
- computed off the event loop, one at a time (``work``): Python threads share one
  interpreter lock, so several busy threads would still starve the loop; past
  ``QUEUE`` waiting requests the answer is 503;
- rate-limited per client address (``Limits.qr_per_minute`` and the like): 429.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from fastapi.responses import JSONResponse

from .limits import ASGIApp, Limits, RateLimiter, Receive, Scope, Send, client_address
from .model import LobbyError

K = TypeVar("K")
V = TypeVar("V")

#: Requests that may wait for the worker at once; more are answered 503.
QUEUE = 32
#: The longest a table list is served from the cache without any event.
LIST_TTL = 2.0


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
        self._work = asyncio.Semaphore(1)
        self._waiting = 0
        self._listed: tuple[Any, float, list[dict[str, Any]]] | None = None
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

    async def run(self, fn: Callable[..., V], *args: Any) -> V:
        """``fn(*args)`` in a thread, after the work before it."""
        if self._waiting >= QUEUE:
            raise LobbyError("the server is busy; try again in a moment", 503, "busy")
        self._waiting += 1
        try:
            async with self._work:
                return await asyncio.to_thread(fn, *args)
        finally:
            self._waiting -= 1

    async def qr(self, text: str, draw: Callable[[str], str]) -> str:
        svg = self.qr_codes.get(text)
        if svg is None:
            svg = await self.run(draw, text)
            self.qr_codes.put(text, svg)
        return svg

    async def frame(
        self, table_id: str, step: int, make: Callable[[], dict[str, Any]]
    ) -> dict[str, Any]:
        """A finished game's replay frame (the caller checks that it is finished)."""
        frame = self.frames.get((table_id, step))
        if frame is None:
            frame = await self.run(make)
            self.frames.put((table_id, step), frame)
        return frame

    async def listing(
        self, version: Any, build: Callable[[], Awaitable[list[dict[str, Any]]]]
    ) -> list[dict[str, Any]]:
        """The table list, rebuilt when ``version`` (what changes on every event that
        changes a listed table) differs from the cached one's, or after LIST_TTL."""
        async with self._listing:  # concurrent requests wait for one build
            cached = self._listed
            if cached is not None and cached[0] == version and time.monotonic() < cached[1]:
                return cached[2]
            tables = await build()
            self._listed = (version, time.monotonic() + LIST_TTL, tables)
            return tables
