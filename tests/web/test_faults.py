"""Fault injection against a real server: ``kill -9`` mid-trade and mid-harvest, clients
dropped mid-offer (the TCP connection cut, no close frame), the database unavailable for a
few seconds (PostgreSQL stopped with ``pg_ctl stop -m immediate``; SQLite write-locked by
another connection).

After each fault the same check: what every client sees equals the replay of the stored
record up to the sequence number it was shown, and every acknowledged action is stored at
the place it was acknowledged. Nothing is mocked: server processes or threads, sockets,
SQLite files and a PostgreSQL cluster are real. ``FAULTS`` counts what was injected; the
count is printed at the end of the run (``docs/reliability.md``, "Faults").
"""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import struct
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bohnanza.records import replay
from bohnanza.web.store import Store

from .client import Client, simple_choice
from .conftest import Postgres, ServerProcess, ServerThread, wait_until
from .test_restart import _play

#: Faults injected in this run, by kind: kill (SIGKILL of the server), drop (a client's
#: TCP connection cut), outage (the database unavailable for a few seconds).
FAULTS: Counter[str] = Counter()

#: (seq, seat, action) of every acknowledged action of one table.
Acked = list[tuple[int, int, dict[str, Any]]]

THREE = [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "bot": "autarky"}]
BOTS = [{"kind": "person"}, {"kind": "bot", "bot": "random"}, {"kind": "bot"}]


def summary() -> str:
    """The line ``conftest.pytest_terminal_summary`` prints after a run of this module:
    the figure docs/reliability.md cites (7 a run: 3 kills, 2 drops, 2 outages)."""
    return (
        f"faults injected: {FAULTS['kill']} kill -9, {FAULTS['drop']} dropped clients, "
        f"{FAULTS['outage']} database outages ({sum(FAULTS.values())} in all)"
    )


# ------------------------------------------------------------------ helpers


def _json(data: Any) -> Any:
    return json.loads(json.dumps(data))


def act(c: Client, action: dict[str, Any], acked: Acked) -> int:
    """Send ``action``; it must be acknowledged. Returns its sequence number, once the
    client has the state that includes it."""
    answer = c.act(action, timeout=20)
    assert answer["type"] == "ack", (action, answer)
    assert c.seat is not None
    acked.append((answer["seq"], c.seat, action))
    sync(c, answer["seq"])
    return int(answer["seq"])


def sync(c: Client, seq: int, timeout: float = 20) -> None:
    """Read until the client's state is at ``seq`` or later."""
    deadline = time.monotonic() + timeout
    while c.state is None or c.seq < seq:
        c.recv(max(0.01, deadline - time.monotonic()))


def stored_record(url: str, table: str) -> dict[str, Any]:
    """The table's record as the database holds it (setup + every stored action), read
    with a connection of the test's own, not through the server."""
    store = Store(url)
    try:
        stored = store.load(table)
    finally:
        store.close()
    assert stored is not None and stored.setup is not None
    return {
        **stored.setup,
        "actions": [{"seat": seat, **action} for seat, action in stored.actions],
        "result": stored.result,
    }


def check(c: Client, record: dict[str, Any], acked: Acked) -> None:
    """The invariant after a fault: every acknowledged action is in the record at its
    place, and what ``c`` sees is the replay of the record's first ``c.seq`` actions.
    ``record`` must be read after the client's last state (bots may act meanwhile)."""
    for seq, seat, action in acked:
        assert seq <= len(record["actions"]), f"acknowledged action #{seq} was lost"
        assert record["actions"][seq - 1] == {"seat": seat, **action}, seq
    assert c.state is not None
    n = c.seq
    assert n <= len(record["actions"]), "the client saw an action that is not stored"
    game = replay({**record, "actions": record["actions"][:n], "result": None})
    assert c.view == _json(game.view(c.seat).to_json())
    if c.seat is not None:
        assert c.legal == _json([a.to_json() for a in game.legal_actions(c.seat, offers=False)])


def check_db(c: Client, url: str, table: str, acked: Acked) -> None:
    """:func:`check` against the database, read after the client's last state: bots may
    act meanwhile, the record is then longer than what the client saw (that is fine)."""
    c.drain(0.02)
    check(c, stored_record(url, table), acked)


def drop(c: Client) -> None:
    """Cut the client's TCP connection without a WebSocket close frame (a reset)."""
    sock = c.ws.socket
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RD)  # wakes the client's reader thread; sends nothing
    sock.close()
    FAULTS["drop"] += 1


def leave(c: Client) -> None:
    """Close a connection, reading what is pending first: the client library stops
    reading the socket when its queue is full, and its close would wait for a timeout."""
    c.drain(0.02)
    c.close()


def forget(c: Client) -> None:
    """Close a client whose server is gone (or whose socket was cut)."""
    with contextlib.suppress(Exception):
        c.close()


def offers(c: Client) -> list[dict[str, Any]]:
    return list(c.view["offers"])


def create(http: httpx.Client, seats: list[dict[str, str]], seed: int) -> dict[str, Any]:
    r = http.post(
        "/api/tables",
        json={"rules": "classic", "players": 3, "seats": seats, "name": "Ada", "seed": seed},
    )
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def two_people(http: httpx.Client, ws_url: str) -> tuple[str, Client, Client]:
    """A started table: Ada (seat 0) and Bob (seat 1) connected, an autarky bot at seat 2.
    ``Client.token`` keeps each one's token for reconnecting."""
    made = create(http, THREE, 5)
    table = made["table"]["id"]
    r = http.post(f"/api/tables/{table}/join", json={"name": "Bob"})
    assert r.status_code == 200, r.text
    a, b = Client(ws_url, table), Client(ws_url, table)
    a.token, b.token = made["token"], r.json()["token"]
    a.hello(a.token)
    b.hello(b.token)
    assert a.request({"type": "start"})["type"] == "ack"
    sync(a, 0)
    sync(b, 0)
    return table, a, b


def to_trade(c: Client, acked: Acked) -> None:
    """Plant the first card and stop: the client's own trade phase."""
    act(c, {"type": "plant", "field": 0}, acked)
    act(c, {"type": "stop_planting"}, acked)
    assert c.view["phase"] == "trade" and c.view["active"] == c.seat


def gift(c: Client, to: int, acked: Acked) -> int:
    """Propose a gift of the client's last hand card to ``to``; the offer's id."""
    card = c.view["hand"][-1]["id"]
    act(c, {"type": "propose", "offer": {"to": to, "give": [card], "want": []}}, acked)
    mine = [o for o in offers(c) if o["proposer"] == c.seat and o["to"] == to]
    assert mine, offers(c)
    return int(mine[-1]["offer_id"])


def play_out(url: str, tables: list[str], timeout: float = 60) -> dict[str, dict[str, Any]]:
    """Wait until every table's game is over; their records, from the server."""
    out: dict[str, dict[str, Any]] = {}
    with httpx.Client(base_url=url, timeout=10) as http:
        for table in tables:

            def over(t: str = table) -> bool:
                return bool(http.get(f"/api/tables/{t}").json()["status"] == "over")

            wait_until(over, timeout, f"table {table} to finish")
            r = http.get(f"/api/tables/{table}/record")
            assert r.status_code == 200, r.text
            out[table] = r.json()
    return out


def final(record: dict[str, Any], acked: Acked) -> None:
    """A finished game: it replays to its result, every acknowledged action in it."""
    for seq, seat, action in acked:
        assert record["actions"][seq - 1] == {"seat": seat, **action}, seq
    assert replay(record).result() == record["result"]


# ------------------------------------------------------------------ kill -9


def test_kill_9_mid_trade(tmp_path: Path) -> None:
    """Two offers open (acknowledged, unanswered) in one game while bots play another:
    SIGKILL. After the restart the offers are part of the resumed game, the partners
    answer them, and both games are their records' replays."""
    db = f"sqlite:///{tmp_path / 'games.db'}"
    acked: Acked = []
    srv = ServerProcess(db, "--bot-delay", "0.05", "--bot-grace", "0", "--away-timeout", "0.2")
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as http:
            table, a, b = two_people(http, srv.ws_url)
            busy = create(http, BOTS, 9)
        # A second table where bots play for an absent person: killed mid-stream too.
        other = busy["table"]["id"]
        owner = Client(srv.ws_url, other)
        owner.hello(busy["token"])
        assert owner.request({"type": "start"})["type"] == "ack"
        leave(owner)
        watcher = Client(srv.ws_url, other)
        watcher.hello()
        to_trade(a, acked)
        from_a = gift(a, 1, acked)
        sync(b, a.seq)
        from_b = gift(b, 0, acked)
        sync(a, b.seq)
        assert {o["offer_id"] for o in offers(a)} == {from_a, from_b}
        watcher.wait_for(lambda m: m["type"] == "state" and m["seq"] >= 3)
        watcher.drain(0.02)
    finally:
        srv.kill()
        FAULTS["kill"] += 1
    for c in (a, b, watcher):
        forget(c)
    seen_busy = watcher.seq

    srv = ServerProcess(db, "--bot-delay", "0", "--bot-grace", "0")
    try:
        a2, b2 = Client(srv.ws_url, table), Client(srv.ws_url, table)
        a2.hello(a.token)
        b2.hello(b.token)
        record = stored_record(db, table)
        for c in (a2, b2):
            assert c.seq == acked[-1][0]
            assert {o["offer_id"] for o in offers(c)} == {from_a, from_b}
            check(c, record, acked)
        watcher2 = Client(srv.ws_url, other)
        watcher2.hello()
        assert watcher2.seq >= seen_busy
        check_db(watcher2, db, other, [])
        # The partners answer the offers made before the kill; the turn goes on.
        act(b2, {"type": "accept", "offer_id": from_a}, acked)
        sync(a2, b2.seq)
        act(a2, {"type": "accept", "offer_id": from_b}, acked)
        act(a2, {"type": "end_trading"}, acked)
        deadline = time.monotonic() + 20
        while not (a2.view["phase"] == "plant" and a2.view["active"] == 1):
            assert time.monotonic() < deadline, "the turn did not pass"
            for c in (a2, b2):
                c.drain(0.02)
                choice = simple_choice(c, {a2.view["turn"]})
                if choice is not None and c.view["phase"] == "plant_traded":
                    act(c, choice, acked)
        for c in (a2, b2):
            check_db(c, db, table, acked)
        for c in (a2, b2, watcher2):
            leave(c)
    finally:
        srv.stop()


def test_kill_9_mid_harvest_and_in_flight(tmp_path: Path) -> None:
    """SIGKILL right after an acknowledged harvest; then again with an action sent and
    not yet answered (it may be lost or kept: the acknowledged ones must all be kept).
    Each time the resumed game is its record's replay; finally it is played to its end."""
    db = f"sqlite:///{tmp_path / 'games.db'}"
    acked: Acked = []
    proposed: set[int] = set()
    srv = ServerProcess(db, "--bot-delay", "0.02", "--bot-grace", "0")
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as http:
            made = create(http, BOTS, 17)
        table, token = made["table"]["id"], made["token"]
        c = Client(srv.ws_url, table)
        c.hello(token)
        assert c.request({"type": "start"})["type"] == "ack"
        act(c, {"type": "plant", "field": 0}, acked)
        act(c, {"type": "harvest", "field": 0}, acked)
    finally:
        srv.kill()  # at once after the harvest's acknowledgement
        FAULTS["kill"] += 1
    forget(c)

    srv = ServerProcess(db, "--bot-delay", "0.02", "--bot-grace", "0")
    in_flight: dict[str, Any] | None = None
    try:
        c = Client(srv.ws_url, table)
        c.hello(token)
        record = stored_record(db, table)
        assert record["actions"][-1] == {"seat": 0, "type": "harvest", "field": 0}
        check(c, record, acked)
        acked += [(seq, 0, action) for seq, action in _play(c, 6, proposed)]
        # Then one more action, sent while bots are busy, and the kill before its answer
        # (a harvest when there is one).
        deadline = time.monotonic() + 30
        while in_flight is None:
            assert time.monotonic() < deadline, "no action to send"
            c.drain(0.02)
            harvests = [x for x in c.legal if x["type"] == "harvest"]
            in_flight = harvests[0] if harvests else simple_choice(c, proposed)
        c.send({"type": "action", "action": in_flight, "id": 999})
    finally:
        srv.kill()
        FAULTS["kill"] += 1
    forget(c)

    srv = ServerProcess(db, "--bot-delay", "0", "--bot-grace", "0", "--away-timeout", "0.2")
    try:
        c = Client(srv.ws_url, table)
        c.hello(token)
        check_db(c, db, table, acked)
        leave(c)  # away: a bot plays the seat to the end
        record = play_out(srv.url, [table])[table]
    finally:
        srv.stop()
    final(record, acked)


# ------------------------------------------------------------------ dropped clients


def test_drop_clients_mid_offer(make_server: Callable[..., ServerThread], sqlite_url: str) -> None:
    """Ada proposes and her connection is cut: Bob declines, the server serves another
    table meanwhile, a bot plays for Ada once she has been away ``away_timeout`` (it
    answers Bob's offer and ends her turn), and she comes back to a consistent state.
    Then Bob proposes and is cut: Ada accepts, Bob comes back."""
    # A table without a clock waits twice away_timeout before a bot plays (standin.py).
    srv = make_server(away_timeout=1.0, bot_wait=0.5, bot_delay=0.02)
    acked: Acked = []
    other_acked: Acked = []
    with srv.http() as http:
        table, a, b = two_people(http, srv.ws_url)
        other = create(http, BOTS, 23)
    to_trade(a, acked)
    offer = gift(a, 1, acked)
    sync(b, a.seq)
    drop(a)
    b.wait_for(lambda m: m["type"] == "table" and not m["table"]["seats"][0]["connected"])
    act(b, {"type": "decline", "offer_id": offer}, acked)
    gift(b, 0, acked)  # to the absent Ada, well within her away_timeout

    # Another table is served meanwhile: its lobby and its game.
    with srv.http() as http:
        assert http.get("/api/tables").status_code == 200
    d = srv.client(other["table"]["id"], other["token"])
    assert d.request({"type": "start"})["type"] == "ack"
    other_acked += [(seq, 0, action) for seq, action in _play(d, 3, set())]

    # Bob's offer to the absent Ada: her substitute answers it, and ends her turn.
    b.wait_for(lambda m: m["type"] == "table" and m["table"]["seats"][0]["replaced"])
    b.wait_for(
        lambda m: (
            m["type"] == "state" and m["view"]["phase"] == "plant" and m["view"]["active"] == 1
        ),
        timeout=30,
    )
    assert not offers(b)

    # Ada is back: the bot stops, her state is the record's.
    a2 = srv.client(table, a.token)
    b.wait_for(lambda m: m["type"] == "table" and not m["table"]["seats"][0]["replaced"])
    check_db(a2, sqlite_url, table, acked)

    # Bob's turn: he proposes, and is cut; Ada accepts; Bob is back.
    to_trade(b, acked)
    offer = gift(b, 0, acked)
    sync(a2, b.seq)
    drop(b)
    act(a2, {"type": "accept", "offer_id": offer}, acked)
    b2 = srv.client(table, b.token)
    assert b2.seq == a2.seq
    for c in (a2, b2):
        check_db(c, sqlite_url, table, acked)
    check_db(d, sqlite_url, other["table"]["id"], other_acked)
    for c in (a, b):
        forget(c)
    for c in (a2, b2, d):
        leave(c)


# ------------------------------------------------------------------ the database away


@contextlib.contextmanager
def outage(backend: str, url: str, pg: Postgres | None) -> Iterator[sqlite3.Connection | None]:
    """The database unavailable: PostgreSQL stopped as by a crash, or SQLite held
    write-locked by another connection (yielded, so the test can write in its lock)."""
    FAULTS["outage"] += 1
    if backend == "postgresql":
        assert pg is not None
        pg.halt()
        try:
            yield None
        finally:
            pg.resume()
        return
    path = url.split("sqlite:///", 1)[1].split("?", 1)[0]
    conn = sqlite3.connect(path, isolation_level=None, timeout=20)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        yield conn
        conn.execute("COMMIT")
    finally:
        conn.close()


def settle(c: Client, acked: Acked, proposed: set[int]) -> None:
    """Play until it is the client's phase 1: then nothing happens until it acts."""
    deadline = time.monotonic() + 30
    while True:
        c.drain(0.1)
        v = c.view
        if v["phase"] == "plant" and v["active"] == c.seat and not v["pending"]:
            return
        choice = simple_choice(c, proposed)
        if choice is not None:
            answer = c.act(choice)
            if answer["type"] == "ack":
                acked.append((answer["seq"], 0, choice))
        assert time.monotonic() < deadline, "never settled"


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_database_outage(
    backend: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    make_server: Callable[..., ServerThread],
) -> None:
    """The database goes away for ~3 s while a person acts and bots play another table.
    Meanwhile: moves are answered ``server_error`` and change nothing, the lobby answers
    503 (never a 500), /healthz says unavailable, a reconnecting player still gets the
    game. Afterwards, without a restart: moves are saved again, the bots' pump goes on,
    both games play to their end and replay from their records."""
    pg: Postgres | None = None
    if backend == "postgresql":
        pg = request.getfixturevalue("postgres")
        url = pg.new_database()
    else:
        # A write waits at most half a second for the lock before it fails.
        url = f"sqlite:///{tmp_path / 'games.db'}?timeout=0.5"
    srv = make_server(url, bot_delay=0.05, bot_grace=0.0, bot_wait=0.5, away_timeout=0.3)
    acked: Acked = []
    proposed: set[int] = set()
    with srv.http() as http:
        made = create(http, BOTS, 5)
        busy = create(http, BOTS, 9)
        lobby = create(http, THREE, 1)["table"]["id"]  # seat 1 open, to join in the outage
    table, other = made["table"]["id"], busy["table"]["id"]
    p = srv.client(table, made["token"])
    assert p.request({"type": "start"})["type"] == "ack"
    owner = srv.client(other, busy["token"])
    assert owner.request({"type": "start"})["type"] == "ack"
    leave(owner)  # away: bots play the whole table
    watcher = srv.client(other)
    settle(p, acked, proposed)
    watcher.wait_for(lambda m: m["type"] == "state" and m["seq"] >= 3)
    before = p.seq
    move = simple_choice(p, proposed)
    assert move is not None
    bodies: list[tuple[int, str]] = []

    with outage(backend, url, pg) as lock, httpx.Client(base_url=srv.url, timeout=20) as http:
        started = time.monotonic()
        answer = p.act(move, timeout=20)
        assert answer["type"] == "error" and answer["code"] == "server_error", answer
        p.drain(0.2)
        assert p.seq == before, "a move that was not saved changed the game"
        said = p.request({"type": "chat", "text": "anyone?"}, timeout=20)
        assert said["type"] == "error" and said["code"] == "server_error", said
        health = http.get("/healthz")
        assert health.status_code == 503 and health.json()["status"] == "unavailable"
        for r in (
            http.post("/api/tables", json={"rules": "classic", "players": 3, "seats": BOTS}),
            http.get("/api/tables"),
            http.get("/api/tables/nosuchtable"),
            http.post(f"/api/tables/{lobby}/join", json={"name": "Cy"}),
        ):
            bodies.append((r.status_code, r.text))
        # A table that is not in memory cannot be loaded: said so, not a traceback.
        ghost = Client(srv.ws_url, "nosuchtable")
        first = ghost.recv()
        assert first["code"] == ("server_error" if backend == "postgresql" else "no_table")
        forget(ghost)
        # A player reconnecting meanwhile gets the game (held in memory).
        again = srv.client(table, made["token"])
        assert again.seq == before and again.view == p.view
        leave(again)
        if lock is not None:
            # A commit that went through although its answer was lost: the server must
            # pick it up before its next write instead of failing on the sequence number.
            lock.execute(
                "INSERT INTO bohnanza_actions (table_id, seq, seat, action, created) "
                "VALUES (?, ?, 0, ?, ?)",
                (table, before, json.dumps(move), time.time()),
            )
        watcher.drain(0.05)
        time.sleep(max(0.0, 3.0 - (time.monotonic() - started)))
    for status, text in bodies:
        assert status == 200 or (status != 500 and "error" in json.loads(text)), (status, text)
    assert bodies[0][0] == bodies[3][0] == 503  # a new table, a seat: cannot be saved
    if backend == "postgresql":
        assert [s for s, _ in bodies] == [503, 503, 503, 503]

    # The database is back, the server was not restarted.
    with httpx.Client(base_url=srv.url, timeout=10) as http:
        wait_until(lambda: http.get("/healthz").status_code == 200, 20, "/healthz")
        joined = http.post(f"/api/tables/{lobby}/join", json={"name": "Cy"})
        assert joined.status_code == 200 and joined.json()["seat"] == 1, joined.text
    paused = watcher.seq
    watcher.wait_for(lambda m: m["type"] == "state" and m["seq"] > paused, timeout=20)
    # The player tries the move again (a server_error may come while the pool reconnects).
    deadline = time.monotonic() + 20
    while True:
        answer = p.act(move)
        if answer["type"] != "error" or answer["code"] != "server_error":
            break
        assert time.monotonic() < deadline, answer
        time.sleep(0.2)
    if lock is not None:
        # The "lost" commit was installed (and shown) before the retry was looked at;
        # the retry is then a second move of its own, or illegal.
        sync(p, before + 1)
        acked.append((before + 1, 0, move))
        assert answer["type"] == "ack" or answer["code"] == "illegal", answer
        assert [e for e in p.messages if e.get("type") == "ack"][-1]["seq"] != before + 1
    else:
        assert answer["type"] == "ack" and answer["seq"] == before + 1, answer
    if answer["type"] == "ack":
        acked.append((answer["seq"], 0, move))
    check_db(p, url, table, acked)
    check_db(watcher, url, other, [])

    # Both games to their end, bots playing for the absent person.
    srv.settings.bot_delay = 0.0
    leave(p)
    records = play_out(srv.url, [table, other])
    final(records[table], acked)
    final(records[other], [])
    check(watcher, records[other], [])
    leave(watcher)
