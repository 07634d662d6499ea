"""The game's WebSocket, ``/ws/{table}``: the ``Origin`` check, the per-address socket
limit, the table (here, on another instance, or none), then every frame to the manager
until it closes (docs/web.md has the messages)."""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import FastAPI, WebSocket, WebSocketDisconnect

from .leases import Elsewhere
from .protocol import dumps, error
from .routing import Shared, manager_of, origin_allowed
from .tables import Conn, LobbyError, Manager


def install_socket(app: FastAPI, shared: Shared) -> None:
    settings, address_of = shared.settings, shared.address_of

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
