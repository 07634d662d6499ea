"""uvicorn's configuration for ``bohnanza serve``: limits on connections and time.

uvicorn's pure-Python HTTP/1.1 protocol (h11, what it uses without ``httptools``) gives a
connection that never completes its request headers all the time in the world, and so
does its keep-alive timer for a connection that sends nothing at all: a thousand such
connections used up the server's file descriptors. :class:`GuardedH11Protocol` closes a
connection whose request headers have not all arrived within ``header_timeout`` seconds
of its first byte (or of the connection, for one that sends nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
from dataclasses import dataclass
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .protocol import MAX_FRAME


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for the request headers."""

    header_timeout = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._between_requests():
            self._arm()  # a request's headers are on their way: they have a deadline
        super().data_received(data)
        if not self._between_requests():
            self._disarm()

    def handle_websocket_upgrade(self, event: Any) -> None:
        self._disarm()  # the WebSocket has its own deadline (for its hello)
        super().handle_websocket_upgrade(event)

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm(self) -> None:
        if self._header_timer is None and self.header_timeout > 0:
            self._header_timer = self.loop.call_later(self.header_timeout, self._expired)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _expired(self) -> None:
        self._header_timer = None
        if self._between_requests() and not self.transport.is_closing():
            self.transport.close()


@dataclass(slots=True)
class ServerLimits:
    """What uvicorn itself enforces. Times in seconds."""

    header_timeout: float = 10.0  # request headers must arrive within this
    keep_alive: float = 5.0  # an idle keep-alive connection is closed after this
    max_concurrency: int = 6000  # connections (HTTP and WebSocket) at once; beyond: 503


def file_limit() -> int:
    """Raise the soft limit on open files to the hard one; the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        with contextlib.suppress(ValueError, OSError):
            target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return int(soft)


def uvicorn_config(app: Any, limits: ServerLimits, log_level: str = "warning") -> uvicorn.Config:
    """The server's uvicorn configuration. Concurrency stays below the file limit (with
    room for the database and the log), so that the server always has a descriptor
    left to answer ``/healthz`` and to refuse the excess with 503 instead of failing."""
    protocol = type(
        "HeaderTimeoutH11Protocol", (GuardedH11Protocol,), {"header_timeout": limits.header_timeout}
    )
    concurrency = max(16, min(limits.max_concurrency, file_limit() - 64))
    return uvicorn.Config(
        app,
        log_level=log_level,
        http=protocol,
        ws_max_size=MAX_FRAME,
        ws_ping_interval=20,
        ws_ping_timeout=30,
        # No permessage-deflate: compressing every state (1-4 KB of JSON) cost about a
        # tenth of the server's CPU per move (docs/reliability.md, "Load"); the bytes
        # saved are a few KB a minute per player.
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=3,
        timeout_keep_alive=int(max(1, limits.keep_alive)),
        limit_concurrency=concurrency,
        # uvicorn would take X-Forwarded-For from any local peer as the client's address;
        # the app reads it itself, and only with --trust-proxy (limits.client_address).
        proxy_headers=False,
        lifespan="on",
    )
