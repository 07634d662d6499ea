"""HTTP routes of accounts, "your games" and ratings, and their pages.

``install_accounts`` adds the routes to the app: those here (sessions, seats, "your
games", ratings, pages), the e-mail routes (``mail_routes``) and the passkeys'
(``passkey_routes``), which share ``account_http``. ``attach_accounts`` (at start-up,
before any game can end) makes the :class:`~bohnanza.web.accounts.Accounts` service and
hooks the ratings into the store's end-of-game transaction. Every POST here checks the
``Origin`` header like the WebSockets do (a page of another site must not log a visitor
in or out), on top of the cookie's SameSite=Lax.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ..rules import all_rulesets
from .account_http import AccountSite, book, current, manager_of, passwords, service, signed_in
from .accounts import (
    CLAIM_MAX,
    COOKIE,
    PASSWORD_MAX,
    AccountError,
    Accounts,
    PasswordChecks,
    follow_moved_seat,
    public,
)
from .leases import Elsewhere
from .lobby import stored_info
from .mail import MailBook, MailSettings, Notifier
from .mail_routes import install_mail_routes, install_unsubscribe
from .model import Settings, hash_token
from .pages import page
from .passkey_routes import install_passkey_routes
from .ratings import leaderboard, player, rate_finished
from .store import Store
from .waiting import your_turn

log = logging.getLogger("bohnanza.web")


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=100)
    password: str = Field(min_length=1, max_length=PASSWORD_MAX)


class SeatClaim(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table: str = Field(min_length=1, max_length=32)
    token: str = Field(min_length=1, max_length=100)


class ClaimSeats(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seats: list[SeatClaim] = Field(max_length=CLAIM_MAX)


class SeatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    table: str = Field(min_length=1, max_length=32)


def attach_accounts(app: FastAPI, manager: Any) -> None:
    """The accounts service on the manager's store, the ratings in its game ends, and
    (with an SMTP server) the e-mail watcher."""
    app.state.accounts = Accounts(manager.store, manager.settings.accounts)
    limits = app.state.accounts.limits
    app.state.passwords = PasswordChecks(limits.password_threads, limits.password_queue)
    app.state.mailbook = MailBook(manager.store)
    if rate_finished not in manager.store.on_game_over:
        manager.store.on_game_over.append(rate_finished)
    if follow_moved_seat not in manager.store.on_seat_moved:
        manager.store.on_seat_moved.append(follow_moved_seat)
    mail: MailSettings | None = manager.settings.mail
    app.state.notifier = None
    if mail is not None:
        app.state.notifier = Notifier(mail, app.state.mailbook, app.state.accounts, manager)
        app.state.notifier.start()


async def detach_accounts(app: FastAPI) -> None:
    """Stop the e-mail watcher and the password threads (at shutdown)."""
    notifier: Notifier | None = getattr(app.state, "notifier", None)
    if notifier is not None:
        await notifier.stop()
    passwords: PasswordChecks | None = getattr(app.state, "passwords", None)
    if passwords is not None:
        passwords.close()


async def claim_for_session(request: Request, table_id: str, seat: int, token: str) -> None:
    """A seat taken by a logged-in browser (a new table, a join) is its account's at once.
    Never refuses the seat: a failure here leaves it a guest's seat, claimable later."""
    cookie = request.cookies.get(COOKIE)
    accounts: Accounts | None = getattr(request.app.state, "accounts", None)
    if not cookie or accounts is None:
        return
    try:
        account = await asyncio.to_thread(accounts.session_account, cookie)
        if account is not None:
            await asyncio.to_thread(
                accounts.link_seat, account.id, table_id, seat, hash_token(token)
            )
    except Exception:
        log.warning("could not link a seat of table %s to its account", table_id, exc_info=True)


def install_accounts(
    app: FastAPI,
    settings: Settings,
    origin_allowed: Callable[[Mapping[str, str], tuple[str, ...]], bool],
    address_of: Callable[[Request | WebSocket], str],
) -> None:
    site = AccountSite(settings, origin_allowed, address_of)

    @app.exception_handler(AccountError)
    async def account_error(_request: Request, exc: AccountError) -> Response:
        headers = {"Retry-After": str(exc.retry)} if exc.retry else None
        return JSONResponse(
            {"error": exc.message, "code": exc.code}, status_code=exc.status, headers=headers
        )

    _install_sessions(app, site)
    install_mail_routes(app, site)
    install_unsubscribe(app)
    install_passkey_routes(app, site)
    _install_seats(app, site)
    _install_games(app)
    _install_ratings_and_pages(app)


def _install_sessions(app: FastAPI, site: AccountSite) -> None:
    settings, same_origin, address_of = site.settings, site.same_origin, site.address_of
    with_session = site.with_session

    @app.post("/api/account/register")
    async def register(request: Request, body: Credentials) -> Response:
        same_origin(request)
        account, token = await passwords(request).run(
            service(request).register, body.name, body.password, address_of(request)
        )
        return with_session(request, {"account": public(account)}, token)

    @app.post("/api/account/login")
    async def login(request: Request, body: Credentials) -> Response:
        same_origin(request)
        account, token = await passwords(request).run(
            service(request).login, body.name, body.password, address_of(request)
        )
        return with_session(request, {"account": public(account)}, token)

    @app.post("/api/account/logout")
    async def logout(request: Request) -> Response:
        same_origin(request)
        token = request.cookies.get(COOKIE)
        if token:
            await asyncio.to_thread(service(request).logout, token)
        response = JSONResponse({"account": None})
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return response

    @app.post("/api/account/logout-everywhere")
    async def logout_everywhere(request: Request) -> Response:
        same_origin(request)
        account = await signed_in(request)
        ended = await asyncio.to_thread(service(request).logout_everywhere, account.id)
        response = JSONResponse({"account": None, "sessions_ended": ended})
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return response

    @app.get("/api/account")
    async def me(request: Request) -> dict[str, Any]:
        account = await current(request)
        if account is None:
            return {"account": None, "mail": settings.mail is not None}
        email = await asyncio.to_thread(book(request).get, account.id)
        # The address is shown here only: to its own account.
        return {"account": public(account), "email": email, "mail": settings.mail is not None}


def _install_seats(app: FastAPI, site: AccountSite) -> None:
    same_origin = site.same_origin

    @app.post("/api/account/claim")
    async def claim(request: Request, body: ClaimSeats) -> dict[str, Any]:
        """Seats whose tokens this browser holds become the account's."""
        same_origin(request)
        account = await signed_in(request)
        claimed: list[dict[str, Any]] = []
        refused: list[str] = []
        for item in body.seats:
            try:
                table = await manager_of(request).get(item.table)
                seat = table.seat_for_token(item.token) if table is not None else None
            except Elsewhere:  # another server instance plays it: its stored seats
                store = manager_of(request).store
                seat = await asyncio.to_thread(
                    stored_seat, store, item.table, hash_token(item.token)
                )
            if seat is None:
                refused.append(item.table)
                continue
            await asyncio.to_thread(
                service(request).link_seat, account.id, item.table, seat, hash_token(item.token)
            )
            claimed.append({"table": item.table, "seat": seat})
        return {"claimed": claimed, "refused": refused}

    @app.post("/api/account/seat")
    async def seat_token(request: Request, body: SeatRequest) -> dict[str, Any]:
        """A token for the account's seat on this device: the seat moves here (the
        device that held it watches on), as "continue on another device" does."""
        same_origin(request)
        account = await signed_in(request)
        table = await manager_of(request).get(body.table)
        links = await asyncio.to_thread(service(request).account_seats, body.table)
        if table is None or table.status not in ("lobby", "playing"):
            raise AccountError("no open table of yours has that id", 404, "no_table")
        for number, (owner, token_hash) in links.items():
            if owner != account.id or not 0 <= number < len(table.seats):
                continue
            held = table.seats[number]
            if token_hash not in (held.token_hash, held.move_hash):
                continue
            token = secrets.token_urlsafe(24)
            async with table.lock:
                held.move_hash = hash_token(token)
            await asyncio.to_thread(
                service(request).link_seat, account.id, table.id, number, hash_token(token)
            )
            return {"table": table.id, "seat": number, "token": token}
        raise AccountError("you hold no seat at this table", 403, "not_your_seat")


def stored_seat(store: Store, table_id: str, token_hash: str) -> int | None:
    stored = store.load(table_id)
    if stored is None or stored.status not in ("lobby", "playing"):
        return None
    return next((s.seat for s in stored.seats if s.token_hash == token_hash), None)


def stored_game(store: Store, table_id: str, seat: int, token_hash: str) -> dict[str, Any] | None:
    """A game of "your games" that another instance owns: its stored facts, and "your
    turn" as stored with its last action (web/turns.py: ``to_move``)."""
    stored = store.load(table_id)
    if stored is None or stored.status not in ("lobby", "playing"):
        return None
    if not any(s.seat == seat and s.token_hash == token_hash for s in stored.seats):
        return None
    return {"table": stored_info(stored), "seat": seat, "your_turn": stored.waits_for(seat)}


def _install_games(app: FastAPI) -> None:
    @app.get("/api/account/games")
    async def games(request: Request) -> dict[str, Any]:
        """The account's tables in the lobby or in play: those waiting for it first."""
        account = await signed_in(request)
        links = await asyncio.to_thread(service(request).seats_of, account.id)
        out: list[dict[str, Any]] = []
        for table_id, seat, token_hash in links:
            try:
                table = await manager_of(request).get(table_id)
            except Elsewhere:  # another server instance plays it: as stored
                store = manager_of(request).store
                game = await asyncio.to_thread(stored_game, store, table_id, seat, token_hash)
                if game is not None:
                    out.append(game)
                continue
            if table is None or not 0 <= seat < len(table.seats):
                continue
            held = table.seats[seat]
            if token_hash not in (held.token_hash, held.move_hash):
                continue  # the seat was left, or moved on without this account
            out.append(
                {
                    "table": table.info(),
                    "seat": seat,
                    "your_turn": your_turn(table, seat),
                }
            )
        out.sort(key=lambda g: (not g["your_turn"], g["table"]["status"] != "playing"))
        return {"games": out}


def _install_ratings_and_pages(app: FastAPI) -> None:
    @app.get("/api/ratings/{rules}")
    async def ratings(request: Request, rules: str) -> dict[str, Any]:
        if rules not in {r["rules"] for r in all_rulesets()}:
            raise AccountError(f"there is no rule set {rules[:64]!r}", 404, "no_rules")
        store = manager_of(request).store

        def read() -> list[dict[str, Any]]:
            with store.engine.connect() as conn:
                return leaderboard(conn, rules)

        return {"rules": rules, "players": await asyncio.to_thread(read)}

    @app.get("/api/players/{name}")
    async def player_info(request: Request, name: str) -> dict[str, Any]:
        found = await asyncio.to_thread(service(request).by_name, name)
        if found is None:
            raise AccountError("there is no player of that name", 404, "no_player")
        store = manager_of(request).store

        def read() -> dict[str, Any]:
            with store.engine.connect() as conn:
                return player(conn, found.id)

        return {"name": found.name, "created": found.created, **await asyncio.to_thread(read)}

    @app.get("/account", include_in_schema=False)
    async def account_page() -> FileResponse:
        return page("account.html")

    @app.get("/ratings", include_in_schema=False)
    async def ratings_page() -> FileResponse:
        return page("ratings.html")

    @app.get("/player/{name}", include_in_schema=False)
    async def player_page(name: str) -> FileResponse:
        return page("player.html")
