"""Coach mode (issue 36): the ``search`` bot's candidate actions for a seat, ranked by
the coin margin each one leads to, with a one-line reason in English and Polish; and a
review of a finished game that marks the decisions that lost the most.

Engine-side and free of I/O: the terminal's ``hint`` and the web table's hint button
call :func:`advise`, the replay page :func:`review`. The candidates are the search's
(:meth:`~bohnanza.agents.search.SearchAgent.candidates`); each is played out by the
search's roll-out players to the end of the turn and valued as the search values a
roll-out (:func:`~bohnanza.agents.search.utility`: the margin over the best other seat,
in coins of treasury plus field and hand value; reported in coins, divided by
:data:`~bohnanza.agents.search.MARGIN_SCALE`).

Options are compared under the same continuation (issue 53): every candidate is played
out on the same sampled states with the same players and roll-out seeds (common random
numbers: two options that leave the same position score the same, sample by sample),
and the continuation takes none of the choices in :data:`HELD` (buying a third field).
Such a choice is open after every option alike, and the end of the turn values it at
its price only: when the continuation bought a field after one option but not another,
the first looked 3 coins worse for a decision it was not about (a record's "plant on a
second Soy field" ranked above growing the Soy field). Buying is an option of its own
where it is legal now. Options whose difference is within :data:`TIE_Z` standard errors
of their paired difference share a rank (:attr:`Advice.rank`): the coach cannot tell
them apart, and says so.

A fresh search is built for each question from the seat's view alone (what the seat
saw earlier is not remembered), with ``trades_only=False`` so that planting and
harvesting are candidates too. The reasons describe what an action does (which field it
grows and what that field would pay, a harvest's coins, the varieties a trade brings
in); they are words about the action, not the reason it ranks so.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import Action, ActionType, takes
from .agents.base import Agent
from .agents.search import MARGIN_SCALE, MIN_SAMPLES, SearchAgent, utility
from .cards import polish_number
from .coins import with_coins
from .determinise import Determiniser
from .driver import play
from .errors import IllegalAction
from .game import Game
from .text import render_action_safe, variety_name
from .views import View

_T = ActionType

#: Roll-outs a hint plays (shared by its candidates), and the most seconds it takes.
HINT_ROLLOUTS = 120
HINT_SECONDS = 3.0
#: Roll-outs per reviewed decision, and the CPU seconds a whole review may take (CPU
#: time of the reviewing thread: on a busy server a review covers as many decisions as
#: on an idle one, it only takes longer).
REVIEW_ROLLOUTS = 24
REVIEW_SECONDS = 20.0
#: Choices the continuation after an option never takes (see the module docstring).
HELD: frozenset[ActionType] = frozenset((_T.BUY_FIELD,))
#: Options closer than this many standard errors of their paired difference are tied.
TIE_Z = 2.0
#: A reviewed decision is marked when it lost at least this many coins of margin.
MARK_LOSS = 0.5


class CoachError(ValueError):
    """The coach cannot answer (the seat has nothing to decide, or no such seat)."""


@dataclass(frozen=True)
class Advice:
    """One candidate action: ``None`` is passing (phase 2, when not required)."""

    action: Action | None
    #: The search's expected coin margin over the best other seat after this action.
    margin: float
    #: The standard error of that mean, and the roll-out samples behind it.
    error: float
    samples: int
    #: The action as a command (``text``), and why, per language ("en", "pl").
    command: dict[str, str]
    reason: dict[str, str]
    #: 1 + the number of options better than this one by more than :data:`TIE_Z`
    #: standard errors of the paired difference; ``tied``: another option shown shares
    #: the rank (the coach cannot tell them apart).
    rank: int = 1
    tied: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action.to_json() if self.action is not None else None,
            "margin": round(self.margin, 2),
            "error": round(self.error, 2),
            "samples": self.samples,
            "rank": self.rank,
            "tied": self.tied,
            "command": dict(self.command),
            "reason": dict(self.reason),
        }


def decision(game: Game, seat: int) -> tuple[View, list[Action], bool]:
    """The seat's view, its legal actions and whether it must act (outside phase 2, or
    a decision pending from it); refuses a seat with nothing to decide."""
    if not isinstance(seat, int) or not 0 <= seat < game.players:
        raise CoachError(f"no seat {seat!r} at a {game.players}-player table")
    if game.over:
        raise CoachError("the game is over")
    legal = game.legal_actions(seat, True)
    waiting = game.waiting_for()
    required = seat in waiting and (game.phase != "trade" or game.pending is not None)
    if not legal:
        raise CoachError(f"seat {seat} has nothing to decide now")
    return game.view(seat), legal, required


def searcher(seed: int, rollouts: int, seconds: float | None) -> SearchAgent:
    """The search the coach asks: every decision searched, ``rollouts`` per decision and
    at most ``seconds`` (None: no clock, for repeatable answers)."""
    agent = SearchAgent(seed, rollouts=rollouts, trades_only=False)
    agent.seconds = seconds  # a deadline besides the roll-out budget
    return agent


#: Builds a roll-out's players: (players, seat, roll-out seed) -> one agent per seat.
Players = Callable[[int, int, int], list[Agent]]


class _EndOfTurn(Exception):
    """Raised by a continuation player once the roll-out's last turn is over."""


class _Continuation(Agent):
    """A roll-out player after an option: ``inner``'s play, stopped after turn ``limit``,
    and never taking a choice in ``held`` (:data:`HELD`)."""

    def __init__(self, inner: Agent, limit: int, held: frozenset[ActionType]) -> None:
        super().__init__(inner.seed)
        self.inner = inner
        self.limit = limit
        self.held = held

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        if view.turn > self.limit:
            raise _EndOfTurn
        kept = [a for a in legal if a.type not in self.held] if self.held else list(legal)
        if not kept and not required:
            return None
        return self.inner.act(view, kept or legal, required)


def evaluate(
    agent: SearchAgent,
    view: View,
    legal: Sequence[Action],
    required: bool,
    extra: Action | None = None,
    with_extra: bool = False,
    *,
    held: frozenset[ActionType] = HELD,
    players: Players | None = None,
    cands: Sequence[Action | None] | None = None,
) -> list[tuple[Action | None, list[float]]]:
    """The search's candidates for the decision (as :meth:`SearchAgent.act` lists them,
    or ``cands``) and each one's roll-out values, one per sample, the same samples for
    all (:func:`playouts`); ``with_extra`` adds ``extra`` (a played action the search
    did not list, for :func:`review`). Empty where no state can be sampled."""
    agent.seen.update(view)
    if cands is None:
        default = agent.heuristic.act(view, legal, required)
        options = agent.candidates(view, legal, required, default)
    else:
        options = list(cands)
    if with_extra and extra not in options:
        options.append(extra)
    values = playouts(agent, view, options, held=held, players=players)
    return list(zip(options, values, strict=True)) if values else []


def playouts(
    agent: SearchAgent,
    view: View,
    options: Sequence[Action | None],
    *,
    held: frozenset[ActionType] = HELD,
    players: Players | None = None,
) -> list[list[float]]:
    """Each option's roll-out values (:func:`~bohnanza.agents.search.utility`) on
    ``agent``'s budget: per sample one sampled state and one roll-out seed for every
    option, its continuation played by the same players (``players``; None: the
    search's :meth:`~bohnanza.agents.search.SearchAgent.rollout_players`) to the
    search's horizon, none of them taking a choice in ``held``. [] where the view's
    hidden cards cannot be dealt."""
    me = view.seat
    assert me is not None
    try:
        det = Determiniser(view, agent.seen)
    except (ValueError, IllegalAction):
        return []
    n = len(options)
    budget = agent.rollout_budget
    if budget is not None:
        limit = max(MIN_SAMPLES, budget // n)
    elif agent.iterations is not None:
        limit = agent.iterations
    else:
        limit = 1 << 30
    seconds = agent.seconds
    deadline = time.perf_counter() + seconds if seconds is not None else math.inf
    depth = agent.rollout_depth(view)
    values: list[list[float]] = [[] for _ in range(n)]
    while len(values[0]) < limit:
        if values[0] and time.perf_counter() >= deadline:
            break
        g0 = det.sample(agent.rng)
        seed = agent.rng.getrandbits(32)
        for k, option in enumerate(options):
            values[k].append(_playout(agent, g0, me, option, seed, depth, held, players))
    return values


def _playout(
    agent: SearchAgent,
    g0: Game,
    me: int,
    option: Action | None,
    seed: int,
    depth: int | None,
    held: frozenset[ActionType],
    players: Players | None,
) -> float:
    """One option played out from a sampled state, as the search plays a roll-out, by
    players wrapped in :class:`_Continuation`."""
    g = g0.clone()
    if option is not None:
        try:
            g.apply(me, option)
        except IllegalAction:
            return -10.0
    if depth == -1:
        depth = 2 * g.players
    limit = g.turn + depth if depth is not None else 1 << 30
    inner: list[Agent] = (
        list(agent.rollout_players(g.players, me, 1 << 30, seed))
        if players is None
        else players(g.players, me, seed)
    )
    seats: list[Agent] = [_Continuation(p, limit, held) for p in inner]
    try:
        if not g.over:
            play(g, seats, max_trade_rounds=agent.trade_rounds)
    except _EndOfTurn:
        pass
    return utility(g, me, agent.hand_value, agent.mean, agent.hand_card)


def ranks(values: Sequence[Sequence[float]], z: float = TIE_Z) -> list[int]:
    """Per option, 1 + how many options beat it by more than ``z`` standard errors of
    the paired difference (the same samples for all: the difference's spread is the
    options', not the samples'). Options it cannot tell apart share a rank; one sample
    tells nothing apart, and identical values are always tied."""
    n = len(values)
    out = [1] * n
    for k in range(n):
        for j in range(n):
            if j == k:
                continue
            d = [a - b for a, b in zip(values[j], values[k], strict=True)]
            m = len(d)
            if m < 2:
                continue
            mean = sum(d, 0.0) / m
            if mean <= 0.0:
                continue
            var = sum(((x - mean) ** 2 for x in d), 0.0) / (m - 1)
            if mean > z * math.sqrt(var / m):
                out[k] += 1
    return out


def advise(
    game: Game,
    seat: int,
    *,
    seed: int = 0,
    rollouts: int = HINT_ROLLOUTS,
    seconds: float | None = HINT_SECONDS,
    top: int = 3,
    held: frozenset[ActionType] = HELD,
) -> list[Advice]:
    """The ``top`` best of the search's candidates for ``seat``'s decision now, best
    first (fewer where the search sees fewer; one where it has nothing to compare),
    each with its rank (options it cannot tell apart share one)."""
    view, legal, required = decision(game, seat)
    agent = searcher(seed, rollouts, seconds)
    scored = evaluate(agent, view, legal, required, held=held)
    if not scored:  # the determiniser could not deal the hidden cards
        raise CoachError("the search could not evaluate this position")
    rank = ranks([values for _a, values in scored])
    out = [_advice(view, a, values, r) for (a, values), r in zip(scored, rank, strict=True)]
    out.sort(key=lambda a: (a.rank, -a.margin))
    out = out[:top]
    shown = [a.rank for a in out]
    return [
        Advice(
            a.action,
            a.margin,
            a.error,
            a.samples,
            a.command,
            a.reason,
            a.rank,
            shown.count(a.rank) > 1,
        )
        for a in out
    ]


def _advice(view: View, action: Action | None, values: Sequence[float], rank: int) -> Advice:
    n = len(values)
    mean = sum(values, 0.0) / n
    var = sum(((v - mean) ** 2 for v in values), 0.0) / (n - 1) if n > 1 else 0.0
    return Advice(
        action,
        mean / MARGIN_SCALE,
        math.sqrt(var / n) / MARGIN_SCALE,
        n,
        {lang: _command(view, action, lang) for lang in ("en", "pl")},
        reason(view, action),
        rank,
    )


def _command(view: View, action: Action | None, lang: str) -> str:
    if action is None:
        return "pass" if lang == "en" else "pas"
    return render_action_safe(action, view, "pl" if lang == "pl" else "en")


def hint_lines(game: Game, seat: int, lang: str = "en", **kwargs: Any) -> list[str]:
    """The advice as text lines, one per action: its rank ("1=" where shown options
    share it), the command, the margin, the reason; in Polish with a decimal comma and
    "monety" (a fraction of a coin takes the genitive singular)."""
    lang = "pl" if lang == "pl" else "en"
    lines = []
    for a in advise(game, seat, **kwargs):
        mark = f"{a.rank}{'=' if a.tied else ''}."
        margin, error = f"{a.margin:+.1f}", f"{a.error:.1f}"
        unit = "coins"
        if lang == "pl":
            margin, error = margin.replace(".", ","), error.replace(".", ",")
            unit = "monety"
        lines.append(f"{mark} {a.command[lang]}: {margin} {unit} (±{error}) - {a.reason[lang]}")
    return lines


# ---------------------------------------------------------------- reasons


def _pl_coins(n: int) -> str:
    """``n`` coins as the object of "za"/"warte" (the accusative): "1 monetę", "2 monety",
    "5 monet"."""
    form = {"one": "monetę", "few": "monety", "many": "monet"}[polish_number(n)]
    return f"{n} {form}"


def _pays(view: View, v: int, n: int) -> int:
    table = view.config.payout[v]
    return table[min(n, len(table) - 1)]


def reason(view: View, action: Action | None) -> dict[str, str]:
    """A one-line reason per language, from what ``action`` does on the seat's board."""
    cfg = view.config
    me = view.me()
    if action is None:
        return {
            "en": "waits: nothing here is worth more than passing",
            "pl": "czeka: nic tu nie jest warte więcej niż pas",
        }
    t = action.type
    # Any action that puts a card on a field (a module's too: its shape names a field).
    if t is not _T.HARVEST and "field" in takes(t):
        field = action.field if action.field is not None else 0
        card = action.card
        if card is None and view.hand:
            card = view.hand[0]
        if card is None:
            return _generic()
        v = cfg.card_variety[card]
        cards = me.fields[field] if field < len(me.fields) else ()
        same = bool(cards) and cfg.card_variety[cards[-1]] == v
        n = len(cards) + 1 if same else 1
        now = _pays(view, v, n)
        key = cfg.varieties[v]
        en_v = variety_name(key, "en")
        # Polish: a field "of Blues" (the genitive plural), a planted card as the object.
        pl_many, pl_acc = variety_name(key, "pl", "many"), variety_name(key, "pl", "acc")
        if same and now > _pays(view, v, n - 1):
            noun = "karty" if polish_number(n) == "few" else "kart"  # n > 1 here
            return {
                "en": f"completes a {en_v} field worth {now} coins ({n} cards)",
                "pl": f"dopełnia pole {pl_many} warte {_pl_coins(now)} ({n} {noun})",
            }
        if same:
            return {
                "en": f"grows the {en_v} field to {n} cards",
                "pl": f"powiększa pole {pl_many} do {n} kart",
            }
        if cards:
            lost = me.payouts[field] if field < len(me.payouts) else 0
            return {
                "en": f"plants {en_v} over a field that pays {lost} (harvested first)",
                "pl": f"sadzi {pl_acc} na polu, które płaci {lost} (najpierw zbiór)",
            }
        return {"en": f"starts a {en_v} field", "pl": f"zakłada pole {pl_many}"}
    if t is _T.HARVEST and action.field is not None:
        coins = me.payouts[action.field] if action.field < len(me.payouts) else 0
        return {
            "en": f"harvests field {action.field + 1} for {coins} coins and frees it",
            "pl": f"zbiera pole {action.field + 1} za {_pl_coins(coins)} i je zwalnia",
        }
    if t is _T.STOP_PLANTING:
        return {
            "en": "keeps the next card in hand (the hand breaks ties)",
            "pl": "zostawia następną kartę w ręce (ręka rozstrzyga remisy)",
        }
    if t is _T.BUY_FIELD:
        return {"en": "buys a third field", "pl": "kupuje trzecie pole"}
    if t is _T.END_TRADING:
        return {
            "en": "ends trading and plants what it has",
            "pl": "kończy handel i sadzi to, co ma",
        }
    if t is _T.DECLINE:
        return {
            "en": "refuses the offer: it helps the proposer more",
            "pl": "odrzuca ofertę: bardziej pomaga proponującemu",
        }
    if t is _T.ACCEPT:
        offer = next((o for o in view.offers if o.offer_id == action.offer_id), None)
        got = [str(s.get("variety", "")) for s in offer.shown] if offer is not None else []
        return _trade_reason(view, got)
    if t is _T.PROPOSE and action.offer is not None:
        offer_ = action.offer
        got = [name for name, count in offer_.want for _ in range(count)]
        if not got:
            return {
                "en": "gives away cards that do not fit its fields",
                "pl": "oddaje karty, które nie pasują do jej pól",
            }
        return _trade_reason(view, got)
    return _generic()


def _trade_reason(view: View, got: Sequence[str]) -> dict[str, str]:
    cfg = view.config
    grown = {cfg.varieties[cfg.card_variety[f[-1]]] for f in view.me().fields if f}
    needed = sorted({g for g in got if g in grown})
    if needed:
        en = ", ".join(variety_name(k, "en") for k in needed)
        pl = ", ".join(variety_name(k, "pl") for k in needed)
        return {"en": f"gets a needed variety ({en})", "pl": f"dostaje potrzebną odmianę ({pl})"}
    return {
        "en": "trades cards that do not fit its fields",
        "pl": "wymienia karty, które nie pasują do jej pól",
    }


def _generic() -> dict[str, str]:
    return {"en": "the search rates it so", "pl": "tak ocenia je przeszukiwanie"}


# ---------------------------------------------------------------- review of a game


@dataclass(frozen=True)
class Mark:
    """A person's decision that lost margin: ``step`` is its index among the actions."""

    step: int
    seat: int
    turn: int
    played: Action
    best: Action | None
    loss: float

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "seat": self.seat,
            "turn": self.turn,
            "played": self.played.to_json(),
            "best": self.best.to_json() if self.best is not None else None,
            "loss": round(self.loss, 2),
        }


def review(
    start: Game,
    actions: Sequence[tuple[int, Action]],
    seats: Sequence[int],
    *,
    seed: int = 0,
    rollouts: int = REVIEW_ROLLOUTS,
    seconds: float = REVIEW_SECONDS,
    per_seat: int = 3,
) -> tuple[list[Mark], int, int]:
    """The decisions of ``seats`` in a game (``start``: its game before any action,
    ``actions`` all of them) that lost the most expected margin against the search's
    best candidate, at most ``per_seat`` each, worst first; with how many decisions
    with a choice there were and how many were reviewed within ``seconds`` of the
    calling thread's CPU time (in a seeded random order, so that a cut-off review still
    covers the whole game; CPU time, so that a loaded server reviews as much)."""
    wanted = set(seats)
    game = start.clone()
    game.record_events(False)
    states: list[tuple[int, Game, int, Action]] = []
    for step, (seat, action) in enumerate(actions):
        if seat in wanted and not game.over and len(game.legal_actions(seat, False)) > 1:
            states.append((step, game.clone(), seat, action))
        game.apply(seat, action)
    order = list(range(len(states)))
    random.Random(seed).shuffle(order)
    deadline = time.thread_time() + seconds
    found: list[Mark] = []
    done = 0
    for k in order:
        if done and time.thread_time() >= deadline:
            break
        step, g, seat, played = states[k]
        done += 1
        try:
            view, legal, required = decision(g, seat)
        except CoachError:
            continue
        scored = evaluate(
            searcher(seed + step, rollouts, None),
            view,
            legal,
            required,
            with_coins(view, played),
            with_extra=True,
        )
        if not scored:
            continue
        means = [(a, sum(v, 0.0) / len(v) / MARGIN_SCALE) for a, v in scored]
        best, top = max(means, key=lambda m: m[1])
        mine = next((m for a, m in means if a == with_coins(view, played)), None)
        if mine is not None and top - mine >= MARK_LOSS:
            found.append(Mark(step, seat, g.turn, played, best, top - mine))
    found.sort(key=lambda m: -m.loss)
    marks: list[Mark] = []
    for s in seats:
        marks += [m for m in found if m.seat == s][:per_seat]
    marks.sort(key=lambda m: m.step)
    return marks, len(states), done
