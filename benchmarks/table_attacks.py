"""The attacks of issue 35 on a table's people, at the issue's scale, against a server
process on loopback; prints what each attacker got.

1. rematch hijack: a stranger's ``POST /join`` on a rematch the host was invited to;
2. host takeover: the host leaves the lobby, a stranger takes seat 0 and removes a player;
3. rejoin after removal: the removed player's ``POST /join`` from the same address;
4. chat flood: one spectator address sends 552 lines (6 sockets x 92) at the default
   limits, then a seated player (another address) sends 6;
5. socket cap: ``--ws-total 1000`` filled by 20 addresses x 50 spectators, then the
   seated player connects;
6. stalling without a clock: a connected player does nothing for ``--stall`` seconds;
7. a timed-out player's trading: a clock with a 1 s bank and the "fast" clock's 45 s of
   trading; the countdown that phase 2 starts with.

    python benchmarks/table_attacks.py [--baseline --server-path /work/main/src]

``--baseline`` leaves out the options that came with the fixes (a server that predates
them: ``--idle-timeout``); ``--server-path`` runs another checkout's server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bohnanza.web.load import ServerProc

PEOPLE3 = [{"kind": "person"}] * 3


class Probe:
    def __init__(self, url: str) -> None:
        self.url = url
        self.ws_url = url.replace("http://", "ws://")

    def http(self, address: str = "127.0.0.1") -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(local_address=address)
        return httpx.AsyncClient(base_url=self.url, timeout=30, transport=transport)

    async def create(self, **body: Any) -> dict[str, Any]:
        body = {"rules": "classic", "players": 3, "name": "Ada", **body}
        body.setdefault("seats", [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}])
        async with self.http() as h:
            r = await h.post("/api/tables", json=body)
            r.raise_for_status()
            out: dict[str, Any] = r.json()
            return out

    async def join(self, table: str, name: str, address: str = "127.0.0.1") -> httpx.Response:
        async with self.http(address) as h:
            return await h.post(f"/api/tables/{table}/join", json={"name": name})

    async def ws(
        self, table: str, token: str | None = None, address: str = "127.0.0.1"
    ) -> tuple[ClientConnection, dict[str, Any]]:
        ws = await connect(
            f"{self.ws_url}/ws/{table}", max_size=2**22, local_addr=(address, 0), open_timeout=30
        )
        await ws.send(json.dumps({"type": "hello", "id": 0, **({"token": token} if token else {})}))
        return ws, await until(ws, lambda m: m.get("id") == 0 or m["type"] == "error")


async def until(ws: ClientConnection, pred: Any, timeout: float = 30) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        while True:
            m: dict[str, Any] = json.loads(await ws.recv())
            if pred(m):
                return m


async def ask(ws: ClientConnection, msg: dict[str, Any], n: int) -> dict[str, Any]:
    await ws.send(json.dumps({**msg, "id": n}))
    return await until(ws, lambda m: m.get("id") == n)


async def finished_table(p: Probe) -> tuple[str, list[str]]:
    made = await p.create(seats=PEOPLE3)
    table = made["table"]["id"]
    tokens = [made["token"]]
    for name in ("Bob", "Cid"):
        tokens.append((await p.join(table, name)).json()["token"])
    ws, _ = await p.ws(table, tokens[0])
    await ask(ws, {"type": "start"}, 1)
    await ws.close()
    async with p.http() as h:
        while (await h.get(f"/api/tables/{table}")).json()["status"] != "over":
            await asyncio.sleep(0.1)
    return table, tokens


async def rematch_hijack(p: Probe) -> str:
    table, tokens = await finished_table(p)
    bob, _ = await p.ws(table, tokens[1])
    await bob.send(json.dumps({"type": "rematch"}))
    new = (await until(bob, lambda m: m["type"] == "rematch"))["table"]
    r = await p.join(new, "Mallory", "127.0.0.5")
    answer = r.json().get("code") or f"seat {r.json().get('seat')}"
    got = f"join -> {r.status_code} {answer}"
    if r.status_code == 200:
        eve, welcome = await p.ws(new, r.json()["token"], "127.0.0.5")
        host = welcome["table"]["host"] == welcome["seat"]
        removed = await ask(eve, {"type": "host", "op": "remove", "seat": 1}, 5)
        got += f", host: {host}, removes the proposer: {removed['type']}"
        await eve.close()
    await bob.close()
    return got


async def host_takeover(p: Probe) -> str:
    made = await p.create(seats=PEOPLE3)
    table = made["table"]["id"]
    await p.join(table, "Bob")
    await p.join(table, "Cid")
    ada, _ = await p.ws(table, made["token"])
    await ask(ada, {"type": "leave"}, 1)
    r = await p.join(table, "Mallory", "127.0.0.5")
    eve, _ = await p.ws(table, r.json()["token"], "127.0.0.5")
    answer = await ask(eve, {"type": "host", "op": "remove", "seat": 1}, 1)
    await eve.close()
    await ada.close()
    return f"stranger took seat {r.json()['seat']}; remove seat 1 -> {answer.get('code') or answer['type']}"


async def rejoin(p: Probe) -> str:
    made = await p.create(seats=PEOPLE3)
    table = made["table"]["id"]
    ada, _ = await p.ws(table, made["token"])
    r = await p.join(table, "Mallory", "127.0.0.5")
    eve, _ = await p.ws(table, r.json()["token"], "127.0.0.5")
    await ask(ada, {"type": "host", "op": "remove", "seat": r.json()["seat"]}, 1)
    again = await p.join(table, "Mallory", "127.0.0.5")
    await eve.close()
    await ada.close()
    return f"removed player's join -> {again.status_code} {again.json().get('code', '')}"


async def chat_flood(p: Probe) -> str:
    made = await p.create()
    table = made["table"]["id"]
    player, _ = await p.ws(table, made["token"], "127.0.0.2")
    flooders = [(await p.ws(table))[0] for _ in range(6)]
    for f in flooders:
        for i in range(92):
            await f.send(json.dumps({"type": "chat", "text": f"spam {i}", "id": i}))
    for f in flooders:
        await ask(f, {"type": "ping"}, 999)
    refused = 0
    for i in range(6):
        text = f"mine {i}"
        await player.send(json.dumps({"type": "chat", "text": text, "id": 1000 + i}))
        m = await until(
            player, lambda m, t=text, n=1000 + i: m.get("id") == n or m.get("text") == t
        )
        refused += m["type"] == "error"
    for ws in [*flooders, player]:
        await ws.close()
    return f"552 flood lines from one address; the seated player's lines refused: {refused} of 6"


async def socket_cap(p: Probe) -> str:
    made = await p.create()
    table = made["table"]["id"]
    # Five other tables of 200 spectators each (a table takes 200).
    watched = [(await p.create())["table"]["id"] for _ in range(5)]
    watchers: list[ClientConnection] = []
    for a in range(20):
        opened = await asyncio.gather(
            *(p.ws(watched[a // 4], None, f"127.0.0.{10 + a}") for _ in range(50))
        )
        watchers += [ws for ws, _ in opened]
    got: str
    try:
        player, welcome = await p.ws(table, made["token"])
        got = f"seated player: {welcome['type']} {welcome.get('code', '')}".rstrip()
        if welcome["type"] == "welcome":
            await player.close()
    except ConnectionClosed as exc:
        got = f"seated player: closed {exc.rcvd.code if exc.rcvd else None}"

    async def was_shed(ws: ClientConnection) -> bool:
        try:
            async with asyncio.timeout(5):
                async for raw in ws:
                    if json.loads(raw).get("code") == "shed":
                        return True
        except (TimeoutError, ConnectionClosed):
            pass
        return False

    shed = sum(await asyncio.gather(*(was_shed(ws) for ws in watchers)))
    await asyncio.gather(*(ws.close() for ws in watchers))
    return f"1000 spectator sockets open; {got}; spectators shed: {shed}"


async def stall(p: Probe, seconds: float) -> str:
    made = await p.create(seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}])
    table = made["table"]["id"]
    bob_seat = (await p.join(table, "Bob")).json()
    ada, _ = await p.ws(table, made["token"])
    bob, _ = await p.ws(table, bob_seat["token"])
    await ask(ada, {"type": "start"}, 1)
    started = time.monotonic()
    voted = False
    try:
        async with asyncio.timeout(seconds):
            while True:
                m = json.loads(await bob.recv())
                if m["type"] == "table" and m["table"]["seats"][0].get("idle") and not voted:
                    voted = True
                    await bob.send(json.dumps({"type": "stand_in", "seat": 0}))
                if m["type"] == "state" and any(
                    e["type"] == "plant" and e["seat"] == 0 for e in m["events"]
                ):
                    return f"the idle seat moved after {time.monotonic() - started:.1f} s (voted: {voted})"
    except TimeoutError:
        return f"the idle seat did not move in {seconds:.0f} s"
    finally:
        await ada.close()
        await bob.close()


async def timed_out_trade(p: Probe) -> str:
    made = await p.create(clock="custom:1,0,45")
    ws, _ = await p.ws(made["table"]["id"], made["token"])
    await ask(ws, {"type": "start"}, 1)
    m = await until(ws, lambda m: m["type"] == "state" and m["view"]["phase"] == "trade")
    await ws.close()
    return f"timed out: {0 in m['clock']['out']}; phase 2 countdown: {m['trade_left']} s"


async def run(url: str, args: argparse.Namespace) -> None:
    p = Probe(url)
    print("1. rematch hijack:", await rematch_hijack(p))
    print("2. host takeover:", await host_takeover(p))
    print("3. rejoin after removal:", await rejoin(p))
    print("4. chat flood:", await chat_flood(p))
    print("5. socket cap:", await socket_cap(p))
    print("6. stall, no clock:", await stall(p, args.stall))
    print("7. timed-out trading:", await timed_out_trade(p))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", action="store_true")
    ap.add_argument("--server-path", help="PYTHONPATH for the server (another checkout)")
    ap.add_argument("--stall", type=float, default=20.0, help="seconds to wait for a stall")
    args = ap.parse_args()
    extra = ["--testing", "--away-timeout", "0", "--bot-delay", "0", "--bot-grace", "0"]
    extra += ["--chat-limit", "20", "--table-chat-limit", "120", "--ws-total", "1000"]
    if not args.baseline:
        extra += ["--idle-timeout", "3"]
    if args.server_path:
        os.environ["PYTHONPATH"] = args.server_path
    server = ServerProc(extra)
    try:
        asyncio.run(run(server.url, args))
        for line in server.problems()[:10]:
            print("server:", line)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
