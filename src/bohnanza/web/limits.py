"""Abuse limits and HTTP hardening for the web server.

Everything here is about strangers on the network, not about the game: how many tables,
sockets and chat lines one client address may have or send, which ``Host`` names the
server answers to, the security headers of every response, and what text may reach
other people's screens. The numbers live in :class:`Limits` (``Settings.limits``);
``bohnanza serve`` sets them from its options (``docs/web.md``, "Limits").
"""

from __future__ import annotations

import contextlib
import html
import ipaddress
import time
import unicodedata
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from fastapi.responses import HTMLResponse, JSONResponse, Response

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(slots=True)
class Limits:
    """Per-address and server-wide limits. Times in seconds; 0 turns a limit off."""

    create_per_minute: int = 5  # tables one address may create a minute
    open_tables_per_address: int = 10  # lobby or playing tables one address created
    ws_per_address: int = 50  # open WebSockets from one address
    ws_total: int = 5000  # WebSockets that said hello, in all (seated players: always)
    hello_timeout: float = 5.0  # a socket that said no valid hello by then is closed
    chat_per_minute: int = 20  # chat lines one address may send to one table a minute
    chat_per_table_minute: int = 120  # spectators' chat lines a table takes a minute
    chat_keep: int = 200  # chat lines stored per table (older ones are deleted)
    lobby_expiry: float = 15 * 60.0  # a lobby table nobody is connected to is deleted
    finished_grace: float = 60.0  # a finished game without connections leaves memory
    trust_proxy: bool = False  # take the client address from X-Forwarded-For
    # Host names (or addresses) the server answers to; empty: localhost names and the
    # address a request arrived at (``--allowed-host``; "*" allows any).
    allowed_hosts: tuple[str, ...] = ()
    bot_threads: int = 2  # threads for the bots' decisions (apart from the database's)
    search_processes: int = 2  # processes for the search bots' decisions
    search_per_table: int = 3  # search bot seats one table may have
    search_total: int = 12  # search seats playing at once at full budget, server-wide
    search_fallback: float = 0.1  # seconds a search bot thinks beyond that
    # IPv6 addresses count per network of this many bits (a /64 is what one customer
    # gets: 2**64 addresses to rotate through); IPv4 addresses count one by one.
    ipv6_prefix: int = 64
    # The CPU-costly HTTP endpoints (web/costly.py), requests per address a minute.
    qr_per_minute: int = 20  # POST /api/qr
    replay_per_minute: int = 240  # GET /api/tables/{id}/replay (replay.js plays 100 a minute)
    list_per_minute: int = 120  # GET /api/tables (the home page asks every 5 s)


class RateLimiter:
    """At most ``count`` events per ``window`` seconds per key (a sliding window).

    Keys that fell silent are forgotten when their window has passed, so a flood of
    addresses costs memory only for as long as it lasts.
    """

    def __init__(self, count: int, window: float = 60.0) -> None:
        self.count = count
        self.window = window
        self.hits: dict[str, deque[float]] = {}
        self._swept = time.monotonic()

    def allow(self, key: str, now: float | None = None) -> bool:
        """Record one event for ``key`` if it is within the limit; False if not."""
        if self.count <= 0:
            return True
        now = time.monotonic() if now is None else now
        if now - self._swept > self.window:
            self._sweep(now)
        q = self.hits.setdefault(key, deque())
        while q and q[0] <= now - self.window:
            q.popleft()
        if len(q) >= self.count:
            return False
        q.append(now)
        return True

    def peek(self, key: str, now: float | None = None) -> bool:
        """Whether one more event for ``key`` is within the limit, without recording it."""
        if self.count <= 0:
            return True
        now = time.monotonic() if now is None else now
        q = self.hits.get(key)
        return q is None or sum(1 for t in q if t > now - self.window) < self.count

    def retry_after(self, key: str, now: float | None = None) -> int:
        now = time.monotonic() if now is None else now
        q = self.hits.get(key)
        if not q:
            return 0
        return max(1, int(q[0] + self.window - now + 0.999))

    def _sweep(self, now: float) -> None:
        self._swept = now
        for key in [k for k, q in self.hits.items() if not q or q[-1] <= now - self.window]:
            del self.hits[key]


class Watcher(Protocol):
    """A connection as the server-wide socket cap sees it (``web/model.py``'s Conn)."""

    def shed(self) -> None:
        """Close this spectator's socket to make room for a seated player."""


@dataclass(slots=True)
class Guard:
    """The server's counters of what each client address holds and does."""

    limits: Limits
    creations: RateLimiter = field(init=False)
    chat: RateLimiter = field(init=False)
    table_chat: RateLimiter = field(init=False)
    sockets: dict[str, int] = field(default_factory=dict)
    # Sockets that said hello, oldest first: True for a spectator's (web/model.py Conn).
    admitted: dict[Watcher, bool] = field(default_factory=dict)
    creators: dict[str, str] = field(default_factory=dict)  # table id -> address
    # Creations under way (admitted, not yet saved), per address: counted as open tables
    # so that concurrent requests cannot all pass the check before any is saved.
    pending: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.creations = RateLimiter(self.limits.create_per_minute)
        self.chat = RateLimiter(self.limits.chat_per_minute)
        self.table_chat = RateLimiter(self.limits.chat_per_table_minute)

    def open_socket(self, address: str) -> str | None:
        """Count a new WebSocket from ``address``; why not, if it may not open one. The
        server-wide cap waits for its ``hello`` (:meth:`admit`): only then is it known
        whether the socket is for a seat."""
        lim = self.limits
        if lim.ws_per_address and self.sockets.get(address, 0) >= lim.ws_per_address:
            return "too many connections from your address"
        self.sockets[address] = self.sockets.get(address, 0) + 1
        return None

    def close_socket(self, address: str) -> None:
        left = self.sockets.get(address, 0) - 1
        if left > 0:
            self.sockets[address] = left
        else:
            self.sockets.pop(address, None)

    @property
    def total_sockets(self) -> int:
        return len(self.admitted)

    def admit(self, who: Watcher, seated: bool) -> str | None:
        """Count a socket that said hello against ``ws_total``; why not, if it may not.
        A seated player's socket is never refused: at the cap, the newest spectator's
        socket is shed to make room (spectators first, players always)."""
        lim = self.limits
        if lim.ws_total and len(self.admitted) >= lim.ws_total:
            if not seated:
                return "the server has too many connections; try again later"
            newest = next((w for w in reversed(self.admitted) if self.admitted[w]), None)
            if newest is not None:
                del self.admitted[newest]
                newest.shed()
        self.admitted[who] = not seated
        return None

    def watch(self, who: Watcher) -> None:
        """A seated socket became a spectator's (its player left or was removed)."""
        if self.admitted.pop(who, None) is not None:
            self.admitted[who] = True

    def release(self, who: Watcher) -> None:
        self.admitted.pop(who, None)

    def may_create(self, address: str, open_ids: Iterable[str]) -> tuple[str, int] | None:
        """Why ``address`` may not create a table now and the seconds to wait, or None.

        ``open_ids`` are the ids of the tables in the lobby or in play; a table is
        counted against its creator's address while it is one of them.
        """
        lim = self.limits
        if lim.open_tables_per_address:
            live = set(open_ids)
            mine = sum(1 for t, a in self.creators.items() if a == address and t in live)
            mine += self.pending.get(address, 0)
            for gone in [t for t in self.creators if t not in live]:
                del self.creators[gone]
            if mine >= lim.open_tables_per_address:
                return ("too many open tables from your address; finish or leave one", 60)
        if not self.creations.allow(address):
            return ("too many tables created; wait a minute", self.creations.retry_after(address))
        return None

    @contextlib.contextmanager
    def creating(self, address: str) -> Iterator[None]:
        """Hold a place among ``address``'s open tables while its new table is saved
        (enter it right after :meth:`may_create`, with no ``await`` between)."""
        self.pending[address] = self.pending.get(address, 0) + 1
        try:
            yield
        finally:
            left = self.pending[address] - 1
            if left:
                self.pending[address] = left
            else:
                del self.pending[address]

    def may_chat(self, address: str, table_id: str, seated: bool = False) -> bool:
        """Charge one chat line to its budgets, or refuse it at no cost: a line refused by
        the address's own budget spends nothing of the table's, so one flooder cannot
        silence a table. The table's budget is the spectators' (seated players have only
        their own), so that a crowd of watchers cannot silence the players either."""
        key = f"{table_id} {address}"
        if not self.chat.peek(key):
            return False
        if not seated and not self.table_chat.allow(table_id):
            return False
        return self.chat.allow(key)


def address_key(address: str, ipv6_prefix: int = 64) -> str:
    """What the per-address limits count under: an IPv4 address itself, an IPv6 one by
    its network of ``ipv6_prefix`` bits (``2001:db8:1:2::/64``; one subscriber holds a
    whole /64, so counting single addresses would give them 2**64 budgets)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if 0 <= ipv6_prefix < 128:
            net = ipaddress.IPv6Network((ip, ipv6_prefix), strict=False)
            return f"{net.network_address}/{ipv6_prefix}"
    return str(ip)


def client_address(scope: Scope, trust_proxy: bool, ipv6_prefix: int = 64) -> str:
    """The key of the address a request comes from (:func:`address_key`): the peer's,
    or with ``trust_proxy`` the last address a reverse proxy appended to
    ``X-Forwarded-For`` (the one it saw; earlier entries are the client's own say and
    prove nothing)."""
    if trust_proxy:
        for key, value in scope.get("headers", []):
            if key == b"x-forwarded-for":
                last = value.decode("latin-1").split(",")[-1].strip()
                try:
                    return address_key(str(ipaddress.ip_address(last)), ipv6_prefix)
                except ValueError:
                    break
    client = scope.get("client")
    return address_key(str(client[0]), ipv6_prefix) if client else "unknown"


# ------------------------------------------------------------------ text


#: Letters that draw nothing at all: the Hangul fillers (a "name" of U+3164 looks empty),
#: the blank Braille pattern, the invisible Khmer vowels, the grapheme joiner.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u034f")
#: Combining marks kept on one character (NFC Vietnamese has 1-2, Thai 2; "zalgo" text
#: stacks hundreds that paint over the lines around it).
MAX_MARKS = 4


def clean_text(text: str) -> str:
    """Text for other people's screens: without format characters (category Cf: the
    bidirectional overrides and isolates, zero-width joiners and spaces) that can make
    a line read other than what it holds, without control characters, without letters
    that draw nothing (:data:`BLANKS`: a blank-looking name or line), and with at most
    :data:`MAX_MARKS` combining marks on a character."""
    out = []
    marks = 0
    for ch in unicodedata.normalize("NFC", text):
        kind = unicodedata.category(ch)
        if kind in ("Cf", "Cc", "Cs") or ch in BLANKS:
            continue
        if kind in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                continue
        else:
            marks = 0
        out.append(ch)
    return "".join(out)


def _is_secret(name: str) -> bool:
    """A URL query parameter that holds a password (``password``, ``sslpassword``...)."""
    return "password" in name.lower() or name.lower() in ("passwd", "pwd", "secret")


def mask_url(url: str) -> str:
    """A database URL fit to print or log: its password, in the URL's authority or in
    its query (``?password=``), shown as ``***``."""
    try:
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        hidden = {k: "***" for k in parsed.query if _is_secret(k)}
        if hidden:
            parsed = parsed.update_query_dict(hidden)
        return parsed.render_as_string(hide_password=True).replace("%2A%2A%2A", "***")
    except Exception:
        pass
    # Not a URL SQLAlchemy reads: hide whatever sits between "user:" and "@", and the
    # values of password parameters.
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    rest, q, query = rest.partition("?")
    if q:
        pairs = [p.partition("=") for p in query.split("&")]
        query = "&".join(k + eq + ("***" if _is_secret(k) else v) for k, eq, v in pairs)
    auth, at, host = rest.rpartition("@")
    if at and ":" in auth:
        rest = f"{auth.split(':', 1)[0]}:***@{host}"
    return f"{scheme}://{rest}{q}{query}"


def _passwords(url: str) -> list[str]:
    try:
        from sqlalchemy.engine import make_url

        parsed = make_url(url)
        found = [parsed.password] if parsed.password else []
        for key, value in parsed.query.items():
            if _is_secret(key):
                found += [value] if isinstance(value, str) else list(value)
        return [str(p) for p in found if p]
    except Exception:
        _scheme, sep, rest = url.partition("://")
        rest, _q, query = rest.partition("?")
        auth = rest.rpartition("@")[0] if sep else ""
        found = [auth.split(":", 1)[1]] if ":" in auth else []
        for key, _eq, value in (p.partition("=") for p in query.split("&")):
            if _is_secret(key) and value:
                found.append(value)
        return found


def hide_password(text: str, url: str) -> str:
    """``text`` (an error message, say) with the passwords of ``url`` masked wherever
    they occur, the URL itself included."""
    text = text.replace(url, mask_url(url))
    for password in _passwords(url):
        text = text.replace(password, "***")
    return text


# ------------------------------------------------------------------ HTTP hardening

#: Every response's security headers: no scripts but the server's own files, no framing
#: (clickjacking), no guessing of content types, no Referer (it would carry table ids).
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        b"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        b"form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def host_name(value: str) -> str:
    """The host part of a ``Host`` header, lower case, without port or brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def host_allowed(scope: Scope, allowed: tuple[str, ...]) -> bool:
    """Whether the request's ``Host`` names this server.

    A page on an attacker's domain whose name they re-point at 127.0.0.1 (DNS
    rebinding) reaches a local server as same-origin; it still sends its own name as
    ``Host``, which is refused here. Accepted: the names in ``allowed`` (``*``: any;
    ``.example.org``: the domain and its subdomains) or, when none are given, localhost
    names and the address the connection arrived at.
    """
    hosts = [
        host_name(value.decode("latin-1"))
        for key, value in scope.get("headers", [])
        if key == b"host"
    ]
    # Exactly one Host: with two, a proxy and the server could each read another.
    return len(hosts) == 1 and name_allowed(hosts[0], scope, allowed)


def name_allowed(host: str, scope: Scope, allowed: tuple[str, ...]) -> bool:
    """Whether the server answers to ``host`` (lower case, no port; ``host_name``)."""
    if allowed:
        for name in allowed:
            name = name.lower()
            if name == "*" or host == name.strip("[]"):
                return True
            if name.startswith(".") and (host == name[1:] or host.endswith(name)):
                return True
        return False
    if host in LOCAL_HOSTS or host.endswith(".localhost"):
        return True
    server = scope.get("server")
    return server is not None and host == str(server[0]).lower()


def unknown_host_answer(scope: Scope) -> Response:
    """400 for a ``Host`` name the server does not answer to: a page saying how to allow
    it for a browser (a friend who typed the server's LAN name), JSON for programs."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    path = str(scope.get("path", ""))
    if "text/html" not in headers.get("accept", "") or path.startswith("/api/"):
        return JSONResponse({"error": "unknown host name", "code": "unknown_host"}, 400)
    name = html.escape(host_name(headers.get("host", "")) or "?")
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bohnanza: unknown server name</title></head>
<body style="font-family: sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
<h1>This Bohnanza server does not answer to &ldquo;{name}&rdquo;</h1>
<p>To keep pages of other sites away from it, the server answers only to the names it
was told. Whoever runs it can allow this one:</p>
<pre>bohnanza serve --public --allowed-host {name}</pre>
<p>or open the server at one of the addresses it printed when it started.</p>
<hr>
<h2 lang="pl">Ten serwer Bohnanzy nie odpowiada na nazwę &bdquo;{name}&rdquo;</h2>
<p lang="pl">Osoba, która go uruchomiła, może ją dopuścić:
<code>bohnanza serve --public --allowed-host {name}</code>, albo otwórz serwer pod jednym
z adresów, które wypisał przy starcie.</p>
</body></html>"""
    return HTMLResponse(page, status_code=400)


class Hardening:
    """ASGI middleware: refuse unknown ``Host`` names (400, or a refused WebSocket
    handshake) and add the security headers to every HTTP response."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if not host_allowed(scope, self.limits.allowed_hosts):
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 4400})
                return
            response = unknown_host_answer(scope)
            await response(scope, receive, self._with_headers(send))
            return
        await self.app(scope, receive, self._with_headers(send) if kind == "http" else send)

    @staticmethod
    def _with_headers(send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        return wrapped
