"""A generic random-play invariant checker (in the spirit of OpenSpiel's ``RandomSimulation``).

:func:`check_game` plays one seeded game between bots through the real driver
(:func:`bohnanza.driver.play`) and checks the engine after every action. Every rule set and
module is checked by the same code, so a module gets these checks the moment it is
registered:

1. card conservation: every card id in exactly one place, per-variety counts as dealt
   (RULES.md §2b), hand order kept (R-SETUP-3), one variety per field (R-PLANT-3), the
   third-field supply accounted for (R-FIELD-1);
2. no leak (R-INFO-1…3): ``game.view(k)`` for every seat and the spectator holds, in
   :meth:`View.visible_cards` and in every ``"id"`` of its JSON, only cards that reader may
   see; an offer from another seat's hand shows no id and no undeclared kind; the view holds
   no reference to the game or to its mutable state; every event an action emits shows each
   reader only cards it could see before or after the action (or saw go onto the discard
   pile);
3. save and load: ``Game.from_dict(json(to_dict()))`` equals the game and lists the same
   legal actions for every seat;
4. clone: ``clone() == game``, and an action applied to the clone leaves the game as it was
   (and takes the clone where it takes a loaded copy);
5. every game ends within ``max_actions`` actions;
6. the same seed gives the same game (a second, unchecked run through the driver);
7. legality is defined once - a rule's listing is exactly its candidates that its own
   check lets through: every listed action of a non-offer type passes :meth:`Game.check`,
   and every candidate of the checker's (every plant, harvest, answer and buy around the
   state, and module actions with every card near the seat: :meth:`InvariantChecker.
   candidates`) is legal exactly when it is listed - all of them, none sampled; offers
   (whose space is only sampled by the listing) are sampled here too; probes that must be
   illegal (planting on a field that does not exist, acting for the wrong seat, accepting a
   missing offer, offering another seat's card, …) raise :class:`IllegalAction` and leave
   ``to_dict()`` unchanged; every refusal carries a reason code worded in
   :data:`bohnanza.refusals.REASONS`;
8. the record (:func:`bohnanza.records.make_record`) replays to an equal final state and the
   same result.

What each mode checks (:class:`Checks`):

* after **every** action, in every mode: conservation and the structural invariants (1),
  and the leak check (2) - every view and every event the action emits hold only cards
  their reader may see. A leak is never left to a sample;
* :data:`FULL`: also the heavy comparisons after every action: the views' references to
  the state and their read-only-ness, save and load (3), clone (4), legality (7);
* :data:`CHEAP` (the default of :func:`check_random_games`): the heavy comparisons after
  a random sample of actions (about one in ``full_every``) and at the end, with fewer
  offer samples;
* at the end of every game: the final state, the record's replay (8) and determinism (6).

Any failure raises :class:`InvariantError` naming the game (as a call that reproduces
it), the action index, the action and what went wrong.

Public entry points (re-exported by :mod:`bohnanza.testing`): :func:`check_game`,
:func:`check_games`, :func:`check_random_games` (every configuration of a rule set, see
:func:`configurations`), :func:`position`, and :class:`InvariantChecker` for the checks one
by one on a game a test plays its own way. Seeds come from :mod:`bohnanza.seeding`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, cast

from ..actions import Action, ActionType, Offer, all_shapes
from ..agents import agent_names, make_agent
from ..driver import PlayLog, play
from ..errors import BohnanzaError, GameOver, IllegalAction
from ..events import Event
from ..game import OVER, TRADE, Game, Pending, decision_arg_kind
from ..records import make_record, replay
from ..refusals import REASONS
from ..rules import GameConfig, all_rulesets, make_config
from ..seeding import agent_seed, checker_seed, game_seeds
from ..shapes import BASE_SHAPES, CARD_KINDS, ActionShape
from ..views import VIEW_FIELDS, View, seat_view

_T = ActionType

#: Offer-like action types: their space is only sampled by ``legal_actions`` (accept choices
#: are capped, proposals are templates), so "listed exactly when legal" does not apply.
_SAMPLED_TYPES = frozenset({_T.PROPOSE, _T.ACCEPT})

#: Event keys whose values are card ids (an int) or lists of card ids.
_CARD_KEYS = frozenset({"card", "id"})
_CARD_LIST_KEYS = frozenset({"cards", "gave", "got", "give_cards"})


class InvariantError(AssertionError):
    """An invariant of the engine does not hold (or the engine raised while playing)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Checks:
    """Which checks run, and how often.

    ``full_every``: the heavy comparisons (views' references, save/load, clone, legality)
    run after each action with probability ``1 / full_every`` (1: after every action; 0:
    never during play). Conservation, the cheap structural invariants and the leak check
    of every view and every event run after every action whatever this says; the end
    checks (final state, save/load, record replay, determinism) once per game.
    """

    full_every: int = 1
    #: offers (the sampled action types) per seat passed through :meth:`Game.check` at
    #: each full check; every listed action of another type is checked
    legal_sample: int = 12
    #: illegal offers probed per seat at each full check (other candidates: all of them)
    probes: int = 16
    #: play with event recording, so that every event is checked for leaks; off only for
    #: a caller that checks a game played without events (the leak check of views stays)
    events: bool = True
    #: play the seed a second time (unchecked) and compare
    determinism: bool = True
    #: replay the game's record and compare
    record: bool = True
    #: fail if a game takes more actions than this (R-END-1 makes every game finite)
    max_actions: int = 20_000


FULL = Checks()
CHEAP = Checks(full_every=200, legal_sample=6, probes=8)


@dataclasses.dataclass(frozen=True, slots=True)
class GameStats:
    """What one checked game did."""

    rules: str
    players: int
    options: dict[str, str]
    seed: int
    agents: tuple[str, ...]
    actions: int
    turns: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    full_checks: int
    probes: int
    seconds: float


@dataclasses.dataclass(slots=True)
class Summary:
    """Totals over many checked games."""

    games: int = 0
    actions: int = 0
    full_checks: int = 0
    probes: int = 0
    max_actions: int = 0
    seconds: float = 0.0
    by_rules: Counter[str] = dataclasses.field(default_factory=Counter)

    def add(self, stats: GameStats) -> None:
        self.games += 1
        self.actions += stats.actions
        self.full_checks += stats.full_checks
        self.probes += stats.probes
        self.max_actions = max(self.max_actions, stats.actions)
        self.seconds += stats.seconds
        self.by_rules[f"{stats.rules}/{stats.players}"] += 1


# ---------------------------------------------------------------------------- entry points


def check_game(
    rules: str,
    players: int,
    seed: int,
    options: Mapping[str, str] | None = None,
    agents: Sequence[str] | str | None = None,
    checks: Checks = FULL,
) -> GameStats:
    """Play one seeded game with bots and check every invariant; raise InvariantError.

    ``agents`` are agent names, repeated to fill the seats (default: all ``random``); the
    agent at seat ``k`` is seeded as in :func:`bohnanza.simulate.play_one`, so the checked
    game is the game the simulator plays for the same seed.
    """
    start = time.perf_counter()
    opts = dict(options or {})
    names = _seat_agents(agents, players)
    where = f"check_game({rules!r}, {players}, {seed}, options={opts or None!r}, agents={names!r})"
    try:
        game = _CheckedGame(make_config(rules, players, opts), seed=seed, events=checks.events)
    except BohnanzaError as exc:
        raise InvariantError(f"{where}: the game cannot be created: {exc}") from exc
    checker = InvariantChecker(game, checks, where, random.Random(checker_seed(seed)))
    game.checker = checker
    checker.initial()
    seats = [make_agent(name, agent_seed(seed, k)) for k, name in enumerate(names)]
    log = PlayLog()
    try:
        play(game, seats, log=log, events=checks.events, max_actions=checks.max_actions)
    except InvariantError:
        raise
    except Exception as exc:
        last = f" after {log.actions[-1][1]!r} by seat {log.actions[-1][0]}" if log.actions else ""
        raise InvariantError(
            f"{where}: action #{checker.index}{last}: {type(exc).__name__}: {exc}"
        ) from exc
    if checker.index != len(log.actions):
        raise InvariantError(
            f"{where}: the checker saw {checker.index} of the {len(log.actions)} actions played: "
            "an execution path bypasses Game.apply (update bohnanza.testing.checker._CheckedGame)"
        )
    checker.final(log.actions, names)
    if checks.determinism:
        _check_determinism(where, rules, players, opts, seed, names, game, log.actions, checks)
    assert game.scores is not None and game.winners is not None
    return GameStats(
        rules=game.config.rules,
        players=players,
        options=opts,
        seed=seed,
        agents=names,
        actions=len(log.actions),
        turns=game.turn,
        scores=game.scores,
        winners=game.winners,
        full_checks=checker.full_checks,
        probes=checker.probes,
        seconds=time.perf_counter() - start,
    )


def check_games(
    rules: str,
    players: int,
    seeds: Iterable[int],
    options: Mapping[str, str] | None = None,
    agents: Sequence[str] | str | None = None,
    checks: Checks = FULL,
) -> Summary:
    """:func:`check_game` for every seed; returns the totals."""
    summary = Summary()
    for seed in seeds:
        summary.add(check_game(rules, players, seed, options, agents, checks))
    return summary


def position(
    rules: str,
    players: int,
    seed: int,
    actions: int,
    options: Mapping[str, str] | None = None,
    agents: Sequence[str] | str | None = None,
) -> tuple[Game, list[tuple[int, Action]]]:
    """The state of a seeded bot game after its first ``actions`` actions (or at its end),
    with those actions: a starting point for reproducing a failure of :func:`check_game`."""
    names = _seat_agents(agents, players)
    game = _StoppingGame(make_config(rules, players, dict(options or {})), seed=seed, events=False)
    game.stop_after = actions
    game.done = 0
    seats = [make_agent(name, agent_seed(seed, k)) for k, name in enumerate(names)]
    log = PlayLog()
    with contextlib.suppress(_Stop):
        play(game, seats, log=log)
    return Game.from_dict(game.to_dict()), log.actions


def option_sets(rules: Mapping[str, Any], players: int) -> list[dict[str, str]]:
    """Every option combination a rule set entry of :func:`bohnanza.rules.all_rulesets`
    needs for ``players``: one empty dict, or one dict per value of each required option."""
    out: list[dict[str, str]] = [{}]
    for key, spec in dict(rules.get("options") or {}).items():
        if players in spec.get("required_for_players", []):
            out = [{**o, key: str(v)} for o in out for v in spec["values"]]
    return out


#: One configuration to check: rule set (with modules), player count, options.
Configuration = tuple[str, int, dict[str, str]]


def configurations(rules: str | Iterable[str] | None = None) -> list[Configuration]:
    """Every configuration the engine offers: each rule set of
    :func:`bohnanza.rules.all_rulesets` (or only ``rules``) with each allowed player count
    and each required option value (:func:`option_sets`). A module is in this list as soon
    as it is registered."""
    wanted = {rules} if isinstance(rules, str) else None if rules is None else set(rules)
    out: list[Configuration] = []
    for entry in all_rulesets():
        if wanted is not None and entry["rules"] not in wanted:
            continue
        for players in range(entry["min_players"], entry["max_players"] + 1):
            for options in option_sets(entry, players):
                out.append((entry["rules"], players, options))
    if wanted is not None and not {c[0] for c in out} >= wanted:
        missing = ", ".join(sorted(wanted - {c[0] for c in out}))
        raise ValueError(f"no such rule set: {missing}")
    return out


def check_random_games(
    rules: str | Iterable[str] | None = None,
    games: int = 1,
    seed: int = 0,
    agents: Sequence[str] | str | None = None,
    checks: Checks = CHEAP,
) -> Summary:
    """Check ``games`` seeded games (seeds ``seed``, ``seed + 1``, …) of every configuration
    of ``rules`` (default: every rule set and module, see :func:`configurations`); raise
    :class:`InvariantError` at the first failure. The quickest way for a new module to get
    every engine invariant checked: ``check_random_games("fasolki+my-module", games=20)``.
    """
    summary = Summary()
    for name, players, options in configurations(rules):
        for s in game_seeds(seed, games):
            summary.add(check_game(name, players, s, options, agents, checks))
    return summary


# ---------------------------------------------------------------------------- the hooked game


class _CheckedGame(Game):
    """A game whose every executed action is followed by the checker's checks.

    It hooks :meth:`Game.apply`, the one way to carry out an action (checked or
    ``trusted``); the checker counts the actions it saw and fails if the driver logged
    others, so a path that bypasses the hook cannot silently switch the checks off.
    """

    __slots__ = ("checker",)
    checker: InvariantChecker

    def apply(self, seat: object, action: object, *, trusted: bool = False) -> list[Event]:
        if type(seat) is not int or type(action) is not Action:
            return super().apply(seat, action)  # refused: not a seat, or not an action
        ck = self.checker
        # Trusted actions skip the check (taken from legal_actions): verify that every
        # executed action passes it.
        try:
            self.check(seat, action)
        except IllegalAction as exc:
            if not trusted:
                raise
            raise InvariantError(
                f"{ck.where}: action #{ck.index} (seat {seat}, {action!r}) was executed, but "
                f"check() refuses it: {exc}"
            ) from None
        ck.before()
        recording = self.recording
        events = super().apply(seat, action, trusted=True)
        ck.after(seat, action, events if recording and ck.checks.events else None)
        return events


class _Stop(Exception):
    pass


class _StoppingGame(Game):
    __slots__ = ("done", "stop_after")
    stop_after: int
    done: int

    def apply(self, seat: object, action: object, *, trusted: bool = False) -> list[Event]:
        if self.done >= self.stop_after:
            raise _Stop
        self.done += 1
        return super().apply(seat, action, trusted=trusted)


# ---------------------------------------------------------------------------- the checks


class InvariantChecker:
    """The checks of one game, callable one by one on any :class:`Game`.

    :func:`check_game` drives one through a whole game; a test that plays its own way (a
    fuzzer, a scripted position, a new module's hand-built state) can make one for its game
    and call the checks it wants after each step: :meth:`conservation`, :meth:`structure`
    (cheap), :meth:`view_leaks`, :meth:`full` (every heavy check: leaks, save/load, clone,
    legality probes), or ask :meth:`allowed` which card ids a seat may see now. A failed
    check raises :class:`InvariantError` prefixed with ``where``; ``rng`` drives the
    sampled checks (probes, legal-action samples).
    """

    def __init__(
        self,
        game: Game,
        checks: Checks = FULL,
        where: str = "game",
        rng: random.Random | None = None,
    ) -> None:
        self.game = game
        self.checks = checks
        self.where = where
        self.rng = rng if rng is not None else random.Random(0)
        self.index = 0  # actions applied so far
        self.full_checks = 0
        self.probes = 0
        self.deck = list(range(game.config.deck_size))
        self.variety_counts = Counter(game.config.card_variety)
        self.old_hands: list[list[int]] = []
        self.before_allowed: list[set[int]] = []
        self.discard_before: set[int] = set()
        self.draw_before: set[int] = set()
        self.last: tuple[int, Action] | None = None  # the action just applied
        #: What each reader may see in the state as it is now, while it stays so (the
        #: checks after one action share it); None: not kept.
        self._allowed: dict[int | None, set[int]] | None = None

    # -- helpers

    def fail(self, what: str) -> InvariantError:
        if self.last is None:
            return InvariantError(f"{self.where}: at setup: {what}")
        seat, action = self.last
        return InvariantError(
            f"{self.where}: action #{self.index - 1} (seat {seat}, {action!r}): {what}"
        )

    def viewers(self) -> list[int | None]:
        return [*range(self.game.players), None]

    # -- hook points

    def initial(self) -> None:
        g = self.game
        self.conservation()
        self.structure()
        self.seat_probes()
        self.full()
        if g.over:
            raise self.fail("the game is over before anybody acted")

    def before(self) -> None:
        g = self.game
        self.old_hands = [h[:] for h in g.hands]
        self._allowed = None
        if self.checks.events:
            self.before_allowed = [self.allowed(k) for k in self.viewers()]
            self.discard_before = set(g.discard)
            self.draw_before = set(g.draw)

    def after(self, seat: int, action: Action, events: list[Event] | None) -> None:
        self._allowed = {}  # the state after the action, unchanged by the checks below
        try:
            self._after(seat, action, events)
        finally:
            self._allowed = None

    def _after(self, seat: int, action: Action, events: list[Event] | None) -> None:
        self.last = (seat, action)
        self.index += 1
        if self.index > self.checks.max_actions:
            raise self.fail(f"the game is not over after {self.checks.max_actions} actions")
        self.conservation()
        self.structure()
        self.hand_order()
        self.cached_views()
        if action.type is _T.BUY_FIELD and action.cards:
            self.chosen_coins(seat, action)
        every = self.checks.full_every
        deep = every == 1 or (every > 1 and self.rng.random() * every < 1) or self.game.over
        if events is not None:
            self.event_leaks(events, deep)
        if deep:
            self.full()
        else:
            self.view_leaks(deep=False)  # never sampled: a leak is checked at every action

    def chosen_coins(self, seat: int, action: Action) -> None:
        """R-LADY-10: the named coins left the buyer's treasury and lie on the discard pile
        in the order named (unless a module spends them elsewhere)."""
        g = self.game
        if set(action.cards) & set(g.treasury[seat]):
            raise self.fail(f"{action!r}: a paid coin is still in seat {seat}'s treasury")
        if g.discard[-len(action.cards) :] != list(action.cards):
            raise self.fail(
                f"{action!r}: the discard pile ends with {g.discard[-3:]}, not the coins in "
                "the order named (R-LADY-10)"
            )

    # -- 1. conservation and structure (every action)

    def conservation(self) -> None:
        g = self.game
        cards = g.all_card_locations()
        if sorted(cards) != self.deck:  # ids map to varieties: per-variety counts hold too
            counts = Counter(cards)
            twice = sorted(c for c, n in counts.items() if n > 1)
            missing = sorted(set(self.deck) - set(cards))
            extra = sorted(set(cards) - set(self.deck))
            raise self.fail(
                f"card conservation (§2b): duplicated {twice[:10]} "
                f"{[self.where_is(c) for c in twice[:3]]}, missing {missing[:10]}, "
                f"unknown {extra[:10]}"
            )

    def structure(self) -> None:
        g = self.game
        cfg = g.config
        cv = cfg.card_variety
        if g.over != (g.phase == OVER):
            raise self.fail(f"over={g.over} but phase={g.phase!r}")
        for s in range(g.players):
            fields = g.fields[s]
            if not 2 <= len(fields) <= 3:
                raise self.fail(f"seat {s} has {len(fields)} fields (R-FIELD-1)")
            for i, f in enumerate(fields):
                if len(f) > 1 and len({cv[c] for c in f}) > 1:
                    raise self.fail(f"seat {s} field {i} holds several varieties {f} (R-PLANT-3)")
        thirds = sum(1 for fs in g.fields if len(fs) == 3)
        if g.supply < 0 or g.supply + thirds != cfg.third_fields:
            raise self.fail(
                f"third fields: supply {g.supply} + {thirds} owned != {cfg.third_fields} (R-SETUP-1)"
            )
        if g.offers and g.phase != TRADE:
            raise self.fail(f"offers {sorted(g.offers)} are open in phase {g.phase!r}")
        for oid, (p, o) in g.offers.items():
            held = g.tradeable(p)
            if o.to == p or any(c not in held for c in o.give):
                raise self.fail(f"open offer {oid} of seat {p} is stale or self-addressed: {o!r}")
        if g.over:
            self.final_state()

    def final_state(self) -> None:
        g = self.game
        if g.scores is None or g.winners is None:
            raise self.fail("the game is over but has no scores")
        scores = tuple(len(t) for t in g.treasury)
        if g.scores != scores:
            raise self.fail(f"scores {g.scores} differ from the treasuries {scores} (R-END-4)")
        best = max(scores)
        tied = [s for s in range(g.players) if scores[s] == best]
        most = max(len(g.hands[s]) for s in tied)
        winners = tuple(s for s in tied if len(g.hands[s]) == most)
        if g.winners != winners:
            raise self.fail(f"winners {g.winners}, expected {winners} (R-END-4)")
        left = [(s, i) for s in range(g.players) for i, f in enumerate(g.fields[s]) if f]
        if left or any(g.trade) or g.drawn or g.offers or g.pending is not None:
            raise self.fail(
                f"the game is over but fields {left} / trade areas / drawn cards / offers / "
                "a pending decision remain (R-END-3)"
            )
        for s in range(g.players):
            if g.legal_actions(s):
                raise self.fail(f"seat {s} has legal actions after the end")
            try:
                g.check(s, Action.end_trading())
            except GameOver:
                pass
            else:
                raise self.fail(f"seat {s} may still act after the end (GameOver expected)")

    def cached_views(self) -> None:
        """The driver hands agents views built from the game's cache of public seat parts
        (``view(seat, cached=True)``): every cached part must equal a fresh one."""
        g = self.game
        for s, cached in enumerate(g.cached_seat_views()):
            if cached is not None and cached != seat_view(g, s):
                raise self.fail(f"the cached public view of seat {s} is stale: {cached}")

    def hand_order(self) -> None:
        """R-SETUP-3: hand cards keep their order; new cards go to the back."""
        g = self.game
        for s, old in enumerate(self.old_hands):
            new = g.hands[s]
            present = set(new)
            kept = [c for c in old if c in present]
            if new[: len(kept)] != kept:
                raise self.fail(f"seat {s}'s hand changed order: {old} -> {new} (R-SETUP-3)")

    # -- 2. leaks

    def allowed(self, seat: int | None) -> set[int]:
        """Cards ``seat`` may see now (R-INFO-1/2). The set is shared: do not change it."""
        cache = self._allowed
        if cache is not None:
            got = cache.get(seat)
            if got is None:
                got = cache[seat] = self._allowed_now(seat)
            return got
        return self._allowed_now(seat)

    def _allowed_now(self, seat: int | None) -> set[int]:
        # What a seat may know is declared once, by the rule set's hooks (Hooks.known_cards:
        # the public places, and what the seat privately knows, a decision's card shown
        # to the seat that takes it included), the declaration the views are built from.
        g = self.game
        return g.hooks.known_cards(g, seat)

    def where_is(self, card: int) -> str:
        g = self.game
        places: list[tuple[str, list[int]]] = [
            ("the draw pile", g.draw),
            ("the discard pile", g.discard),
            ("out of the game", g.out),
            ("the drawn cards", g.drawn),
        ]
        for s in range(g.players):
            places += [
                (f"seat {s}'s hand", g.hands[s]),
                (f"seat {s}'s treasury", g.treasury[s]),
                (f"seat {s}'s trade area", g.trade[s]),
            ]
            places += [(f"seat {s}'s field {i}", f) for i, f in enumerate(g.fields[s])]
        found = [name for name, pile in places if card in pile]
        if card in g.hooks.extra_cards(g):
            found.append("a module area")
        return f"card {card} ({g.config.describe(card)}) in {' and '.join(found) or 'nowhere'}"

    def view_leaks(self, deep: bool = True) -> None:
        """Every reader's view shows only cards that reader may see (R-INFO-1…3): the
        cards it holds (:meth:`View.visible_cards`, after every action). ``deep`` (the
        full checks): also every id in its JSON, its offers and its public part, the
        cached view against a fresh one, and one view's references to the state and
        parts a reader could change (the costlier comparisons)."""
        g = self.game
        mutable = _state_containers(g) if deep else {}
        ref_viewer = self.rng.choice(self.viewers()) if deep else -2
        for k in self.viewers():
            who = "the spectator" if k is None else f"seat {k}"
            view = g.view(k, cached=not deep)
            if deep and g.view(k, cached=True) != view:
                raise self.fail(f"the cached view for {who} differs from a fresh one")
            allowed = self.allowed(k)
            bad = view.visible_cards() - allowed
            if bad:
                raise self.fail(f"view for {who} shows {self.where_is(min(bad))} (R-INFO-3)")
            if not deep:
                continue
            # The whole view, walked part by part (its pending decision and offers too),
            # not only the places View.visible_cards reads.
            for part, ids in _view_card_ids(view):
                bad = ids - allowed
                if bad:
                    raise self.fail(
                        f"view for {who} shows {self.where_is(min(bad))} in its {part} (R-INFO-3)"
                    )
            data = view.to_json()
            try:
                json.dumps(data)
            except (TypeError, ValueError) as exc:
                raise self.fail(f"view for {who} is not JSON: {exc}") from None
            bad = (set(_json_ids(data)) | _pending_json_cards(data.get("pending"))) - allowed
            if bad:
                raise self.fail(f"view JSON for {who} shows {self.where_is(min(bad))} (R-INFO-3)")
            self.view_offers(view, data, k, who)
            self.view_public(view, k, who)
            ref = _find_reference(view, mutable) if k == ref_viewer else None
            if ref:
                raise self.fail(f"view for {who} holds {ref}")
            if k == ref_viewer:
                _read_only(self, view, who)

    def view_offers(self, view: View, data: dict[str, Any], k: int | None, who: str) -> None:
        g = self.game
        for ov in view.offers:
            entry = g.offers.get(ov.offer_id)
            if entry is None:
                raise self.fail(f"view for {who} shows offer {ov.offer_id}, which is not open")
            proposer, offer = entry
            if proposer == k:
                continue
            declared: tuple[str | None, ...] = offer.declared or (None,) * len(offer.give)
            for i, c in enumerate(offer.give):
                if c in g.drawn:
                    continue
                shown = ov.shown[i]
                if ov.give[i] is not None or "id" in shown or "card" in shown:
                    raise self.fail(
                        f"view for {who} shows the id of card {c} offered from seat "
                        f"{proposer}'s hand in offer {ov.offer_id} (R-INFO-2)"
                    )
                if "kind" in shown and shown["kind"] != declared[i]:
                    raise self.fail(
                        f"view for {who} shows the kind {shown['kind']!r} of a card offered "
                        f"from seat {proposer}'s hand (declared {declared[i]!r}) "
                        "(R-BLUFF-1, R-LADY-6)"
                    )
            jgive = [x for o in data["offers"] if o["offer_id"] == ov.offer_id for x in o["give"]]
            for i, c in enumerate(offer.give):
                if c not in g.drawn and "id" in jgive[i]:
                    raise self.fail(f"view JSON for {who} shows the id of offered card {c}")

    def view_public(self, view: View, k: int | None, who: str) -> None:
        """The public facts of R-INFO-1 are right, and the hand is the reader's own."""
        g = self.game
        facts = {
            "draw_size": len(g.draw),
            "discard_size": len(g.discard),
            "discard_top": g.discard[-1] if g.discard else None,
            "third_fields_left": g.supply,
            "runouts": g.runouts,
            "phase": g.phase,
            "active": g.active,
            "drawn": tuple(g.drawn),
            "hand": tuple(g.hands[k]) if k is not None else None,
            # R-LADY-10: the reader's own treasury, and nobody else's
            "treasury": tuple(g.treasury[k])
            if k is not None and g.hooks.own_treasury_visible
            else None,
        }
        for name, value in facts.items():
            if getattr(view, name) != value:
                raise self.fail(f"view for {who}: {name} is {getattr(view, name)!r}, not {value!r}")
        for s, sv in enumerate(view.seats):
            if (sv.coins, sv.hand_size, sv.trade_area) != (
                len(g.treasury[s]),
                len(g.hands[s]),
                tuple(g.trade[s]),
            ) or sv.fields != tuple(tuple(f) for f in g.fields[s]):
                raise self.fail(f"view for {who}: seat {s}'s public facts are wrong")

    def event_leaks(self, events: list[Event], deep: bool = True) -> None:
        """Every event shows each reader only cards it could see before or after the
        action (after every action); ``deep``: also that each reader's form is JSON."""
        g = self.game
        # Cards put on the discard pile lie bean side up (R-HARV-2, R-FIELD-3): everyone
        # saw them go there, even if they are no longer on top.
        discarded = set(g.discard) - self.discard_before
        if any(ev.type == "reshuffle" for ev in events):
            # The discard pile was shuffled into a new draw pile within the action (R-DECK-1):
            # a card that went onto it face up, and on into the draw pile, was seen too.
            discarded |= set(g.draw) - self.draw_before
        # Cards harvested in this action left a public field (R-HARV-2): a card planted and
        # then harvested into coins by the game's end in one action was seen in between.
        harvested = {
            c
            for ev in events
            if ev.type == "harvest"
            for c in ev.data.get("cards", ())
            if isinstance(c, int)
        }
        after = [self.allowed(k) | discarded | harvested for k in self.viewers()]
        for ev in events:
            for i, k in enumerate(self.viewers()):
                data = ev.for_seat(k)
                if deep:
                    try:
                        json.dumps(data)
                    except (TypeError, ValueError) as exc:
                        raise self.fail(f"event {ev.type} is not JSON: {exc}") from None
                bad = set(_event_ids(data)) - self.before_allowed[i] - after[i]
                if bad:
                    who = "the spectator" if k is None else f"seat {k}"
                    card = min(bad)
                    raise self.fail(
                        f"event {data} shows {who} card {card} ({g.config.describe(card)}), "
                        "which it could see neither before nor after (R-INFO-3)"
                    )

    # -- 3, 4, 7: the heavy checks

    def full(self) -> None:
        g = self.game
        self.full_checks += 1
        cv = g.config.card_variety
        if Counter(cv[c] for c in g.all_card_locations()) != self.variety_counts:
            raise self.fail("per-variety card counts differ from the deck's (§2b)")
        snapshot = g.to_dict()
        legal = [g.legal_actions(s) for s in range(g.players)]
        self.view_leaks()
        self.save_load(snapshot, legal)
        self.legality(legal)
        self.clone(snapshot, legal)
        if g.to_dict() != snapshot:
            raise self.fail("the checks changed the game (views, legal_actions, check, clone)")

    def save_load(self, snapshot: dict[str, Any], legal: list[list[Action]]) -> None:
        g = self.game
        text = json.dumps(snapshot)
        try:
            loaded = Game.from_dict(json.loads(text))
        except BohnanzaError as exc:
            raise self.fail(f"from_dict(to_dict()) raised {exc}") from None
        if loaded != g:
            diff = [k for k, v in loaded.to_dict().items() if snapshot.get(k) != v]
            raise self.fail(f"from_dict(to_dict()) differs in {diff}")
        for s in range(g.players):
            if loaded.legal_actions(s) != legal[s]:
                raise self.fail(f"a loaded copy lists other legal actions for seat {s}")
        if loaded.waiting_for() != g.waiting_for():
            raise self.fail("a loaded copy waits for other seats")

    def clone(self, snapshot: dict[str, Any], legal: list[list[Action]]) -> None:
        g = self.game
        c = g.clone()
        if c != g:
            raise self.fail("clone() differs from the game")
        if g.over:
            return
        seats = g.waiting_for() + list(range(g.players))
        for s in seats:
            if legal[s]:
                action = self.rng.choice(legal[s])
                break
        else:
            raise self.fail("nobody has a legal action, but the game is not over")
        loaded = Game.from_dict(snapshot)
        try:
            c.apply(s, action)
            loaded.apply(s, action)
        except BohnanzaError as exc:
            raise self.fail(
                f"listed action {action!r} of seat {s} failed on a copy: {exc}"
            ) from None
        if g.to_dict() != snapshot:
            raise self.fail(f"applying {action!r} (seat {s}) to a clone changed the original")
        if c != loaded:
            raise self.fail(f"after {action!r} (seat {s}) a clone and a loaded copy differ")

    def legality(self, legal_lists: list[list[Action]]) -> None:
        g = self.game
        if g.over:
            return
        waiting = g.waiting_for()
        if not waiting:
            raise self.fail("the game is not over but waits for nobody")
        for s in range(g.players):
            legal = legal_lists[s]
            if s == waiting[0] and not legal:
                raise self.fail(f"the game waits for seat {s}, which has no legal action")
            if len(set(legal)) != len(legal):
                raise self.fail(f"seat {s}'s legal actions list duplicates")
            if g.legal_actions(s, False) != [a for a in legal if a.type is not _T.PROPOSE]:
                raise self.fail(f"legal_actions({s}, offers=False) is not the list without offers")
            # bots get the legal actions with their view: they must not name hidden cards
            hidden = _action_cards(legal) - self.allowed(s)
            if hidden:
                raise self.fail(
                    f"seat {s}'s legal actions name {self.where_is(min(hidden))} (R-INFO-3)"
                )
            # Every listed action passes the rule's own check (offers: a sample).
            exact = [a for a in legal if a.type not in _SAMPLED_TYPES]
            offered = [a for a in legal if a.type in _SAMPLED_TYPES]
            for a in exact + _sample(self.rng, offered, self.checks.legal_sample):
                self.probes += 1
                try:
                    g.check(s, a)
                except IllegalAction as exc:
                    raise self.fail(f"listed action {a!r} of seat {s} is refused: {exc}") from None
            # And every candidate the check lets through is listed: the listing is the
            # candidates filtered by the check, compared on all of them.
            listed = set(legal)
            for a in self.candidates(s):
                self.probes += 1
                ok = _is_legal(g, s, a)
                if ok != (a in listed):
                    raise self.fail(
                        f"{a!r} for seat {s}: check() says {'legal' if ok else 'illegal'} but "
                        f"legal_actions {'lists' if a in listed else 'does not list'} it"
                    )
            for a in self.illegal_offers(s):
                self.probes += 1
                if _is_legal(g, s, a):
                    raise self.fail(f"{a!r} by seat {s} should be illegal but passes check()")
            self.coin_probes(s, Action.buy_field() in legal)
        # apply() itself must refuse and change nothing: probe through the real entry point
        s = self.rng.randrange(g.players)
        probes = [a for a in self.candidates(s) if a.type not in _SAMPLED_TYPES]
        listed = set(legal_lists[s])
        for a in _sample(self.rng, [a for a in probes if a not in listed], 2):
            self.probes += 1
            try:
                Game.apply(g, s, a)
            except IllegalAction:
                continue
            raise self.fail(f"apply() accepted unlisted {a!r} for seat {s}")

    def seat_probes(self) -> None:
        """Bad seats and non-actions are refused (once per game)."""
        g = self.game
        for seat in (-1, g.players, True, "0", None):
            if _is_legal(g, cast(int, seat), Action.end_trading()):
                raise self.fail(f"seat {seat!r} may act")
        for bad in ("plant", None, {"type": "plant", "field": 0}):
            if _is_legal(g, g.active, cast(Action, bad)):
                raise self.fail(f"{bad!r} is accepted as an action")

    def candidates(self, seat: int) -> list[Action]:
        """Actions of every non-offer type, legal or not, around the current state: all
        that need no card, and those with a card for every card the seat may well use
        (its trade area, its front hand cards, the drawn cards, its fields' tops) on every
        field, plus a card from elsewhere."""
        g = self.game
        rng = self.rng
        nf = len(g.fields[seat])
        fields = range(-1, nf + 1)
        # Every module's own types too (refused where their module is not played), built
        # from their shapes: those without arguments, or with None as an answer, as they
        # are; those that take a card (and a field) for each probed card below.
        shaped = _probe_shapes()
        acts = [Action.stop_planting(), Action.end_trading(), Action.buy_field()]
        acts += [Action(ActionType(s.type)) for s in shaped if not s.fields or _none_ok(s)]
        acts += [Action.plant(f) for f in fields] + [Action.harvest(f) for f in fields]
        oids = [*g.offers, g.next_offer_id, 0, -1]
        acts += [Action.decline(o) for o in oids] + [Action.withdraw(o) for o in oids]
        near = set(g.trade[seat]) | set(g.hands[seat][:2]) | set(g.drawn)
        for pile in g.fields[seat]:
            near.update(pile[-2:])
        far = [rng.choice(self.deck)]
        others = [t for s, t in enumerate(g.trade) if s != seat and t]
        if others:
            far.append(rng.choice(rng.choice(others)))
        card_only = [s for s in shaped if "card" in s.fields and "field" not in s.fields]
        card_field = [s for s in shaped if "card" in s.fields and "field" in s.fields]
        # A seat parameter: every seat, and two that do not exist.
        seats = [seat, *(k for k in range(-1, g.players + 1) if k != seat)]
        for c in sorted(near) + far:
            for s in card_only:
                acts += [_probe(s, c, 0, k) for k in (seats if "target" in s.fields else [0])]
            for f in fields:
                acts.append(Action.plant_traded(c, f))
                for s in card_field:
                    acts += [_probe(s, c, f, k) for k in (seats if "target" in s.fields else [0])]
        # every way to plant the trade area (phase 3) is listed or refused exactly
        acts += [Action.plant_traded(c, f) for c in g.trade[seat] for f in range(nf)]
        return acts

    def illegal_offers(self, seat: int) -> list[Action]:
        """Offers and acceptances that can never be legal for ``seat`` now."""
        g = self.game
        n = g.players
        mine = set(g.tradeable(seat))
        foreign = [c for c in self.deck if c not in mine]
        other = (seat + 1) % n
        some = self.rng.choice(foreign)
        variety = g.config.varieties[0]
        acts = [
            Action.propose(Offer(seat, (some,), ())),  # to oneself
            Action.propose(Offer(other, (some,), ())),  # a card it does not hold
            Action.propose(Offer(n, (), ((variety, 1),))),  # no such seat
            Action.propose(Offer(other, (), ())),  # nothing at all
            Action.propose(Offer(other, (), (("no-such-bean", 1),))),
            Action.accept(g.next_offer_id, ()),  # no such offer
            Action.accept(-1, (some,)),
        ]
        if mine:
            c = min(mine)
            acts.append(Action.propose(Offer(other, (c, c), ())))  # a card given twice
        for oid, (_, o) in g.offers.items():
            if o.to != seat:
                acts.append(Action.accept(oid, ()))  # addressed to somebody else
            elif o.want:
                acts.append(Action.accept(oid, (some,)))  # a card it does not hold
        return acts

    def coin_probes(self, seat: int, buy_listed: bool) -> None:
        """A buy naming its coins (R-LADY-10): where the rule set lets the buyer choose,
        any three distinct coins of the seat's treasury, in any order, pass exactly when the
        listed template does, and a wrong count, a repeated coin or a card from elsewhere
        never passes; elsewhere every coin list is refused (R-FIELD-3)."""
        g = self.game
        rng = self.rng
        t = g.treasury[seat]
        price = g.config.field_price
        choosing = g.hooks.own_treasury_visible
        if len(t) >= price:
            pick = tuple(rng.sample(t, price))
            self.probes += 1
            if _is_legal(g, seat, Action.buy_field(pick)) != (buy_listed and choosing):
                raise self.fail(
                    f"buying with {pick} for seat {seat}: check() disagrees with the listed "
                    f"template (listed: {buy_listed}, the buyer chooses: {choosing})"
                )
        bad: list[tuple[int, ...]] = [tuple(t[: price - 1]), (rng.choice(self.deck),) * price]
        if len(t) > price:
            bad.append(tuple(t[: price + 1]))
        if t:
            bad.append((t[0],) * price)
        elsewhere = [c for c in self.deck if c not in t]
        if elsewhere and len(t) >= price - 1:
            bad.append((*t[: price - 1], rng.choice(elsewhere)))
        for coins in bad:
            if not coins:
                continue
            self.probes += 1
            if _is_legal(g, seat, Action.buy_field(coins)):
                raise self.fail(f"buying with {coins} by seat {seat} passes check()")

    # -- the end

    def final(self, actions: list[tuple[int, Action]], names: Sequence[str]) -> None:
        g = self.game
        if not g.over:
            raise self.fail("the driver returned but the game is not over")
        if self.checks.record:
            record = make_record(g, actions, [{"agent": n} for n in names])
            try:
                again = replay(json.loads(json.dumps(record)))
            except BohnanzaError as exc:
                raise self.fail(f"the game's record does not replay: {exc}") from None
            if again != g:
                diff = [k for k, v in again.to_dict().items() if g.to_dict().get(k) != v]
                raise self.fail(f"the replayed record ends in another state ({diff})")
            if again.result() != g.result():
                raise self.fail(f"the replayed record's result {again.result()} != {g.result()}")


def _check_determinism(
    where: str,
    rules: str,
    players: int,
    options: dict[str, str],
    seed: int,
    names: Sequence[str],
    game: Game,
    actions: list[tuple[int, Action]],
    checks: Checks,
) -> None:
    again = Game.new(rules, players, options=options, seed=seed)
    seats = [make_agent(name, agent_seed(seed, k)) for k, name in enumerate(names)]
    log = play(again, seats, max_actions=checks.max_actions)
    if log.actions != actions:
        i = next(
            (i for i, (a, b) in enumerate(zip(log.actions, actions, strict=False)) if a != b),
            min(len(log.actions), len(actions)),
        )
        raise InvariantError(
            f"{where}: the same seed played again (without checks) differs from action #{i} "
            "on (R-SETUP-5)"
        )
    if again != game:
        raise InvariantError(f"{where}: the same seed played again ends in another state")


# ---------------------------------------------------------------------------- small helpers


def _seat_agents(agents: Sequence[str] | str | None, players: int) -> tuple[str, ...]:
    """Agent names repeated (or cut) to fill ``players`` seats; unknown names raise."""
    spec = agents if agents is not None else "random"
    names = [n.strip() for n in spec.split(",")] if isinstance(spec, str) else list(spec)
    names = [n for n in names if n]
    filled = [names[i % len(names)] for i in range(players)] if names else []
    return tuple(agent_names(filled, players))


def _probe_shapes() -> list[ActionShape]:
    """The shapes of every module's own action types that name at most a card and a
    field (offers and payments have probes of their own)."""
    return [
        s
        for k, s in all_shapes().items()
        if k not in BASE_SHAPES and s.fields <= {"card", "field", "target"}
    ]


def _none_ok(shape: ActionShape) -> bool:
    """Whether every parameter of ``shape`` may be None (an action with no arguments)."""
    return all(p.optional for p in shape.params)


def _probe(shape: ActionShape, card: int, field: int, seat: int = 0) -> Action:
    """An action of ``shape`` naming ``card`` (and ``field`` and a ``target`` seat where
    it takes them)."""
    named = field if "field" in shape.fields else None
    whom = seat if "target" in shape.fields else None
    return Action(ActionType(shape.type), field=named, card=card, target=whom)


def _is_legal(game: Game, seat: int, action: Action) -> bool:
    """Like :meth:`Game.is_legal`, but any exception other than IllegalAction is a bug,
    and so is a refusal without a reason code worded in :data:`REASONS` (the page and the
    terminal word a refusal from its code)."""
    try:
        game.check(seat, action)
    except IllegalAction as exc:
        refusal = exc.refusal
        if refusal is None or refusal.code not in REASONS:
            raise InvariantError(
                f"check({seat!r}, {action!r}) refused without a known reason code "
                f"({refusal.code if refusal is not None else 'no refusal'}): {exc}"
            ) from exc
        return False
    except Exception as exc:
        raise InvariantError(
            f"check({seat!r}, {action!r}) raised {type(exc).__name__} instead of IllegalAction: "
            f"{exc}"
        ) from exc
    return True


def _action_cards(actions: Iterable[Action]) -> set[int]:
    """Every card id an action names (its card, its cards, the cards its offer gives)."""
    out: set[int] = set()
    for a in actions:
        if a.card is not None:
            out.add(a.card)
        out.update(a.cards)
        if a.offer is not None:
            out.update(a.offer.give)
    return out


def _sample(rng: random.Random, items: Sequence[Action], k: int) -> list[Action]:
    return list(items) if len(items) <= k else rng.sample(list(items), k)


def _json_ids(data: Any) -> list[int]:
    """Every integer under an ``"id"`` key anywhere in a JSON value (cards are
    ``{"id", "variety", ...}``)."""
    out: list[int] = []
    stack = [data]
    while stack:
        value = stack.pop()
        if type(value) is dict:
            for key, v in value.items():
                if key == "id" and type(v) is int:
                    out.append(v)
                elif type(v) is dict or type(v) is list:
                    stack.append(v)
        elif type(value) is list:
            stack.extend(v for v in value if type(v) is dict or type(v) is list)
    return out


def _card_ints(value: Any) -> set[int]:
    """Card ids in a part of a view a module shapes (a public pile, an offered card's
    description): ints in lists and tuples, and under ``id``/``card``/``cards`` keys."""
    out: set[int] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Mapping):
            for key, x in v.items():
                if key in _CARD_KEYS and type(x) is int:
                    out.add(x)
                elif isinstance(x, Mapping | list | tuple):
                    stack.append(x)
        elif isinstance(v, list | tuple):
            for x in v:
                if type(x) is int:
                    out.add(x)
                elif isinstance(x, Mapping | list | tuple):
                    stack.append(x)
    return out


def _view_card_ids(view: View) -> list[tuple[str, set[int]]]:
    """Every card id anywhere in ``view``, part by part: its piles, the fields and trade
    areas of every seat, every offer (the ids it gives and what it shows of the others),
    the pending decision's arguments of a card kind (as the answering rule declared them;
    an undeclared argument counts as a card) and the module's public part."""
    parts: list[tuple[str, set[int]]] = [
        ("hand", set(view.hand or ())),
        ("treasury", set(view.treasury or ())),
        ("drawn cards", set(view.drawn)),
        ("discard top", {view.discard_top} if view.discard_top is not None else set()),
    ]
    for sv in view.seats:
        cards = set(sv.trade_area)
        for f in sv.fields:
            cards.update(f)
        parts.append((f"seat {sv.seat}'s public part", cards))
    for ov in view.offers:
        cards = {c for c in ov.give if c is not None} | _card_ints(list(ov.shown))
        parts.append((f"offer {ov.offer_id}", cards))
    pending = view.pending
    if pending is not None:
        parts.append(("pending decision", set(pending.cards())))
    parts.append(("public part", _card_ints(view.public)))
    return parts


def _pending_json_cards(data: Any) -> set[int]:
    """The card ids in a pending decision's JSON (``{"seat", "asks", "args"}``): its
    arguments of a card kind."""
    if not isinstance(data, dict) or not isinstance(data.get("args"), dict):
        return set()
    kind = str(data.get("asks"))
    return {
        v
        for name, v in data["args"].items()
        if type(v) is int and decision_arg_kind(kind, name) in CARD_KINDS
    }


def _event_ids(data: Any) -> Iterator[int]:
    """Card ids in an event: ints under ``card``/``id``, lists of ints under ``cards``,
    ``gave``, ``got``, ``give_cards`` (a count under ``cards`` is not a card)."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key in _CARD_KEYS and isinstance(value, int) and not isinstance(value, bool):
                yield value
            elif key in _CARD_LIST_KEYS and isinstance(value, list):
                for v in value:
                    if isinstance(v, int) and not isinstance(v, bool):
                        yield v
                    else:
                        yield from _event_ids(v)
            else:
                yield from _event_ids(value)
    elif isinstance(data, list):
        for value in data:
            yield from _event_ids(value)


def _state_containers(game: Game) -> dict[int, str]:
    """id() of every mutable container of the game's state, with its name."""
    out: dict[int, str] = {
        id(game): "the game itself",
        id(game.hooks): "the game's hooks",
        id(game.rng): "the game's RNG",
    }

    def walk(value: Any, name: str) -> None:
        if isinstance(value, list | dict | set):
            out[id(value)] = name
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for k, v in items:
                walk(v, f"{name}[{k!r}]")

    for attr in (
        "draw",
        "discard",
        "out",
        "hands",
        "fields",
        "treasury",
        "trade",
        "drawn",
        "offers",
    ):
        walk(getattr(game, attr), f"game.{attr}")
    # The typed module state, field by field (not the dict parts() builds: a temporary
    # whose id a view's value may reuse once it is gone).
    for name, value in game.extra.parts().items():
        walk(value, f"game.extra.{name}")
    return out


_ATOMS = (str, int, float, bool, type(None), ActionType)


def _find_reference(value: Any, forbidden: dict[int, str], path: str = "view") -> str | None:
    """The first object reachable from ``value`` that is the game or part of its state."""
    if id(value) in forbidden:
        return f"{forbidden[id(value)]} at {path}"
    if isinstance(value, (*_ATOMS, GameConfig)):  # GameConfig: immutable, public
        return None
    if isinstance(value, Game):
        return f"a Game at {path}"
    if isinstance(value, dict):
        for k, v in value.items():
            found = _find_reference(v, forbidden, f"{path}[{k!r}]")
            if found:
                return found
    elif isinstance(value, View):  # its parts; a live view's game is the state itself
        if value._game is not None:
            return f"the game at {path}._game (a live view)"
        for name, v in zip(VIEW_FIELDS, value, strict=True):
            if type(v) is not int:
                found = _find_reference(v, forbidden, f"{path}.{name}")
                if found:
                    return found
    elif isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple
        for name, v in zip(value._fields, value, strict=True):
            if type(v) is not int:
                found = _find_reference(v, forbidden, f"{path}.{name}")
                if found:
                    return found
    elif isinstance(value, list | tuple | set | frozenset):
        for i, v in enumerate(value):
            if type(v) is not int:
                found = _find_reference(v, forbidden, f"{path}[{i}]")
                if found:
                    return found
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            found = _find_reference(getattr(value, f.name), forbidden, f"{path}.{f.name}")
            if found:
                return found
    elif isinstance(value, Pending):  # immutable: its seat, kind and named numbers
        return _find_reference(value.args, forbidden, f"{path}.args")
    else:
        return f"an object of type {type(value).__name__} at {path}"
    return None


__all__ = [
    "CHEAP",
    "FULL",
    "Checks",
    "GameStats",
    "InvariantError",
    "Summary",
    "check_game",
    "check_games",
    "option_sets",
    "position",
]


def _read_only(checker: InvariantChecker, view: View, who: str) -> None:
    """Views and configs are immutable (issue 14): one view part or config may be shared
    by several readers, so no reader may change it."""
    parts: list[tuple[str, Any]] = [("view.public", view.public)]
    parts += [(f"view.public[{k!r}]", v) for k, v in view.public.items()]
    parts += [(f"offer {o.offer_id} shown", s) for o in view.offers for s in o.shown]
    parts.append(("config.options", view.config.options))
    for name, part in parts:
        if isinstance(part, dict | list):
            try:
                if isinstance(part, dict):
                    part["__probe__"] = None
                else:
                    part.append(None)
            except TypeError:
                continue
            raise checker.fail(f"{name} of the view for {who} can be changed")
    if view.pending is not None:  # shared with the game's state and every other view
        try:
            view.pending.seat = -1
        except AttributeError:
            pass
        else:
            raise checker.fail(f"the pending decision in the view for {who} can be changed")
    try:
        view.config.players = 0  # type: ignore[misc]
    except (AttributeError, TypeError):
        return
    raise checker.fail(f"the config of the view for {who} can be changed")
