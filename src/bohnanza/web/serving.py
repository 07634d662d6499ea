"""uvicorn's configuration for ``bohnanza serve``: limits on connections and time.

uvicorn's pure-Python HTTP/1.1 protocol (h11, what it uses without ``httptools``) gives a
connection that never completes its request all the time in the world: a thousand
connections that never finished their headers used up the server's file descriptors,
and 5,999 that sent complete headers, ``Content-Length: 60000`` and then one byte every
5 s held every concurrency slot, so that everybody else got 503 (issue 35).
:class:`GuardedH11Protocol` therefore closes a connection

- whose request headers have not all arrived within ``header_timeout`` seconds of its
  first byte (or of the connection, for one that sends nothing), and
- whose request body has not all arrived within ``body_timeout`` seconds of its headers
  (answered 408 if nothing was answered yet),

and one client address (an IPv6 /64, see :func:`limits.address_key`) holds at most
``per_address`` HTTP connections: the next ones are answered 429 and closed at once.
uvicorn's own server-wide ``limit_concurrency`` answer (503) is given here too, with the
security headers, and logged once per burst instead of once per refused request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
from dataclasses import dataclass
from typing import Any, ClassVar

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .limits import SECURITY_HEADERS, Message, Receive, Scope, Send, address_key
from .protocol import MAX_FRAME

log = logging.getLogger("bohnanza.web")

#: Seconds a refused connection is read (and dropped) before it is closed.
LINGER = 1.0


def _raw_response(status: str, body: bytes, *extra: tuple[bytes, bytes]) -> bytes:
    """A complete ``Connection: close`` response, for the answers given outside h11's
    request cycle (before a request, or while its body is still being awaited)."""
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *extra,
        *SECURITY_HEADERS,
    ]
    head = b"".join(k + b": " + v + b"\r\n" for k, v in headers)
    return b"HTTP/1.1 " + status.encode() + b"\r\n" + head + b"\r\n" + body


class Refusals:
    """Counts the 503 answers of a server and logs them once per ``every`` seconds (a
    flood of refused requests would otherwise write one warning line each)."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self.count = 0
        self._timer: asyncio.TimerHandle | None = None

    def note(self, loop: asyncio.AbstractEventLoop) -> None:
        self.count += 1
        if self._timer is None:
            log.warning("too many connections at once: refusing requests with 503")
            self._timer = loop.call_later(self.every, self._flush)

    def _flush(self) -> None:
        self._timer = None
        if self.count > 1:
            log.warning("%d requests were refused with 503 in %.0f s", self.count, self.every)
        self.count = 0


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with deadlines for a request's headers and body, a cap on
    connections per client address, and its own answer to too many connections."""

    header_timeout: ClassVar[float] = 10.0
    body_timeout: ClassVar[float] = 10.0
    per_address: ClassVar[int] = 0  # HTTP connections one address may hold (0: no limit)
    ipv6_prefix: ClassVar[int] = 64
    # Shared by the connections of one server (uvicorn_config makes a subclass for each).
    held: ClassVar[dict[str, int]] = {}
    refusals: ClassVar[Refusals] = Refusals()

    _header_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None
    _body_cycle: Any = None
    _slot: str | None = None
    _closing = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The server-wide cap is checked in _admit: uvicorn's own check answers without
        # the security headers and logs a line per refused request.
        self._limit: int | None = self.limit_concurrency
        self.limit_concurrency = None
        self._app = self.app
        self.app = self._admit

    async def _admit(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self._limit
        # This request's task is already among ``tasks`` (uvicorn checks before adding it).
        if limit is not None and (len(self.connections) >= limit or len(self.tasks) > limit):
            self.refusals.note(self.loop)
            start: Message = {
                "type": "http.response.start",
                "status": 503,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"connection", b"close"),
                    (b"retry-after", b"5"),
                    *SECURITY_HEADERS,
                ],
            }
            await send(start)
            await send({"type": "http.response.body", "body": b"Service Unavailable"})
            return
        await self._app(scope, receive, send)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.per_address > 0 and self.client is not None:
            key = address_key(str(self.client[0]), self.ipv6_prefix)
            if self.held.get(key, 0) >= self.per_address:
                self.connections.discard(self)  # it holds no place meanwhile
                self._answer_and_close(
                    _raw_response(
                        "429 Too Many Requests",
                        b"Too many connections from your address",
                        (b"retry-after", b"5"),
                    )
                )
                return
            self.held[key] = self.held.get(key, 0) + 1
            self._slot = key
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._disarm_body()
        self._release()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._closing:
            return  # answered and closing: what still comes is read and dropped
        if self._between_requests():
            self._arm()  # a request's headers are on their way: they have a deadline
        super().data_received(data)
        if not self._between_requests():
            self._disarm()
        self._watch_body()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch_body()  # a pipelined request may have begun

    def handle_websocket_upgrade(self, event: Any) -> None:
        self._disarm()  # the WebSocket has its own deadline (for its hello)
        self._release()  # ... and its own per-address limit (Limits.ws_per_address)
        super().handle_websocket_upgrade(event)

    def send_400_response(self, msg: str) -> None:
        # uvicorn's answer to a malformed request, with the security headers.
        self.transport.write(_raw_response("400 Bad Request", msg.encode("ascii", "replace")))
        self.transport.close()

    def _release(self) -> None:
        key, self._slot = self._slot, None
        if key is not None:
            left = self.held.get(key, 0) - 1
            if left > 0:
                self.held[key] = left
            else:
                self.held.pop(key, None)

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

    def _watch_body(self) -> None:
        """Give a new request's body its deadline; lift it once the body is complete."""
        cycle = self.cycle
        if cycle is None:
            return
        if cycle is not self._body_cycle:
            self._disarm_body()
            self._body_cycle = cycle
            if cycle.more_body and self.body_timeout > 0:
                self._body_timer = self.loop.call_later(self.body_timeout, self._body_expired)
        elif not cycle.more_body:
            self._disarm_body()

    def _disarm_body(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _body_expired(self) -> None:
        self._body_timer = None
        cycle = self.cycle
        if cycle is None or not cycle.more_body or self.transport.is_closing():
            return
        if cycle.response_started:
            self.transport.close()
            return
        # The application is still waiting for the body: it is told the client went away
        # (connection_lost), the client is told why.
        cycle.response_started = True
        self._answer_and_close(
            _raw_response("408 Request Timeout", b"The request body came too slowly")
        )

    def _answer_and_close(self, response: bytes) -> None:
        """Send ``response`` and close; reading on (and dropping) what the client still
        sends for a moment, since closing with unread data would reset the connection
        and could destroy the answer before the client has read it."""
        self._closing = True
        self._disarm()
        self._disarm_body()
        self.transport.write(response)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER, self.transport.close)


@dataclass(slots=True)
class ServerLimits:
    """What uvicorn itself enforces. Times in seconds."""

    header_timeout: float = 10.0  # request headers must arrive within this
    body_timeout: float = 10.0  # a request's body must arrive within this of its headers
    # HTTP connections one address (IPv6: /64) holds at once; 0: no limit. A browser
    # opens up to 6 to a server and keeps them 5 s: room for a few behind one NAT.
    per_address: int = 32
    ipv6_prefix: int = 64  # IPv6 addresses count per network of this many bits
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
        "ServerH11Protocol",
        (GuardedH11Protocol,),
        {
            "header_timeout": limits.header_timeout,
            "body_timeout": limits.body_timeout,
            "per_address": limits.per_address,
            "ipv6_prefix": limits.ipv6_prefix,
            "held": {},
            "refusals": Refusals(),
        },
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
