"""What the account routes share (``account_routes``, ``mail_routes``,
``passkey_routes``): the services a request reaches through its app, the account its
cookie signs in, and the checks and cookie that depend on the server's settings."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import Request, WebSocket
from fastapi.responses import JSONResponse, Response

from .accounts import COOKIE, SESSION_TTL, Account, AccountError, Accounts, PasswordChecks
from .mail import MailBook
from .model import Settings


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


async def current(request: Request) -> Account | None:
    """The account the session cookie signs in, if any."""
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    return await asyncio.to_thread(service(request).session_account, token)


async def signed_in(request: Request) -> Account:
    """The signed-in account, or a 401 (``not_logged_in``)."""
    account = await current(request)
    if account is None:
        raise AccountError("log in first", 401, "not_logged_in")
    return account


@dataclass(frozen=True)
class AccountSite:
    """The settings-dependent parts of the account routes (``install_accounts``)."""

    settings: Settings
    origin_allowed: Callable[[Mapping[str, str], tuple[str, ...]], bool]
    address_of: Callable[[Request | WebSocket], str]

    def same_origin(self, request: Request) -> None:
        """Refuse a POST from another site's page (403, ``bad_origin``)."""
        if not self.origin_allowed(request.headers, self.settings.allowed_origins):
            raise AccountError("requests from other sites are refused", 403, "bad_origin")

    def secure(self, request: Request) -> bool:
        if request.url.scheme == "https":
            return True
        proto = request.headers.get("x-forwarded-proto", "")
        return self.settings.trust_proxy and proto.strip().lower() == "https"

    def with_session(self, request: Request, body: dict[str, Any], token: str) -> Response:
        """``body`` as JSON with the session cookie set."""
        response = JSONResponse(body)
        response.set_cookie(
            COOKIE,
            token,
            max_age=int(SESSION_TTL),
            httponly=True,
            samesite="lax",
            secure=self.secure(request),
            path="/",
        )
        return response

    def relying_party(self, request: Request) -> tuple[str, str]:
        """The RP ID (the page's host name) and the page's origin."""
        host = request.headers.get("host", "")
        name = request.url.hostname or ""
        scheme = "https" if self.secure(request) else "http"
        if not host or not name:
            raise AccountError("no host name in the request", 400, "bad_request")
        return name, f"{scheme}://{host}"
