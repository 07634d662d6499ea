"""Accounts (web/accounts.py, web/account_routes.py) over real HTTP and WebSockets:
registration, login, sessions in an HttpOnly cookie, logout everywhere, names that
cannot impersonate each other, rate limits (429), bad input that changes nothing,
seats claimed by an account and opened from another device."""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza.web.accounts import (
    NAME_MAX,
    NAME_MIN,
    SEPARATORS,
    AccountError,
    AccountLimits,
    check_name,
    hash_session,
    name_key,
)

from .conftest import ServerThread

#: Cheap hashes for tests (the cost is a setting; production uses argon2's default).
FAST = {"hash_time_cost": 1, "hash_memory_kib": 8192}


def _server(make_server: Callable[..., ServerThread], **limits: Any) -> ServerThread:
    return make_server(accounts=AccountLimits(**{**FAST, **limits}))


def _register(c: httpx.Client, name: str, password: str = "correct horse") -> httpx.Response:
    return c.post("/api/account/register", json={"name": name, "password": password})


def _login(c: httpx.Client, name: str, password: str = "correct horse") -> httpx.Response:
    return c.post("/api/account/login", json={"name": name, "password": password})


def _me(c: httpx.Client) -> Any:
    return c.get("/api/account").json()["account"]


# ---------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Ad", "3 to 24"),
        ("A" * 25, "3 to 24"),
        ("\u202eAda", "control, format"),  # a right-to-left override
        ("Ad\u200ba", "control, format"),  # a zero-width space
        ("Ada\x07", "control, format"),
        ("\u3164\u3164\u3164", "invisible"),  # Hangul fillers: letters that draw nothing
        ("Ada\u2800", "invisible"),  # the blank Braille pattern
        ("\u0410da", "one alphabet"),  # Cyrillic А followed by Latin "da"
        ("Ada\u0663", "0-9"),  # an Arabic-Indic digit three
        ("Ada  B", "one at a time"),
        (" Ada", "between letters"),
        ("Ada.", "end with a separator"),
        ("123", "at least one letter"),
        ("Ada<b>", "letters, digits"),
        ("\u0301Ada", "accents belong on letters"),
    ],
)
def test_names_that_could_deceive_are_refused_with_the_reason(name: str, why: str) -> None:
    with pytest.raises(AccountError) as caught:
        check_name(name)
    assert why in caught.value.message and caught.value.code == "bad_name"


def test_look_alike_names_share_a_key() -> None:
    base = name_key("Ada Lovelace")
    for other in ("ada lovelace", "ADA_LOVELACE", "Adá Lovelace", "ada.l0velace", "AdaLoveIace"):
        assert name_key(other) == base, other
    assert name_key("Ada Lovelace") != name_key("Ada Lovelacf")
    assert name_key("modern") == name_key("rnodern")
    # Compatibility forms fold too: fullwidth letters are the ASCII ones.
    assert check_name("Ａｄａ")[0] == "Ada"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_an_accepted_name_is_clean_and_its_key_is_stable(raw: str) -> None:
    try:
        name, key = check_name(raw)
    except AccountError:
        return
    assert NAME_MIN <= len(name) <= NAME_MAX
    assert name == unicodedata.normalize("NFKC", name)
    assert not any(unicodedata.category(ch)[0] == "C" for ch in name)
    assert name[0] not in SEPARATORS and name[-1] not in SEPARATORS
    # The key does not change with case or a second normalisation.
    assert name_key(name.upper()) == key or name.upper() != name.upper().lower().upper()
    assert check_name(name)[1] == key


# ---------------------------------------------------------------- HTTP


def test_register_login_logout_with_an_httponly_samesite_cookie(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = _server(make_server)
    with srv.http() as c:
        assert _me(c) is None  # a guest
        r = _register(c, "Ada Lovelace")
        assert r.status_code == 200, r.text
        cookie = r.headers["set-cookie"].lower()
        assert "bohnanza_session=" in cookie and "httponly" in cookie
        assert "samesite=lax" in cookie and "secure" not in cookie  # plain http here
        assert _me(c)["name"] == "Ada Lovelace"
        assert c.post("/api/account/logout").status_code == 200
        assert _me(c) is None
        assert _login(c, "ADA lovelace").status_code == 200  # any case, same account
        assert _me(c)["name"] == "Ada Lovelace"
    with srv.http() as c:
        bad = _login(c, "Ada Lovelace", "wrong password")
        missing = _login(c, "Nobody Here", "wrong password")
        # The same answer whether or not the name exists.
        assert bad.status_code == missing.status_code == 401
        assert (
            bad.json()
            == missing.json()
            == {
                "error": "wrong name or password",
                "code": "bad_login",
            }
        )
        assert "set-cookie" not in bad.headers and _me(c) is None


def test_names_are_unique_up_to_case_accents_and_look_alikes(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = _server(make_server)
    with srv.http() as c:
        assert _register(c, "Olga").status_code == 200
    for clash in ("olga", "OLGA", "Ólga", "0lga", "O.lga"):
        with srv.http() as c:
            r = _register(c, clash)
            assert r.status_code == 409 and r.json()["code"] == "name_taken", clash
            assert _me(c) is None
    with srv.http() as c:
        r = _register(c, "\u041ea\u0433a")  # Cyrillic О, Latin a, Cyrillic г, Latin a
        assert r.status_code == 400 and "one alphabet" in r.json()["error"]
        # Nothing was made by the refused requests: none of them can log in.
        for name in ("olga", "Ólga", "\u041ea\u0433a"):
            assert _login(c, name).status_code in (200, 401)
        assert _login(c, "Ólga").json()["account"]["name"] == "Olga"


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"name": "Ada"}, 400),  # no password
        ({"name": "Ada", "password": "x" * 300}, 400),  # too long
        ({"name": "Ada", "password": "short"}, 400),  # too short
        ({"name": "Ada", "password": "correct horse", "admin": True}, 400),  # extra field
        ({"name": ["Ada"], "password": "correct horse"}, 400),
        ({"name": "A" * 101, "password": "correct horse"}, 400),
        ({"name": "Ada Lovelace", "password": "ada_lovelace"}, 400),  # the name itself
    ],
)
def test_malformed_registrations_are_refused_and_change_nothing(
    make_server: Callable[..., ServerThread], body: dict[str, Any], status: int
) -> None:
    srv = _server(make_server)
    with srv.http() as c:
        r = c.post("/api/account/register", json=body)
        assert r.status_code == status and r.json()["error"]
        assert "set-cookie" not in r.headers
        # The name is still free: nothing was stored.
        assert _register(c, "Ada Lovelace", "a good password").status_code == 200


def test_not_json_and_a_foreign_origin_are_refused(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = _server(make_server)
    with srv.http() as c:
        r = c.post(
            "/api/account/register",
            content=b"name=Ada&password=x",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert r.status_code == 400
        r = c.post(
            "/api/account/register",
            json={"name": "Mallory", "password": "correct horse"},
            headers={"Origin": "http://evil.example"},
        )
        assert r.status_code == 403 and r.json()["code"] == "bad_origin"
        assert _register(c, "Mallory").status_code == 200  # it was not registered


def test_registration_flood_gets_429_and_registers_nothing_more(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = _server(make_server, register_per_hour=2)
    with srv.http() as c:
        assert _register(c, "First").status_code == 200
        assert _register(c, "Second").status_code == 200
        r = _register(c, "Third")
        assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
        assert _login(c, "Third").status_code == 401  # not made
    # A refused name (bad) does not use up the budget either way: it is refused first.


def test_login_flood_per_address_and_guessing_per_name_get_429(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = _server(make_server, login_per_minute=4, failures_per_name=100)
    with srv.http() as c:
        assert _register(c, "Grace").status_code == 200
        codes = [_login(c, "Grace", f"guess {i}").status_code for i in range(5)]
        assert codes == [401, 401, 401, 401, 429]
    # A second server on the same database: its limits start afresh (they live in memory).
    srv2 = _server(make_server, login_per_minute=0, failures_per_name=3)
    with srv2.http() as c:
        assert _register(c, "Barbara").status_code == 200
        for i in range(3):
            assert _login(c, "Barbara", f"guess {i}").status_code == 401
        # The name is locked for a while, even with the right password (and for any case
        # of it); other names are not.
        locked = _login(c, "barbara")
        assert locked.status_code == 429 and int(locked.headers["Retry-After"]) > 0
        assert _register(c, "Hopper").status_code == 200
        assert _login(c, "Hopper").status_code == 200


def test_an_unknown_name_costs_a_password_check_too(
    make_server: Callable[..., ServerThread],
) -> None:
    """Constant-time in the sense that matters: a login for a name that does not exist
    runs the same Argon2 verification as one for a name that does. A cost of 32 MiB: a
    hash (~30 ms) well above an HTTP round trip (a few ms), cheaper than production's."""
    srv = make_server(
        accounts=AccountLimits(
            login_per_minute=0, failures_per_name=0, hash_time_cost=1, hash_memory_kib=32768
        )
    )
    with srv.http() as c:
        assert _register(c, "Timing Test").status_code == 200

        def took(name: str) -> float:
            start = time.perf_counter()
            assert _login(c, name, "not the password").status_code == 401
            return time.perf_counter() - start

        took("Nobody")  # the decoy hash is made at the first login
        # The fastest of several: a busy machine only ever adds time, never takes it.
        known = min(took("Timing Test") for _ in range(7))
        unknown = min(took("Nobody") for _ in range(7))
    # Without the decoy an unknown name would answer in a few milliseconds, a tenth of this.
    assert unknown > 0.5 * known, (known, unknown)


def test_logout_everywhere_ends_every_session(make_server: Callable[..., ServerThread]) -> None:
    srv = _server(make_server)
    with srv.http() as phone, srv.http() as laptop, srv.http() as stolen:
        assert _register(phone, "Linus").status_code == 200
        assert _login(laptop, "Linus").status_code == 200
        # A cookie copied to another client works until logout everywhere (docs/web.md).
        stolen.cookies.set("bohnanza_session", laptop.cookies["bohnanza_session"])
        assert _me(stolen)["name"] == "Linus"
        r = laptop.post("/api/account/logout-everywhere")
        assert r.status_code == 200 and r.json()["sessions_ended"] == 2
        assert _me(phone) is None and _me(laptop) is None and _me(stolen) is None
        assert phone.post("/api/account/logout-everywhere").status_code == 401


# ---------------------------------------------------------------- seats


def test_a_guest_seat_claimed_by_its_account_opens_on_another_device(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = _server(make_server)
    made = srv.create(seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}])
    table, token = made["table"]["id"], made["token"]
    other = srv.create()  # a table whose token this browser does not hold
    with srv.http() as first:
        assert _register(first, "Ada").status_code == 200
        r = first.post(
            "/api/account/claim",
            json={
                "seats": [
                    {"table": table, "token": token},
                    {"table": other["table"]["id"], "token": "not-its-token"},
                    {"table": "nosuchtable", "token": token},
                ]
            },
        )
        assert r.status_code == 200, r.text
        assert r.json() == {
            "claimed": [{"table": table, "seat": 0}],
            "refused": [other["table"]["id"], "nosuchtable"],
        }
        games = first.get("/api/account/games").json()["games"]
        assert [(g["table"]["id"], g["seat"], g["your_turn"]) for g in games] == [(table, 0, False)]
    old = srv.client(table, token)
    with srv.http() as second:
        assert _login(second, "Ada").status_code == 200
        r = second.post("/api/account/seat", json={"table": table})
        assert r.status_code == 200, r.text
        moved_token = r.json()["token"]
        # Somebody else's account holds no seat here.
        assert _register(second, "Eve").status_code == 200
        r = second.post("/api/account/seat", json={"table": table})
        assert r.status_code == 403 and r.json()["code"] == "not_your_seat"
    new = srv.client(table, hello=False)
    welcome = new.hello(moved_token)
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    old.wait_for(lambda m: m["type"] == "moved")
    # The first device's token is void now; the account still finds its seat.
    with srv.http() as third:
        assert _login(third, "Ada").status_code == 200
        games = third.get("/api/account/games").json()["games"]
        assert [g["table"]["id"] for g in games] == [table]
        assert third.post(
            "/api/account/claim", json={"seats": [{"table": table, "token": token}]}
        ).json()["refused"] == [table]
    old.close()
    new.close()


def test_claims_need_a_session_and_a_bounded_body(make_server: Callable[..., ServerThread]) -> None:
    srv = _server(make_server)
    made = srv.create()
    with srv.http() as c:
        body = {"seats": [{"table": made["table"]["id"], "token": made["token"]}]}
        r = c.post("/api/account/claim", json=body)
        assert r.status_code == 401 and r.json()["code"] == "not_logged_in"
        assert c.get("/api/account/games").status_code == 401
        assert _register(c, "Ada").status_code == 200
        many = {"seats": [{"table": "t", "token": "x"}] * 26}
        assert c.post("/api/account/claim", json=many).status_code == 400
        assert c.get("/api/account/games").json()["games"] == []


def test_seats_taken_while_logged_in_are_the_accounts_at_once(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = _server(make_server)
    theirs = srv.create(seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}])
    with srv.http() as c:
        assert _register(c, "Joan").status_code == 200
        body = {
            "rules": "classic",
            "players": 3,
            "name": "Joan",
            "seats": [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}],
        }
        mine = c.post("/api/tables", json=body).json()["table"]["id"]
        joined = c.post(f"/api/tables/{theirs['table']['id']}/join", json={"name": "Joan"})
        assert joined.status_code == 200
        form = c.post(
            "/new",
            content=b"name=Joan&rules=classic&players=3",
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert form.status_code == 303  # the scriptless form: its seat is hers too
        scripted = form.headers["location"].split("/t/", 1)[1].split("#", 1)[0]
        listed = {g["table"]["id"]: g["seat"] for g in c.get("/api/account/games").json()["games"]}
        assert listed == {mine: 0, theirs["table"]["id"]: 1, scripted: 0}
    with srv.http() as guest:  # a guest's seats are nobody's
        guest.post("/api/tables", json=body)
        assert guest.get("/api/account/games").status_code == 401


def test_an_unused_session_expires_and_a_used_one_is_kept_alive(sqlite_url: str) -> None:
    from sqlalchemy import select, update

    from bohnanza.web.accounts import SESSION_TTL, Accounts, AccountSessionRow
    from bohnanza.web.store import Store

    store = Store(sqlite_url)
    try:
        accounts = Accounts(store, AccountLimits(**FAST))
        _, token = accounts.register("Kept", "correct horse", "a")
        _, stale = accounts.login("Kept", "correct horse", "a")
        with store.engine.begin() as conn:
            conn.execute(update(AccountSessionRow).values(seen=AccountSessionRow.seen - 7200))
            conn.execute(
                update(AccountSessionRow)
                .where(AccountSessionRow.token_hash == hash_session(stale))
                .values(seen=AccountSessionRow.seen - SESSION_TTL)
            )
        assert accounts.session_account(stale) is None  # expired, and deleted
        kept = accounts.session_account(token)
        assert kept is not None and kept.name == "Kept"
        with store.engine.connect() as conn:
            seen = conn.execute(select(AccountSessionRow.seen)).scalars().all()
        assert len(seen) == 1 and seen[0] > time.time() - 60  # its last use was written
    finally:
        store.close()


def test_malformed_passkey_requests_are_refused_and_change_nothing(
    make_server: Callable[..., ServerThread],
) -> None:
    srv = _server(make_server)
    with srv.http() as c:
        assert _register(c, "Taken").status_code == 200
        c.post("/api/account/logout")
        r = c.post("/api/account/passkey/register/start", json={"name": "taken"})
        assert r.status_code == 409 and r.json()["code"] == "name_taken"
        r = c.post("/api/account/passkey/register/start", json={"name": "\u202eEvil"})
        assert r.status_code == 400 and r.json()["code"] == "bad_name"
        start = c.post("/api/account/passkey/register/start", json={"name": "Newcomer"})
        assert start.status_code == 200
        flow = start.json()["flow"]
        assert '"challenge"' in start.json()["options"]
        bad = {"id": "abc", "rawId": "abc", "type": "public-key", "response": {}}
        r = c.post("/api/account/passkey/register/finish", json={"flow": flow, "credential": bad})
        assert r.status_code == 400 and r.json()["code"] == "bad_passkey"
        # The flow is spent, and no account was made.
        r = c.post("/api/account/passkey/register/finish", json={"flow": flow, "credential": bad})
        assert r.status_code == 400 and r.json()["code"] == "bad_flow"
        assert c.get("/api/players/Newcomer").status_code == 404
        login = c.post("/api/account/passkey/login/start").json()
        r = c.post(
            "/api/account/passkey/login/finish",
            json={"flow": login["flow"], "credential": {"id": "unknown", "response": {}}},
        )
        assert r.status_code == 401 and r.json()["code"] == "bad_login" and _me(c) is None
        huge = {"flow": "x", "credential": {"id": "a" * 20000}}
        assert c.post("/api/account/passkey/login/finish", json=huge).status_code == 413
        foreign = c.post(
            "/api/account/passkey/login/start", headers={"Origin": "http://evil.example"}
        )
        assert foreign.status_code == 403


def test_accounts_on_both_databases(make_server: Callable[..., ServerThread], db_url: str) -> None:
    """The same account flow on SQLite and PostgreSQL: unique keys, sessions, claims."""
    srv = make_server(db_url, accounts=AccountLimits(**FAST))
    made = srv.create()
    with srv.http() as a, srv.http() as b:
        assert _register(a, "Dana").status_code == 200
        assert _register(b, "DANA").status_code == 409
        assert _login(b, "dana").status_code == 200
        claim = {"seats": [{"table": made["table"]["id"], "token": made["token"]}]}
        assert a.post("/api/account/claim", json=claim).json()["claimed"]
        assert [g["seat"] for g in b.get("/api/account/games").json()["games"]] == [0]
        assert a.post("/api/account/logout-everywhere").json()["sessions_ended"] == 2
        assert _me(a) is None and _me(b) is None
