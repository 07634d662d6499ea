"""Several server instances on one PostgreSQL database (web/leases.py, web/forward.py): one
owner per live table, fenced writes, forwarding, takeover after ``kill -9``; and one
server per SQLite file. Real servers, a real PostgreSQL cluster, real sockets."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update
from websockets.exceptions import ConnectionClosed

from bohnanza.web.accounts import AccountLimits
from bohnanza.web.leases import InstanceRow, LeaseLost, LeaseRow, Leases, Owner
from bohnanza.web.pump import clock_view
from bohnanza.web.store import Store, StoredSeat, StoredTable

from .client import Client
from .conftest import Postgres, ServerProcess, ServerThread
from .test_restart import _play

THREE = [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "bot": "autarky"}]
BOTS = [{"kind": "person"}, {"kind": "bot", "bot": "autarky"}, {"kind": "bot", "bot": "autarky"}]


def assert_stored(url: str, table: str, acked: list[tuple[int, dict[str, Any]]]) -> None:
    """Every action seat 0 had acknowledged is in the table's record at its place."""
    store = Store(url)
    try:
        stored = store.load(table)
    finally:
        store.close()
    assert stored is not None
    for seq, action in acked:
        assert stored.actions[seq - 1] == (0, action), seq


def _table(store: Store, table_id: str) -> None:
    seats = [StoredSeat(0, "person", "", "Ada", "h0"), StoredSeat(1, "bot", "autarky", "", None)]
    settings = {"rules": "classic", "players": 2, "options": {}}
    store.create_table(StoredTable(table_id, time.time(), "lobby", settings, seats))


def _stale(store: Store, leases: Leases) -> None:
    """As if ``leases``' instance had stopped: its heartbeat and leases are old."""
    with store.engine.begin() as conn:
        conn.execute(update(InstanceRow).where(InstanceRow.id == leases.id).values(seen=0.0))
        conn.execute(update(LeaseRow).where(LeaseRow.owner == leases.id).values(expires=0.0))


@pytest.fixture
def pg_url(postgres: Postgres) -> str:
    return postgres.new_database()


def test_a_stale_owner_can_never_write_again(pg_url: str) -> None:
    """The fencing token: once another instance took the table over, the old owner's
    next write is refused inside its own transaction, and nothing of it is stored."""
    store_a, store_b = Store(pg_url), Store(pg_url)
    try:
        a, b = Leases(store_a, "http://a"), Leases(store_b, "http://b")
        a.register()
        b.register()
        store_a.fence, store_b.fence = a.fence, b.fence
        store_a.on_create.append(a.created)
        _table(store_a, "t1")
        assert a.held == {"t1": 1}
        assert b.acquire("t1") == Owner(a.id, "http://a")  # a lives: b may not take it
        store_a.start_game("t1", {"format": "bohnanza-record", "rules": "classic", "players": 2})
        store_a.append_actions("t1", 0, [(0, {"type": "plant", "field": 0})])
        _stale(store_a, a)
        assert b.acquire("t1") is None and b.held == {"t1": 2}  # taken over
        with pytest.raises(LeaseLost):
            store_a.append_actions("t1", 1, [(0, {"type": "plant", "field": 1})])
        with pytest.raises(LeaseLost):
            store_a.save_settings("t1", {"rules": "classic", "players": 2})
        store_b.append_actions("t1", 1, [(0, {"type": "stop_planting"})])
        stored = store_b.load("t1")
        assert stored is not None and [a for _s, a in stored.actions] == [
            {"type": "plant", "field": 0},
            {"type": "stop_planting"},
        ]
    finally:
        store_a.close()
        store_b.close()


def test_two_instances_claiming_one_table_at_once_one_wins(pg_url: str) -> None:
    """A takeover race: two instances ask for the same orphaned tables at the same time;
    for every table exactly one owns it, the other is told who does (or lost the race)."""
    stores = [Store(pg_url), Store(pg_url)]
    try:
        leases = [Leases(s, f"http://{i}") for i, s in enumerate(stores)]
        for lease in leases:
            lease.register()
        for n in range(20):
            _table(stores[0], f"r{n}")  # no lease row: orphans from the start
        results: list[list[Any]] = [[], []]
        barrier = threading.Barrier(2)

        def race(i: int) -> None:
            barrier.wait()
            for n in range(20):
                try:
                    results[i].append(leases[i].acquire(f"r{n}"))
                except LeaseLost:
                    results[i].append("lost")

        threads = [threading.Thread(target=race, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with stores[0].engine.connect() as conn:
            owners = dict(conn.execute(select(LeaseRow.table_id, LeaseRow.owner)).all())
        for n in range(20):
            won = [i for i in range(2) if results[i][n] is None]
            assert len(won) == 1, (n, results[0][n], results[1][n])
            assert owners[f"r{n}"] == leases[won[0]].id
            assert set(leases[won[0]].held) >= {f"r{n}"}
            assert f"r{n}" not in leases[1 - won[0]].held
    finally:
        for s in stores:
            s.close()


def test_a_table_owned_by_another_instance_is_served_through_it(
    make_server: Callable[..., ServerThread], pg_url: str
) -> None:
    """Two instances on one database: a table made on A is joined, listed and played
    through B, which forwards each request (and relays the socket) to A."""
    a = make_server(pg_url)
    b = make_server(pg_url)
    for srv in (a, b):  # a test server's port is known once it runs: announced again
        srv.app.state.manager.leases.url = srv.url
        srv.app.state.manager.leases.register()
    time.sleep(1.5)  # each has read the other's heartbeat
    made = a.create(seats=THREE)
    table = made["table"]["id"]
    with b.http() as http:
        joined = http.post(f"/api/tables/{table}/join", json={"name": "Bob"})
        assert joined.status_code == 200, joined.text
        assert http.get(f"/api/tables/{table}").json()["seats"][1]["name"] == "Bob"
    assert table in a.app.state.manager.tables and table not in b.app.state.manager.tables
    ada = Client(b.ws_url, table)
    ada.hello(made["token"])
    assert ada.request({"type": "start"})["type"] == "ack"
    acked = _play(ada, 3, set())
    assert len(acked) == 3
    ada.close()
    record = a.app.state.manager.tables[table].actions
    assert len(record) >= 3


def _wait(pred: Callable[[], bool], timeout: float, what: str) -> float:
    started = time.monotonic()
    while not pred():
        assert time.monotonic() - started < timeout, what
        time.sleep(0.05)
    return time.monotonic() - started


def test_kill_9_of_an_instance_its_tables_are_taken_over(postgres: Postgres) -> None:
    """Instance A owns a table played through instance B; A is killed with SIGKILL. B
    takes the table over within seconds, the player reconnects to B and plays on, and
    every acknowledged action is in the record."""
    url = postgres.new_database()
    flags = ("--bot-delay", "0.02", "--bot-grace", "0")
    a = ServerProcess(url, *flags)
    b = ServerProcess(url, *flags)
    try:
        with httpx.Client(base_url=a.url, timeout=10) as http:
            made = http.post(
                "/api/tables",
                json={"rules": "classic", "players": 3, "name": "Ada", "seats": BOTS, "seed": 5},
            ).json()
            table = made["table"]["id"]
        time.sleep(1.5)  # B knows A's heartbeat
        ada = Client(b.ws_url, table)  # through B, to A
        ada.hello(made["token"])
        assert ada.request({"type": "start"})["type"] == "ack"
        proposed: set[int] = set()
        acked = _play(ada, 4, proposed)
        a.kill()
        killed = time.monotonic()
        ada.close()

        def served() -> bool:
            try:
                c = Client(b.ws_url, table)
            except Exception:
                return False
            try:
                welcome = c.hello(made["token"])
                ok = welcome.get("type") == "welcome" and welcome.get("seat") == 0
            except Exception:
                ok = False
            c.close()
            return ok

        _wait(served, 15, "B never took the table over")
        took = time.monotonic() - killed
        print(f"taken over {took:.2f} s after the kill")
        assert took <= 5.0, took
        ada = Client(b.ws_url, table)
        ada.hello(made["token"])
        assert ada.seq >= acked[-1][0]
        acked += _play(ada, 4, proposed)
        ada.close()
        assert_stored(url, table, acked)
    finally:
        if a.proc.poll() is None:
            a.kill()
        b.stop()


def test_a_second_server_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.db'}"
    first = ServerProcess(db)
    try:
        second = subprocess.run(
            [sys.executable, "-m", "bohnanza.web", "--port", "0", "--database-url", db],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode != 0
        assert "another bohnanza server uses" in second.stdout + second.stderr
    finally:
        first.stop()
    # Once the first is gone the file is free again.
    again = ServerProcess(db)
    again.stop()


def test_a_table_moves_to_the_instance_its_players_come_through(
    make_server: Callable[..., ServerThread], pg_url: str, monkeypatch: Any
) -> None:
    """Made on A, played through B (the proxy routes the table there): relaying every
    frame costs both instances CPU, so once every socket of the table comes through B,
    A hands the table off; the page reconnects (1012) and B serves it itself."""
    monkeypatch.setattr("bohnanza.web.tables.HAND_OFF_AFTER", 0.0)
    a = make_server(pg_url)
    b = make_server(pg_url)
    for srv in (a, b):
        srv.app.state.manager.leases.url = srv.url
        srv.app.state.manager.leases.register()
    time.sleep(1.5)
    made = a.create(seats=BOTS)
    table = made["table"]["id"]
    moved = Client(b.ws_url, table)
    with pytest.raises(ConnectionClosed) as closed:
        moved.hello(made["token"])
        moved.recv(10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    ada = Client(b.ws_url, table)
    ada.hello(made["token"])
    assert table in b.app.state.manager.tables and table not in a.app.state.manager.tables
    assert ada.request({"type": "start"})["type"] == "ack"
    assert len(_play(ada, 3, set())) == 3
    ada.close()
    store = Store(pg_url)
    try:
        with store.engine.connect() as conn:
            owner = conn.execute(select(LeaseRow.owner).where(LeaseRow.table_id == table))
            assert owner.scalar() == b.app.state.manager.leases.id
    finally:
        store.close()


# ------------------------------------------------------------------ state across a takeover


def _clock_of(srv: ServerThread, table: str) -> dict[str, Any]:
    """The table's clocks and countdown on ``srv`` (which holds it), as a state says."""
    return clock_view(srv.app.state.manager.tables[table])


def _to_trading(c: Client) -> None:
    """Play this client's phase 1 until its phase 2 (the game waits on nobody's bank)."""
    deadline = time.monotonic() + 20
    while True:
        c.drain(0.05)
        v = c.view
        if v["phase"] == "trade" and v["active"] == c.seat:
            return
        assert time.monotonic() < deadline, "never got to trading"
        kinds = {a["type"] for a in c.legal}
        fields = v["seats"][c.seat]["fields"]
        plants = [a for a in c.legal if a["type"] == "plant"]
        growing = [a for a in plants if fields[a["field"]]]
        if growing:
            choice = growing[0]
        elif "stop_planting" in kinds:
            choice = {"type": "stop_planting"}
        elif plants:
            choice = plants[0]
        else:
            continue
        assert c.act(choice)["type"] == "ack"


def test_clocks_and_the_trading_countdown_go_on_after_a_takeover(
    make_server: Callable[..., ServerThread], pg_url: str
) -> None:
    """A takes Ada's bank down, stops; B takes the table over with her bank as it was
    less the time without a server (not a fresh bank); the phase-2 countdown B starts
    keeps its deadline when C takes over from B."""
    a = make_server(pg_url)
    made = a.create(clock="custom:30,1,20", seats=BOTS, seed=5)
    table, token = made["table"]["id"], made["token"]
    ada = a.client(table, token)
    assert ada.request({"type": "start"})["type"] == "ack"
    started = time.time()
    assert 0 in _clock_of(a, table)["clock"]["running"]  # the game waits on Ada
    time.sleep(2.0)
    ada.close()
    a.stop()
    b = make_server(pg_url)
    time.sleep(1.0)  # nobody runs the table
    ada = b.client(table, token)
    clock = _clock_of(b, table)["clock"]
    assert 0 in clock["running"]
    expected = 30.0 - (time.time() - started)
    assert abs(clock["bank"][0] - expected) < 1.0, (clock, expected)

    _to_trading(ada)  # on B: the countdown starts
    trading = time.time()
    bank = _clock_of(b, table)["clock"]["bank"][0]
    assert _clock_of(b, table)["trade_left"] > 19.0
    time.sleep(1.5)
    ada.close()
    b.stop()
    c = make_server(pg_url)
    time.sleep(1.0)
    ada = c.client(table, token)
    view = _clock_of(c, table)
    expected = 20.0 - (time.time() - trading)
    assert abs(view["trade_left"] - expected) < 1.0, (view, expected)
    assert abs(view["clock"]["bank"][0] - bank) < 0.5, (view, bank)  # no bank runs in phase 2
    ada.close()


def test_a_seat_voted_to_its_stand_in_stays_so_after_a_takeover(
    make_server: Callable[..., ServerThread], pg_url: str
) -> None:
    a = make_server(pg_url, idle_timeout=0.3)
    made = a.create(seats=THREE, seed=3)
    table = made["table"]["id"]
    joined = a.join(table, "Bob")
    ada = a.client(table, made["token"])
    bob = a.client(table, joined["token"])
    ada.request({"type": "start"})
    bob.wait_for(lambda m: m["type"] == "table" and m["table"]["seats"][0]["idle"], timeout=5)
    assert bob.request({"type": "stand_in", "seat": 0})["type"] == "done"
    for c in (ada, bob):
        c.close()
    a.stop()
    b = make_server(pg_url, idle_timeout=0.3)
    with b.http() as http:
        seats = http.get(f"/api/tables/{table}").json()["seats"]
    assert seats[0]["stand_in"] and not seats[1]["stand_in"]
    assert b.app.state.manager.tables[table].seats[0].stand_in


def test_your_games_marks_your_turn_at_a_table_another_instance_owns(
    make_server: Callable[..., ServerThread], pg_url: str
) -> None:
    """Ada's and Bob's table is played on A; their accounts look at "your games" on B,
    which reads whose decision the game waits for from the table's row."""
    fast = AccountLimits(hash_time_cost=1, hash_memory_kib=8192)
    a = make_server(pg_url, accounts=fast)
    b = make_server(pg_url, accounts=fast)
    made = a.create(seats=THREE, seed=3)
    table = made["table"]["id"]
    joined = a.join(table, "Bob")
    ada = a.client(table, made["token"])
    assert ada.request({"type": "start"})["type"] == "ack"  # Ada is to plant
    time.sleep(1.5)  # B has read A's heartbeat: A owns the table
    turns = {}
    for name, token in (("Ada", made["token"]), ("Bob", joined["token"])):
        with b.http() as http:
            reply = http.post("/api/account/register", json={"name": name, "password": "pw pw pw"})
            assert reply.status_code == 200, reply.text
            claim = {"seats": [{"table": table, "token": token}]}
            assert http.post("/api/account/claim", json=claim).json()["claimed"]
            games = http.get("/api/account/games").json()["games"]
            turns[name] = [(g["table"]["id"], g["your_turn"]) for g in games]
    assert table not in b.app.state.manager.tables  # read as stored, not taken over
    assert turns == {"Ada": [(table, True)], "Bob": [(table, False)]}
    ada.close()
