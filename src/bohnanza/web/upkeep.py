"""The server's housekeeping and the table host's controls.

* :func:`upkeep` runs for the server's lifetime: lobby tables nobody is connected to
  expire (they are deleted: no game was played), finished games leave memory once
  their last connection has closed (they are read back from the database on demand).
* :class:`BotPools` runs the bots' decisions apart from the database's threads: a
  bounded thread pool, and processes for the ``search`` bot (pure Python thinking for a
  second would otherwise hold the interpreter lock against the event loop), with a
  server-wide cap on search seats at full budget.
* :func:`host_command` and :func:`check_chat`: what a table's host may change (remove a
  player before the start, make the table private, spectator chat, mutes) and what a
  chat line must pass.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import multiprocessing
import secrets
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import TYPE_CHECKING

from ..actions import Action
from ..agents.base import Agent
from ..agents.search import SearchAgent
from ..views import View
from .limits import Guard, Limits, clean_text
from .model import ban_key
from .protocol import ClientMessage, ProtocolError
from .standin import done

if TYPE_CHECKING:
    from .model import Conn, Table
    from .tables import Manager

log = logging.getLogger("bohnanza.web")

#: Keys the chatter ids of spectators (an address must not be readable from its id).
_CHATTER_KEY = secrets.token_bytes(16)


# ------------------------------------------------------------------ upkeep


async def upkeep(manager: Manager) -> None:
    """Expire idle lobby tables and unload finished games, every few seconds."""
    lim = manager.settings.limits
    times = [t for t in (lim.lobby_expiry, lim.finished_grace) if t > 0]
    interval = max(0.2, min([5.0, *(t / 4 for t in times)]))
    while True:
        await asyncio.sleep(interval)
        try:
            await sweep(manager, time.monotonic())
        except Exception:
            log.exception("the server's upkeep failed; trying again")


async def sweep(manager: Manager, now: float) -> None:
    lim = manager.settings.limits
    for table in list(manager.tables.values()):
        if table.conns:
            table.touched = now
            continue
        idle = now - table.touched
        if table.status == "lobby" and lim.lobby_expiry > 0 and idle >= lim.lobby_expiry:
            async with table.lock:
                if table.conns or table.status != "lobby":
                    continue
                try:
                    await asyncio.to_thread(manager.store.delete_lobby_table, table.id)
                except Exception:
                    log.warning("could not delete the idle lobby table %s", table.id)
                    continue
                manager.tables.pop(table.id, None)
                manager.bots.forget(table.id)
                log.info("lobby table %s expired (nobody connected)", table.id)
        elif (
            table.status in ("over", "broken")
            and lim.finished_grace > 0
            and idle >= lim.finished_grace
            and (table.pump is None or table.pump.done())
        ):
            manager.tables.pop(table.id, None)
            manager.bots.forget(table.id)


def spectator_may_join(table: Table, cap: int) -> bool:
    watching = sum(1 for c in table.conns if c.authed and c.seat is None and not c.closed)
    return watching < cap


# ------------------------------------------------------------------ bots


def _search_decide(
    agent: Agent, view: View, legal: Sequence[Action], required: bool
) -> tuple[Action | None, Agent]:
    """In a worker process: the decision, and the agent with what it learned."""
    return agent.act(view, legal, required), agent


class BotPools:
    """Where bots think: never in the threads that talk to the database."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.threads = ThreadPoolExecutor(max(1, limits.bot_threads), "bot")
        self._processes: Executor | None = None
        self.fell_back: set[str] = set()  # tables told (in the log) of the short budget
        self.full: dict[tuple[str, int], float | None] = {}  # search seats' own budgets

    def processes(self) -> Executor:
        if self._processes is None:
            if self.limits.search_processes <= 0:
                self._processes = self.threads
            else:
                methods = multiprocessing.get_all_start_methods()
                ctx = multiprocessing.get_context(
                    "forkserver" if "forkserver" in methods else "spawn"
                )
                self._processes = ProcessPoolExecutor(self.limits.search_processes, ctx)
        return self._processes

    def forget(self, table_id: str) -> None:
        """Drop what is kept about a table that left memory."""
        self.fell_back.discard(table_id)
        for key in [k for k in self.full if k[0] == table_id]:
            del self.full[key]

    def close(self) -> None:
        self.threads.shutdown(wait=False, cancel_futures=True)
        if self._processes is not None and self._processes is not self.threads:
            self._processes.shutdown(wait=False, cancel_futures=True)

    def full_budget(self, tables: Mapping[str, Table], table: Table, seat: int) -> bool:
        """Whether this search seat is among the first ``search_total`` of the server's
        (tables in order of creation): beyond them, search bots think briefly."""
        cap = self.limits.search_total
        if cap <= 0:
            return True
        rank = 0
        for t in sorted(tables.values(), key=lambda t: (t.created, t.id)):
            if t.status != "playing":
                continue
            for s in t.seats:
                if s.kind == "bot" and s.bot == "search":
                    if t is table and s.seat == seat:
                        return rank < cap
                    rank += 1
        return True

    async def decide(
        self,
        tables: Mapping[str, Table],
        table: Table,
        seat: int,
        kind: str,
        view: View,
        legal: Sequence[Action],
        required: bool,
    ) -> Action | None:
        agent = table.agents[(seat, kind)]
        loop = asyncio.get_running_loop()
        if not isinstance(agent, SearchAgent):
            return await loop.run_in_executor(self.threads, agent.act, view, legal, required)
        full = self.full.setdefault((table.id, seat), agent.seconds)
        if self.full_budget(tables, table, seat):
            agent.seconds = full
        else:
            agent.seconds = min(full or 1.0, self.limits.search_fallback)
            if table.id not in self.fell_back:
                self.fell_back.add(table.id)
                log.warning(
                    "table %s: more than %d search bots are playing; its search bots think "
                    "%.2f s a move instead of %s",
                    table.id,
                    self.limits.search_total,
                    self.limits.search_fallback,
                    full,
                )
        pool = self.processes()
        try:
            choice, after = await loop.run_in_executor(
                pool, _search_decide, agent, view, list(legal), required
            )
        except BrokenExecutor:
            # A worker died (killed, out of memory): the next decision gets a new pool.
            if self._processes is pool:
                self._processes = None
                pool.shutdown(wait=False, cancel_futures=True)
            raise
        table.agents[(seat, kind)] = after
        return choice


# ------------------------------------------------------------------ chat and host


def chatter_id(table: Table, conn: Conn) -> str:
    """Who wrote a chat line, as the host may name them to mute: ``s<seat>`` for a
    player, an opaque id (keyed digest of table and address) for a spectator."""
    if conn.seat is not None:
        return f"s{conn.seat}"
    return watcher_id(table, conn.address)


def watcher_id(table: Table, address: str) -> str:
    """The chatter id of an address at a table (the address must not be readable)."""
    digest = hmac.new(_CHATTER_KEY, f"{table.id} {address}".encode(), hashlib.sha256)
    return "v" + digest.hexdigest()[:12]


def check_chat(guard: Guard, conn: Conn, msg: ClientMessage) -> str:
    """The chat line to store and show, or a ProtocolError why it is refused. A muted
    person is muted in every role: by their seat, and by their address (as a spectator,
    or in a seat they take later). Only a line that passes every check is charged to
    the chat budgets (``Guard.may_chat``)."""
    table = conn.table
    text = clean_text(msg.text or "").strip()
    if not text:
        raise ProtocolError("bad_message", "chat needs a non-empty text", msg.id)
    if conn.seat is None and not table.settings.get("spectator_chat", True):
        raise ProtocolError("not_allowed", "the host has turned spectator chat off", msg.id)
    muted = table.settings.get("muted", ())
    by_address = conn.seat is None or conn.seat != table.host()  # the host: never muted
    if chatter_id(table, conn) in muted or (
        by_address and watcher_id(table, conn.address) in muted
    ):
        raise ProtocolError("muted", "the host has muted you at this table", msg.id)
    if not guard.may_chat(conn.address, table.id, seated=conn.seat is not None):
        raise ProtocolError("rate_limited", "too many chat messages; wait a little", msg.id)
    return text


def _seat_addresses(table: Table, seat_no: int) -> set[str]:
    """The addresses a seat's person uses: the one that took the seat, and those of its
    connections now."""
    seat = table.seats[seat_no]
    found = {c.address for c in table.conns if c.seat == seat_no and c.address}
    return found | ({seat.address} if seat.address else set())


async def host_command(manager: Manager, conn: Conn, msg: ClientMessage) -> None:
    """Carry out a ``host`` message from the table's host (the person holding the host's
    token: its creator, or whom the role passed to, ``Table.pass_host``)."""
    table = conn.table
    async with table.lock:
        host = table.host()
        if host is None or conn.seat != host:
            raise ProtocolError("not_host", "only the table's host can do that", msg.id)
        settings = dict(table.settings)
        if msg.op == "remove":
            await _remove(manager, table, conn, msg)
            return
        if msg.op == "private":
            settings["private"] = bool(msg.value)
        elif msg.op == "spectator_chat":
            settings["spectator_chat"] = bool(msg.value)
        else:
            # A player is muted by seat and by their addresses (``mute_links``), so that
            # they cannot chat on as a spectator; unmuting lifts both.
            chatter = str(msg.chatter)
            links: dict[str, list[str]] = dict(settings.get("mute_links", {}))
            lifted = {chatter, *links.pop(chatter, [])}
            muted = [m for m in settings.get("muted", []) if m not in lifted]
            if msg.op == "mute":
                if chatter == f"s{host}":
                    raise ProtocolError("not_allowed", "you cannot mute yourself", msg.id)
                linked: list[str] = []
                if chatter[:1] == "s" and chatter[1:].isdigit():
                    seat_no = int(chatter[1:])
                    if seat_no < len(table.seats):
                        own = {watcher_id(table, a) for a in _seat_addresses(table, host)}
                        linked = sorted(
                            {watcher_id(table, a) for a in _seat_addresses(table, seat_no)} - own
                        )
                muted += [chatter, *linked]
                if linked:
                    links[chatter] = linked
            settings["muted"] = muted[-200:]
            settings["mute_links"] = {k: v for k, v in links.items() if k in muted}
        try:
            await asyncio.to_thread(manager.store.save_settings, table.id, settings)
        except Exception:
            log.exception("table %s: could not save the host's change", table.id)
            raise ProtocolError("server_error", "could not save; try again", msg.id) from None
        table.settings = settings
        done(conn, msg)
        manager.session.broadcast_info(table)


async def _remove(manager: Manager, table: Table, conn: Conn, msg: ClientMessage) -> None:
    if table.status != "lobby":
        raise ProtocolError("not_allowed", "players can be removed before the start only", msg.id)
    seat_no = msg.seat
    if seat_no is None or not 0 <= seat_no < len(table.seats) or seat_no == conn.seat:
        raise ProtocolError("bad_message", f"seat {seat_no} is not another seat", msg.id)
    seat = table.seats[seat_no]
    if seat.kind != "person" or seat.token_hash is None:
        raise ProtocolError("not_allowed", f"nobody sits at seat {seat_no}", msg.id)
    # A removal is a ban from this table's seats: the token is void, and the removed
    # person's addresses (never the host's own) may take no seat here again.
    own = _seat_addresses(table, conn.seat) if conn.seat is not None else set()
    banned = list(table.settings.get("banned", []))
    for address in sorted(_seat_addresses(table, seat_no) - own):
        key = ban_key(table.id, address)
        if key not in banned:
            banned.append(key)
    settings = {**table.settings, "banned": banned[-200:]}
    before = (seat.name, seat.token_hash)
    seat.name, seat.token_hash = "", None
    try:
        await asyncio.to_thread(manager.store.save_seats, table.id, [seat.stored()])
        await asyncio.to_thread(manager.store.save_settings, table.id, settings)
    except Exception:
        seat.name, seat.token_hash = before
        log.exception("table %s: could not remove a player", table.id)
        raise ProtocolError("server_error", "could not save; try again", msg.id) from None
    table.settings = settings
    seat.address = ""
    for c in table.conns:
        if c.seat == seat_no:
            c.seat = None
            manager.guard.watch(c)
            c.send({"type": "left", "removed": True})
    seat.conns = 0
    seat.away_since = None
    done(conn, msg)
    manager.session.broadcast_info(table)
