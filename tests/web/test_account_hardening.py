"""The account surface held to the old standard (docs/reliability.md, "Accounts, ratings
and mail"): each finding of the attack on the accounts is a test that failed before its
fix. Real server, real database (SQLite and PostgreSQL), real sockets."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from bohnanza.web.accounts import AccountLimits
from bohnanza.web.limits import Limits

from .conftest import ServerThread
from .test_security import http_from

#: Cheap hashes where the cost does not matter (production: argon2's default profile).
FAST = {"hash_time_cost": 1, "hash_memory_kib": 8192}
OPEN = {"create_per_minute": 0, "open_tables_per_address": 0, "ws_per_address": 0}


def _table(name: str = "Joan") -> dict[str, Any]:
    return {
        "rules": "classic",
        "players": 3,
        "name": name,
        "seats": [{"kind": "person"}, {"kind": "bot", "bot": "autarky"}, {"kind": "bot"}],
    }


def _rows(db_url: str, table: str) -> int:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


def _expiring(make: Callable[..., ServerThread], url: str, max_tables: int) -> ServerThread:
    """A server whose idle lobby tables expire within a second."""
    limits = Limits(**OPEN, lobby_expiry=0.6)
    return make(url, max_tables=max_tables, accounts=AccountLimits(**FAST), limits=limits)


def _wait_gone(http: httpx.Client, tables: list[str], timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while any(http.get(f"/api/tables/{t}").status_code != 404 for t in tables):
        assert time.monotonic() < deadline, "an idle lobby table never expired"
        time.sleep(0.1)


# ------------------------------------------------------------------ High 1


def test_a_logged_in_players_idle_lobby_tables_expire_and_free_the_server(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    """The lobby clean-up deleted the table but not the account's claim on its seat, the
    foreign key refused, and the table counted against ``--max-tables`` for ever: a
    logged-in player's own tables filled the server for everybody, across restarts."""
    server = _expiring(make_server, db_url, max_tables=3)
    with server.http() as joan:
        assert joan.post("/api/account/register", json={"name": "Joan", "password": "pw pw pw"})
        made = [joan.post("/api/tables", json=_table()) for _ in range(3)]
        assert [r.status_code for r in made] == [200, 200, 200]
        ids = [r.json()["table"]["id"] for r in made]
        claimed = {g["table"]["id"] for g in joan.get("/api/account/games").json()["games"]}
        assert claimed == set(ids)  # the seats are the account's: the case that stuck
        assert joan.post("/api/tables", json=_table()).json()["code"] == "too_many_tables"
        _wait_gone(joan, ids)
        assert joan.get("/api/account/games").json()["games"] == []
    with http_from(server, "127.0.0.2") as stranger:
        assert stranger.post("/api/tables", json=_table("Kim")).status_code == 200
    assert _rows(db_url, "bohnanza_seat_accounts") == 0


def test_tables_stuck_by_the_old_clean_up_expire_after_a_restart(
    make_server: Callable[..., ServerThread], sqlite_url: str
) -> None:
    """What the old clean-up left behind (lobby tables whose seats an account claimed,
    still in the database) is loaded again at the start and expires like any other."""
    first = make_server(sqlite_url, accounts=AccountLimits(**FAST))  # lobby tables kept
    with first.http() as joan:
        joan.post("/api/account/register", json={"name": "Joan", "password": "pw pw pw"})
        ids = [joan.post("/api/tables", json=_table()).json()["table"]["id"] for _ in range(2)]
    first.stop()
    assert _rows(sqlite_url, "bohnanza_seat_accounts") == 2
    again = _expiring(make_server, sqlite_url, max_tables=2)
    with again.http() as http:
        _wait_gone(http, ids)
        assert http.post("/api/tables", json=_table("Kim")).status_code == 200
    assert _rows(sqlite_url, "bohnanza_seat_accounts") == 0


# ------------------------------------------------------------------ High 2


def test_a_burst_of_wrong_passwords_does_not_delay_a_players_moves(
    make_server: Callable[..., ServerThread],
) -> None:
    """Argon2 ran in the thread pool that commits every move: 30 wrong-password logins
    delayed a seated player's acknowledgement by 5-7 s. Now password checks have their
    own threads and a bounded queue (429 past it), so the move is acknowledged at once."""
    server = make_server(
        accounts=AccountLimits(login_per_minute=0, failures_per_name=0, password_queue=4)
    )
    with server.http() as http:
        assert http.post("/api/account/register", json={"name": "Vic", "password": "pw pw pw"})
    made = server.create()  # Ada and two autarky bots
    player = server.client(made["table"]["id"], made["token"])
    player.request({"type": "start"})
    player.wait_for(lambda m: m.get("type") == "state" and bool(m.get("legal")))
    answers: list[int] = []

    def guess() -> None:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            r = c.post("/api/account/login", json={"name": "Vic", "password": "wrong"})
            answers.append(r.status_code)

    burst = [threading.Thread(target=guess) for _ in range(40)]
    for t in burst:
        t.start()
    time.sleep(0.3)  # the burst is queued
    waits = []
    for _ in range(3):  # plant, plant (or stop), and the like: each one commit
        legal = [a for a in player.legal if a["type"] != "propose"]
        started = time.monotonic()
        answer = player.act(legal[0])
        waits.append(time.monotonic() - started)
        assert answer["type"] == "ack", answer
        player.wait_for(lambda m: m.get("type") == "state")
        if not player.legal:
            break
    for t in burst:
        t.join(60)
    assert max(waits) < 1.5, f"moves waited {waits} behind password checks"
    assert set(answers) <= {401, 429} and answers.count(429) > 0, answers
    with server.http() as http:  # and the owner still gets in once the burst is over
        r = http.post("/api/account/login", json={"name": "Vic", "password": "pw pw pw"})
        assert r.status_code == 200


# ------------------------------------------------------------------ lock-out


def test_a_stranger_cannot_lock_the_owner_out(make_server: Callable[..., ServerThread]) -> None:
    """Five failed logins for a name locked it for 15 minutes from every address, so
    anybody could keep a player out of their account. Failures count per (address, name)
    now: the stranger's address is stopped, the owner elsewhere gets in."""
    server = make_server(accounts=AccountLimits(**FAST, login_per_minute=0, failures_per_name=3))
    with server.http() as owner:
        assert owner.post("/api/account/register", json={"name": "Ines", "password": "pw pw pw"})
    with http_from(server, "127.0.0.9") as stranger:
        codes = [
            stranger.post("/api/account/login", json={"name": "ines", "password": f"x{i}"})
            for i in range(4)
        ]
        assert [r.status_code for r in codes] == [401, 401, 401, 429]
        # the right password from the stranger's address waits too (no oracle)
        r = stranger.post("/api/account/login", json={"name": "Ines", "password": "pw pw pw"})
        assert r.status_code == 429
    with http_from(server, "127.0.0.1") as owner:
        r = owner.post("/api/account/login", json={"name": "Ines", "password": "pw pw pw"})
        assert r.status_code == 200, r.text


def test_guessing_spread_over_addresses_is_slowed_for_the_name(
    make_server: Callable[..., ServerThread],
) -> None:
    limits = AccountLimits(
        **FAST, login_per_minute=0, failures_per_name=5, failures_per_name_total=4
    )
    server = make_server(accounts=limits)
    with server.http() as owner:
        assert owner.post("/api/account/register", json={"name": "Lena", "password": "pw pw pw"})
    codes = []
    for i in range(5):
        with http_from(server, f"127.0.1.{i + 1}") as c:
            r = c.post("/api/account/login", json={"name": "Lena", "password": "wrong"})
            codes.append(r.status_code)
    assert codes == [401, 401, 401, 401, 429]


# ------------------------------------------------------------------ Medium 4


def test_a_seat_moved_to_another_device_stays_its_accounts_and_is_rated(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    """ "Continue on another device" gave the seat a new token but left the account's
    claim on the old one, so the claim was void at the end: a losing player could move
    the seat and the rated game rated nobody. The claim now follows the move."""
    server = make_server(db_url, accounts=AccountLimits(**FAST))
    with server.http() as rita:
        assert rita.post("/api/account/register", json={"name": "Rita", "password": "pw pw pw"})
        body = {**_table("Rita"), "rated": "bots", "seed": 3}
        body["seats"] = [{"kind": "person"}] + [{"kind": "bot", "bot": "autarky"}] * 2
        made = rita.post("/api/tables", json=body).json()
        table = made["table"]["id"]
        first = server.client(table, made["token"])
        first.request({"type": "start"})
        moved = first.request({"type": "move"})
        assert moved["type"] == "move" and moved["token"]
        phone = server.client(table, moved["token"])
        assert phone.seat == 0
        games = rita.get("/api/account/games").json()["games"]
        assert [g["table"]["id"] for g in games] == [table]  # still hers after the move
        phone.request({"type": "leave"})  # resigned: the stand-in plays on, she is rated
        phone.close()
        first.close()
        deadline = time.monotonic() + 60
        while rita.get(f"/api/tables/{table}").json()["status"] != "over":
            assert time.monotonic() < deadline, "the game did not end"
            time.sleep(0.2)
        board = rita.get("/api/ratings/classic").json()["players"]
        assert [p["name"] for p in board] == ["Rita"] and board[0]["games"] == 1


# ------------------------------------------------------------------ Low 12


def test_one_address_cannot_evict_anothers_hand_over_code() -> None:
    """The server kept 10,000 hand-over codes and dropped the oldest when full: one
    address issuing codes pushed out another player's pending one. Now an address has
    a share (its own oldest code goes), and a full server refuses new codes instead."""
    from bohnanza.web.handover import Handovers, HandoversFull

    codes = Handovers(max_codes=50, per_address=20)
    mine = codes.issue("T1", "bob-token", "10.0.0.2", now=0.0)
    for i in range(200):  # one address, many seats' tokens
        codes.issue(f"T{i}", f"token-{i}", "10.0.0.66", now=1.0)
    assert len(codes.by_address["10.0.0.66"]) == 20
    others = [codes.issue("T2", f"t{i}", f"10.1.{i}.1", now=2.0) for i in range(29)]
    try:
        codes.issue("T3", "late", "10.9.9.9", now=3.0)
        raise AssertionError("a full server issued a code")
    except HandoversFull:
        pass
    assert codes.claim("T1", mine, now=4.0) == "bob-token"  # still there
    assert codes.claim("T2", others[0], now=4.0) == "t0"
    assert codes.claim("T1", mine, now=4.0) is None  # once


# ------------------------------------------------------------------ Low 10


def test_the_scriptless_form_refuses_other_sites_and_keeps_the_token_out_of_history(
    make_server: Callable[..., ServerThread],
) -> None:
    """``POST /new`` had no Origin check (a form on another site created a table claimed
    for the visitor's account) and sent the browser to ``#seat=TOKEN`` (kept in its
    history). It is refused from other sites now, and sends a one-time code."""
    server = make_server(accounts=AccountLimits(**FAST))
    form = {"name": "Ada", "players": "3", "rules": "classic"}
    with server.http() as http:
        assert http.post("/api/account/register", json={"name": "Ada", "password": "pw pw pw"})
        for headers in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
            r = http.post("/new", data=form, headers=headers)
            assert r.status_code == 403 and r.json()["code"] == "bad_origin", r.text
        assert http.get("/api/account/games").json()["games"] == []
        assert not server.app.state.manager.tables
        ok = http.post("/new", data=form, headers={"Origin": server.url})
        assert ok.status_code == 303 and "#claim=" in ok.headers["location"]
        assert "#seat=" not in ok.headers["location"]
        assert len(http.get("/api/account/games").json()["games"]) == 1


# ------------------------------------------------------------------ Low 11


def test_passkey_registrations_are_counted_as_they_start(
    make_server: Callable[..., ServerThread],
) -> None:
    """A passkey registration was counted when it finished: 30 ceremonies started at once
    all passed the per-address check and made 29 accounts. Counted at the start, only
    ``register_per_hour`` ceremonies for new accounts begin from one address."""
    server = make_server(accounts=AccountLimits(**FAST, register_per_hour=5))
    codes = []
    with server.http() as http:
        for i in range(30):
            r = http.post(
                "/api/account/passkey/register/start",
                json={"name": f"Pia {chr(ord('a') + i % 26)}{i // 26}x"},
                headers={"Origin": server.url},
            )
            codes.append(r.status_code)
    assert codes.count(200) == 5 and codes.count(429) == 25, codes
