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
from ..modules import module_json
from .accounts import AccountLimits
from .clocks import Clocks
from .limits import Limits
from .mail import MailSettings
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


#: The prefix of the test bots' names (agents/probes.py).
TEST_BOTS = "probe-"


def default_database_url() -> str:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return f"sqlite:///{Path(base) / 'bohnanza' / 'games.db'}"


def _module_info(rules: str) -> dict[str, Any]:
    """module_json (ModuleInfo.to_json with the action shapes) of a table's rule set ({} for one that no longer resolves, e.g.
    a stored table of a module that is not registered now)."""
    try:
        return module_json(rules)
    except ConfigError:
        return {}


@dataclass(slots=True)
class Settings:
    """Server settings. Times are in seconds."""

    database_url: str = field(default_factory=default_database_url, repr=False)
    away_timeout: float = 60.0  # a person away this long is replaced by a bot
    # Without a clock: a connected person the game has waited on this long is flagged
    # idle to the others, who may vote to hand the seat to a stand-in (0: never).
    idle_timeout: float = 180.0
    rematch_hold: float = 300.0  # rematch seats are held for the invited players this long
    bot_delay: float = 0.5  # pause after each bot action, so people can follow
    bot_grace: float = 3.0  # an active bot waits this long for people to propose
    bot_wait: float = 20.0  # ... and at most this long for answers to open offers
    # The bot that plays for an absent, timed-out or resigned person at a table that did
    # not choose one (``settings["stand_in_bot"]``, web/standin.py): a trading bot, so that a
    # game with people away still trades.
    substitute: str = "heuristic"
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
    # --public-url: the address players open (behind a proxy); invites and mail use it.
    public_url: str | None = None
    # --instance-url: where the other server instances on the same PostgreSQL database
    # reach this one (requests for the tables it owns are forwarded there).
    instance_url: str = ""
    trust_proxy: bool = False
    # Accounts' limits (web/accounts.py): registrations and logins per address and name.
    accounts: AccountLimits = field(default_factory=AccountLimits)
    # E-mail notifications (web/mail.py): off unless an SMTP server is given.
    mail: MailSettings | None = None

    def bots(self) -> list[str]:
        """The bots the lobby offers: the built-in agents, then the allowed ones. The test
        bots (``probe-*``: they accept everything, spam offers, shun the leader) only on a
        test server: a person choosing a seat's bot or a stand-in never meets them."""
        built_in = [b for b in lobby_agents() if self.testing or not b.startswith(TEST_BOTS)]
        return [*built_in, *(a for a in self.allowed_agents if a not in AGENTS)]


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def ban_key(table_id: str, address: str) -> str:
    """How a removal's ban names an address at one table (``settings["banned"]``): a
    digest, so that the stored settings do not list the players' addresses."""
    return hashlib.sha256(f"ban {table_id} {address}".encode()).hexdigest()[:24]


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
    peer: str | None = None  # relayed by this other server instance (web/forward.py)
    close_code: int = 1008  # what the writer closes the socket with when it stops
    checked: float = field(default_factory=time.monotonic)
    # A client id whose answer is being recorded (``Table.answers``), and that answer.
    recording: str | int | None = None
    recorded: dict[str, Any] | None = None

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
        if (
            self.recording is not None
            and self.recorded is None
            and message.get("id") == self.recording
            and message.get("type") != "state"
        ):
            self.recorded = message
        self.send_text(dumps(message))

    def shed(self) -> None:
        """Close this spectator's socket (4503): the server is at its socket cap and a
        seated player needs the place (``Guard.admit``)."""
        self.send(
            {
                "type": "error",
                "code": "shed",
                "message": "the server is full: spectators make room for players; try again later",
            }
        )
        self.close_code = 4503
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)

    def reconnect(self) -> None:
        """Close this socket with 1012 ("service restart"): the table moved to another
        server instance (web/leases.py); the page reconnects and is served there."""
        self.close_code = 1012
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)

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
    seated: float = 0.0  # when the seat was taken (wall clock; 0 for a resumed table)
    address: str = ""  # the address that took the seat (for a removal's ban)
    idle: bool = False  # connected, but the game has waited on them for long (no clock)
    stand_in: bool = False  # idle, and the others voted a bot in until they are back
    votes: set[int] = field(default_factory=set)  # seats that voted for a stand-in
    # Where in the table's events a bot began to play for this person (away, timed out
    # or stood in): what it played is shown to them when they are back (web/standin.py).
    bot_from: int | None = None
    # "Continue on another device": the hash of the token its link carries. Whoever says
    # hello with it takes the seat over, and the old token (and its devices) lose it.
    move_hash: str | None = None

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
            "idle": self.idle,
            "stand_in": self.stand_in,
            "votes": len(self.votes),
            "played": self.bot_from is not None,
        }

    def take(self, name: str, token_hash: str, address: str) -> None:
        """A person takes this seat (its idle and stand-in marks start afresh)."""
        self.name, self.token_hash, self.address = name, token_hash, address
        self.seated = time.time()
        self.move_hash = None
        self.idle = self.stand_in = False
        self.votes.clear()


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
    # Without a clock: since when the game waits on each person seat (web/standin.py).
    waits: dict[int, float] = field(default_factory=dict)
    # A write failed: it may still have been committed (a connection lost while the
    # commit was under way), so the stored record is read back before the next write.
    unsure: bool = False
    # The first answer to each recent client id, per seat (web/tables.py: a repeated id
    # gets it again and is not carried out twice), oldest first.
    answers: dict[tuple[int, str], dict[str, Any]] = field(default_factory=dict)
    # A finished game's replay: the step at which each turn begins (web/replays.py).
    turn_steps: list[int] | None = None
    # The game ended in this process (not loaded finished): its end is news to mail.
    ended_here: bool = False

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
            "stand_in_bot": s.get("stand_in_bot"),
            "rated": s.get("rated", "no"),
            "status": self.status,
            "created": self.created,
            "seats": [{**seat.public(), "reserved": self.reserved(seat)} for seat in self.seats],
            "rematch": self.rematch,
            "rematch_of": self.rematch_of,
            "spectators": sum(1 for c in self.conns if c.authed and c.seat is None),
            "host": self.host(),
            "private": bool(s.get("private", False)),
            "spectator_chat": bool(s.get("spectator_chat", True)),
            "coach": bool(s.get("coach", False)),
        }
        if self.game is not None and self.game.over:
            out["result"] = self.game.result()
        return out

    def host(self) -> int | None:
        """The host's seat: the person holding the host's token (``settings["host_token"]``),
        not a seat number, so that whoever takes a seat later never inherits the role."""
        held = self.settings.get("host_token")
        for seat in self.seats:
            if held is not None and seat.kind == "person" and seat.token_hash == held:
                return seat.seat
        return None

    def pass_host(self) -> bool:
        """Give the host role on if its holder left: to the person seated longest (then
        the lowest seat: a resumed table does not know who sat down first); to nobody if
        no person is seated, and then to the next person who takes a seat. True if the
        role changed hands (the settings are to be saved)."""
        if self.host() is not None:
            return False
        people = [s for s in self.seats if s.kind == "person" and s.token_hash is not None]
        heir = min(people, key=lambda s: (s.seated, s.seat), default=None)
        held = heir.token_hash if heir is not None else None
        if held == self.settings.get("host_token"):
            return False
        self.settings = {**self.settings, "host_token": held}
        return True

    def reserved(self, seat: Seat) -> bool:
        """Whether a rematch seat is held for the player invited to it (until they join
        or decline, or ``settings["reserved_until"]`` passes): nobody else may take it."""
        until = self.settings.get("reserved_until")
        return (
            until is not None
            and self.status == "lobby"
            and seat.kind == "person"
            and seat.token_hash is None
            and time.time() < float(until)
        )

    def seat_for_move(self, token: str) -> int | None:
        """The seat whose "continue on another device" link carries ``token``."""
        digest = hash_token(token)
        for seat in self.seats:
            if seat.move_hash is not None and hmac.compare_digest(seat.move_hash, digest):
                return seat.seat
        return None

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
