"""The ``heuristic`` bot: a trading Bohnanza player that sees only its seat's view.

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

from collections.abc import Callable, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from ..actions import Action, ActionType, Offer
from ..cards import lady_beanometers, varieties
from ..coins import with_coins
from ..determinise import SeenCards
from ..modules import module_info
from ..pickling import rebuilt
from ..rules import GameConfig
from ..shuffle import COMPILED
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
#: What a card given away from the hand costs beyond the plan (0: nothing, as the
#: heuristic plays). Every hand card given away is one card fewer in hand at the end,
#: and the most cards in hand break a tie on coins (R-END-4): a seat that ties the best
#: other seat on coins in about one game in seven wins it by the hands.
HAND_CARD = 0.0
#: How likely a partner is thought to take an offer (:meth:`HeuristicAgent._score`): a
#: gift ``ACCEPT_GIFT``, an offer that asks for cards back ``ACCEPT_SWAP``, plus
#: ``ACCEPT_SLOPE`` per coin it gains on its visible fields (at most 0.95). The
#: heuristic's own guess; a bot may expect less of a swap that does not clearly help
#: the partner (``accept_swap``, ``accept_slope``; specs ``swCHANCE`` and ``slSLOPE``;
#: docs/notes/2026-12-06-search-experiments.md, "Swaps the partner wants").
ACCEPT_GIFT = 0.3
ACCEPT_SWAP = 0.2
ACCEPT_SLOPE = 0.45
#: Per turn, a refusal of our offer counts this much less (twice over when the refusing
#: seat's fields changed since): a seat that refused is asked again later.
FORGET = 0.85
#: A partner's gain is weighed ``1/(players-1)`` times ``1 + STANDING × lead`` (its lead
#: over everyone else in coins and field payouts), kept within these bounds.
STANDING = 0.25
LEADER_MAX = 2.0
TRAILER_MIN = 0.5
#: Own turns left below which a trade that gives the leader half a coin is refused.
ENDGAME = 1.5
#: No kingmaking (issue 36): in about the last ``KING_TURNS`` turns of the table (from
#: :func:`turns_left`, a rough estimate; at least the last ``ENDGAME`` own turns), a
#: trade that raises the sole leader's expected final margin (its gain above ``EPS``) is
#: refused unless it also raises the seat's own chance to win: the seat must gain more
#: than the leader does and end level with it or ahead (coins plus half the field
#: payouts). A trailing seat that stays behind decides nothing but who wins by feeding
#: the leader (game 700153 of the issue). Measured with ``benchmarks/kingmaking.py``: a
#: reach of 2 coins per own turn left let more such trades through than the old outright
#: refusal (0.22 a game against 0.04), so only a trade that catches the leader passes.
#: Issue 53: offers it makes are judged by what the leader's fields gain (a swap's card
#: asked from the leader's hand no longer nets a coin off it), and so are requests for
#: the leader's drawn cards; docs/notes/2026-12-07-kingmaking-coach-seats.md.
#: Issue 53 again: the rule still let through about as many trades as ``kingmaking``
#: did by the benchmark's count, which judged the leader otherwise (by coins, or coins
#: plus what the fields pay now, where the rule used half the payouts) and counted a
#: coin of payout whatever the trading seat gained. So in the same turns a trade that
#: feeds the king as :func:`feeds_king` defines it (the sole leader's fields pay at
#: least ``KING_COIN`` more now) is refused outright, whatever the seat gains;
#: benchmarks/kingmaking.py counts with that same function. The window covers the
#: benchmark's last 6 table turns: in 100 classic 4-player self-play games the estimate
#: read at most 1.4 own turns in them (the window: below 2). Payouts are the base
#: game's (``GameConfig.payout``), whatever modules pay on top.
KING_TURNS = 8.0
#: Coins of immediate payout to the sole leader that make a trade feed the king.
KING_COIN = 1
#: A warier weighing of rivals' gains (``STANDING``, ``LEADER_MAX``, ``TRAILER_MIN``):
#: twice as wary of a leader, and a seat behind never cheaper than an average rival
#: (``rivalry``, spec ``wary``). Against three heuristic bots, a heuristic that buys its
#: third field sooner and weighs so won 3 to 4 points of win share more than one that
#: only buys sooner in two screens of 1,000 games, but nothing on the 600 tournament
#: seeds; a search that plays its own turns so was no different (docs/bots.md).
WARY = (0.5, 4.0, 1.0)


Fields = list[list[int]]

#: Whether plans memoise placements in dicts (:class:`_Context`). They pay as plain
#: Python, where a dict lookup is cheaper than the few calls it saves; compiled (mypyc),
#: the calls are cheap and the lookups cost more than they save (measured again with
#: small int keys: 1,393M instructions against 1,187M for three games), so the compiled
#: bot computes every placement. Both give the same numbers (issue 34).
MEMO: Final = not COMPILED


class Tables:
    """Per-config data the bot needs often: payout steps, card counts, stand-in cards."""

    def __reduce__(self) -> tuple[Any, ...]:  # compiled and hot: see bohnanza.pickling
        return rebuilt(self, self.cfg)

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
        # The pile turn's own actions, by their types' values (the module's declaration).
        pt = self.pile_turn
        self.pile_plant = ActionType(pt.plant) if pt is not None else None
        self.pile_discard = ActionType(pt.discard) if pt is not None else None
        self.pile_keep = tuple(ActionType(k) for k in pt.keep) if pt is not None else ()
        #: What a Fasolkopająk field pays by its bean races (R-RACE-2), as its module says.
        paid = info.encoding.paid_by_kinds
        self.race_coins: Callable[[list[str]], int] = (
            paid[keys[self.spider]] if self.spider >= 0 and keys[self.spider] in paid else _no_race
        )
        # Plans by field codes (issue 34): where a field's value and payout depend on its
        # variety, its size and the kinds of its top three cards alone (base payouts, and
        # Fasolufka's top-card payouts; not a Fasolkopajaki race nor a Farmer pair), a
        # planted field is an int (:func:`_field_code`) and a card a class (variety and
        # kind), and a plan's placements are memoised by them (:class:`_Context`).
        self.fast = self.spider < 0 and self.farmer < 0
        kind_index: dict[str, int] = {}
        if self.top_card_pays:
            for k in sorted(set(self.kind)):
                kind_index[k] = len(kind_index) + 1
        assert len(kind_index) < 16 and nv < 2048
        #: Per card: its kind's number (1…; 0 where kinds do not matter), its class
        #: (variety × 16 + kind number) and the code of a field of it alone.
        self.kidx = [kind_index.get(self.kind[c], 0) for c in range(len(self.cv))]
        self.cclass = [self.cv[c] * 16 + self.kidx[c] for c in range(len(self.cv))]
        self.code1 = [_CODE1(self.cv[c], self.kidx[c]) for c in range(len(self.cv))]
        #: The kind numbers of a lady and of a child (-1: no such kind).
        self.lady = kind_index.get("lady", -1)
        self.child = kind_index.get("child", -1)
        #: Field code -> what harvesting such a field banks (:meth:`Position.coins`).
        self.coin_memo: dict[int, float] = {}
        #: The seats' views of the last position made without cards counted out, and
        #: its card counts (:meth:`Position.__init__`).
        self.seen_seats: tuple[Any, ...] = ()
        self.seen_avail: list[int] = []
        self.seen_hidden = 0
        self.seen_key: tuple[int, ...] = ()
        #: Memos per valuation context (:meth:`Position.__init__`).
        self.contexts: dict[tuple[Any, ...], _Context] = {}


def _no_race(kinds: list[str]) -> int:
    """No field pays by its kinds in this rule set."""
    return 0


def _CODE1(v: int, k: int) -> int:
    """The code of a field of one card of variety ``v`` and kind number ``k``."""
    return (v << 20) | (1 << 12) | (k << 8)


class _Context:
    """What plans found for one valuation context (the same tables, card counts and
    stage): field values, and (plain Python, :data:`MEMO`) each card placed onto fields
    and the cards that must go placed greedily."""

    __slots__ = ("ids", "lt", "must", "q", "states", "steps", "vals", "vt")

    def __init__(self, q: list[float], total: list[int], top_card_pays: bool) -> None:
        self.q = q
        self.vt = [[-1.0] * (n + 2) for n in total]
        self.lt = [[-1.0] * (n + 2) for n in total] if top_card_pays else []
        #: Field code -> :meth:`Position.fval` of such a field.
        self.vals: dict[int, float] = {}
        #: Plans step through fields by number (:meth:`Position.state_id`): the fields'
        #: codes -> their number, and per number the codes (never changed).
        self.ids: dict[tuple[int, ...], int] = {}
        self.states: list[list[int]] = []
        #: (fields' number, cards' classes in order) -> the cards that must go placed
        #: greedily: (value change, fields' number after).
        self.must: dict[tuple[int, tuple[int, ...]], tuple[float, int]] = {}
        #: fields' number × 2**16 + card class -> one card placed: (value change,
        #: fields' number after).
        self.steps: dict[int, tuple[float, int]] = {}

    def __reduce__(self) -> tuple[Any, ...]:  # compiled and hot: see bohnanza.pickling
        return rebuilt(self, self.q, [], False)


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


# ------------------------------------------------------------ feeding the king (issue 53)
# What a trade that "makes a king" is, one definition for the bot's rule (the trades it
# refuses in the last turns, :meth:`HeuristicAgent._feeds_king`) and for
# benchmarks/kingmaking.py (the trades it counts), so that the two cannot drift apart.


def scores_now(
    cfg: GameConfig, coins: Sequence[int], fields: Sequence[Sequence[Sequence[int]]]
) -> list[int]:
    """Per seat: its coins plus what its fields would pay now (the final score were the
    game to end now: every field is harvested at the end)."""
    pay = cfg.payout
    cv = cfg.card_variety
    out: list[int] = []
    for s in range(len(coins)):
        total = coins[s]
        for f in fields[s]:
            if f:
                total += pay[cv[f[-1]]][len(f)]
        out.append(total)
    return out


def sole_leader(scores: Sequence[int]) -> int:
    """The one seat with the highest score, or -1 where two or more share it."""
    top = max(scores)
    best = -1
    for s, x in enumerate(scores):
        if x == top:
            if best >= 0:
                return -1
            best = s
    return best


def payout_gain(cfg: GameConfig, fields: Sequence[Sequence[int]], cards: Sequence[int]) -> int:
    """How much more ``fields`` pay now with ``cards`` planted where they pay most: each
    onto the longest field of its variety, else an empty field (else it is not planted:
    it would take a harvest)."""
    pay = cfg.payout
    cv = cfg.card_variety
    grown = [list(f) for f in fields]
    before = 0
    for f in grown:
        if f:
            before += pay[cv[f[-1]]][len(f)]
    for c in cards:
        v = cv[c]
        best: list[int] | None = None
        empty: list[int] | None = None
        for f in grown:
            if f:
                if cv[f[-1]] == v and (best is None or len(f) > len(best)):
                    best = f
            elif empty is None:
                empty = f
        if best is not None:
            best.append(c)
        elif empty is not None:
            empty.append(c)
    after = 0
    for f in grown:
        if f:
            after += pay[cv[f[-1]]][len(f)]
    return after - before


def feeds_king(
    cfg: GameConfig,
    coins: Sequence[int],
    fields: Sequence[Sequence[Sequence[int]]],
    seat: int,
    cards: Sequence[int],
    by_coins: bool,
    by_score: bool,
) -> bool:
    """Whether ``seat`` receiving ``cards`` in a trade feeds the king: ``seat`` is the
    sole leader on coins (``by_coins``) or on :func:`scores_now` (``by_score``), and
    ``cards`` make its fields pay at least :data:`KING_COIN` more now
    (:func:`payout_gain`). (No defaults: see :meth:`HeuristicAgent._score`.)"""
    if not cards:
        return False
    if not (
        (by_coins and sole_leader(coins) == seat)
        or (by_score and sole_leader(scores_now(cfg, coins, fields)) == seat)
    ):
        return False
    return payout_gain(cfg, fields[seat], cards) >= KING_COIN


class Position:
    """One decision's context: the seat's fields and cards, and how fields are valued."""

    __slots__ = (
        "alpha",
        "avail",
        "codes",
        "ctx",
        "fields",
        "hidden",
        "left",
        "lt",
        "me",
        "memo",
        "packed",
        "q",
        "scores",
        "simple",
        "state",
        "t",
        "view",
        "vt",
    )

    def __reduce__(self) -> tuple[Any, ...]:  # compiled and hot: see bohnanza.pickling
        return rebuilt(self, self.view, self.t)

    def __init__(self, view: View, t: Tables, out: Sequence[int] = ()) -> None:
        self.view = view
        self.t = t
        me = view.seat
        assert me is not None
        self.me = me
        left = turns_left(view)
        #: :func:`turns_left` of the view, which several decisions read.
        self.left = left
        stage = min(1.0, left / 1.5)
        self.alpha = stage
        # Cards of each variety that may still reach this seat: all, less those on fields
        # and in trade areas (its own too: they are already counted there), and less
        # ``out``: cards it saw go to the discard pile or a treasury (``counting``).
        seats = view.seats
        if not out and seats == t.seen_seats:
            # The same fields and trade areas as the last position's (the game keeps a
            # seat's view while it does not change, so this is mostly an identity check).
            avail = t.seen_avail
            self.hidden = t.seen_hidden
            avail_key = t.seen_key
        else:
            avail = t.total[:]
            cv = t.cv
            for s in seats:
                for f in s.fields:
                    for c in f:
                        avail[cv[c]] -= 1
                for c in s.trade_area:
                    avail[cv[c]] -= 1
            for c in out:
                avail[cv[c]] -= 1
            self.hidden = sum(a for a in avail if a > 0)
            avail_key = tuple(avail)
            if not out:
                t.seen_seats = seats
                t.seen_avail = avail
                t.seen_hidden = self.hidden
                t.seen_key = avail_key
        #: Read only (shared by the positions of the same fields and trade areas).
        self.avail = avail
        hidden = self.hidden or 1
        self.scores: list[float] | None = None
        #: Per seat, the codes of its fields (``fast`` tables; the fields do not change).
        self.codes: dict[int, tuple[int, ...]] = {}
        self.packed: dict[int, int] = {}
        #: (cards to plant this turn, front of the hand), :meth:`HeuristicAgent._state`.
        self.state: tuple[list[int], list[int]] | None = None
        self.fields: Fields = [list(f) for f in view.seats[me].fields]
        self.simple = t.simple
        self.memo: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}
        # Placements, field values and the chances ``q`` depend on the fields' codes, the
        # card's class, the card counts and the stage alone: with ``fast`` tables they
        # are shared by every position of the same context (the seats asked in turn, the
        # asks of one trading phase), issue 34.
        ctx: _Context | None = None
        if t.fast:
            key = (avail_key, stage, KCARDS, GAMMA, HORIZON)
            ctx = t.contexts.get(key)
            if ctx is None:
                if len(t.contexts) >= 64:
                    t.contexts.clear()
                ctx = t.contexts[key] = _Context(
                    Position._chances(avail, hidden, stage), t.total, t.top_card_pays
                )
            self.q = ctx.q
            # Base payouts (and Fasolufka's lady payouts): field values by (variety,
            # size), memoised.
            self.vt = ctx.vt
            self.lt = ctx.lt
        else:
            self.q = Position._chances(avail, hidden, stage)
            self.vt = []
            self.lt = []
        self.ctx = ctx

    @staticmethod
    def _chances(avail: list[int], hidden: int, stage: float) -> list[float]:
        """q[v]: the chance that a field of v gets one more card before it must go, from
        the share of v among the cards still out and how many cards a field "sees"."""
        k = KCARDS * stage
        return [1.0 - (1.0 - a / hidden) ** k if a > 0 else 0.0 for a in avail]

    def third_field_worth(self, gain: float | None = None) -> float:
        """Expected extra coins from a third field for the rest of the game: the seat's
        coin rate so far (smoothed) times ``gain`` (:data:`FIELD_GAIN`) times its turns
        left."""
        if gain is None:
            gain = FIELD_GAIN
        if len(self.fields) >= 3:
            return 0.0
        view = self.view
        me = view.seats[self.me]
        turns = view.turn / view.config.players
        earned = me.coins + 0.5 * sum(me.payouts)
        rate = (earned + 1.0) / (turns + 2.0)
        return gain * rate * self.left

    def fv(self, v: int, n: int) -> float:
        """:meth:`fval` of a field of ``n`` cards of ``v`` (base payouts only)."""
        row = self.vt[v]
        if n >= len(row):
            # Stand-ins for cards asked for (two of a variety) can make a planned field
            # longer than the variety's cards still in play: it pays its most.
            return self._table_val(self.t.pay[v], self.t.steps[v], v, n)
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
            coins = t.race_coins([t.kind[c] for c in f])
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
            return float(t.race_coins([t.kind[c] for c in f]))
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
        if self.ctx is None:
            return self._place(fields, card)
        t = self.t
        return self._place_c([_field_code(t, f) for f in fields], card)

    # Field values by field codes (``fast`` tables, issue 34): the same numbers as
    # :meth:`fval`, :meth:`coins` and :meth:`_place` compute from the cards, to the bit.

    def _tv(self, v: int, n: int) -> float:
        """:meth:`_table_val` of the base payouts, memoised (``n`` at least 1)."""
        row = self.vt[v]
        t = self.t
        if n >= len(row):
            return self._table_val(t.pay[v], t.steps[v], v, n)
        x = row[n]
        if x < 0.0:
            x = row[n] = self._table_val(t.pay[v], t.steps[v], v, n)
        return x

    def _lv(self, v: int, n: int) -> float:
        """:meth:`_lady_val`, memoised."""
        t = self.t
        if v == t.gardener:
            return n + 1.0 + self.q[v]
        row = self.lt[v]
        if n >= len(row):
            return self._table_val(t.lady_pay[v], t.lady_steps[v], v, n)
        x = row[n]
        if x < 0.0:
            x = row[n] = self._table_val(t.lady_pay[v], t.lady_steps[v], v, n)
        return x

    def _cval(self, code: int) -> float:
        """:meth:`fval` of a field by its code."""
        if not code:
            return 0.0
        v = code >> 20
        n = (code >> 12) & 0xFF
        if self.simple:
            return self._tv(v, n)
        t = self.t
        k = (code >> 8) & 15
        if k == t.child:
            lady = t.lady
            if (n > 2 and (code >> 4) & 15 == lady) or (n > 3 and code & 15 == lady):
                return 0.5 * self._lv(v, n)
            return 0.5 * self._tv(v, n)
        if k == t.lady:
            return self._lv(v, n)
        return self._tv(v, n)

    def _ccoins(self, code: int) -> float:
        """:meth:`coins` of a (planted) field by its code."""
        v = code >> 20
        n = (code >> 12) & 0xFF
        t = self.t
        if not self.simple:
            k = (code >> 8) & 15
            if k == t.child:
                return 0.0
            if k == t.lady:
                if v == t.gardener:
                    return n + 1.0
                lp = t.lady_pay[v]
                return float(lp[min(n, len(lp) - 1)])
        pay = t.pay[v]
        return float(pay[min(n, len(pay) - 1)])

    def _place_n(self, codes: list[int], card: int) -> tuple[float, int, bool]:
        """:meth:`_place` by field codes, computed (the compiled bot's way)."""
        t = self.t
        v = t.cv[card]
        one = self._cval(t.code1[card])
        top = t.kidx[card] << 8
        best = -1e9
        best_i = -1
        best_h = False
        multi = False
        for c in codes:
            if (c >> 12) & 0xFF > 1:
                multi = True
                break
        empty_done = False
        i = -1
        for c in codes:
            i += 1
            if not c:
                if empty_done:
                    continue
                empty_done = True
                if one > best:
                    best, best_i, best_h = one, i, False
                continue
            old = self._cval(c)
            if c >> 20 == v:
                d = self._cval(((c + (1 << 12)) & ~0xFFF) | top | ((c & 0xFFF) >> 4)) - old
                if d > best:
                    best, best_i, best_h = d, i, False
            if (c >> 12) & 0xFF > 1 or not multi:
                d = self._ccoins(c) - old + one
                if d > best:
                    best, best_i, best_h = d, i, True
        return best, best_i, best_h

    def _place_c(self, codes: list[int], card: int) -> tuple[float, int, bool]:
        """:meth:`_place` by field codes, field values memoised in dicts (plain Python)."""
        if not MEMO:
            return self._place_n(codes, card)
        t = self.t
        ctx = self.ctx
        assert ctx is not None
        vals = ctx.vals
        coin_memo = t.coin_memo
        v = t.cv[card]
        c1 = t.code1[card]
        one = vals.get(c1)
        if one is None:
            one = vals[c1] = self._cval(c1)
        top = t.kidx[card] << 8
        best = -1e9
        best_i = -1
        best_h = False
        multi = False
        for c in codes:
            if (c >> 12) & 0xFF > 1:
                multi = True
                break
        empty_done = False
        for i, c in enumerate(codes):
            if not c:
                if empty_done:
                    continue
                empty_done = True
                if one > best:
                    best, best_i, best_h = one, i, False
                continue
            old = vals.get(c)
            if old is None:
                old = vals[c] = self._cval(c)
            if c >> 20 == v:
                g = ((c + (1 << 12)) & ~0xFFF) | top | ((c & 0xFFF) >> 4)
                x = vals.get(g)
                if x is None:
                    x = vals[g] = self._cval(g)
                d = x - old
                if d > best:
                    best, best_i, best_h = d, i, False
            if (c >> 12) & 0xFF > 1 or not multi:
                x = coin_memo.get(c)
                if x is None:
                    x = coin_memo[c] = self._ccoins(c)
                d = x - old + one
                if d > best:
                    best, best_i, best_h = d, i, True
        return best, best_i, best_h

    def _place(self, fields: Fields, card: int) -> tuple[float, int, bool]:
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
            key = (tuple(sorted(must)) if len(must) > 1 else tuple(must), tuple(seq[:HORIZON]))
            got = self.memo.get(key)
            if got is None:
                ctx = self.ctx
                if ctx is not None:
                    got = self.memo[key] = self._plan_codes(ctx, fields, must, seq)
                else:
                    got = self.memo[key] = self._plan(fields, must, seq)
            return got
        return self._plan(fields, must, seq)

    def _plan(self, fields: Fields, must: Sequence[int], seq: Sequence[int]) -> float:
        ctx = self.ctx
        if ctx is not None:
            return self._plan_codes(ctx, fields, must, seq)
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

    def _plan_codes(
        self, ctx: _Context, fields: Fields, must: Sequence[int], seq: Sequence[int]
    ) -> float:
        """:meth:`_plan` on field codes: the same choices in the same order, so the same
        value to the last bit. Fields go by number (:meth:`state_id`), and each step (a
        card placed onto such fields) and each greedy placement of the cards that must go
        is memoised per context: what they give depends on nothing else."""
        t = self.t
        if not MEMO:
            return self._plan_n(fields, must, seq)
        if fields is self.fields:
            st = self.seat_state(self.me)
        else:
            st = self.state_id(ctx, [_field_code(t, f) for f in fields])
        cclass = t.cclass
        steps = ctx.steps
        total = 0.0
        if must:
            if len(must) == 1:
                key = (st << 16) | cclass[must[0]]
                step = steps.get(key)
                if step is None:
                    step = self._step(ctx, st, must[0], key)
                total += step[0]
                st = step[1]
            else:
                # The cards that must go, greedily best first (ties to the first): by the
                # fields and the cards' classes in order.
                mkey = (st, tuple([cclass[c] for c in must]))
                got = ctx.must.get(mkey)
                if got is None:
                    got = self._must(ctx, st, must, mkey)
                total = got[0]
                st = got[1]
        # Hand cards are planted in later turns (after unknown drawn cards): discounted.
        w = GAMMA
        for c in seq[:HORIZON]:
            key = (st << 16) | cclass[c]
            step = steps.get(key)
            if step is None:
                step = self._step(ctx, st, c, key)
            total += w * step[0]
            st = step[1]
            w *= GAMMA
        return total

    def _plan_n(self, fields: Fields, must: Sequence[int], seq: Sequence[int]) -> float:
        """:meth:`_plan_codes` computed, not memoised (the compiled bot's way: compiled,
        the memos' lookups cost more than the placements they save)."""
        t = self.t
        if fields is self.fields:
            codes = list(self.seat_codes(self.me))
        else:
            codes = [_field_code(t, f) for f in fields]
        total = 0.0
        if must:
            rest = list(must)
            while rest:
                if len(rest) == 1:
                    d, i, h = self._place_n(codes, rest[0])
                    if i >= 0:
                        self._apply(codes, rest[0], i, h)
                        total += d
                    else:
                        total += 0.0
                    break
                best = -1e9
                bi = 0
                bd = 0.0
                b_i = -1
                b_h = False
                k = -1
                for c in rest:
                    k += 1
                    d, i, h = self._place_n(codes, c)
                    if d > best:
                        best, bi, bd, b_i, b_h = d, k, d, i, h
                    elif not k:
                        bd, b_i, b_h = d, i, h
                card = rest.pop(bi)
                if b_i >= 0:
                    self._apply(codes, card, b_i, b_h)
                    total += bd
                else:
                    total += 0.0
        w = GAMMA
        for c in seq[:HORIZON]:
            d, i, h = self._place_n(codes, c)
            if i >= 0:
                self._apply(codes, c, i, h)
                total += w * d
            else:
                total += w * 0.0
            w *= GAMMA
        return total

    def state_id(self, ctx: _Context, codes: list[int]) -> int:
        """The number of the fields ``codes`` in ``ctx`` (``codes`` is kept: not to be
        changed after)."""
        key = tuple(codes)
        got = ctx.ids.get(key)
        if got is None:
            got = ctx.ids[key] = len(ctx.states)
            ctx.states.append(codes)
        return got

    def _step(self, ctx: _Context, st: int, card: int, key: int) -> tuple[float, int]:
        """One card placed onto the fields numbered ``st``: (value change, fields'
        number after), memoised in ``ctx.steps`` under ``key``."""
        codes = ctx.states[st][:]
        d, i, h = self._place_c(codes, card)
        if i < 0:
            got = ctx.steps[key] = (0.0, st)
            return got
        self._apply(codes, card, i, h)
        got = ctx.steps[key] = (d, self.state_id(ctx, codes))
        return got

    def _apply(self, codes: list[int], card: int, i: int, h: bool) -> None:
        """Plant ``card`` onto field ``i`` of ``codes`` (after harvesting it: ``h``)."""
        t = self.t
        old = codes[i]
        if h or not old:
            codes[i] = t.code1[card]
        else:
            codes[i] = ((old + (1 << 12)) & ~0xFFF) | (t.kidx[card] << 8) | ((old & 0xFFF) >> 4)

    def _must(
        self, ctx: _Context, st: int, must: Sequence[int], mkey: tuple[int, tuple[int, ...]]
    ) -> tuple[float, int]:
        """The cards ``must`` placed greedily onto the fields numbered ``st``, best first
        (ties to the first): (value change, fields' number after), memoised in
        ``ctx.must``. Each try is a step (:meth:`_step`): fields always have a place for a
        card, so a step's value change is the placement's."""
        cclass = self.t.cclass
        steps = ctx.steps
        total = 0.0
        rest = list(must)
        while rest:
            best = -1e9
            bi = 0
            first: tuple[float, int] | None = None
            chosen: tuple[float, int] | None = None
            k = -1
            for c in rest:
                k += 1
                key = (st << 16) | cclass[c]
                step = steps.get(key)
                if step is None:
                    step = self._step(ctx, st, c, key)
                if first is None:
                    first = step
                if step[0] > best:
                    best, bi, chosen = step[0], k, step
            rest.pop(bi)
            if chosen is None:
                chosen = first
            assert chosen is not None
            total += chosen[0]
            st = chosen[1]
        got = ctx.must[mkey] = (total, st)
        return got

    def _do_code(self, codes: list[int], card: int) -> float:
        """:meth:`do_place` on field codes."""
        d, i, h = self._place_c(codes, card)
        if i < 0:
            return 0.0
        self._apply(codes, card, i, h)
        return d

    # ---------------------------------------------------------------- other seats

    def holds(self, seat: int, v: int) -> float:
        """Chance that ``seat``'s hand holds a card of ``v`` (from the unseen shares)."""
        avail = self.avail
        hidden = self.hidden
        if hidden <= 0 or avail[v] <= 0:
            return 0.0
        return 1.0 - (1.0 - avail[v] / hidden) ** self.view.seats[seat].hand_size

    def standing_scores(self) -> list[float]:
        """Per seat: its coins plus half of what its fields would pay now."""
        scores = self.scores
        if scores is None:
            scores = self.scores = [s.coins + 0.5 * sum(s.payouts) for s in self.view.seats]
        return scores

    def seat_codes(self, seat: int) -> tuple[int, ...]:
        """The codes of ``seat``'s fields as the view shows them (``fast`` tables)."""
        got = self.codes.get(seat)
        if got is None:
            t = self.t
            got = self.codes[seat] = tuple(
                [_field_code(t, f) for f in self.view.seats[seat].fields]
            )
        return got

    def seat_state(self, seat: int) -> int:
        """The number of ``seat``'s fields (:meth:`state_id`)."""
        got = self.packed.get(seat)
        if got is None:
            ctx = self.ctx
            assert ctx is not None
            got = self.packed[seat] = self.state_id(ctx, list(self.seat_codes(seat)))
        return got

    def seat_gain(self, seat: int, received: Sequence[int], lost_drawn: Sequence[int]) -> float:
        """What ``seat`` gains on its visible fields from a trade (its hand is unseen)."""
        ctx = self.ctx
        if ctx is not None:
            # By field codes: the same placements as below (no Farmer field here, whose
            # worth would read ``self.fields``).
            if not MEMO:
                codes = list(self.seat_codes(seat))
                gain = 0.0
                if lost_drawn:
                    before = codes[:]
                    for c in lost_drawn:
                        gain -= self._do_code(before, c)
                for c in received:
                    gain += self._do_code(codes, c)
                return gain
            start = self.seat_state(seat)
            cclass = self.t.cclass
            steps = ctx.steps
            gain = 0.0
            if lost_drawn:
                st = start
                for c in lost_drawn:
                    key = (st << 16) | cclass[c]
                    step = steps.get(key)
                    if step is None:
                        step = self._step(ctx, st, c, key)
                    gain -= step[0]
                    st = step[1]
            st = start
            for c in received:
                key = (st << 16) | cclass[c]
                step = steps.get(key)
                if step is None:
                    step = self._step(ctx, st, c, key)
                gain += step[0]
                st = step[1]
            return gain
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


def _field_code(t: Tables, f: Sequence[int]) -> int:
    """A field as an int (0: empty): its top card's variety, its size and the kind
    numbers of its top three cards (:class:`Tables`, ``fast``)."""
    n = len(f)
    if not n:
        return 0
    code = t.code1[f[-1]] + ((n - 1) << 12)
    if n > 1 and t.top_card_pays:
        kidx = t.kidx
        code |= kidx[f[-2]] << 4
        if n > 2:
            code |= kidx[f[-3]]
    return code


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


@mypyc_attr(allow_interpreted_subclasses=True)
class HeuristicAgent(Agent):
    """Values cards for its fields and its hand order, trades, gifts and harvests by that."""

    name = "heuristic"
    proposes = True
    #: Whether it makes offers of two cards (the search's roll-out players do not: they
    #: are many, and the one-card offers are the cheap part).
    multi = True

    def __init__(
        self,
        seed: int = 0,
        *,
        max_proposals: int = 6,
        shed: int = 4,
        wanted: int = 2,
        field_gain: float | None = None,
        rivalry: tuple[float, float, float] | None = None,
        counting: bool = False,
        memory: SeenCards | None = None,
        hand_card: float | None = None,
        kingmaking: bool = False,
        eps: float | None = None,
        forget: float | None = None,
        accept_swap: float | None = None,
        accept_slope: float | None = None,
    ) -> None:
        super().__init__(seed)
        self.max_proposals = max_proposals
        #: Whether it may feed the sole leader late in the game (True: the play before
        #: issue 36, kept to measure the rule against; see :data:`KING_TURNS`).
        self.kingmaking = kingmaking
        #: The share of its coin rate it expects a third field to add when it decides to
        #: buy one (None: :data:`FIELD_GAIN`). The search buys sooner (docs/bots.md).
        self.field_gain = field_gain
        #: How it weighs a partner's gain by the partner's standing: (``STANDING``,
        #: ``LEADER_MAX``, ``TRAILER_MIN``), None for the module's values (see
        #: :data:`WARY`).
        self.rivalry = rivalry
        #: How many of its cards it considers giving, and how many varieties asking for,
        #: when it lists offers: the search widens both, to have more offers to try out.
        self.shed_width = shed
        self.want_width = wanted
        #: What it remembers of the cards it saw leave play (None: nothing, as the
        #: ``heuristic`` registry entry plays). With a memory its card counts leave out
        #: the cards it saw go to the discard pile or a treasury: they will not come to a
        #: field soon, if ever (:meth:`out_of_reach`). ``counting`` gives it a memory of
        #: its own, updated at every decision; a caller that keeps one (the search)
        #: passes it as ``memory`` and updates it itself.
        self.memory = memory if memory is not None else (SeenCards() if counting else None)
        self._own_memory = memory is None
        #: What a hand card given away costs it beyond its plan (None: :data:`HAND_CARD`).
        self.hand_card = hand_card
        #: The smallest gain worth an offer, an acceptance or a variety asked for (None:
        #: :data:`EPS`), and how much a refusal fades per turn (None: :data:`FORGET`).
        #: The search's own play takes any gain and forgets refusals sooner (spec ``ep0``,
        #: ``fo0.6``): it makes and takes more offers (docs/bots.md).
        self.eps = eps
        self.forget = forget
        #: Its model of a partner's yes to an offer that asks for cards back, and how
        #: much likelier each coin the partner gains makes it (:meth:`_score`; None:
        #: :data:`ACCEPT_SWAP`, :data:`ACCEPT_SLOPE`).
        self.accept_swap = accept_swap
        self.accept_slope = accept_slope
        self._turn = -1
        self._proposed: set[tuple[Any, ...]] = set()
        self._count = 0
        # Opponent model: per seat, acceptances of our offers and (fading) refusals.
        self._accepted: dict[int, float] = {}
        self._refused: dict[int, float] = {}
        self._tops: dict[int, tuple[int, ...]] = {}
        self._open: list[tuple[int, Offer]] = []
        self._bare = True
        self._cv: tuple[int, ...] = ()
        self._cands_key: tuple[Any, ...] = ()
        self._cands: list[tuple[float, Offer]] = []

    def snapshot(self) -> tuple[Any, ...]:
        """The bot's memory (offers made, who accepts), for :meth:`restore`: a caller that
        asks for the bot's choice but then acts otherwise (the search) takes it back."""
        return (
            self._turn,
            set(self._proposed),
            self._count,
            dict(self._accepted),
            dict(self._refused),
            dict(self._tops),
            list(self._open),
        )

    def restore(self, state: tuple[Any, ...]) -> None:
        (turn, proposed, count, accepted, refused, tops, open_) = state
        self._turn, self._proposed, self._count = turn, proposed, count
        self._accepted, self._refused, self._tops, self._open = accepted, refused, tops, open_

    def out_of_reach(self, view: View) -> list[int]:
        """Cards it saw go to the discard pile (the top one included), a treasury, or one
        of the two: out of reach until the next shuffle (R-DECK-1), coins for good.
        Counting them out measured no better against three heuristic bots
        (docs/bots.md), so ``heuristic`` and ``search`` do not."""
        memory = self.memory
        if memory is None:
            return []
        out = list(memory.discard)
        out.extend(memory.gone)
        for cards in memory.treasury.values():
            out.extend(cards)
        if view.discard_top is not None:
            out.append(view.discard_top)
        return out

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
        self._cv = view.config.card_variety
        memory = self.memory
        if memory is not None and self._own_memory:
            memory.update(view)
        if self._open:
            self._track(view)
        if required and len(legal) == 1:
            return legal[0]
        t = tables_for(view.config)
        pos = Position(view, t, self.out_of_reach(view) if memory is not None else ())
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
                if pos.third_field_worth(self.field_gain) < price + BUY_MARGIN:
                    return None
                return with_coins(pos.view, a)  # fasolufka: which coins pay (R-LADY-10)
        return None

    def _pending(self, pos: Position, legal: Sequence[Action]) -> Action:
        """Fasolufka: where a received child goes, and which lady moves up after it."""
        fields = pos.fields
        best = legal[0]
        best_v = -1e18
        p = pos.view.pending
        assert p is not None
        for a in legal:
            if a.type.value != p.kind:
                continue  # not an answer to the decision
            if a.field is not None:  # the decision's card placed on a field (R-LADY-7)
                g = [f[:] for f in fields]
                g[a.field].append(a.card)  # type: ignore[arg-type]
                val = pos.fval(g[a.field]) - pos.fval(fields[a.field])
            elif "field" in p.args:  # a card of the decision's field moved up (R-LADY-8)
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
        plant_t, discard_t, keep_t = pos.t.pile_plant, pos.t.pile_discard, pos.t.pile_keep
        for a in legal:
            t = a.type
            if t is plant_t:
                g = [f[:] for f in fields]
                g[a.field].append(a.card)  # type: ignore[index,arg-type]
                val = pos.fval(g[a.field]) - pos.fval(fields[a.field])  # type: ignore[index]
                val += pos.plan(g, [], hand) - base
                if view.phase == pt.reveal_phase:
                    # Planting it also keeps it from the opponent.
                    val += 0.5 * max(0.0, pos.seat_gain(opp, [a.card], []))  # type: ignore[list-item]
            elif t is discard_t:
                if view.phase == pt.discard_phase:
                    rest = [c for c in hand if c != a.card]
                    val = pos.plan(fields, [], rest) - base - 0.3
                else:
                    val = 0.0
            elif t in keep_t:
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
            self._new_turn(view)
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

    def _new_turn(self, view: View) -> None:
        """A new turn: offers may be made again, and refusals fade - faster for a seat
        whose fields changed since it refused (its needs changed)."""
        self._turn = view.turn
        self._proposed = set()
        self._count = 0
        forget = FORGET if self.forget is None else self.forget
        for s, n in self._refused.items():
            tops = _tops(view, s)
            fade = forget if self._tops.get(s) == tops else forget * forget
            self._refused[s] = n * fade
            self._tops[s] = tops

    def offer_candidates(self) -> list[tuple[float, Offer]]:
        """The offers it last considered, best first, with their expected worth."""
        return list(self._cands)

    def offer_kind(self, offer: Offer) -> tuple[Any, ...]:
        """What makes two offers "the same" to a partner: the varieties given (not the
        card ids), what is asked for, and any declaration."""
        cv = self._cv
        give = tuple(sorted(cv[c] for c in offer.give)) if cv else offer.give
        return (offer.to, give, offer.want, offer.declared)

    def proposed(self, offer: Offer) -> bool:
        """Whether it made an offer of this kind this turn."""
        return self.offer_kind(offer) in self._proposed

    def record_proposal(self, offer: Offer) -> None:
        """Remember an offer made (not to repeat its kind, and to learn who accepts)."""
        self._count += 1
        self._proposed.add(self.offer_kind(offer))
        self._open.append((offer.to, offer))

    def _track(self, view: View) -> None:
        """Learn who accepts: an offer of ours that vanished with its cards in the
        partner's trade area was accepted; one that vanished otherwise was refused (or
        lapsed)."""
        if not self._open:
            return
        me = view.seat
        still = {(o.to, tuple(o.give), o.want) for o in view.offers if o.proposer == me}
        keep: list[tuple[int, Offer]] = []
        for to, offer in self._open:
            if (to, offer.give, offer.want) in still:
                keep.append((to, offer))
                continue
            held = set(view.seats[to].trade_area)
            for f in view.seats[to].fields:
                held.update(f)
            if (offer.give and all(c in held for c in offer.give)) or (
                not offer.give and _got_want(view, offer)
            ):
                self._accepted[to] = self._accepted.get(to, 0.0) + 1.0
            else:
                self._refused[to] = self._refused.get(to, 0.0) + 1.0
                self._tops[to] = _tops(view, to)
        self._open = keep

    def min_gain(self) -> float:
        """The smallest gain worth an action (:attr:`eps`, or :data:`EPS`)."""
        return EPS if self.eps is None else self.eps

    def chance(self, seat: int) -> float:
        """How likely ``seat`` takes an offer it should like, from what it did with ours:
        never 0 (nobody is written off for good), lower after recent refusals, higher
        for every acceptance."""
        took = 1.0 + 2.0 * self._accepted.get(seat, 0.0)
        return took / (took + self._refused.get(seat, 0.0))

    def trades_with(self, seat: int) -> bool:
        """Every seat may still trade (kept for callers of the older interface)."""
        return self.chance(seat) > 0.0

    def _standing(self, pos: Position, seat: int) -> float:
        """How far ``seat`` leads everyone else (negative: behind), in coins and in what
        its fields would pay now."""
        score = pos.standing_scores()
        return score[seat] - max(x for k, x in enumerate(score) if k != seat)

    def _weight(self, pos: Position, seat: int) -> float:
        """What a coin for ``seat`` costs us: ``1/(players-1)`` for an average rival,
        more for the leader, less for a seat behind."""
        d = self._standing(pos, seat)
        standing, most, least = self.rivalry or (STANDING, LEADER_MAX, TRAILER_MIN)
        return pos.t.beta * min(most, max(least, 1.0 + standing * d))

    def _feeds_leader(self, pos: Position, seat: int, their: float) -> bool:
        """Near the end, never hand a seat level with the best half a coin (nor the sole
        leader, with ``kingmaking``; without, :meth:`_kingmaker` judges that)."""
        if their <= 0.5 or pos.left >= ENDGAME:
            return False
        standing = self._standing(pos, seat)
        return standing == 0 or (standing > 0 and self.kingmaking)

    def _king_late(self, pos: Position) -> bool:
        """Whether the no-kingmaking rule applies: the last :data:`KING_TURNS` table
        turns (at least the last :data:`ENDGAME` own turns), estimated, and not
        ``kingmaking``."""
        return not self.kingmaking and pos.left < max(ENDGAME, KING_TURNS / pos.view.players)

    def _feeds_king(self, pos: Position, partner: int, cards: Sequence[int]) -> bool:
        """Whether handing ``partner`` ``cards`` is refused late in the game whatever
        we gain: it feeds the king (:func:`feeds_king`, the trades
        benchmarks/kingmaking.py counts)."""
        if not cards or not self._king_late(pos):
            return False
        view = pos.view
        seats = view.seats
        coins = [s.coins for s in seats]
        fields = [s.fields for s in seats]
        return feeds_king(view.config, coins, fields, partner, cards, True, True)

    def _kingmaker(self, pos: Position, partner: int, their: float, gain: float) -> bool:
        """Whether a trade that gives ``partner`` ``their`` and us ``gain`` (both in coins
        of field value) would make a king: late in the game (:data:`KING_TURNS`), the
        partner is the sole leader, the trade raises its margin, and it does not raise
        our own chance to win (we gain no more than it, or stay behind it)."""
        eps = self.eps
        if self.kingmaking or their <= (EPS if eps is None else eps):  # min_gain(), inline
            return False
        view = pos.view
        left = pos.left
        if left >= max(ENDGAME, KING_TURNS / view.players) or self._standing(pos, partner) <= 0:
            return False
        score = pos.standing_scores()
        behind = score[partner] - score[pos.me] + their - gain
        return not (gain > their and behind <= 0.0)

    def makes_king(self, view: View, action: Action) -> bool:
        """Whether accepting an offer (``action``) is a trade :meth:`_kingmaker` refuses:
        the search drops such answers from its candidates."""
        if action.type is not _T.ACCEPT or view.seat is None:
            return False
        o = next((o for o in view.offers if o.offer_id == action.offer_id), None)
        if o is None:
            return False
        self._cv = view.config.card_variety
        pos = Position(view, tables_for(view.config))
        gain = self.trade_gain(pos, action.cards, self._incoming(pos, o))
        lost = [c for c in o.give if c is not None and c in view.drawn]
        theirs = pos.seat_gain(o.proposer, list(action.cards), lost)
        return self._feeds_king(pos, o.proposer, action.cards) or self._kingmaker(
            pos, o.proposer, theirs, gain
        )

    def _state(self, pos: Position) -> tuple[list[int], list[int]]:
        """(cards to plant this turn, hand): the trade area plus, when active, the drawn.
        Kept on the position (its callers only read the lists)."""
        state = pos.state
        if state is None:
            view = pos.view
            must = list(view.seats[pos.me].trade_area)
            if view.active == pos.me:
                must += list(view.drawn)
            state = pos.state = (must, self._hand(view))
        return state

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
        if give:
            m2 = [c for c in must if c not in give]
            h2 = [c for c in hand if c not in give]
        else:  # nothing leaves: the same cards (``plan`` only reads them)
            m2, h2 = must, hand
        if not get:
            total = 0.0
            total += 1.0 * pos.plan(pos.fields, m2, h2)
            cost = HAND_CARD if self.hand_card is None else self.hand_card
            if cost and give:
                held = pos.view.hand or ()
                total -= cost * sum(1 for c in give if c in held)
            return total - base
        options: list[list[tuple[int, float]]] = [
            list(e) if isinstance(e, list) else [e]  # type: ignore[list-item]
            for e in get
        ]
        combos: list[tuple[list[int], float]] = [([], 1.0)]
        for alts in options:
            combos = [([*cs, c], w * wa) for cs, w in combos for c, wa in alts]
        total = 0.0
        for cs, w in combos:
            total += w * pos.plan(pos.fields, m2 + cs, h2)
        cost = HAND_CARD if self.hand_card is None else self.hand_card
        if cost and give:
            held = pos.view.hand or ()
            total -= cost * sum(1 for c in give if c in held)
        return total - base

    def _answer(self, pos: Position, legal: Sequence[Action]) -> Action | None:
        """Accept the best offer addressed to us if it pays. Otherwise a non-active seat
        declines the worst (its proposer learns); the active seat lets it lapse and uses
        its turn to propose (unanswered offers lapse when trading ends, R-TRADE-6)."""
        view = pos.view
        me = pos.me
        offers = {o.offer_id: o for o in view.offers if o.to == me}
        if not offers:
            return None
        must, hand = self._state(pos)
        base = pos.plan(pos.fields, must, hand)
        best: Action | None = None
        best_v = self.min_gain()
        values: dict[int, float] = {}
        for a in legal:
            if a.type is not _T.ACCEPT:
                continue
            o = offers.get(a.offer_id)  # type: ignore[arg-type]
            if o is None:
                continue
            get = self._incoming(pos, o)
            gain = self.trade_gain(pos, a.cards, get, base)
            lost = [c for c in o.give if c is not None and c in view.drawn]
            theirs = pos.seat_gain(o.proposer, list(a.cards), lost)
            if (
                self._feeds_leader(pos, o.proposer, theirs)
                or self._kingmaker(pos, o.proposer, theirs, gain)
                or self._feeds_king(pos, o.proposer, a.cards)
            ):
                val = -1.0
            else:
                val = gain - self._weight(pos, o.proposer) * theirs
            oid: int = a.offer_id  # type: ignore[assignment]
            values[oid] = max(values.get(oid, -1e9), val)
            if val > best_v:
                best, best_v = a, val
        if best is not None or me == view.active:
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
        partners = tuple(s for s in range(n) if s != me) if me == active else (active,)
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
        # What was learnt about each partner changes between asks (a refusal), the
        # cards do not: the candidates are kept, and weighed by it here.
        best: Offer | None = None
        best_v = self.min_gain()
        odds = {p: self.chance(p) for p in partners}
        for score, offer in self._cands:
            if score <= best_v:
                break  # sorted, and odds <= 1: no later one can beat the best so far
            v = score * odds[offer.to]
            if v > best_v and self.offer_kind(offer) not in self._proposed:
                best, best_v = offer, v
        return best

    def _candidates(self, pos: Position, partners: tuple[int, ...]) -> list[tuple[float, Offer]]:
        """Offers worth making, best first, with their expected worth before what was
        learnt about the partner (:meth:`chance`, applied in :meth:`_propose`): gifts of one or two
        cards, one or two cards for one or two of a variety it wants, both drawn cards
        as a package, and requests for a drawn card."""
        view = pos.view
        me = pos.me
        t = pos.t
        cfg = t.cfg
        cv = t.cv
        names = cfg.varieties
        active = view.active
        must, hand = self._state(pos)
        base = pos.plan(pos.fields, must, hand)
        eps = self.min_gain()
        drawn_mine = list(view.drawn) if me == active else []
        mine = drawn_mine + hand
        shed: list[tuple[float, int]] = []
        seen: set[tuple[int, str, bool]] = set()
        for c in mine:
            k = (cv[c], t.kind[c], c in view.drawn)
            if k in seen:
                continue
            seen.add(k)
            shed.append((self.trade_gain(pos, (c,), [], base), c))
        shed = sorted((x for x in shed if x[0] > -0.5), key=lambda x: -x[0])[: self.shed_width]
        # Two cards at once: the best pairs of cards to shed, and both drawn cards.
        pairs: list[tuple[float, tuple[int, int]]] = []
        pair_set: set[tuple[int, int]] = set()
        for i in range(min(3, len(shed)) if self.multi else 0):
            for j in range(i + 1, min(3, len(shed))):
                pair_set.add((shed[i][1], shed[j][1]))
        if len(drawn_mine) == 2 and self.multi:
            pair_set.add((drawn_mine[0], drawn_mine[1]))
        for pr in pair_set:
            g2 = self.trade_gain(pos, pr, [], base)
            if g2 > -0.5:
                pairs.append((g2, pr))
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
        wanted = [w for w in wanted if w[0] > eps][: self.want_width]
        # (cards given, variety, count) -> our gain.
        swaps: dict[tuple[tuple[int, ...], int, int], float] = {}
        for _gw, v, alts in wanted:
            for _g, c in shed:
                if v != cv[c]:
                    swaps[((c,), v, 1)] = self.trade_gain(pos, (c,), [alts], base)
                    if self.multi and pos.avail[v] >= 2:
                        swaps[((c,), v, 2)] = self.trade_gain(pos, (c,), [alts, alts], base)
            for _g, pr in pairs:
                if v not in (cv[pr[0]], cv[pr[1]]):
                    swaps[(pr, v, 1)] = self.trade_gain(pos, pr, [alts], base)
        spider = t.spider >= 0
        swap, slope = self.acceptance()
        gifts: list[tuple[float, tuple[int, ...]]] = [(g, (c,)) for g, c in shed]
        gifts += [(g, pr) for g, pr in pairs]
        cands: list[tuple[float, Offer]] = []
        for p in partners:
            drawn_p = list(view.drawn) if p == active else []
            w = self._weight(pos, p)
            # What does not change from gift to gift (the same numbers as computed in
            # place): the varieties ``p`` grows, and per (variety, count) the drawn cards
            # it would lose, what losing them costs it and the chance it holds them.
            grows = {cv[f[-1]] for f in view.seats[p].fields if f}
            asked: dict[tuple[int, int], tuple[float | None, float]] = {}
            for g, give in gifts:
                # Only a Fasolkopajak is ever declared (R-BLUFF-1).
                declared = self._declare(pos, p, give[0]) if spider and len(give) == 1 else ()
                stand = [t.rep.get((cv[c], "red"), c) for c in give] if declared else list(give)
                their = pos.seat_gain(p, stand, [])
                if self._feeds_leader(pos, p, their) or self._feeds_king(pos, p, give):
                    continue
                if g > eps and not self._kingmaker(pos, p, their, g):
                    score = HeuristicAgent._score(g, their, w, ACCEPT_GIFT, slope, 1.0)
                    cands.append((score, _offer(p, give, (), declared)))
                for _gw, v, _alts in wanted:
                    for count in (1, 2):
                        gain = swaps.get((give, v, count), 0.0)
                        if gain <= eps:
                            continue
                        got = asked.get((v, count))
                        if got is None:
                            lost = [d for d in drawn_p if cv[d] == v][:count]
                            loss = pos.seat_gain(p, [], lost) if lost else None
                            has = 1.0 if len(lost) == count else pos.holds(p, v) ** count
                            got = asked[(v, count)] = (loss, has)
                        loss, has = got
                        # What the leader's fields gain (the cards it receives, less a
                        # drawn card it loses), not ``their2``: a card asked from a hand
                        # costs its fields nothing this late, and netting a coin off for
                        # it let the last turns' swaps feed the leader (issue 53).
                        fed = their if loss is None else their + loss
                        if self._kingmaker(pos, p, fed, gain):
                            continue
                        their2 = their - count * (1.0 if v in grows else 0.0)
                        if loss is not None:
                            their2 += loss
                        offer = _offer(p, give, ((names[v], count),), declared)
                        score = HeuristicAgent._score(gain, their2, w, swap, slope, has)
                        cands.append((score, offer))
            if drawn_p:
                # Requests for the active seat's drawn cards: one, or both as a package.
                asks: list[tuple[int, ...]] = [(d,) for d in drawn_p]
                if len(drawn_p) == 2 and self.multi:
                    asks.append(tuple(drawn_p))
                done: set[tuple[int, ...]] = set()
                for ask in asks:
                    vs = tuple(sorted(cv[d] for d in ask))
                    if vs in done:
                        continue
                    done.add(vs)
                    gw = self.trade_gain(pos, (), [[(d, 1.0)] for d in ask], base)
                    if gw <= eps:
                        continue
                    their = pos.seat_gain(p, [], list(ask))
                    if self._kingmaker(pos, p, their, gw):
                        continue  # relieving the leader of cards it must plant feeds it too
                    want: dict[str, int] = {}
                    for v in vs:
                        want[names[v]] = want.get(names[v], 0) + 1
                    offer = _offer(p, (), tuple(want.items()), ())
                    cands.append((HeuristicAgent._score(gw, their, w, swap, slope, 1.0), offer))
        cands.sort(key=lambda x: -x[0])
        return cands

    @staticmethod
    def _score(
        gain: float, their: float, weight: float, first: float, slope: float, has: float
    ) -> float:
        """Expected worth of proposing: our gain, less what it gives the partner, times a
        rough chance that the partner accepts (it must gain on its visible fields, and
        hold what we ask for, ``has``): ``first`` when it gains nothing
        (:data:`ACCEPT_GIFT` for a gift, the bot's swap guess for an offer that asks for
        cards back), ``slope`` more per coin it gains.

        Every argument is passed, none defaulted: compiled (mypyc 2.4), a ``float``
        argument left to its default arrives as 0.0 when the method is called on an
        instance of a plain-Python subclass (the probe bots), which once ranked their
        gifts at nothing (docs/design.md, "A compiled core"; a test scans for such
        defaults)."""
        # The more it helps the partner, the likelier a yes: a seat that grows the
        # variety takes it gladly, one that merely has room for it may not.
        p = min(0.95, first + slope * max(0.0, their)) if their > -0.1 else 0.05
        return p * has * (gain - weight * max(0.0, their))

    def acceptance(self) -> tuple[float, float]:
        """The bot's guesses of a yes for :meth:`_score`: (swap, per coin)."""
        swap = self.accept_swap
        slope = self.accept_slope
        return (
            ACCEPT_SWAP if swap is None else swap,
            ACCEPT_SLOPE if slope is None else slope,
        )

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


def _offer(
    to: int, give: tuple[int, ...], want: tuple[tuple[str, int], ...], declared: tuple[str, ...]
) -> Offer:
    """``Offer(to, give, want, declared)`` without the named tuple's constructor, which
    runs as plain Python (a frame per offer, compiled or not; the bot builds about thirty
    offers per list)."""
    return tuple.__new__(Offer, (to, give, want, declared))


def _tops(view: View, seat: int) -> tuple[int, ...]:
    """The varieties a seat grows, with their sizes: what it wants changes with them."""
    cv = view.config.card_variety
    return tuple(cv[f[-1]] * 64 + len(f) if f else -1 for f in view.seats[seat].fields)


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


__all__ = [
    "HeuristicAgent",
    "Position",
    "Tables",
    "feeds_king",
    "offer_key",
    "payout_gain",
    "scores_now",
    "sole_leader",
    "tables_for",
    "turns_left",
]
