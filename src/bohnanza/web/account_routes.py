"""HTTP routes of accounts, "your games" and ratings, and their pages.

``install_accounts`` adds the routes to the app; ``attach_accounts`` (at start-up, before
any game can end) makes the :class:`~bohnanza.web.accounts.Accounts` service and hooks
the ratings into the store's end-of-game transaction. Every POST here checks the
``Origin`` header like the WebSockets do (a page of another site must not log a visitor
in or out), on top of the cookie's SameSite=Lax.
"""

from __future__ import annotations

import asyncio
import html
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ..rules import all_rulesets
from .accounts import (
    CLAIM_MAX,
    COOKIE,
    PASSWORD_MAX,
    SESSION_TTL,
    Account,
    AccountError,
    Accounts,
    PasswordChecks,
    follow_moved_seat,
    public,
)
from .leases import Elsewhere
from .limits import RateLimiter
from .lobby import stored_info
from .mail import CONFIRM_PER_HOUR, MailBook, MailSettings, Notifier, check_address
from .model import Settings, hash_token
from .passkeys import Passkeys
from .ratings import leaderboard, player, rate_finished
from .store import Store
from .waiting import your_turn

log = logging.getLogger("bohnanza.web")
STATIC = Path(str(resources.files("bohnanza.web").joinpath("static")))


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


class EmailChoice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    address: str | None = Field(default=None, max_length=300)  # None: forget it
    turn: bool = True  # "your turn" notices
    end: bool = True  # "the game is over" notices


def _button(action: str, question: str, button_id: str, label: str) -> str:
    return (
        f"<p>{question}</p>"
        f'<form method="post" action="{html.escape(action)}">'
        f'<button type="submit" id="{button_id}">{label}</button></form>'
    )


#: What "no more e-mails like this" stops, per kind: (English, Polish).
QUIET = {
    "turn": ("when it is your turn", "gdy masz ruch"),
    "end": ("when a game ends", "gdy gra się kończy"),
}


def _unsubscribe_html(action: str, done: bool, again: bool = False, kind: str = "") -> str:
    """The unsubscribe page: a button (``action``), or what happened (and, once
    unsubscribed, the button that undoes it). ``kind``: only that kind of notice."""
    en, pl = QUIET.get(kind, ("", ""))
    if action and kind:
        body = _button(
            action,
            f"No more e-mails {en}? / Bez e-maili {pl}?",
            "unsubscribe-btn",
            "Stop these / Wyłącz",
        )
    elif action:
        body = _button(
            action,
            "Stop e-mails from Bohnanza? / Nie wysyłać więcej e-maili?",
            "unsubscribe-btn",
            "Unsubscribe / Wypisz",
        )
    elif done and again:
        body = '<p id="resubscribed">Done: e-mails again. / Gotowe: e-maile znowu.</p>'
    elif done and kind:
        body = f'<p id="unsubscribed">Done: no more e-mails {en}. / Gotowe: bez e-maili {pl}.</p>'
    elif done:
        body = '<p id="unsubscribed">Done: no more e-mails. / Gotowe: bez e-maili.</p>'
    else:
        body = "<p>This link is not valid. / Ten link jest nieważny.</p>"
    return _page(body)


def _confirm_html(action: str, done: bool) -> str:
    """The confirmation page: a button (a GET confirms nothing), or what happened."""
    if action:
        body = _button(
            action,
            "Send Bohnanza's notices to this address? / Wysyłać powiadomienia na ten adres?",
            "confirm-btn",
            "Confirm / Potwierdź",
        )
    elif done:
        body = '<p id="confirmed">Confirmed. / Potwierdzono.</p>'
    else:
        body = "<p>This link is not valid. / Ten link jest nieważny.</p>"
    return _page(body)


def _page(body: str) -> str:
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>Bohnanza</title>'
        '<link rel="stylesheet" href="/static/style.css"></head>'
        f'<body><main class="home"><section class="card-box">{body}</section></main></body></html>'
    )


class PasskeyStart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, max_length=100)  # a new account's; else log in


class PasskeyFinish(BaseModel):
    model_config = ConfigDict(extra="forbid")
    flow: str = Field(min_length=1, max_length=64)
    credential: dict[str, Any] = Field(max_length=16)  # the browser's PublicKeyCredential.toJSON()


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
    def service(request: Request) -> Accounts:
        accounts: Accounts = request.app.state.accounts
        return accounts

    def passwords(request: Request) -> PasswordChecks:
        checks: PasswordChecks = request.app.state.passwords
        return checks

    def manager_of(request: Request) -> Any:
        return request.app.state.manager

    def book(request: Request) -> MailBook:
        mailbook: MailBook = request.app.state.mailbook
        return mailbook

    def same_origin(request: Request) -> None:
        if not origin_allowed(request.headers, settings.allowed_origins):
            raise AccountError("requests from other sites are refused", 403, "bad_origin")

    def secure(request: Request) -> bool:
        if request.url.scheme == "https":
            return True
        proto = request.headers.get("x-forwarded-proto", "")
        return settings.trust_proxy and proto.strip().lower() == "https"

    def with_session(request: Request, body: dict[str, Any], token: str) -> Response:
        response = JSONResponse(body)
        response.set_cookie(
            COOKIE,
            token,
            max_age=int(SESSION_TTL),
            httponly=True,
            samesite="lax",
            secure=secure(request),
            path="/",
        )
        return response

    async def current(request: Request) -> Account | None:
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        return await asyncio.to_thread(service(request).session_account, token)

    async def signed_in(request: Request) -> Account:
        account = await current(request)
        if account is None:
            raise AccountError("log in first", 401, "not_logged_in")
        return account

    @app.exception_handler(AccountError)
    async def account_error(_request: Request, exc: AccountError) -> Response:
        headers = {"Retry-After": str(exc.retry)} if exc.retry else None
        return JSONResponse(
            {"error": exc.message, "code": exc.code}, status_code=exc.status, headers=headers
        )

    # -------------------------------------------------------------- accounts

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

    confirmations = RateLimiter(CONFIRM_PER_HOUR, 3600.0)  # per account

    @app.post("/api/account/email")
    async def set_email(request: Request, body: EmailChoice) -> dict[str, Any]:
        """Store the address and choices; a new address is mailed a confirmation (no
        notice before it is confirmed), if it may be sent one now."""
        same_origin(request)
        account = await signed_in(request)
        address = check_address(body.address) if body.address is not None else None
        key = str(account.id)
        notifier: Notifier | None = request.app.state.notifier
        may_send = notifier is not None and confirmations.peek(key)
        sent = await asyncio.to_thread(
            book(request).set, account.id, address, body.turn, body.end, time.time(), may_send
        )
        if sent is not None and notifier is not None:
            confirmations.allow(key)
            notifier.confirm(sent)
        email = await asyncio.to_thread(book(request).get, account.id)
        return {"email": email, "confirmation_sent": sent is not None}

    @app.get("/confirm/{token}", include_in_schema=False)
    async def confirm_page(token: str) -> HTMLResponse:
        # A GET never confirms (mail scanners open links): a button posts.
        return HTMLResponse(_confirm_html(f"/confirm/{quote(token, safe='')}", False))

    @app.post("/confirm/{token}", include_in_schema=False)
    async def confirm(request: Request, token: str) -> HTMLResponse:
        done = await asyncio.to_thread(book(request).confirm, token)
        return HTMLResponse(_confirm_html("", done), status_code=200 if done else 404)

    @app.get("/unsubscribe/{token}", include_in_schema=False)
    async def unsubscribe_page(token: str) -> HTMLResponse:
        # A GET never unsubscribes (mail scanners open links): a button posts.
        return HTMLResponse(_unsubscribe_html(f"/unsubscribe/{quote(token, safe='')}", False))

    @app.post("/unsubscribe/{token}", include_in_schema=False)
    async def unsubscribe(request: Request, token: str) -> HTMLResponse:
        """One click (RFC 8058: a mail client posts ``List-Unsubscribe=One-Click``)."""
        done = await asyncio.to_thread(book(request).unsubscribe, token)
        page = _unsubscribe_html("", done)
        if done:  # changed one's mind: the link itself proves the address is theirs
            again = f"/unsubscribe/{quote(token, safe='')}/again"
            page = page.replace(
                "</section>",
                _button(again, "", "resubscribe-btn", "Mail me again / Wysyłaj znowu")
                + "</section>",
            )
        return HTMLResponse(page, status_code=200 if done else 404)

    @app.get("/unsubscribe/{token}/{kind}", include_in_schema=False)
    async def quiet_page(token: str, kind: str) -> HTMLResponse:
        if kind not in QUIET:
            return HTMLResponse(_unsubscribe_html("", False), status_code=404)
        action = f"/unsubscribe/{quote(token, safe='')}/{kind}"
        return HTMLResponse(_unsubscribe_html(action, False, kind=kind))

    @app.post("/unsubscribe/{token}/{what}", include_in_schema=False)
    async def unsubscribe_kind(request: Request, token: str, what: str) -> HTMLResponse:
        """``again``: undo an unsubscribe (the page's "mail me again"); ``turn`` or
        ``end``: no more notices of that kind ("no more e-mails like this", the one-click
        header of a notice), the other kept."""
        if what == "again":
            done = await asyncio.to_thread(book(request).unsubscribe, token, True)
            page = _unsubscribe_html("", done, again=True)
        elif what in QUIET:
            done = await asyncio.to_thread(book(request).quiet, token, what)
            page = _unsubscribe_html("", done, kind=what)
        else:
            done, page = False, _unsubscribe_html("", False)
        return HTMLResponse(page, status_code=200 if done else 404)

    # -------------------------------------------------------------- passkeys

    def passkeys(request: Request) -> Passkeys:
        found: Passkeys | None = getattr(request.app.state, "passkeys", None)
        if found is None:
            found = request.app.state.passkeys = Passkeys(service(request))
        return found

    def relying_party(request: Request) -> tuple[str, str]:
        """The RP ID (the page's host name) and the page's origin."""
        host = request.headers.get("host", "")
        name = request.url.hostname or ""
        scheme = "https" if secure(request) else "http"
        if not host or not name:
            raise AccountError("no host name in the request", 400, "bad_request")
        return name, f"{scheme}://{host}"

    @app.post("/api/account/passkey/register/start")
    async def passkey_register_start(request: Request, body: PasskeyStart) -> dict[str, Any]:
        same_origin(request)
        account = await current(request)
        rp_id, _origin = relying_party(request)
        return await asyncio.to_thread(
            passkeys(request).register_start, rp_id, account, body.name, address_of(request)
        )

    @app.post("/api/account/passkey/register/finish")
    async def passkey_register_finish(request: Request, body: PasskeyFinish) -> Response:
        same_origin(request)
        rp_id, origin = relying_party(request)
        account, token = await asyncio.to_thread(
            passkeys(request).register_finish,
            body.flow,
            body.credential,
            rp_id,
            origin,
            address_of(request),
        )
        if token is None:
            return JSONResponse({"account": public(account)})
        return with_session(request, {"account": public(account)}, token)

    @app.post("/api/account/passkey/login/start")
    async def passkey_login_start(request: Request) -> dict[str, Any]:
        same_origin(request)
        rp_id, _origin = relying_party(request)
        return await asyncio.to_thread(passkeys(request).login_start, rp_id, address_of(request))

    @app.post("/api/account/passkey/login/finish")
    async def passkey_login_finish(request: Request, body: PasskeyFinish) -> Response:
        same_origin(request)
        rp_id, origin = relying_party(request)
        wait = service(request).logins.hit(address_of(request), time.time())
        if wait is not None:
            raise AccountError("too many login attempts; try later", 429, "rate_limited", wait)
        account, token = await asyncio.to_thread(
            passkeys(request).login_finish, body.flow, body.credential, rp_id, origin
        )
        return with_session(request, {"account": public(account)}, token)

    # -------------------------------------------------------------- seats

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

    def stored_seat(store: Store, table_id: str, token_hash: str) -> int | None:
        stored = store.load(table_id)
        if stored is None or stored.status not in ("lobby", "playing"):
            return None
        return next((s.seat for s in stored.seats if s.token_hash == token_hash), None)

    def stored_game(
        store: Store, table_id: str, seat: int, token_hash: str
    ) -> dict[str, Any] | None:
        """A game of "your games" that another instance owns: its stored facts ("your
        turn" is known to its owner only)."""
        stored = store.load(table_id)
        if stored is None or stored.status not in ("lobby", "playing"):
            return None
        if not any(s.seat == seat and s.token_hash == token_hash for s in stored.seats):
            return None
        return {"table": stored_info(stored), "seat": seat, "your_turn": False}

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

    # -------------------------------------------------------------- ratings

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

    # -------------------------------------------------------------- pages

    def page(name: str) -> FileResponse:
        return FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})

    @app.get("/account", include_in_schema=False)
    async def account_page() -> FileResponse:
        return page("account.html")

    @app.get("/ratings", include_in_schema=False)
    async def ratings_page() -> FileResponse:
        return page("ratings.html")

    @app.get("/player/{name}", include_in_schema=False)
    async def player_page(name: str) -> FileResponse:
        return page("player.html")
