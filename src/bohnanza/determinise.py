"""Determinisation: full game states consistent with what one seat knows (R-INFO-1…3).

A search bot cannot look at the hidden cards (other hands, the draw pile, face-down
coins, the discard pile below its top). It samples them instead: :class:`Determiniser`
deals the cards the seat cannot see at random into the places whose sizes its
:class:`~bohnanza.views.View` shows, and builds a full :class:`~bohnanza.game.Game` from
the engine's own state (a fresh game's :meth:`~bohnanza.game.Game.to_dict`, with the
view's public state and the dealt piles put in, loaded by
:meth:`~bohnanza.game.Game.from_dict`, which checks that every card is in one place).

A view is one moment. What the seat saw *earlier* narrows the deal further, and
:class:`SeenCards` remembers it from the seat's successive views:

* a card it saw (on a field, in a trade area, turned up, on top of the discard pile, in
  its own hand or treasury) and no longer sees has left play for the discard pile, a
  treasury or the cards out of the game: no seat can take a card back into its hand from
  a visible place, so such a card is dealt into none of the hands and not into the draw
  pile - until the discard pile is shuffled into a new draw pile (then what was in it
  may be anywhere);
* where it can tell, more precisely where: the top card of the discard pile that got
  covered stays in the discard pile; of a field harvested while trading (nothing is
  planted then) the top ``coins`` cards went to its owner's treasury and the rest to the
  discard pile (R-HARV-2); of a field harvested at some other time, whose new cards the
  seat may not have seen, the bottom cards that no coin count reaches went to the
  discard pile for sure;
* a card another seat offered from its hand (its variety is shown, R-TRADE-3) is still
  in that hand after the offer lapsed, until that seat gives cards away or plays its
  own next turn (when it plants from the hand).

Everything it remembers comes from views alone: the determinisation never reads the
real game, so it cannot leak a hidden card (tests/test_determinise.py).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from .actions import Offer
from .errors import RecordError
from .game import register_determiniser
from .modules import module_info
from .rules import GameConfig
from .shapes import ParamKind

if TYPE_CHECKING:
    from .game import Game
    from .views import View

#: What a hidden hand card offered by another seat shows: its variety and declaration.
Claim = tuple[str, str]

_TRADE = "trade"


def unseen_cards(view: View) -> list[int]:
    """Card ids the view does not show (ascending): the cards to deal at random."""
    seen = view.visible_cards()
    return [c for c in range(view.config.deck_size) if c not in seen]


def _claim(shown: dict[str, Any]) -> Claim:
    return (str(shown.get("variety") or ""), str(shown.get("declared") or ""))


def _fits(cfg: GameConfig, card: int, claim: Claim) -> bool:
    """Whether ``card`` may be the hidden card shown as ``claim`` (a card shown black is
    black; one declared red may be a black one bluffing, R-BLUFF-1)."""
    variety, declared = claim
    if cfg.varieties[cfg.card_variety[card]] != variety:
        return False
    return declared != "black" or cfg.card_kind[card] == "black"


def _grows(view: View, seat: int, v: int) -> bool:
    """Whether a field of ``seat`` has ``v`` on top (a function of the module, not a
    closure: see :func:`_take`)."""
    cv = view.config.card_variety
    return any(f and cv[f[-1]] == v for f in view.seats[seat].fields)


def _take(cfg: GameConfig, pool: list[int], hand: list[int], size: int, claim: Claim) -> int:
    """A card fitting ``claim`` moved from ``pool`` into ``hand`` while it holds fewer
    than ``size`` cards (-1: none fits, or the hand is full). A function of the module, not
    a closure of the deal: compiled, a closure and its environment refer to each other,
    and every sampled deal waited for the cycle collector."""
    if len(hand) >= size:
        return -1
    for j, c in enumerate(pool):
        if _fits(cfg, c, claim):
            hand.append(pool.pop(j))
            return c
    return -1


def _looseness(claim: Claim) -> int:
    """Claims that fewer cards fit come first when dealing: a declared black card (only
    black ones fit) before any other."""
    return 0 if claim[1] == "black" else 1


def _within(inner: Claim, outer: Claim) -> bool:
    """Whether every card that fits ``inner`` also fits ``outer``."""
    return inner[0] == outer[0] and (outer[1] != "black" or inner[1] == "black")


def _offer_needs(claims: list[Claim]) -> Counter[Claim]:
    """For the hidden cards one offer shows (distinct cards of one hand): how many cards
    fitting each claim the hand holds at least (a card declared black also fits a red
    declaration of its variety, so an offer of both needs two cards fitting red)."""
    return Counter({x: sum(1 for y in claims if _within(y, x)) for x in set(claims)})


def _reshuffled(p: View, c: View) -> bool:
    """Whether the discard pile may have been shuffled into a new draw pile between two
    views (R-DECK-1): a run-out was counted and the draw pile holds cards again, or a
    draw was made from an empty pile."""
    if c.runouts > p.runouts + 1:
        return True
    if c.runouts > p.runouts and c.draw_size > 0:
        return True
    return p.draw_size == 0 and (c.draw_size > 0 or c.runouts > p.runouts)


def _another_game(last: View, view: View) -> bool:
    """Whether ``view`` cannot follow ``last`` in one game of one seat (the memories start
    afresh when an agent is reused for a new game or another seat)."""
    return (
        view.seat != last.seat
        or view.turn < last.turn
        or view.config.rules != last.config.rules
        or view.players != last.players
    )


@mypyc_attr(allow_interpreted_subclasses=True)
class SeenCards:
    """What one seat remembers of the cards it has seen, from its successive views.

    Call :meth:`update` with every view the seat gets (the more views, the more it
    knows; a view of another game starts afresh). Its knowledge, all about cards the
    current view does not show:

    * ``discard``: cards in the discard pile (below its top);
    * ``treasury[s]``: cards among seat ``s``'s coins;
    * ``gone``: cards in the discard pile, a treasury or out of the game, not known where;
    * ``claims[s]``: what seat ``s`` offered from its hand and still holds, as
      ``(variety, declared)`` with the number of such cards.
    """

    def __init__(self) -> None:
        self.discard: set[int] = set()
        self.treasury: dict[int, set[int]] = {}
        self.gone: set[int] = set()
        self.claims: dict[int, Counter[Claim]] = {}
        self._claimed_at: dict[int, tuple[int, int]] = {}  # seat -> (turn, active)
        self._last: View | None = None
        self._visible: set[int] = set()
        self.views = 0

    def reset(self) -> None:
        """Forget everything (a new game)."""
        self.__init__()  # type: ignore[misc]

    def copy(self) -> SeenCards:
        """An independent copy, for a search whose states branch (OpenSpiel's states in
        :mod:`bohnanza.rl.openspiel` each keep a seat's memory): updating one leaves the
        other as it was. The last view is shared (views are never changed)."""
        new = SeenCards()
        new.discard = set(self.discard)
        new.treasury = {s: set(cards) for s, cards in self.treasury.items()}
        new.gone = set(self.gone)
        new.claims = {s: Counter(c) for s, c in self.claims.items()}
        new._claimed_at = dict(self._claimed_at)
        new._last = self._last
        new._visible = set(self._visible)
        new.views = self.views
        return new

    def known(self) -> dict[int, str]:
        """Every remembered card with its place (``"discard"``, ``"treasury:S"``,
        ``"gone"``), for tests and reports."""
        out = dict.fromkeys(self.gone, "gone")
        out.update(dict.fromkeys(self.discard, "discard"))
        for s, cards in self.treasury.items():
            out.update(dict.fromkeys(cards, f"treasury:{s}"))
        return out

    def update(self, view: View) -> None:
        """Learn from ``view``, the seat's newest view."""
        if view.seat is None:
            raise ValueError("a spectator has no seat to remember for")
        p = self._last
        if p is not None and _another_game(p, view):
            self.reset()
            p = None
        # The cards whose place the view shows: a card a decision shows the seat
        # (View.visible_cards) lies where the seat does not see, and stays in play.
        visible = view.placed_cards()
        if p is not None:
            self._learn(p, view, visible)
        for c in visible:  # a card in sight is in no hidden place
            self.discard.discard(c)
            self.gone.discard(c)
        for cards in self.treasury.values():
            cards -= visible
        self._learn_claims(p, view)
        self._last = view
        self._visible = visible
        self.views += 1

    # ---------------------------------------------------------------- cards leaving sight

    def _learn(self, p: View, c: View, visible: set[int]) -> None:
        cfg = c.config
        # Coins paid away (a third field) may be known coins: now anywhere among the
        # discard pile, the treasury and out of the game.
        for s in range(c.players):
            ps, cs = p.seats[s], c.seats[s]
            if cs.coins < ps.coins or len(cs.fields) != len(ps.fields):
                self.gone |= self.treasury.pop(s, set())
        if _reshuffled(p, c):
            # The discard pile became the draw pile: what was in it may be anywhere, and so
            # may the cards that left sight meanwhile (some before the shuffle).
            self.discard.clear()
            self.gone.clear()
            return
        vanished = self._visible - visible
        if not vanished:
            return
        # Where cards leave the discard pile or move unseen (ModuleInfo.cards_traceable:
        # Fasolufka's ladies, the duel's turned-up discards) only "gone" is sure.
        exact = module_info(cfg.module).cards_traceable
        to_discard: set[int] = set()
        to_treasury: dict[int, set[int]] = {}
        if exact:
            if p.discard_top is not None:
                to_discard.add(p.discard_top)
            for s in range(c.players):
                SeenCards._harvests(p, c, s, to_discard, to_treasury)
        for card in vanished:
            if card in to_discard:
                self.discard.add(card)
                continue
            for s, cards in to_treasury.items():
                if card in cards:
                    self.treasury.setdefault(s, set()).add(card)
                    break
            else:
                self.gone.add(card)

    @staticmethod
    def _harvests(
        p: View, c: View, s: int, to_discard: set[int], to_treasury: dict[int, set[int]]
    ) -> None:
        """Where the cards of seat ``s``'s harvested field went (R-HARV-2: the top
        ``coins`` cards to the treasury, the rest to the discard pile), where one field
        was harvested and nothing else changed its coins."""
        ps, cs = p.seats[s], c.seats[s]
        if len(cs.fields) != len(ps.fields):
            return
        harvested = [
            i for i, f in enumerate(ps.fields) if f and tuple(cs.fields[i][: len(f)]) != tuple(f)
        ]
        gained = cs.coins - ps.coins
        if len(harvested) != 1 or gained < 0:
            return
        (i,) = harvested
        f = ps.fields[i]
        # While trading nobody plants (R-TRADE-1…7): the field harvested is the one seen.
        same_trade = p.turn == c.turn and p.phase == c.phase == _TRADE
        if same_trade and ps.payouts[i] == gained and not cs.fields[i]:
            split = len(f) - gained
            to_discard.update(f[:split])
            to_treasury.setdefault(s, set()).update(f[split:])
            return
        # Unseen cards may have been planted on top before the harvest: only the bottom
        # cards below every coin are surely in the discard pile.
        to_discard.update(f[: max(0, len(f) - gained)])

    # ---------------------------------------------------------------- hand cards offered

    def _learn_claims(self, p: View | None, c: View) -> None:
        n = c.players
        for s in list(self.claims):
            turn, active = self._claimed_at[s]
            # Seat s plants from its hand in its own next turn (R-PLANT-1), and gives
            # cards away when its hand shrinks: the offered card may be gone. An active
            # seat's hand also grows at the end of its turn (R-DRAW-1), which could hide a
            # card given away: its claims end with its turn.
            own_turn = c.turn > turn and c.turn - turn >= ((s - active) % n or n)
            ended = s == active and c.turn > turn
            shrank = p is not None and c.seats[s].hand_size < p.seats[s].hand_size
            if own_turn or ended or shrank:
                del self.claims[s]
                del self._claimed_at[s]
        for o in c.offers:
            if o.proposer == c.seat:
                continue
            need = _offer_needs(
                [_claim(sh) for g, sh in zip(o.give, o.shown, strict=True) if g is None]
            )
            if not need:
                continue
            held = self.claims.setdefault(o.proposer, Counter())
            for claim, k in need.items():
                held[claim] = max(held[claim], k)  # several offers may show the same card
            self._claimed_at[o.proposer] = (c.turn, c.active)


#: What each kind of evidence multiplies a seat's weight of a variety by (see
#: :class:`HandInference`; tuned on seeds 1-10 and 101-108 by ``benchmarks/inference_report.py``).
REFUSED = 0.6  # it refused to give a variety it does not grow
REFUSED_GROWN = 0.85  # ... a variety it grows (it may keep it)
ASKED = 4.0  # it asked for a variety it does not grow (it pairs hand cards up)
ASKED_GROWN = 1.0  # ... one it grows (it wants more whatever its hand holds)
UNSHOWN = 0.6  # it offered hand cards, none of this variety, which it does not grow
#: How much of the evidence about a hand survives the seat's own turn (it plants from
#: the hand and draws new cards, R-PLANT-1, R-DRAW-1).
FADE = 0.5
#: Log-weights are kept within these bounds (no variety is ruled out or in).
LOG_BOUND = 2.5


@mypyc_attr(allow_interpreted_subclasses=True)
class HandInference:
    """Soft evidence about the other seats' hidden hands, from what the seat saw them do
    (a simple counting model: every observation multiplies a seat's weight of a
    variety, and :class:`Determiniser` deals that seat's unconstrained hand cards with
    probability proportional to the weights, without replacement).

    Its evidence, read from the seat's successive views only (like :class:`SeenCards`):

    * a refusal: an offer to a non-active seat asking it for a variety (which it would
      give from its hand) vanished while trading went on and its hand did not shrink:
      it probably holds none (:data:`REFUSED`; weaker where it grows that variety and
      may keep it, :data:`REFUSED_GROWN`);
    * a want: a seat asked for a variety it does not grow (the trading bots ask for the
      varieties they hold, to pair them up): it probably holds some (:data:`ASKED`);
    * an offer from the hand: the cards shown are certain (:class:`SeenCards` claims);
      the varieties it did not offer and does not grow are a little less likely
      (:data:`UNSHOWN`: it offers what it does not need).

    The evidence fades (:data:`FADE`) at each of the seat's own turns: it plants from
    its hand and draws new cards. These are likelihood ratios, not certainties: no
    weight leaves ``exp(±LOG_BOUND)``, and the hard constraints stay the memory's.
    """

    def __init__(self) -> None:
        #: seat -> log-weight of each variety (index into ``config.varieties``).
        self.log: dict[int, list[float]] = {}
        self._last: View | None = None
        self._unshown: set[tuple[int, int]] = set()  # (seat, turn) already counted

    def reset(self) -> None:
        """Forget everything (a new game)."""
        self.__init__()  # type: ignore[misc]

    def weights(self, view: View) -> dict[int, list[float]]:
        """Each other seat's weight of every variety (1.0: no evidence)."""
        return {
            s: [math.exp(x) for x in lw]
            for s, lw in self.log.items()
            if s != view.seat and any(x != 0.0 for x in lw)
        }

    def _add(self, seat: int, v: int, factor: float, nvar: int) -> None:
        lw = self.log.setdefault(seat, [0.0] * nvar)
        lw[v] = max(-LOG_BOUND, min(LOG_BOUND, lw[v] + math.log(factor)))

    def update(self, view: View) -> None:
        """Learn from ``view``, the seat's newest view."""
        if view.seat is None:
            raise ValueError("a spectator has no seat to infer for")
        p = self._last
        if p is not None and _another_game(p, view):
            self.reset()
            p = None
        cfg = view.config
        nvar = len(cfg.varieties)
        index = {name: i for i, name in enumerate(cfg.varieties)}
        me = view.seat

        if p is not None and view.turn > p.turn:
            # Turns ended: the seats whose own turns they were planted and drew.
            n = view.players
            for t in range(p.turn, view.turn):
                s = (p.active + t - p.turn) % n
                if s in self.log:
                    self.log[s] = [x * FADE for x in self.log[s]]
        if p is not None and p.phase == view.phase == _TRADE and p.turn == view.turn:
            now = {o.offer_id for o in view.offers}
            for o in p.offers:
                s = o.to
                if o.offer_id in now or s == me or s == p.active or not o.want:
                    continue
                if view.seats[s].hand_size < p.seats[s].hand_size:
                    continue  # it gave cards: accepted (or gave elsewhere)
                for name, _count in o.want:
                    v = index.get(name)
                    if v is not None:
                        self._add(s, v, REFUSED_GROWN if _grows(view, s, v) else REFUSED, nvar)
        seen_before = {o.offer_id for o in p.offers} if p is not None else set()
        for o in view.offers:
            s = o.proposer
            if s == me or o.offer_id in seen_before:
                continue
            for name, _count in o.want:
                v = index.get(name)
                if v is not None:
                    self._add(s, v, ASKED_GROWN if _grows(view, s, v) else ASKED, nvar)
            hidden = [_claim(sh)[0] for g, sh in zip(o.give, o.shown, strict=True) if g is None]
            if hidden and (s, view.turn) not in self._unshown:
                self._unshown.add((s, view.turn))
                shown = {index[x] for x in hidden if x in index}
                for v in range(nvar):
                    if v not in shown and not _grows(view, s, v):
                        self._add(s, v, UNSHOWN, nvar)
        self._last = view


@mypyc_attr(allow_interpreted_subclasses=True)
class Determiniser:
    """Samples full states consistent with one view and, optionally, with what the seat
    remembers (:class:`SeenCards`). Build it once per decision, then :meth:`sample`."""

    def __init__(
        self,
        view: View,
        seen: SeenCards | None = None,
        weights: dict[int, list[float]] | None = None,
    ) -> None:
        if view.seat is None:
            raise ValueError("a spectator view cannot be determinised")
        #: Per other seat, a weight per variety (:class:`HandInference`): that seat's
        #: unconstrained hand cards are dealt with probability proportional to it,
        #: without replacement (None or a missing seat: uniformly, as before).
        self.weights = {s: w for s, w in (weights or {}).items() if s != view.seat}
        self.view = view
        self.me = me = view.seat
        hand_sizes = [s.hand_size for s in view.seats]
        hand_sizes[me] = 0
        self.hand_sizes = hand_sizes
        #: Cards the seat knows without seeing their place (Hooks.private_cards: the card
        #: its open decision is about), kept by id: in the hand of a seat the decision
        #: names (its arguments of kind SEAT), else dealt as any unseen card.
        self.held: dict[int, list[int]] = {}
        loose: list[int] = []
        pending = view.pending
        if pending is not None:
            placed = view.placed_cards()
            kinds = pending.kinds()
            seats = [
                v
                for name, v in pending.args.items()
                if kinds[name] is ParamKind.SEAT and v != me and 0 <= v < view.players
            ]
            for card in pending.cards():
                if card in placed:
                    continue
                for s in seats:
                    if len(self.held.get(s, ())) < hand_sizes[s]:
                        self.held.setdefault(s, []).append(card)
                        break
                else:
                    loose.append(card)
        self.unseen = sorted(unseen_cards(view) + loose)
        self.coins = [s.coins for s in view.seats]
        if view.treasury is not None:  # its own coins are known (R-LADY-10), not dealt
            self.coins[me] = 0
        self.below = view.discard_size - (1 if view.discard_top is not None else 0)
        hidden = view.draw_size + self.below + sum(hand_sizes) + sum(self.coins)
        self.out = len(self.unseen) + sum(len(v) for v in self.held.values()) - hidden
        if self.out < 0:
            raise ValueError("the view's counts do not add up: more hidden places than cards")
        # Cards other seats offer from their hands: (proposer, offer index, slot, claim).
        self.hidden_offers: list[tuple[int, int, int, Claim]] = []
        for k, o in enumerate(view.offers):
            for i, c in enumerate(o.give):
                if c is None:
                    self.hidden_offers.append((o.proposer, k, i, _claim(o.shown[i])))
        self.known_discard: list[int] = []
        self.known_treasury: dict[int, list[int]] = {}
        self.gone: list[int] = []
        self.claims: dict[int, Counter[Claim]] = {}
        #: Parts of the memory dropped because they did not fit this view (should be none).
        self.dropped: list[str] = []
        if seen is not None:
            self._use(seen)
        known = set(self.known_discard) | set(self.gone)
        for cards in self.known_treasury.values():
            known.update(cards)
        self.free = [c for c in self.unseen if c not in known]
        self._plan_claims()
        self.template = self._template(self._deal(random.Random(0)))

    def _use(self, seen: SeenCards) -> None:
        """Take what ``seen`` remembers, as far as it fits this view's counts."""
        unseen = set(self.unseen)
        n = self.view.players
        discard = sorted(seen.discard & unseen)
        if len(discard) <= self.below:
            self.known_discard = discard
        elif discard:
            self.dropped.append("discard")
        for s, cards in sorted(seen.treasury.items()):
            mine = sorted(cards & unseen)
            if not mine:
                continue
            if 0 <= s < n and len(mine) <= self.coins[s]:
                self.known_treasury[s] = mine
            else:
                self.dropped.append(f"treasury:{s}")
        gone = sorted(seen.gone & unseen)
        room = self.below + sum(self.coins) + self.out - len(self.known_discard)
        room -= sum(len(v) for v in self.known_treasury.values())
        placed = len(self.unseen) + sum(len(v) for v in self.held.values())
        placed -= len(self.known_discard) + len(gone)
        placed -= sum(len(v) for v in self.known_treasury.values())
        needed = sum(self.hand_sizes) + self.view.draw_size
        if len(gone) <= room and placed >= needed:
            self.gone = gone
        elif gone:
            self.dropped.append("gone")
        for s, claims in seen.claims.items():
            if 0 <= s < n and s != self.me and claims:
                self.claims[s] = Counter(claims)

    def _plan_claims(self) -> None:
        """How many cards of each claim every hand must hold (``needs``, the most
        restrictive claims first) and the hidden slots of each offer (``offer_slots``)."""
        need: dict[tuple[int, Claim], int] = {}
        for p, claims in self.claims.items():
            for claim, k in claims.items():
                need[(p, claim)] = max(need.get((p, claim), 0), k)
        slots: dict[int, tuple[int, list[tuple[int, Claim]]]] = {}
        for p, k, i, claim in self.hidden_offers:
            slots.setdefault(k, (p, []))[1].append((i, claim))
        self.offer_slots: list[tuple[int, int, list[tuple[int, Claim]]]] = []
        for k, (p, items) in sorted(slots.items()):
            for claim, m in _offer_needs([c for _, c in items]).items():
                need[(p, claim)] = max(need.get((p, claim), 0), m)
            items.sort(key=lambda item: _looseness(item[1]))
            self.offer_slots.append((k, p, items))
        self.needs: list[tuple[int, Claim, int]] = sorted(
            ((p, claim, k) for (p, claim), k in need.items()),
            key=lambda x: (_looseness(x[1]), x[0], x[1]),
        )

    # ---------------------------------------------------------------- dealing

    def _deal(self, rng: random.Random) -> dict[str, Any]:
        view = self.view
        cfg = view.config
        pool = self.free[:]
        rng.shuffle(pool)
        n = cfg.players
        hands: list[list[int]] = [list(self.held.get(p, ())) for p in range(n)]

        # Hand cards shown in offers now or earlier (R-TRADE-3) go into their hands first,
        # the most restrictive claims first (a card declared black must be black; one
        # declared red may be either, R-BLUFF-1), so that a red claim dealt a black card
        # cannot leave a black claim without one.
        for p, claim, k in self.needs:
            have = sum(1 for c in hands[p] if _fits(cfg, c, claim))
            for _ in range(k - have):
                if _take(cfg, pool, hands[p], self.hand_sizes[p], claim) < 0:
                    break
        # Each offer shows distinct cards of its proposer's hand; several offers may show
        # the same card.
        offer_cards: dict[tuple[int, int], int] = {}
        dropped: set[int] = set()
        for k, p, slots in self.offer_slots:
            used: set[int] = set()
            for i, claim in slots:
                pick = next((c for c in hands[p] if c not in used and _fits(cfg, c, claim)), -1)
                if pick < 0:
                    dropped.add(k)  # only where the view and the memory disagree
                    break
                used.add(pick)
                offer_cards[(k, i)] = pick
        for p in range(n):
            w = self.weights.get(p)
            if w is not None and len(hands[p]) < self.hand_sizes[p]:
                self._weighted(rng, pool, hands[p], self.hand_sizes[p] - len(hands[p]), w)
            while len(hands[p]) < self.hand_sizes[p]:
                hands[p].append(pool.pop())
            rng.shuffle(hands[p])
        draw = [pool.pop() for _ in range(view.draw_size)]
        # The rest, with the cards known to have left play, fills the discard pile, the
        # treasuries and the cards out of the game, the known ones where they are known.
        rest = pool + self.gone
        rng.shuffle(rest)
        discard = self.known_discard + [
            rest.pop() for _ in range(self.below - len(self.known_discard))
        ]
        rng.shuffle(discard)
        if view.discard_top is not None:
            discard.append(view.discard_top)
        treasury: list[list[int]] = []
        for s in range(n):
            known = self.known_treasury.get(s, [])
            coins = known + [rest.pop() for _ in range(self.coins[s] - len(known))]
            rng.shuffle(coins)
            treasury.append(coins)
        if view.treasury is not None:
            treasury[self.me] = list(view.treasury)
        hands[self.me] = list(view.hand or ())
        offers: list[dict[str, Any]] = []
        for k, o in enumerate(view.offers):
            if k in dropped:
                continue
            give = [c if c is not None else offer_cards[(k, i)] for i, c in enumerate(o.give)]
            declared = [str(sh.get("declared") or "") for sh in o.shown]
            offer = Offer(o.to, tuple(give), o.want, tuple(declared) if any(declared) else ())
            offers.append({"id": o.offer_id, "proposer": o.proposer, "offer": offer.to_json()})
        return {
            "hands": hands,
            "draw": draw,
            "discard": discard,
            "treasury": treasury,
            "out": rest,
            "offers": offers,
        }

    def _weighted(
        self, rng: random.Random, pool: list[int], hand: list[int], k: int, w: list[float]
    ) -> None:
        """Move ``k`` cards from ``pool`` into ``hand``, each card drawn with probability
        proportional to its variety's weight among those left (Efraimidis-Spirakis keys:
        the ``k`` largest ``log(u) / w``). The pool's remaining order stays random."""
        cv = self.view.config.card_variety
        keys = sorted(
            ((math.log(1.0 - rng.random()) / w[cv[c]], j) for j, c in enumerate(pool)),
            reverse=True,
        )[:k]
        picked = sorted((j for _, j in keys), reverse=True)
        for j in picked:
            hand.append(pool.pop(j))

    def _template(self, dealt: dict[str, Any]) -> Game:
        """The engine's own state of a fresh game of this configuration, with the view's
        public state and one deal put in, loaded (and checked) by ``Game.from_dict``."""
        from .game import Game

        view = self.view
        state = Game(view.config, seed=0).to_dict()
        extra = {k: list(v) if isinstance(v, list) else v for k, v in view.public.items()}
        if (
            module_info(view.config.module).last_turn_public
            and view.final_runout
            and view.active == 1
        ):
            extra["last_turn"] = True  # R-DUEL-4: the second seat's turn after a run-out
        ids = [int(o["id"]) for o in dealt["offers"]]
        state.update(
            dealt,
            fields=[[list(f) for f in s.fields] for s in view.seats],
            trade=[list(s.trade_area) for s in view.seats],
            drawn=list(view.drawn),
            next_offer_id=max([0, *ids]) + 1000,
            supply=view.third_fields_left,
            active=view.active,
            phase=view.phase,
            planted=view.planted,
            turn=view.turn,
            runouts=view.runouts,
            final_runout=view.final_runout,
            pending=view.pending.to_json() if view.pending is not None else None,
            extra=extra,
            scores=list(view.scores) if view.scores is not None else None,
            winners=list(view.winners) if view.winners is not None else None,
        )
        try:
            return Game.from_dict(state)
        except RecordError as exc:
            raise ValueError(f"the view cannot be determinised: {exc}") from None

    def sample(self, rng: random.Random, check: bool = False) -> Game:
        """A full game state drawn at random among those consistent with the view (and
        the memory). ``check`` also runs the engine's consistency check on it."""
        dealt = self._deal(rng)
        g = self.template.clone()
        g.hands = dealt["hands"]
        g.draw = dealt["draw"]
        g.discard = dealt["discard"]
        g.treasury = dealt["treasury"]
        g.out = dealt["out"]
        g.offers = {
            int(o["id"]): (int(o["proposer"]), Offer.from_json(o["offer"])) for o in dealt["offers"]
        }
        g.rng = random.Random(rng.getrandbits(64))
        g.invalidate_views()
        if check:
            g._validate()
        return g


def determinise(view: View, rng: random.Random, seen: SeenCards | None = None) -> Game:
    """One sampled full state consistent with ``view`` and what ``seen`` remembers."""
    return Determiniser(view, seen).sample(rng)


register_determiniser(determinise)  # Game.determinise (the engine does not import this)


__all__ = ["Determiniser", "HandInference", "SeenCards", "determinise", "unseen_cards"]
