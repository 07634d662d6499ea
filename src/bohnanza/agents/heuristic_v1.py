"""``heuristic-v1``: the trading heuristic as it stood before issue 12, frozen.

This is a fixed baseline: every later bot is measured against the same opponent
(docs/bots.md), so this file must not change (tests/test_heuristic_v1.py pins its
choices on games dealt from fixed decks). Its known weaknesses are kept on purpose: it
writes off a partner that declined three offers without accepting one, the active seat
spends trading rounds declining, and it offers only one card for one card. The newer
``heuristic`` (:mod:`.heuristic`) fixes them.

The original description: a trading Bohnanza player that sees only its seat's view.

How it values things (docs/bots.md has the long version):

* **A field** is worth the coins it would pay now plus part of a coin for the progress
  toward the next level of its beanometer, when enough cards of that variety are still
  out there to reach it (:meth:`Position.fval`). The part shrinks as the game nears its
  end, when only coins count.
* **A plan** is what the seat will be forced to plant: the cards in its trade area (and,
  when active, the drawn cards it keeps) in the best order, then the front cards of its
  hand in hand order (R-SETUP-3), later cards discounted. Each card goes where it adds
  most: onto its variety, onto an empty field, or - when nothing fits, or a harvest first
  pays better - after harvesting the field whose loss is smallest (R-HARV-3 respected)
  (:meth:`Position.plan`). Every decision compares the plan's value after each candidate.
* **A trade** is worth the change in the plan's value for the cards received and given
  (:meth:`Position.trade_gain`), minus ``1/(players-1)`` of what the partner gains on
  its visible fields (a trade that helps both helps them against everyone else).
  It gives away drawn or hand cards it cannot use, asks for the varieties it grows, and
  stops offering to seats that never accept.
* **A card in hand** breaks ties on coins at the end (R-END-4): the optional second card
  is planted only onto a field of its variety and only when it adds more than
  :data:`KEEP`; it never starts a field (:data:`KEEP_NEW`).

Module play: Fasolkopajaki races pay for colour changes and a black card offered from a
hand is declared red when the receiver's top card is black (R-BLUFF-1); a declared red
card received is valued as red with the chance left by the unseen colours. Fasolufka
fields are valued by their top card's beanometer (ladies more generous, a child on top
pays nothing); a lady is moved to the top after a child when that pays, and a field is
harvested before a card would cover a lady. Duel: offered and revealed cards are
planted when they help, else left or discarded; a hand card that would ruin a field is
discarded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..actions import Action, ActionType, Offer
from ..cards import lady_beanometers, varieties
from ..modules import module_info
from ..modules.duel import DISCARD_CARD, END_REVEAL, PLANT_REVEALED, SKIP_DISCARD
from ..modules.fasolkopajaki import race_coins
from ..modules.fasolufka import MOVE_LADY_TYPE, PLACE_CHILD_TYPE
from ..rules import GameConfig
from ..views import OfferView, View
from .base import Agent

_T = ActionType

# The constants were tuned by tournaments against ``autarky`` and against itself
# (docs/bots.md); they are module attributes so that experiments can change them.

#: How many cards a field "sees" before it must be harvested (sets the chance of growing).
KCARDS = 3.0
#: Weight of a front hand card in a plan, per turn ahead (drawn cards come in between).
GAMMA = 0.7
#: Front hand cards a plan looks at.
HORIZON = 5
#: Smallest gain worth an action.
EPS = 0.05
#: A third field raises a seat's coins per turn by about this share (measured: a free
#: third field from the start adds 35-40% in 4-player classic and 3-player fasolki).
FIELD_GAIN = 0.38
#: Coins a third field must earn beyond its price before the bot buys it.
BUY_MARGIN = 0.5
#: Worth of a card kept in hand instead of planted as the optional second card onto a
#: field of its variety. Hand size breaks ties for the win (R-END-4), and a second card
#: skipped is a card more in hand at the end (only the front card must be planted).
#: Against ``autarky`` about a quarter of the games tie at the top on coins.
KEEP = 0.15
#: The same when the optional second card would start a field (on an empty one, or after
#: a harvest): measured, such a start almost never earns back the card it costs the hand.
KEEP_NEW = 1.0


Fields = list[list[int]]


class Tables:
    """Per-config data the bot needs often: payout steps, card counts, stand-in cards."""

    def __init__(self, cfg: GameConfig) -> None:
        self.cfg = cfg
        self.cv = cfg.card_variety
        self.kind = cfg.card_kind
        nv = len(cfg.varieties)
        self.nv = nv
        total = [0] * nv
        for v in self.cv:
            total[v] += 1
        self.total = total
        self.pay: tuple[tuple[int, ...], ...] = cfg.payout
        self.steps = [_steps(t) for t in self.pay]
        keys = cfg.varieties
        self.spider = keys.index("fasolkopajak") if "fasolkopajak" in keys else -1
        self.farmer = keys.index("farmer") if "farmer" in keys else -1
        info = module_info(cfg.module)
        # A field pays by its top card's kind (men, ladies, children, R-LADY-3…5).
        self.top_card_pays = info.top_card_pays
        self.gardener = keys.index("gardener") if "gardener" in keys else -1
        self.lady_pay: list[tuple[int, ...]] = []
        self.lady_steps: list[list[tuple[int, float]]] = []
        if self.top_card_pays:
            ladies = lady_beanometers()
            cat = varieties()
            for v, key in enumerate(keys):
                bm = ladies.get(key)
                table = (
                    tuple(cat[key].payout(n, bm) for n in range(total[v] + 1))
                    if bm
                    else tuple(n + 1 if n else 0 for n in range(total[v] + 1))
                )
                self.lady_pay.append(table)
                self.lady_steps.append(_steps(table))
        # One stand-in card id per (variety, kind), and the kinds' shares per variety.
        self.rep: dict[tuple[int, str], int] = {}
        shares: dict[int, dict[str, int]] = {}
        for card in range(len(self.cv)):
            key2 = (self.cv[card], self.kind[card])
            self.rep.setdefault(key2, card)
            d = shares.setdefault(self.cv[card], {})
            d[self.kind[card]] = d.get(self.kind[card], 0) + 1
        self.kinds: dict[int, list[tuple[str, int]]] = {
            v: sorted(d.items(), key=lambda kv: -kv[1]) for v, d in shares.items()
        }
        self.index = {k: i for i, k in enumerate(keys)}
        self.simple = self.spider < 0 and self.farmer < 0 and not self.top_card_pays
        players = cfg.players
        self.beta = 1.0 / (players - 1) if players > 1 else 1.0
        turn_cards = info.turn_cards
        self.per_turn = (cfg.drawn_count if turn_cards is None else turn_cards) + cfg.draw_count
        #: The module's own phases (a pile turn, R-DUEL-3), played by ``_pile_turn``.
        self.module_phases = frozenset(info.phases)
        self.pile_turn = info.encoding.pile_turn


def _steps(table: Sequence[int]) -> list[tuple[int, float]]:
    """Per field size n: (cards still needed for the next coin, progress toward it)."""
    out: list[tuple[int, float]] = []
    size = len(table)
    for n in range(size):
        base = n
        while base > 0 and table[base - 1] == table[n]:
            base -= 1
        m = n + 1
        while m < size and table[m] <= table[n]:
            m += 1
        if m >= size:
            out.append((0, 0.0))
        else:
            out.append((m - n, (n - base) / (m - base)))
    return out


_TABLES: dict[int, Tables] = {}


def tables_for(cfg: GameConfig) -> Tables:
    t = _TABLES.get(id(cfg))
    if t is None or t.cfg is not cfg:
        t = Tables(cfg)
        _TABLES[id(cfg)] = t
    return t


def turns_left(view: View) -> float:
    """A rough estimate of the seat's own turns left (from the public pile sizes)."""
    cfg = view.config
    if view.final_runout:
        return 0.0
    runs_left = max(1, cfg.runouts_to_end - view.runouts)
    cards = view.draw_size + (runs_left - 1) * max(15, view.discard_size + view.draw_size // 2)
    t = tables_for(cfg)
    return cards / t.per_turn / cfg.players


class Position:
    """One decision's context: the seat's fields and cards, and how fields are valued."""

    __slots__ = ("alpha", "avail", "fields", "me", "memo", "q", "simple", "t", "view", "vt")

    def __init__(self, view: View, t: Tables) -> None:
        self.view = view
        self.t = t
        me = view.seat
        assert me is not None
        self.me = me
        left = turns_left(view)
        stage = min(1.0, left / 1.5)
        self.alpha = stage
        # Cards of each variety that may still reach this seat: all, less those on fields
        # and in trade areas (its own too: they are already counted there).
        avail = t.total[:]
        cv = t.cv
        for s in view.seats:
            for f in s.fields:
                for c in f:
                    avail[cv[c]] -= 1
            for c in s.trade_area:
                avail[cv[c]] -= 1
        self.avail = avail
        hidden = sum(a for a in avail if a > 0) or 1
        # q[v]: the chance that a field of v gets one more card before it must go, from
        # the share of v among the cards still out and how many cards a field "sees".
        k = KCARDS * stage
        self.q = [1.0 - (1.0 - a / hidden) ** k if a > 0 else 0.0 for a in avail]
        self.fields: Fields = [list(f) for f in view.seats[me].fields]
        # Base payouts only: field values depend on (variety, size) alone, memoised here.
        self.simple = t.simple
        self.vt = [[-1.0] * (n + 2) for n in t.total] if t.simple else []
        self.memo: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}

    def third_field_worth(self) -> float:
        """Expected extra coins from a third field for the rest of the game: the seat's
        coin rate so far (smoothed) times :data:`FIELD_GAIN` times its turns left."""
        if len(self.fields) >= 3:
            return 0.0
        view = self.view
        me = view.seats[self.me]
        turns = view.turn / view.config.players
        earned = me.coins + 0.5 * sum(me.payouts)
        rate = (earned + 1.0) / (turns + 2.0)
        return FIELD_GAIN * rate * turns_left(view)

    def fv(self, v: int, n: int) -> float:
        """:meth:`fval` of a field of ``n`` cards of ``v`` (base payouts only)."""
        row = self.vt[v]
        x = row[n]
        if x < 0.0:
            x = row[n] = self._table_val(self.t.pay[v], self.t.steps[v], v, n) if n else 0.0
        return x

    # ---------------------------------------------------------------- field values

    def fval(self, f: Sequence[int]) -> float:
        """Coins the field pays now, plus the chance-weighted coin of its next level."""
        n = len(f)
        if n == 0:
            return 0.0
        t = self.t
        if self.simple:
            return self.fv(t.cv[f[-1]], n)
        top = f[-1]
        v = t.cv[top]
        if v == t.spider:
            q = self.q[v]
            if n == 1:
                return q * 0.8
            coins = race_coins([t.kind[c] for c in f])
            return coins + (q * 0.6 if coins < 4 else 0.0)
        if v == t.farmer:
            field = self.third_field_worth()
            if n == 2:
                return max(field, 3 * self.q[v])
            return 3.0 if n >= 3 else self.q[v] * max(field, 1.0)
        if t.top_card_pays:
            k = t.kind[top]
            if k == "child":
                # A child on top pays nothing, but the next child lifts a lady lying at
                # most two places down to the top (R-LADY-8): value the field by her then.
                for d in (2, 3):
                    if n > d and t.kind[f[-d]] == "lady":
                        return 0.5 * self._lady_val(v, n)
                return 0.5 * self._table_val(t.pay[v], t.steps[v], v, n)
            if k == "lady":
                return self._lady_val(v, n)
        return self._table_val(t.pay[v], t.steps[v], v, n)

    def _lady_val(self, v: int, n: int) -> float:
        t = self.t
        if v == t.gardener:
            return n + 1.0 + self.q[v]  # R-LADY-5: N + 1 coins
        return self._table_val(t.lady_pay[v], t.lady_steps[v], v, n)

    def _table_val(
        self, pay: Sequence[int], steps: Sequence[tuple[int, float]], v: int, n: int
    ) -> float:
        if n >= len(pay):
            return float(pay[-1])
        need = steps[n][0]
        coins = pay[n]
        if need and need <= self.avail[v]:
            return coins + (pay[n + need] - coins) * self.q[v] ** need
        return float(coins)

    def coins(self, f: Sequence[int]) -> float:
        """What harvesting ``f`` now banks (a Farmer pair's free field counted as coins)."""
        n = len(f)
        if n == 0:
            return 0.0
        t = self.t
        top = f[-1]
        v = t.cv[top]
        if v == t.spider:
            return float(race_coins([t.kind[c] for c in f]))
        if v == t.farmer:
            if n == 2:
                return self.third_field_worth()
            return 3.0 if n >= 3 else 0.0
        if t.top_card_pays:
            k = t.kind[top]
            if k == "child":
                return 0.0
            if k == "lady":
                if v == t.gardener:
                    return n + 1.0
                return float(t.lady_pay[v][min(n, len(t.lady_pay[v]) - 1)])
        pay = t.pay[v]
        return float(pay[min(n, len(pay) - 1)])

    def maxed(self, f: Sequence[int]) -> bool:
        """Harvesting ``f`` now loses nothing: it already pays all it can still pay."""
        return bool(f) and self.coins(f) > 0 and self.fval(f) <= self.coins(f) + 1e-9

    # ---------------------------------------------------------------- plans

    def place(self, fields: Fields, card: int) -> tuple[float, int, bool]:
        """The best way to plant ``card``: (value change, field, harvest first)."""
        t = self.t
        cv = t.cv
        v = cv[card]
        best = -1e9
        best_i = -1
        best_h = False
        multi = False
        for f in fields:
            if len(f) > 1:
                multi = True
                break
        empty_done = False
        if self.simple:
            fv = self.fv
            pay = t.pay
            for i, f in enumerate(fields):
                n = len(f)
                if not n:
                    if empty_done:
                        continue
                    empty_done = True
                    d = fv(v, 1)
                    if d > best:
                        best, best_i, best_h = d, i, False
                    continue
                w = cv[f[-1]]
                old = fv(w, n)
                if w == v:
                    d = fv(v, n + 1) - old
                    if d > best:
                        best, best_i, best_h = d, i, False
                if n > 1 or not multi:
                    d = pay[w][min(n, len(pay[w]) - 1)] - old + fv(v, 1)
                    if d > best:
                        best, best_i, best_h = d, i, True
            return best, best_i, best_h
        fval = self.fval
        for i, f in enumerate(fields):
            if not f:
                if empty_done:
                    continue
                empty_done = True
                d = fval((card,))
                if d > best:
                    best, best_i, best_h = d, i, False
                continue
            old = fval(f)
            if cv[f[-1]] == v:
                f.append(card)
                d = fval(f) - old
                f.pop()
                if d > best:
                    best, best_i, best_h = d, i, False
            if len(f) > 1 or not multi:
                d = self.coins(f) - old + fval((card,))
                if d > best:
                    best, best_i, best_h = d, i, True
        return best, best_i, best_h

    def do_place(self, fields: Fields, card: int) -> float:
        d, i, h = self.place(fields, card)
        if i < 0:
            return 0.0
        if h:
            fields[i] = [card]
        else:
            fields[i].append(card)
        return d

    def plan(self, fields: Fields, must: Sequence[int], seq: Sequence[int]) -> float:
        """Value change from planting ``must`` (any order, greedily best first) and then
        ``seq`` (in order, discounted). ``fields`` is copied, not changed."""
        if fields is self.fields:
            key = (tuple(sorted(must)), tuple(seq[:HORIZON]))
            got = self.memo.get(key)
            if got is None:
                got = self.memo[key] = self._plan(fields, must, seq)
            return got
        return self._plan(fields, must, seq)

    def _plan(self, fields: Fields, must: Sequence[int], seq: Sequence[int]) -> float:
        fields = [f[:] for f in fields]
        total = 0.0
        if must:
            rest = list(must)
            while rest:
                if len(rest) == 1:
                    total += self.do_place(fields, rest[0])
                    break
                best = -1e9
                bi = 0
                for k, c in enumerate(rest):
                    d = self.place(fields, c)[0]
                    if d > best:
                        best, bi = d, k
                total += self.do_place(fields, rest.pop(bi))
        # Hand cards are planted in later turns (after unknown drawn cards): discounted.
        w = GAMMA
        for c in seq[:HORIZON]:
            total += w * self.do_place(fields, c)
            w *= GAMMA
        return total

    # ---------------------------------------------------------------- other seats

    def holds(self, seat: int, v: int) -> float:
        """Chance that ``seat``'s hand holds a card of ``v`` (from the unseen shares)."""
        avail = self.avail
        hidden = sum(a for a in avail if a > 0)
        if hidden <= 0 or avail[v] <= 0:
            return 0.0
        return 1.0 - (1.0 - avail[v] / hidden) ** self.view.seats[seat].hand_size

    def seat_gain(self, seat: int, received: Sequence[int], lost_drawn: Sequence[int]) -> float:
        """What ``seat`` gains on its visible fields from a trade (its hand is unseen)."""
        fields = [list(f) for f in self.view.seats[seat].fields]
        save = self.fields
        self.fields = fields
        try:
            gain = 0.0
            if lost_drawn:
                g2 = [f[:] for f in fields]
                for c in lost_drawn:
                    gain -= self.do_place(g2, c)
            for c in received:
                gain += self.do_place(fields, c)
            return gain
        finally:
            self.fields = save


def _stand_ins(
    t: Tables, view: View, shown: dict[str, Any], avail: list[int]
) -> list[tuple[int, float]]:
    """Card ids standing for a card seen only as ``shown``, with their weights."""
    v = t.index.get(str(shown.get("variety", "")), -1)
    if v < 0:
        return []
    declared = shown.get("declared")
    if v == t.spider and declared:
        black = t.rep.get((v, "black"))
        red = t.rep.get((v, "red"))
        if declared == "black" or red is None:
            return [(black, 1.0)] if black is not None else []
        if black is None:
            return [(red, 1.0)]
        # A declared red may be a black card: weigh by the colours not yet seen.
        seen_red = seen_black = 0
        for s in view.seats:
            for f in s.fields:
                for c in f:
                    if t.cv[c] == v:
                        if t.kind[c] == "red":
                            seen_red += 1
                        else:
                            seen_black += 1
        for c in (*(view.hand or ()), *view.drawn):
            if t.cv[c] == v:
                if t.kind[c] == "red":
                    seen_red += 1
                else:
                    seen_black += 1
        reds = max(0, 3 - seen_red)
        blacks = max(0, 3 - seen_black)
        if reds + blacks == 0:
            return [(red, 1.0)]
        p = reds / (reds + blacks)
        return [(red, p), (black, 1 - p)]
    kinds = t.kinds[v]
    if len(kinds) == 1:
        return [(t.rep[(v, kinds[0][0])], 1.0)]
    n = sum(k[1] for k in kinds)
    return [(t.rep[(v, k)], c / n) for k, c in kinds]


class HeuristicV1Agent(Agent):
    """Values cards for its fields and its hand order, trades, gifts and harvests by that."""

    name = "heuristic-v1"
    proposes = True

    def __init__(self, seed: int = 0, *, max_proposals: int = 6) -> None:
        super().__init__(seed)
        self.max_proposals = max_proposals
        self._turn = -1
        self._proposed: set[tuple[Any, ...]] = set()
        self._count = 0
        # Opponent model: offers made to each seat, and how many of them it accepted.
        self._offered: dict[int, int] = {}
        self._accepted: dict[int, int] = {}
        self._open: list[tuple[int, Offer]] = []
        self._bare = True
        self._cands_key: tuple[Any, ...] = ()
        self._cands: list[tuple[float, Offer]] = []

    def snapshot(self) -> tuple[Any, ...]:
        """The bot's memory (offers made, who accepts), for :meth:`restore`: a caller that
        asks for the bot's choice but then acts otherwise (the search) takes it back."""
        return (
            self._turn,
            set(self._proposed),
            self._count,
            dict(self._offered),
            dict(self._accepted),
            list(self._open),
        )

    def restore(self, state: tuple[Any, ...]) -> None:
        (turn, proposed, count, offered, accepted, open_) = state
        self._turn, self._proposed, self._count = turn, proposed, count
        self._offered, self._accepted, self._open = offered, accepted, open_

    def wants_offers(self, turn: int) -> bool:
        # The bot builds its own offers and never uses the listed templates (they are
        # costly to list). But a seat with nothing listed is not asked in phase 2 at all:
        # so they are asked for only while the seat's fields are all empty (then it may
        # have no harvest to list either), to keep it in the conversation.
        return self._bare

    # ---------------------------------------------------------------- entry point

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if not legal:
            return None
        if self._open:
            self._track(view)
        if required and len(legal) == 1:
            return legal[0]
        t = tables_for(view.config)
        pos = Position(view, t)
        self._bare = not any(pos.fields)
        phase = view.phase
        if view.pending is not None:
            return self._pending(pos, legal) if required else None
        if phase == "trade":
            return self._trade(pos, legal)
        if not required:
            return None
        if phase in t.module_phases:
            return self._pile_turn(pos, legal)
        return self._plant(pos, legal)

    # ---------------------------------------------------------------- planting phases

    def _hand(self, view: View) -> list[int]:
        """The front of the hand that plans look at (the same cards for every option, so
        that planting one does not bring a new card into view)."""
        return list((view.hand or ())[:HORIZON])

    def _plant(self, pos: Position, legal: Sequence[Action]) -> Action:
        view = pos.view
        buy = self._buy(pos, legal)
        if buy is not None:
            return buy
        hand = self._hand(view)
        fields = pos.fields
        trade = list(view.seats[pos.me].trade_area)
        phase3 = view.phase == "plant_traded"
        optional = view.phase == "plant" and view.planted == 1
        best: Action | None = None
        best_v = -1e18
        for a in legal:
            t = a.type
            if t is _T.PLANT:
                card = hand[0]
                g = [f[:] for f in fields]
                g[a.field].append(card)  # type: ignore[index]
                val = pos.fval(g[a.field]) - pos.fval(fields[a.field])  # type: ignore[index]
                val += pos.plan(g, [], hand[1:])
                val += 0.01
                if optional:
                    val -= KEEP if fields[a.field] else KEEP_NEW  # type: ignore[index]
            elif t is _T.PLANT_TRADED:
                card = a.card  # type: ignore[assignment]
                g = [f[:] for f in fields]
                g[a.field].append(card)  # type: ignore[index]
                val = pos.fval(g[a.field]) - pos.fval(fields[a.field])  # type: ignore[index]
                rest = trade[:]
                rest.remove(card)
                val += pos.plan(g, rest, hand)
            elif t is _T.HARVEST:
                i: int = a.field  # type: ignore[assignment]
                g = [f[:] for f in fields]
                val = pos.coins(g[i]) - pos.fval(g[i])
                g[i] = []
                if phase3:
                    val += pos.plan(g, trade, hand)
                elif optional:
                    # Only useful to plant the optional card on the freed field.
                    val += pos.plan(g, [], hand) - 0.02 - KEEP_NEW
                else:
                    val += pos.plan(g, [], hand)
                if pos.maxed(fields[i]):
                    val += 0.02
            elif t is _T.STOP_PLANTING:
                # A card kept in hand also breaks ties at the end (R-END-4).
                val = pos.plan(fields, [], hand)
            else:
                continue
            if val > best_v:
                best, best_v = a, val
        if best is None:
            return legal[0]
        return best

    def _buy(self, pos: Position, legal: Sequence[Action]) -> Action | None:
        """Buy the third field when its expected extra coins beat its price (R-FIELD-2)."""
        for a in legal:
            if a.type is _T.BUY_FIELD:
                price = pos.view.config.field_price
                return a if pos.third_field_worth() >= price + BUY_MARGIN else None
        return None

    def _pending(self, pos: Position, legal: Sequence[Action]) -> Action:
        """Fasolufka: where a received child goes, and which lady moves up after it."""
        fields = pos.fields
        best = legal[0]
        best_v = -1e18
        for a in legal:
            if a.type is PLACE_CHILD_TYPE:
                g = [f[:] for f in fields]
                g[a.field].append(a.card)  # type: ignore[index,arg-type]
                val = pos.fval(g[a.field]) - pos.fval(fields[a.field])  # type: ignore[index]
            elif a.type is MOVE_LADY_TYPE:
                p = pos.view.pending
                assert p is not None
                field = p["field"]
                f = fields[field][:]
                if a.card is not None:
                    k = f.index(a.card)
                    f.pop(k)
                    f.insert(min(k + 2, len(f)), a.card)
                val = pos.fval(f) + (0.001 if a.card is None else 0.0)
            else:
                continue
            if val > best_v:
                best, best_v = a, val
        return best

    # ---------------------------------------------------------------- a pile turn (R-DUEL-3)

    def _pile_turn(self, pos: Position, legal: Sequence[Action]) -> Action:
        view = pos.view
        pt = pos.t.pile_turn
        assert pt is not None
        hand = self._hand(view)
        fields = pos.fields
        buy = self._buy(pos, legal)
        if buy is not None:
            return buy
        if view.phase == "plant":
            return self._plant(pos, legal)
        opp = 1 - pos.me
        best = legal[0]
        best_v = -1e18
        base = pos.plan(fields, [], hand)
        for a in legal:
            t = a.type
            if t is PLANT_REVEALED:
                g = [f[:] for f in fields]
                g[a.field].append(a.card)  # type: ignore[index,arg-type]
                val = pos.fval(g[a.field]) - pos.fval(fields[a.field])  # type: ignore[index]
                val += pos.plan(g, [], hand) - base
                if view.phase == pt.reveal_phase:
                    # Planting it also keeps it from the opponent.
                    val += 0.5 * max(0.0, pos.seat_gain(opp, [a.card], []))  # type: ignore[list-item]
            elif t is DISCARD_CARD:
                if view.phase == pt.discard_phase:
                    rest = [c for c in hand if c != a.card]
                    val = pos.plan(fields, [], rest) - base - 0.3
                else:
                    val = 0.0
            elif t in (SKIP_DISCARD, END_REVEAL):
                val = 0.0
            elif t is _T.HARVEST:
                g = [f[:] for f in fields]
                i: int = a.field  # type: ignore[assignment]
                val = pos.coins(g[i]) - pos.fval(g[i])
                g[i] = []
                val += pos.plan(g, [], hand) - base + (0.02 if pos.maxed(fields[i]) else -0.02)
            else:
                continue
            if val > best_v:
                best, best_v = a, val
        return best

    # ---------------------------------------------------------------- trading

    def _trade(self, pos: Position, legal: Sequence[Action]) -> Action | None:
        view = pos.view
        if view.turn != self._turn:
            self._turn = view.turn
            self._proposed = set()
            self._count = 0
        buy = self._buy(pos, legal)
        if buy is not None:
            return buy
        # Harvest fields that cannot pay more (they free a field at no cost).
        for a in legal:
            if a.type is _T.HARVEST and pos.maxed(pos.fields[a.field]):  # type: ignore[index]
                return a
        answer = self._answer(pos, legal)
        if answer is not None:
            return answer
        if view.config.players > 2 and self._count < self.max_proposals:
            offer = self._propose(pos)
            if offer is not None:
                self.record_proposal(offer)
                return Action.propose(offer)
        return None

    def offer_candidates(self) -> list[tuple[float, Offer]]:
        """The offers it last considered, best first, with their expected worth."""
        return list(self._cands)

    def proposed(self, offer: Offer) -> bool:
        """Whether it made ``offer`` this turn."""
        return offer_key(offer) in self._proposed

    def record_proposal(self, offer: Offer) -> None:
        """Remember an offer made (not to repeat it, and to learn who accepts)."""
        self._count += 1
        self._proposed.add(offer_key(offer))
        self._offered[offer.to] = self._offered.get(offer.to, 0) + 1
        self._open.append((offer.to, offer))

    def _track(self, view: View) -> None:
        """Learn who accepts: an offer of ours that vanished with its cards in the
        partner's trade area was accepted."""
        if not self._open:
            return
        me = view.seat
        still = {(o.to, tuple(o.give), o.want) for o in view.offers if o.proposer == me}
        keep: list[tuple[int, Offer]] = []
        for to, offer in self._open:
            if (to, offer.give, offer.want) in still:
                keep.append((to, offer))
                continue
            # Gone: accepted if its cards reached the partner (trade area, or planted).
            held = set(view.seats[to].trade_area)
            for f in view.seats[to].fields:
                held.update(f)
            if (offer.give and all(c in held for c in offer.give)) or (
                not offer.give and _got_want(view, offer)
            ):
                self._accepted[to] = self._accepted.get(to, 0) + 1
        self._open = keep

    def trades_with(self, seat: int) -> bool:
        """Whether ``seat`` is worth an offer: it accepted some, or was rarely asked."""
        return self._accepted.get(seat, 0) > 0 or self._offered.get(seat, 0) < 3

    def _state(self, pos: Position) -> tuple[list[int], list[int]]:
        """(cards to plant this turn, hand): the trade area plus, when active, the drawn."""
        view = pos.view
        must = list(view.seats[pos.me].trade_area)
        if view.active == pos.me:
            must += list(view.drawn)
        return must, self._hand(view)

    def trade_gain(
        self,
        pos: Position,
        give: Sequence[int],
        get: Sequence[tuple[int, float]] | Sequence[Sequence[tuple[int, float]]],
        base: float | None = None,
    ) -> float:
        """Change in the plan's value when ``give`` leaves and the (weighted) stand-ins in
        ``get`` arrive (each entry: alternatives with their weights)."""
        must, hand = self._state(pos)
        if base is None:
            base = pos.plan(pos.fields, must, hand)
        m2 = [c for c in must if c not in give]
        h2 = [c for c in hand if c not in give]
        options: list[list[tuple[int, float]]] = [
            list(e) if isinstance(e, list) else [e]  # type: ignore[list-item]
            for e in get
        ]
        # Expand the (few) alternatives into weighted combinations.
        combos: list[tuple[list[int], float]] = [([], 1.0)]
        for alts in options:
            combos = [([*cs, c], w * wa) for cs, w in combos for c, wa in alts]
        total = 0.0
        for cs, w in combos:
            total += w * pos.plan(pos.fields, m2 + cs, h2)
        return total - base

    def _answer(self, pos: Position, legal: Sequence[Action]) -> Action | None:
        """Accept the best offer addressed to us if it pays, else decline the worst."""
        view = pos.view
        me = pos.me
        offers = {o.offer_id: o for o in view.offers if o.to == me}
        if not offers:
            return None
        t = pos.t
        must, hand = self._state(pos)
        base = pos.plan(pos.fields, must, hand)
        best: Action | None = None
        best_v = EPS
        worst: Action | None = None
        values: dict[int, float] = {}
        for a in legal:
            if a.type is not _T.ACCEPT:
                continue
            o = offers.get(a.offer_id)  # type: ignore[arg-type]
            if o is None:
                continue
            get = self._incoming(pos, o)
            gain = self.trade_gain(pos, a.cards, get, base)
            # What the proposer gains on its visible fields: our cards, and (when it is
            # the active seat) the drawn cards it no longer has to plant.
            lost = [c for c in o.give if c is not None and c in view.drawn]
            theirs = pos.seat_gain(o.proposer, list(a.cards), lost)
            val = gain - t.beta * theirs
            oid: int = a.offer_id  # type: ignore[assignment]
            values[oid] = max(values.get(oid, -1e9), val)
            if val > best_v:
                best, best_v = a, val
        if best is not None:
            return best
        for oid in offers:
            if values.get(oid, -1.0) <= 0:
                worst = Action.decline(oid)
                if worst in legal:
                    return worst
        return None

    def _incoming(self, pos: Position, o: OfferView) -> list[list[tuple[int, float]]]:
        out: list[list[tuple[int, float]]] = []
        for c, shown in zip(o.give, o.shown, strict=True):
            if c is not None:
                out.append([(c, 1.0)])
            else:
                alts = _stand_ins(pos.t, pos.view, shown, pos.avail)
                if alts:
                    out.append(alts)
        return out

    def _want(self, pos: Position, v: int) -> list[tuple[int, float]]:
        return _stand_ins(pos.t, pos.view, {"variety": pos.t.cfg.varieties[v]}, pos.avail)

    def _propose(self, pos: Position) -> Offer | None:
        view = pos.view
        me = pos.me
        active = view.active
        n = view.config.players
        if me == active:
            partners = tuple(s for s in range(n) if s != me and self.trades_with(s))
        else:
            partners = (active,) if self.trades_with(active) else ()
        if not partners:
            return None
        # The candidates only change when cards move: computed once per situation.
        key = (
            view.turn,
            view.hand,
            view.drawn,
            tuple(len(f) for s in view.seats for f in s.fields),
            tuple(len(s.trade_area) for s in view.seats),
            partners,
        )
        if key != self._cands_key:
            self._cands_key = key
            self._cands = self._candidates(pos, partners)
        for score, offer in self._cands:
            if score <= EPS:
                break
            if offer_key(offer) in self._proposed:
                continue
            return offer
        return None

    def _candidates(self, pos: Position, partners: tuple[int, ...]) -> list[tuple[float, Offer]]:
        """Offers worth making, best first, with their expected worth."""
        view = pos.view
        me = pos.me
        t = pos.t
        cfg = t.cfg
        cv = t.cv
        active = view.active
        must, hand = self._state(pos)
        base = pos.plan(pos.fields, must, hand)
        # What we may give: the drawn cards (when active) and the front of the hand.
        mine = must[len(view.seats[me].trade_area) :] + hand if me == active else hand
        # What we would like to get rid of, and what we would like to have.
        shed: list[tuple[float, int]] = []
        seen: set[tuple[int, str, bool]] = set()
        for c in mine:
            k = (cv[c], t.kind[c], c in view.drawn)
            if k in seen:
                continue
            seen.add(k)
            shed.append((self.trade_gain(pos, (c,), [], base), c))
        # Cards that would cost us a lot to give are not offered at all.
        shed = [x for x in shed if x[0] > -0.5]
        wv: set[int] = {cv[f[-1]] for f in pos.fields if f}
        wv.update(cv[c] for c in hand)
        if me != active:
            wv.update(cv[c] for c in view.drawn)
        wanted: list[tuple[float, int, list[tuple[int, float]]]] = []
        for v in wv:
            alts = self._want(pos, v)
            if alts:
                wanted.append((self.trade_gain(pos, (), [alts], base), v, alts))
        wanted.sort(key=lambda w: -w[0])
        wanted = [w for w in wanted if w[0] > EPS][:2]
        swaps: dict[tuple[int, int], float] = {}
        for _g, c in shed:
            for _gw, v, alts in wanted:
                if v != cv[c]:
                    swaps[(c, v)] = self.trade_gain(pos, (c,), [alts], base)
        cands: list[tuple[float, Offer]] = []
        for p in partners:
            drawn_p = list(view.drawn) if p == active else []
            for g, c in shed:
                declared = self._declare(pos, p, c)
                stand = c
                if declared:
                    stand = t.rep.get((cv[c], "red"), c)
                their = pos.seat_gain(p, [stand], [])
                if g > EPS:
                    cands.append(
                        (self._score(g, their, t.beta, True), Offer(p, (c,), (), declared))
                    )
                for _gw, v, _alts in wanted:
                    gain = swaps.get((c, v), 0.0)
                    if gain <= EPS:
                        continue
                    # They give a card of ``v``: costly to them if they grow it.
                    lost = [d for d in drawn_p if cv[d] == v][:1]
                    their2 = their - self._grows(view, p, v)
                    if lost:
                        their2 += pos.seat_gain(p, [], lost)
                    has = 1.0 if lost else pos.holds(p, v)
                    offer = Offer(p, (c,), ((cfg.varieties[v], 1),), declared)
                    cands.append((self._score(gain, their2, t.beta, False, has), offer))
            for gw, v, _alts in wanted:
                lost = [d for d in drawn_p if cv[d] == v][:1]
                if lost:
                    their = pos.seat_gain(p, [], lost)
                    offer = Offer(p, (), ((cfg.varieties[v], 1),))
                    cands.append((self._score(gw, their, t.beta, False), offer))
        cands.sort(key=lambda x: -x[0])
        return cands

    @staticmethod
    def _score(gain: float, their: float, beta: float, gift: bool, has: float = 1.0) -> float:
        """Expected worth of proposing: our gain, less what it gives the partner, times a
        rough chance that the partner accepts (it must gain on its visible fields, and
        hold what we ask for)."""
        if their > 0.1:
            p = 0.9
        elif their > -0.1:
            p = 0.35 if gift else 0.25
        else:
            p = 0.05
        return p * has * (gain - beta * max(0.0, their))

    @staticmethod
    def _grows(view: View, seat: int, v: int) -> float:
        cv = view.config.card_variety
        return float(sum(len(f) for f in view.seats[seat].fields if f and cv[f[-1]] == v) > 0)

    def _declare(self, pos: Position, partner: int, card: int) -> tuple[str, ...]:
        """R-BLUFF-1: a black Fasolkopajak from the hand is declared red when red is what
        the partner's race needs."""
        t = pos.t
        view = pos.view
        if t.cv[card] != t.spider or t.kind[card] != "black" or card in view.drawn:
            return ()
        for f in view.seats[partner].fields:
            if f and t.cv[f[-1]] == t.spider and t.kind[f[-1]] == "black":
                return ("red",)
        return ()


def _got_want(view: View, offer: Offer) -> bool:
    me = view.seat
    if me is None:
        return False
    area = view.seats[me].trade_area
    cv = view.config.card_variety
    keys = view.config.varieties
    return all(sum(1 for c in area if keys[cv[c]] == v) >= n for v, n in offer.want)


def offer_key(offer: Offer) -> tuple[Any, ...]:
    return (offer.to, offer.give, offer.want, offer.declared)


__all__ = ["HeuristicV1Agent"]
