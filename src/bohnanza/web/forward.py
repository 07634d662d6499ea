"""Requests for a table another server instance owns, forwarded to it (web/leases.py).

A reverse proxy in front of several instances cannot know which one owns a table (a table
is owned by the instance that made it, or took it over), so any instance may get any
request. Requests about one table (``/api/tables/{id}...`` and ``/ws/{id}``) that reach an
instance which does not own it are passed on to the owner: HTTP requests whole, WebSockets
relayed frame by frame both ways (the owner's close code too: 1012 tells the page to
reconnect when a table moves). The owner applies its limits to the real client: the
forwarding instance names it in ``X-Bohnanza-Client``, proven by its own secret in
``X-Bohnanza-Peer`` (``InstanceRow.secret``, read by every instance from the database);
a forwarded request is never forwarded again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Callable, MutableMapping
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from .leases import LeaseLost, Leases, Owner
from .limits import ASGIApp, Receive, Scope, Send

log = logging.getLogger("bohnanza.web")

_TABLE_PATH = re.compile(r"^/(?:api/tables|ws)/([A-Za-z0-9_-]{1,32})(?:/[^/]*)?$")
#: Headers that belong to one hop, not to the request.
_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
        b"content-length",
        b"content-encoding",
        b"host",
        b"x-bohnanza-peer",
        b"x-bohnanza-client",
        b"sec-websocket-key",
        b"sec-websocket-version",
        b"sec-websocket-extensions",
        b"sec-websocket-accept",
    }
)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


class Forwarder:
    """The ASGI middleware: outermost, so that a forwarded request's client address is
    the real one before any limit looks at it."""

    def __init__(
        self,
        app: ASGIApp,
        leases: Callable[[], Leases | None],
        tables: Callable[[], dict[str, Any]],
    ) -> None:
        self.app = app
        self.leases = leases
        self.tables = tables

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        leases = self.leases()
        if scope["type"] not in ("http", "websocket") or leases is None:
            await self.app(scope, receive, send)
            return
        peer = _header(scope, b"x-bohnanza-peer")
        if peer is not None:
            sender, _, secret = peer.partition(":")
            if secret and leases.peers.get(sender) == secret:
                client = _header(scope, b"x-bohnanza-client") or "unknown"
                scope = {
                    **scope,
                    "client": (client, 0),
                    "bohnanza.forwarded": True,
                    "bohnanza.peer": sender,
                }
        found = _TABLE_PATH.match(scope.get("path", ""))
        if found is None or scope.get("bohnanza.forwarded") or found.group(1) in self.tables():
            await self.app(scope, receive, send)
            return
        try:
            owner = await asyncio.to_thread(leases.acquire, found.group(1))
        except LeaseLost:
            owner = await asyncio.to_thread(leases.acquire, found.group(1))
        except Exception:
            owner = None  # the handler says the database is unavailable
        if owner is None or not owner.url:
            await self.app(scope, receive, send)  # ours now (or no such table)
            return
        if scope["type"] == "http":
            body = await _body(receive)
            if await _forward_http(scope, body, send, owner, leases):
                return
            replay: list[MutableMapping[str, Any]] = [{"type": "http.request", "body": body}]
        else:
            first = await receive()
            if first["type"] != "websocket.connect" or await _relay_socket(
                scope, receive, send, owner, leases
            ):
                return
            replay = [first]
        # The owner did not answer: it has just died. Take the table if it is free now
        # (the request is served here), else the client is told to try again.
        try:
            owner = await asyncio.to_thread(leases.acquire, found.group(1))
        except Exception:
            owner = Owner("?", "")
        if owner is not None:
            if scope["type"] == "http":
                await _moving(send)
            else:  # opened and closed "service restart": the page connects again
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.close", "code": 1012})
            return

        async def again() -> MutableMapping[str, Any]:
            return replay.pop(0) if replay else await receive()

        await self.app(scope, again, send)


def _peer_headers(scope: Scope, leases: Leases) -> list[tuple[bytes, bytes]]:
    client = scope.get("client")
    address = str(client[0]) if client else "unknown"
    kept = [(k, v) for k, v in scope.get("headers", []) if k.lower() not in _HOP]
    host = _header(scope, b"host")
    if host:
        kept.append((b"host", host.encode("latin-1")))
    return [
        *kept,
        (b"x-bohnanza-peer", f"{leases.id}:{leases.secret}".encode()),
        (b"x-bohnanza-client", address.encode("latin-1")),
    ]


async def _moving(send: Send) -> None:
    """The owner cannot be reached: the table is being taken over; ask again soon."""
    body = json.dumps(
        {"error": "the table is moving to another server; try again", "code": "moving"}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [(b"content-type", b"application/json"), (b"retry-after", b"2")],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _body(receive: Receive) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += bytes(message.get("body", b""))
        if not message.get("more_body"):
            return body


async def _forward_http(
    scope: Scope, body: bytes, send: Send, owner: Owner, leases: Leases
) -> bool:
    """The request answered by ``owner``; False if it could not be reached."""
    query = scope.get("query_string", b"").decode("latin-1")
    target = owner.url.rstrip("/") + scope["path"] + (f"?{query}" if query else "")
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            answer = await client.request(
                scope["method"], target, headers=_peer_headers(scope, leases), content=body
            )
    except httpx.HTTPError as exc:
        log.info("could not forward %s to %s: %s", scope["path"], owner.instance, exc)
        return False
    content = answer.content
    headers = [(k, v) for k, v in answer.headers.raw if k.lower() not in _HOP]
    headers.append((b"content-length", str(len(content)).encode()))
    await send({"type": "http.response.start", "status": answer.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": content})
    return True


async def _relay_socket(
    scope: Scope, receive: Receive, send: Send, owner: Owner, leases: Leases
) -> bool:
    """The socket relayed to ``owner`` until either side closes (the client's
    ``websocket.connect`` already read); False if the owner could not be reached."""
    target = owner.url.replace("http://", "ws://").replace("https://", "wss://").rstrip("/")
    headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in _peer_headers(scope, leases)]
    headers = [(k, v) for k, v in headers if k.lower() not in ("host",)]
    try:
        upstream = await connect(
            target + scope["path"],
            additional_headers=headers,
            max_size=None,
            open_timeout=10,
            ping_interval=None,
        )
    except Exception as exc:
        log.info("could not relay a socket of %s to %s: %s", scope["path"], owner.instance, exc)
        return False
    await send({"type": "websocket.accept"})

    async def down() -> None:
        """The owner's frames to the client, and its close code."""
        try:
            async for frame in upstream:
                if isinstance(frame, str):
                    await send({"type": "websocket.send", "text": frame})
                else:
                    await send({"type": "websocket.send", "bytes": frame})
        except ConnectionClosed:
            pass
        code = upstream.close_code or 1012
        with contextlib.suppress(Exception):
            await send({"type": "websocket.close", "code": 1012 if code == 1006 else code})

    async def up() -> None:
        """The client's frames to the owner, until the client goes."""
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                await upstream.close()
                return
            if message.get("text") is not None:
                await upstream.send(message["text"])
            elif message.get("bytes") is not None:
                await upstream.send(message["bytes"])

    tasks = [asyncio.create_task(down()), asyncio.create_task(up())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            await upstream.close()
    return True
