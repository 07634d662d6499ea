"""The FastAPI application: pages, the lobby's HTTP API, the game's WebSocket.

``create_app(settings)`` builds it; ``bohnanza serve`` runs it with uvicorn. Pages are
static files (no build step) that talk to ``/api/...`` and ``/ws/{table}``; see
``docs/web.md`` for every message.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, MutableMapping
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any, Literal, cast
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from ..agents import DEFAULT_BOT, DESCRIPTIONS
from ..rules import all_rulesets
from .account_routes import (
    attach_accounts,
    claim_for_session,
    detach_accounts,
    install_accounts,
)
from .coaching import Coaching
from .costly import Costly
from .forward import Forwarder
from .handover import TTL as HANDOVER_TTL
from .handover import Handovers, HandoversFull
from .i18n import strings
from .invite import QR_MAX, invite_links, qr_svg, reachable_link
from .leases import Elsewhere
from .limits import Hardening, client_address, name_allowed
from .protocol import MAX_MESSAGE, dumps, error
from .rules_page import rules_page
from .store import Store
from .tables import Conn, LobbyError, Manager, Settings

STATIC = Path(str(resources.files("bohnanza.web").joinpath("static")))

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class SeatSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["person", "bot"]
    bot: str | None = Field(default=None, max_length=200)


class CreateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rules: str = Field(max_length=64)
    players: int = Field(ge=2, le=7)
    options: dict[str, str] = Field(default_factory=dict, max_length=4)
    seats: list[SeatSpec] = Field(max_length=7)
    trade_limit: int = Field(default=0, ge=0, le=3600)
    name: str = Field(default="", max_length=40)
    seed: int | None = Field(default=None, ge=0, lt=2**62)
    deck: list[str | int] | None = Field(default=None, max_length=200)
    private: bool = False
    coach: bool = False  # coach mode: hints and a review (issue 36, web/coaching.py)
    clock: str = Field(default="none", max_length=40)
    stand_in_bot: str | None = Field(default=None, max_length=200)
    # Rated (web/ratings.py): the accounts' seats only, or with bots at fixed ratings.
    rated: Literal["no", "people", "bots"] = "no"
    # The page's id for this request: the same id again (a double click) gets the same
    # table back, not a second one.
    request_id: str | None = Field(default=None, min_length=8, max_length=64)


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(default="", max_length=40)
    seat: int | None = Field(default=None, ge=0, le=6)


class HandoverRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(min_length=1, max_length=200)


class ClaimRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(min_length=1, max_length=64)


class QrRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=QR_MAX)


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


def _origin_key(url: str) -> str | None:
    """``scheme://host:port`` of an origin, lower case, with the default port filled in;
    None for anything that is not an http(s)/ws(s) origin (``null``, garbage)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    defaults = {"http": 80, "ws": 80, "https": 443, "wss": 443}
    if scheme not in defaults or not parts.hostname:
        return None
    secure = scheme in ("https", "wss")
    return f"{'https' if secure else 'http'}://{parts.hostname.lower()}:{port or defaults[scheme]}"


def origin_allowed(headers: Mapping[str, str], allowed: tuple[str, ...] = ()) -> bool:
    """Whether a WebSocket upgrade may proceed, judged by its ``Origin`` header.

    Browsers send ``Origin`` with every WebSocket handshake and let any page open one to
    any server, so without this check a page on another site could play (or read the
    views of) the tables whose tokens the visitor's browser holds. Accepted: no Origin
    (programs, not browsers), an Origin whose host:port is the request's ``Host``, or
    one listed in ``allowed`` (``bohnanza serve --allow-origin``).
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    key = _origin_key(origin)
    if key is None:
        return False
    if key in {_origin_key(a) for a in allowed}:
        return True
    host = headers.get("host", "")
    own = _origin_key(f"{key.split('://', 1)[0]}://{host}") if host else None
    return own == key


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
    app.add_middleware(BodyLimit)
    costly = Costly(settings.limits)
    handovers = Handovers()
    coaching = Coaching()
    app.add_middleware(costly.middleware, limits=settings.limits)
    # Unknown Host names are refused before anything else runs.
    app.add_middleware(Hardening, limits=settings.limits)

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

    def manager_of(request: Request | WebSocket) -> Manager:
        manager: Manager = request.app.state.manager
        return manager

    def address_of(request: Request | WebSocket) -> str:
        lim = settings.limits
        return client_address(request.scope, lim.trust_proxy, lim.ipv6_prefix)

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

    # ------------------------------------------------------------------ pages

    def page(name: str) -> FileResponse:
        return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

    @app.get("/", include_in_schema=False)
    async def home() -> FileResponse:
        return page("index.html")

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(request: Request, table_id: str) -> FileResponse:
        try:
            missing = await manager_of(request).get(table_id) is None
        except LobbyError:
            missing = False  # the database is away: the page says so once it connects
        if missing:
            return FileResponse(
                STATIC / "404.html", status_code=404, headers={"Cache-Control": "no-cache"}
            )
        return page("table.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_html(lang: str = "en") -> HTMLResponse:
        return HTMLResponse(rules_page(lang), headers={"Cache-Control": "no-cache"})

    @app.get("/replay/{table_id}", include_in_schema=False)
    async def replay_page(request: Request, table_id: str) -> FileResponse:
        try:
            missing = await manager_of(request).get(table_id) is None
        except LobbyError:
            missing = False  # the database is away: the page says so when it loads
        if missing:  # not an empty replay of nothing
            return FileResponse(
                STATIC / "404.html", status_code=404, headers={"Cache-Control": "no-cache"}
            )
        return page("replay.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------------ API

    @app.get("/healthz")
    async def healthz(request: Request) -> Response:
        manager: Manager | None = getattr(request.app.state, "manager", None)
        if manager is None or not await asyncio.to_thread(manager.store.ping):
            return JSONResponse({"status": "unavailable"}, status_code=503)
        return JSONResponse({"status": "ok", "database": manager.store.backend})

    @app.get("/api/rules")
    async def rules() -> dict[str, Any]:
        # Bots in the order of DESCRIPTIONS (the playing bots first, the test probes
        # last), each with its one-line description; the lobby preselects the default.
        bots = settings.bots()
        return {
            "rulesets": all_rulesets(),
            "bots": bots,
            "bot_descriptions": {b: DESCRIPTIONS.get(b, "") for b in bots},
            "default_bot": DEFAULT_BOT,
        }

    @app.get("/api/strings")
    async def get_strings() -> dict[str, Any]:
        return strings()

    @app.get("/api/tables")
    async def list_tables(request: Request) -> dict[str, Any]:
        manager = manager_of(request)
        tables, changes = len(manager.tables), manager.session.changes
        return {"tables": await costly.listing(tables, changes, manager.recent)}

    @app.post("/api/tables", response_model=None)
    async def create(request: Request, body: CreateTable) -> dict[str, Any] | Response:
        manager = manager_of(request)
        address = address_of(request)

        async def make() -> dict[str, Any] | Response:
            live = (t.id for t in manager.tables.values() if t.status in ("lobby", "playing"))
            refused = manager.guard.may_create(address, live)
            if refused is not None:
                return JSONResponse(
                    {"error": refused[0], "code": "rate_limited"},
                    status_code=429,
                    headers={"Retry-After": str(refused[1])},
                )
            table, seat, token = await manager.create_table(
                rules=body.rules,
                players=body.players,
                options=body.options,
                seats=[{"kind": s.kind, "bot": s.bot or ""} for s in body.seats],
                trade_limit=body.trade_limit,
                name=body.name,
                seed=body.seed,
                deck=body.deck,
                private=body.private,
                clock=body.clock,
                address=address,
                stand_in=body.stand_in_bot,
                rated=body.rated,
                coach=body.coach,
            )
            await claim_for_session(request, table.id, seat, token)
            return {"table": table, "seat": seat, "token": token}

        answer = await manager.create_once(
            address, body.request_id, make, keep=lambda a: isinstance(a, dict)
        )
        if not isinstance(answer, dict):
            return cast(Response, answer)
        return {**answer, "table": answer["table"].info()}

    @app.post("/new", include_in_schema=False, response_model=None)
    async def create_from_form(request: Request) -> Response:
        """The home page's form posted before its scripts loaded (a slow line): a table
        with the typed name, the chosen rules and players, bots in the other seats; the
        browser is sent to it with a one-time hand-over code in the fragment, which the
        page trades for the seat's token (the token itself would stay in the browser's
        history). A form posted from another site is refused like the scripts' requests:
        it would create a table claimed for the visitor's account."""
        if (
            not origin_allowed(request.headers, settings.allowed_origins)
            or request.headers.get("sec-fetch-site", "").lower() == "cross-site"
        ):
            raise LobbyError("requests from other sites are refused", 403, "bad_origin")
        form = parse_qs((await request.body()).decode("utf-8", "replace"))

        def field(key: str, default: str) -> str:
            return (form.get(key) or [default])[0].strip() or default

        manager = manager_of(request)
        address = address_of(request)
        live = (t.id for t in manager.tables.values() if t.status in ("lobby", "playing"))
        refused = manager.guard.may_create(address, live)
        if refused is not None:
            raise LobbyError(refused[0], 429, "rate_limited")
        try:
            players = int(field("players", "4"))
            trade_limit = int(field("trade_limit", "0"))
        except ValueError:
            raise LobbyError("players and the trading limit are numbers") from None
        if not 2 <= players <= 7:
            raise LobbyError("2 to 7 players")
        bot = field("stand_in_bot", DEFAULT_BOT)
        table, seat, token = await manager.create_table(
            rules=field("rules", "classic"),
            players=players,
            options={},
            seats=[{"kind": "person"}] + [{"kind": "bot", "bot": bot}] * (players - 1),
            trade_limit=trade_limit,
            name=field("name", ""),
            clock=field("clock", "none"),
            address=address,
            stand_in=bot,
            coach=field("coach", "") == "on",
        )
        await claim_for_session(request, table.id, seat, token)
        try:
            code = handovers.issue(table.id, token, address)
        except HandoversFull as exc:
            raise LobbyError(str(exc), 503, "handovers_full") from None
        target = f"/t/{quote(table.id, safe='')}#claim={quote(code, safe='')}"
        return RedirectResponse(target, status_code=303)

    async def find(request: Request, table_id: str) -> Any:
        table = await manager_of(request).get(table_id)
        if table is None:
            raise LobbyError(f"there is no table {table_id!r}", 404, "no_table")
        return table

    @app.get("/api/tables/{table_id}")
    async def table_info(request: Request, table_id: str) -> dict[str, Any]:
        table = await find(request, table_id)
        info: dict[str, Any] = table.info()
        return info

    def forwarded_host_allowed(host: str) -> bool:
        # With --allowed-host, a proxy's X-Forwarded-Host must be one of those names too;
        # without, any well-formed name (the proxy is trusted to say how it is reached).
        names = settings.limits.allowed_hosts
        return not names or name_allowed(host, {}, names)

    @app.get("/api/tables/{table_id}/invite")
    async def invite(request: Request, table_id: str) -> dict[str, Any]:
        await find(request, table_id)
        links = invite_links(
            table_id,
            request.headers,
            request.url.scheme,
            trust_proxy=settings.trust_proxy,
            public=settings.public_addresses,
            allowed=forwarded_host_allowed,
            public_url=settings.public_url,
        )
        # "reachable": the link a phone can open (a seat moved to another device).
        return {"links": links, "reachable": reachable_link(links)}

    @app.post("/api/qr")
    async def qr(request: Request, body: QrRequest) -> Response:
        # POST, so that a link carrying a seat token never appears in a URL or a log.
        if not body.text.startswith(("http://", "https://")):
            raise LobbyError("a QR code is made for a link (http:// or https://)")
        svg = await costly.qr(address_of(request), body.text, qr_svg)
        return Response(svg, media_type="image/svg+xml")

    @app.post("/api/tables/{table_id}/join")
    async def join(request: Request, table_id: str, body: JoinTable) -> dict[str, Any]:
        table = await find(request, table_id)
        address = address_of(request)
        seat, token = await manager_of(request).join(table, body.name, body.seat, address)
        await claim_for_session(request, table.id, seat, token)
        return {"table": table.info(), "seat": seat, "token": token}

    @app.post("/api/tables/{table_id}/handover")
    async def handover(request: Request, table_id: str, body: HandoverRequest) -> dict[str, Any]:
        table = await find(request, table_id)
        # The seat's token, or the new one a seat is moving to (``move``, web/session.py).
        if table.seat_for_token(body.token) is None and table.seat_for_move(body.token) is None:
            raise LobbyError("that token holds no seat at this table", 403, "bad_token")
        try:
            code = handovers.issue(table.id, body.token, address_of(request))
        except HandoversFull as exc:
            raise LobbyError(str(exc), 503, "handovers_full") from None
        return {"code": code, "expires_in": int(HANDOVER_TTL)}

    @app.post("/api/tables/{table_id}/claim")
    async def claim(request: Request, table_id: str, body: ClaimRequest) -> dict[str, Any]:
        table = await find(request, table_id)
        token = handovers.claim(table.id, body.code)
        if token is None:
            raise LobbyError("this link was used already or has expired", 404, "bad_code")
        return {"token": token}

    @app.post("/api/tables/{table_id}/hint")
    async def hint(request: Request, table_id: str, body: HandoverRequest) -> dict[str, Any]:
        """Coach mode: the search's three best actions for the token's seat."""
        return await coaching.hint(await find(request, table_id), body.token)

    @app.get("/api/tables/{table_id}/review")
    async def review(request: Request, table_id: str) -> dict[str, Any]:
        """Coach mode: each person's decisions that lost the most, once it is over."""
        return await coaching.review(await find(request, table_id))

    @app.get("/api/tables/{table_id}/record")
    async def record(request: Request, table_id: str) -> dict[str, Any]:
        table = await find(request, table_id)
        return manager_of(request).record(table)

    @app.get("/api/tables/{table_id}/replay")
    async def replay(request: Request, table_id: str, step: int = 0) -> dict[str, Any]:
        table = await find(request, table_id)
        manager = manager_of(request)
        if table.status != "over":  # the frame says why (403); a finished one never changes
            frame = manager.replay_frame(table, step)
        else:
            make = functools.partial(manager.replay_frame, table, step)
            frame = await costly.frame(address_of(request), table.id, step, make)
        return {**frame, "table": table.info()}

    # ------------------------------------------------------------------ the game

    @app.websocket("/ws/{table_id}")
    async def ws(websocket: WebSocket, table_id: str) -> None:
        if not origin_allowed(websocket.headers, settings.allowed_origins):
            # Before accepting: the browser sees a refused handshake (HTTP 403).
            await websocket.close(4403)
            return
        await websocket.accept()
        manager = manager_of(websocket)
        address = address_of(websocket)
        refused = manager.guard.open_socket(address)
        if refused is not None:
            # Every connection costs a task, a queue and a copy of each broadcast: one
            # client opening thousands would slow the server for everybody.
            await websocket.send_text(dumps(error("rate_limited", refused)))
            await websocket.close(1013)
            return
        try:
            try:
                table = await manager.get(table_id)
            except Elsewhere:  # another instance took it over meanwhile: reconnect
                await websocket.close(1012)
                return
            except LobbyError as exc:  # the database is unavailable: say so, no traceback
                await websocket.send_text(dumps(error("server_error", exc.message)))
                await websocket.close(1011)
                return
            if table is None:
                await websocket.send_text(
                    dumps(error("no_table", f"there is no table {table_id!r}"))
                )
                await websocket.close(4404)
                return
            conn = manager.connect(table, websocket)
            conn.address = address
            conn.peer = websocket.scope.get("bohnanza.peer")
            if conn.peer is not None and manager.may_hand_off(table, conn.peer):
                # Every socket of this table comes through one other instance (the proxy
                # routes the table there): the table moves there; this socket is closed
                # 1012 and the page connects again, to its new owner.
                await manager.hand_off(table)
            await _serve_socket(manager, conn, websocket, settings.limits.hello_timeout)
        finally:
            manager.guard.close_socket(address)

    install_accounts(app, settings, origin_allowed, address_of)
    return app


async def _serve_socket(
    manager: Manager, conn: Conn, websocket: WebSocket, hello_timeout: float
) -> None:
    """Read a connection's frames until it closes. One that has not said a valid
    ``hello`` within ``hello_timeout`` seconds is closed (4408): idle sockets must not
    hold places that players and spectators need."""
    deadline = asyncio.get_running_loop().time() + hello_timeout
    try:
        while True:
            if conn.authed or hello_timeout <= 0:
                message = await websocket.receive()
            else:
                left = deadline - asyncio.get_running_loop().time()
                try:
                    if left <= 0:
                        raise TimeoutError
                    message = await asyncio.wait_for(websocket.receive(), left)
                except TimeoutError:
                    with contextlib.suppress(Exception):
                        await websocket.close(4408, "no hello")
                    break
            if message["type"] == "websocket.disconnect":
                break
            raw = message.get("text")
            if raw is None:
                raw = message.get("bytes")
            await manager.handle(conn, raw)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        await manager.disconnect(conn)
