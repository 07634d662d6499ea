"""What the app's route groups share (``pages``, ``lobby_routes``, ``table_routes``,
``socket_route``, ``account_routes``): the services one app holds, the manager and the
table a request is about, the client's address, and the ``Origin`` check."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request, WebSocket

from .coaching import Coaching
from .costly import Costly
from .handover import Handovers
from .limits import client_address
from .tables import LobbyError, Manager, Settings

STATIC = Path(str(resources.files("bohnanza.web").joinpath("static")))


@dataclass
class Shared:
    """The services of one app that its routes use (``create_app`` makes them)."""

    settings: Settings
    costly: Costly
    handovers: Handovers = field(default_factory=Handovers)
    coaching: Coaching = field(default_factory=Coaching)

    def address_of(self, request: Request | WebSocket) -> str:
        """The client's address, as the per-address limits count it."""
        lim = self.settings.limits
        return client_address(request.scope, lim.trust_proxy, lim.ipv6_prefix)


def manager_of(request: Request | WebSocket) -> Manager:
    manager: Manager = request.app.state.manager
    return manager


async def find_table(request: Request, table_id: str) -> Any:
    """The table, or a 404 (``no_table``)."""
    table = await manager_of(request).get(table_id)
    if table is None:
        raise LobbyError(f"there is no table {table_id!r}", 404, "no_table")
    return table


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
