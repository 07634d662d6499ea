"""The pump: one task per table in play that takes its automatic steps.

Bot seats (and people away for longer than their table's away delay, or timed out, played
by the table's stand-in bot until they return: ``web/standin.py``) are asked for their decisions in a fixed order, like
:func:`bohnanza.driver.play`: a pending decision first, then whoever the game waits for,
active seat first; in phase 2 in the engine's rounds (:mod:`bohnanza.schedule`: active
seat first, then seat order, at most ``MAX_TRADE_ROUNDS``), asking bot seats only, each
at most ``BOT_TRADE_ACTIONS`` actions per trade phase; a round in which no bot acts
settles the bots (the scheduler's "time up") until a person trades again.

On top of the scheduler, the web's own policy: an offer made to a bot is answered at
once (so that no person waits on a bot); the pump ends trading when the table's trading
time limit has passed (R-TRADE-6), and for an active bot once bots have settled and
people had ``bot_grace`` seconds to propose (``bot_wait`` while an offer between a bot
and a person is open), never at once as the driver does.

The timers live here too: the players' time banks (``web/clocks.py``) and the trading
countdown, brought up to date after every action by :func:`clock_tick`.

A step is carried out through the table's :class:`~bohnanza.web.session.Session`
(commit, broadcast), under the table's lock, like a person's action.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from ..actions import Action, ActionType, Offer
from ..agents import make_agent
from ..errors import IllegalAction
from ..events import Event
from ..game import TRADE, Game
from ..schedule import AskKind, AskLoop, TradeScheduler
from ..seeding import table_agent_seed
from .clocks import Clocks, parse_clock
from .model import Settings, Table
from .standin import away_delay, idle_tick, stand_in_bot
from .upkeep import BotPools

if TYPE_CHECKING:
    from .session import Session

log = logging.getLogger("bohnanza.web")

#: A bot seat takes at most this many actions in one trade phase.
BOT_TRADE_ACTIONS = 24
#: The longest pause of a table's pump between two tries to save a bot's action.
RETRY_MAX = 4.0

#: An offer as a person sees it: the varieties given (the card ids do not matter to
#: them) and the cards wanted.
Signature = tuple[tuple[int, ...], tuple[tuple[str, int], ...]]


def offer_signature(game: Game, offer: Offer) -> Signature:
    return tuple(sorted(game.variety(c) for c in offer.give)), tuple(sorted(offer.want))


def considerate(table: Table, game: Game, seat: int, legal: list[Action]) -> list[Action]:
    """A bot's choices without the offers to people that are noise to them: another while
    one of its offers to that person is open, one that person declined this turn, or one
    asking a non-active person for more cards than their hand holds (its size is public:
    nothing hidden decides what the bot may do)."""
    people = {s.seat for s in table.seats if s.kind == "person"}
    if not people or not any(a.type is ActionType.PROPOSE for a in legal):
        return legal
    waiting = {o.to for p, o in game.offers.values() if p == seat}
    ts = table.trade
    declined = ts.declined if ts is not None and ts.turn == game.turn else set()
    out = []
    for a in legal:
        o = a.offer
        if a.type is ActionType.PROPOSE and o is not None and o.to in people:
            if o.to in waiting or (seat, o.to, offer_signature(game, o)) in declined:
                continue
            if o.to != game.active and sum(n for _, n in o.want) > len(game.hands[o.to]):
                continue
        out.append(a)
    return out


_TRADE_ACTIONS = frozenset(
    (ActionType.PROPOSE, ActionType.ACCEPT, ActionType.DECLINE, ActionType.WITHDRAW)
)


def _bot_rounds() -> TradeScheduler:
    return TradeScheduler(action_limit=BOT_TRADE_ACTIONS)


@dataclass(slots=True)
class TradeState:
    """The pump's bookkeeping for one trade phase: its timers, and the engine's
    scheduler for the bots' rounds (its "time up" is the bots having settled)."""

    turn: int
    started: float  # when the phase began (the table's trading time limit)
    settled_at: float = 0.0  # when the bots last settled (the grace before ending)
    schedule: TradeScheduler = field(default_factory=_bot_rounds)
    # (proposer, person, offer_signature) of the offers people declined this phase: a
    # bot does not send them again (issue 54: up to 6 near-identical offers a person).
    declined: set[tuple[int, int, Signature]] = field(default_factory=set)

    @property
    def settled(self) -> bool:
        """The bots are done trading until a person trades again."""
        return self.schedule.time_up

    def declining(self, game: Game, action: Action) -> None:
        """A person is about to decline an offer (called before the commit removes it)."""
        entry = game.offers.get(action.offer_id) if action.offer_id is not None else None
        if entry is not None:
            proposer, offer = entry
            self.declined.add((proposer, offer.to, offer_signature(game, offer)))

    def person_acted(self, action: Action) -> None:
        """A person's committed action: a trade move wakes the settled bots again."""
        if action.type in _TRADE_ACTIONS:
            self.schedule.restart()

    def bot_acted(self, game: Game, seat: int, slot: bool) -> None:
        """A bot's committed action in this trade phase (counted against its cap): in
        its round slot, or outside it (an answer to an offer, a pending decision)."""
        if slot:
            self.schedule.report(True)
        else:
            self.schedule.note_action(game, seat)


class Step(NamedTuple):
    """An automatic action: ``slot`` when it fills the seat's place in a trade round."""

    seat: int
    action: Action
    slot: bool = False


# ------------------------------------------------------------------ timers


def clock_tick(table: Table, now: float) -> list[Event]:
    """Bring the table's clocks up to ``now`` (web/clocks.py); the timeout notes it
    returns are in the log already."""
    game = table.game
    if game is None:
        return []
    stale = table.trade is None or table.trade.turn != game.turn
    if game.phase == TRADE and not game.over and stale:
        table.trade = TradeState(game.turn, now)
    if table.clocks is None:
        spec = parse_clock(str(table.settings.get("clock") or "none"), True)
        if spec is None:
            return []
        people = frozenset(s.seat for s in table.seats if s.kind == "person")
        table.clocks = Clocks.new(spec, game.players, people)
    table.clocks.people = frozenset(s.seat for s in table.seats if s.kind == "person")
    notes = table.clocks.update(game, now)
    table.events += notes
    return notes


def trade_deadline(table: Table) -> float | None:
    """When this phase 2 ends by the clock (monotonic), if it has a countdown: the
    table's trading time limit, or the clock's short ``out_trade`` while the active
    player is timed out (nobody is there to trade for them)."""
    game = table.game
    ts = table.trade
    if game is None or game.phase != TRADE or ts is None or ts.turn != game.turn:
        return None
    limit = float(table.settings.get("trade_limit") or 0)
    clocks = table.clocks
    if clocks is not None and game.active in clocks.out:
        short = clocks.spec.out_trade
        limit = min(limit, short) if limit > 0 else short
    return ts.started + limit if limit > 0 else None


def clock_view(table: Table) -> dict[str, Any]:
    """The clocks and the trading countdown, for a ``state`` message."""
    out: dict[str, Any] = {}
    now = time.monotonic()
    if table.clocks is not None:
        out["clock"] = table.clocks.snapshot(now)
    due = trade_deadline(table)
    if due is not None:
        out["trade_left"] = round(max(0.0, due - now), 1)
    return out


# ------------------------------------------------------------------ the pump


class Pump:
    """Runs every table's automatic steps: bots, substitutes, time limits."""

    def __init__(
        self,
        settings: Settings,
        session: Session,
        bots: BotPools,
        tables: Mapping[str, Table],
    ) -> None:
        self.settings = settings
        self.session = session
        self.bots = bots
        self.tables = tables  # every live table (the search bots' server-wide budget)
        self.closing = False

    def start(self, table: Table) -> None:
        """Run the table's pump (again, if it had stopped) and let it look at once."""
        if table.pump is None or table.pump.done():
            table.pump = asyncio.create_task(self._run(table), name=f"pump-{table.id}")
            table.kick.set()

    async def stop(self, tables: list[Table]) -> None:
        """Stop every pump and wait for them (the server is shutting down)."""
        self.closing = True
        for table in tables:
            if table.pump is not None:
                table.pump.cancel()
        for task in [t.pump for t in tables if t.pump is not None]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _run(self, table: Table) -> None:
        failures = 0
        while not self.closing:
            table.kick.clear()
            wake: float | None = None
            acted = False
            async with table.lock:
                if table.status != "playing" or table.game is None or table.game.over:
                    return
                now = time.monotonic()
                step: Step | None = None
                try:
                    # The pump must outlive a database outage (and any surprise): it
                    # tries again later, sooner when a person acts (the kick).
                    await self.session.resync(table)
                    if table.status != "playing" or table.game.over:
                        return
                    step, wake = await self._auto_step(table, now)
                    if step is not None:
                        events = await self.session.commit(table, step.seat, step.action, auto=True)
                except IllegalAction as exc:  # _ask checked it: not expected
                    log.error("table %s: a bot is stuck: %s", table.id, exc)
                    return
                except Exception:
                    failures += 1
                    log.exception("table %s: could not take an automatic step", table.id)
                    step = None
                    wake = now + min(RETRY_MAX, 0.25 * 2**failures)
                else:
                    if step is not None:
                        failures = 0
                        acted = True
                        if (
                            table.trade is not None
                            and table.game.phase == TRADE
                            and table.trade.turn == table.game.turn
                        ):
                            table.trade.bot_acted(table.game, step.seat, step.slot)
                        self.session.after(table, events)
            if acted:
                await asyncio.sleep(self.settings.bot_delay)
                continue
            timeout = None if wake is None else max(0.0, wake - time.monotonic()) + 0.01
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(table.kick.wait(), timeout)

    async def _auto_step(self, table: Table, now: float) -> tuple[Step | None, float | None]:
        """The next automatic action and when to look again."""
        game = table.game
        assert game is not None
        wakes: list[float] = []
        notes = clock_tick(table, now)
        if notes:  # "time ran out: the bot plays for ...", before the bot's move
            self.session.broadcast_state(table, notes)
        if idle_tick(table, now, self.settings.idle_timeout, wakes):
            self.session.broadcast_info(table)
        bots = self._bot_seats(table, now, wakes)
        if table.clocks is not None:
            bots |= table.clocks.bot_seats(game)
            due = table.clocks.due()
            if due is not None:
                wakes.append(due)
        self.session.track_stand_ins(table)
        # A pending decision is taken before the trade rounds go on (the round that it
        # interrupted ends after it, counting it as its owner's action); outside phase 2
        # the first bot seat the game waits for decides. The engine's ask loop says who
        # (its own bookkeeping is not the rounds': those are not touched here).
        if game.pending is not None or game.phase != TRADE:
            if game.phase != TRADE:
                table.trade = None
            decision = AskLoop(game, only=bots).next()
            if decision is not None:
                choice = await self._ask(table, decision.seat, True)
                if choice is not None:
                    return Step(decision.seat, choice), None
            return None, min(wakes, default=None)
        ts = table.trade
        if ts is None or ts.turn != game.turn:
            ts = table.trade = TradeState(game.turn, now)
        ends = trade_deadline(table)
        if ends is not None:
            if now >= ends:
                note = Event("trade_time_up", game.active, {}, None)
                table.events.append(note)
                self.session.broadcast_state(table, [note])
                return Step(game.active, Action.end_trading()), None
            wakes.append(ends)
        # An offer to a bot gets an answer at once (accept or decline, the bot's choice;
        # a bot past its budget declines), so that no person waits on a bot.
        rounds = ts.schedule
        loop = AskLoop(game, rounds, only=bots)
        for oid, (_proposer, offer) in sorted(game.offers.items()):
            if offer.to in bots:
                answers = [
                    a
                    for a in game.legal_actions(offer.to, offers=False)
                    if a.offer_id == oid and a.type in (ActionType.ACCEPT, ActionType.DECLINE)
                ]
                answer: Action | None = None
                if rounds.under_limit(offer.to) and answers:
                    answer = await self._ask(table, offer.to, True, answers)
                return Step(offer.to, answer or Action.decline(oid)), None
        # The rounds, in the engine's order, asking bot seats only; a bot that passes
        # gives its place to the next.
        was_settled = rounds.time_up
        ask = loop.next()
        guard = 0
        while guard < 3 * game.players + 3:
            guard += 1
            if ask is None and not rounds.time_up:
                # The scheduler gives up after a round's worth of seats it may not ask
                # (people, bots past their budget); the round goes on where it stopped.
                ask = loop.next()
                continue
            if ask is None or ask.kind is not AskKind.SLOT:
                break
            choice = await self._ask(table, ask.seat, ask.required)
            if choice is not None:
                return Step(ask.seat, choice, slot=True), None
            loop.answered(False)
            ask = loop.next()
        if rounds.time_up and not was_settled:
            ts.settled_at = now
        forced = ask.forced if ask is not None else None
        if forced is not None:  # the bots have settled; the active one ends
            with_people = any(p not in bots or o.to not in bots for p, o in game.offers.values())
            due = ts.settled_at + (
                self.settings.bot_wait if with_people else self.settings.bot_grace
            )
            if now >= due:
                return Step(game.active, forced), None
            wakes.append(due)
        return None, min(wakes, default=None)

    def _bot_seats(self, table: Table, now: float, wakes: list[float]) -> set[int]:
        """Seats played by a bot now: bot seats, people away for too long, and idle
        people whose seat was voted to a stand-in (``web/standin.py``)."""
        out: set[int] = set()
        changed = False
        delay = away_delay(table, self.settings.away_timeout)
        for seat in table.seats:
            if seat.kind == "bot" or seat.stand_in:
                out.add(seat.seat)
            elif seat.conns == 0 and seat.away_since is not None:
                due = seat.away_since + delay
                if now >= due:
                    out.add(seat.seat)
                    if not seat.replaced:
                        seat.replaced = changed = True
                else:
                    wakes.append(due)
        if changed:
            self.session.broadcast_info(table)
        return out

    async def _ask(
        self,
        table: Table,
        seat: int,
        required: bool,
        only: list[Action] | None = None,
    ) -> Action | None:
        """The decision of the bot playing ``seat`` (among ``only``, if given)."""
        game = table.game
        assert game is not None
        s = table.seats[seat]
        substitute = stand_in_bot(table, self.settings.substitute)
        kind = s.bot if s.kind == "bot" else substitute
        agent = table.agents.get((seat, kind))
        if agent is None:
            seed = int(table.settings.get("seed", 0) or 0)
            # A table saved before a restart may name a bot no longer allowed: the
            # substitute plays that seat instead.
            allowed = kind if kind in self.settings.bots() else self.settings.substitute
            agent = make_agent(allowed, table_agent_seed(seed, seat, table.seq))
            table.agents[(seat, kind)] = agent
        if only is not None:
            legal = only
        else:
            legal = considerate(
                table, game, seat, game.legal_actions(seat, agent.wants_offers(game.turn))
            )
        if not legal:
            return None
        try:
            # Off the event loop, in the bots' own pools (the database's threads stay
            # free): a searching bot may think for a while, and the server must go on
            # serving other tables meanwhile. The table's lock is held, so the game does
            # not change under it (the view is an immutable copy anyway).
            choice = await self.bots.decide(
                self.tables, table, seat, kind, game.view(seat), legal, required
            )
        except Exception:
            log.exception("table %s: bot at seat %d failed", table.id, seat)
            choice = None
        if choice is not None and choice not in legal and not game.is_legal(seat, choice):
            log.warning("table %s: bot at seat %d chose %r, illegal", table.id, seat, choice)
            choice = None
        if choice is None and required:
            choice = legal[0]
        return choice
