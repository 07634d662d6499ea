"""The ``search`` bot: determinised (information-set) Monte Carlo search.

For a trading decision (phase 2: an offer to make, one to answer, trading to end; with
``trades_only=False`` any decision) with more than one sensible answer the bot

1. lists a few candidate actions, the ``heuristic`` bot's own choice first (in phase 2
   also accepting or declining each offer addressed to it, ending trading, passing, and
   the other offers the heuristic thought of);
2. *determinises* (:mod:`bohnanza.determinise`): deals the cards it cannot see at random
   into the places whose sizes it can see, consistently with its view and with what it
   remembers of its earlier views (:class:`~bohnanza.determinise.SeenCards`: cards it saw
   leave play are dealt into no hand and not into the draw pile, covered discards stay
   in the discard pile, a harvest's coins in their owner's treasury, a card offered from
   a hand stays in that hand), and builds a full game state from that;
3. plays every candidate out on the same sampled state with the same roll-out seed, with
   the trading ``heuristic`` (which writes nobody off) at every seat, to the end of the
   turn (or for ``depth`` turns), then scores the position for itself
   (:func:`utility`);
4. repeats 2-3 within its budget and answers with the candidate whose paired advantage
   over the heuristic's choice is largest, if it exceeds ``z`` standard errors (else
   the heuristic's choice).

It sees only its :class:`~bohnanza.views.View`s: the hidden cards of the sampled states
come from a shuffle of the cards its views do not account for, never from the real game.
The budget is set by the caller: ``seconds`` per decision, ``iterations`` (samples per
decision) or ``rollouts`` (roll-outs per decision, shared by the candidates; 60 when no
budget is given); with the last two the choices do not depend on the machine's speed.
With one legal action, or no alternative to the heuristic's choice worth comparing, it
answers at once.

The defaults are the best measured against three ``heuristic`` bots (docs/bots.md):
searching every decision was no better than the heuristic over 300 games (where a
short roll-out's leaf overrules its planting and harvesting, that does not pay), and
searching only the trades, each played out to the end of its turn, was (a paired gain
of about 8 points of win share). Where it does not search it plays as the heuristic,
except that it buys its third field sooner (:data:`FIELD_GAIN`), worth about as much
again, and values a card in hand for the tie-break (:data:`HAND_CARD`), worth about 6
points more: 43.0% against three heuristic bots over 600 games, where the heuristic wins
23.0%.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from ..actions import Action, ActionType, Offer
from ..coins import with_coins
from ..determinise import Determiniser, HandInference, SeenCards, determinise, unseen_cards
from ..errors import IllegalAction
from ..game import Game
from ..schedule import MAX_TRADE_ROUNDS
from ..views import View
from .base import Agent
from .heuristic import HeuristicAgent, Position, tables_for, turns_left

_T = ActionType
_SKIP = frozenset((_T.PROPOSE,))
_TRADE_CHOICES = frozenset((_T.ACCEPT, _T.DECLINE, _T.END_TRADING, _T.BUY_FIELD))
#: Offers a roll-out player makes per turn (fewer than a real one: roll-outs are many).
ROLLOUT_PROPOSALS = 2
#: Phase-2 rounds of a roll-out turn (a real table's driver allows ``MAX_TRADE_ROUNDS``).
ROLLOUT_TRADE_ROUNDS = 2
#: Samples per decision at least, with a ``rollouts`` budget (the paired test needs 3).
MIN_SAMPLES = 3
#: Samples every candidate gets before pruning may drop one (``prune``).
PRUNE_AFTER = 3
#: Standard errors below zero at which ``prune`` drops an alternative.
PRUNE_Z = 1.0
#: Roll-outs a decision without another budget: the measured default (docs/bots.md,
#: ``search:60ro:turn:trade``, about 50 ms a searched decision compiled).
DEFAULT_ROLLOUTS = 60
#: What the search's own play expects a third field to add to its coin rate when it
#: decides to buy one (the heuristic: :data:`~bohnanza.agents.heuristic.FIELD_GAIN`,
#: 0.38). Against three heuristic bots, a heuristic that buys with 0.9 instead wins
#: about 7 points of win share more over 1,000 games (docs/bots.md).
FIELD_GAIN = 0.9
#: What a card in hand is worth at the end, in coins, to the search's own play (what a
#: card given away from the hand costs beyond the plan) and at a roll-out's end (per card
#: in every seat's hand): the most cards in hand break a tie on coins (R-END-4), and a
#: heuristic that buys its third field sooner and costs hand cards so wins about 4 to 8
#: points of win share more against three heuristic bots, mostly by winning ties
#: (docs/bots.md). The heuristic values trades by the plan alone (0). Once its own play
#: trades more (:data:`WANTED` below), 0.2 beats 0.1: about 4 points against three
#: heuristic bots and 1 against three ``heuristic:hc0.1`` in screens of its own play
#: (docs/notes/2026-12-06-search-experiments.md, "A hand card worth 0.2").
HAND_CARD = 0.2
#: How the search's own play trades (the heuristic: 2 varieties asked for, any gain above
#: 0.05 coins worth an action, a refusal counting 0.85 as much each turn): it asks for up
#: to three varieties it wants, acts on any gain above zero and asks a seat that refused
#: again sooner (a refusal counts 0.6 as much each turn). It makes and takes more offers:
#: against three heuristic bots its own play wins about 12 points of win share more with
#: them, against three ``heuristic:hc0.1`` about 9 (screens of 2,000 games), and the
#: search with them about 6 and 13 points more on held-out seeds (docs/notes/2026-12-06-search-experiments.md, "Trading
#: more").
WANTED = 3
EPS = 0.0
FORGET = 0.6
#: Candidates a ``wide`` search lists at most, and keeps for its second round.
WIDE_CANDIDATES = 14
KEEP = 3
#: Extra candidates that ``pairs`` (2-for-2 offers) and ``spread`` (the best offer to
#: each partner) may add beyond ``max_candidates``.
EXTRA_CANDIDATES = 2
#: What one coin of margin is worth in :func:`utility` (a win at the end is worth 1):
#: the coach divides by it to report the search's values in coins.
MARGIN_SCALE = 0.2


class _Stop(Exception):
    """Raised inside a roll-out when its depth is reached."""


#: A roll-out player's offer list, keyed by everything it depends on (:func:`_cands_key`).
CandidateCache = dict[tuple[Any, ...], list[tuple[float, Offer]]]
#: Entries a decision's shared cache holds at most (it is emptied when full).
CACHE_LIMIT = 20_000


def _cands_key(player: HeuristicAgent, pos: Position, partners: tuple[int, ...]) -> tuple[Any, ...]:
    """Everything a heuristic's offer list (``_candidates``) depends on: the player's
    settings and the view without its offers (the list reads the seats, its own cards,
    the pile sizes for the turns left and the modules' public state, never the open
    offers)."""
    view = pos.view
    return (
        player.hand_card,
        player.rivalry,
        player.kingmaking,
        player.multi,
        player.shed_width,
        player.want_width,
        player.eps,
        player.accept_swap,
        player.accept_slope,
        partners,
        view.seat,
        view.turn,
        view.active,
        view.hand,
        view.drawn,
        view.draw_size,
        view.discard_size,
        view.runouts,
        view.final_runout,
        view.phase,
        view.seats,
        view.public,
    )


# Both subclassed by valuesearch (agents/valuesearch.py), which is not compiled: mypyc
# refuses interpreted subclasses of a compiled class unless told.
@mypyc_attr(allow_interpreted_subclasses=True)
class _Rollout(HeuristicAgent):
    """A heuristic player that stops the roll-out once the turn limit is passed (and,
    to keep roll-outs cheap, offers one card at a time). With a ``cache`` shared by the
    roll-outs of one decision it computes each distinct offer list once: the candidates
    of one sample are played out from the same state with the same seeds, and their
    roll-outs meet the same positions (up to the open offers) again and again."""

    multi = False

    def __init__(
        self,
        seed: int,
        limit: int,
        full: bool = False,
        field_gain: float | None = None,
        rivalry: tuple[float, float, float] | None = None,
        hand_card: float | None = None,
        cache: CandidateCache | None = None,
        *,
        wanted: int = 2,
        eps: float | None = None,
        forget: float | None = None,
        accept_swap: float | None = None,
        accept_slope: float | None = None,
    ) -> None:
        super().__init__(
            seed,
            max_proposals=6 if full else ROLLOUT_PROPOSALS,
            field_gain=field_gain,
            rivalry=rivalry,
            hand_card=hand_card,
            wanted=wanted,
            eps=eps,
            forget=forget,
            accept_swap=accept_swap,
            accept_slope=accept_slope,
        )
        self.limit = limit
        if full:
            self.multi = True
        self.cache = cache

    def _candidates(self, pos: Position, partners: tuple[int, ...]) -> list[tuple[float, Offer]]:
        cache = self.cache
        if cache is None:
            return super()._candidates(pos, partners)
        key = _cands_key(self, pos, partners)
        got = cache.get(key)
        if got is None:
            if len(cache) >= CACHE_LIMIT:
                cache.clear()
            got = cache[key] = super()._candidates(pos, partners)
        return got

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if view.turn > self.limit:
            raise _Stop
        return super().act(view, legal, required)


@mypyc_attr(allow_interpreted_subclasses=True)
class SearchAgent(Agent):
    """Determinised Monte Carlo search over a few candidates, heuristic roll-outs."""

    name = "search"
    proposes = True

    def __init__(
        self,
        seed: int = 0,
        *,
        seconds: float | None = None,
        iterations: int | None = None,
        rollouts: int | None = None,
        depth: int | None = 0,
        max_candidates: int = 6,
        z: float | None = None,
        trade_rounds: int = ROLLOUT_TRADE_ROUNDS,
        hand_value: bool = True,
        strict: bool = False,
        wide: bool = False,
        trades_only: bool = True,
        full: bool = False,
        field_gain: float | None = FIELD_GAIN,
        rivalry: tuple[float, float, float] | None = None,
        mean: bool = False,
        eager: bool = False,
        endgame: float | None = None,
        counting: bool = False,
        hand_card: float | None = None,
        kingmaking: bool = False,
        infer: bool = False,
        pairs: bool = False,
        spread: bool = False,
        cache: bool = True,
        opponent_hand_card: float | None = None,
        prune: float | None = None,
        wanted: int | None = None,
        eps: float | None = EPS,
        forget: float | None = FORGET,
        accept_swap: float | None = None,
        accept_slope: float | None = None,
    ) -> None:
        super().__init__(seed)
        if rollouts is not None:
            seconds, iterations = None, None
        if seconds is None and iterations is None and rollouts is None:
            rollouts = DEFAULT_ROLLOUTS
        self.seconds = seconds
        self.iterations = iterations
        #: Roll-outs per decision, shared by its candidates (at least ``MIN_SAMPLES``
        #: samples each): a decision between two actions gets more samples than one
        #: between six, for about the same time.
        self.rollout_budget = rollouts
        #: Roll-out length in turns (None: to the end); -1 means two rounds of the table,
        #: 0 the rest of the turn being played.
        self.depth = depth
        self.max_candidates = max_candidates
        # float | None, not float with a default: allow_interpreted_subclasses classes
        # take no float defaults (tests/test_compiled_build.py).
        self.z = 2.0 if z is None else z
        #: Phase-2 rounds a roll-out's turn may last (the driver ends trading after them).
        self.trade_rounds = trade_rounds
        #: Whether a roll-out's end values the hands too (:func:`position_value`).
        self.hand_value = hand_value
        #: Whether the margin ``z`` is corrected for few samples and several alternatives
        #: (:func:`threshold`).
        self.strict = strict
        #: Whether it tries many offers (the heuristic lists more: more of its cards to
        #: give, more varieties to ask for) and narrows them down in two rounds: every
        #: candidate on a first half of the samples, the ``KEEP`` best on the rest.
        self.wide = wide
        #: Whether it searches phase-2 decisions only (offers, answers, ending trading)
        #: and plants and harvests as the heuristic does.
        self.trades_only = trades_only
        #: Whether roll-out players trade as the real bots do (six offers a turn, of one
        #: or two cards, and the driver's trading rounds) instead of the cheaper two
        #: one-card offers in two rounds.
        self.full = full
        if full:
            self.trade_rounds = MAX_TRADE_ROUNDS
        if wide:
            self.max_candidates = max(max_candidates, WIDE_CANDIDATES)
        self.rng = random.Random(seed)
        #: Its own play where it does not search (and its seat in the roll-outs): the
        #: heuristic, but buying its third field sooner (``field_gain``, see
        #: :data:`FIELD_GAIN`; None: as the heuristic does).
        self.field_gain = field_gain
        #: How its own play weighs a partner's gain by the partner's standing (None: as
        #: the heuristic does; ``WARY``, spec ``wary``, helps the heuristic's own play
        #: but was measured no different for the search, whose trades are searched).
        self.rivalry = rivalry
        #: Whether a roll-out's value is the margin over the other seats' mean (all rivals
        #: count) instead of over the best of them.
        self.mean = mean
        #: Whether it also tries the heuristic's untried offers where the heuristic makes
        #: none (it passes or ends trading, or thinks the partner would refuse).
        self.eager = eager
        #: Own turns left (:func:`~bohnanza.agents.heuristic.turns_left`) at or below
        #: which a roll-out plays on to the end of the game, whatever ``depth`` says, and
        #: is valued by the win: near the end the rest of the game is short and a win is
        #: what counts (0: never).
        self.endgame = 0.0 if endgame is None else endgame
        #: What the seat remembers of the cards it has seen (updated at every decision).
        self.seen = SeenCards()
        #: Whether its own play counts the cards it saw go to the discard pile or a
        #: treasury out (the heuristic's ``memory``, here the search's own).
        self.counting = counting
        #: What a card in hand is worth at the end (it breaks ties on coins, R-END-4): in
        #: its own play, what giving one away costs beyond the plan; at a roll-out's
        #: end, added per card in hand to every seat's value (0: nothing; see
        #: :data:`HAND_CARD`).
        self.hand_card = HAND_CARD if hand_card is None else hand_card
        #: Whether it may accept a trade that feeds the sole leader late in the game
        #: (:data:`~bohnanza.agents.heuristic.KING_TURNS`; False: such answers are no
        #: candidates, as the heuristic refuses them).
        self.kingmaking = kingmaking
        #: The last search's candidates and each one's roll-out values (:func:`utility`,
        #: one per sample, the same samples for all): what the coach reports.
        self.last_candidates: list[Action | None] = []
        self.last_values: list[list[float]] = []
        #: Varieties its own play asks for (None: :data:`WANTED`, or 4 with ``wide``;
        #: spec ``wv2``), the smallest gain it acts on and how a refusal fades (None: as
        #: the heuristic; specs ``ep0.05``, ``fo0.85``).
        self.wanted = wanted
        # ``accept_swap``, ``accept_slope``: how likely its own play thinks a partner takes
        # an offer that asks for cards back, and how much likelier each coin the partner
        # gains makes a yes (None: as the heuristic guesses; specs ``sw0.05:sl1`` expect
        # less of a swap that gives the partner little: better in screens against three
        # ``heuristic:hc0.1``, no different on held-out seeds; docs/notes/2026-12-06-search-experiments.md, "Swaps the
        # partner wants").
        self.heuristic = HeuristicAgent(
            seed,
            field_gain=field_gain,
            rivalry=rivalry,
            hand_card=self.hand_card,
            memory=self.seen if counting else None,
            shed=6 if wide else 4,
            wanted=wanted if wanted is not None else 4 if wide else WANTED,
            kingmaking=kingmaking,
            eps=eps,
            forget=forget,
            accept_swap=accept_swap,
            accept_slope=accept_slope,
        )
        #: Whether the samples weight the other seats' hands by what their offers,
        #: wants and refusals imply (:class:`~bohnanza.determinise.HandInference`).
        self.inference = HandInference() if infer else None
        #: Whether it also tries 2-for-2 offers (the heuristic lists 1-for-1, 1-for-2
        #: and 2-for-1): each two-card offer of its list asking for one card, asking
        #: for two instead.
        self.pairs = pairs
        #: Whether, as the active seat, its offers to try include the best one to each
        #: partner before the next best overall (the heuristic's list is ranked across
        #: partners, so the top few often go to one seat).
        self.spread = spread
        #: Whether the roll-outs of one decision share their players' offer lists
        #: (:class:`_Rollout`: the same choices, computed once; False: each roll-out
        #: player computes its own, as before).
        self.cache = cache
        #: What the other seats of a roll-out value a card in hand at (None: as the
        #: heuristic does, nothing): a model of opponents that keep their hand cards
        #: (``heuristic:hc0.1``), which give fewer of them away than the heuristic.
        self.opponent_hand_card = opponent_hand_card
        #: Standard errors below zero at which an alternative stops being played out
        #: (None: never, every candidate plays every sample): see :meth:`_sample`.
        self.prune = prune
        self.pruned = 0  # alternatives dropped before their last sample (for reports)
        self._cache: CandidateCache | None = None
        self.searched = 0  # decisions that were searched (for reports)
        self.rollouts = 0
        self.overruled = 0  # searched decisions where it did not take the heuristic's choice
        self.search_seconds = 0.0  # time spent in searched decisions
        self.search_times: list[float] = []  # seconds of each searched decision

    def wants_offers(self, turn: int) -> bool:
        return self.heuristic.wants_offers(turn)

    def stats(self) -> dict[str, float]:
        """Decisions searched, roll-outs played and the seconds the searches took
        (tournament summaries sum them: seconds / searched is the mean searched decision),
        with this game's median and 95th percentile of a searched decision."""
        out: dict[str, float] = {
            "searched": self.searched,
            "rollouts": self.rollouts,
            "overruled": self.overruled,
            "search_seconds": round(self.search_seconds, 3),
        }
        if self.search_times:
            times = sorted(self.search_times)
            out["search_ms_median"] = round(1000 * statistics.median(times), 2)
            out["search_ms_p95"] = round(
                1000 * times[min(len(times) - 1, int(0.95 * len(times)))], 2
            )
        return out

    def __repr__(self) -> str:
        if self.rollout_budget is not None:
            budget = f"rollouts={self.rollout_budget}"
        elif self.iterations is not None:
            budget = f"iterations={self.iterations}"
        else:
            budget = f"seconds={self.seconds}"
        return f"SearchAgent(seed={self.seed}, {budget})"

    # ---------------------------------------------------------------- deciding

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        self.seen.update(view)
        if self.inference is not None:
            self.inference.update(view)
        if not legal:
            return None
        if required and len(legal) == 1:
            return legal[0]
        memory = self.heuristic.snapshot()
        default = self.heuristic.act(view, legal, required)
        cands = self.candidates(view, legal, required, default)
        if len(cands) <= 1:
            return default
        choice = self.search(view, cands, default)
        if choice != default:
            self.heuristic.restore(memory)  # it did not make the heuristic's move
            if choice is not None and choice.offer is not None:
                self.heuristic.record_proposal(choice.offer)
        return choice

    def candidates(
        self, view: View, legal: Sequence[Action], required: bool, default: Action | None
    ) -> list[Action | None]:
        """The heuristic's choice first, then distinct alternatives worth comparing."""
        out: list[Action | None] = [default]
        if view.phase == "trade":
            me = view.seat
            addressed = any(o.to == me for o in view.offers)
            proposing = default is not None and default.type is _T.PROPOSE
            idle = not addressed and view.active != me and not proposing
            passing = default is None or default.type is _T.END_TRADING
            offers = proposing or self.wide or (self.eager and passing)
            if idle and not self.wide and not (self.eager and self._untried(view)):
                return out  # nothing to answer or offer: the heuristic's pass stands
            for a in legal:
                a = with_coins(view, a)  # a buy template gets the coins (R-LADY-10)
                if a.type in _TRADE_CHOICES and a not in out:
                    if not self.kingmaking and self.heuristic.makes_king(view, a):
                        continue  # no kingmaking (issue 36)
                    out.append(a)
            if offers:
                # Other offers the heuristic thought of: the roll-outs tell which ones
                # the partner (played by the heuristic) would take. A wide search also
                # tries those the heuristic rated too low to make.
                budget = self.max_candidates - 1
                for offer in self._offers(view):
                    if len(out) >= budget:
                        break
                    alt = Action.propose(offer)
                    if alt not in out and self._makeable(view, offer):
                        out.append(alt)
                if self.pairs:
                    budget = min(len(out), budget) + EXTRA_CANDIDATES
                    for offer in self._two_for_two(view):
                        if len(out) >= budget:
                            break
                        alt = Action.propose(offer)
                        if alt not in out and self._makeable(view, offer):
                            out.append(alt)
                if idle and len(out) == 1:
                    return out  # a pass, and no offer left to try
            if not required and None not in out:
                out.append(None)
        elif not self.trades_only:
            for a in legal:
                a = with_coins(view, a)
                if a.type in _SKIP or a in out:
                    continue
                out.append(a)
        cap = self.max_candidates + (EXTRA_CANDIDATES if self.pairs or self.spread else 0)
        return out[:cap]

    def _offers(self, view: View) -> list[Offer]:
        """The heuristic's offers worth trying, best first (with ``wide`` also those it
        rated too low to make); with ``spread`` the best one to each partner first."""
        ranked = [
            offer for score, offer in self.heuristic.offer_candidates() if score > 0 or self.wide
        ]
        if not self.spread or view.active != view.seat:
            return ranked
        firsts: dict[int, Offer] = {}
        for offer in ranked:
            firsts.setdefault(offer.to, offer)
        head = list(firsts.values())
        return head + [o for o in ranked if o not in head]

    def _two_for_two(self, view: View) -> list[Offer]:
        """2-for-2 offers: the heuristic's two-card offers that ask for one card of a
        variety, asking for two of it instead (best rated first), where the partner may
        hold two (the active seat's drawn cards and hidden hand, another seat's hand)."""
        out: list[Offer] = []
        for _score, offer in self.heuristic.offer_candidates():
            if len(offer.give) != 2 or len(offer.want) != 1 or offer.want[0][1] != 1:
                continue
            if offer.to != view.active and view.seats[offer.to].hand_size < 2:
                continue
            two = Offer(offer.to, offer.give, ((offer.want[0][0], 2),), offer.declared)
            if two not in out:
                out.append(two)
        return out

    def rollout_depth(self, view: View) -> int | None:
        """The roll-out length of a decision in ``view``: ``depth``, or to the end of the
        game (None) once the seat has ``endgame`` own turns left or fewer."""
        return None if self.endgame > 0 and turns_left(view) <= self.endgame else self.depth

    def _untried(self, view: View) -> bool:
        """Whether the heuristic thought of an offer worth making that it has not made."""
        return any(
            score > 0 and self._makeable(view, offer)
            for score, offer in self.heuristic.offer_candidates()
        )

    def _makeable(self, view: View, offer: Offer) -> bool:
        """An offer of the heuristic's list not made yet this turn, to a partner the seat
        may trade with now, of cards it holds (the list may date from an earlier
        decision: the heuristic lists offers only when it thinks of making one)."""
        me = view.seat
        if self.heuristic.proposed(offer) or offer.to == me:
            return False
        if view.active != me and offer.to != view.active:
            return False
        have = set(view.hand or ())
        if view.active == me:
            have.update(view.drawn or ())
        return all(c in have for c in offer.give)

    def search(
        self, view: View, cands: list[Action | None], default: Action | None
    ) -> Action | None:
        """Paired comparison: every candidate is played out on the same sampled states
        with the same roll-out seeds, so that their difference is mostly the action's.
        An alternative replaces the heuristic's choice only when it is better by more
        than ``z`` standard errors."""
        me = view.seat
        assert me is not None
        started = time.perf_counter()
        weights = self.inference.weights(view) if self.inference is not None else None
        try:
            det = Determiniser(view, self.seen, weights)
        except (ValueError, IllegalAction):
            return default
        self.searched += 1
        self._cache = {} if self.cache else None
        depth = self.rollout_depth(view)
        n = len(cands)
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else math.inf
        if self.rollout_budget is not None:
            limit = max(MIN_SAMPLES, self.rollout_budget // n)
        elif self.iterations is not None:
            limit = self.iterations
        else:
            limit = 1 << 30
        if self.wide and n > KEEP + 1:
            # First round: every candidate on half the budget (it only ranks them, so one
            # sample will do); the best KEEP go on to a second round on fresh samples
            # (the first round's best are flattered by its noise, so only the second
            # round's differences decide).
            if self.rollout_budget is not None:
                first = max(1, self.rollout_budget // (2 * n))
                second = max(MIN_SAMPLES, self.rollout_budget // (2 * (KEEP + 1)))
            else:
                first, second = max(1, limit // 2), max(MIN_SAMPLES, limit - limit // 2)
            half = started + (deadline - started) / 2 if self.seconds is not None else math.inf
            diffs = self._sample(det, me, cands, first, half, depth)
            means = [sum(d, 0.0) / max(1, len(d)) for d in diffs]
            order = sorted(range(1, n), key=lambda k: -means[k])[:KEEP]
            cands = [cands[0]] + [cands[k] for k in order]
            n = len(cands)
            diffs = self._sample(det, me, cands, second, deadline, depth)
        else:
            diffs = self._sample(det, me, cands, limit, deadline, depth)
        self._cache = None
        took = time.perf_counter() - started
        self.search_seconds += took
        self.search_times.append(took)
        best = 0
        best_score = 0.0
        it = len(diffs[0])
        z = threshold(self.z, it, n - 1) if self.strict else self.z
        for k in range(1, n):
            d = diffs[k]
            m = sum(d, 0.0) / len(d)
            if self.z <= 0:
                score = m
            elif len(d) > 2:
                var = sum(((x - m) ** 2 for x in d), 0.0) / (len(d) - 1)
                score = m - z * math.sqrt(var / len(d))
            else:
                continue  # too few samples to overrule the heuristic
            if score > best_score:
                best, best_score = k, score
        self.overruled += best > 0
        return cands[best]

    def _sample(
        self,
        det: Determiniser,
        me: int,
        cands: list[Action | None],
        limit: int,
        deadline: float,
        depth: int | None,
    ) -> list[list[float]]:
        """Each candidate's advantage over the first, on up to ``limit`` sampled states
        (at least one, then until the deadline), played out for ``depth`` turns.

        With :attr:`prune`, an alternative that can no longer overrule the first stops
        being played out: after :data:`PRUNE_AFTER` samples, one whose mean advantage is
        below ``-prune`` standard errors or that has not changed a single roll-out's value
        (:meth:`_hopeless`); the sampling ends when none is left. Its samples so far stay
        in its list, so the decision rule (:meth:`search`) sees it as it was when dropped:
        a negative or zero score, which never overrules. The samples that are played are
        the same as without pruning (the same states, the same roll-out seeds)."""
        n = len(cands)
        diffs: list[list[float]] = [[] for _ in range(n)]
        values: list[list[float]] = [[] for _ in range(n)]
        self.last_candidates, self.last_values = list(cands), values
        live = list(range(1, n))
        played = 0
        it = 0
        while it < limit and (live or n == 1):
            if it >= 1 and time.perf_counter() >= deadline:
                break
            g0 = det.sample(self.rng)
            seed = self.rng.getrandbits(32)
            base = self._playout(g0, me, cands[0], seed, depth)
            diffs[0].append(0.0)
            values[0].append(base)
            for k in live:
                v = self._playout(g0, me, cands[k], seed, depth)
                diffs[k].append(v - base)
                values[k].append(v)
            played += 1 + len(live)
            it += 1
            if self.prune is not None and it >= PRUNE_AFTER:
                kept = [k for k in live if not self._hopeless(diffs[k])]
                self.pruned += len(live) - len(kept)
                live = kept
        self.rollouts += played
        return diffs

    def _hopeless(self, d: list[float]) -> bool:
        """Whether an alternative with these paired advantages is past overruling the
        first candidate (:attr:`prune`); never on fewer than two samples."""
        if len(d) < 2:
            return False
        m = sum(d, 0.0) / len(d)
        var = sum(((x - m) ** 2 for x in d), 0.0) / (len(d) - 1)
        if var == 0.0 and m == 0.0:
            return True  # it changed nothing so far
        z = 0.0 if self.prune is None else self.prune
        return m + z * math.sqrt(var / len(d)) < 0.0

    def _playout(
        self, g0: Game, me: int, action: Action | None, seed: int, depth: int | None
    ) -> float:
        from ..driver import play  # the driver imports the agents package

        g = g0.clone()
        if action is not None:
            try:
                g.apply(me, action)
            except IllegalAction:
                return -10.0
        if depth == -1:
            depth = 2 * g.players
        limit = g.turn + depth if depth is not None else 1 << 30
        agents = self.rollout_players(g.players, me, limit, seed)
        try:
            if not g.over:
                play(g, agents, max_trade_rounds=self.trade_rounds)
        except _Stop:
            pass
        return utility(g, me, self.hand_value, self.mean, self.hand_card)

    def rollout_players(self, players: int, me: int, limit: int, seed: int) -> list[_Rollout]:
        """A roll-out's players: every seat the trading heuristic (which writes nobody
        off), its own seat as it plays its own turns and with what it learnt of the
        others."""
        cache = self._cache
        own = self.heuristic
        agents = [
            _Rollout(
                seed + s,
                limit,
                self.full,
                self.field_gain,
                self.rivalry,
                self.hand_card,
                cache,
                # Its own trading settings (``wide`` widens only the decision's list).
                wanted=WANTED if self.wanted is None else self.wanted,
                eps=own.eps,
                forget=own.forget,
                accept_swap=own.accept_swap,
                accept_slope=own.accept_slope,
            )
            if s == me
            else _Rollout(
                seed + s, limit, self.full, hand_card=self.opponent_hand_card, cache=cache
            )
            for s in range(players)
        ]
        agents[me].restore(self.heuristic.snapshot())
        return agents


def threshold(z: float, samples: int, alternatives: int) -> float:
    """The margin, in standard errors, that an alternative must clear with ``strict``.

    ``z`` alone is the one-sided test of one alternative with a known spread. But the
    spread is estimated from a handful of samples (Student's t with ``samples - 1``
    degrees of freedom has heavier tails) and up to five alternatives are tested at once
    (each one's false alarm adds up): with 6 samples and 5 alternatives, ``z = 2`` alone
    would overrule a heuristic choice that is as good as the rest about one time in
    five. So the level of ``z`` is split among the alternatives (Bonferroni) and turned
    into a t quantile (Cornish-Fisher expansion: no SciPy needed; it runs low for two
    degrees of freedom, about 9 instead of 10 at the 0.5% level)."""
    nd = statistics.NormalDist()
    alpha = nd.cdf(-z) / max(1, alternatives)
    x = nd.inv_cdf(1.0 - alpha)
    nu = max(1, samples - 1)
    x2 = x * x
    return (
        x
        + (x2 + 1) * x / (4 * nu)
        + (5 * x2 * x2 + 16 * x2 + 3) * x / (96 * nu**2)
        + (3 * x2**3 + 19 * x2 * x2 + 17 * x2 - 15) * x / (384 * nu**3)
    )


def utility(
    g: Game, me: int, hand: bool = False, mean: bool = False, hand_card: float = 0.0
) -> float:
    """How good ``g`` is for ``me``: at the end, a win (a shared win in part) plus the
    coin margin over the best other seat; before, the margin in coins plus field values
    (plus, with ``hand``, what the heuristic's plan makes of each seat's hand, and
    ``hand_card`` per card in it) over the best other seat, or with ``mean`` over the
    other seats' mean (measured no different)."""
    if g.over:
        assert g.scores is not None and g.winners is not None
        best_other = max(s for k, s in enumerate(g.scores) if k != me)
        win = 1.0 / len(g.winners) if me in g.winners else 0.0
        return win + MARGIN_SCALE * (g.scores[me] - best_other)
    values = [position_value(g, s, hand) + hand_card * len(g.hands[s]) for s in range(g.players)]
    others = [v for k, v in enumerate(values) if k != me]
    return MARGIN_SCALE * (values[me] - (sum(others) / len(others) if mean else max(others)))


def position_value(g: Game, seat: int, hand: bool = False) -> float:
    """Coins plus what the seat's fields are worth to the heuristic (a seat's own view);
    with ``hand``, plus what planting its trade area and then its hand (the next
    ``HORIZON`` cards, discounted) adds to them, as the heuristic plans it. Without it a
    roll-out cut short sees no cost in giving hand cards away."""
    pos = Position(g.view(seat), tables_for(g.config))
    # Summed from 0.0: compiled (BOHNANZA_COMPILE=1), a sum of floats from 0 stays an int.
    value = len(g.treasury[seat]) + sum((pos.fval(f) for f in g.fields[seat]), 0.0)
    if hand:
        value += pos.plan(pos.fields, list(g.trade[seat]), list(g.hands[seat]))
    return value


__all__ = ["Determiniser", "SearchAgent", "determinise", "unseen_cards", "utility"]
