"""Optional accounts: a name and a password, sessions in a cookie, seats claimed.

Guests play exactly as before (a seat is its token, kept by the browser). A player who
registers gets a session cookie (``bohnanza_session``: HttpOnly, SameSite=Lax, Secure
over https); the database keeps the SHA-256 of the session token and an Argon2id hash of
the password (argon2-cffi), never either in clear. A seat becomes an account's when the
browser holding its token claims it (``claim``): the account may then open that seat from
any device (``seat_token`` moves it there, like "continue on another device"), finds it
among "your games", and its finished rated games count for its rating (web/ratings.py).

Names are unique by a *key* (:func:`name_key`) that folds case, compatibility forms,
accents, separators and the look-alike characters 0/o, 1/l/i, rn/m, vv/w: two names that
look alike cannot both be registered. Letters must come from one script (no Latin "a"
next to a Cyrillic "а"), digits are ASCII, and control, format and invisible characters
are refused, never silently dropped.

Abuse: registrations are limited per address, logins per address and failed logins per
name (HTTP 429 with ``Retry-After``); a login for a name that does not exist costs the
same Argon2 verification as one that does, so the answer's timing does not say which
names exist.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import secrets
import time
import unicodedata
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Float, ForeignKey, Integer, String, delete, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker

from .limits import BLANKS
from .store import Base, Store, TableRow

_R = TypeVar("_R")

#: The session cookie's name.
COOKIE = "bohnanza_session"
#: How long a session lasts without being used (seconds): 30 days.
SESSION_TTL = 30 * 24 * 3600.0
#: A session's ``seen`` time is written at most this often (not on every request).
SEEN_EVERY = 3600.0
NAME_MIN, NAME_MAX = 3, 24
PASSWORD_MIN, PASSWORD_MAX = 8, 256
#: Separators allowed inside a name (never first, last or two in a row).
SEPARATORS = frozenset(" -_.")
#: Look-alikes folded together in a name's key, after case folding and accents.
LOOKALIKES = (("rn", "m"), ("vv", "w"), ("0", "o"), ("1", "l"), ("i", "l"))
#: Seats one claim request may hold (its body stays under the 2 KiB of small requests).
CLAIM_MAX = 25


class AccountRow(Base):
    __tablename__ = "bohnanza_accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))  # as registered (NFKC)
    name_key: Mapped[str] = mapped_column(String(128), unique=True)  # name_key(name)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created: Mapped[float] = mapped_column(Float)


class AccountSessionRow(Base):
    __tablename__ = "bohnanza_account_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("bohnanza_accounts.id"), index=True)
    created: Mapped[float] = mapped_column(Float)
    seen: Mapped[float] = mapped_column(Float)


class SeatAccountRow(Base):
    """A seat claimed by an account. It holds while the seat's token is the one claimed
    (``token_hash``): a seat freed and taken by somebody else is not the account's."""

    __tablename__ = "bohnanza_seat_accounts"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("bohnanza_tables.id"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("bohnanza_accounts.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64))


class AccountError(Exception):
    """A request refused: ``status`` and ``code`` for the HTTP answer; nothing changed."""

    def __init__(
        self, message: str, status: int = 400, code: str = "bad_request", retry: int = 0
    ) -> None:
        super().__init__(message)
        self.message, self.status, self.code, self.retry = message, status, code, retry


@dataclass(slots=True)
class AccountLimits:
    """Per-address and per-name limits of the account routes (0: off)."""

    register_per_hour: int = 5  # accounts one address may register an hour
    login_per_minute: int = 10  # login attempts from one address a minute
    failures_per_name: int = 5  # failed logins for one name from one address ...
    failure_window: float = 900.0  # ... within this many seconds, then 429 for the pair
    # Failed logins for one name from all addresses together in the window: a slowdown
    # for guessing spread over many addresses, set high so that no single stranger can
    # lock a player out (the per-address count above stops one address alone).
    failures_per_name_total: int = 100
    # Argon2id cost: argon2-cffi's default profile (RFC 9106, low memory: 64 MiB, 3 passes).
    hash_time_cost: int = 3
    hash_memory_kib: int = 65536
    # Password hashing runs on threads of its own, never in the pool that commits moves:
    # this many at once, and at most ``password_queue`` more waiting; past that a login
    # or registration gets 429 with Retry-After (PasswordChecks).
    password_threads: int = 1
    password_queue: int = 8


class PasswordChecks:
    """Where registrations and logins run: argon2 is made to be slow (about 0.1 s of a
    core each), and in the event loop's shared thread pool a burst of wrong passwords
    queued in front of every game's commits (30 logins from 3 addresses delayed a seated
    player's move by 5-7 s). Here they have ``threads`` threads of their own, and no
    more than ``queue`` wait: the rest are refused at once with 429, so that a burst
    costs its senders time, not the players. Used from the event loop only (the count
    needs no lock)."""

    def __init__(self, threads: int, queue: int) -> None:
        self.pool = ThreadPoolExecutor(max(1, threads), "password")
        self.cap = max(1, threads) + max(0, queue)
        self.busy = 0

    async def run(self, fn: Callable[..., _R], *args: Any) -> _R:
        if self.busy >= self.cap:
            raise AccountError(
                "too many logins at once on this server; try again in a few seconds",
                429,
                "busy",
                retry=2,
            )
        self.busy += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self.pool, functools.partial(fn, *args)
            )
        finally:
            self.busy -= 1

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


@dataclass(slots=True)
class Window:
    """Events per key in a sliding window: ``hit`` says how long to wait when full."""

    limit: int
    period: float
    seen: dict[str, deque[float]] = field(default_factory=dict)

    def full(self, key: str, now: float) -> int | None:
        if self.limit <= 0:
            return None
        times = self.seen.get(key)
        if times is None:
            return None
        while times and times[0] <= now - self.period:
            times.popleft()
        if not times:
            del self.seen[key]
            return None
        if len(times) >= self.limit:
            return max(1, int(times[0] + self.period - now) + 1)
        return None

    def add(self, key: str, now: float) -> None:
        if self.limit > 0:
            self.seen.setdefault(key, deque()).append(now)
            if len(self.seen) > 100_000:  # a flood of distinct keys: forget the oldest
                self.seen.pop(next(iter(self.seen)))

    def hit(self, key: str, now: float) -> int | None:
        """Count one event, unless the window is full: then the seconds to wait."""
        wait = self.full(key, now)
        if wait is None:
            self.add(key, now)
        return wait


# ------------------------------------------------------------------ names


def _script(ch: str) -> str:
    """A letter's script, by the first word of its Unicode name (LATIN, CYRILLIC, GREEK,
    CJK, HIRAGANA, ...); Japanese kana and CJK ideographs count as one script."""
    word = unicodedata.name(ch, "UNKNOWN").split(" ", 1)[0]
    return "CJK" if word in ("HIRAGANA", "KATAKANA", "CJK") else word


def check_name(raw: str) -> tuple[str, str]:
    """The name to show (NFKC) and its key, or AccountError saying what is wrong."""
    if not isinstance(raw, str):
        raise AccountError("the name must be text", code="bad_name")
    name = unicodedata.normalize("NFKC", raw)
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise AccountError(f"a name has {NAME_MIN} to {NAME_MAX} characters", code="bad_name")
    scripts: set[str] = set()
    marks = 0
    previous = ""
    for ch in name:
        cat = unicodedata.category(ch)
        invisible = ch in BLANKS  # letters that draw nothing (Hangul fillers, ...)
        if invisible or cat[0] == "C" or cat in ("Zl", "Zp") or (cat == "Zs" and ch != " "):
            raise AccountError(
                f"a name may not hold control, format or invisible characters (U+{ord(ch):04X})",
                code="bad_name",
            )
        if cat[0] == "L":
            scripts.add(_script(ch))
            marks = 0
        elif cat[0] == "M":
            marks += 1
            if not previous or previous in SEPARATORS or marks > 2:
                raise AccountError("accents belong on letters", code="bad_name")
        elif cat == "Nd":
            if not "0" <= ch <= "9":
                raise AccountError("digits in a name are 0-9", code="bad_name")
            marks = 0
        elif ch in SEPARATORS:
            if not previous or previous in SEPARATORS:
                raise AccountError(
                    "space, '-', '_' and '.' go between letters or digits, one at a time",
                    code="bad_name",
                )
            marks = 0
        else:
            raise AccountError(
                "a name holds letters, digits 0-9, and single spaces, '-', '_' or '.'",
                code="bad_name",
            )
        previous = ch
    if name[-1] in SEPARATORS:
        raise AccountError("a name does not end with a separator", code="bad_name")
    if not scripts:
        raise AccountError("a name holds at least one letter", code="bad_name")
    if len(scripts) > 1:
        raise AccountError(
            "a name's letters come from one alphabet (no Latin mixed with Cyrillic, ...)",
            code="bad_name",
        )
    return name, name_key(name)


def name_key(name: str) -> str:
    """What two names must not share: case-folded, accents and separators dropped,
    look-alikes (0/o, 1/l/i, rn/m, vv/w) folded together."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name).casefold())
    key = "".join(
        ch for ch in folded if not unicodedata.category(ch).startswith("M") and ch not in SEPARATORS
    )
    for a, b in LOOKALIKES:
        key = key.replace(a, b)
    return key


def check_password(password: str, name: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise AccountError(
            f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters", code="bad_password"
        )
    if name_key(password) == name_key(name):
        raise AccountError("the password may not be the name", code="bad_password")


def hash_session(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Account:
    id: int
    name: str
    created: float


# ------------------------------------------------------------------ the service


class Accounts:
    """Registration, login, sessions and claimed seats, on the store's database.
    Methods are synchronous (the routes run them in a thread); limits are in memory."""

    def __init__(self, store: Store, limits: AccountLimits | None = None) -> None:
        self.store = store
        self.limits = limits if limits is not None else AccountLimits()
        self.hasher = PasswordHasher(
            time_cost=self.limits.hash_time_cost, memory_cost=self.limits.hash_memory_kib
        )
        # A hash of nothing anybody knows: a login for a missing name is verified
        # against it, and so takes as long as one for a name that exists. Made at the
        # first login (not at every start: it costs one Argon2 hash).
        self._decoy_hash: str | None = None
        self._session = sessionmaker(store.engine, expire_on_commit=False)
        self.registrations = Window(self.limits.register_per_hour, 3600.0)
        self.logins = Window(self.limits.login_per_minute, 60.0)
        self.failures = Window(self.limits.failures_per_name, self.limits.failure_window)
        self.failures_total = Window(
            self.limits.failures_per_name_total, self.limits.failure_window
        )

    @property
    def _decoy(self) -> str:
        if self._decoy_hash is None:
            self._decoy_hash = self.hasher.hash(secrets.token_urlsafe(16))
        return self._decoy_hash

    def _tx(self) -> Session:
        return self._session()

    # -------------------------------------------------------------- accounts

    def register(self, name: str, password: str, address: str) -> tuple[Account, str]:
        """A new account and a session token for it."""
        shown, key = check_name(name)
        check_password(password, shown)
        now = time.time()
        if self.by_name(shown) is not None:  # cheap, before the costly hash
            raise AccountError("that name (or one that looks like it) is taken", 409, "name_taken")
        # Every attempt that gets as far as the hash counts (64 MiB of Argon2 each): a
        # flood of registrations costs its sender the limit, not the server its memory.
        wait = self.registrations.hit(address, now)
        if wait is not None:
            raise AccountError(
                "too many new accounts from this address; try later", 429, "rate_limited", wait
            )
        digest = self.hasher.hash(password)
        with self._tx() as s, s.begin():
            if s.scalar(select(AccountRow.id).where(AccountRow.name_key == key)) is not None:
                raise AccountError(
                    "that name (or one that looks like it) is taken", 409, "name_taken"
                )
            row = AccountRow(name=shown, name_key=key, password_hash=digest, created=now)
            s.add(row)
            s.flush()
            account = Account(row.id, row.name, row.created)
            token = self._new_session(s, account.id, now)
        return account, token

    def login(self, name: str, password: str, address: str) -> tuple[Account, str]:
        now = time.time()
        wait = self.logins.hit(address, now)
        if wait is not None:
            raise AccountError(
                "too many login attempts from this address; try later", 429, "rate_limited", wait
            )
        key = name_key(name) if isinstance(name, str) and len(name) <= 4 * NAME_MAX else ""
        # Failures count per (address, name): a stranger guessing from one address locks
        # that pair only, never the owner out of their own account from elsewhere.
        pair = f"{address}\n{key}"
        wait = self.failures.full(pair, now) or self.failures_total.full(key, now)
        if wait is not None:
            raise AccountError(
                "too many failed logins for this name; try later", 429, "rate_limited", wait
            )
        with self._tx() as s:
            row = s.scalar(select(AccountRow).where(AccountRow.name_key == key)) if key else None
            stored = row.password_hash if row is not None and row.password_hash else self._decoy
        good: bool
        try:
            good = self.hasher.verify(stored, password[:PASSWORD_MAX])
        except (VerificationError, InvalidHashError):
            good = False
        if not good or row is None or row.password_hash is None:
            self.failures.add(pair, now)
            self.failures_total.add(key, now)
            raise AccountError("wrong name or password", 401, "bad_login")
        with self._tx() as s, s.begin():
            if self.hasher.check_needs_rehash(row.password_hash):
                s.execute(
                    update(AccountRow)
                    .where(AccountRow.id == row.id)
                    .values(password_hash=self.hasher.hash(password))
                )
            token = self._new_session(s, row.id, now)
        return Account(row.id, row.name, row.created), token

    def _new_session(self, s: Session, account_id: int, now: float) -> str:
        token = secrets.token_urlsafe(32)
        s.add(
            AccountSessionRow(
                token_hash=hash_session(token), account_id=account_id, created=now, seen=now
            )
        )
        return token

    def session_account(self, token: str | None) -> Account | None:
        """The account of a session cookie, or None (none, unknown, expired)."""
        if not token or len(token) > 100:
            return None
        digest = hash_session(token)
        now = time.time()
        with self._tx() as s:
            found = s.execute(
                select(AccountSessionRow, AccountRow)
                .join(AccountRow, AccountRow.id == AccountSessionRow.account_id)
                .where(AccountSessionRow.token_hash == digest)
            ).first()
            if found is None:
                return None
            sess, acc = found
            if not hmac.compare_digest(sess.token_hash, digest):
                return None
            if sess.seen < now - SESSION_TTL:
                s.execute(delete(AccountSessionRow).where(AccountSessionRow.token_hash == digest))
                s.commit()
                return None
            if sess.seen < now - SEEN_EVERY:
                s.execute(
                    update(AccountSessionRow)
                    .where(AccountSessionRow.token_hash == digest)
                    .values(seen=now)
                )
                s.commit()
            return Account(acc.id, acc.name, acc.created)

    def logout(self, token: str) -> None:
        with self._tx() as s, s.begin():
            s.execute(
                delete(AccountSessionRow).where(AccountSessionRow.token_hash == hash_session(token))
            )

    def logout_everywhere(self, account_id: int) -> int:
        """End every session of the account (a cookie copied elsewhere dies too)."""
        with self._tx() as s, s.begin():
            ended = s.scalars(
                select(AccountSessionRow.token_hash).where(
                    AccountSessionRow.account_id == account_id
                )
            ).all()
            s.execute(delete(AccountSessionRow).where(AccountSessionRow.account_id == account_id))
        return len(ended)

    def by_name(self, name: str) -> Account | None:
        if not isinstance(name, str) or len(name) > 4 * NAME_MAX:
            return None
        with self._tx() as s:
            row = s.scalar(select(AccountRow).where(AccountRow.name_key == name_key(name)))
            return Account(row.id, row.name, row.created) if row is not None else None

    # -------------------------------------------------------------- seats

    def link_seat(self, account_id: int, table_id: str, seat: int, token_hash: str) -> None:
        """The seat (whose token the caller checked) is the account's."""
        with self._tx() as s, s.begin():
            s.merge(
                SeatAccountRow(
                    table_id=table_id, seat=seat, account_id=account_id, token_hash=token_hash
                )
            )

    def seats_of(self, account_id: int, limit: int = 100) -> list[tuple[str, int, str]]:
        """(table, seat, token hash) of the seats the account claimed at tables in the
        lobby or in play, newest table first."""
        with self._tx() as s:
            rows = s.execute(
                select(SeatAccountRow.table_id, SeatAccountRow.seat, SeatAccountRow.token_hash)
                .join(TableRow, TableRow.id == SeatAccountRow.table_id)
                .where(
                    SeatAccountRow.account_id == account_id,
                    TableRow.status.in_(("lobby", "playing")),
                )
                .order_by(TableRow.created.desc())
                .limit(limit)
            ).all()
            return [(r[0], r[1], r[2]) for r in rows]

    def account_seats(self, table_id: str) -> dict[int, tuple[int, str]]:
        """seat -> (account, token hash) of a table's claimed seats."""
        with self._tx() as s:
            rows = s.execute(
                select(
                    SeatAccountRow.seat, SeatAccountRow.account_id, SeatAccountRow.token_hash
                ).where(SeatAccountRow.table_id == table_id)
            ).all()
            return {r[0]: (r[1], r[2]) for r in rows}


def follow_moved_seat(
    conn: Connection, table_id: str, seat: int, old_hash: str | None, new_hash: str
) -> None:
    """A seat moved to another device keeps its account (``Store.on_seat_moved``): the
    claim held the old token's hash, and a claim whose hash is not the seat's is void, so
    a player who lost could void a rated game by moving the seat."""
    if old_hash is None:
        return
    conn.execute(
        update(SeatAccountRow)
        .where(
            SeatAccountRow.table_id == table_id,
            SeatAccountRow.seat == seat,
            SeatAccountRow.token_hash == old_hash,
        )
        .values(token_hash=new_hash)
    )


def public(account: Account) -> dict[str, Any]:
    return {"id": account.id, "name": account.name, "created": account.created}
