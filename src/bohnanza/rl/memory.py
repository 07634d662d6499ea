"""The memory part of the RL observation (``memory=True``): what a seat remembers of the
trading and of the cards that have left sight.

Everything here comes from public information only, the same for every seat: the
spectator's view (``game.view(None)``, what lies face up on the table, R-INFO-1/2)
before and after each action, and the public kind of each action (who proposed,
accepted, declined or withdrew which open offer: said aloud at the table). The reader's
own view adds only its own hand (for the unseen counts). So two states that differ only
in hidden cards give the same memory (``tests/test_rl_memory.py``).

Three parts, per observer (seats relative to it, the observer first):

* ``trading``: per other seat, for this turn and for the previous ``TURNS`` turns
  together: the varieties it offered and wanted (a quarter per card), and how many
  offers it proposed, accepted, declined and withdrew (a quarter each), each at most 1;
* ``others_offers``: the open offers between two other seats (up to ``OTHER_SLOTS``,
  oldest first): present, proposer and partner (relative), given and wanted varieties;
* ``unseen``: per variety, the cards this seat has not seen and cannot place (neither
  visible now nor gone to the discard pile or a treasury since the last reshuffle), as
  a share of the variety's cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from mypy_extensions import mypyc_attr
from numpy.typing import NDArray

from ..actions import Action, ActionType
from ..views import OfferView, View
from .encoding import Encoding

_T = ActionType

#: Earlier turns summed in the second trading window.
TURNS = 3
#: Open offers between other seats shown one by one.
OTHER_SLOTS = 6
#: Per seat and window: offered varieties, wanted varieties, then these counts.
_COUNTS = ("proposed", "accepted", "declined", "withdrawn")


@mypyc_attr(allow_interpreted_subclasses=True)
class Memory:
    """The public record behind the memory part, for one game (see the module)."""

    def __init__(self, encoding: Encoding) -> None:
        self.enc = enc = encoding
        n, v = enc.n, enc.v
        self.v = v
        self._vi = {key: i for i, key in enumerate(enc.varieties)}
        self.width = 2 * v + len(_COUNTS)
        self.parts: dict[str, tuple[int, int]] = {}
        start = 0
        for name, size in (
            ("trading", (n - 1) * 2 * self.width if enc.trading else 0),
            ("others_offers", OTHER_SLOTS * (1 + 2 * n + 2 * v) if enc.trading else 0),
            ("unseen", v),
        ):
            self.parts[name] = (start, size)
            start += size
        self.size = start
        totals = np.zeros(v, dtype=np.float32)
        for c in range(enc.config.deck_size):
            totals[enc.card_variety[c]] += 1
        self.totals = totals
        self._inv_totals = 1.0 / np.maximum(totals, 1.0)
        self._offer_width = 1 + 2 * n + 2 * v
        #: Per reader, the other seats in relative order.
        self._orders = [[(me + r) % n for r in range(1, n)] for me in range(n)]
        self._offer_blocks: dict[tuple[int, int], NDArray[np.float32]] = {}
        self._own: dict[tuple[tuple[int, ...], tuple[int, ...]], NDArray[np.float32]] = {}
        self.reset(None)

    def reset(self, public: View | None) -> None:
        n = self.enc.n
        #: Per seat: [this turn, TURNS earlier turns ...] x features (raw counts).
        self.turns = np.zeros((n, TURNS + 1, self.width), dtype=np.float32)
        self.out = np.zeros(self.v, dtype=np.float32)  # left sight since the reshuffle
        self.coins = np.zeros(self.v, dtype=np.float32)  # of which into a treasury
        self._public = public
        self._visible = self._counts(public.visible_cards()) if public is not None else None
        #: Per reader, until the next record: its block and the offers it was built from.
        self._blocks: dict[int, tuple[NDArray[np.float32], object]] = {}
        self._table: NDArray[np.float32] | None = None
        self._offer_blocks.clear()  # offer ids start again in a new game

    def copy_from(self, other: Memory) -> None:
        """Take over ``other``'s record (same configuration): to continue a copied game
        with the same memory (what-if analysis, tests)."""
        self.turns = other.turns.copy()
        self.out = other.out.copy()
        self.coins = other.coins.copy()
        self._public = other._public
        self._visible = None if other._visible is None else other._visible.copy()
        self._blocks = {}  # not cleared: a shallow copy shares the dict with ``other``
        self._table = None

    def _counts(self, cards: Iterable[int]) -> NDArray[np.float32]:
        cv = self.enc.card_variety
        return np.bincount([cv[c] for c in cards], minlength=self.v).astype(np.float32)

    # ------------------------------------------------------------------ updates

    def record(self, seat: int, action: Action | None, after: View) -> None:
        """Note ``seat``'s ``action`` (``None``: a pass, or an automatic step) and the
        public view ``after`` it."""
        self.record_all([(seat, action)], after)

    def record_all(
        self,
        actions: Sequence[tuple[int, Action | None]],
        after: View,
        later: Sequence[tuple[int, Action | None]] = (),
    ) -> None:
        """Note several seats' actions that together led to the public view ``after``
        (one step of the record): how an agent that sees only its own questions feeds
        its memory (:class:`bohnanza.rl.policy.ViewMemory`). ``later`` are actions taken
        after the turn changed (counted in the new turn's window)."""
        before = self._public
        if before is None:
            self.reset(after)
            return
        if self.enc.trading:
            for seat, action in actions:
                if action is not None:
                    self._trade(seat, action, before, after)
        if after.turn != before.turn:
            steps = min(after.turn - before.turn, TURNS + 1)
            self.turns = np.roll(self.turns, steps, axis=1)
            self.turns[:, :steps] = 0
        if self.enc.trading:
            for seat, action in later:
                if action is not None:
                    self._trade(seat, action, before, after)
        visible = self._counts(after.visible_cards())
        assert self._visible is not None
        left = np.maximum(self._visible - visible, 0)
        if left.any():
            self.out += left
            gained = sum(after.seats[s].coins - before.seats[s].coins for s in range(self.enc.n))
            if gained > 0 and np.count_nonzero(left) == 1:
                # A harvest: the coins are of the harvested variety (R-HARV-2).
                self.coins[int(np.flatnonzero(left)[0])] += gained
        if after.runouts > before.runouts and after.draw_size > 0:
            # The discard pile became the new draw pile (R-DECK-1): only coins stay out.
            self.out = np.minimum(self.coins, self.out)
        self._visible = visible
        self._public = after
        self._blocks.clear()
        self._table = None

    def _trade(self, seat: int, action: Action, before: View, after: View) -> None:
        t = action.type
        row = self.turns[seat, 0]
        v = self.v
        if t is _T.PROPOSE:
            row[2 * v] += 1
            old = {o.offer_id for o in before.offers}
            for o in after.offers:
                if o.offer_id not in old and o.proposer == seat:
                    for sh in o.shown:
                        i = self._vi.get(str(sh.get("variety")))
                        if i is not None:
                            row[i] += 1
                    for key, k in o.want:
                        i = self._vi.get(key)
                        if i is not None:
                            row[v + i] += k
        elif t is _T.ACCEPT:
            row[2 * v + 1] += 1
        elif t is _T.DECLINE:
            row[2 * v + 2] += 1
        elif t is _T.WITHDRAW:
            row[2 * v + 3] += 1

    # ------------------------------------------------------------------ the block

    def block(self, view: View) -> NDArray[np.float32]:
        """The memory part for ``view``'s reader."""
        me = view.seat
        if me is None:
            raise ValueError("observations are built for a seat, not a spectator")
        cached = self._blocks.get(me)
        if cached is not None and cached[1] is view.offers:
            return cached[0]
        out = self._block(view, me)
        self._blocks[me] = (out, view.offers)
        return out

    def _block(self, view: View, me: int) -> NDArray[np.float32]:
        n = self.enc.n
        out = np.zeros(self.size, dtype=np.float32)
        p = self.parts
        if self.enc.trading:
            table = self._table
            if table is None:
                # Both windows of every seat, scaled: once per record, for all readers.
                both = np.stack([self.turns[:, 0], self.turns[:, 1:].sum(axis=1)], axis=1)
                table = self._table = np.minimum(both.reshape(n, -1) / 4.0, 1.0)
            s, size = p["trading"]
            out[s : s + size] = table[self._orders[me]].reshape(-1)
            s = p["others_offers"][0]
            width = self._offer_width
            j = 0
            for o in view.offers:
                if o.proposer == me or o.to == me:
                    continue
                if j >= OTHER_SLOTS:
                    break
                key = (o.offer_id, me)
                block = self._offer_blocks.get(key)
                if block is None:
                    if len(self._offer_blocks) >= 4096:
                        self._offer_blocks.clear()
                    block = self._offer_blocks[key] = self._offer_block(o, me)
                out[s + j * width : s + (j + 1) * width] = block
                j += 1
        # What the reader sees: the table (the spectator's part, counted at the last
        # record) and its own hidden cards (hand, and a treasury where it may look).
        own = (view.hand or (), view.treasury or ())
        mine = self._own.get(own)
        if mine is None:
            if len(self._own) >= 4096:
                self._own.clear()
            mine = self._own[own] = self._counts([*own[0], *own[1]])
        public = self._visible if self._visible is not None else 0.0
        unseen = np.maximum(self.totals - public - mine - self.out, 0.0)
        s = p["unseen"][0]
        out[s : s + self.v] = unseen * self._inv_totals
        return out

    def _offer_block(self, o: OfferView, me: int) -> NDArray[np.float32]:
        """One offer between two other seats: present, proposer and partner (relative),
        given varieties (as shown) and wanted varieties, a quarter per card."""
        n, v = self.enc.n, self.v
        b = np.zeros(self._offer_width, dtype=np.float32)
        b[0] = 1.0
        b[1 + (o.proposer - me) % n] = 1.0
        b[1 + n + (o.to - me) % n] = 1.0
        g = 1 + 2 * n
        for sh in o.shown:
            i = self._vi.get(str(sh.get("variety")))
            if i is not None:
                b[g + i] += 0.25
        for key, k in o.want:
            i = self._vi.get(key)
            if i is not None:
                b[g + v + i] += k / 4
        return np.minimum(b, 1.0)

    def describe(self) -> dict[str, Any]:
        """The layout, for docs and tests."""
        return dict(self.parts)


__all__ = ["OTHER_SLOTS", "TURNS", "Memory"]
