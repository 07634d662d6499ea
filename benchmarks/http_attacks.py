"""Attacks on the HTTP side of ``bohnanza serve`` (issue 35), measured before and after.

``slow-bodies``: ``--conns`` connections from 127.0.0.1 send a request's headers with
``Content-Length: 60000`` and then one byte every 5 s, while a probe from 127.0.0.2 loads
the home page, a static file, ``/api/rules`` and ``/healthz`` every 0.5 s: how many of
the probe's requests succeed, and how many flood connections the server still holds.

``qr`` / ``replay``: 8 client loops (in a process at the lowest priority: an attacker's
CPU is not the server's) ask for QR codes of distinct 600-character links, or for
replay frames of a finished game and the table list, as fast as they are answered,
while two seated players move: the move acknowledgement times.

    python benchmarks/http_attacks.py slow-bodies --conns 600 -- --max-concurrency 256
    python benchmarks/http_attacks.py qr
    python benchmarks/http_attacks.py replay

``--server-path`` runs another checkout's server. The server runs with its default
limits (and whatever follows ``--``).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import multiprocessing
import os
import random
import socket
import statistics
import sys
import threading
import time
from typing import Any

import httpx
from websockets.sync.client import connect

from bohnanza.web.load import ServerProc, choose


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def summary(name: str, values: list[float]) -> str:
    return (
        f"{name}: n={len(values)} p50={statistics.median(values):.1f} ms "
        f"p95={pct(values, 0.95):.1f} ms max={max(values):.1f} ms"
    )


# ------------------------------------------------------------------ slow bodies


def slow_bodies(url: str, conns: int, duration: float) -> None:
    host, port = url.split("//", 1)[1].rsplit(":", 1)
    flood: list[socket.socket] = []
    for _ in range(conns):
        try:
            s = socket.create_connection(
                (host, int(port)), timeout=5, source_address=("127.0.0.1", 0)
            )
            s.sendall(
                b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 60000\r\n"
                b"Content-Type: application/json\r\n\r\n{"
            )
            s.setblocking(False)
            flood.append(s)
        except OSError:
            break
    print(f"flood: {len(flood)} slow-body connections opened from 127.0.0.1")
    codes: collections.Counter[str] = collections.Counter()
    times: list[float] = []
    transport = httpx.HTTPTransport(local_address="127.0.0.2")
    end = time.monotonic() + duration
    next_byte = time.monotonic() + 5
    with httpx.Client(base_url=url, timeout=10, transport=transport) as probe:
        while time.monotonic() < end:
            for path in ("/", "/static/table.js", "/api/rules", "/healthz"):
                t0 = time.perf_counter()
                try:
                    codes[str(probe.get(path).status_code)] += 1
                except httpx.HTTPError as exc:
                    codes[type(exc).__name__] += 1
                times.append((time.perf_counter() - t0) * 1000)
            if time.monotonic() > next_byte:
                next_byte += 5
                for s in flood:
                    with contextlib.suppress(OSError):
                        s.send(b" ")
            time.sleep(0.5)
    held = 0
    for s in flood:
        try:
            if s.recv(1, socket.MSG_PEEK) != b"":
                pass
        except BlockingIOError:
            held += 1  # nothing from the server: still open
        except OSError:
            pass
        s.close()
    print(f"probe from 127.0.0.2: {dict(codes)}; {summary('latency', times)}")
    print(f"flood connections the server still held after {duration:.0f} s: {held}")


# ------------------------------------------------------------------ floods


def _flood_process(url: str, kind: str, table: str, total: int, seconds: float, out: Any) -> None:
    os.nice(19)
    codes: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def loop(index: int) -> None:
        transport = httpx.HTTPTransport(local_address="127.0.0.1")
        with httpx.Client(base_url=url, timeout=30, transport=transport) as http:
            n = 0
            while time.monotonic() < end:
                n += 1
                if kind == "qr":
                    link = f"https://bohnanza.example/t/{index}-{n}#" + "x" * 560
                    got = [http.post("/api/qr", json={"text": link}).status_code]
                else:
                    step = (index * 7919 + n * 31) % (total + 1)
                    got = [
                        http.get(f"/api/tables/{table}/replay?step={step}").status_code,
                        http.get("/api/tables").status_code,
                    ]
                with lock:
                    codes.update(str(c) for c in got)

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(dict(codes))


def _post(http: httpx.Client, path: str, body: dict[str, Any]) -> dict[str, Any]:
    r = http.post(path, json=body)
    r.raise_for_status()
    data: dict[str, Any] = r.json()
    return data


def finished_game(url: str, http: httpx.Client) -> tuple[str, int]:
    made = _post(
        http,
        "/api/tables",
        {
            "rules": "classic",
            "players": 3,
            "name": "x",
            "seats": [{"kind": "person"}] + [{"kind": "bot"}] * 2,
        },
    )
    table = made["table"]["id"]
    with connect(url.replace("http://", "ws://") + f"/ws/{table}") as ws:
        ws.send(json.dumps({"type": "hello", "token": made["token"]}))
        ws.send(json.dumps({"type": "start", "id": 1}))
        ws.send(json.dumps({"type": "leave", "id": 2}))
        while json.loads(ws.recv(30)).get("id") != 2:
            pass
    while True:
        info = http.get(f"/api/tables/{table}").json()
        if info["status"] == "over":
            return table, int(http.get(f"/api/tables/{table}/replay?step=0").json()["total"])
        time.sleep(0.5)


def move_acks(url: str, kind: str, duration: float) -> None:
    http = httpx.Client(base_url=url, timeout=30)
    table, total = ("", 0)
    if kind == "replay":
        table, total = finished_game(url, http)
        print(f"a finished game of {total} actions")
    out: Any = multiprocessing.Queue()
    flood = multiprocessing.Process(
        target=_flood_process, args=(url, kind, table, total, duration + 1, out)
    )
    times = seated_moves(url, http, flood, duration)
    print(f"flood ({kind}) answers: {out.get(timeout=10)}")
    print(summary("move acknowledgements", times))


def seated_moves(
    url: str, http: httpx.Client, flood: multiprocessing.Process, duration: float
) -> list[float]:
    """Two seated players' move acknowledgement times (ms) for ``duration`` seconds, with
    ``flood`` started once they are seated (and joined at the end)."""
    made = _post(
        http,
        "/api/tables",
        {
            "rules": "classic",
            "players": 3,
            "name": "a",
            "seats": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}],
        },
    )
    tid = made["table"]["id"]
    joined = _post(http, f"/api/tables/{tid}/join", {"name": "b"})
    ws_url = url.replace("http://", "ws://") + f"/ws/{tid}"
    times: list[float] = []
    with connect(ws_url, max_size=2**22) as a, connect(ws_url, max_size=2**22) as b:
        players = [(a, made["token"]), (b, joined["token"])]
        for ws, token in players:
            ws.send(json.dumps({"type": "hello", "token": token, "id": 0}))
        a.send(json.dumps({"type": "start", "id": 1}))
        flood.start()
        time.sleep(0.5)
        rng = random.Random(1)
        state: dict[int, Any] = {}
        seats = {}
        n = 10
        end = time.monotonic() + duration
        while time.monotonic() < end:
            moved = False
            for i, (ws, _) in enumerate(players):
                try:
                    while True:
                        m = json.loads(ws.recv(0.01))
                        if m.get("type") == "welcome":
                            seats[i] = m["seat"]
                            state[i] = m.get("state")
                        elif m.get("type") == "state":
                            state[i] = m
                except TimeoutError:
                    pass
                if state.get(i) is None or i not in seats:
                    continue
                choice = choose(state[i], seats[i], set(), rng)
                if choice is None:
                    continue
                n += 1
                t0 = time.perf_counter()
                ws.send(json.dumps({"type": "action", "action": choice, "id": n}))
                while True:
                    m = json.loads(ws.recv(60))
                    if m.get("type") == "state":
                        state[i] = m
                    if m.get("id") == n:
                        break
                times.append((time.perf_counter() - t0) * 1000)
                moved = True
            if not moved:
                time.sleep(0.01)
    flood.join(120)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("attack", choices=["slow-bodies", "qr", "replay"])
    ap.add_argument("--conns", type=int, default=600)
    ap.add_argument("--duration", type=float, default=15.0)
    ap.add_argument("--server-path", help="PYTHONPATH for the server (another checkout)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    if args.server_path:
        os.environ["PYTHONPATH"] = args.server_path
    server = ServerProc(argv[cut + 1 :], limits=False)
    try:
        if args.attack == "slow-bodies":
            slow_bodies(server.url, args.conns, args.duration)
        else:
            move_acks(server.url, args.attack, args.duration)
        problems = server.problems()
        print(f"server log: {len(problems)} line(s)")
        for line in problems[:5]:
            print("  ", line)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
