"""The app's pages (static files, no build step), the static folder and the health
check: what a browser or a load balancer asks for outside ``/api`` and ``/ws``."""

from __future__ import annotations

import asyncio

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from .routing import STATIC, manager_of
from .rules_page import rules_page
from .tables import LobbyError, Manager


def page(name: str, status_code: int = 200) -> FileResponse:
    return FileResponse(
        STATIC / name, status_code=status_code, headers={"Cache-Control": "no-cache"}
    )


async def table_page(request: Request, table_id: str, name: str) -> FileResponse:
    """A page about one table (the game, its replay), or the 404 page: not an empty
    game or a replay of nothing."""
    try:
        missing = await manager_of(request).get(table_id) is None
    except LobbyError:
        missing = False  # the database is away: the page says so once it loads
    return page("404.html", 404) if missing else page(name)


def install_pages(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    async def home() -> FileResponse:
        return page("index.html")

    @app.get("/t/{table_id}", include_in_schema=False)
    async def game_page(request: Request, table_id: str) -> FileResponse:
        return await table_page(request, table_id, "table.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_html(lang: str = "en") -> HTMLResponse:
        return HTMLResponse(rules_page(lang), headers={"Cache-Control": "no-cache"})

    @app.get("/replay/{table_id}", include_in_schema=False)
    async def replay_page(request: Request, table_id: str) -> FileResponse:
        return await table_page(request, table_id, "replay.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def install_health(app: FastAPI) -> None:
    @app.get("/healthz")
    async def healthz(request: Request) -> Response:
        manager: Manager | None = getattr(request.app.state, "manager", None)
        if manager is None or not await asyncio.to_thread(manager.store.ping):
            return JSONResponse({"status": "unavailable"}, status_code=503)
        return JSONResponse({"status": "ok", "database": manager.store.backend})
