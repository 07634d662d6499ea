"""The re-attack of issue 51's findings that are figures (docs/reliability.md, "Accounts,
ratings and mail"), against this checkout's server or another's (``--server-path``).

``passwords``: 10 addresses send wrong-password logins, 10 each, all at once, spread over
20 accounts so that each address and each name stays within its limit, while two seated players move: the move acknowledgement times (argon2 used to run in
the commits' thread pool: 5-7 s delays).

``list``: ``--tables`` open tables; one address connects as a spectator to one table after
another and asks for the table list, as fast as it is answered, while two seated players
move (every spectator's ``hello`` threw the cached list away, and the list was built from
every table on the event loop: acks up to 579 ms at 985 tables).

``qr-crowd``: ``--addresses`` addresses (127.0.0.10 on), ``--loops`` loops each, ask for QR codes
of distinct 560-character links as fast as they are answered, within their per-address
limit; another address asks for one short link's QR code every second: how many of its
requests are served, and how long they take (a first-come queue of 32 refused it 7 times
in 10).

    python benchmarks/account_attacks.py passwords
    python benchmarks/account_attacks.py list --tables 985
    python benchmarks/account_attacks.py qr-crowd --addresses 64
    python benchmarks/account_attacks.py qr-crowd --server-path /tmp/base/src

Each prints its figures and the server log's warnings.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import random
import statistics
import sys
import threading
import time
from typing import Any

import httpx
from http_attacks import pct, seated_moves, summary
from websockets.sync.client import connect

from bohnanza.web.load import ServerProc

PASSWORD = "correct horse battery"
#: Accounts the wrong passwords are spread over (each gets 5).
NAMES = 20


def _client(url: str, address: str) -> httpx.Client:
    return httpx.Client(
        base_url=url, timeout=60, transport=httpx.HTTPTransport(local_address=address)
    )


def _tally(out: Any, codes: collections.Counter[str]) -> None:
    out.put(dict(codes))


# ------------------------------------------------------------------ the floods (processes)


def _passwords(url: str, addresses: int, each: int, out: Any) -> None:
    os.nice(19)
    codes: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()

    def loop(a: int) -> None:
        with _client(url, f"127.0.0.{10 + a}") as http:
            for i in range(each):  # 5 tries a name: within every per-name limit
                name = f"Vic{(a * each + i) % NAMES:02d}"
                r = http.post("/api/account/login", json={"name": name, "password": "wrong!!!"})
                with lock:
                    codes[str(r.status_code)] += 1

    threads = [threading.Thread(target=loop, args=(a,)) for a in range(addresses)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _tally(out, codes)


def _spectators(url: str, tables: list[str], seconds: float, out: Any) -> None:
    os.nice(19)
    codes: collections.Counter[str] = collections.Counter()
    rng = random.Random(7)
    ws_url = url.replace("http://", "ws://")
    end = time.monotonic() + seconds
    with _client(url, "127.0.0.1") as http:
        while time.monotonic() < end:
            with connect(f"{ws_url}/ws/{rng.choice(tables)}", max_size=2**22) as ws:
                ws.send(json.dumps({"type": "hello", "id": 1}))
                while json.loads(ws.recv(30)).get("id") != 1:
                    pass
            codes[str(http.get("/api/tables").status_code)] += 1
    _tally(out, codes)


def _qr_crowd(url: str, addresses: int, loops: int, seconds: float, out: Any) -> None:
    os.nice(19)
    codes: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def loop(a: int, i: int) -> None:
        with _client(url, f"127.0.0.{10 + a}") as http:
            n = 0
            while time.monotonic() < end:
                n += 1
                link = f"https://bohnanza.example/t/{a}-{i}-{n}#" + "x" * 560
                code = http.post("/api/qr", json={"text": link}).status_code
                with lock:
                    codes[str(code)] += 1
                if code == 429:
                    time.sleep(0.5)

    threads = [
        threading.Thread(target=loop, args=(a, i)) for a in range(addresses) for i in range(loops)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _tally(out, codes)


# ------------------------------------------------------------------ the attacks


def passwords(url: str, duration: float) -> None:
    for n in range(NAMES):  # 5 registrations an hour per address
        with _client(url, f"127.0.0.{100 + n // 5}") as http:
            body = {"name": f"Vic{n:02d}", "password": PASSWORD}
            http.post("/api/account/register", json=body).raise_for_status()
    with httpx.Client(base_url=url, timeout=60) as http:
        out: Any = multiprocessing.Queue()
        flood = multiprocessing.Process(target=_passwords, args=(url, 10, 10, out))
        times = seated_moves(url, http, flood, duration)
    print(f"wrong-password logins answered: {out.get(timeout=10)}")
    print(summary("move acknowledgements", times))


def table_list(url: str, tables: int, duration: float) -> None:
    made: list[str] = []
    with httpx.Client(base_url=url, timeout=60) as http:
        body = {
            "rules": "classic",
            "players": 3,
            "name": "x",
            "seats": [{"kind": "person"}] + [{"kind": "bot"}] * 2,
        }
        started = time.monotonic()
        for _ in range(tables):
            r = http.post("/api/tables", json=body)
            r.raise_for_status()
            made.append(r.json()["table"]["id"])
        print(f"{tables} tables made in {time.monotonic() - started:.1f} s")
        built = time.perf_counter()
        http.get("/api/tables").raise_for_status()
        print(f"one table list, uncached: {(time.perf_counter() - built) * 1000:.1f} ms")
        out: Any = multiprocessing.Queue()
        flood = multiprocessing.Process(target=_spectators, args=(url, made, duration + 1, out))
        times = seated_moves(url, http, flood, duration)
    print(f"spectator hellos and table lists answered: {out.get(timeout=10)}")
    print(summary("move acknowledgements", times))


def qr_crowd(url: str, addresses: int, loops: int, duration: float) -> None:
    out: Any = multiprocessing.Queue()
    flood = multiprocessing.Process(
        target=_qr_crowd, args=(url, addresses, loops, duration + 2, out)
    )
    flood.start()
    time.sleep(2.0)  # the queue fills
    served: list[float] = []
    codes: collections.Counter[str] = collections.Counter()
    with _client(url, "127.0.0.250") as probe:
        end = time.monotonic() + duration
        n = 0
        while time.monotonic() < end:
            n += 1
            t0 = time.perf_counter()
            r = probe.post("/api/qr", json={"text": f"https://bohnanza.example/t/invite{n}"})
            codes[str(r.status_code)] += 1
            if r.status_code == 200:
                served.append((time.perf_counter() - t0) * 1000)
            time.sleep(max(0.0, 1.0 - (time.perf_counter() - t0)))
    flood.join(180)
    print(f"crowd of {addresses} addresses answered: {out.get(timeout=10)}")
    print(f"the probe's QR requests: {dict(codes)} ({codes['200']} of {n} served)")
    if served:
        print(
            f"served in: p50={statistics.median(served):.0f} ms "
            f"p95={pct(served, 0.95):.0f} ms max={max(served):.0f} ms"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("attack", choices=["passwords", "list", "qr-crowd"])
    ap.add_argument("--duration", type=float, default=15.0)
    ap.add_argument("--tables", type=int, default=985)
    ap.add_argument("--addresses", type=int, default=64)
    ap.add_argument("--loops", type=int, default=2, help="qr-crowd: loops per address")
    ap.add_argument("--server-path", help="PYTHONPATH for the server (another checkout)")
    args = ap.parse_args()
    if args.server_path:
        os.environ["PYTHONPATH"] = args.server_path
    extra = ["--max-tables", str(args.tables + 50)] if args.attack == "list" else []
    server = ServerProc(extra)
    try:
        if args.attack == "passwords":
            passwords(server.url, args.duration)
        elif args.attack == "list":
            table_list(server.url, args.tables, args.duration)
        else:
            qr_crowd(server.url, args.addresses, args.loops, args.duration)
        problems = server.problems()
        print(f"server log: {len(problems)} line(s)")
        for line in problems[:5]:
            print("  ", line)
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
