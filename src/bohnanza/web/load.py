"""``bohnanza load``: a load generator for the web server - bots on real WebSocket clients.

It creates ``--tables`` tables of ``--players`` person seats over the HTTP API, connects
one WebSocket client per seat (``hello`` with the seat's token), starts each game and
lets every client play it with a simple policy on its ``state`` messages, pausing
``--think`` seconds (jittered 0.5x-1.5x) before each decision, as a person would. When
a game ends its clients close and a new table takes its place, so the number of games in
flight stays at ``--tables`` until ``--duration`` seconds have passed.

What it measures (docs/reliability.md):

* **latency** of an action: from just before the client sends the ``action`` frame to
  the moment it has received and parsed the ``state`` message whose ``seq`` is the one
  the server's ``ack`` gave that action - the update that action caused, as the player
  sees it. The ``ack`` (which the server sends only once the action is stored) comes
  first on the same connection, so this includes the database write, the game step and
  the encoding of every seat's state. The ack's own latency is reported too.
* **errors**: every ``error`` message, every connection that drops or fails to open,
  every failed HTTP request, every action without an answer within ``--stall`` seconds.
* games in flight (sampled every second), finished games, actions/s, the client's own
  event-loop lag (if that is high the figures measure the client, not the server) and
  the server process's CPU use.

By default it starts its own server (``python -m bohnanza.web``, a separate process so
that clients and server do not share a GIL) on a free port with a temporary SQLite file,
so the measurement includes the database; ``--url`` targets a running server instead.
The policy avoids racing other seats (only one seat has a decision at a time, except
for planting traded cards, which seats do independently), so that a correct server
answers no action with an error. Clients keep under the server's rate limit (20
messages a second per connection) with their own token bucket.

Everything from the web extra is imported when the command runs, not at import time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from ..seeding import load_client_seed

#: The client's own rate limit (the server allows 20 a second, 100 at once).
CLIENT_RATE = 18.0
CLIENT_BURST = 90.0


@dataclass(slots=True)
class LoadConfig:
    """What to run. Times in seconds."""

    tables: int = 200
    players: int = 4
    rules: str = "classic"
    duration: float = 60.0
    think: float = 1.0
    url: str | None = None
    server_pid: int | None = None  # with url: the server's process, for its CPU use
    seed: int = 1
    stall: float = 20.0  # an action unanswered this long is an error
    setup_concurrency: int = 20  # tables being created/joined/connected at once
    new_tables: bool = True  # replace a finished game by a new table
    deflate: bool = True  # offer permessage-deflate, as browsers do


@dataclass
class Stats:
    """Everything measured; latencies in seconds."""

    latencies: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)  # when each of those was sent
    ack_latencies: list[float] = field(default_factory=list)
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    games_started: int = 0
    setup_failed: int = 0
    games_finished: int = 0
    in_flight: int = 0
    in_flight_samples: list[int] = field(default_factory=list)
    loop_lag: list[float] = field(default_factory=list)
    trades: Counter[str] = field(default_factory=Counter)
    # Sockets the server closed 1012 ("service restart": the table moved to another
    # instance, web/leases.py) and that connected again, as a browser does.
    moved: int = 0

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(f"{kind}: {detail[:200]}")


class Bucket:
    """A token bucket: the client's pace stays under the server's per-connection limit."""

    def __init__(self, rate: float = CLIENT_RATE, burst: float = CLIENT_BURST) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    async def take(self) -> None:
        while True:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
            self.at = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


def choose(
    state: dict[str, Any], me: int, proposed: set[int], rng: random.Random
) -> dict[str, Any] | None:
    """The bot policy: the action ``me`` takes in ``state``, or None (nothing to do now).

    Plants (a growing field first), harvests only when forced, and in its own trade phase
    gives the next seat a card about half of its turns, waits for the answer, then ends
    trading; the receiver accepts even-numbered offers and declines odd ones. Only one
    seat has a decision at a time (except for planting traded cards, which is
    independent per seat), so no action can be made illegal by another seat's action in
    flight. ``proposed`` holds the turns in which ``me`` proposed already.
    """
    v: dict[str, Any] = state["view"]
    legal: list[dict[str, Any]] = state["legal"]
    if v["phase"] == "over" or not legal:
        return None
    if v["pending"] is not None:
        return legal[0] if v["pending"]["seat"] == me else None
    for o in v["offers"]:
        if o["to"] == me:
            accepts = [a for a in legal if a["type"] == "accept" and a["offer_id"] == o["offer_id"]]
            if accepts and o["offer_id"] % 2 == 0:
                return accepts[0]
            return {"type": "decline", "offer_id": o["offer_id"]}
    fields: list[list[Any]] = v["seats"][me]["fields"]
    kinds = {a["type"] for a in legal}

    def harvest() -> dict[str, Any] | None:
        harvests = [a for a in legal if a["type"] == "harvest"]
        if harvests:
            return max(harvests, key=lambda a: len(fields[a["field"]]))
        return legal[0]

    if v["phase"] == "plant" and v["active"] == me:
        plants = [a for a in legal if a["type"] == "plant"]
        growing = [a for a in plants if fields[a["field"]]]
        if growing:
            return growing[0]
        if "stop_planting" in kinds:
            return {"type": "stop_planting"}
        if plants:
            return plants[0]
        return harvest()
    if v["phase"] == "trade" and v["active"] == me:
        if any(o["proposer"] == me for o in v["offers"]):
            return None  # wait for the answer
        if v["turn"] not in proposed and v["hand"] and v["players"] > 1:
            proposed.add(v["turn"])
            if rng.random() < 0.5:
                other = (me + 1) % v["players"]
                card = v["hand"][-1]["id"]
                return {"type": "propose", "offer": {"to": other, "give": [card], "want": []}}
        if "end_trading" in kinds:
            return {"type": "end_trading"}
        return None
    if v["phase"] == "plant_traded" and v["seats"][me]["trade_area"]:
        plants = [a for a in legal if a["type"] == "plant_traded"]
        growing = [a for a in plants if fields[a["field"]]]
        if growing or plants:
            return (growing or plants)[0]
        return harvest()
    return None


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, int(-(-q * len(ordered) // 100)) - 1))
    return ordered[k]


class Run:
    """One load run: the tables, their clients, the clock and the figures."""

    def __init__(
        self,
        config: LoadConfig,
        base_url: str,
        server_cpu: Callable[[], float | None] | None = None,
    ) -> None:
        self.server_cpu = server_cpu  # the server process's CPU seconds so far, if known
        self.config = config
        self.base = base_url.rstrip("/")
        self.ws_base = "ws" + self.base[len("http") :]
        self.stats = Stats()
        self.rng = random.Random(config.seed)
        self.stopping = asyncio.Event()
        self.measuring = False
        self.slots = asyncio.Semaphore(config.setup_concurrency)
        self.tasks: set[asyncio.Task[None]] = set()
        self.t0 = 0.0
        self.live: set[Seat] = set()  # clients open now

    # -------------------------------------------------------------- HTTP

    def _post_sync(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, data=data, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            out: dict[str, Any] = json.loads(response.read())
            return out

    async def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.to_thread(self._post_sync, path, body)

    # -------------------------------------------------------------- tables

    async def table(self, index: int) -> None:
        """Play games at table slot ``index``, one after the other, until the end."""
        while not self.stopping.is_set():
            ok = await self.one_game(index)
            if not ok or not self.config.new_tables:
                return

    async def one_game(self, index: int) -> bool:
        """Create, fill, start and play one game; False if it failed (counted)."""
        from websockets.asyncio.client import connect

        cfg = self.config
        async with self.slots:
            try:
                made = await self.post(
                    "/api/tables",
                    {
                        "rules": cfg.rules,
                        "players": cfg.players,
                        "seats": [{"kind": "person"}] * cfg.players,
                        "name": f"load{index}",
                    },
                )
                table_id = made["table"]["id"]
                tokens = {int(made["seat"]): str(made["token"])}
                for i in range(1, cfg.players):
                    joined = await self.post(
                        f"/api/tables/{table_id}/join", {"name": f"load{index}.{i}"}
                    )
                    tokens[int(joined["seat"])] = str(joined["token"])
            except (OSError, urllib.error.URLError, KeyError, ValueError) as exc:
                self.stats.error("http", repr(exc))
                self.stats.setup_failed += 1
                return False
            seats: list[Seat] = []
            try:
                for seat, token in sorted(tokens.items()):
                    ws = await connect(
                        f"{self.ws_base}/ws/{table_id}",
                        max_size=2**22,
                        open_timeout=30,
                        ping_interval=None,
                        compression="deflate" if cfg.deflate else None,
                    )
                    made_seat = Seat(self, ws, seat, token, load_client_seed(cfg.seed, index, seat))
                    made_seat.url = f"{self.ws_base}/ws/{table_id}"
                    made_seat.compression = "deflate" if cfg.deflate else None
                    seats.append(made_seat)
                for s in seats:
                    await s.hello()
                await seats[0].start()
            except Exception as exc:  # a refused connection, a closed one, a timeout
                self.stats.error("connect", repr(exc))
                self.stats.setup_failed += 1
                for s in seats:
                    await s.close()
                return False
        self.stats.games_started += 1
        self.stats.in_flight += 1
        try:
            results = await asyncio.gather(*(s.play() for s in seats))
        finally:
            self.stats.in_flight -= 1
            for s in seats:
                await s.close()
        if all(results):
            self.stats.games_finished += 1
            return True
        return self.stopping.is_set() and not any(s.failed for s in seats)

    # -------------------------------------------------------------- the run

    async def sample(self) -> None:
        """Games in flight each second, and the event loop's lag (every 50 ms)."""
        next_sample = time.monotonic() + 1.0
        while not self.stopping.is_set():
            before = time.monotonic()
            await asyncio.sleep(0.05)
            now = time.monotonic()
            if self.measuring:
                self.stats.loop_lag.append(now - before - 0.05)
                if now >= next_sample:
                    self.stats.in_flight_samples.append(self.stats.in_flight)
                    next_sample = now + 1.0

    async def run(self) -> dict[str, Any]:
        cfg = self.config
        sampler = asyncio.create_task(self.sample())
        t_setup = time.monotonic()
        for i in range(cfg.tables):
            task = asyncio.create_task(self.table(i))
            self.tasks.add(task)
        # The clock starts once every table is playing (or has failed to start).
        while self.stats.games_started + self.stats.setup_failed < cfg.tables:
            if all(t.done() for t in self.tasks) or time.monotonic() - t_setup > 300:
                break
            await asyncio.sleep(0.05)
        setup = time.monotonic() - t_setup
        self.stats.latencies.clear()
        self.stats.sent_at.clear()
        self.stats.ack_latencies.clear()
        actions_before = self.stats.actions
        finished_before = self.stats.games_finished
        self.measuring = True
        t0 = self.t0 = time.monotonic()
        cpu0 = time.process_time()
        server0 = self.server_cpu() if self.server_cpu is not None else None
        await asyncio.wait(self.tasks, timeout=cfg.duration)
        elapsed = time.monotonic() - t0
        cpu = time.process_time() - cpu0
        server1 = self.server_cpu() if self.server_cpu is not None else None
        self.measuring = False
        actions = self.stats.actions - actions_before
        finished = self.stats.games_finished - finished_before
        in_flight_end = self.stats.in_flight
        self.stopping.set()
        for s in list(self.live):
            s.wake.set()
        done, pending = await asyncio.wait(self.tasks, timeout=cfg.stall + 5)
        for task in pending:
            task.cancel()
        for task in done:
            if not task.cancelled() and task.exception() is not None:
                self.stats.error("client", repr(task.exception()))
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
        out = self.report(setup, elapsed, cpu, actions, finished, in_flight_end)
        if server0 is not None and server1 is not None and elapsed > 0:
            # Cores busy in the server process while measured (1.0 = one core).
            out["server_cpu"] = round((server1 - server0) / elapsed, 2)
        return out

    def report(
        self,
        setup: float,
        elapsed: float,
        cpu: float,
        actions: int,
        finished: int,
        in_flight_end: int,
    ) -> dict[str, Any]:
        st = self.stats

        def ms(x: float | None) -> float | None:
            return None if x is None else round(x * 1000, 1)

        lat = st.latencies
        samples = st.in_flight_samples
        return {
            "tables": self.config.tables,
            "players": self.config.players,
            "clients": self.config.tables * self.config.players,
            "rules": self.config.rules,
            "think_s": self.config.think,
            "deflate": self.config.deflate,
            "duration_s": round(elapsed, 2),
            "setup_s": round(setup, 2),
            "games_in_flight": {
                "min": min(samples, default=in_flight_end),
                "mean": round(sum(samples) / len(samples), 1) if samples else in_flight_end,
                "max": max(samples, default=in_flight_end),
                "at_end": in_flight_end,
            },
            "games_started": st.games_started,
            "games_finished": finished,
            "actions": actions,
            "actions_per_s": round(actions / elapsed, 1) if elapsed > 0 else 0.0,
            "latency_ms": {
                "n": len(lat),
                "p50": ms(percentile(lat, 50)),
                "p95": ms(percentile(lat, 95)),
                "p99": ms(percentile(lat, 99)),
                "max": ms(max(lat, default=None)),
            },
            "ack_latency_ms": {
                "p50": ms(percentile(st.ack_latencies, 50)),
                "p99": ms(percentile(st.ack_latencies, 99)),
            },
            "errors": sum(st.errors.values()),
            "moved": st.moved,
            "errors_by_kind": dict(st.errors),
            "error_samples": st.error_samples,
            "trades": dict(st.trades),
            "client_loop_lag_ms": {
                "p99": ms(percentile(st.loop_lag, 99)),
                "max": ms(max(st.loop_lag, default=None)),
            },
            "client_cpu": round(cpu / elapsed, 2) if elapsed > 0 else None,
            "per_second": self.timeline(),
        }

    def timeline(self) -> list[dict[str, Any]]:
        """Actions answered and the worst latency, per second of the run (JSON only):
        shows whether the tail is spread out or a few stalls."""
        buckets: dict[int, list[float]] = {}
        for sent, lat in zip(self.stats.sent_at, self.stats.latencies, strict=True):
            buckets.setdefault(int(sent - self.t0), []).append(lat)
        return [
            {"s": k, "n": len(v), "max_ms": round(max(v) * 1000, 1)}
            for k, v in sorted(buckets.items())
        ]


@dataclass(slots=True)
class Pending:
    """An action sent and not yet answered by its update."""

    msg_id: int
    sent: float
    kind: str
    ack_seq: int | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)


class Seat:
    """One client: a WebSocket, the latest state it got, and the bot playing it."""

    def __init__(self, run: Run, ws: Any, seat: int, token: str, seed: int) -> None:
        self.run = run
        self.ws = ws
        self.seat = seat
        self.token = token
        self.rng = random.Random(seed)
        self.state: dict[str, Any] | None = None
        self.proposed: set[int] = set()
        self.wake = asyncio.Event()
        self.pending: Pending | None = None
        self.next_id = 1
        self.bucket = Bucket()
        self.reader: asyncio.Task[None] | None = None
        self.over = False
        self.failed = False
        self.closing = False
        self.moved = False  # closed 1012: connect again (the table moved)
        self.url = ""  # the socket's address, to connect again
        self.compression: str | None = None
        self.answer: asyncio.Future[dict[str, Any]] | None = None
        run.live.add(self)

    async def _request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a message with an id and wait for the reply carrying that id."""
        message = {**message, "id": self.next_id}
        self.next_id += 1
        self.answer = asyncio.get_running_loop().create_future()
        if self.reader is None:
            self.reader = asyncio.create_task(self.read())
        await self.bucket.take()
        await self.ws.send(json.dumps(message))
        reply = await asyncio.wait_for(self.answer, self.run.config.stall)
        self.answer = None
        if reply.get("type") == "error":
            raise RuntimeError(f"{message['type']}: {reply.get('message')}")
        return reply

    async def hello(self) -> None:
        await self._request({"type": "hello", "token": self.token})

    async def start(self) -> None:
        await self._request({"type": "start"})

    async def read(self) -> None:
        """Take every message: states, acks, errors; a drop is an error."""
        from websockets.exceptions import ConnectionClosed

        stats = self.run.stats
        try:
            async for raw in self.ws:
                msg = json.loads(raw)
                kind = msg.get("type")
                now = time.monotonic()
                if kind == "state":
                    self.state = msg
                    p = self.pending
                    if p is not None and p.ack_seq is not None and msg["seq"] >= p.ack_seq:
                        stats.latencies.append(now - p.sent)
                        stats.sent_at.append(p.sent)
                        p.done.set()
                    if msg["view"]["phase"] == "over":
                        self.over = True
                    self.wake.set()
                elif kind == "ack":
                    p = self.pending
                    if p is not None and msg.get("id") == p.msg_id:
                        p.ack_seq = int(msg["seq"])
                        stats.ack_latencies.append(now - p.sent)
                        stats.actions += 1
                        if p.kind in ("propose", "accept", "decline"):
                            stats.trades[p.kind] += 1
                    elif self.answer is not None and not self.answer.done():
                        self.answer.set_result(msg)
                elif kind == "error":
                    stats.error(str(msg.get("code")), str(msg.get("message")))
                    p = self.pending
                    if p is not None and msg.get("id") == p.msg_id:
                        self.failed = True
                        p.done.set()
                    elif self.answer is not None and not self.answer.done():
                        self.answer.set_result(msg)
                elif kind == "welcome":
                    if msg.get("state") is not None:
                        self.state = msg["state"]
                    if self.answer is not None and not self.answer.done():
                        self.answer.set_result(msg)
        except ConnectionClosed as exc:
            if self.closing:
                pass
            elif getattr(exc.rcvd, "code", None) == 1012:
                self.moved = True  # the page connects again (table.js: ws.onclose)
            else:
                stats.error("dropped", repr(exc))
                self.failed = True
        finally:
            self.wake.set()
            if self.pending is not None:
                self.pending.done.set()

    async def play(self) -> bool:
        """Play until the game is over (True) or the run stops / this seat fails."""
        from websockets.exceptions import ConnectionClosed

        cfg = self.run.config
        while not self.over and not self.failed and not self.run.stopping.is_set():
            ended = self.reader is not None and self.reader.done()
            if ended and (not self.moved or not await self.reconnect()):
                return False
            await self.wake.wait()
            self.wake.clear()
            if self.state is None or self.run.stopping.is_set():
                continue
            if choose(self.state, self.seat, set(self.proposed), self.rng) is None:
                continue
            if cfg.think > 0:
                await asyncio.sleep(cfg.think * (0.5 + self.rng.random()))
                if self.run.stopping.is_set():
                    break
            # Decide on the state as it is now (it may have moved on while thinking).
            choice = choose(self.state, self.seat, self.proposed, self.rng)
            if choice is None:
                continue
            await self.bucket.take()
            p = Pending(self.next_id, time.monotonic(), str(choice["type"]))
            self.next_id += 1
            self.pending = p
            try:
                await self.ws.send(json.dumps({"type": "action", "id": p.msg_id, "action": choice}))
            except ConnectionClosed as exc:
                if getattr(exc.rcvd, "code", None) != 1012:
                    raise
                self.moved, self.pending = True, None  # the table moved: connect again
                if self.reader is not None:
                    await asyncio.wait([self.reader])
                continue
            try:
                await asyncio.wait_for(p.done.wait(), cfg.stall)
            except TimeoutError:
                self.run.stats.error("stall", f"no update {cfg.stall}s after a {p.kind}")
                self.failed = True
            self.pending = None
            self.wake.set()
        return self.over and not self.failed

    async def reconnect(self) -> bool:
        """Connect again after a 1012 close, as the page does; False if that fails."""
        from websockets.asyncio.client import connect

        self.moved = False
        self.reader = None
        try:
            self.ws = await connect(
                self.url,
                max_size=2**22,
                open_timeout=30,
                ping_interval=None,
                compression=self.compression,
            )
            await self.hello()
        except Exception as exc:
            self.run.stats.error("reconnect", repr(exc))
            self.failed = True
            return False
        self.run.stats.moved += 1
        self.wake.set()
        return True

    async def close(self) -> None:
        self.closing = True
        self.run.live.discard(self)
        with contextlib.suppress(Exception):
            await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self.reader, 5)


# ------------------------------------------------------------------ the server process


#: ``bohnanza serve`` options that lift the per-address limits (one client, many tables).
OPEN_LIMITS = [
    "--create-limit",
    "0",
    "--tables-per-address",
    "0",
    "--ws-per-address",
    "0",
    "--ws-total",
    "0",
    "--http-per-address",
    "0",
]


class ServerProc:
    """``python -m bohnanza.web`` on a free port with a temporary SQLite database."""

    def __init__(self, extra: list[str] | None = None, limits: bool = True) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="bohnanza-load-"))
        self.db = self.dir / "games.db"
        self.log_path = self.dir / "server.log"
        self.log = self.log_path.open("w")
        args = [
            sys.executable,
            "-m",
            "bohnanza.web",
            "--port",
            "0",
            "--database-url",
            f"sqlite:///{self.db}",
            # One address plays every table here: the per-address limits are off.
            *(OPEN_LIMITS if limits else []),
            *(extra or []),
        ]
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        self.url = ""
        deadline = time.monotonic() + 30
        while not self.url:
            text = self.log_path.read_text()
            found = re.search(r"open (http://\S+?)/?\s", text)
            if found:
                self.url = found.group(1)
            elif self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise click.ClickException(f"the server did not start: {text.strip()}")
            else:
                time.sleep(0.05)

    def cpu_seconds(self) -> float | None:
        return cpu_seconds(self.proc.pid)

    def problems(self) -> list[str]:
        """What the server printed besides its start-up lines: at log level warning,
        every such line is a warning, an error or a traceback."""
        text = self.log_path.read_text(errors="replace")
        return [
            line
            for line in text.splitlines()
            if line.strip() and not line.startswith(("Bohnanza is running:", "database:"))
        ]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()

    def remove(self) -> None:
        for p in sorted(self.dir.glob("*"), reverse=True):
            with contextlib.suppress(OSError):
                p.unlink()
        with contextlib.suppress(OSError):
            self.dir.rmdir()


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of process ``pid`` so far (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def run_load(config: LoadConfig) -> dict[str, Any]:
    """Run the load (starting a server unless ``config.url``) and return the figures."""
    server = ServerProc() if config.url is None else None
    base = config.url if config.url is not None else server.url  # type: ignore[union-attr]
    load0 = os.getloadavg() if hasattr(os, "getloadavg") else None
    pid = server.proc.pid if server is not None else config.server_pid
    run = Run(config, base, (lambda: cpu_seconds(pid)) if pid is not None else None)
    try:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            out = asyncio.run(run.run())
        else:
            # An event loop runs in this thread already (Playwright's sync API does that
            # in the tests): the run gets a thread, and a loop, of its own.
            with ThreadPoolExecutor(1) as pool:
                out = pool.submit(asyncio.run, run.run()).result()
    finally:
        problems = server.problems() if server is not None else []
        if server is not None:
            server.stop()
            server.remove()
    out["server"] = "own process, SQLite" if server is not None else base
    out["server_log_problems"] = len(problems)
    if problems:
        out["server_log_samples"] = problems[:5]
    out["cores"] = os.cpu_count()
    if load0 is not None:
        out["loadavg_before"] = [round(x, 2) for x in load0]
        out["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def format_report(r: dict[str, Any]) -> str:
    lat, ack, g = r["latency_ms"], r["ack_latency_ms"], r["games_in_flight"]
    lines = [
        f"{r['tables']} tables x {r['players']} clients ({r['clients']} WebSockets), "
        f"{r['rules']}, think {r['think_s']} s, {r['duration_s']} s measured "
        f"(setup {r['setup_s']} s); server: {r['server']}",
        f"games in flight   min {g['min']}  mean {g['mean']}  max {g['max']}  "
        f"(at the end {g['at_end']});  finished {r['games_finished']}",
        f"actions           {r['actions']}  ({r['actions_per_s']}/s)  trades {r['trades']}",
        f"latency (ms)      action -> its state update: p50 {lat['p50']}  p95 {lat['p95']}  "
        f"p99 {lat['p99']}  max {lat['max']}  (n={lat['n']});  ack p50 {ack['p50']} "
        f"p99 {ack['p99']}",
        f"errors            {r['errors']}  {r['errors_by_kind'] or ''}",
        f"client            loop lag p99 {r['client_loop_lag_ms']['p99']} ms, "
        f"CPU {r['client_cpu']};  server CPU {r.get('server_cpu')}, "
        f"log warnings/errors {r['server_log_problems']}",
    ]
    if "loadavg_before" in r:
        lines.append(
            f"machine           {r['cores']} cores, load average before "
            f"{r['loadavg_before']} after {r['loadavg_after']}"
        )
    for sample in r["error_samples"]:
        lines.append(f"  error: {sample}")
    return "\n".join(lines)


@click.command("load")
@click.option("--tables", default=200, show_default=True, type=click.IntRange(1, 1000))
@click.option(
    "--players",
    default=4,
    show_default=True,
    type=click.IntRange(2, 7),
    help="Person seats per table, each one WebSocket client.",
)
@click.option("--rules", default="classic", show_default=True)
@click.option(
    "--duration",
    default=60.0,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="Seconds measured, from the moment every table plays.",
)
@click.option(
    "--think",
    default=1.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Mean seconds a bot pauses before each decision (uniform 0.5x-1.5x); 0: none.",
)
@click.option("--url", default=None, help="A running server (default: start one).")
@click.option(
    "--server-pid",
    default=None,
    type=int,
    help="With --url: the server's process id on this machine, to report its CPU use.",
)
@click.option("--seed", default=1, show_default=True, type=int)
@click.option(
    "--stall",
    default=20.0,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="An action unanswered for this many seconds is an error.",
)
@click.option("--no-new-tables", is_flag=True, help="Do not replace finished games.")
@click.option(
    "--deflate/--no-deflate",
    default=True,
    show_default=True,
    help="Offer permessage-deflate compression, as browsers do.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def load(
    tables: int,
    players: int,
    rules: str,
    duration: float,
    think: float,
    url: str | None,
    server_pid: int | None,
    seed: int,
    stall: float,
    no_new_tables: bool,
    deflate: bool,
    as_json: bool,
) -> None:
    """Load the web server with bots on WebSocket clients; report latency and errors.

    Exit status 1 if there was any error, or anything in the server's log.
    """
    try:
        import websockets  # noqa: F401
    except ImportError:
        raise click.ClickException(
            "the load generator needs the web extra: pip install 'bohnanza[web]'"
        ) from None
    config = LoadConfig(
        tables=tables,
        players=players,
        rules=rules,
        duration=duration,
        think=think,
        url=url,
        server_pid=server_pid,
        seed=seed,
        stall=stall,
        new_tables=not no_new_tables,
        deflate=deflate,
    )
    result = run_load(config)
    click.echo(json.dumps(result, indent=2) if as_json else format_report(result))
    if result["errors"] or result["server_log_problems"]:
        sys.exit(1)
