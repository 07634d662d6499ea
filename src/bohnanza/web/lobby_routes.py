"""The lobby's HTTP API: the rule sets, bots and strings the pages show, the tables'
list, creating a table (from the page's scripts, or from the home page's form before
they load) and the QR code of an invite link."""

from __future__ import annotations

from typing import Any, Literal, cast
from urllib.parse import parse_qs, quote

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ..agents import DEFAULT_BOT, DESCRIPTIONS
from ..rules import all_rulesets
from .account_routes import claim_for_session
from .handover import HandoversFull
from .i18n import strings
from .invite import QR_MAX, qr_svg
from .routing import Shared, manager_of, origin_allowed
from .tables import LobbyError


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


class QrRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=QR_MAX)


def install_lobby_routes(app: FastAPI, shared: Shared) -> None:
    settings, costly, address_of = shared.settings, shared.costly, shared.address_of

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

    @app.post("/api/qr")
    async def qr(request: Request, body: QrRequest) -> Response:
        # POST, so that a link carrying a seat token never appears in a URL or a log.
        if not body.text.startswith(("http://", "https://")):
            raise LobbyError("a QR code is made for a link (http:// or https://)")
        svg = await costly.qr(address_of(request), body.text, qr_svg)
        return Response(svg, media_type="image/svg+xml")


def install_form(app: FastAPI, shared: Shared) -> None:
    settings, handovers, address_of = shared.settings, shared.handovers, shared.address_of

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
