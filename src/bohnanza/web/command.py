"""``bohnanza serve``: run the web app (register with ``main.add_command(serve)``).

Nothing from the web extra is imported at module level, so that the rest of the command
line works without it; ``serve`` says which extra to install when it is missing.
"""

from __future__ import annotations

import gc
import socket
import sys

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
    help="Seconds before a bot plays for a player who went away (until they return).",
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
    "--public",
    is_flag=True,
    help="Listen on every network interface (same as --host 0.0.0.0) and print the "
    "addresses friends on the network can open.",
)
@click.option(
    "--trust-proxy",
    is_flag=True,
    help="Behind a reverse proxy (Caddy, nginx): believe its X-Forwarded-Host and "
    "X-Forwarded-Proto headers when building invite links. Only with a proxy in front.",
)
@click.option("--testing", is_flag=True, hidden=True, help="Allow fixed seeds and decks.")
@click.option("--log-level", default="warning", show_default=True, hidden=True)
def serve(
    host: str,
    port: int,
    database_url: str | None,
    away_timeout: float,
    bot_delay: float,
    bot_grace: float,
    allow_origins: tuple[str, ...],
    public: bool,
    trust_proxy: bool,
    testing: bool,
    log_level: str,
) -> None:
    """Run the multiplayer web app and print the address to open."""
    try:
        import uvicorn
        from sqlalchemy.engine import make_url

        from .app import create_app
        from .invite import listen_addresses
        from .protocol import MAX_FRAME
        from .store import Store
        from .tables import Settings, default_database_url
    except ImportError as exc:
        raise click.ClickException(
            f"the web app needs its extra ({exc.name} is missing): pip install 'bohnanza[web]'"
        ) from None
    if public:
        host = "0.0.0.0"
    if not 0 <= port <= 65535:
        raise click.BadParameter(f"port must be 0 to 65535, not {port}", param_hint="--port")
    url = database_url or default_database_url()
    try:
        shown = make_url(url).render_as_string(hide_password=True)
        store = Store(url)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise click.ClickException(f"cannot open the database {url!r}: {first}") from None
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
    settings = Settings(
        database_url=url,
        public_addresses=tuple(addresses),
        trust_proxy=trust_proxy,
        away_timeout=away_timeout,
        bot_delay=bot_delay,
        bot_grace=bot_grace,
        allowed_origins=tuple(allow_origins),
        testing=testing,
    )
    app = create_app(settings, store)
    config = uvicorn.Config(
        app,
        log_level=log_level,
        ws_max_size=MAX_FRAME,
        ws_ping_interval=20,
        ws_ping_timeout=30,
        # No permessage-deflate: compressing every state (1-4 KB of JSON) cost about a
        # tenth of the server's CPU per move (docs/reliability.md, "Load"); the bytes
        # saved are a few KB a minute per player.
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=3,
        proxy_headers=trust_proxy,
        forwarded_allow_ips="*" if trust_proxy else None,
    )
    click.echo(f"Bohnanza is running: open {addresses[0]}")
    for other in addresses[1:]:
        click.echo(f"  friends on your network: {other}")
    click.echo(f"database: {shown}  (Ctrl-C stops the server)")
    sys.stdout.flush()
    tune_gc()
    uvicorn.Server(config).run(sockets=[sock])


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
