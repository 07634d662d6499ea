"""Several servers on one PostgreSQL database: each live table has one owner at a time.

One ``bohnanza serve`` holds its live tables in memory; two of them acting on the same
table would each extend their own copy of its game and interleave their writes. So a
table is *leased*: a row (``bohnanza_leases``) names the instance that owns it, a fencing
``token`` that grows with every change of owner, and when the lease expires. The owner
renews its leases every ``RENEW_EVERY`` seconds; every action it stores checks, **in the
same transaction** as the insert, that the row still names it with its token
(:meth:`Leases.fence`): an owner that stalled, lost its database connection or was
taken over can never write again, whatever the clocks say. Clocks only decide when
another instance may take over: the lease has expired (``LEASE_TTL``), or its owner's
heartbeat (``bohnanza_instances``) is stale, or its owner is a process on this host that
is gone (a ``kill -9`` in a rolling restart: taken over at once).

An instance takes a table when it loads it (a request for it, its start-up resume) and
keeps looking for orphans (unfinished tables whose owner is gone) to resume their games,
so that bots and clocks go on. A request for a table another live instance owns is
forwarded to that instance (``web/forward.py``).

SQLite is one process's database: there are no leases; a second server on the same file
is refused at start (:func:`lock_sqlite_file`).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Float, ForeignKey, Integer, String, delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from .store import Base, Store, TableRow

log = logging.getLogger("bohnanza.web")

#: Seconds a lease lasts without renewal; another instance may take the table after.
LEASE_TTL = 4.0
#: Seconds between two renewals of an instance's leases (and heartbeats).
RENEW_EVERY = 1.0
#: An instance whose heartbeat is older than this is gone.
HEARTBEAT_DEAD = 3.0
#: A table is handed to the instance its requests come through (web/tables.py:
#: ``Manager.hand_off``) no sooner than this many seconds after it was taken: a proxy
#: that spreads one table's sockets over several instances must not bounce it.
HAND_OFF_AFTER = 10.0


class LeaseRow(Base):
    __tablename__ = "bohnanza_leases"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("bohnanza_tables.id"), primary_key=True
    )
    owner: Mapped[str] = mapped_column(String(64))
    token: Mapped[int] = mapped_column(Integer)
    expires: Mapped[float] = mapped_column(Float)


class InstanceRow(Base):
    """A running server: where its peers reach it, and its last heartbeat."""

    __tablename__ = "bohnanza_instances"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    url: Mapped[str] = mapped_column(String(300))
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    # Proves a forwarded request comes from this instance (web/forward.py): the peer
    # then takes the client address it names, for its per-address limits.
    secret: Mapped[str] = mapped_column(String(64))
    seen: Mapped[float] = mapped_column(Float)


@dataclass(frozen=True, slots=True)
class Owner:
    """Another live instance that owns a table, and where to reach it."""

    instance: str
    url: str


class LeaseLost(Exception):
    """This instance does not own the table any more: another took it over."""


class Elsewhere(Exception):
    """Another live instance owns the table asked for: the request goes there."""

    def __init__(self, owner: Owner) -> None:
        super().__init__(owner.instance)
        self.owner = owner


class Leases:
    """This instance's leases on one database."""

    def __init__(self, store: Store, url: str, ttl: float = LEASE_TTL) -> None:
        self.store = store
        self.url = url
        self.ttl = ttl
        self.id = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"
        self.host = socket.gethostname()
        self.held: dict[str, int] = {}  # table id -> fencing token
        self.since: dict[str, float] = {}  # table id -> when this instance took it
        self.secret = secrets.token_hex(24)
        self.peers: dict[str, str] = {}  # live instances' ids -> secrets (renew)

    # ------------------------------------------------------------------ life cycle

    def register(self) -> None:
        """Announce this instance (its heartbeat row, with where it is reached)."""
        with self.store.engine.begin() as conn:
            conn.execute(delete(InstanceRow).where(InstanceRow.id == self.id))
            conn.execute(
                insert(InstanceRow).values(
                    id=self.id,
                    url=self.url,
                    host=self.host,
                    pid=os.getpid(),
                    secret=self.secret,
                    seen=time.time(),
                )
            )

    def renew(self) -> None:
        """The heartbeat, and every lease of this instance extended (one statement)."""
        now = time.time()
        with self.store.engine.begin() as conn:
            conn.execute(update(InstanceRow).where(InstanceRow.id == self.id).values(seen=now))
            # Not the leases given up (``release``: expires 0): renewed, a table handed
            # off was this instance's again for the next instance to ask, which was
            # forwarded back here and the table handed off a second time.
            conn.execute(
                update(LeaseRow)
                .where(LeaseRow.owner == self.id, LeaseRow.expires > 0.0)
                .values(expires=now + self.ttl)
            )
            live = conn.execute(
                select(InstanceRow.id, InstanceRow.secret).where(
                    InstanceRow.seen > now - HEARTBEAT_DEAD
                )
            ).all()
        self.peers = {row.id: row.secret for row in live}

    def close(self) -> None:
        """Give every lease up at once (a clean stop: another instance need not wait)."""
        with contextlib.suppress(Exception), self.store.engine.begin() as conn:
            conn.execute(update(LeaseRow).where(LeaseRow.owner == self.id).values(expires=0.0))
            conn.execute(delete(InstanceRow).where(InstanceRow.id == self.id))
        self.held.clear()

    # ------------------------------------------------------------------ owning

    def _gone(self, conn: Connection, owner: str, now: float) -> bool:
        row = conn.execute(select(InstanceRow).where(InstanceRow.id == owner)).first()
        if row is None or now - row.seen > HEARTBEAT_DEAD:
            return True
        if row.host == self.host and row.pid != os.getpid():
            try:
                os.kill(row.pid, 0)
            except ProcessLookupError:
                return True  # killed on this host: no need to wait out its lease
            except PermissionError:
                return False
        return False

    def created(self, conn: Connection, table_id: str) -> None:
        """Inside the write that makes a table (``Store.on_create``): it is ours from
        the start (else another instance's look for orphans could take it first)."""
        conn.execute(
            insert(LeaseRow).values(
                table_id=table_id, owner=self.id, token=1, expires=time.time() + self.ttl
            )
        )
        self.held[table_id] = 1
        self.since[table_id] = time.monotonic()

    def acquire(self, table_id: str) -> Owner | None:
        """Own ``table_id`` now (None), or the live instance that owns it; raises
        LeaseLost if another instance won a race for it just now."""
        try:
            return self._acquire(table_id)
        except IntegrityError:  # both inserted the first lease at once: the other won
            raise LeaseLost(table_id) from None

    def _acquire(self, table_id: str) -> Owner | None:
        """Own ``table_id`` now (None), or the live instance that owns it. The read and
        the write are one transaction, the row locked on PostgreSQL: of two instances
        claiming one table at once exactly one wins."""
        now = time.time()
        with self.store.engine.begin() as conn:
            query = select(LeaseRow).where(LeaseRow.table_id == table_id)
            if conn.dialect.name == "postgresql":
                query = query.with_for_update()
            row = conn.execute(query).first()
            if row is None:
                if conn.execute(select(TableRow.id).where(TableRow.id == table_id)).first():
                    # Two instances may insert at once: the primary key refuses one.
                    conn.execute(
                        insert(LeaseRow).values(
                            table_id=table_id, owner=self.id, token=1, expires=now + self.ttl
                        )
                    )
                    self.held[table_id] = 1
                    self.since[table_id] = time.monotonic()
                return None
            if row.owner == self.id and self.held.get(table_id) == row.token:
                conn.execute(
                    update(LeaseRow)
                    .where(LeaseRow.table_id == table_id)
                    .values(expires=now + self.ttl)
                )
                return None
            if row.owner != self.id and row.expires > now and not self._gone(conn, row.owner, now):
                peer = conn.execute(
                    select(InstanceRow.url).where(InstanceRow.id == row.owner)
                ).scalar()
                return Owner(row.owner, str(peer or ""))
            token = row.token + 1
            taken = conn.execute(
                update(LeaseRow)
                .where(LeaseRow.table_id == table_id, LeaseRow.token == row.token)
                .values(owner=self.id, token=token, expires=now + self.ttl)
            ).rowcount
            if taken != 1:  # another instance took it between the read and the write
                raise LeaseLost(table_id)
            if row.owner != self.id:
                log.info("took over table %s from %s (token %d)", table_id, row.owner, token)
            self.held[table_id] = token
            self.since[table_id] = time.monotonic()
            return None

    def fence(self, conn: Connection, table_id: str) -> None:
        """Inside the transaction of a write to ``table_id``: still ours, with our token
        (else raise LeaseLost and the write is rolled back). Extends the lease."""
        token = self.held.get(table_id)
        ok = token is not None and (
            conn.execute(
                update(LeaseRow)
                .where(
                    LeaseRow.table_id == table_id,
                    LeaseRow.owner == self.id,
                    LeaseRow.token == token,
                )
                .values(expires=time.time() + self.ttl)
            ).rowcount
            == 1
        )
        if not ok:
            self.held.pop(table_id, None)
            raise LeaseLost(table_id)

    def release(self, table_id: str) -> None:
        """Let the table go (it left this instance's memory)."""
        self.since.pop(table_id, None)
        if self.held.pop(table_id, None) is None:
            return
        with contextlib.suppress(Exception), self.store.engine.begin() as conn:
            conn.execute(
                update(LeaseRow)
                .where(LeaseRow.table_id == table_id, LeaseRow.owner == self.id)
                .values(expires=0.0)
            )

    def orphans(self, limit: int = 50) -> list[str]:
        """Unfinished tables that no live instance owns (never leased, expired, or their
        owner gone), oldest first: to resume, so that their bots and clocks go on."""
        now = time.time()
        with self.store.engine.connect() as conn:
            rows = conn.execute(
                select(TableRow.id, LeaseRow.owner, LeaseRow.expires)
                .join(LeaseRow, LeaseRow.table_id == TableRow.id, isouter=True)
                .where(TableRow.status.in_(("lobby", "playing")))
                .order_by(TableRow.created)
            ).all()
            out = []
            for table_id, owner, expires in rows:
                if owner == self.id:
                    continue
                if owner is None or expires <= now or self._gone(conn, owner, now):
                    out.append(table_id)
                if len(out) >= limit:
                    break
            return out


def lock_sqlite_file(path: Path) -> IO[Any]:
    """Hold an exclusive lock beside a SQLite database for this process's life: two
    servers on one file would each keep their own copy of every live game. Raises
    RuntimeError if another process holds it."""
    handle = open(str(path) + ".lock", "a+")  # noqa: SIM115 (held for the process's life)
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise RuntimeError(
            f"another bohnanza server uses {path}: one server per SQLite file "
            "(several servers share a PostgreSQL database: --database-url postgresql://...)"
        ) from None
    return handle
