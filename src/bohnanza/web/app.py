"""The FastAPI application: ``create_app(settings)`` builds it from its parts, and
``bohnanza serve`` runs it with uvicorn. Pages are static files (no build step) that talk
to ``/api/...`` and ``/ws/{table}``; see ``docs/web.md`` for every message.

The parts: ``pages`` (the pages, static files, the health check), ``lobby_routes`` (rule
sets, the tables' list, creating a table), ``table_routes`` (one table's API),
``socket_route`` (the game's WebSocket), ``account_routes`` (accounts); what they share
is ``routing``. Here: the middleware (body limits, ``Host``, forwarding) and the errors.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from .account_routes import attach_accounts, detach_accounts, install_accounts
from .costly import Costly
from .forward import Forwarder
from .leases import Elsewhere
from .limits import Hardening
from .lobby_routes import install_form, install_lobby_routes
from .pages import install_health, install_pages
from .protocol import MAX_MESSAGE
from .routing import STATIC, Shared, origin_allowed
from .socket_route import install_socket
from .store import Store
from .table_routes import install_seat_routes, install_table_routes
from .tables import LobbyError, Manager, Settings

__all__ = ["STATIC", "BodyLimit", "body_limit", "create_app", "origin_allowed"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


#: The largest request body of any route but table creation (whose may hold a fixed deck
#: on a test server): joining, a QR code's link, a seat hand-over are well below 1 KB.
SMALL_BODY = 2048
#: A passkey's registration (its attestation: a public key, certificates at most) or
#: login (a signature) request.
PASSKEY_BODY = 16384


def body_limit(method: str, path: str) -> int:
    """The largest body a request may have: none for a GET, a few KB for the small JSON
    requests, the protocol's message limit for creating a table."""
    if method in ("GET", "HEAD", "OPTIONS"):
        return 0
    if path.startswith("/api/account/passkey/"):
        return PASSKEY_BODY  # a passkey's attestation or signature, base64url-encoded
    return MAX_MESSAGE if path == "/api/tables" else SMALL_BODY


class BodyLimit:
    """Refuse HTTP bodies larger than their route's limit (:func:`body_limit`; 413).
    How long a body may take is the server's (``serving.GuardedH11Protocol``)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = body_limit(scope.get("method", ""), scope.get("path", ""))
        for key, value in scope.get("headers", []):
            if key == b"content-length" and (not value.isdigit() or int(value) > limit):
                response = JSONResponse(
                    {"error": f"request body too large (at most {limit} bytes here)"},
                    status_code=413,
                    headers={"Connection": "close"},  # the rest of the body is not read
                )
                await response(scope, receive, send)
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise LobbyError("request body too large", 413)
            return message

        await self.app(scope, limited, send)


def create_app(settings: Settings | None = None, store: Store | None = None) -> FastAPI:
    """The web application. ``store`` (an open :class:`Store`) overrides the URL."""
    settings = settings if settings is not None else Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        manager = Manager(settings, store)
        attach_accounts(app, manager)  # before any game can end: ratings hook in
        await manager.start()
        app.state.manager = manager
        try:
            yield
        finally:
            await detach_accounts(app)
            await manager.stop()

    app = FastAPI(
        title="Bohnanza", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None
    )
    shared = Shared(settings, Costly(settings.limits))
    _install_middleware(app, shared)
    _install_error_handlers(app)
    install_pages(app)
    install_health(app)
    install_lobby_routes(app, shared)
    install_form(app, shared)
    install_table_routes(app, shared)
    install_seat_routes(app, shared)
    install_socket(app, shared)
    install_accounts(app, settings, origin_allowed, shared.address_of)
    return app


def _install_middleware(app: FastAPI, shared: Shared) -> None:
    """From the inside out: the body limit, the costly requests' limits, the Host check,
    and outermost the forwarding to the instance that owns a table."""
    app.add_middleware(BodyLimit)
    app.add_middleware(shared.costly.middleware, limits=shared.settings.limits)
    # Unknown Host names are refused before anything else runs.
    app.add_middleware(Hardening, limits=shared.settings.limits)

    def live_manager() -> Manager | None:
        found: Manager | None = getattr(app.state, "manager", None)
        return found

    # Outermost: a request forwarded by another instance of this server carries its
    # client's address, taken before any limit; one about a table another instance owns
    # goes there (web/forward.py, web/leases.py).
    app.add_middleware(
        Forwarder,
        leases=lambda: m.leases if (m := live_manager()) is not None else None,
        tables=lambda: m.tables if (m := live_manager()) is not None else {},
    )


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(Elsewhere)
    async def elsewhere(_request: Request, _exc: Elsewhere) -> Response:
        # Another instance owns the table (it took it over meanwhile): ask again.
        body = {"error": "the table is moving to another server; try again", "code": "moving"}
        return JSONResponse(body, status_code=503, headers={"Retry-After": "1"})

    @app.exception_handler(LobbyError)
    async def lobby_error(_request: Request, exc: LobbyError) -> Response:
        body = {"error": exc.message, **({"code": exc.code} if exc.code else {})}
        return JSONResponse(body, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> Response:
        parts = []
        for e in exc.errors()[:3]:
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            parts.append(f"{where}: {e.get('msg', 'invalid')}" if where else str(e.get("msg")))
        return JSONResponse({"error": "; ".join(parts) or "invalid request"}, status_code=400)
