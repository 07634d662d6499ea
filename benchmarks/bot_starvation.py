"""Bot starvation: do tables full of search bots slow an unrelated table down?

The attack (issue 11): ``--tables`` tables of one person and ``--search`` search bots
each; the person starts the game and leaves it, so the bots play on by themselves. Then a
probe client on an unrelated table (one person, two quick bots, not started) measures for
``--duration`` seconds, every 0.25 s, the round trip of a ``ping`` (the event loop) and
of a chat line (a database write and its broadcast). Prints p50/p95/max in ms.

    python benchmarks/bot_starvation.py --tables 24 --search 6 --duration 30 \
        -- --search-per-table 0

Arguments after ``--`` go to the server (``python -m bohnanza.web``); ``--baseline``
leaves out the per-address limit options, for a server that predates them.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import time

import httpx
from websockets.sync.client import connect

from bohnanza.web.load import ServerProc


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=24)
    ap.add_argument("--search", type=int, default=6)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=5.0)
    ap.add_argument("--baseline", action="store_true")
    ap.add_argument("--server-path", help="PYTHONPATH for the server (another checkout)")
    ap.add_argument("server_args", nargs="*")
    args = ap.parse_args()
    extra = list(args.server_args)
    if not args.baseline:
        extra += ["--chat-limit", "0", "--table-chat-limit", "0"]
    if args.server_path:
        os.environ["PYTHONPATH"] = args.server_path
    server = ServerProc(extra, limits=not args.baseline)
    try:
        run(server.url, args)
        cpu = server.cpu_seconds()
        with sqlite3.connect(server.db) as db:
            (actions,) = db.execute("select count(*) from bohnanza_actions").fetchone()
        print(f"server CPU seconds (main process): {cpu}; bot actions stored: {actions}")
        for line in server.problems()[:10]:
            print("server:", line)
    finally:
        server.stop()


def run(url: str, args: argparse.Namespace) -> None:
    ws_url = url.replace("http://", "ws://")
    http = httpx.Client(base_url=url, timeout=30)
    players = 1 + args.search
    for _ in range(args.tables):
        made = http.post(
            "/api/tables",
            json={
                "rules": "classic",
                "players": players,
                "seats": [{"kind": "person"}] + [{"kind": "bot", "bot": "search"}] * args.search,
                "name": "attacker",
            },
        )
        made.raise_for_status()
        body = made.json()
        with connect(f"{ws_url}/ws/{body['table']['id']}", max_size=2**22) as ws:
            ws.send(json.dumps({"type": "hello", "token": body["token"]}))
            ws.send(json.dumps({"type": "start", "id": 1}))
            while json.loads(ws.recv(30)).get("id") != 1:
                pass
            ws.send(json.dumps({"type": "leave", "id": 2}))
            while json.loads(ws.recv(30)).get("id") != 2:
                pass
    probe = http.post(
        "/api/tables",
        json={
            "rules": "classic",
            "players": 3,
            "seats": [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}],
            "name": "probe",
        },
    ).json()
    pings: list[float] = []
    chats: list[float] = []
    with connect(f"{ws_url}/ws/{probe['table']['id']}", max_size=2**22) as ws:
        ws.send(json.dumps({"type": "hello", "token": probe["token"]}))
        time.sleep(args.warmup)
        end = time.monotonic() + args.duration
        n = 0
        while time.monotonic() < end:
            n += 1
            t0 = time.perf_counter()
            ws.send(json.dumps({"type": "ping", "id": n}))
            while json.loads(ws.recv(60)).get("id") != n:
                pass
            pings.append((time.perf_counter() - t0) * 1000)
            text = f"probe {n}"
            t0 = time.perf_counter()
            ws.send(json.dumps({"type": "chat", "text": text}))
            while True:
                m = json.loads(ws.recv(60))
                if m.get("type") == "chat" and m.get("text") == text:
                    break
                if m.get("type") == "error":
                    raise SystemExit(f"probe error: {m}")
            chats.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.25)
    for name, vals in (("ping", pings), ("chat", chats)):
        print(
            f"{name}: n={len(vals)} p50={statistics.median(vals):.1f} ms "
            f"p95={pct(vals, 0.95):.1f} ms max={max(vals):.1f} ms"
        )


if __name__ == "__main__":
    main()
