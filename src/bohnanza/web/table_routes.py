"""The HTTP API of one table: its facts, invite links, joining, a seat handed over to
another device, coach mode's hints and review, the record and the replay."""

from __future__ import annotations

import functools
from typing import Any

from fastapi import FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field

from .account_routes import claim_for_session
from .handover import TTL as HANDOVER_TTL
from .handover import HandoversFull
from .invite import invite_links, reachable_link
from .limits import name_allowed
from .routing import Shared, find_table, manager_of
from .tables import LobbyError


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


def install_table_routes(app: FastAPI, shared: Shared) -> None:
    settings, costly, coaching = shared.settings, shared.costly, shared.coaching
    address_of = shared.address_of

    @app.get("/api/tables/{table_id}")
    async def table_info(request: Request, table_id: str) -> dict[str, Any]:
        table = await find_table(request, table_id)
        info: dict[str, Any] = table.info()
        return info

    def forwarded_host_allowed(host: str) -> bool:
        # With --allowed-host, a proxy's X-Forwarded-Host must be one of those names too;
        # without, any well-formed name (the proxy is trusted to say how it is reached).
        names = settings.limits.allowed_hosts
        return not names or name_allowed(host, {}, names)

    @app.get("/api/tables/{table_id}/invite")
    async def invite(request: Request, table_id: str) -> dict[str, Any]:
        await find_table(request, table_id)
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

    @app.get("/api/tables/{table_id}/review")
    async def review(request: Request, table_id: str) -> dict[str, Any]:
        """Coach mode: each person's decisions that lost the most, once it is over."""
        return await coaching.review(await find_table(request, table_id))

    @app.get("/api/tables/{table_id}/record")
    async def record(request: Request, table_id: str) -> dict[str, Any]:
        table = await find_table(request, table_id)
        return manager_of(request).record(table)

    @app.get("/api/tables/{table_id}/replay")
    async def replay(request: Request, table_id: str, step: int = 0) -> dict[str, Any]:
        table = await find_table(request, table_id)
        manager = manager_of(request)
        if table.status != "over":  # the frame says why (403); a finished one never changes
            frame = manager.replay_frame(table, step)
        else:
            make = functools.partial(manager.replay_frame, table, step)
            frame = await costly.frame(address_of(request), table.id, step, make)
        return {**frame, "table": table.info()}


def install_seat_routes(app: FastAPI, shared: Shared) -> None:
    handovers, coaching, address_of = shared.handovers, shared.coaching, shared.address_of

    @app.post("/api/tables/{table_id}/join")
    async def join(request: Request, table_id: str, body: JoinTable) -> dict[str, Any]:
        table = await find_table(request, table_id)
        address = address_of(request)
        seat, token = await manager_of(request).join(table, body.name, body.seat, address)
        await claim_for_session(request, table.id, seat, token)
        return {"table": table.info(), "seat": seat, "token": token}

    @app.post("/api/tables/{table_id}/handover")
    async def handover(request: Request, table_id: str, body: HandoverRequest) -> dict[str, Any]:
        table = await find_table(request, table_id)
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
        table = await find_table(request, table_id)
        token = handovers.claim(table.id, body.code)
        if token is None:
            raise LobbyError("this link was used already or has expired", 404, "bad_code")
        return {"token": token}

    @app.post("/api/tables/{table_id}/hint")
    async def hint(request: Request, table_id: str, body: HandoverRequest) -> dict[str, Any]:
        """Coach mode: the search's three best actions for the token's seat."""
        return await coaching.hint(await find_table(request, table_id), body.token)
