"""Passkeys (WebAuthn) over HTTP: a new account or a second way into one
(``register``), and logging in with one (``login``); the ceremonies are
``web/passkeys.py``'s."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from .account_http import AccountSite, current, service
from .accounts import AccountError, public
from .passkeys import Passkeys


class PasskeyStart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, max_length=100)  # a new account's; else log in


class PasskeyFinish(BaseModel):
    model_config = ConfigDict(extra="forbid")
    flow: str = Field(min_length=1, max_length=64)
    credential: dict[str, Any] = Field(max_length=16)  # the browser's PublicKeyCredential.toJSON()


def passkeys(request: Request) -> Passkeys:
    found: Passkeys | None = getattr(request.app.state, "passkeys", None)
    if found is None:
        found = request.app.state.passkeys = Passkeys(service(request))
    return found


def install_passkey_routes(app: FastAPI, site: AccountSite) -> None:
    same_origin, relying_party, address_of = site.same_origin, site.relying_party, site.address_of
    with_session = site.with_session

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
