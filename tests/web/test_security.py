"""Attacks on a real server on loopback (issue 11): each one must fail.

Guessing the deck from one's own cards, flooding the lobby, sockets that never say hello,
slow headers, seats that never connect, chat floods and spoofed text, finished games
that stay in memory, foreign Host names and framing, passwords in the output.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from websockets.exceptions import ConnectionClosed, InvalidStatus

from bohnanza.web.command import serve
from bohnanza.web.limits import Limits, clean_text, hide_password, mask_url
from bohnanza.web.serving import ServerLimits
from bohnanza.web.tables import Settings

from .client import Client
from .conftest import GuardedServer, ServerThread, settings_for, wait_for_player, wait_until

OPEN = {"create_per_minute": 0, "open_tables_per_address": 0, "ws_per_address": 0}


def limits(**values: Any) -> Limits:
    return Limits(**{**OPEN, **values})


def two_seats(server: ServerThread) -> dict[str, Any]:
    return server.create(players=3, seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}])


def http_from(server: ServerThread, address: str) -> httpx.Client:
    """An HTTP client whose connections come from ``address`` (127.0.0.x: loopback)."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.url, timeout=10, transport=transport)


def closed_code(c: Client, timeout: float = 5) -> int | None:
    with pytest.raises(ConnectionClosed) as info:
        while True:
            c.recv(timeout)
    return info.value.rcvd.code if info.value.rcvd is not None else None


# ------------------------------------------------------------------ unpredictable deals


def test_server_seed_has_128_bits_and_no_client_sees_it(server: ServerThread) -> None:
    """A player's own cards cannot single out the seed: it has 128 random bits, and no
    message, page or API answer carries it before the game is over."""
    seeds = []
    for _ in range(3):
        made = two_seats(server)
        table = made["table"]["id"]
        joined = server.join(table)
        a = server.client(table, made["token"])
        b = server.client(table, joined["token"])
        watcher = server.client(table)
        a.request({"type": "start"})
        b.wait_for(lambda m: m["type"] == "state")
        a.send({"type": "chat", "text": "hi"})
        watcher.wait_for(lambda m: m["type"] == "chat")
        seed = server.app.state.manager.tables[table].game.seed
        seeds.append(seed)
        seen = json.dumps([a.messages, b.messages, watcher.messages])
        with server.http() as http:
            seen += http.get("/api/tables").text + http.get(f"/api/tables/{table}").text
            assert http.get(f"/api/tables/{table}/record").status_code == 403
            assert http.get(f"/api/tables/{table}/replay").status_code == 403
        assert str(seed) not in seen and format(seed, "x") not in seen
        for c in (a, b, watcher):
            c.close()
    assert all(0 <= s < 2**128 for s in seeds) and len(set(seeds)) == 3
    # 128 random bits: three of them all below 2**100 has odds of 2**-84.
    assert max(s.bit_length() for s in seeds) > 100


# ------------------------------------------------------------------ the lobby


def test_table_creation_is_limited_per_address(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(limits=limits(create_per_minute=3))
    with http_from(server, "127.0.0.1") as one:
        for _ in range(3):
            assert one.post("/api/tables", json=body()).status_code == 200
        refused = one.post("/api/tables", json=body())
        assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
        assert 0 < int(refused.headers["retry-after"]) <= 60
        # A spoofed X-Forwarded-For does not help without --trust-proxy.
        spoof = one.post("/api/tables", json=body(), headers={"X-Forwarded-For": "10.1.2.3"})
        assert spoof.status_code == 429
    with http_from(server, "127.0.0.2") as other:
        assert other.post("/api/tables", json=body()).status_code == 200
    live = [t for t in server.app.state.manager.tables.values() if t.status == "lobby"]
    assert len(live) == 4  # the refused ones changed nothing


def test_trust_proxy_and_open_tables_per_address(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(limits=limits(open_tables_per_address=2, trust_proxy=True))

    def create(address: str) -> httpx.Response:
        with server.http() as http:
            # The proxy appends the address it saw: earlier entries are the client's say.
            headers = {"X-Forwarded-For": f"6.6.6.6, {address}"}
            return http.post("/api/tables", json=body(), headers=headers)

    assert create("10.0.0.1").status_code == 200
    assert create("10.0.0.1").status_code == 200
    assert create("10.0.0.1").status_code == 429
    assert create("10.0.0.2").status_code == 200


def test_idle_lobby_table_expires_but_not_while_somebody_is_there(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    server = make_server(db_url, limits=limits(lobby_expiry=0.6))
    idle = server.create()["table"]["id"]
    watched = server.create()
    c = server.client(watched["table"]["id"], watched["token"])
    deadline = time.monotonic() + 10
    with server.http() as http:
        while http.get(f"/api/tables/{idle}").status_code != 404:
            assert time.monotonic() < deadline, "an idle lobby table did not expire"
            time.sleep(0.1)
        time.sleep(1.0)
        assert http.get(f"/api/tables/{watched['table']['id']}").status_code == 200
    assert c.request({"type": "ping"})["type"] == "pong"
    c.close()


# ------------------------------------------------------------------ sockets


def test_idle_socket_is_closed_and_players_get_in_past_idle_ones(
    make_server: Callable[..., ServerThread],
) -> None:
    """Sockets that never say hello are closed at the deadline and never fill a table:
    a seated player always gets in, spectators up to the cap."""
    server = make_server(max_connections=2, limits=limits(hello_timeout=1.5))
    made = server.create()
    table = made["table"]["id"]
    idle = [Client(server.ws_url, table) for _ in range(6)]
    watchers = [server.client(table) for _ in range(2)]
    extra = Client(server.ws_url, table)
    extra.send({"type": "hello"})
    assert extra.recv()["code"] == "too_many_connections"
    assert closed_code(extra) == 1013
    player = server.client(table, made["token"])
    assert player.seat == 0 and player.messages[-1]["type"] == "welcome"
    started = time.monotonic()
    for c in idle:
        assert closed_code(c) == 4408
    assert time.monotonic() - started < 4
    for c in [*watchers, player]:
        assert c.request({"type": "ping"})["type"] == "pong"
        c.close()


def test_websockets_are_limited_per_address(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(limits=limits(ws_per_address=3))
    table = server.create()["table"]["id"]
    held = [server.client(table) for _ in range(3)]
    extra = Client(server.ws_url, table)
    assert extra.recv()["code"] == "rate_limited"
    assert closed_code(extra) == 1013
    held.pop().close()
    deadline = time.monotonic() + 5
    while True:  # the freed place is given again
        again = Client(server.ws_url, table)
        try:
            assert again.hello()["type"] == "welcome"
            break
        except ConnectionClosed:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    for c in [*held, again]:
        c.close()


def test_slow_headers_and_silent_connections_are_cut_off(sqlite_url: str) -> None:
    srv = GuardedServer(
        # One address may hold any number of connections here (per_address=0): this is
        # about the server-wide cap (test_hardening.py has the per-address one).
        settings_for(sqlite_url),
        ServerLimits(header_timeout=0.8, max_concurrency=16, per_address=0),
    ).start()
    try:
        silent = socket.create_connection(("127.0.0.1", srv.port))
        slow = socket.create_connection(("127.0.0.1", srv.port))
        slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        for s in (silent, slow):
            s.settimeout(5)
            assert s.recv(100) == b""  # closed by the server
            s.close()
        assert time.monotonic() - started < 3
        with srv.http() as http:  # a whole request is answered, and so are WebSockets
            assert http.get("/healthz").status_code == 200
        # A crowd of silent connections past the concurrency cap: the server answers
        # the excess with 503 (it keeps a descriptor to do so), and is free again once
        # the header deadline has closed them.
        crowd = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(20)]
        time.sleep(0.1)
        with srv.http() as http:
            assert http.get("/healthz").status_code == 503
            time.sleep(1.0)
            assert http.get("/healthz").status_code == 200
        for s in crowd:
            s.close()
        table = srv.create()["table"]["id"]
        c = srv.client(table)
        time.sleep(1.2)  # past the header deadline: the WebSocket is not cut
        assert c.request({"type": "ping"})["type"] == "pong"
        c.close()
    finally:
        srv.stop()


# ------------------------------------------------------------------ every seat moves


def test_a_seat_taken_but_never_connected_is_played_by_a_bot(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(away_timeout=0.5)
    made = two_seats(server)
    table = made["table"]["id"]
    server.join(table, "Ghost")  # seat 1, never connected
    a = server.client(table, made["token"])
    a.request({"type": "start"})
    a.wait_for(lambda m: m["type"] == "table" and m["table"]["seats"][1]["replaced"], timeout=10)
    # ... and it moves: the game gets past seat 1's first turn without anybody there.
    proposed: set[int] = set()
    deadline = time.monotonic() + 30
    from .client import simple_choice

    while a.view["turn"] < 3:
        assert time.monotonic() < deadline, "the game is stuck"
        choice = simple_choice(a, proposed)
        if choice is not None:
            a.act(choice)
        else:
            a.recv(5)
    a.close()


# ------------------------------------------------------------------ chat


def test_chat_is_rate_limited_stripped_and_capped(
    make_server: Callable[..., ServerThread], db_url: str
) -> None:
    server = make_server(db_url, limits=limits(chat_per_minute=4, chat_keep=3))
    made = two_seats(server)
    table = made["table"]["id"]
    a = server.client(table, made["token"])
    # Right-to-left override, isolates, zero-width characters: gone.
    a.send({"type": "chat", "text": "pay\u202e\u2066me\u200b\u2069 now"})
    line = a.wait_for(lambda m: m["type"] == "chat")
    assert line["text"] == "payme now" and clean_text(line["text"]) == line["text"]
    # Names too: a joining player's right-to-left override is dropped.
    assert server.join(table, "Eve\u202eevE")["table"]["seats"][1]["name"] == "EveevE"
    only_format = a.request({"type": "chat", "text": "\u202e\u200b"})
    assert only_format["code"] == "bad_message"
    for i in range(3):
        a.send({"type": "chat", "text": f"line {i}"})
    refused = a.request({"type": "chat", "text": "one too many"})
    assert refused["code"] == "rate_limited"
    # Stored: the last three lines only.
    b = server.client(table)
    welcome = next(m for m in b.messages if m["type"] == "welcome")
    assert [m["text"] for m in welcome["chat"]] == ["line 0", "line 1", "line 2"]
    a.close()
    b.close()


def test_chat_per_table_limit(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(limits=limits(chat_per_table_minute=3))
    table = server.create()["table"]["id"]
    watchers = [server.client(table) for _ in range(4)]
    for i, w in enumerate(watchers[:3]):
        w.send({"type": "chat", "text": f"from {i}"})
        watchers[3].wait_for(lambda m, i=i: m["type"] == "chat" and m["text"] == f"from {i}")
    assert watchers[3].request({"type": "chat", "text": "x"})["code"] == "rate_limited"
    for w in watchers:
        w.close()


# ------------------------------------------------------------------ host controls


def test_host_controls(make_server: Callable[..., ServerThread], db_url: str) -> None:
    server = make_server(db_url)
    made = two_seats(server)
    table = made["table"]["id"]
    joined = server.join(table, "Bob")
    host = server.client(table, made["token"])
    bob = server.client(table, joined["token"])
    watcher = server.client(table)
    assert host.info is not None and host.info["host"] == 0
    # Only the host.
    assert bob.request({"type": "host", "op": "private", "value": True})["code"] == "not_host"
    # Private: not listed, still reachable by its link.
    assert host.request({"type": "host", "op": "private", "value": True})["type"] == "done"
    with server.http() as http:
        assert table not in {t["id"] for t in http.get("/api/tables").json()["tables"]}
        assert http.get(f"/api/tables/{table}").json()["private"] is True
    # Mute the watcher (by the chatter id on their line), then spectator chat off.
    watcher.send({"type": "chat", "text": "spam"})
    line = host.wait_for(lambda m: m["type"] == "chat")
    assert line["chatter"].startswith("v")
    assert (
        host.request({"type": "host", "op": "mute", "chatter": line["chatter"]})["type"] == "done"
    )
    assert watcher.request({"type": "chat", "text": "more"})["code"] == "muted"
    assert (
        host.request({"type": "host", "op": "unmute", "chatter": line["chatter"]})["type"] == "done"
    )
    assert host.request({"type": "host", "op": "spectator_chat", "value": False})["type"] == "done"
    assert watcher.request({"type": "chat", "text": "more"})["code"] == "not_allowed"
    # Remove Bob before the start: his seat is open again, his token is worthless.
    assert host.request({"type": "host", "op": "remove", "seat": 1})["type"] == "done"
    bob.wait_for(lambda m: m["type"] == "left" and m.get("removed"))
    again = Client(server.ws_url, table)
    assert again.hello(joined["token"])["code"] == "bad_token"
    assert host.request({"type": "start"})["code"] == "not_allowed"  # seat 2 is open
    for c in (host, bob, watcher, again):
        c.close()


def test_search_bots_per_table_are_capped(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(limits=limits(search_per_table=2))
    with server.http() as http:
        r = http.post(
            "/api/tables",
            json=body(
                players=4, seats=[{"kind": "person"}] + [{"kind": "bot", "bot": "search"}] * 3
            ),
        )
        assert r.status_code == 400 and "search" in r.json()["error"]


def test_search_bots_beyond_the_server_cap_think_briefly_and_say_so(
    make_server: Callable[..., ServerThread], caplog: pytest.LogCaptureFixture
) -> None:
    """Search bots think in worker processes; past ``search_total`` seats server-wide a
    table's search bots fall back to a short budget, and the log says which table."""
    caplog.set_level("WARNING", logger="bohnanza.web")
    server = make_server(
        away_timeout=0.0, limits=limits(search_total=1, search_processes=1, search_fallback=0.05)
    )
    manager = server.app.state.manager
    ids = []
    for _ in range(2):
        made = server.create(
            seats=[{"kind": "person"}, {"kind": "bot", "bot": "search"}, {"kind": "bot"}]
        )
        ids.append(made["table"]["id"])
        a = server.client(made["table"]["id"], made["token"])
        a.request({"type": "start"})
        a.request({"type": "leave"})
        a.close()
    deadline = time.monotonic() + 60
    while not any(ids[1] in r.getMessage() and "search" in r.getMessage() for r in caplog.records):
        assert time.monotonic() < deadline, "no fallback was logged"
        time.sleep(0.1)
    assert not any(ids[0] in r.getMessage() for r in caplog.records)
    # Both games move (the search decisions come back from the worker process).
    while any(manager.tables[t].seq < 10 for t in ids):
        assert time.monotonic() < deadline, "a search table is stuck"
        time.sleep(0.1)


# ------------------------------------------------------------------ memory


def test_finished_game_leaves_memory_and_rematch_respects_the_limit(
    make_server: Callable[..., ServerThread],
) -> None:
    server = make_server(away_timeout=0.0, limits=limits(finished_grace=0.3))
    manager = server.app.state.manager
    made = server.create()
    table = made["table"]["id"]
    a = server.client(table, made["token"])
    a.request({"type": "start"})
    a.close()  # bots play the whole game
    deadline = time.monotonic() + 60
    with server.http() as http:
        while manager.tables.get(table) is not None and manager.tables[table].status != "over":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        while table in manager.tables:
            assert time.monotonic() < deadline, "a finished game stayed in memory"
            time.sleep(0.1)
        # Still there for whoever asks (read back from the database).
        assert http.get(f"/api/tables/{table}").json()["status"] == "over"
    a = server.client(table, made["token"])
    server.settings.max_tables = 0
    assert a.request({"type": "rematch"})["code"] == "rate_limited"
    server.settings.max_tables = 1000
    # A rematch is a new table of the asker's address: it counts against its limit.
    server.create()
    server.settings.limits.open_tables_per_address = 1
    assert a.request({"type": "rematch"})["code"] == "rate_limited"
    server.settings.limits.open_tables_per_address = 2
    a.send({"type": "rematch"})
    assert a.wait_for(lambda m: m["type"] == "rematch")["table"] in manager.tables
    a.close()


# ------------------------------------------------------------------ HTTP hardening


def test_host_names_and_security_headers(make_server: Callable[..., ServerThread]) -> None:
    server = make_server()
    with server.http() as http:
        for path in ("/", "/t/abc", "/static/table.js", "/api/rules"):
            r = http.get(path)
            assert r.status_code == (404 if path == "/t/abc" else 200), path  # no such table
            csp = r.headers["content-security-policy"]
            assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
            assert r.headers["x-content-type-options"] == "nosniff"
            assert r.headers["referrer-policy"] == "no-referrer"
        assert http.get("/", headers={"Host": "localhost:1234"}).status_code == 200
        rebound = http.get("/api/tables", headers={"Host": "evil.example:8000"})
        assert rebound.status_code == 400
        assert "content-security-policy" in rebound.headers
    from websockets.sync.client import connect

    with pytest.raises(InvalidStatus):
        connect(f"{server.ws_url}/ws/abc", additional_headers={"Host": "evil.example"})
    with socket.create_connection(("127.0.0.1", server.port)) as raw:
        raw.sendall(
            b"GET /ws/abc HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n"
        )
        raw.settimeout(5)
        assert raw.recv(100).startswith(b"HTTP/1.1 403")
    named = make_server(limits=limits(allowed_hosts=("bohnanza.example",)))
    with named.http() as http:
        assert http.get("/", headers={"Host": "bohnanza.example"}).status_code == 200
        assert http.get("/").status_code == 400  # 127.0.0.1 is not among the names


def test_pages_work_under_the_content_security_policy(browser: Any, server: ServerThread) -> None:
    """Every page runs in Chromium with the CSP enforced (no inline script, no eval):
    create a table on the home page, play a move, chat, host controls, a replay page."""
    violations: list[str] = []
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.on("pageerror", lambda e: violations.append(str(e)))
    page.on(
        "console",
        lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.goto(server.url + "/")
    page.wait_for_selector("#f-rules option", state="attached")
    page.fill("#f-name", "Ada")
    page.click("#create-form [type=submit]")
    tables = server.app.state.manager.tables
    wait_until(lambda: bool(tables), 60, "the table the form created")
    page.wait_for_url("**/t/*", timeout=60_000)
    wait_for_player(server, next(iter(tables)))
    page.wait_for_selector("#btn-start", timeout=60_000)
    # The host's controls: make the table private, then start.
    page.check("#host-private")
    table = page.url.rsplit("/", 1)[1]
    deadline = time.monotonic() + 10
    while not server.app.state.manager.tables[table].settings.get("private"):
        assert time.monotonic() < deadline, "the host's change did not arrive"
        time.sleep(0.05)
    page.click("#btn-start:not([disabled])")
    page.wait_for_selector("#board:not([hidden])")
    page.wait_for_selector("#my-hand .card")
    page.click("#tab-chat")
    for i in range(3):
        page.fill("#chat-input", f"hello {i}")
        page.press("#chat-input", "Enter")
        page.wait_for_selector(f"#chat li:nth-child({i + 1})")
    assert page.locator("#chat li").count() == 3
    # A new line is appended: the lines already shown are the same elements.
    page.evaluate("document.querySelector('#chat li').dataset.mark = 'kept'")
    page.fill("#chat-input", "hello 3")
    page.press("#chat-input", "Enter")
    page.wait_for_selector("#chat li:nth-child(4)")
    assert page.locator("#chat li[data-mark='kept']").count() == 1
    page.goto(f"{server.url}/replay/{table}")
    page.wait_for_load_state("networkidle")
    assert violations == []
    ctx.close()


def test_passwords_never_appear_in_output() -> None:
    url = "postgresql://player:s3cr3t-pw@127.0.0.1:1/bohnanza"
    result = CliRunner().invoke(serve, ["--database-url", url, "--port", "0"])
    assert result.exit_code != 0
    assert "s3cr3t-pw" not in result.output and "***" in result.output
    assert "s3cr3t-pw" not in mask_url(url)
    assert "s3cr3t-pw" not in hide_password(f"could not parse {url}: s3cr3t-pw", url)
    assert "s3cr3t-pw" not in repr(Settings(database_url=url))
    # Not a URL SQLAlchemy can read: still masked.
    odd = "weird://u:pass-word@host"
    assert "pass-word" not in mask_url(odd)


def body(**values: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "rules": "classic",
        "players": 3,
        "seats": [{"kind": "person"}] + [{"kind": "bot", "bot": "autarky"}] * 2,
        "name": "Ada",
    }
    out.update(values)
    return out
