"""``kill -9`` under load (issue 51): the web server is SIGKILLed again and again while
people play on real WebSockets, on SQLite or PostgreSQL, and no acknowledged action may
be lost.

The server acknowledges an action only once it is committed (``ack`` after
``Store.append_actions`` returns), so a crash at any moment may lose an action that was
sent, never one that was acknowledged. tests/web/test_restart.py and test_faults.py check
that after a kill at chosen, quiet moments; this tool kills at random moments while
several tables play as fast as their clients may, so that kills land mid-write,
mid-commit and between a commit and its ``ack``.

What it does:

* starts ``python -m bohnanza.web`` (a separate process, so that SIGKILL is a real crash)
  on the database: ``--db sqlite`` a temporary file, ``--db postgresql`` a throwaway
  cluster from ``/usr/lib/postgresql/*/bin``, ``--db-url`` an existing database;
* ``--tables`` table slots, each a game of two person seats, each played by a client
  thread over a WebSocket with ``bohnanza.web.load.choose`` (which avoids racing the
  other seat), and ``--players - 2`` bots; a finished game is replaced by a new table;
* every ``ack`` is recorded as (table, seq, seat, action);
* ``--kills`` times: after 0.5-2 s of play (random, from ``--seed``) SIGKILL, start the
  server again on the same database, and the clients reconnect with their tokens and
  play on; a client that reconnects checks that it sees at least its table's last
  acknowledged sequence number;
* after the last restart: a moment's play, then the clients leave, stand-ins finish
  every game (``--away-timeout`` is short on that last server), each table's record is
  fetched (``GET /api/tables/{id}/record``, shown once a game is over) and every
  acknowledged action must be in it at the sequence number it was acknowledged with.

Prints ``kills 20, acknowledged 612, lost 0, tables 6, db postgresql, wall 95 s`` and a
line of details; exit status 1 if anything was lost (or a record could not be read, or a
client resumed below its table's last acknowledged seq).

    .venv/bin/python benchmarks/kill_under_load.py --db sqlite --kills 20
    .venv/bin/python benchmarks/kill_under_load.py --db postgresql --kills 20

The throwaway PostgreSQL cluster runs without fsync: only the web server is killed,
PostgreSQL stays up, so whatever it committed is there for the next server either way.
tests/web/test_kill_under_load.py runs :func:`run_kills` small, on both databases.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import httpx
from websockets.exceptions import WebSocketException
from websockets.sync.client import ClientConnection, connect

from bohnanza.web.load import OPEN_LIMITS, choose

#: Server options for every run: ``seed`` allowed, bots quick and without a grace period,
#: and the per-address limits off (one address plays every table).
SERVER_FLAGS = ["--testing", "--bot-grace", "0", *OPEN_LIMITS]
#: While the kills go on: bots a little slow (so that people's actions interleave with
#: theirs) and nobody replaced by a stand-in while the server is down.
PLAY_FLAGS = ["--bot-delay", "0.02", "--away-timeout", "600"]
#: The last server: people who leave are replaced at once and nobody waits, so that every
#: game runs to its end and its record can be read.
FINISH_FLAGS = ["--bot-delay", "0", "--away-timeout", "0.2"]

#: Seconds between two messages of one client: under the server's 20 a second.
SEND_INTERVAL = 1 / 16
#: An action unanswered this long, on a server that is up, is a stall (an error).
STALL = 30.0


class Ack(NamedTuple):
    """One acknowledged action: the server said it is stored as ``seq`` of ``table``.
    (Named tuples, not dataclasses, here: tests load this file by its path, without a
    ``sys.modules`` entry, and Python 3.11's dataclasses look their module up there.)"""

    table: str
    seq: int
    seat: int
    action: dict[str, Any]


class Outcome(NamedTuple):
    """What a run did and found."""

    db: str
    kills: int
    slots: int
    acks: list[Ack]
    lost: list[str]
    games: int
    wall: float
    unanswered: int  # actions in flight when their connection died (may be stored)
    refused: Counter[str]  # error answers to actions (illegal: the other seat was first)
    errors: Counter[str]  # everything else that failed; "behind": a resume below an ack
    reconnects: int
    server_log: list[str]  # the warnings and errors the servers printed
    moved: int = 0  # sockets closed 1012: their table moved to another instance

    @property
    def acknowledged(self) -> int:
        return len(self.acks)

    @property
    def failed(self) -> bool:
        """Something acknowledged was lost, or a client resumed before its last ack."""
        return bool(self.lost) or self.errors["behind"] > 0

    def summary(self) -> str:
        return (
            f"kills {self.kills}, acknowledged {self.acknowledged}, lost {len(self.lost)}, "
            f"tables {self.slots}, db {self.db}, wall {self.wall:.0f} s"
        )

    def details(self) -> str:
        return (
            f"games {self.games}, reconnects {self.reconnects}, moved {self.moved}, "
            f"in flight at a kill "
            f"{self.unanswered}, refused {dict(self.refused) or 0}, errors "
            f"{dict(self.errors) or 0}, server log lines {len(self.server_log)}"
        )


# ------------------------------------------------------------------ the checker


def check(acks: list[Ack], records: dict[str, dict[str, Any]]) -> list[str]:
    """What was lost: one line per acknowledged action that is not in its table's record
    at the sequence number it was acknowledged with (``actions[seq - 1]``: the seat and
    the action as sent). An ack whose table and seq were acknowledged again later is lost
    too, even if the record matches it: the server had forgotten it and gave its number
    to another action (which may be the same one, sent again). ``acks`` in the order they
    were received. Empty: nothing lost."""
    lost: list[str] = []
    again = Counter((ack.table, ack.seq) for ack in acks)
    for ack in acks:
        where = f"table {ack.table} seq {ack.seq}"
        again[ack.table, ack.seq] -= 1
        record = records.get(ack.table)
        if again[ack.table, ack.seq] > 0:
            lost.append(f"{where}: acknowledged again later")
        elif record is None:
            lost.append(f"{where}: no record")
        elif not 1 <= ack.seq <= len(record["actions"]):
            lost.append(f"{where}: missing ({len(record['actions'])} stored)")
        elif record["actions"][ack.seq - 1] != {"seat": ack.seat, **ack.action}:
            stored = record["actions"][ack.seq - 1]
            lost.append(f"{where}: {stored} stored, seat {ack.seat} {ack.action} acked")
    return lost


# ------------------------------------------------------------------ PostgreSQL


class Postgres:
    """A throwaway PostgreSQL cluster on 127.0.0.1 (as tests/web/conftest.py's, which a
    script cannot import): ``initdb`` in a temporary folder, ``pg_ctl`` to start and
    stop it, as the ``postgres`` user when this runs as root."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.base = Path(tempfile.mkdtemp(prefix="bohnanza-kill-pg-"))
        self.data = self.base / "data"
        self.port = free_port()
        self.as_root = os.geteuid() == 0

    @staticmethod
    def find() -> Path | None:
        """The newest installed server's bin folder, or None."""
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        return Path(found[-1]).parent if found else None

    def _run(self, *args: str) -> None:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stderr or done.stdout}")

    def start(self) -> str:
        """Create and start the cluster; the URL of a fresh database in it."""
        os.chmod(self.base, 0o755)
        if self.as_root:
            shutil.chown(self.base, "postgres", "postgres")
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        options = (
            f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off"
        )
        log = str(self.base / "log")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "start")
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "kills")
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/kills"

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError, OSError, subprocess.SubprocessError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.base, ignore_errors=True)


def free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ------------------------------------------------------------------ the server


class Server:
    """One life of ``python -m bohnanza.web`` on ``db_url``: started, then SIGKILLed (or
    stopped at the end). Its output is appended to ``log``, read for warnings later."""

    def __init__(self, db_url: str, flags: list[str], log: Path) -> None:
        args = [sys.executable, "-m", "bohnanza.web", "--port", "0", "--database-url", db_url]
        self.log = log
        start = log.stat().st_size if log.exists() else 0
        with log.open("a") as out:
            self.proc = subprocess.Popen(
                [*args, *SERVER_FLAGS, *flags], stdout=out, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 60
        self.url = ""
        while not self.url:
            with log.open() as f:
                f.seek(start)
                found = re.search(r"open (http://\S+?)/?\s", f.read())
            if found:
                self.url = found.group(1)
            elif self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"the server did not start: {log.read_text()[-2000:]}")
            else:
                time.sleep(0.02)
        with httpx.Client(timeout=5) as http:
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if http.get(self.url + "/healthz").status_code == 200:
                        break
                if time.monotonic() > deadline:
                    self.kill()
                    raise RuntimeError("the server is not healthy")
                time.sleep(0.02)

    @property
    def ws_url(self) -> str:
        return "ws" + self.url[len("http") :]

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, nothing is flushed; the crash under test."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


def log_problems(log: Path) -> list[str]:
    """The server's lines besides its start-up lines (every one at the default log level
    is a warning, an error or a traceback)."""
    if not log.exists():
        return []
    return [
        line
        for line in log.read_text(errors="replace").splitlines()
        if line.strip()
        and not line.startswith(("Bohnanza is running:", "database:", "  friends on"))
    ]


# ------------------------------------------------------------------ shared state


class Hub:
    """What the client threads share with the killer: the server now up (None while it
    is down), whether to stop, and every acknowledgement and failure, under one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.server: Server | None = None
        self.life = 0  # how many servers have been started
        self.stopping = threading.Event()
        self.acks: list[Ack] = []
        self.last: dict[str, int] = {}  # table -> its highest acknowledged seq
        self.unanswered = 0
        self.refused: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.samples: list[str] = []
        self.reconnects = 0
        self.moved = 0  # sockets closed 1012 (their table moved to another instance)
        self.players: set[Player] = set()
        self.tables: list[str] = []  # every table that was started, in order

    def up(self, server: Server | None) -> None:
        with self.changed:
            self.server = server
            if server is not None:
                self.life += 1
            self.changed.notify_all()

    def wait_up(self) -> tuple[int, Server] | None:
        """The server now up and its life number; waits while it is down; None once the
        run stops."""
        with self.changed:
            while self.server is None and not self.stopping.is_set():
                self.changed.wait(0.1)
            if self.stopping.is_set() or self.server is None:
                return None
            return self.life, self.server

    def acked(self, ack: Ack) -> None:
        with self.lock:
            self.acks.append(ack)
            self.last[ack.table] = max(self.last.get(ack.table, 0), ack.seq)

    def error(self, kind: str, detail: str) -> None:
        with self.lock:
            self.errors[kind] += 1
            if len(self.samples) < 10:
                self.samples.append(f"{kind}: {detail[:300]}")


# ------------------------------------------------------------------ the clients


class Player(threading.Thread):
    """One person seat: connects (again after each kill) with its token and plays with
    ``choose`` as fast as the server's rate limit allows, one action at a time."""

    def __init__(self, hub: Hub, table: str, seat: int, token: str, seed: int) -> None:
        super().__init__(daemon=True, name=f"player-{table}-{seat}")
        self.hub = hub
        self.table = table
        self.seat = seat
        self.token = token
        self.rng = random.Random(seed)
        self.proposed: set[int] = set()
        self.state: dict[str, Any] | None = None
        self.status = "lobby"
        self.life = 0  # the server life it is connected to (0: none yet)
        self.over = False
        self.next_id = 1
        self.sent_at = 0.0
        self.in_flight = False

    def run(self) -> None:
        hub = self.hub
        with hub.lock:
            hub.players.add(self)
        try:
            while not self.over and not hub.stopping.is_set():
                now = hub.wait_up()
                if now is None:
                    return
                life, server = now
                with hub.lock:  # every ack so far: the next welcome must be at least there
                    floor = hub.last.get(self.table, 0)
                try:
                    self.session(life, server, floor)
                except (WebSocketException, OSError, TimeoutError) as exc:
                    if self.in_flight:
                        with hub.lock:
                            hub.unanswered += 1
                        self.in_flight = False
                    with hub.lock:
                        killed = hub.server is not server
                    rcvd = getattr(exc, "rcvd", None)
                    if not killed and getattr(rcvd, "code", None) == 1012:
                        # "Service restart": the table moved to another instance (its
                        # owner was killed or stopped); the page connects again.
                        with hub.lock:
                            hub.moved += 1
                        time.sleep(0.1)
                    elif not killed:  # the server is up: not a kill, a failure
                        hub.error(type(exc).__name__, f"{self.name}: {exc!r}")
                        time.sleep(0.2)
                    else:  # wait until the killer has taken the dead server down
                        while hub.wait_up() == now:
                            time.sleep(0.02)
        finally:
            with hub.lock:
                hub.players.discard(self)

    def session(self, life: int, server: Server, floor: int) -> None:
        """One connection: hello with the token, check that the game resumes at ``floor``
        (the table's last acknowledged seq before connecting) or later, play."""
        hub = self.hub
        with connect(
            f"{server.ws_url}/ws/{self.table}",
            max_size=2**22,
            open_timeout=10,
            close_timeout=1,
            ping_interval=None,  # no keepalive thread to complain about a killed server
        ) as ws:
            welcome = self.request(ws, {"type": "hello", "token": self.token})
            if welcome.get("type") != "welcome":
                hub.error("hello", f"{self.name}: {welcome}")
                time.sleep(0.5)
                return
            if self.life:
                with hub.lock:
                    hub.reconnects += 1
            self.life = life
            seq = int(self.state["seq"]) if self.state is not None else 0
            if seq < floor:
                hub.error("behind", f"{self.name} resumed at seq {seq}, {floor} was acked")
            if self.status == "lobby" and self.seat == 0:
                started = self.request(ws, {"type": "start"})
                if started.get("type") != "ack":
                    hub.error("start", f"{self.name}: {started}")
            while not hub.stopping.is_set():
                self.read(ws, 0)
                if self.over:
                    return
                choice = (
                    choose(self.state, self.seat, self.proposed, self.rng)
                    if self.state is not None
                    else None
                )
                if choice is None:
                    self.read(ws, 0.05)
                    continue
                self.in_flight = True
                answer = self.request(ws, {"type": "action", "action": choice})
                self.in_flight = False
                if answer.get("type") == "ack":
                    seq = int(answer["seq"])
                    hub.acked(Ack(self.table, seq, self.seat, choice))
                    # The decision after this one needs the state this action made.
                    deadline = time.monotonic() + STALL
                    while self.state is None or int(self.state["seq"]) < seq:
                        self.read(ws, max(0.01, deadline - time.monotonic()), once=True)
                        if time.monotonic() > deadline:
                            raise TimeoutError(f"no state for ack {seq}")
                else:
                    with hub.lock:
                        hub.refused[str(answer.get("code"))] += 1
                    self.read(ws, 0.05)

    def request(self, ws: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message`` with a fresh id (paced under the rate limit); the answer that
        carries the id. Every other message on the way is taken in by :meth:`take`."""
        wait = self.sent_at + SEND_INTERVAL - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        msg_id = self.next_id
        self.next_id += 1
        self.sent_at = time.monotonic()
        ws.send(json.dumps({**message, "id": msg_id}))
        deadline = time.monotonic() + STALL
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to {message['type']}")
            msg = json.loads(ws.recv(left))
            self.take(msg)
            if msg.get("id") == msg_id:
                return dict(msg)

    def read(self, ws: ClientConnection, timeout: float, once: bool = False) -> None:
        """Take in what has come (waiting up to ``timeout`` for the first message)."""
        while True:
            try:
                self.take(json.loads(ws.recv(timeout)))
            except TimeoutError:
                return
            if once:
                return
            timeout = 0

    def take(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "welcome":
            self.status = str(msg["table"]["status"])
            if msg.get("state") is not None:
                self.state = msg["state"]
        elif kind == "state":
            self.state = msg
            self.status = "playing"
        elif kind == "table":
            self.status = str(msg["table"]["status"])
        if self.state is not None and self.state["view"]["phase"] == "over":
            self.over = True


class Slot(threading.Thread):
    """One table at a time: creates a game of two people and ``players - 2`` bots, runs
    its two players until it is over, then the next; until the run stops."""

    def __init__(self, hub: Hub, index: int, players: int, seed: int) -> None:
        super().__init__(daemon=True, name=f"slot-{index}")
        self.hub = hub
        self.index = index
        self.players = players
        self.rng = random.Random(seed)
        self.games = 0

    def run(self) -> None:
        hub = self.hub
        while not hub.stopping.is_set():
            now = hub.wait_up()
            if now is None:
                return
            made = self.create(now[1])
            if made is None:
                time.sleep(0.2)  # a kill hit the creation: a new table, on the next server
                continue
            table, tokens = made
            with hub.lock:
                hub.tables.append(table)
            self.games += 1
            people = [
                Player(hub, table, seat, token, self.rng.randrange(2**32))
                for seat, token in enumerate(tokens)
            ]
            for p in people:
                p.start()
            for p in people:
                p.join()

    def create(self, server: Server) -> tuple[str, list[str]] | None:
        """A new table with both people seated (their tokens), or None if it failed."""
        seats = [{"kind": "person"}] * 2 + [{"kind": "bot"}] * (self.players - 2)
        body = {
            "rules": "classic",
            "players": self.players,
            "seats": seats,
            "name": f"kill{self.index}",
            "seed": self.rng.randrange(2**31),
        }
        try:
            with httpx.Client(base_url=server.url, timeout=30) as http:
                made = http.post("/api/tables", json=body)
                made.raise_for_status()
                table = str(made.json()["table"]["id"])
                joined = http.post(f"/api/tables/{table}/join", json={"name": "Bo", "seat": 1})
                joined.raise_for_status()
                return table, [str(made.json()["token"]), str(joined.json()["token"])]
        except (httpx.HTTPError, KeyError, ValueError) as exc:
            with self.hub.lock:
                killed = self.hub.server is not server
            if not killed:
                self.hub.error("create", repr(exc))
            return None


# ------------------------------------------------------------------ the run


def settle(hub: Hub, life: int, timeout: float = 20) -> None:
    """Until every player has said hello to server ``life`` (or ``timeout``): the play
    before the next kill is counted from then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with hub.lock:
            waiting = [p for p in hub.players if p.life != life and not p.over]
        if not waiting:
            return
        time.sleep(0.02)


def fetch_records(url: str, tables: list[str], timeout: float) -> dict[str, dict[str, Any]]:
    """Each started table's record, once its game is over (stand-ins finish it)."""
    records: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=url, timeout=30) as http:
        for table in tables:
            while True:
                status = http.get(f"/api/tables/{table}").json()["status"]
                if status == "over":
                    got = http.get(f"/api/tables/{table}/record")
                    got.raise_for_status()
                    records[table] = got.json()
                    break
                if status == "lobby" or time.monotonic() > deadline:
                    break  # never started (no acks), or it did not finish: not read
                time.sleep(0.1)
    return records


def run_kills(
    db_url: str,
    db: str,
    kills: int = 20,
    tables: int = 6,
    players: int = 3,
    seed: int = 1,
    tail: float = 1.0,
    workdir: Path | None = None,
    instances: int = 1,
    rolling: bool = False,
) -> Outcome:
    """The whole run on ``db_url`` (``db`` names it in the summary): ``tables`` slots
    playing, ``kills`` SIGKILLs with restarts, ``tail`` seconds of play on the last
    server, then the records checked. Server logs go to ``workdir`` (a temporary folder,
    removed at the end, if None).

    ``instances`` > 1 (PostgreSQL: several servers on one database, web/leases.py): the
    clients use one live instance, the kills go round the others and the one in use
    (clients move to a survivor first); a table owned by a killed instance is taken over
    by a survivor. At the end the survivors stop cleanly and a last instance finishes
    every game. ``rolling``: clean stops (SIGTERM, a rolling restart) instead of kills."""
    if instances > 1:
        return _run_instances(
            db_url, db, kills, tables, players, seed, tail, workdir, instances, rolling
        )
    t0 = time.monotonic()
    rng = random.Random(seed)
    own = workdir is None
    folder = Path(tempfile.mkdtemp(prefix="bohnanza-kill-")) if workdir is None else workdir
    log = folder / "server.log"
    hub = Hub()
    server = Server(db_url, PLAY_FLAGS, log)
    slots = [Slot(hub, i, players, rng.randrange(2**32)) for i in range(tables)]
    records: dict[str, dict[str, Any]] = {}
    try:
        hub.up(server)
        for s in slots:
            s.start()
        settle(hub, hub.life)
        for k in range(kills):
            time.sleep(rng.uniform(0.5, 2.0))
            hub.up(None)  # clients that lose their socket now wait for the next server
            server.kill()
            last = k == kills - 1
            server = Server(db_url, FINISH_FLAGS if last else PLAY_FLAGS, log)
            hub.up(server)
            settle(hub, hub.life)
        time.sleep(tail)
        hub.stopping.set()
        for s in slots:
            s.join(STALL + 10)
        records = fetch_records(server.url, list(hub.tables), timeout=120)
    finally:
        hub.stopping.set()
        server.stop()
        problems = log_problems(log)
        if own:
            shutil.rmtree(folder, ignore_errors=True)
    acks = list(hub.acks)
    lost = check(acks, records)  # a table that did not finish: its acks have no record
    return Outcome(
        db=db,
        kills=kills,
        slots=tables,
        acks=acks,
        lost=lost,
        games=sum(s.games for s in slots),
        wall=time.monotonic() - t0,
        unanswered=hub.unanswered,
        refused=hub.refused,
        errors=hub.errors,
        reconnects=hub.reconnects,
        server_log=problems,
    )


def _run_instances(
    db_url: str,
    db: str,
    kills: int,
    tables: int,
    players: int,
    seed: int,
    tail: float,
    workdir: Path | None,
    instances: int,
    rolling: bool = False,
) -> Outcome:
    t0 = time.monotonic()
    rng = random.Random(seed)
    own = workdir is None
    folder = Path(tempfile.mkdtemp(prefix="bohnanza-kill-")) if workdir is None else workdir
    log = folder / "server.log"
    hub = Hub()
    servers = [Server(db_url, PLAY_FLAGS, log) for _ in range(instances)]
    slots = [Slot(hub, i, players, rng.randrange(2**32)) for i in range(tables)]
    records: dict[str, dict[str, Any]] = {}
    last_server: Server | None = None
    try:
        hub.up(servers[0])
        for s in slots:
            s.start()
        settle(hub, hub.life)
        for k in range(kills):
            time.sleep(rng.uniform(0.5, 2.0))
            victim = k % instances
            if hub.server is servers[victim]:  # the clients move to a survivor first
                hub.up(None)
                hub.up(servers[(victim + 1) % instances])
            if rolling:
                servers[victim].stop()
            else:
                servers[victim].kill()
            servers[victim] = Server(db_url, PLAY_FLAGS, log)
            settle(hub, hub.life)
        time.sleep(tail)
        hub.stopping.set()
        for s in slots:
            s.join(STALL + 10)
        for server in servers:  # clean stops: their leases given up at once
            server.stop()
        last_server = Server(db_url, FINISH_FLAGS, log)
        records = fetch_records(last_server.url, list(hub.tables), timeout=120)
    finally:
        hub.stopping.set()
        for server in servers:
            server.stop()
        if last_server is not None:
            last_server.stop()
        problems = log_problems(log)
        if own:
            shutil.rmtree(folder, ignore_errors=True)
    acks = list(hub.acks)
    return Outcome(
        db=f"{db}, {instances} instances{', rolling restarts' if rolling else ''}",
        kills=kills,
        slots=tables,
        acks=acks,
        lost=check(acks, records),
        games=sum(s.games for s in slots),
        wall=time.monotonic() - t0,
        unanswered=hub.unanswered,
        refused=hub.refused,
        errors=hub.errors,
        reconnects=hub.reconnects,
        moved=hub.moved,
        server_log=problems,
    )


@contextlib.contextmanager
def database(kind: str, url: str | None) -> Iterator[tuple[str, str]]:
    """(URL, name) of the database to run on: ``url`` as given, a temporary SQLite file,
    or a throwaway PostgreSQL cluster; removed afterwards."""
    if url is not None:
        yield url, url.split(":", 1)[0].split("+", 1)[0]
        return
    if kind == "sqlite":
        folder = Path(tempfile.mkdtemp(prefix="bohnanza-kill-db-"))
        try:
            yield f"sqlite:///{folder / 'games.db'}", "sqlite"
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return
    bindir = Postgres.find()
    if bindir is None:
        raise SystemExit("PostgreSQL binaries are absent (/usr/lib/postgresql/*/bin)")
    pg = Postgres(bindir)
    try:
        yield pg.start(), "postgresql"
    finally:
        pg.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--db-url", default=None, help="an existing database (any --db)")
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--players", type=int, default=3, help="seats a table: 2 people")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tail", type=float, default=1.0, help="play after the last kill")
    parser.add_argument("--keep", type=Path, default=None, help="keep the server log here")
    parser.add_argument(
        "--instances", type=int, default=1, help="servers on one database (PostgreSQL only)"
    )
    parser.add_argument(
        "--rolling", action="store_true", help="with --instances: clean stops, not kills"
    )
    args = parser.parse_args(argv)
    if args.players < 2:
        parser.error("--players must be at least 2")
    if args.instances > 1 and args.db != "postgresql":
        parser.error("--instances needs --db postgresql (one server per SQLite file)")
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    with database(args.db, args.db_url) as (url, name):
        outcome = run_kills(
            url,
            name,
            kills=args.kills,
            tables=args.tables,
            players=args.players,
            seed=args.seed,
            tail=args.tail,
            workdir=args.keep,
            instances=args.instances,
            rolling=args.rolling,
        )
    print(outcome.summary())
    print(outcome.details())
    for line in outcome.lost[:20]:
        print("  lost:", line)
    for line in outcome.server_log[:5]:
        print("  server:", line[:300])
    return 1 if outcome.failed else 0


if __name__ == "__main__":
    sys.exit(main())
