"""The server's data: settings, tables, seats and connections, as the lobby, the game
sessions and the bot pump share them (``web/lobby.py``, ``web/session.py``,
``web/pump.py``; ``web/tables.py`` puts them together).

A :class:`Table` is plain state with an ``asyncio.Lock``: whoever changes it holds the
lock, so actions are taken in arrival order, one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..actions import Action
from ..agents import AGENTS, lobby_agents
from ..agents.base import Agent
from ..errors import ConfigError
from ..events import Event
from ..game import Game
from ..modules import info_for_rules
from .clocks import Clocks
from .limits import Limits
from .protocol import MAX_MESSAGE, dumps
from .store import StoredSeat

if TYPE_CHECKING:
    from .pump import TradeState

log = logging.getLogger("bohnanza.web")

#: Outgoing messages queued for one connection before it is dropped as too slow.
SEND_QUEUE = 2000
#: A connection may send RATE_BURST messages at once, then RATE_PER_SECOND a second.
RATE_BURST = 100
RATE_PER_SECOND = 20.0


def default_database_url() -> str:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(base) / 'bohnanza' / 'games.db'}"


def _module_info(rules: str) -> dict[str, Any]:
    """ModuleInfo.to_json of a table's rule set ({} for one that no longer resolves, e.g.
    a stored table of a module that is not registered now)."""
    try:
        return info_for_rules(rules).to_json()
    except ConfigError:
        return {}


@dataclass(slots=True)
class Settings:
    """Server settings. Times are in seconds."""

    database_url: str = field(default_factory=default_database_url, repr=False)
    away_timeout: float = 60.0  # a person away this long is replaced by a bot
    bot_delay: float = 0.5  # pause after each bot action, so people can follow
    bot_grace: float = 3.0  # an active bot waits this long for people to propose
    bot_wait: float = 20.0  # ... and at most this long for answers to open offers
    substitute: str = "autarky"  # the bot that plays for an absent person
    max_message: int = MAX_MESSAGE
    max_tables: int = 1000  # tables in the lobby or in play at once
    testing: bool = False  # lets table creation fix the seed and the deck (tests only)
    # Origins (scheme://host[:port]) whose pages may open WebSockets besides the server's
    # own; a browser's cross-site WebSocket would otherwise act with the visitor's tokens.
    allowed_origins: tuple[str, ...] = ()
    max_connections: int = 200  # spectators' WebSockets per table (seated players: always)
    limits: Limits = field(default_factory=Limits)  # per-address limits, hosts, bot pools
    # Agent specs beyond the built-in ones that tables may seat as bots (``bohnanza serve
    # --allow-agent``): code from outside the package runs only if the operator named it.
    allowed_agents: tuple[str, ...] = ()
    # Invites (web/invite.py): the addresses a public server printed, and whether the
    # X-Forwarded-Host/-Proto headers of a reverse proxy are believed.
    public_addresses: tuple[str, ...] = ()
    trust_proxy: bool = False

    def bots(self) -> list[str]:
        """The bots the lobby offers: the built-in agents, then the allowed ones."""
        return [*lobby_agents(), *(a for a in self.allowed_agents if a not in AGENTS)]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_id() -> str:
    return secrets.token_urlsafe(8).replace("-", "x").replace("_", "y")


class Socket(Protocol):
    """The part of a WebSocket the manager uses."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


@dataclass(eq=False, slots=True)
class Conn:
    ws: Socket
    table: Table
    seat: int | None = None
    authed: bool = False
    queue: asyncio.Queue[str | None] = field(
        default_factory=lambda: asyncio.Queue(maxsize=SEND_QUEUE)
    )
    writer: asyncio.Task[None] | None = None
    closed: bool = False
    allowance: float = float(RATE_BURST)  # messages it may send now (a token bucket)
    address: str = ""  # the client's address (for the per-address limits)
    close_code: int = 1008  # what the writer closes the socket with when it stops
    checked: float = field(default_factory=time.monotonic)

    def within_rate(self) -> bool:
        now = time.monotonic()
        self.allowance = min(
            float(RATE_BURST), self.allowance + (now - self.checked) * RATE_PER_SECOND
        )
        self.checked = now
        if self.allowance < 1:
            return False
        self.allowance -= 1
        return True

    def send(self, message: dict[str, Any]) -> None:
        self.send_text(dumps(message))

    def send_text(self, text: str) -> None:
        """Queue an encoded message (a broadcast encodes each seat's state once)."""
        if self.closed:
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("table %s: dropping a connection that does not read", self.table.id)
            self.closed = True
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(None)


@dataclass(slots=True)
class Seat:
    seat: int
    kind: str  # "person" or "bot"
    bot: str  # the agent of a bot seat
    name: str
    token_hash: str | None = None
    conns: int = 0
    away_since: float | None = None  # monotonic time the last connection closed
    replaced: bool = False  # a bot plays for this absent person now

    def stored(self) -> StoredSeat:
        return StoredSeat(self.seat, self.kind, self.bot, self.name, self.token_hash)

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "kind": self.kind,
            "bot": self.bot if self.kind == "bot" else None,
            "name": self.name,
            "taken": self.kind == "bot" or self.token_hash is not None,
            "connected": self.conns > 0,
            "replaced": self.replaced,
        }


@dataclass(eq=False, slots=True)
class Table:
    id: str
    created: float
    status: str  # lobby, playing, over, broken
    settings: dict[str, Any]  # rules, players, options, trade_limit (+ seed, deck: tests)
    seats: list[Seat]
    rematch_of: str | None = None
    rematch: str | None = None
    game: Game | None = None
    actions: list[tuple[int, Action]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    conns: set[Conn] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    kick: asyncio.Event = field(default_factory=asyncio.Event)
    pump: asyncio.Task[None] | None = None
    agents: dict[tuple[int, str], Agent] = field(default_factory=dict)
    trade: TradeState | None = None
    clocks: Clocks | None = None  # the players' time banks (web/clocks.py), if any
    touched: float = field(default_factory=time.monotonic)
    # A write failed: it may still have been committed (a connection lost while the
    # commit was under way), so the stored record is read back before the next write.
    unsure: bool = False

    @property
    def seq(self) -> int:
        return len(self.actions)

    def info(self) -> dict[str, Any]:
        s = self.settings
        out: dict[str, Any] = {
            "id": self.id,
            "rules": s["rules"],
            # What the module tells the page: phases, public piles, flags (table.js).
            "module_info": _module_info(s["rules"]),
            "players": s["players"],
            "options": s.get("options", {}),
            "trade_limit": s.get("trade_limit", 0),
            "clock": s.get("clock", "none"),
            "status": self.status,
            "created": self.created,
            "seats": [seat.public() for seat in self.seats],
            "rematch": self.rematch,
            "rematch_of": self.rematch_of,
            "spectators": sum(1 for c in self.conns if c.authed and c.seat is None),
            "host": s.get("host"),
            "private": bool(s.get("private", False)),
            "spectator_chat": bool(s.get("spectator_chat", True)),
        }
        if self.game is not None and self.game.over:
            out["result"] = self.game.result()
        return out

    def seat_for_token(self, token: str) -> int | None:
        digest = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return seat.seat
        return None


class LobbyError(Exception):
    """A lobby request that cannot be met; ``status`` is the HTTP status to answer.

    ``code`` names the refusals a person can meet through the pages (``lobby.<code>`` in
    the message catalogue), so that a Polish page words them in Polish; the others are
    the answers to malformed requests, which the pages never send.
    """

    def __init__(self, message: str, status: int = 400, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
