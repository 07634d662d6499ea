"""The ``search`` bot: determinised (information-set) Monte Carlo search.

For a decision with more than one sensible answer the bot

1. lists a few candidate actions, the ``heuristic`` bot's own choice first (in phase 2
   also accepting or declining each offer addressed to it, ending trading, passing, and
   the other offers the heuristic thought of);
2. *determinises*: deals the cards it cannot see at random into the places whose sizes
   it can see (other hands, draw pile, discard pile below its top card, treasuries,
   cards out of the game), consistently with its view - a card another seat offers from
   its hand is dealt into that hand with the shown variety and a colour its declaration
   allows - and builds a full game state from that (:class:`Determiniser`);
3. plays every candidate out on the same sampled state with the same roll-out seed, with
   ``heuristic`` bots at every seat (``autarky`` for seats that never accept offers),
   for ``depth`` turns, then scores the position for itself (:func:`utility`);
4. repeats 2-3 within its budget and answers with the candidate whose paired advantage
   over the heuristic's choice is largest, if it exceeds ``z`` standard errors (else
   the heuristic's choice).

It sees only its :class:`~bohnanza.views.View`: the hidden cards of the sampled states
come from a shuffle of the cards the view does not show, never from the real game.
The budget is set by the caller: ``seconds`` per decision, or ``iterations`` (samples
per decision, reproducible). With one legal action, or no alternative to the
heuristic's choice worth comparing, it answers at once.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from typing import Any

from ..actions import Action, ActionType, Offer
from ..coins import with_coins
from ..errors import IllegalAction
from ..game import Game
from ..modules import module_info
from ..views import View
from .base import Agent
from .heuristic import HeuristicAgent, Position, tables_for
from .simple import AutarkyAgent

_T = ActionType
_SKIP = frozenset((_T.PROPOSE,))
_TRADE_CHOICES = frozenset((_T.ACCEPT, _T.DECLINE, _T.END_TRADING, _T.BUY_FIELD))
#: Offers a roll-out player makes per turn (fewer than a real one: roll-outs are many).
ROLLOUT_PROPOSALS = 2


class _Stop(Exception):
    """Raised inside a roll-out when its depth is reached."""


def unseen_cards(view: View) -> list[int]:
    """Card ids the view does not show (ascending): the cards to deal at random."""
    seen = view.visible_cards()
    return [c for c in range(view.config.deck_size) if c not in seen]


class Determiniser:
    """Builds sampled full states consistent with one view (R-INFO-1/2)."""

    def __init__(self, view: View) -> None:
        if view.seat is None:
            raise ValueError("a spectator view cannot be determinised")
        self.view = view
        self.me = view.seat
        self.unseen = unseen_cards(view)
        hand_sizes = [s.hand_size for s in view.seats]
        hand_sizes[self.me] = 0
        self.hand_sizes = hand_sizes
        self.coins = [s.coins for s in view.seats]
        if view.treasury is not None:  # its own coins are known (R-LADY-10), not dealt
            self.coins[self.me] = 0
        below = view.discard_size - (1 if view.discard_top is not None else 0)
        self.below = below
        known = view.draw_size + below + sum(hand_sizes) + sum(self.coins)
        self.out = len(self.unseen) - known
        if self.out < 0:
            raise ValueError("the view's counts do not add up: more hidden places than cards")
        # Cards other seats offer from their hands: (proposer, offer index, slot, shown).
        self.hidden_offers: list[tuple[int, int, int, dict[str, Any]]] = []
        for k, o in enumerate(view.offers):
            for i, c in enumerate(o.give):
                if c is None:
                    self.hidden_offers.append((o.proposer, k, i, dict(o.shown[i])))
        self.template = Game.from_dict(self._state(self._deal(random.Random(0))))

    # ---------------------------------------------------------------- dealing

    def _deal(self, rng: random.Random) -> dict[str, Any]:
        view = self.view
        cfg = view.config
        pool = self.unseen[:]
        rng.shuffle(pool)
        n = cfg.players
        hands: list[list[int]] = [[] for _ in range(n)]
        # Offered hand cards first: a card of the shown variety (and declared colour) goes
        # into the proposer's hand; several offers may share one card if the hand is full.
        offer_cards: dict[tuple[int, int], int] = {}
        dropped: set[int] = set()
        for p, k, i, shown in self.hidden_offers:
            v = (
                cfg.varieties.index(shown["variety"])
                if shown.get("variety") in cfg.varieties
                else -1
            )
            declared = shown.get("declared")

            def fits(c: int, v: int = v, declared: Any = declared) -> bool:
                if cfg.card_variety[c] != v:
                    return False
                return declared != "black" or cfg.card_kind[c] == "black"

            used_here = {offer_cards[(k, j)] for j in range(i) if (k, j) in offer_cards}
            # A card already dealt to that hand for another offer first (offers of
            # several cards would otherwise fill the hand with one variety), else a new one.
            pick = -1
            for c in hands[p]:
                if fits(c) and c not in used_here:
                    pick = c
                    break
            if pick < 0 and len(hands[p]) < self.hand_sizes[p]:
                for j, c in enumerate(pool):
                    if fits(c):
                        pick = pool.pop(j)
                        hands[p].append(pick)
                        break
            if pick < 0:
                dropped.add(k)
            else:
                offer_cards[(k, i)] = pick
        for p in range(n):
            while len(hands[p]) < self.hand_sizes[p]:
                hands[p].append(pool.pop())
            rng.shuffle(hands[p])
        draw = [pool.pop() for _ in range(view.draw_size)]
        discard = [pool.pop() for _ in range(self.below)]
        if view.discard_top is not None:
            discard.append(view.discard_top)
        treasury = [[pool.pop() for _ in range(self.coins[s])] for s in range(n)]
        if view.treasury is not None:
            treasury[self.me] = list(view.treasury)
        out = pool
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
            "out": out,
            "offers": offers,
        }

    def _state(self, dealt: dict[str, Any]) -> dict[str, Any]:
        view = self.view
        cfg = view.config
        extra: dict[str, Any] = {}
        for key, value in view.public.items():
            extra[key] = list(value) if isinstance(value, list) else value
        if module_info(cfg.module).last_turn_public and view.final_runout and view.active == 1:
            extra["last_turn"] = True  # R-DUEL-4: seat 1's extra turn has begun
        version, internal, gauss = random.Random(0).getstate()
        ids = [o["id"] for o in dealt["offers"]]
        return {
            "format": "bohnanza-state",
            "version": 1,
            "rules": cfg.rules,
            "players": cfg.players,
            "options": dict(cfg.options),
            "seed": 0,
            "rng": [version, list(internal), gauss],
            "initial_deck": list(range(cfg.deck_size)),
            "draw": dealt["draw"],
            "discard": dealt["discard"],
            "out": dealt["out"],
            "hands": dealt["hands"],
            "fields": [[list(f) for f in s.fields] for s in view.seats],
            "treasury": dealt["treasury"],
            "trade": [list(s.trade_area) for s in view.seats],
            "drawn": list(view.drawn),
            "offers": dealt["offers"],
            "next_offer_id": max([0, *ids]) + 1000,
            "supply": view.third_fields_left,
            "active": view.active,
            "phase": view.phase,
            "planted": view.planted,
            "turn": view.turn,
            "runouts": view.runouts,
            "final_runout": view.final_runout,
            "pending": list(view.pending) if view.pending is not None else None,
            "extra": extra,
            "scores": None,
            "winners": None,
        }

    def sample(self, rng: random.Random) -> Game:
        """A full game state drawn at random among those consistent with the view."""
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
        return g


def determinise(view: View, rng: random.Random) -> Game:
    """One sampled full state consistent with ``view`` (see :class:`Determiniser`)."""
    return Determiniser(view).sample(rng)


class _Rollout(HeuristicAgent):
    """A heuristic player that stops the roll-out once the turn limit is passed (and,
    to keep roll-outs cheap, offers one card at a time)."""

    multi = False

    def __init__(self, seed: int, limit: int) -> None:
        super().__init__(seed, max_proposals=ROLLOUT_PROPOSALS)
        self.limit = limit

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if view.turn > self.limit:
            raise _Stop
        return super().act(view, legal, required)


class _Autarky(AutarkyAgent):
    """Roll-out model of a seat that never trades."""

    def __init__(self, seed: int, limit: int) -> None:
        super().__init__(seed)
        self.limit = limit

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if view.turn > self.limit:
            raise _Stop
        choice = super().act(view, legal, required)
        if choice is None and required and legal:
            return legal[0]  # a module decision the model has no rule for
        return choice


class SearchAgent(Agent):
    """Determinised Monte Carlo search over a few candidates, heuristic roll-outs."""

    name = "search"
    proposes = True

    def __init__(
        self,
        seed: int = 0,
        *,
        seconds: float | None = 1.0,
        iterations: int | None = None,
        depth: int | None = -1,
        max_candidates: int = 6,
        z: float = 2.0,
    ) -> None:
        super().__init__(seed)
        if seconds is None and iterations is None:
            raise ValueError("give the search a budget: seconds or iterations")
        self.seconds = seconds
        self.iterations = iterations
        #: Roll-out length in turns (None: to the end); -1 means two rounds of the table.
        self.depth = depth
        self.max_candidates = max_candidates
        self.z = z
        self.rng = random.Random(seed)
        self.heuristic = HeuristicAgent(seed)
        self.searched = 0  # decisions that were searched (for reports)
        self.rollouts = 0

    def wants_offers(self, turn: int) -> bool:
        return self.heuristic.wants_offers(turn)

    def stats(self) -> dict[str, float]:
        """Decisions searched and roll-outs played (tournament summaries sum them)."""
        return {"searched": self.searched, "rollouts": self.rollouts}

    def __repr__(self) -> str:
        budget = (
            f"seconds={self.seconds}"
            if self.iterations is None
            else f"iterations={self.iterations}"
        )
        return f"SearchAgent(seed={self.seed}, {budget})"

    # ---------------------------------------------------------------- deciding

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
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
            if not addressed and view.active != me and not proposing:
                return out  # nothing to answer or offer: the heuristic's pass stands
            for a in legal:
                a = with_coins(view, a)  # a buy template gets the coins (R-LADY-10)
                if a.type in _TRADE_CHOICES and a not in out:
                    out.append(a)
            if proposing:
                # Other offers the heuristic thought of: the roll-outs tell which ones
                # the partner (played by the heuristic) would take.
                for score, offer in self.heuristic.offer_candidates():
                    if len(out) >= self.max_candidates - 1 or score <= 0:
                        break
                    alt = Action.propose(offer)
                    if alt not in out and not self.heuristic.proposed(offer):
                        out.append(alt)
            if not required and None not in out:
                out.append(None)
        else:
            for a in legal:
                a = with_coins(view, a)
                if a.type in _SKIP or a in out:
                    continue
                out.append(a)
        return out[: self.max_candidates]

    def search(
        self, view: View, cands: list[Action | None], default: Action | None
    ) -> Action | None:
        """Paired comparison: every candidate is played out on the same sampled states
        with the same roll-out seeds, so that their difference is mostly the action's.
        An alternative replaces the heuristic's choice only when it is better by more
        than ``z`` standard errors."""
        me = view.seat
        assert me is not None
        try:
            det = Determiniser(view)
        except (ValueError, IllegalAction):
            return default
        self.searched += 1
        n = len(cands)
        diffs: list[list[float]] = [[] for _ in range(n)]
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else math.inf
        limit = self.iterations if self.iterations is not None else 1 << 30
        it = 0
        while it < limit:
            if it >= 1 and time.perf_counter() >= deadline:
                break
            g0 = det.sample(self.rng)
            seed = self.rng.getrandbits(32)
            results = [self._playout(g0, me, c, seed) for c in cands]
            for k in range(n):
                diffs[k].append(results[k] - results[0])
            it += 1
        self.rollouts += it * n
        best = 0
        best_score = 0.0
        for k in range(1, n):
            d = diffs[k]
            m = sum(d) / len(d)
            if self.z <= 0:
                score = m
            elif len(d) > 2:
                var = sum((x - m) ** 2 for x in d) / (len(d) - 1)
                score = m - self.z * math.sqrt(var / len(d))
            else:
                continue  # too few samples to overrule the heuristic
            if score > best_score:
                best, best_score = k, score
        return cands[best]

    def _playout(self, g0: Game, me: int, action: Action | None, seed: int) -> float:
        from ..driver import play  # the driver imports the agents package

        g = g0.clone()
        if action is not None:
            try:
                g.apply(me, action)
            except IllegalAction:
                return -10.0
        depth = 2 * g.players if self.depth == -1 else self.depth
        limit = g.turn + depth if depth is not None else 1 << 30
        # Opponent model: seats that never accept offers play like ``autarky``.
        agents: list[Agent] = [
            _Rollout(seed + s, limit)
            if s == me or self.heuristic.trades_with(s)
            else _Autarky(seed + s, limit)
            for s in range(g.players)
        ]
        mine = agents[me]
        assert isinstance(mine, _Rollout)
        mine.restore(self.heuristic.snapshot())  # what it learnt of the others
        try:
            if not g.over:
                play(g, agents)
        except _Stop:
            pass
        return utility(g, me)


def utility(g: Game, me: int) -> float:
    """How good ``g`` is for ``me``: at the end, a win (a shared win in part) plus the
    coin margin over the best other seat; before, the margin in coins plus field values."""
    if g.over:
        assert g.scores is not None and g.winners is not None
        best_other = max(s for k, s in enumerate(g.scores) if k != me)
        win = 1.0 / len(g.winners) if me in g.winners else 0.0
        return win + 0.2 * (g.scores[me] - best_other)
    values = [position_value(g, s) for s in range(g.players)]
    return 0.2 * (values[me] - max(v for k, v in enumerate(values) if k != me))


def position_value(g: Game, seat: int) -> float:
    """Coins plus what the seat's fields are worth to the heuristic (a seat's own view)."""
    pos = Position(g.view(seat), tables_for(g.config))
    return len(g.treasury[seat]) + sum(pos.fval(f) for f in g.fields[seat])


__all__ = ["Determiniser", "SearchAgent", "determinise", "unseen_cards", "utility"]
