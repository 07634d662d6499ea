"""``bohnanza serve``: run the web app (register with ``main.add_command(serve)``).

Nothing from the web extra is imported at module level, so that the rest of the command
line works without it; ``serve`` says which extra to install when it is missing.
"""

from __future__ import annotations

import gc
import re
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from .mail import MailSettings
    from .store import Store


F = TypeVar("F", bound=Callable[..., Any])


def _number(
    name: str, default: float, text: str, low: float = 0, high: float | None = None
) -> Callable[[F], F]:
    """A numeric option with its default shown and its range checked: a float default
    makes a ``FloatRange`` (seconds), an int one an ``IntRange`` (a count)."""
    kind: click.ParamType[Any] = (
        click.FloatRange(min=low, max=high)
        if isinstance(default, float)
        else click.IntRange(min=int(low), max=None if high is None else int(high))
    )
    return click.option(name, default=default, show_default=True, type=kind, help=text)


def _repeated(name: str, dest: str, metavar: str, text: str) -> Callable[[F], F]:
    return click.option(name, dest, multiple=True, metavar=metavar, help=text)


#: ``serve``'s options, in the order ``--help`` lists them.
_OPTIONS: tuple[Callable[[F], F], ...] = (
    click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on."),
    click.option(
        "--port", default=8000, show_default=True, type=int, help="Port (0: any free one)."
    ),
    click.option(
        "--database-url",
        envvar="DATABASE_URL",
        default=None,
        metavar="URL",
        help="SQLAlchemy URL, e.g. postgresql://user@host/db (also DATABASE_URL). "
        "Default: an SQLite file in $XDG_DATA_HOME/bohnanza (~/.local/share/bohnanza/games.db).",
    ),
    _number(
        "--away-timeout",
        60.0,
        "Seconds before the table's stand-in bot plays for a player who went away (until "
        "they return), times the table's clock factor: no clock or relaxed x2, normal x1, "
        "fast x0.25.",
    ),
    _number(
        "--idle-timeout",
        180.0,
        "Tables without a clock: seconds before a connected player the game waits on is "
        "flagged idle, and the others may vote a bot in for them (0: never).",
    ),
    _number("--rematch-hold", 300.0, "Seconds a rematch's seats are held for the invited players."),
    _number(
        "--bot-delay", 0.5, "Seconds between two bot moves, so that people can follow.", high=10
    ),
    _number(
        "--bot-grace",
        3.0,
        "Seconds an active bot waits for people's offers before it ends trading.",
        high=600,
    ),
    _repeated(
        "--allow-origin",
        "allow_origins",
        "URL",
        "A web origin (https://example.org) whose pages may open the game's WebSockets, "
        "besides this server's own; repeatable. Others are refused (cross-site WebSockets).",
    ),
    _repeated(
        "--allow-agent",
        "allow_agents",
        "SPEC",
        "An agent the lobby may seat as a bot besides the built-in ones, e.g. "
        "mypkg.bots:Greedy or a name from `bohnanza agents`; repeatable. No other code is run.",
    ),
    _repeated(
        "--allowed-host",
        "allowed_hosts",
        "NAME",
        "A host name the server answers to (the Host header), e.g. bohnanza.example.org or "
        ".example.org (with subdomains), '*' for any; repeatable. Default: localhost names and "
        "the address a request arrives at (anything else is refused: DNS rebinding).",
    ),
    click.option(
        "--public",
        is_flag=True,
        help="Listen on every network interface (same as --host 0.0.0.0) and print the "
        "addresses friends on the network can open.",
    ),
    click.option(
        "--trust-proxy",
        is_flag=True,
        help="Behind a reverse proxy (Caddy, nginx): take the client address (for the "
        "per-address limits) from the last X-Forwarded-For entry, and the host and scheme of "
        "invite links from X-Forwarded-Host/-Proto. Only with a proxy in front.",
    ),
    _number("--max-tables", 1000, "Tables in the lobby or in play at once.", low=1),
    _number("--create-limit", 5, "Tables one address may create a minute (0: no limit)."),
    _number(
        "--tables-per-address",
        10,
        "Open tables (lobby or playing) one address may have created (0: no limit).",
    ),
    _number("--ws-per-address", 50, "WebSockets one address may hold open (0: no limit)."),
    _number("--ws-total", 5000, "WebSockets open at once in all (0: no limit)."),
    _number(
        "--spectators",
        200,
        "Spectators' WebSockets per table (seated players always get in).",
    ),
    _number("--hello-timeout", 5.0, "Seconds a WebSocket has to say hello before it is closed."),
    _number(
        "--chat-limit", 20, "Chat lines one address may send to one table a minute (0: no limit)."
    ),
    _number(
        "--table-chat-limit",
        120,
        "Chat lines one table takes a minute from everybody (0: no limit).",
    ),
    _number("--chat-keep", 200, "Chat lines stored per table; older ones are deleted (0: all)."),
    _number(
        "--lobby-expiry",
        900.0,
        "Seconds after which a lobby table nobody is connected to is deleted (0: never).",
    ),
    _number("--header-timeout", 10.0, "Seconds a connection has to send its request headers."),
    _number(
        "--body-timeout",
        10.0,
        "Seconds a request's body has to arrive after its headers (0: no limit).",
    ),
    _number(
        "--http-per-address",
        32,
        "HTTP connections one address (IPv6: one network, see --ipv6-prefix) may hold "
        "at once; more are refused with 429 (0: no limit). Off with --trust-proxy: the "
        "proxy's own limits apply.",
    ),
    _number(
        "--ipv6-prefix",
        64,
        "IPv6 clients count as one address per network of this many bits in every "
        "per-address limit (128: each address alone).",
        low=16,
        high=128,
    ),
    _number(
        "--max-concurrency",
        6000,
        "Connections at once (HTTP and WebSocket); more get 503. Kept below the file limit.",
        low=16,
    ),
    _number(
        "--bot-threads",
        2,
        "Threads for the bots' decisions (apart from the database's).",
        low=1,
        high=64,
    ),
    _number(
        "--search-processes",
        2,
        "Processes for the search bots' thinking (0: in the bot threads).",
        high=64,
    ),
    _number("--search-per-table", 3, "Search bots one table may have (0: no limit)."),
    _number(
        "--search-total",
        12,
        "Search bots playing at full budget server-wide; the others think 0.1 s a move "
        "(0: no limit).",
    ),
    click.option(
        "--smtp-url",
        envvar="BOHNANZA_SMTP_URL",
        default=None,
        metavar="URL",
        help="E-mail notifications through this SMTP server (off without): "
        "smtp://user:password@host:587 (STARTTLS), smtps://host (TLS), smtp://host:25?tls=none "
        "(also BOHNANZA_SMTP_URL, which keeps the password out of the process list).",
    ),
    click.option("--mail-from", default=None, metavar="ADDRESS", help="The notifications' sender."),
    click.option(
        "--instance-url",
        default=None,
        metavar="URL",
        help="Where the other instances on the same PostgreSQL database reach this one "
        "(requests for the tables it owns are forwarded there; default: the first network "
        "address printed at start). See docs/deploy.md.",
    ),
    click.option(
        "--public-url",
        default=None,
        metavar="URL",
        help="The address players open (https://play.example.org), for invite links, QR codes "
        "and links in e-mails (default: the first network address printed at start).",
    ),
    click.option("--testing", is_flag=True, hidden=True, help="Allow fixed seeds and decks."),
    click.option("--log-level", default="warning", show_default=True, hidden=True),
)

#: The options that are a field of ``Limits`` under another name (the rest keep theirs).
_LIMIT_NAMES = {
    "create_limit": "create_per_minute",
    "tables_per_address": "open_tables_per_address",
    "chat_limit": "chat_per_minute",
    "table_chat_limit": "chat_per_table_minute",
}
_LIMIT_OPTIONS = (
    "ws_per_address",
    "ws_total",
    "hello_timeout",
    "chat_keep",
    "lobby_expiry",
    "trust_proxy",
    "bot_threads",
    "search_processes",
    "search_per_table",
    "search_total",
    "ipv6_prefix",
)


def _serve_options(f: F) -> F:
    for option in reversed(_OPTIONS):
        f = option(f)
    return f


@click.command("serve")
@_serve_options
def serve(**given: Any) -> None:
    """Run the multiplayer web app and print the address to open."""
    try:
        import uvicorn

        from .app import create_app
        from .invite import listen_addresses, reachable_base
        from .limits import Limits
        from .serving import ServerLimits, uvicorn_config
        from .tables import Settings, default_database_url
    except ImportError as exc:
        raise click.ClickException(
            f"the web app needs its extra ({exc.name} is missing): pip install 'bohnanza[web]'"
        ) from None
    _check_agents(given["allow_agents"])
    host = "0.0.0.0" if given["public"] else given["host"]
    port = given["port"]
    if not 0 <= port <= 65535:
        raise click.BadParameter(f"port must be 0 to 65535, not {port}", param_hint="--port")
    url = given["database_url"] or default_database_url()
    store, shown = _open_store(url)
    try:
        sock = _listen(host, port)
    except click.ClickException:
        store.close()
        raise
    addresses = listen_addresses(host, sock.getsockname()[1])
    public_url = given["public_url"]
    try:  # last of the checks: a refused setting leaves the file free
        mail = _mail_settings(given, public_url or reachable_base(addresses))
        held = _hold_sqlite_file(store)
    except click.ClickException:
        store.close()
        sock.close()
        raise
    trust_proxy = given["trust_proxy"]
    limits = {_LIMIT_NAMES.get(k, k): given[k] for k in (*_LIMIT_NAMES, *_LIMIT_OPTIONS)}
    settings = Settings(
        database_url=url,
        public_addresses=tuple(addresses),
        public_url=public_url.rstrip("/") if public_url else None,
        instance_url=(given["instance_url"] or reachable_base(addresses)).rstrip("/"),
        trust_proxy=trust_proxy,
        away_timeout=given["away_timeout"],
        idle_timeout=given["idle_timeout"],
        rematch_hold=given["rematch_hold"],
        bot_delay=given["bot_delay"],
        bot_grace=given["bot_grace"],
        allowed_origins=tuple(given["allow_origins"]),
        allowed_agents=tuple(a.strip() for a in given["allow_agents"]),
        testing=given["testing"],
        mail=mail,
        max_tables=given["max_tables"],
        max_connections=given["spectators"],
        limits=Limits(allowed_hosts=tuple(given["allowed_hosts"]), **limits),
    )
    config = uvicorn_config(
        create_app(settings, store),
        ServerLimits(
            header_timeout=given["header_timeout"],
            body_timeout=given["body_timeout"],
            # Behind a proxy every connection comes from the proxy's address.
            per_address=0 if trust_proxy else given["http_per_address"],
            ipv6_prefix=given["ipv6_prefix"],
            max_concurrency=given["max_concurrency"],
        ),
        given["log_level"],
    )
    click.echo(f"Bohnanza is running: open {addresses[0]}")
    for other in addresses[1:]:
        click.echo(f"  friends on your network: {other}")
    click.echo(f"database: {shown}  (Ctrl-C stops the server)")
    sys.stdout.flush()
    tune_gc()
    uvicorn.Server(config).run(sockets=[sock])
    if held is not None:
        held.close()  # the SQLite file is free for the next server


def _check_agents(specs: tuple[str, ...]) -> None:
    from ..agents import check_agent
    from ..errors import BohnanzaError

    for spec in specs:
        try:
            check_agent(spec)
        except BohnanzaError as exc:
            raise click.BadParameter(str(exc), param_hint="--allow-agent") from None


def _open_store(url: str) -> tuple[Store, str]:
    """The store and its URL as shown (the password masked), or one error line."""
    from .limits import hide_password, mask_url
    from .store import Store

    try:
        shown = mask_url(url)
        return Store(url), shown
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise click.ClickException(
            hide_password(f"cannot open the database {mask_url(url)!r}: {first}", url)
        ) from None


def _listen(host: str, port: int) -> socket.socket:
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)  # uvicorn's default backlog: hundreds of clients may connect at once
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return sock


def _mail_settings(given: dict[str, Any], base: str) -> MailSettings | None:
    """The e-mail settings (None without ``--smtp-url``), after ``--public-url``'s check."""
    public_url = given["public_url"]
    if public_url is not None and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", public_url):
        raise click.BadParameter(
            f"an http:// or https:// address, not {public_url!r}", param_hint="--public-url"
        )
    if not given["smtp_url"]:
        return None
    from .mail import parse_smtp_url

    try:
        return parse_smtp_url(given["smtp_url"], given["mail_from"] or "", base)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--smtp-url/--mail-from") from None


def _hold_sqlite_file(store: Store) -> IO[Any] | None:
    """The lock on an SQLite file (one server per file: it holds the live games in its
    memory), or None for PostgreSQL and an in-memory database."""
    if store.backend != "sqlite" or store.engine.url.database in (None, "", ":memory:"):
        return None
    from .leases import lock_sqlite_file

    try:
        return lock_sqlite_file(Path(str(store.engine.url.database)))
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from None


def tune_gc() -> None:
    """Keep the garbage collector's pauses short under load.

    With CPython's defaults a full collection ran every few seconds under load and
    walked every object the imports made (about 200,000: the app's code and libraries,
    which never become garbage), stopping the event loop for 50-450 ms: the whole tail of
    the move latency (docs/reliability.md, "Load"). Freezing what exists at start-up
    moves those objects out of the collector's sight, and higher thresholds make the
    young collections rarer (garbage cycles are few here: reference counting frees
    almost everything), so that full collections are rare and short.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLDS[0], GC_THRESHOLDS[1], GC_THRESHOLDS[2])


#: Collector thresholds for the server (CPython's defaults: 700, 10, 10).
GC_THRESHOLDS = (10_000, 50, 100)
