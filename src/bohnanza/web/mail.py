"""E-mail notifications: "your turn" and "the game is over", through an SMTP server.

Off unless the server is given one (``bohnanza serve --smtp-url``). An account may leave
an address (``POST /api/account/email``) and choose which notices it wants; the address
is shown to nobody but its account (``GET /api/account``), each message goes to one
recipient alone, and every message carries a one-click unsubscribe link (RFC 8058:
``List-Unsubscribe`` with ``List-Unsubscribe-Post``; the link's page has a button, since
a GET must not unsubscribe: mail scanners open links).

Anyone can type anybody's address (issue 51: "your turn" mails to a stranger, and one
``POST`` turned them on again after the stranger unsubscribed). So an address gets
notices only once confirmed: setting it sends one confirmation message (at most one per
address per ``CONFIRM_EVERY``, whichever account asks, and ``CONFIRM_PER_HOUR`` per
account), whose link's button confirms it. An unsubscribe is remembered for the address
itself (``bohnanza_mail_addresses``): no account can mail it again, not even a
confirmation; the unsubscribe page's "mail me again" button (the link proves the address
is the visitor's) undoes it.

Who is told what is found by a watcher that looks at the live tables every few seconds
(no hook in the game's hot path): at a table played at your own pace (``turn12h``,
``turn3d``), a seat whose decision the game waits for, held by an account with "your
turn" on, with no connection open, is mailed once per turn; the
accounts at a table that has just ended, with "game over" on, once. What was mailed is
remembered in memory: after a restart a pending "your turn" may be mailed again.
Sending runs in a thread; a message the server refuses is logged and dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import smtplib
import ssl
import unicodedata
from dataclasses import dataclass, field
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from sqlalchemy import Float, ForeignKey, Integer, String, delete, select
from sqlalchemy.orm import Mapped, mapped_column, sessionmaker

from .accounts import AccountError
from .clocks import turn_based
from .store import Base, Store
from .waiting import your_turn  # the same rule as "your games"

log = logging.getLogger("bohnanza.web")

#: How long a recipient's address may be (RFC 5321's path limit).
ADDRESS_MAX = 254
#: The least time between two confirmation messages to one address (seconds).
CONFIRM_EVERY = 3600.0
#: Confirmation messages one account may have sent an hour (to any addresses).
CONFIRM_PER_HOUR = 5


class MailRow(Base):
    __tablename__ = "bohnanza_account_mail"

    account_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("bohnanza_accounts.id"), primary_key=True
    )
    address: Mapped[str] = mapped_column(String(ADDRESS_MAX))
    notify_turn: Mapped[int] = mapped_column(Integer)
    notify_end: Mapped[int] = mapped_column(Integer)
    unsubscribe: Mapped[str] = mapped_column(String(64), unique=True)  # the link's token
    created: Mapped[float] = mapped_column(Float)
    confirmed: Mapped[int] = mapped_column(Integer, server_default="0")
    confirm: Mapped[str | None] = mapped_column(String(64), unique=True)  # the pending link


class MailAddressRow(Base):
    """What an address itself said, whichever account names it (lower-cased)."""

    __tablename__ = "bohnanza_mail_addresses"

    address: Mapped[str] = mapped_column(String(ADDRESS_MAX), primary_key=True)
    opted_out: Mapped[int] = mapped_column(Integer, server_default="0")
    confirm_sent: Mapped[float] = mapped_column(Float, server_default="0")


@dataclass(frozen=True, slots=True)
class Confirmation:
    """A confirmation message to send: where, its link's token, the unsubscribe token."""

    address: str
    token: str
    unsubscribe: str


@dataclass(frozen=True, slots=True)
class MailSettings:
    """Where to send from. ``tls``: ``starttls``, ``ssl`` (smtps) or ``none``."""

    host: str
    port: int
    sender: str
    base_url: str  # links in the messages: https://play.example.org
    tls: str = "starttls"
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    timeout: float = 20.0
    interval: float = 10.0  # seconds between two looks at the tables


def parse_smtp_url(url: str, sender: str, base_url: str) -> MailSettings:
    """``smtp://[user:password@]host[:port][?tls=starttls|none]`` or ``smtps://...``
    (TLS from the start). Raises ValueError with the reason."""
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise ValueError("an SMTP URL looks like smtp://user:password@host:587 or smtps://host")
    query = parse_qs(parts.query)
    tls = "ssl" if parts.scheme == "smtps" else (query.get("tls") or ["starttls"])[0]
    if tls not in ("starttls", "ssl", "none"):
        raise ValueError("tls is starttls, ssl or none")
    port = parts.port or (465 if tls == "ssl" else 587)
    if "@" not in sender:
        raise ValueError("the sender (--mail-from) is an e-mail address")
    return MailSettings(
        host=parts.hostname,
        port=port,
        sender=sender,
        base_url=base_url.rstrip("/"),
        tls=tls,
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


#: What an address's local part may hold: RFC 5322's dot-atom characters, ASCII only.
_LOCAL = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
#: A domain: dot-separated labels of letters, digits and inner hyphens (IDN letters too).
_LABEL = re.compile(r"(?!-)[\w-]{1,63}(?<!-)")


def check_address(raw: str) -> str:
    """A well-formed address, or AccountError: a dot-atom local part of ASCII characters
    (no quoted strings, no RFC 2047 ``=?...?=`` words, which a mail library decodes into
    whatever they hide, CR LF included), one ``@``, a domain of two or more labels; at
    most 254 characters. It must come out of the e-mail header it goes into unchanged.
    Returns it with its domain in ASCII, lower case (IDNA).
    (Whether it exists is the SMTP server's to say.)"""
    address = raw.strip()
    if not 3 <= len(address) <= ADDRESS_MAX:
        raise AccountError("an e-mail address has at most 254 characters", code="bad_email")
    if any(unicodedata.category(ch)[0] in ("C", "Z") for ch in address):
        raise AccountError(
            "an e-mail address has no spaces or control characters", code="bad_email"
        )
    local, at, domain = address.rpartition("@")
    labels = domain.split(".")
    if (
        not at
        or len(local) > 64
        or "=?" in address
        or not _LOCAL.fullmatch(local)
        or len(labels) < 2
        or not all(_LABEL.fullmatch(label) and "_" not in label for label in labels)
    ):
        raise AccountError("that is not an e-mail address", code="bad_email")
    try:  # an internationalised domain is kept in its ASCII form, as SMTP carries it
        address = f"{local}@{domain.encode('idna').decode('ascii').lower()}"
        header = Address(addr_spec=address)
    except (UnicodeError, ValueError, IndexError):
        raise AccountError("that is not an e-mail address", code="bad_email") from None
    if header.addr_spec != address:
        raise AccountError("that is not an e-mail address", code="bad_email")
    return address


class MailBook:
    """The accounts' addresses and choices (database), for the routes and the watcher."""

    def __init__(self, store: Store) -> None:
        self._session = sessionmaker(store.engine, expire_on_commit=False)

    def get(self, account_id: int) -> dict[str, Any] | None:
        with self._session() as s:
            row = s.get(MailRow, account_id)
            if row is None:
                return None
            known = s.get(MailAddressRow, row.address.lower())
            return {
                "address": row.address,
                "turn": bool(row.notify_turn),
                "end": bool(row.notify_end),
                "confirmed": bool(row.confirmed),
                "opted_out": known is not None and bool(known.opted_out),
            }

    def set(
        self,
        account_id: int,
        address: str | None,
        turn: bool,
        end: bool,
        now: float,
        may_send: bool = True,
    ) -> Confirmation | None:
        """Store (or with ``address`` None, forget) the account's address and choices.
        A new or unconfirmed address: the confirmation message to send, if ``may_send``
        and that address may be sent one now (never after an unsubscribe; once per
        CONFIRM_EVERY)."""
        with self._session() as s, s.begin():
            if address is None:
                s.execute(delete(MailRow).where(MailRow.account_id == account_id))
                return None
            row = s.get(MailRow, account_id)
            if row is None:
                row = MailRow(
                    account_id=account_id,
                    address=address,
                    unsubscribe=secrets.token_urlsafe(24),
                    created=now,
                    confirmed=0,
                    confirm=None,
                )
                s.add(row)
            elif row.address != address:
                row.address, row.confirmed, row.confirm = address, 0, None
            row.notify_turn, row.notify_end = int(turn), int(end)
            if row.confirmed or not may_send:
                return None
            known = s.get(MailAddressRow, address.lower())
            if known is None:
                known = MailAddressRow(address=address.lower(), opted_out=0, confirm_sent=0.0)
                s.add(known)
            if known.opted_out or now - known.confirm_sent < CONFIRM_EVERY:
                return None
            known.confirm_sent = now
            row.confirm = secrets.token_urlsafe(24)
            return Confirmation(address, row.confirm, row.unsubscribe)

    def confirm(self, token: str) -> bool:
        """The confirmation link's button: the address is its account's. False for an
        unknown (or used) token."""
        if not token or len(token) > 64:
            return False
        with self._session() as s, s.begin():
            row = s.scalar(select(MailRow).where(MailRow.confirm == token))
            if row is None:
                return False
            row.confirmed, row.confirm = 1, None
            self._opt(s, row.address, False)
            return True

    def unsubscribe(self, token: str, again: bool = False) -> bool:
        """The one-click link: no more notices of either kind, and no mail at all to the
        address from any account, until ``again`` (the page's "mail me again": holding
        the link proves the address is the visitor's). False for an unknown token."""
        if not token or len(token) > 64:
            return False
        with self._session() as s, s.begin():
            row = s.scalar(select(MailRow).where(MailRow.unsubscribe == token))
            if row is None:
                return False
            row.notify_turn = row.notify_end = int(again)
            if again:
                row.confirmed, row.confirm = 1, None
            self._opt(s, row.address, not again)
            return True

    @staticmethod
    def _opt(s: Any, address: str, out: bool) -> None:
        known = s.get(MailAddressRow, address.lower())
        if known is None:
            s.add(MailAddressRow(address=address.lower(), opted_out=int(out), confirm_sent=0.0))
        else:
            known.opted_out = int(out)

    def recipients_of(self, account_ids: list[int], kind: str) -> list[tuple[int, str, str]]:
        """(account, address, unsubscribe token) of those accounts that want ``kind``
        notices at a confirmed address that did not unsubscribe."""
        if not account_ids:
            return []
        wants = MailRow.notify_turn if kind == "turn" else MailRow.notify_end
        with self._session() as s:
            rows = s.execute(
                select(MailRow.account_id, MailRow.address, MailRow.unsubscribe).where(
                    MailRow.account_id.in_(account_ids), wants == 1, MailRow.confirmed == 1
                )
            ).all()
            lowered = {r[1].lower() for r in rows}
            out = set(
                s.scalars(
                    select(MailAddressRow.address).where(
                        MailAddressRow.address.in_(lowered), MailAddressRow.opted_out == 1
                    )
                )
            )
            return [(r[0], r[1], r[2]) for r in rows if r[1].lower() not in out]

    def quiet(self, token: str, kind: str) -> bool:
        """ "No more e-mails like this": that kind of notice off for the link's account,
        the other kept. False for an unknown token."""
        if not token or len(token) > 64 or kind not in ("turn", "end"):
            return False
        with self._session() as s, s.begin():
            row = s.scalar(select(MailRow).where(MailRow.unsubscribe == token))
            if row is None:
                return False
            if kind == "turn":
                row.notify_turn = 0
            else:
                row.notify_end = 0
            return True


@dataclass(frozen=True, slots=True)
class About:
    """What a notice says about its game: the rule set, each seat's name as the table
    shows it, whose turn it is (a seat), and the result at the end."""

    rules: str
    names: tuple[str, ...]
    seat: int  # the recipient's seat
    scores: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()


def seat_names(table: Any) -> tuple[str, ...]:
    """The seats' names as the page shows them: a person's name, "Bob (resigned, played by
    heuristic)" for one who resigned (the seat keeps its person's name), "heuristic bot"."""
    names = []
    for seat in table.seats:
        if seat.kind == "bot" and seat.name:
            names.append(f"{seat.name} (resigned, played by {seat.bot})")
        elif seat.kind == "bot":
            names.append(f"{seat.bot} bot")
        else:
            names.append(seat.name or f"seat {seat.seat + 1}")
    return tuple(names)


def about(table: Any, seat: int) -> About:
    game = table.game
    result = game.result() if game is not None and game.over else {}
    return About(
        rules=str(table.settings.get("rules", "")),
        names=seat_names(table),
        seat=seat,
        scores=tuple(int(x) for x in result.get("scores", ())),
        winners=tuple(int(x) for x in result.get("winners", ())),
    )


def _headers(settings: MailSettings, msg: EmailMessage, to: str, subject: str) -> None:
    """From, To, Subject, and the Date and Message-ID every well-formed message carries
    (without them spam filters score a message down)."""
    msg["From"] = settings.sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = formatdate(usegmt=True)
    domain = settings.sender.rsplit("@", 1)[-1].strip(">") or None
    msg["Message-ID"] = make_msgid("bohnanza", domain=domain)


def compose(
    settings: MailSettings, to: str, kind: str, table_id: str, token: str, game: About
) -> EmailMessage:
    """One message to one recipient (nobody else's address in it): which game (rule set,
    players), whose turn or the result, a link, and two ways out: no more messages of
    this kind (the one-click header's), or none at all to this address."""
    base = settings.base_url
    quiet = f"{base}/unsubscribe/{quote(token, safe='')}/{kind}"
    never = f"{base}/unsubscribe/{quote(token, safe='')}"
    msg = EmailMessage()
    players = ", ".join(game.names)
    you = game.names[game.seat] if 0 <= game.seat < len(game.names) else "you"
    if kind == "turn":
        _headers(settings, msg, to, "Bohnanza: your turn")
        link = f"{base}/t/{quote(table_id, safe='')}"
        text = (
            f"It is your turn ({you}) in the {game.rules} game at table {table_id}.\n"
            f"Players: {players}.\n\nPlay: {link}\n"
        )
    else:
        _headers(settings, msg, to, "Bohnanza: the game is over")
        link = f"{base}/replay/{quote(table_id, safe='')}"
        order = sorted(
            range(len(game.scores)), key=lambda s: (s not in game.winners, -game.scores[s])
        )
        lines = [
            f"  {game.names[s]}: {game.scores[s]} coins{' (won)' if s in game.winners else ''}"
            for s in order
            if s < len(game.names)
        ]
        text = (
            f"The {game.rules} game at table {table_id} is over.\n"
            + ("\n".join(lines) + "\n" if lines else "")
            + f"\nReplay: {link}\n"
        )
    msg["List-Unsubscribe"] = f"<{quiet}>"
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    what = "when it is your turn" if kind == "turn" else "when a game ends"
    text += f"\nNo more e-mails {what}: {quiet}\nNo e-mail at all to this address: {never}\n"
    msg.set_content(text)
    return msg


def compose_confirmation(settings: MailSettings, confirmation: Confirmation) -> EmailMessage:
    """The one message an address gets before it is confirmed; its unsubscribe link stops
    every account from mailing the address (somebody else typed it)."""
    base = settings.base_url
    unsubscribe = f"{base}/unsubscribe/{quote(confirmation.unsubscribe, safe='')}"
    link = f"{base}/confirm/{quote(confirmation.token, safe='')}"
    msg = EmailMessage()
    _headers(settings, msg, confirmation.address, "Bohnanza: confirm your address")
    msg["List-Unsubscribe"] = f"<{unsubscribe}>"
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg.set_content(
        "A player asked for Bohnanza's notices at this address.\n\n"
        f"If it was you, confirm: {link}\n\n"
        f"If it was not, nothing is sent unless you confirm; never mail me: {unsubscribe}\n"
    )
    return msg


def send_now(settings: MailSettings, message: EmailMessage) -> None:
    """Hand one message to the SMTP server (blocking; run in a thread)."""
    if settings.tls == "ssl":
        smtp: smtplib.SMTP = smtplib.SMTP_SSL(
            settings.host,
            settings.port,
            timeout=settings.timeout,
            context=ssl.create_default_context(),
        )
    else:
        smtp = smtplib.SMTP(settings.host, settings.port, timeout=settings.timeout)
    with smtp:
        if settings.tls == "starttls":
            smtp.starttls(context=ssl.create_default_context())
        if settings.user:
            smtp.login(settings.user, settings.password or "")
        smtp.send_message(message)


class Notifier:
    """The watcher: looks at the live tables every ``interval`` seconds and mails."""

    def __init__(self, settings: MailSettings, book: MailBook, accounts: Any, manager: Any) -> None:
        self.settings = settings
        self.book = book
        self.accounts = accounts
        self.manager = manager
        self.told: set[tuple[str, int, int]] = set()  # (table, seat, turn) looked at
        self.playing: set[str] = set()  # tables seen in play (an end is news)
        self.ended: set[str] = set()  # tables whose "game over" was looked at
        self.sent = 0
        self.task: asyncio.Task[None] | None = None
        self.sending: set[asyncio.Task[None]] = set()  # confirmations under way

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    def confirm(self, confirmation: Confirmation) -> None:
        """Send a confirmation message in the background (the request does not wait for
        the SMTP server)."""
        task = asyncio.get_running_loop().create_task(self._confirm(confirmation))
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)

    async def _confirm(self, confirmation: Confirmation) -> None:
        try:
            message = compose_confirmation(self.settings, confirmation)
            await asyncio.to_thread(send_now, self.settings, message)
            self.sent += 1
        except Exception as exc:
            log.warning("a confirmation e-mail was not sent: %s", exc)

    async def stop(self) -> None:
        for task in list(self.sending):
            task.cancel()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.settings.interval)
            try:
                await self.scan()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("e-mail notifications: a look at the tables failed")

    async def scan(self) -> None:
        for table in list(self.manager.tables.values()):
            game = table.game
            if table.status == "playing" and game is not None:
                self.playing.add(table.id)
                if not turn_based(str(table.settings.get("clock") or "none")):
                    continue  # a live table's absent player is played by a bot within minutes
                for seat in table.seats:
                    if seat.kind != "person" or seat.conns > 0 or seat.token_hash is None:
                        continue
                    key = (table.id, seat.seat, game.turn)
                    if key in self.told or not your_turn(table, seat.seat):
                        continue
                    self.told.add(key)
                    owners = await self._owners_by_seat(table, [seat.seat])
                    await self._mail(owners, "turn", table)
            elif (
                table.status == "over"
                and (table.id in self.playing or table.ended_here)
                and table.id not in self.ended
            ):
                # Seen in play, or ended in this process: a game that started and ended
                # between two looks was never seen in play and got no mail.
                self.playing.discard(table.id)
                self.ended.add(table.id)
                owners = await self._owners_by_seat(table, [s.seat for s in table.seats])
                await self._mail(owners, "end", table)
        if len(self.told) > 100_000:
            self.told.clear()
        if len(self.ended) > 100_000:  # finished games leave memory within minutes
            self.ended.clear()

    async def _owners_by_seat(self, table: Any, seats: list[int]) -> list[tuple[int, int]]:
        """(account, seat) of the accounts holding these seats (a resigned seat stays its
        account's)."""
        links = await asyncio.to_thread(self.accounts.account_seats, table.id)
        owners = []
        for number in seats:
            link = links.get(number)
            if link is None:
                continue
            held = table.seats[number]
            if held.kind == "bot" or link[1] in (held.token_hash, held.move_hash):
                owners.append((link[0], number))
        return owners

    async def _mail(self, owners: list[tuple[int, int]], kind: str, table: Any) -> None:
        seats = dict(owners)
        wanted = await asyncio.to_thread(self.book.recipients_of, list(seats), kind)
        for account, to, token in wanted:
            # One failing message (an address stored before the checks above, a refusal
            # by the server) is logged and skipped: it never stops the others' mail.
            try:
                game = about(table, seats[account])
                message = compose(self.settings, to, kind, table.id, token, game)
                await asyncio.to_thread(send_now, self.settings, message)
                self.sent += 1
            except Exception as exc:
                log.warning("e-mail to an account of table %s not sent: %s", table.id, exc)
