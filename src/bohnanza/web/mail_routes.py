"""The e-mail routes of an account: its address and choices, the confirmation link,
and the unsubscribe links of the notices (docs/web.md, "E-mail"). A GET of a link only
shows a button (mail scanners open links); the button's POST does it."""

from __future__ import annotations

import asyncio
import html
import time
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from .account_http import AccountSite, book, signed_in
from .limits import RateLimiter
from .mail import CONFIRM_PER_HOUR, Notifier, check_address


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


def install_mail_routes(app: FastAPI, site: AccountSite) -> None:
    same_origin = site.same_origin
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


def install_unsubscribe(app: FastAPI) -> None:
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
