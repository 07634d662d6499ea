"""E-mail notifications (web/mail.py) against a real local SMTP server (aiosmtpd): a
"your turn" message arrives when the game waits for an absent account, a "game over" one
when its game ends; one-click unsubscribe; addresses shown to nobody else; bad input
refused and nothing changed."""

from __future__ import annotations

import email
import email.policy
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from bohnanza.web.accounts import AccountLimits
from bohnanza.web.mail import MailSettings, check_address, parse_smtp_url

from .conftest import ServerThread, free_port

aiosmtpd = pytest.importorskip("aiosmtpd.controller")

FAST = AccountLimits(hash_time_cost=1, hash_memory_kib=8192)


class Inbox:
    """aiosmtpd's handler: every message it is handed, parsed."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], email.message.EmailMessage]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.messages.append((list(envelope.rcpt_tos), parsed))
        return "250 OK"

    def wait(self, pred: Callable[[Any], bool], timeout: float = 30) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for rcpt, msg in self.messages:
                if pred(msg):
                    return rcpt, msg
            time.sleep(0.1)
        raise AssertionError(f"no such message; got {[m['Subject'] for _, m in self.messages]}")


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = free_port()
    controller = aiosmtpd.Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def _mail_server(
    make_server: Callable[..., ServerThread], port: int, interval: float = 0.2
) -> ServerThread:
    mail = MailSettings(
        host="127.0.0.1",
        port=port,
        sender="bohnanza@example.org",
        base_url="https://play.example.org",
        tls="none",
        interval=interval,
    )
    return make_server(accounts=FAST, mail=mail)


CONFIRM = "Bohnanza: confirm your address"


def _link(msg: Any, prefix: str) -> str:
    """The path of the message's link under ``prefix`` (``/confirm/``, ``/unsubscribe/``)."""
    found = re.search(r"https://play\.example\.org(" + prefix + r"\S+)", msg.get_content())
    assert found, msg.get_content()
    return found.group(1)


def _confirm(c: httpx.Client, inbox: Inbox, address: str) -> None:
    """Follow the confirmation message's link to ``address``, as its owner does."""
    _, msg = inbox.wait(lambda m: m["Subject"] == CONFIRM and m["To"] == address)
    path = _link(msg, "/confirm/")
    page = c.get(path)  # a GET confirms nothing (mail scanners open links)
    assert page.status_code == 200 and "confirm-btn" in page.text
    done = c.post(path)
    assert done.status_code == 200 and 'id="confirmed"' in done.text, done.text


def _account(c: httpx.Client, name: str, address: str | None, inbox: Inbox) -> None:
    """A new account with ``address``, confirmed."""
    r = c.post("/api/account/register", json={"name": name, "password": "correct horse"})
    assert r.status_code == 200, r.text
    if address is not None:
        r = c.post("/api/account/email", json={"address": address})
        assert r.status_code == 200 and r.json()["confirmation_sent"], r.text
        _confirm(c, inbox, address)


def _notices(inbox: Inbox) -> list[Any]:
    """The messages other than confirmations."""
    return [m for _, m in inbox.messages if m["Subject"] != CONFIRM]


def test_your_turn_and_game_over_mails_and_one_click_unsubscribe(
    make_server: Callable[..., ServerThread], smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    srv = _mail_server(make_server, port)
    with srv.http() as c:
        _account(c, "Mona", "mona@example.net", inbox)
        me = c.get("/api/account").json()
        assert me["mail"] and me["email"] == {
            "address": "mona@example.net",
            "turn": True,
            "end": True,
            "confirmed": True,
            "opted_out": False,
        }
        made = c.post(
            "/api/tables",
            json={
                "rules": "classic",
                "players": 3,
                "name": "Mona",
                "clock": "turn12h",
                "seats": [
                    {"kind": "person"},
                    {"kind": "bot", "bot": "autarky"},
                    {"kind": "bot", "bot": "autarky"},
                ],
            },
        ).json()
        table = made["table"]["id"]
        ws = srv.client(table, made["token"])
        ws.request({"type": "start"})
        ws.close()  # she leaves; at her own pace the seat waits for her, and she is told
        rcpt, msg = inbox.wait(lambda m: m["Subject"] == "Bohnanza: your turn")
        assert rcpt == ["mona@example.net"] and msg["To"] == "mona@example.net"
        body = msg.get_content()
        assert f"https://play.example.org/t/{table}" in body
        # Which game, whose turn (issue 54: "It is your turn at table ZWg8plV7lSc." only),
        # and the headers a well-formed message carries.
        assert "your turn (Mona) in the classic game" in body
        assert "Players: Mona, autarky bot, autarky bot." in body
        assert msg["Date"] and msg["Message-ID"].endswith("@example.org>")
        unsubscribe = str(msg["List-Unsubscribe"]).strip().strip("<>")
        assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert unsubscribe.startswith("https://play.example.org/unsubscribe/")
        assert unsubscribe.endswith("/turn") and unsubscribe in body
        # Once per turn, not once per look at the tables.
        time.sleep(1.0)
        assert sum(1 for _, m in inbox.messages if m["Subject"] == "Bohnanza: your turn") == 1
        # The address is hers alone: the player page, leaderboard and table never show it.
        for path in ("/api/players/Mona", "/api/ratings/classic", f"/api/tables/{table}"):
            assert "mona@example.net" not in c.get(path).text
        # A GET of the link changes nothing (mail scanners open links); one POST does.
        path = unsubscribe.removeprefix("https://play.example.org")
        page = c.get(path)
        assert page.status_code == 200 and "unsubscribe-btn" in page.text
        assert c.get("/api/account").json()["email"]["turn"]
        done = c.post(path, content=b"List-Unsubscribe=One-Click")
        assert done.status_code == 200 and "unsubscribed" in done.text
        # "No more e-mails like this": that kind only (the game-over notices stay on).
        assert c.get("/api/account").json()["email"] == {
            "address": "mona@example.net",
            "turn": False,
            "end": True,
            "confirmed": True,
            "opted_out": False,
        }
        assert c.post("/unsubscribe/not-a-token").status_code == 404
        assert c.post("/unsubscribe/not-a-token/turn").status_code == 404
        assert c.post(path.replace("/turn", "/other")).status_code == 404
        # The body's other link: no e-mail at all to this address.
        never = next(
            p
            for p in re.findall(r"https://play\.example\.org(/unsubscribe/\S+)", body)
            if not p.endswith("/turn")
        )
        assert c.post(never).status_code == 200
        assert c.get("/api/account").json()["email"]["opted_out"]


def test_the_game_over_mail_reaches_a_resigned_account(
    make_server: Callable[..., ServerThread], smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    srv = _mail_server(make_server, port)
    with srv.http() as c:
        _account(c, "Nils", "nils@example.net", inbox)
        c.post(
            "/api/account/email", json={"address": "nils@example.net", "turn": False, "end": True}
        )
        made = c.post(
            "/api/tables",
            json={
                "rules": "classic",
                "players": 3,
                "name": "Nils",
                "seats": [
                    {"kind": "person"},
                    {"kind": "bot", "bot": "autarky"},
                    {"kind": "bot", "bot": "autarky"},
                ],
            },
        ).json()
        table = made["table"]["id"]
        ws = srv.client(table, made["token"])
        ws.request({"type": "start"})
        ws.request({"type": "leave"})
        ws.close()
        _, msg = inbox.wait(lambda m: m["Subject"] == "Bohnanza: the game is over", timeout=60)
        body = msg.get_content()
        assert f"https://play.example.org/replay/{table}" in body
        assert not any(m["Subject"] == "Bohnanza: your turn" for _, m in inbox.messages)
        # The result, each seat by the name the table shows (a resigned person keeps hers).
        result = c.get(f"/api/tables/{table}").json()["result"]
        for seat, name in enumerate(("Nils (resigned, played by", "autarky bot", "autarky bot")):
            assert f"  {name}" in body and f"{result['scores'][seat]} coins" in body
        assert "(won)" in body and msg["Date"] and msg["Message-ID"]


@pytest.mark.parametrize(
    "address",
    [
        "",
        "no-at-sign",
        "a@b",
        "two@@example.org",
        "sp ace@example.org",
        "a@example.org\r\nBcc: x@y.z",
        "x" * 250 + "@example.org",
        "<a@example.org>",
    ],
)
def test_bad_addresses_are_refused_and_change_nothing(
    make_server: Callable[..., ServerThread], smtp: tuple[Inbox, int], address: str
) -> None:
    inbox, port = smtp
    srv = _mail_server(make_server, port)
    with srv.http() as c:
        _account(c, "Olaf", "olaf@example.net", inbox)
        r = c.post("/api/account/email", json={"address": address})
        assert r.status_code == 400 and r.json()["error"]
        assert c.get("/api/account").json()["email"]["address"] == "olaf@example.net"
        # Forgetting the address is allowed; a guest may not set one.
        assert c.post("/api/account/email", json={"address": None}).json()["email"] is None
    with srv.http() as guest:
        assert (
            guest.post("/api/account/email", json={"address": "g@example.org"}).status_code == 401
        )


def test_smtp_urls() -> None:
    s = parse_smtp_url("smtp://me:p%40ss@mail.example.org", "b@example.org", "https://x/")
    assert (s.host, s.port, s.tls, s.user, s.password, s.base_url) == (
        "mail.example.org",
        587,
        "starttls",
        "me",
        "p@ss",
        "https://x",
    )
    assert "p@ss" not in repr(s)
    assert parse_smtp_url("smtps://mail.example.org", "b@example.org", "https://x").port == 465
    assert parse_smtp_url("smtp://h:25?tls=none", "b@example.org", "https://x").tls == "none"
    for bad in ("http://h", "smtp://h?tls=maybe"):
        with pytest.raises(ValueError):
            parse_smtp_url(bad, "b@example.org", "https://x")
    with pytest.raises(ValueError):
        parse_smtp_url("smtp://h", "not-an-address", "https://x")
    assert check_address(" a.b+c@example.org ") == "a.b+c@example.org"


def test_a_live_table_mails_no_your_turn(
    make_server: Callable[..., ServerThread], smtp: tuple[Inbox, int]
) -> None:
    """Without a turn-based clock a stand-in plays for an absent player within minutes:
    no "your turn" mail (the game waits on her here for the whole away delay)."""
    inbox, port = smtp
    srv = _mail_server(make_server, port)
    with srv.http() as c:
        _account(c, "Rhea", "rhea@example.net", inbox)
        made = c.post(
            "/api/tables",
            json={
                "rules": "classic",
                "players": 3,
                "name": "Rhea",
                "seats": [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}],
            },
        ).json()
        ws = srv.client(made["table"]["id"], made["token"])
        ws.request({"type": "start"})
        ws.close()
        time.sleep(1.5)
        assert c.get(f"/api/tables/{made['table']['id']}").json()["status"] == "playing"
    assert _notices(inbox) == []


def test_serve_refuses_a_bad_smtp_setting_with_one_clear_error(tmp_path: Any) -> None:
    from click.testing import CliRunner

    from bohnanza.web.command import serve

    db = ["--port", "0", "--database-url", f"sqlite:///{tmp_path / 'g.db'}"]
    result = CliRunner().invoke(serve, [*db, "--smtp-url", "http://mail.example.org"])
    assert result.exit_code == 2 and "smtp://user:password@host" in result.output
    result = CliRunner().invoke(serve, [*db, "--smtp-url", "smtp://mail.example.org"])
    assert result.exit_code == 2 and "--mail-from" in result.output
    assert "--smtp-url" in CliRunner().invoke(serve, ["--help"]).output


BAD_WORD = "=?utf-8?q?x=0D=0ABcc=3A_victim=40evil=2Eorg?=@example.org"


def test_an_encoded_address_is_refused_and_one_bad_address_stops_no_other_mail(
    make_server: Callable[..., ServerThread], smtp: tuple[Inbox, int], sqlite_url: str
) -> None:
    """An RFC 2047 word that decodes to CR LF and a Bcc header was accepted, then raised
    in the mail watcher and ended its whole pass: nobody else got mail. It is refused
    on entry now, and a bad address already stored costs only its own message."""
    from sqlalchemy import create_engine, text

    inbox, port = smtp
    srv = _mail_server(make_server, port)
    seats = [{"kind": "person"}, {"kind": "bot", "bot": "autarky"}, {"kind": "bot"}]
    tables = []
    for name, address in (("Eve", "eve@example.net"), ("Rita", "rita@example.net")):
        with srv.http() as c:
            _account(c, name, address, inbox)
            r = c.post("/api/account/email", json={"address": BAD_WORD})
            assert r.status_code == 400 and r.json()["code"] == "bad_email"
            assert c.get("/api/account").json()["email"]["address"] == address
            body = {"rules": "classic", "players": 3, "name": name, "clock": "turn12h"}
            tables.append(c.post("/api/tables", json={**body, "seats": seats}).json())
    engine = create_engine(sqlite_url)  # as an older server would have stored it
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE bohnanza_account_mail SET address = :a WHERE address = :b"),
            {"a": BAD_WORD, "b": "eve@example.net"},
        )
    engine.dispose()
    for made in tables:  # Eve's table first: the watcher meets her bad address first
        ws = srv.client(made["table"]["id"], made["token"])
        ws.request({"type": "start"})
        ws.close()
    rcpt, _msg = inbox.wait(lambda m: m["Subject"] == "Bohnanza: your turn")
    assert rcpt == ["rita@example.net"]
    assert all("victim" not in " ".join(r) for r, _ in inbox.messages)


def test_a_game_that_starts_and_ends_between_two_looks_is_mailed(
    make_server: Callable[..., ServerThread], smtp: tuple[Inbox, int]
) -> None:
    """The watcher mailed the end only of games it had seen in play: a game that started
    and ended between two looks (bots finishing a resigned player's game) got no mail."""
    inbox, port = smtp
    srv = _mail_server(make_server, port, interval=12.0)  # the first look: after the end
    started = time.monotonic()
    with srv.http() as c:
        _account(c, "Ugo", "ugo@example.net", inbox)
        seats = [{"kind": "person"}, {"kind": "bot", "bot": "autarky"}, {"kind": "bot"}]
        body = {"rules": "classic", "players": 3, "name": "Ugo", "seats": seats}
        made = c.post("/api/tables", json=body).json()
        table = made["table"]["id"]
        ws = srv.client(table, made["token"])
        ws.request({"type": "start"})
        ws.request({"type": "leave"})  # the stand-in and the bots play it out at once
        ws.close()
        while c.get(f"/api/tables/{table}").json()["status"] != "over":
            assert time.monotonic() - started < 11, "the game outlasted the watcher's first look"
            time.sleep(0.1)
    _, msg = inbox.wait(lambda m: m["Subject"] == "Bohnanza: the game is over", timeout=40)
    assert f"https://play.example.org/replay/{table}" in msg.get_content()


def _turn_table(c: httpx.Client, srv: ServerThread, name: str) -> str:
    """A table at your own pace, started and left by its one person: the game waits on
    her seat, which is mailed "your turn" if anybody is to be mailed."""
    seats = [{"kind": "person"}, {"kind": "bot", "bot": "autarky"}, {"kind": "bot"}]
    body = {"rules": "classic", "players": 3, "name": name, "clock": "turn12h", "seats": seats}
    made = c.post("/api/tables", json=body).json()
    ws = srv.client(made["table"]["id"], made["token"])
    ws.request({"type": "start"})
    ws.close()
    return str(made["table"]["id"])


def test_a_strangers_address_gets_one_confirmation_and_no_notices(
    make_server: Callable[..., ServerThread], smtp: tuple[Inbox, int]
) -> None:
    """Anyone could type another person's address and have "your turn" mails sent to it
    (5 in 55 s from one table). An address is mailed notices only once confirmed, and
    sent at most one confirmation an hour, whichever accounts ask."""
    inbox, port = smtp
    srv = _mail_server(make_server, port)
    victim = "victim@example.net"
    with srv.http() as eve, srv.http() as mal:
        _account(eve, "Eve", None, inbox)
        _account(mal, "Mal", None, inbox)
        first = eve.post("/api/account/email", json={"address": victim}).json()
        assert first["confirmation_sent"] and not first["email"]["confirmed"]
        for c in (eve, eve, mal, mal):
            again = c.post("/api/account/email", json={"address": victim}).json()
            assert not again["confirmation_sent"]
        _turn_table(eve, srv, "Eve")
        _turn_table(mal, srv, "Mal")
        time.sleep(2.0)  # ten looks of the watcher
        assert [m["Subject"] for _, m in inbox.messages] == [CONFIRM]
        assert all(rcpt == [victim] for rcpt, _ in inbox.messages)


def test_an_unsubscribe_sticks_to_the_address(
    make_server: Callable[..., ServerThread], smtp: tuple[Inbox, int]
) -> None:
    """After the one-click unsubscribe, one ``POST /api/account/email`` turned the mail on
    again. Now the address itself is unsubscribed: no account can mail it, not even a
    confirmation, until the link's own "mail me again" button."""
    inbox, port = smtp
    srv = _mail_server(make_server, port)
    address = "pia@example.net"
    with srv.http() as pia, srv.http() as mal:
        _account(pia, "Pia", None, inbox)
        pia.post("/api/account/email", json={"address": address})
        _, msg = inbox.wait(lambda m: m["Subject"] == CONFIRM)
        path = _link(msg, "/unsubscribe/")  # "it was not me": never mail me
        assert str(msg["List-Unsubscribe"]).strip("<>").endswith(path)
        assert 'id="unsubscribed"' in pia.post(path).text
        for c in (pia, mal):
            if c is mal:
                _account(mal, "Mal", None, inbox)
            r = c.post("/api/account/email", json={"address": address, "turn": True}).json()
            assert not r["confirmation_sent"] and r["email"]["opted_out"], r
            _turn_table(c, srv, "Pia" if c is pia else "Mal")
        time.sleep(2.0)
        assert len(inbox.messages) == 1, [m["Subject"] for _, m in inbox.messages]
        again = pia.post(f"{path}/again")  # the owner changes her mind
        assert again.status_code == 200 and 'id="resubscribed"' in again.text
        assert pia.get("/api/account").json()["email"] == {
            "address": address,
            "turn": True,
            "end": True,
            "confirmed": True,
            "opted_out": False,
        }
        assert pia.post("/unsubscribe/not-a-token/again").status_code == 404
