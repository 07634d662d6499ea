"""Coach mode at the web table (issue 36): hints for a person's seat and the review of a
finished game, on tables whose host chose the coach when creating them.

Never on a rated table (a table whose settings say ``rated`` other than ``no``): a
coach there would be an engine playing for the person. The search runs in a worker
thread (``asyncio.to_thread``), not on the event loop, with a roll-out budget and a
clock of its own (:data:`~bohnanza.coach.HINT_SECONDS`); a seat may ask once every
:data:`HINT_INTERVAL` seconds and one hint at a time. A review is worked out once per
finished table (at most :data:`~bohnanza.coach.REVIEW_SECONDS`) and kept for the
:data:`KEPT_REVIEWS` most recent tables.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from typing import Any

from .. import coach
from .model import LobbyError, Table

#: Seconds between two hints for one seat.
HINT_INTERVAL = 5.0
#: Finished tables whose review is kept in memory.
KEPT_REVIEWS = 64


def coach_allowed(table: Table) -> bool:
    """Whether the table has the coach: its host chose it, and it is not rated."""
    s = table.settings
    return bool(s.get("coach")) and s.get("rated", "no") in ("no", None)


class Coaching:
    """The server's hints and reviews: the per-seat rate limit and the kept reviews."""

    def __init__(self, interval: float = HINT_INTERVAL) -> None:
        self.interval = interval
        self.last: dict[tuple[str, int], float] = {}
        self.busy: set[tuple[str, int]] = set()
        self.reviews: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.reviewing: dict[str, asyncio.Task[dict[str, Any]]] = {}

    async def hint(self, table: Table, token: str) -> dict[str, Any]:
        """The three best actions for the seat that ``token`` holds, or a LobbyError
        saying why not (403 coach off or not a seat, 409 nothing to decide, 429 too
        soon)."""
        if not coach_allowed(table):
            raise LobbyError("this table has no coach (the host's choice)", 403, "coach_off")
        seat = table.seat_for_token(token)
        if seat is None:
            raise LobbyError("that token holds no seat at this table", 403, "bad_token")
        if table.status != "playing" or table.game is None:
            raise LobbyError("hints are given while the game is played", 409, "not_playing")
        key = (table.id, seat)
        now = time.monotonic()
        if key in self.busy or now - self.last.get(key, -1e9) < self.interval:
            raise LobbyError("one hint every few seconds", 429, "hint_wait")
        game = table.game.clone()  # the search reads a copy; the table plays on
        self.last[key] = now
        self.busy.add(key)
        try:
            advice = await asyncio.wait_for(
                asyncio.to_thread(coach.advise, game, seat, seed=table.seq),
                timeout=coach.HINT_SECONDS + 5.0,
            )
        except coach.CoachError as exc:
            raise LobbyError(str(exc), 409, "no_decision") from None
        except TimeoutError:
            raise LobbyError("the coach took too long", 503, "coach_timeout") from None
        finally:
            self.busy.discard(key)
        return {"seat": seat, "step": table.seq, "hints": [a.to_json() for a in advice]}

    async def review(self, table: Table) -> dict[str, Any]:
        """The finished game's marks: each person's decisions that lost the most."""
        if not coach_allowed(table):
            raise LobbyError("this table has no coach (the host's choice)", 403, "coach_off")
        if table.status != "over" or table.game is None:
            raise LobbyError("a review is made once the game is over", 403, "not_over")
        kept = self.reviews.get(table.id)
        if kept is not None:
            self.reviews.move_to_end(table.id)
            return kept
        task = self.reviewing.get(table.id)
        if task is None:
            task = asyncio.create_task(asyncio.to_thread(_review, table))
            self.reviewing[table.id] = task
        try:
            out = await asyncio.shield(task)
        finally:
            if task.done():
                self.reviewing.pop(table.id, None)
        self.reviews[table.id] = out
        while len(self.reviews) > KEPT_REVIEWS:
            self.reviews.popitem(last=False)
        return out


def _review(table: Table) -> dict[str, Any]:
    from ..records import make_record, new_game

    assert table.game is not None
    people = [s.seat for s in table.seats if s.kind == "person"]
    start = new_game(make_record(table.game, []))
    marks, decisions, reviewed = coach.review(start, table.actions, people, seed=len(table.actions))
    return {
        "marks": [m.to_json() for m in marks],
        "decisions": decisions,
        "reviewed": reviewed,
    }
