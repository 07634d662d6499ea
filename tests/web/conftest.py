"""Fixtures for the web app's tests: servers on loopback (in a thread, or a subprocess
for kill tests), a WebSocket client, a throwaway PostgreSQL cluster, Chromium."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

import httpx
import uvicorn

from bohnanza.web.app import create_app
from bohnanza.web.limits import Limits
from bohnanza.web.protocol import MAX_FRAME
from bohnanza.web.serving import ServerLimits, uvicorn_config
from bohnanza.web.tables import Settings

from .client import Client

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerThread:
    """The app under uvicorn in a background thread, on 127.0.0.1 and a free port."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.port = free_port()
        self.app = create_app(settings)
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            ws_max_size=MAX_FRAME,
            lifespan="on",
            proxy_headers=False,  # as bohnanza serve: X-Forwarded-For only with --trust-proxy
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)

    # -------------------------------------------------------------- conveniences

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=10)

    def create(self, **body: Any) -> dict[str, Any]:
        body.setdefault("rules", "classic")
        body.setdefault("players", 3)
        body.setdefault("seats", [{"kind": "person"}] + [{"kind": "bot", "bot": "autarky"}] * 2)
        body.setdefault("name", "Ada")
        with self.http() as c:
            r = c.post("/api/tables", json=body)
            assert r.status_code == 200, r.text
            data: dict[str, Any] = r.json()
            return data

    def join(self, table: str, name: str = "Bob", seat: int | None = None) -> dict[str, Any]:
        with self.http() as c:
            r = c.post(f"/api/tables/{table}/join", json={"name": name, "seat": seat})
            assert r.status_code == 200, r.text
            data: dict[str, Any] = r.json()
            return data

    def client(self, table: str, token: str | None = None, hello: bool = True) -> Client:
        c = Client(self.ws_url, table)
        if hello:
            c.hello(token)
        return c


class GuardedServer(ServerThread):
    """The test server with ``bohnanza serve``'s uvicorn configuration."""

    def __init__(self, settings: Settings, server_limits: ServerLimits) -> None:
        super().__init__(settings)
        config = uvicorn_config(self.app, server_limits)
        config.host, config.port = "127.0.0.1", self.port
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)


def settings_for(db_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": db_url,
        "bot_delay": 0.0,
        "bot_grace": 0.0,
        "bot_wait": 0.5,
        "away_timeout": 60.0,
        "testing": True,
        # Tests create many tables from one address (127.0.0.1): the per-address limits
        # are off unless a test sets its own.
        "limits": Limits(create_per_minute=0, open_tables_per_address=0, ws_per_address=0),
    }
    values.update(overrides)
    return Settings(**values)


def wait_until(pred: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll the server's own state (not the page's DOM): on a loaded machine a page may
    take long to draw what the server already did, and a test that waited on the DOM
    alone failed there for a slow paint, not for a fault."""
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def wait_for_player(server: ServerThread, table: str, seat: int = 0, timeout: float = 60) -> None:
    """Until the seat's page has said hello on its socket (the table page is up)."""

    def connected() -> bool:
        t = server.app.state.manager.tables.get(table)
        return t is not None and any(c.authed and c.seat == seat for c in t.conns)

    wait_until(connected, timeout, f"seat {seat}'s page at table {table}")


def wait_for_status(server: ServerThread, table: str, status: str, timeout: float = 60) -> None:
    """Until the server's table is in ``status`` (``playing`` once started)."""

    def there() -> bool:
        t = server.app.state.manager.tables.get(table)
        return t is not None and t.status == status

    wait_until(there, timeout, f"table {table} {status}")


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'games.db'}"


@pytest.fixture
def make_server(sqlite_url: str) -> Iterator[Callable[..., ServerThread]]:
    started: list[ServerThread] = []

    def make(db_url: str | None = None, **overrides: Any) -> ServerThread:
        srv = ServerThread(settings_for(db_url or sqlite_url, **overrides)).start()
        started.append(srv)
        return srv

    yield make
    for srv in started:
        srv.stop()


@pytest.fixture
def server(make_server: Callable[..., ServerThread]) -> ServerThread:
    return make_server()


# ------------------------------------------------------------------ PostgreSQL


class Postgres:
    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.base = Path(tempfile.mkdtemp(prefix="bohnanza-pg-"))
        self.data = self.base / "data"
        self.port = free_port()
        self.as_root = os.geteuid() == 0

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = list(args)
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)

    def start(self) -> None:
        os.chmod(self.base, 0o755)
        if self.as_root:
            shutil.chown(self.base, "postgres", "postgres")
        r = self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        if r.returncode != 0:
            raise RuntimeError(f"initdb failed: {r.stderr or r.stdout}")
        self._pg_ctl_start()

    def _pg_ctl_start(self) -> None:
        opts = (
            f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off"
        )
        r = self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            opts,
            "-l",
            str(self.base / "log"),
            "-w",
            "-t",
            "30",
            "start",
        )
        if r.returncode != 0:
            log = (self.base / "log").read_text() if (self.base / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {r.stderr or r.stdout} {log}")

    def halt(self) -> None:
        """Stop the cluster at once, as a crash would (``-m immediate``: no checkpoint,
        every connection cut); :meth:`resume` starts it again on the same data."""
        r = self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"
        )
        if r.returncode != 0:
            raise RuntimeError(f"pg_ctl stop failed: {r.stderr or r.stdout}")

    def resume(self) -> None:
        self._pg_ctl_start()

    def stop(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.base, ignore_errors=True)

    def url(self, db: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True
        ) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        pytest.skip("PostgreSQL binaries are absent (apt-get install postgresql)")
    pg = Postgres(Path(found[-1]).parent)
    pg.start()
    try:
        yield pg
    finally:
        pg.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    pg: Postgres = request.getfixturevalue("postgres")
    return pg.new_database()


# ------------------------------------------------------------------ a server process


class ServerProcess:
    """``python -m bohnanza.web`` in a subprocess (for kill -9 tests)."""

    def __init__(self, db_url: str, *extra: str, env_db: bool = False) -> None:
        env = dict(os.environ)
        args = [sys.executable, "-m", "bohnanza.web", "--port", "0", "--testing", *extra]
        if env_db:
            env["DATABASE_URL"] = db_url
        else:
            args += ["--database-url", db_url]
        self.proc = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        assert self.proc.stdout is not None
        line = ""
        deadline = time.monotonic() + 30
        while "open http://" not in line:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"server did not start: {line}")
            line = self.proc.stdout.readline()
        self.url = line.split("open ", 1)[1].strip().rstrip("/")
        self.ws_url = self.url.replace("http://", "ws://")
        # Drain the rest of the output in the background so the pipe never fills.
        threading.Thread(target=self._drain, daemon=True).start()
        with httpx.Client(timeout=5) as c:
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if c.get(self.url + "/healthz").status_code == 200:
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError("server not healthy")
                time.sleep(0.05)

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for _ in self.proc.stdout:
            pass

    def kill(self) -> None:
        self.proc.kill()  # SIGKILL
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


# ------------------------------------------------------------------ reporting


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """After a run that injected faults (test_faults.py), say how many, by kind."""
    for name, module in list(sys.modules.items()):
        if name.endswith("test_faults") and getattr(module, "FAULTS", None):
            terminalreporter.write_line(module.summary())


# ------------------------------------------------------------------ Chromium

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium under Playwright, for one test file at a time: Playwright's sync API keeps
    an event loop marked running in the thread while it is open, and a later test of
    another file that calls ``asyncio.run`` then failed, depending on the order."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    playwright = pytest.importorskip("playwright.sync_api")
    pw = playwright.sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    try:
        yield b
    finally:
        b.close()
        pw.stop()


@pytest.fixture(scope="session")
def shots() -> Path:
    """Where screenshots go: $BOHNANZA_SCREENSHOTS or out/screenshots (git-ignored)."""
    path = Path(os.environ.get("BOHNANZA_SCREENSHOTS") or ROOT / "out" / "screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path
