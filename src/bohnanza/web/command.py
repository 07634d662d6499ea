"""``bohnanza serve``: run the web app (register with ``main.add_command(serve)``).

Nothing from the web extra is imported at module level, so that the rest of the command
line works without it; ``serve`` says which extra to install when it is missing.
"""

from __future__ import annotations

import gc
import re
import socket
import sys
from pathlib import Path

import click


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port (0: any free one).")
@click.option(
    "--database-url",
    envvar="DATABASE_URL",
    default=None,
    metavar="URL",
    help="SQLAlchemy URL, e.g. postgresql://user@host/db (also DATABASE_URL). "
    "Default: an SQLite file in $XDG_DATA_HOME/bohnanza (~/.local/share/bohnanza/games.db).",
)
@click.option(
    "--away-timeout",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds before the table's stand-in bot plays for a player who went away (until "
    "they return), times the table's clock factor: no clock or relaxed x2, normal x1, "
    "fast x0.25.",
)
@click.option(
    "--idle-timeout",
    default=180.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Tables without a clock: seconds before a connected player the game waits on is "
    "flagged idle, and the others may vote a bot in for them (0: never).",
)
@click.option(
    "--rematch-hold",
    default=300.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds a rematch's seats are held for the invited players.",
)
@click.option(
    "--bot-delay",
    default=0.5,
    show_default=True,
    type=click.FloatRange(min=0, max=10),
    help="Seconds between two bot moves, so that people can follow.",
)
@click.option(
    "--bot-grace",
    default=3.0,
    show_default=True,
    type=click.FloatRange(min=0, max=600),
    help="Seconds an active bot waits for people's offers before it ends trading.",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    metavar="URL",
    help="A web origin (https://example.org) whose pages may open the game's WebSockets, "
    "besides this server's own; repeatable. Others are refused (cross-site WebSockets).",
)
@click.option(
    "--allow-agent",
    "allow_agents",
    multiple=True,
    metavar="SPEC",
    help="An agent the lobby may seat as a bot besides the built-in ones, e.g. "
    "mypkg.bots:Greedy or a name from `bohnanza agents`; repeatable. No other code is run.",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="A host name the server answers to (the Host header), e.g. bohnanza.example.org or "
    ".example.org (with subdomains), '*' for any; repeatable. Default: localhost names and "
    "the address a request arrives at (anything else is refused: DNS rebinding).",
)
@click.option(
    "--public",
    is_flag=True,
    help="Listen on every network interface (same as --host 0.0.0.0) and print the "
    "addresses friends on the network can open.",
)
@click.option(
    "--trust-proxy",
    is_flag=True,
    help="Behind a reverse proxy (Caddy, nginx): take the client address (for the "
    "per-address limits) from the last X-Forwarded-For entry, and the host and scheme of "
    "invite links from X-Forwarded-Host/-Proto. Only with a proxy in front.",
)
@click.option(
    "--max-tables",
    default=1000,
    show_default=True,
    type=click.IntRange(min=1),
    help="Tables in the lobby or in play at once.",
)
@click.option(
    "--create-limit",
    default=5,
    show_default=True,
    type=click.IntRange(min=0),
    help="Tables one address may create a minute (0: no limit).",
)
@click.option(
    "--tables-per-address",
    default=10,
    show_default=True,
    type=click.IntRange(min=0),
    help="Open tables (lobby or playing) one address may have created (0: no limit).",
)
@click.option(
    "--ws-per-address",
    default=50,
    show_default=True,
    type=click.IntRange(min=0),
    help="WebSockets one address may hold open (0: no limit).",
)
@click.option(
    "--ws-total",
    default=5000,
    show_default=True,
    type=click.IntRange(min=0),
    help="WebSockets open at once in all (0: no limit).",
)
@click.option(
    "--spectators",
    default=200,
    show_default=True,
    type=click.IntRange(min=0),
    help="Spectators' WebSockets per table (seated players always get in).",
)
@click.option(
    "--hello-timeout",
    default=5.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds a WebSocket has to say hello before it is closed.",
)
@click.option(
    "--chat-limit",
    default=20,
    show_default=True,
    type=click.IntRange(min=0),
    help="Chat lines one address may send to one table a minute (0: no limit).",
)
@click.option(
    "--table-chat-limit",
    default=120,
    show_default=True,
    type=click.IntRange(min=0),
    help="Chat lines one table takes a minute from everybody (0: no limit).",
)
@click.option(
    "--chat-keep",
    default=200,
    show_default=True,
    type=click.IntRange(min=0),
    help="Chat lines stored per table; older ones are deleted (0: all).",
)
@click.option(
    "--lobby-expiry",
    default=900.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds after which a lobby table nobody is connected to is deleted (0: never).",
)
@click.option(
    "--header-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds a connection has to send its request headers.",
)
@click.option(
    "--body-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds a request's body has to arrive after its headers (0: no limit).",
)
@click.option(
    "--http-per-address",
    default=32,
    show_default=True,
    type=click.IntRange(min=0),
    help="HTTP connections one address (IPv6: one network, see --ipv6-prefix) may hold "
    "at once; more are refused with 429 (0: no limit). Off with --trust-proxy: the "
    "proxy's own limits apply.",
)
@click.option(
    "--ipv6-prefix",
    default=64,
    show_default=True,
    type=click.IntRange(min=16, max=128),
    help="IPv6 clients count as one address per network of this many bits in every "
    "per-address limit (128: each address alone).",
)
@click.option(
    "--max-concurrency",
    default=6000,
    show_default=True,
    type=click.IntRange(min=16),
    help="Connections at once (HTTP and WebSocket); more get 503. Kept below the file limit.",
)
@click.option(
    "--bot-threads",
    default=2,
    show_default=True,
    type=click.IntRange(min=1, max=64),
    help="Threads for the bots' decisions (apart from the database's).",
)
@click.option(
    "--search-processes",
    default=2,
    show_default=True,
    type=click.IntRange(min=0, max=64),
    help="Processes for the search bots' thinking (0: in the bot threads).",
)
@click.option(
    "--search-per-table",
    default=3,
    show_default=True,
    type=click.IntRange(min=0),
    help="Search bots one table may have (0: no limit).",
)
@click.option(
    "--search-total",
    default=12,
    show_default=True,
    type=click.IntRange(min=0),
    help="Search bots playing at full budget server-wide; the others think 0.1 s a move "
    "(0: no limit).",
)
@click.option(
    "--smtp-url",
    envvar="BOHNANZA_SMTP_URL",
    default=None,
    metavar="URL",
    help="E-mail notifications through this SMTP server (off without): "
    "smtp://user:password@host:587 (STARTTLS), smtps://host (TLS), smtp://host:25?tls=none "
    "(also BOHNANZA_SMTP_URL, which keeps the password out of the process list).",
)
@click.option("--mail-from", default=None, metavar="ADDRESS", help="The notifications' sender.")
@click.option(
    "--instance-url",
    default=None,
    metavar="URL",
    help="Where the other instances on the same PostgreSQL database reach this one "
    "(requests for the tables it owns are forwarded there; default: the first network "
    "address printed at start). See docs/deploy.md.",
)
@click.option(
    "--public-url",
    default=None,
    metavar="URL",
    help="The address players open (https://play.example.org), for invite links, QR codes "
    "and links in e-mails (default: the first network address printed at start).",
)
@click.option("--testing", is_flag=True, hidden=True, help="Allow fixed seeds and decks.")
@click.option("--log-level", default="warning", show_default=True, hidden=True)
def serve(
    host: str,
    port: int,
    database_url: str | None,
    away_timeout: float,
    idle_timeout: float,
    rematch_hold: float,
    bot_delay: float,
    bot_grace: float,
    allow_origins: tuple[str, ...],
    allow_agents: tuple[str, ...],
    allowed_hosts: tuple[str, ...],
    trust_proxy: bool,
    max_tables: int,
    create_limit: int,
    tables_per_address: int,
    ws_per_address: int,
    ws_total: int,
    spectators: int,
    hello_timeout: float,
    chat_limit: int,
    table_chat_limit: int,
    chat_keep: int,
    lobby_expiry: float,
    header_timeout: float,
    body_timeout: float,
    http_per_address: int,
    ipv6_prefix: int,
    max_concurrency: int,
    bot_threads: int,
    search_processes: int,
    search_per_table: int,
    search_total: int,
    public: bool,
    smtp_url: str | None,
    mail_from: str | None,
    public_url: str | None,
    instance_url: str | None,
    testing: bool,
    log_level: str,
) -> None:
    """Run the multiplayer web app and print the address to open."""
    try:
        import uvicorn

        from .app import create_app
        from .invite import listen_addresses, reachable_base
        from .limits import Limits, hide_password, mask_url
        from .serving import ServerLimits, uvicorn_config
        from .store import Store
        from .tables import Settings, default_database_url
    except ImportError as exc:
        raise click.ClickException(
            f"the web app needs its extra ({exc.name} is missing): pip install 'bohnanza[web]'"
        ) from None
    from ..agents import check_agent
    from ..errors import BohnanzaError

    for spec in allow_agents:
        try:
            check_agent(spec)
        except BohnanzaError as exc:
            raise click.BadParameter(str(exc), param_hint="--allow-agent") from None
    if public:
        host = "0.0.0.0"
    if not 0 <= port <= 65535:
        raise click.BadParameter(f"port must be 0 to 65535, not {port}", param_hint="--port")
    url = database_url or default_database_url()
    try:
        shown = mask_url(url)
        store = Store(url)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise click.ClickException(
            hide_password(f"cannot open the database {mask_url(url)!r}: {first}", url)
        ) from None
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)  # uvicorn's default backlog: hundreds of clients may connect at once
    except OSError as exc:
        store.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    actual = sock.getsockname()[1]
    addresses = listen_addresses(host, actual)
    if public_url is not None and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", public_url):
        store.close()
        sock.close()
        raise click.BadParameter(
            f"an http:// or https:// address, not {public_url!r}", param_hint="--public-url"
        )
    mail = None
    if smtp_url:
        from .mail import parse_smtp_url

        try:
            base = public_url or reachable_base(addresses)
            mail = parse_smtp_url(smtp_url, mail_from or "", base)
        except ValueError as exc:
            store.close()
            sock.close()
            raise click.BadParameter(str(exc), param_hint="--smtp-url/--mail-from") from None
    # Last of the checks: a refused setting leaves the file free.
    held = None
    if store.backend == "sqlite" and store.engine.url.database not in (None, "", ":memory:"):
        from .leases import lock_sqlite_file

        try:  # one server per SQLite file: it holds the live games in its memory
            held = lock_sqlite_file(Path(str(store.engine.url.database)))
        except RuntimeError as exc:
            store.close()
            sock.close()
            raise click.ClickException(str(exc)) from None
    settings = Settings(
        database_url=url,
        public_addresses=tuple(addresses),
        public_url=public_url.rstrip("/") if public_url else None,
        instance_url=(instance_url or reachable_base(addresses)).rstrip("/"),
        trust_proxy=trust_proxy,
        away_timeout=away_timeout,
        idle_timeout=idle_timeout,
        rematch_hold=rematch_hold,
        bot_delay=bot_delay,
        bot_grace=bot_grace,
        allowed_origins=tuple(allow_origins),
        allowed_agents=tuple(a.strip() for a in allow_agents),
        testing=testing,
        mail=mail,
        max_tables=max_tables,
        max_connections=spectators,
        limits=Limits(
            create_per_minute=create_limit,
            open_tables_per_address=tables_per_address,
            ws_per_address=ws_per_address,
            ws_total=ws_total,
            hello_timeout=hello_timeout,
            chat_per_minute=chat_limit,
            chat_per_table_minute=table_chat_limit,
            chat_keep=chat_keep,
            lobby_expiry=lobby_expiry,
            trust_proxy=trust_proxy,
            allowed_hosts=tuple(allowed_hosts),
            bot_threads=bot_threads,
            search_processes=search_processes,
            search_per_table=search_per_table,
            search_total=search_total,
            ipv6_prefix=ipv6_prefix,
        ),
    )
    app = create_app(settings, store)
    config = uvicorn_config(
        app,
        ServerLimits(
            header_timeout=header_timeout,
            body_timeout=body_timeout,
            # Behind a proxy every connection comes from the proxy's address.
            per_address=0 if trust_proxy else http_per_address,
            ipv6_prefix=ipv6_prefix,
            max_concurrency=max_concurrency,
        ),
        log_level,
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
