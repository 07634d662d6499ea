"""Hostile input for the web server, over real WebSockets (the ServerThread fixture).

Hypothesis generates batches of frames - random bytes and text, JSON values of every
type, deeply nested JSON, frames near and over the size limits, unknown message types,
known types with wrong fields, actions full of garbage - and sends them from a seated
player's connection and from a connection that has not said hello. Replayed and forged
tokens, and connections to other tables, are tried separately. After every batch:

* the server still answers (``ping``/``pong`` on the same connection, ``/healthz``);
* every seat's view and the table's ``seq`` are unchanged, unless a frame happened to be
  a legal move (then acknowledged), and the table's record replays to the live game;
* no answer to the fuzzing connection names a card id hidden from its seat that the
  frame did not name itself (R-INFO-3), and nobody else got an error;
* the server's log has no traceback, no error line, and no hidden card id.

Also here: the ``Origin`` check on WebSocket upgrades, and the rate limit's refill.
Size: ``BOHNANZA_WEB_FUZZ_EXAMPLES`` batches (default 20, 40 in the long mode, 10 to 40 frames each, about 17
on average) against one real server; the frames and batches sent are printed at the end
(``-s``). The long mode run before a release is in docs/reliability.md ("Hostile input").
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from bohnanza.game import Game
from bohnanza.testing.checker import CHEAP, InvariantChecker
from bohnanza.web.protocol import MAX_MESSAGE, ProtocolError, parse_client_message
from bohnanza.web.tables import hash_token, rebuild
from long_mode import size

from .client import Client
from .conftest import ServerThread
from .test_protocol import assert_alive, snapshot, two_people

EXAMPLES = size("BOHNANZA_WEB_FUZZ_EXAMPLES", 20, 40)
#: ``BOHNANZA_WEB_FUZZ_SEED=N``: draw the batches from seed N instead of CI's fixed draws, so
#: a long run can be played in chunks of distinct frames (docs/reliability.md, "Long mode").
SEED = os.environ.get("BOHNANZA_WEB_FUZZ_SEED")
_seeded = seed(int(SEED)) if SEED is not None else (lambda test: test)
COUNTS: Counter[str] = Counter()
_CARD_NUMBERS = re.compile(r"\b(?:card|child|lady)s?\s+\[?(-?\d+(?:,\s*-?\d+)*)(?![\w.])")

# ------------------------------------------------------------------ frames

#: Text with lone surrogates: legal in JSON escapes ("\ud800"), but not encodable as UTF-8.
odd_text = st.text(st.characters(categories=["Cs", "Lu", "Nd"]), min_size=1, max_size=6)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | odd_text,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=16,
)
types = st.sampled_from(["hello", "action", "chat", "start", "rematch", "ping"]) | st.text(
    max_size=10
)
actions = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["plant", "harvest", "propose", "accept", "decline", "end_trading", "buy_field", "x"]
        )
        | json_values
    },
    optional={
        "field": json_values | st.integers(-2, 4),
        "card": json_values | st.integers(-1, 200),
        "offer_id": json_values | st.integers(-1, 5),
        "cards": json_values | st.lists(st.integers(-1, 200), max_size=30),
        "offer": json_values
        | st.fixed_dictionaries(
            {"to": json_values | st.integers(-1, 3)},
            optional={
                "give": json_values | st.lists(st.integers(-1, 200), max_size=20),
                "want": json_values
                | st.lists(st.tuples(st.sampled_from(["blue", "chili", "x"]), st.integers(-2, 99))),
                "declared": json_values,
            },
        ),
        "table": st.text(max_size=10),
    },
)
messages = st.fixed_dictionaries(
    {"type": types},
    optional={
        "id": json_values | odd_text,
        "token": json_values | st.text(max_size=300) | odd_text,
        "action": actions | json_values,
        "text": json_values | st.text(max_size=600) | odd_text,
        "table": st.text(max_size=12),
    },
)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth if depth % 2 else '{"a":' * depth + "1" + "}" * depth


frames = st.one_of(
    st.binary(max_size=64),
    st.text(max_size=64),
    json_values.map(json.dumps),
    messages.map(json.dumps),
    st.builds(lambda m: json.dumps({"type": "action", "action": m}), actions),
    st.integers(10, 50_000).map(_nested),
    # near and over the 64 KiB limit (frames over 1 MiB close the connection: tested apart)
    st.integers(MAX_MESSAGE - 64, MAX_MESSAGE + 64).map(
        lambda n: json.dumps({"type": "chat", "text": "x" * n})[: n + 20]
    ),
    st.sampled_from(["", " ", "null", "{}", "[]", '{"type":null}', '"\\ud800"', "\x00"]),
)


def harmless(frame: str | bytes) -> str | bytes:
    """The frame, unless it is a valid ``leave`` (which would legitimately give the seat
    to a bot and change the table): then a ping."""
    try:
        msg = parse_client_message(frame)
    except ProtocolError:
        return frame
    return '{"type":"ping"}' if msg.type == "leave" else frame


# ------------------------------------------------------------------ the server's side


class LogCapture(logging.Handler):
    """Every log record of the server's thread (bohnanza, uvicorn, websockets)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def server_log() -> Iterator[LogCapture]:
    capture = LogCapture()
    names = ["bohnanza", "uvicorn", "uvicorn.error", "uvicorn.access", "websockets", ""]
    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(capture)
    logging.getLogger("bohnanza").setLevel(logging.INFO)
    try:
        yield capture
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.removeHandler(capture)
            lg.setLevel(level)


def live_game(server: ServerThread, table: str) -> Game:
    game: Game = server.app.state.manager.tables[table].game
    return game


def hidden_from(game: Game, seat: int | None) -> set[int]:
    """Card ids ``seat`` may not see now (the checker's rule, R-INFO-1/2)."""
    checker = InvariantChecker(game, CHEAP, "web fuzz", random.Random(0))
    return set(range(game.config.deck_size)) - checker.allowed(seat)


def named_cards(text: str) -> set[int]:
    return {int(n) for group in _CARD_NUMBERS.findall(text) for n in re.findall(r"-?\d+", group)}


def assert_no_leak(text: str, hidden: set[int], sent: str, who: str) -> None:
    said = set(map(int, re.findall(r"-?\d+", sent)))
    leaked = (named_cards(text) & hidden) - said
    assert not leaked, f"{who} was told about hidden card(s) {sorted(leaked)}: {text[:300]}"


def assert_clean_log(log: LogCapture, hidden: set[int]) -> None:
    for record in log.records:
        text = record.getMessage()
        assert record.exc_info is None, f"a traceback in the server log: {text}"
        assert record.levelno < logging.ERROR, f"an error in the server log: {text}"
        assert "Traceback" not in text, text
        leaked = named_cards(text) & hidden
        assert not leaked, f"the server log names hidden card(s) {sorted(leaked)}: {text}"


def assert_healthy(server: ServerThread, table: str) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as http:
        assert http.get("/healthz").status_code == 200
    # The stored record (setup + every stored action) replays to the live game.
    stored = server.app.state.manager.store.load(table)
    assert stored is not None and stored.setup is not None
    replayed, _, _ = rebuild(stored.setup, stored.actions)
    assert replayed == live_game(server, table), "the stored record does not replay to the game"


def everything(server: ServerThread, table: str, tokens: list[str | None]) -> list[Any]:
    return [snapshot(server, table, t) for t in tokens]


def quiet(server: ServerThread, table: str, tokens: list[str | None]) -> list[Any]:
    """The table's state once bots have stopped moving (after a legal move got through)."""
    last = everything(server, table, tokens)
    for _ in range(50):
        time.sleep(0.1)
        now = everything(server, table, tokens)
        if now == last:
            return now
        last = now
    raise AssertionError("the table never settled")


def exchange(c: Client, frame: str | bytes) -> list[dict[str, Any]]:
    """Send ``frame``, then a ping; every message that arrived before the pong."""
    c.send(frame)
    marker = f"fuzz-{c.next_id}"
    c.next_id += 1
    c.send({"type": "ping", "id": marker})
    got: list[dict[str, Any]] = []
    while True:
        msg = c.recv(10)
        if msg.get("type") == "pong" and msg.get("id") == marker:
            return got
        got.append(msg)


# ------------------------------------------------------------------ the fuzz test


@pytest.fixture
def fuzz_table(
    server: ServerThread, server_log: LogCapture
) -> tuple[ServerThread, str, list[str | None], LogCapture]:
    table, a, b = two_people(server)
    tokens: list[str | None] = [a.token, b.token, None]
    a.close()
    b.close()
    return server, table, tokens, server_log


@_seeded
@settings(
    max_examples=EXAMPLES,
    derandomize=SEED is None,
    database=None,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(batch=st.lists(frames, min_size=10, max_size=40), seat=st.sampled_from([0, 1, None, "x"]))
def test_random_frames_change_nothing(
    fuzz_table: tuple[ServerThread, str, list[str | None], LogCapture],
    batch: list[str | bytes],
    seat: int | str | None,
) -> None:
    server, table, tokens, log = fuzz_table
    before = quiet(server, table, tokens)
    c = Client(server.ws_url, table)
    watcher = server.client(table, tokens[1])  # a bystander: must hear of no error
    try:
        if isinstance(seat, int):
            assert c.hello(tokens[seat])["type"] == "welcome"
        elif seat is None:
            assert c.hello()["type"] == "welcome"
        # "x": never says hello; every frame comes from an unauthenticated connection
        viewer = seat if isinstance(seat, int) else None
        acked = 0
        opened = time.monotonic()
        closed = False
        for frame in batch:
            frame = harmless(frame)
            hidden = hidden_from(live_game(server, table), viewer)
            try:
                answers = exchange(c, frame)
            except ConnectionClosed as exc:
                # A socket that never said hello is closed once its time is up (4408): the
                # server doing its job, reached by long batches on a loaded machine.
                waited = time.monotonic() - opened
                if (
                    seat != "x"
                    or exc.rcvd is None
                    or exc.rcvd.code != 4408
                    or waited < server.settings.limits.hello_timeout
                ):
                    raise
                COUNTS["closed_without_hello"] += 1
                closed = True
                break
            COUNTS["frames"] += 1
            sent = frame if isinstance(frame, str) else frame.decode("latin-1")
            for m in answers:
                if m["type"] == "error":
                    COUNTS[f"error:{m['code']}"] += 1
                    assert_no_leak(json.dumps(m), hidden, sent, f"seat {viewer}")
                acked += m["type"] == "ack"
            assert answers, f"no answer to {frame!r:.200}"
        if not closed:
            assert_alive(c)
        watcher.drain()
        assert not [m for m in watcher.messages if m["type"] == "error"]
    finally:
        c.close()
        watcher.close()
    after = quiet(server, table, tokens)
    if acked:
        COUNTS["batches_with_legal_moves"] += 1
    else:
        assert after == before, "rejected frames changed the table"
    assert_healthy(server, table)
    game = live_game(server, table)
    assert_clean_log(log, set(range(game.config.deck_size)))
    log.records.clear()  # checked: a long run (thousands of batches) rereads none of them
    COUNTS["batches"] += 1


def test_tokens_and_tables(
    fuzz_table: tuple[ServerThread, str, list[str | None], LogCapture],
) -> None:
    """Replayed, forged and revoked tokens; a second hello; other tables' names."""
    server, table, tokens, log = fuzz_table
    before = quiet(server, table, tokens)
    other = server.create(seats=[{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}])
    other_id = other["table"]["id"]
    # A seat left in the lobby: its token is revoked.
    joined = server.join(other_id, "Eve")
    eve = server.client(other_id, joined["token"])
    assert eve.request({"type": "leave"})["type"] == "left"
    eve.close()
    assert tokens[0] is not None
    forged = [
        other["token"],  # a token of another table
        joined["token"],  # revoked
        hash_token(tokens[0]),  # the stored hash is not the token
        tokens[0][:-1],
        tokens[0] + "x",
        tokens[0].upper() if tokens[0] != tokens[0].upper() else tokens[0].lower(),
        "\x00" * 10,
        "x" * 200,
        " " + tokens[0],
    ]
    for token in forged:
        c = Client(server.ws_url, table)
        answer = c.hello(token)
        COUNTS["frames"] += 1
        assert answer["type"] == "error" and answer["code"] == "bad_token", (token, answer)
        assert c.act({"type": "end_trading"})["code"] == "not_authenticated"
        c.close()
    # A token of another seat is that seat's credential: it acts as that seat, nothing more.
    c = Client(server.ws_url, table)
    assert c.hello(tokens[1])["seat"] == 1
    assert c.hello(tokens[0])["code"] == "bad_message"  # a second hello, even another seat's
    assert c.request({"type": "hello", "token": other["token"]})["code"] == "bad_message"
    assert c.act({"type": "plant", "field": 0})["code"] == "illegal"  # seat 1 is not active
    # Naming another table in a message is not a thing: refused, nothing happens there.
    assert c.request({"type": "start", "table": other_id})["code"] == "bad_message"
    c.close()
    COUNTS["frames"] += 5
    # Another case of the id: ``table.upper()`` was the table itself when the random id
    # held no lower-case letter (about 1 id in 300), and the probe then waited for hello.
    recased = table.swapcase() if table.swapcase() != table else table + "_"
    for name in (other_id + "x", "../" + table, "%00", "x" * 500, recased, "a/b"):
        COUNTS["frames"] += 1
        try:
            probe = Client(server.ws_url, name)
        except InvalidStatus as exc:  # no such route (a path that is not /ws/{id})
            assert exc.response.status_code == 403, name
            continue
        try:
            msg = probe.recv()
            assert msg["type"] == "error" and msg["code"] == "no_table", msg
        finally:
            probe.close()
    assert quiet(server, table, tokens) == before
    assert_healthy(server, table)
    assert_clean_log(log, set(range(live_game(server, table).config.deck_size)))


def test_zz_report_fuzz_totals(capsys: pytest.CaptureFixture[str]) -> None:
    """Print how many frames the tests above sent (runs last in this file)."""
    with capsys.disabled():
        codes = ", ".join(
            f"{k[6:]} {v}" for k, v in sorted(COUNTS.items()) if k.startswith("error:")
        )
        print(
            f"\nweb fuzz: {COUNTS['frames']} hostile frames ({COUNTS['batches']} batches); "
            f"answers: {codes}"
        )


# ------------------------------------------------------------------ Origin check


def ws_connect(server: ServerThread, table: str, **headers: str) -> Any:
    return connect(
        f"{server.ws_url}/ws/{table}",
        additional_headers=headers or None,
        open_timeout=10,
        ping_interval=None,
    )


@pytest.mark.parametrize(
    "origin",
    [
        "http://127.0.0.1:{port}",  # the server's own pages
        "HTTP://127.0.0.1:{port}",
        # host:port decide, not the scheme: behind a TLS proxy the page is https while
        # the server itself speaks plain HTTP
        "https://127.0.0.1:{port}",
        None,  # not a browser
    ],
)
def test_same_origin_websockets_are_accepted(server: ServerThread, origin: str | None) -> None:
    table = server.create()["table"]["id"]
    headers = {"Origin": origin.format(port=server.port)} if origin else {}
    with ws_connect(server, table, **headers) as ws:
        ws.send(json.dumps({"type": "ping", "id": 1}))
        assert json.loads(ws.recv(5))["type"] == "pong"


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "http://127.0.0.1:1",  # same host, another port
        "http://localhost:{port}",  # the same server under another name: not the Host
        "http://127.0.0.1.evil.example:{port}",
        "null",  # sandboxed frames, file:// pages
        "garbage",
        "",
    ],
)
def test_cross_site_websockets_are_refused(server: ServerThread, origin: str) -> None:
    table = server.create()["table"]["id"]
    with pytest.raises(InvalidStatus) as info:
        ws_connect(server, table, Origin=origin.format(port=server.port)).__enter__()
    assert info.value.response.status_code == 403


def test_allowed_origins_are_accepted(make_server: Callable[..., ServerThread]) -> None:
    server = make_server(allowed_origins=("https://play.example.org",))
    table = server.create()["table"]["id"]
    with ws_connect(server, table, Origin="https://play.example.org:443") as ws:
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(5))["type"] == "pong"
    with pytest.raises(InvalidStatus):
        ws_connect(server, table, Origin="https://other.example.org").__enter__()


def test_serve_has_an_allow_origin_option() -> None:
    from click.testing import CliRunner

    from bohnanza.web.command import serve

    result = CliRunner().invoke(serve, ["--help"])
    assert "--allow-origin" in result.output


# ------------------------------------------------------------------ the rate limit refills


def test_the_rate_limit_refills_at_twenty_a_second(server: ServerThread) -> None:
    """After the burst of 100, a connection gets about 20 messages a second, no more."""
    table = server.create()["table"]["id"]
    c = server.client(table, hello=False)
    for _ in range(130):
        c.send({"type": "ping"})
    first = [c.wait_for(lambda m: m["type"] in ("pong", "error")) for _ in range(130)]
    assert 95 <= sum(m["type"] == "pong" for m in first) <= 105
    time.sleep(1.0)
    for _ in range(60):
        c.send({"type": "ping"})
    second = [c.wait_for(lambda m: m["type"] in ("pong", "error")) for _ in range(60)]
    passed = sum(m["type"] == "pong" for m in second)
    assert 15 <= passed <= 30, passed  # ~20 refilled in the second, plus a little slack
    assert all(m["code"] == "rate_limited" for m in second if m["type"] == "error")
    c.close()
    with pytest.raises(ConnectionClosed):
        c.recv(0.1)


# ------------------------------------------------------------------ connections per table


def test_connections_per_table_are_capped(make_server: Callable[..., ServerThread]) -> None:
    """One client cannot watch a table on unlimited WebSockets; others still get in once
    some close, and other tables are not affected."""
    server = make_server(max_connections=3)
    table = server.create()["table"]["id"]
    held = [server.client(table) for _ in range(3)]
    extra = Client(server.ws_url, table)
    extra.send({"type": "hello"})
    msg = extra.recv()
    assert msg["type"] == "error" and msg["code"] == "too_many_connections"
    with pytest.raises(ConnectionClosed) as info:
        extra.recv(5)
    assert info.value.rcvd is not None and info.value.rcvd.code == 1013
    other = server.create()["table"]["id"]
    assert_alive(server.client(other))
    held.pop().close()
    deadline = time.monotonic() + 5
    while True:  # the server notices the close a moment later
        again = Client(server.ws_url, table)
        try:
            assert again.hello()["type"] == "welcome"
            break
        except ConnectionClosed:
            assert time.monotonic() < deadline, "a freed place was not given again"
            time.sleep(0.05)
    for c in [*held, again]:
        assert_alive(c)
        c.close()
