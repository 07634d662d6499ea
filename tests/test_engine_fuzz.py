"""Hostile input for the engine: a Hypothesis state machine over :class:`bohnanza.Game`.

Every rule set and module, at every allowed player count, is driven by a mix of random
legal actions (from waiting seats and from any seat) and hostile ones: wrong seats, wrong
phases, cards that do not exist or that the actor cannot see, offers with bad fields,
negative and huge numbers, actions parsed from random JSON-like values, and objects that
are not actions at all. Why each property matters:

* a hostile action must raise a :class:`bohnanza.errors.BohnanzaError` (anything else
  would be a crash in the server, which passes ``str(exc)`` back to the client) and leave
  the state exactly as it was (``to_dict()`` equal), because the server relies on
  "rejected means nothing happened";
* whether an action is refused, and the message that says why, may depend only on what
  the actor may see: the same action is checked again on a copy of the game in which the
  cards hidden from the actor are shuffled among their places, and must get the same
  answer - otherwise error messages would be an oracle for hidden cards (R-INFO-3); the
  message also may not name the id of a hidden card the actor did not name itself;
* a well-formed action is legal exactly when it equals an action ``legal_actions`` lists
  (:func:`listing_disagrees`): the same value, compared with ``==``, since the engine
  refuses a field an action's type does not name (:func:`bohnanza.actions.takes`);
  only offers, acceptances and a buy naming its chosen coins are sampled by the listing;
* after every step the checker's invariants hold (card conservation, structure, views
  without leaks, save/load equality, legal actions agreeing with ``check``), and at the
  end the record of the accepted actions replays to the same state.

Size: ``BOHNANZA_FUZZ_EXAMPLES`` (default 15, 100 in the long mode, split among the rule sets by their number
of configurations: one Hypothesis run each, at least 8 examples, 3 outside the long mode)
runs of
``BOHNANZA_FUZZ_STEPS`` (default 50) steps; derandomized and without an example
database, so CI runs the same inputs each time. Each rule set's inputs, games and
seconds are printed as its run ends, the sum at the end (run with ``-s`` to see them).
The long mode run before a release, and what it ran, is in docs/reliability.md
("Hostile input").
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import time
from collections import Counter
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from bohnanza import Action, Game
from bohnanza.actions import ActionType, Offer, shape_error, takes
from bohnanza.errors import BohnanzaError
from bohnanza.game import OVER, TRADE
from bohnanza.modules.fasolufka import MOVE_LADY_TYPE
from bohnanza.records import make_record, replay
from bohnanza.rules import all_rulesets
from bohnanza.testing.checker import CHEAP, InvariantChecker
from bohnanza.testing.helpers import assert_conserved, give_coins
from long_mode import LONG, size
from test_random_play import CONFIGS, Config

EXAMPLES = size("BOHNANZA_FUZZ_EXAMPLES", 15, 100)
STEPS = int(os.environ.get("BOHNANZA_FUZZ_STEPS", "50"))
#: ``BOHNANZA_FUZZ_SHRINK=0`` reports failures unshrunk (shrinking a long game can take
#: many minutes; useful while hunting several bugs at once).
#: ``BOHNANZA_FUZZ_SEED=N``: a run drawn from seed N (per rule set) instead of CI's fixed
#: draws, so that a long run can be played in chunks of distinct inputs, each a separate
#: process whose printed totals add up (docs/reliability.md, "Long mode").
SEED = os.environ.get("BOHNANZA_FUZZ_SEED")
PHASES = tuple(
    p for p in Phase if os.environ.get("BOHNANZA_FUZZ_SHRINK", "1") != "0" or p is not Phase.shrink
)

#: What the runs did, summed over every example (printed, and asserted to be non-trivial).
COUNTS: Counter[str] = Counter()
#: Rejection messages with numbers and quoted values blanked out: which checks were reached.
REASONS: Counter[str] = Counter()

_T = ActionType
#: Action types whose space ``legal_actions`` only samples (offer templates, capped accept
#: choices): for these "listed exactly when legal" does not hold by design.
_SAMPLED = frozenset({_T.PROPOSE, _T.ACCEPT})


def listing_disagrees(game: Game, seat: int, action: Action, answer: str | None) -> str | None:
    """Why ``check``'s ``answer`` to a well-formed ``action`` disagrees with
    ``legal_actions``, or None. The listing and the check speak of the same values: an
    action is legal exactly when it equals a listed one (a field its type does not name
    is refused by its shape, :func:`bohnanza.actions.takes`). Only where the listing
    samples a space does one listed value stand for many: offers, acceptances, and a buy
    naming its coins where the buyer chooses them (R-LADY-10), listed as the template
    ``Action.buy_field()`` - legal only if the template is."""
    if action.type in _SAMPLED or game.over:
        return None
    legal = game.legal_actions(seat)
    if action.type is _T.BUY_FIELD and action.cards and game.hooks.info.buyer_chooses_coins:
        if answer is None and Action.buy_field() not in legal:
            return f"{action!r} for seat {seat} passes check but the buy is not listed"
        return None
    listed = action in legal
    if listed == (answer is None):
        return None
    return (
        f"{action!r} for seat {seat}: check says {answer or 'legal'} but "
        f"legal_actions {'lists' if listed else 'does not list'} it"
    )


HUGE = (2**31, 2**63, 10**30, -(2**63))
#: Numbers a hostile client likes: edges, negatives, huge values, and plain small ones.
numbers = st.one_of(st.integers(-3, 12), st.sampled_from(HUGE), st.integers(-(10**40), 10**40))
#: JSON-like values of every type, for fields that expect something else.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | numbers
    | st.floats(allow_nan=True)
    | st.text(max_size=8)
    | st.sampled_from(["plant", "red", "black", "blue", "1", ""]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


def _json_ints(value: Any) -> set[int]:
    """Every integer anywhere in a JSON-like value (what the actor itself named)."""
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, dict):
        out: set[int] = set()
        for k, v in value.items():
            out |= _json_ints(k) | _json_ints(v)
        return out
    if isinstance(value, list | tuple):
        return set().union(*(_json_ints(v) for v in value)) if value else set()
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value):
        return {int(value)}
    return set()


def _hidden_from(game: Game, checker: InvariantChecker, seat: int) -> set[int]:
    return set(range(game.config.deck_size)) - checker.allowed(seat)


def _shuffled_hidden(game: Game, seat: int, rng: random.Random, named: set[int]) -> Game:
    """A copy of ``game`` that ``seat`` cannot tell apart from it: the cards in the draw
    pile, in the other seats' hands and in the other seats' treasuries trade places at
    random (cards given in open offers stay, since their varieties are shown). Each card
    in ``named`` that is among them moves to another pile, so that an answer that tells
    where a card the actor named lies differs between the two."""
    g = game.clone()
    offered = {c for _, o in g.offers.values() for c in o.give}
    piles = [g.draw]
    for s in range(g.players):
        if s != seat:
            piles += [g.hands[s], g.treasury[s]]
    slots = [(k, i) for k, pile in enumerate(piles) for i, c in enumerate(pile) if c not in offered]
    cards = [piles[k][i] for k, i in slots]
    where = {c: k for (k, _), c in zip(slots, cards, strict=True)}
    rng.shuffle(cards)
    for n, c in enumerate(cards):
        if c in named and c in where:
            elsewhere = [m for m, (k, _) in enumerate(slots) if k != where[c]]
            if elsewhere:
                m = rng.choice(elsewhere)
                cards[n], cards[m] = cards[m], cards[n]
    for (k, i), c in zip(slots, cards, strict=True):
        piles[k][i] = c
    return g


def _answer(game: Game, seat: Any, action: Any) -> str | None:
    """None if ``check`` accepts, else its message and the reason it carries (its code and
    details, which the pages word: they may not depend on hidden cards either); any
    non-Bohnanza exception fails."""
    try:
        game.check(seat, action)
    except BohnanzaError as exc:
        return _said(exc)
    except Exception as exc:
        raise AssertionError(
            f"check({seat!r}, {action!r}) raised {type(exc).__name__}: {exc}"
        ) from exc
    return None


def _said(exc: BohnanzaError) -> str:
    """What a refusal says: its message, and the code and details it carries."""
    refusal = getattr(exc, "refusal", None)
    if refusal is not None:
        return f"{type(exc).__name__}: {exc} [{refusal.code} {sorted(refusal.details.items())}]"
    return f"{type(exc).__name__}: {exc}"


#: "card 12", "cards [3, 4]", "child 7": where a message names card ids.
_CARD_NUMBERS = re.compile(r"\b(?:card|child|lady)s?\s+\[?(-?\d+(?:,\s*-?\d+)*)(?![\w.])")


#: The configurations the running test fuzzes: one rule set's (set by the test; one
#: Hypothesis run per rule set, so that every rule set is fuzzed whatever the draws).
_GROUP: list[Config] = list(CONFIGS)
#: Totals over the rule sets' runs, for the final check.
TOTALS: Counter[str] = Counter()


class EngineFuzz(RuleBasedStateMachine):
    """One game per example; rules pick legal and hostile actions from random seats."""

    game: Game
    checker: InvariantChecker
    rng: random.Random
    actions: list[tuple[int, Action]]

    @initialize(pick=st.integers(0, 2**16), seed=st.integers(0, 2**31 - 1))
    def start(self, pick: int, seed: int) -> None:
        rules, players, options = _GROUP[pick % len(_GROUP)]
        self.game = Game.new(rules, players, options=options, seed=seed)
        where = f"fuzz({rules!r}, {players}, seed={seed}, options={options})"
        self.checker = InvariantChecker(self.game, CHEAP, where, random.Random(seed))
        self.rng = random.Random(seed ^ 0x5EED)
        self.actions = []
        COUNTS["games"] += 1
        COUNTS[f"rules:{rules}"] += 1

    # ---------------------------------------------------------------- legal play

    def _play(self, seat: int, action: Action) -> None:
        before = self.game.to_dict()
        try:
            self.game.apply(seat, action)
        except BohnanzaError as exc:
            raise AssertionError(f"listed {action!r} of seat {seat} is refused: {exc}") from None
        assert self.game.to_dict() != before or action.type is MOVE_LADY_TYPE, (
            f"{action!r} by seat {seat} was accepted but changed nothing"
        )
        self.actions.append((seat, action))
        COUNTS["legal"] += 1

    @precondition(lambda self: not self.game.over)
    @rule(data=st.data())
    def legal_from_any_seat(self, data: st.DataObject) -> None:
        """A listed action of a random seat (a waiting seat half of the time)."""
        g = self.game
        waiting = g.waiting_for()
        seats = waiting if waiting and data.draw(st.booleans()) else list(range(g.players))
        seat = data.draw(st.sampled_from(seats), label="seat")
        legal = g.legal_actions(seat)
        if not legal:
            COUNTS["no_legal_action"] += 1
            return
        self._play(seat, data.draw(st.sampled_from(legal), label="action"))

    @precondition(lambda self: not self.game.over)
    @rule(steps=st.integers(1, 60), data=st.data())
    def fast_forward(self, steps: int, data: st.DataObject) -> None:
        """Let the waiting seats play on (no proposals, few harvests), so that examples
        reach later turns, reshuffles, pending decisions and the end of the game; often
        stop as soon as a given phase (trading, most of the time) is reached."""
        g = self.game
        phases = sorted(g.hooks.phases - {OVER})
        until = data.draw(st.sampled_from([None, *phases, TRADE, TRADE]), label="until")
        for _ in range(steps):
            if g.over or (g.phase == until and self.rng.random() < 0.9):
                return
            seat = g.waiting_for()[0]
            legal = [a for a in g.legal_actions(seat, offers=False) if a.type is not _T.ACCEPT]
            calm = [a for a in legal if a.type not in (_T.HARVEST, _T.DECLINE)]
            pool = calm if calm and self.rng.random() < 0.8 else legal
            self._play(seat, self.rng.choice(pool))
        if g.phase == TRADE and not g.over:  # open a few offers to accept or refuse
            for seat in self.rng.sample(range(g.players), min(2, g.players)):
                offers = [a for a in g.legal_actions(seat) if a.type is _T.PROPOSE]
                if offers:
                    self._play(seat, self.rng.choice(offers))

    def _to_trading(self) -> None:
        """Play on to the next trade phase (most checks of offers apply only there)."""
        g = self.game
        for _ in range(40):
            if g.over or g.phase == TRADE:
                return
            seat = g.waiting_for()[0]
            legal = g.legal_actions(seat, offers=False)
            calm = [a for a in legal if a.type is not _T.HARVEST]
            self._play(seat, self.rng.choice(calm or legal))

    # ---------------------------------------------------------------- hostile input

    def _hostile(self, seat: Any, action: Any, named: set[int]) -> None:
        """``action`` from ``seat``: refused with a BohnanzaError and no change, its
        answer independent of hidden cards; or, if it happens to be legal, carried out."""
        g = self.game
        COUNTS["hostile"] += 1
        before = g.to_dict()
        answer = _answer(g, seat, action)
        assert g.to_dict() == before, f"check({seat!r}, {action!r}) changed the state"
        valid_seat = type(seat) is int and 0 <= seat < g.players
        if valid_seat and type(action) is Action:
            mentioned = named | _json_ints(action)
            other = _shuffled_hidden(g, seat, self.rng, mentioned)
            again = _answer(other, seat, action)
            assert again == answer, (
                f"seat {seat}'s {action!r} gets {answer!r}, but {again!r} once the cards hidden "
                "from it are shuffled: the answer depends on hidden cards (R-INFO-3)"
            )
            if answer is not None:
                hidden = _hidden_from(g, self.checker, seat) - mentioned
                for group in _CARD_NUMBERS.findall(answer):
                    for n in re.findall(r"-?\d+", group):
                        assert int(n) not in hidden, (
                            f"the error {answer!r} for seat {seat} names card {n}, hidden from it"
                        )
            if shape_error(action) is not None:
                assert answer is not None, f"malformed {action!r} of seat {seat} passes check"
            else:
                disagreement = listing_disagrees(g, seat, action, answer)
                assert disagreement is None, disagreement
        if answer is None:
            COUNTS["hostile_but_legal"] += 1
            self._play(seat, action)
            return
        COUNTS["rejected"] += 1
        REASONS[re.sub(r"\d+|'[^']*'|\[.*?\]|\(.*?\)", "#", answer.split(": ", 2)[-1])[:60]] += 1
        try:
            g.apply(seat, action)
        except BohnanzaError as exc:
            assert _said(exc) == answer, "apply and check disagree"
        except Exception as exc:
            raise AssertionError(
                f"apply({seat!r}, {action!r}) raised {type(exc).__name__}: {exc}"
            ) from exc
        else:
            raise AssertionError(f"apply accepted {action!r} of seat {seat}, which check refused")
        assert g.to_dict() == before, f"the refused {action!r} of seat {seat!r} changed the state"

    def _cards(self) -> st.SearchStrategy[int]:
        """Card ids from every place (own, hidden, public), and ids that do not exist."""
        g = self.game
        places = [
            g.draw,
            g.discard,
            g.drawn,
            *g.hands,
            *g.treasury,
            *g.trade,
            *(f for fs in g.fields for f in fs),
            g.hooks.extra_cards(g),
        ]
        real = [c for p in places for c in p]
        bad = [-1, g.config.deck_size, g.config.deck_size + 1, *HUGE]
        return st.sampled_from(real) | st.sampled_from(bad) if real else st.sampled_from(bad)

    def _offer_ids(self) -> st.SearchStrategy[int]:
        g = self.game
        return st.sampled_from([*g.offers, g.next_offer_id, 0, -1, *HUGE])

    def _offers(self) -> st.SearchStrategy[Offer]:
        g = self.game
        varieties = list(g.config.varieties)
        return st.builds(
            Offer,
            to=st.integers(-1, g.players) | st.sampled_from(HUGE),
            give=st.lists(self._cards(), max_size=14).map(tuple),
            want=st.lists(
                st.tuples(
                    st.sampled_from([*varieties, "no-bean", ""]) | st.text(max_size=5),
                    numbers,
                ),
                max_size=4,
            ).map(tuple),
            declared=st.lists(st.sampled_from(["", "red", "black", "green", "x"]), max_size=4).map(
                tuple
            ),
        )

    def _seats(self) -> st.SearchStrategy[Any]:
        g = self.game
        return st.integers(0, g.players - 1) | st.sampled_from(
            [-1, g.players, 2**63, True, None, "0", 0.0]
        )

    @rule(data=st.data())
    def hostile_action(self, data: st.DataObject) -> None:
        """A well-typed action with hostile values, from a random seat."""
        seat = data.draw(self._seats(), label="seat")
        kind = data.draw(st.sampled_from(list(ActionType)), label="type")
        fields = st.integers(-2, 4) | st.sampled_from(HUGE)
        own = takes(kind)

        def value(name: str, values: st.SearchStrategy[Any], default: Any) -> Any:
            """A field the type names gets any value; one it does not name (refused by
            the action's shape) only now and then, so that most draws reach the rules."""
            if name in own or data.draw(st.integers(0, 9), label=f"{name} given") == 0:
                return data.draw(values, label=name)
            return default

        action = Action(
            kind,
            field=value("field", st.none() | fields, None),
            card=value("card", st.none() | self._cards(), None),
            offer_id=value("offer_id", st.none() | self._offer_ids(), None),
            cards=tuple(value("cards", st.lists(self._cards(), max_size=14), ())),
            offer=value("offer", st.none() | self._offers(), None),
        )
        self._hostile(seat, action, set())

    @rule(data=st.data())
    def hostile_offer(self, data: st.DataObject) -> None:
        """Offers and acceptances that are almost right: a real partner and the seat's own
        cards, with one thing wrong (a card from elsewhere - often hidden from the seat -,
        a card twice, a bad want or declaration), so that every check is reached."""
        g = self.game
        if g.phase != TRADE and g.hooks.trading and data.draw(st.integers(0, 9), label="move"):
            self._to_trading()
        seat = data.draw(st.sampled_from([g.active, *range(g.players)]), label="seat")
        mine = g.tradeable(seat)
        own = st.lists(st.sampled_from(mine), max_size=4, unique=True) if mine else st.just([])
        give: list[int] = data.draw(own, label="own cards")
        if data.draw(st.booleans(), label="foreign card"):
            give.insert(data.draw(st.integers(0, len(give))), data.draw(self._cards()))
        if give and data.draw(st.booleans(), label="twice"):
            give.append(give[0])
        if data.draw(st.booleans(), label="accept") and g.offers:
            oid = data.draw(st.sampled_from(sorted(g.offers)), label="offer_id")
            action = Action.accept(oid, tuple(give))
        else:
            partners = [p for p in range(g.players) if p != seat]
            if seat != g.active:
                partners = [g.active] if g.active != seat else partners
            varieties = st.sampled_from(g.config.varieties)
            want = data.draw(
                st.lists(
                    st.tuples(varieties, st.integers(-1, 3) | st.sampled_from(HUGE)), max_size=3
                )
                | st.lists(st.tuples(varieties, st.just(1)), max_size=2, unique_by=lambda w: w[0]),
                label="want",
            )
            declared = data.draw(
                st.just(())
                | st.lists(
                    st.sampled_from(["", "red", "black", "x"]),
                    min_size=len(give),
                    max_size=len(give),
                ).map(tuple)
                | st.lists(st.sampled_from(["", "red", "black"]), max_size=3).map(tuple),
                label="declared",
            )
            to = data.draw(st.sampled_from(partners) | st.integers(-1, g.players), label="to")
            action = Action.propose(Offer(to, tuple(give), tuple(want), declared))
        self._hostile(seat, action, set())

    @rule(data=st.data())
    def hostile_json(self, data: st.DataObject) -> None:
        """An action parsed from a random JSON-like value (what the server receives)."""
        g = self.game
        kind = st.sampled_from([t.value for t in ActionType]) | json_values
        key = st.sampled_from(["type", "field", "card", "offer_id", "cards", "offer"])
        value = st.one_of(json_values, self._cards(), st.lists(self._cards(), max_size=5))
        raw = data.draw(
            st.fixed_dictionaries({"type": kind}, optional={"x": json_values})
            | st.dictionaries(key, value, max_size=5).map(lambda d: {"type": "propose", **d})
            | st.builds(
                lambda to, give, want, declared: {
                    "type": "propose",
                    "offer": {"to": to, "give": give, "want": want, "declared": declared},
                },
                json_values,
                st.lists(self._cards(), max_size=5) | json_values,
                json_values | st.lists(st.tuples(st.text(max_size=6), json_values).map(list)),
                json_values,
            )
            | json_values,
            label="json",
        )
        raw = json.loads(json.dumps(raw))  # exactly what a network client can send
        COUNTS["json"] += 1
        try:
            action = Action.from_json(raw)
        except BohnanzaError:
            COUNTS["json_refused"] += 1
            return
        except Exception as exc:
            raise AssertionError(f"Action.from_json({raw!r}) raised {type(exc).__name__}") from exc
        seat = data.draw(st.integers(0, g.players - 1), label="seat")
        self._hostile(seat, action, _json_ints(raw))

    @rule(data=st.data())
    def not_an_action(self, data: st.DataObject) -> None:
        """Objects that are not actions, and actions whose fields have the wrong types."""
        g = self.game
        ints = st.integers(-1, g.players) | self._cards()
        junk = data.draw(
            json_values
            | st.builds(
                Action,
                st.sampled_from(list(ActionType)) | json_values,
                field=json_values | st.integers(-1, 3) | st.just(True),
                card=json_values | self._cards() | st.just(True),
                offer_id=json_values | self._offer_ids() | st.just(True),
                cards=st.lists(json_values | ints, max_size=3).map(tuple) | json_values,
                offer=json_values
                | st.builds(
                    Offer,
                    to=json_values | ints,
                    give=st.lists(json_values | ints, max_size=3).map(tuple) | json_values,
                    want=st.lists(
                        json_values | st.tuples(st.sampled_from(g.config.varieties), json_values),
                        max_size=3,
                    ).map(tuple)
                    | json_values,
                    declared=st.lists(json_values, max_size=3).map(tuple) | json_values,
                ),
            ),
            label="junk",
        )
        seat = data.draw(st.integers(0, g.players - 1), label="seat")
        self._hostile(seat, cast(Action, junk), _json_ints(junk))

    # ---------------------------------------------------------------- invariants

    @invariant()
    def consistent(self) -> None:
        assert_conserved(self.game)
        self.checker.conservation()
        self.checker.structure()

    @invariant()
    def heavy_checks(self) -> None:
        """Leak-free views, save/load equality, legal actions agreeing with check."""
        COUNTS["full_checks"] += 1
        self.checker.full()

    def teardown(self) -> None:
        if not hasattr(self, "game"):
            return
        again = replay(json.loads(json.dumps(make_record(self.game, self.actions))))
        assert again == self.game, "the record of the accepted actions replays differently"
        COUNTS["finished"] += self.game.over


RULESETS = [entry["rules"] for entry in all_rulesets()]
#: One xdist worker runs every rule set's fuzz run, so that the last one sees the totals.
pytestmark = pytest.mark.xdist_group("engine_fuzz")


def _examples(rules: str) -> int:
    """This rule set's share of ``EXAMPLES`` (by its number of configurations), at least 8
    in the long mode, 3 otherwise."""
    mine = sum(1 for r, _, _ in CONFIGS if r == rules)
    return max(8 if LONG else 3, round(EXAMPLES * mine / len(CONFIGS)))


@pytest.mark.parametrize("rules", RULESETS)
def test_engine_survives_hostile_input(rules: str, capsys: pytest.CaptureFixture[str]) -> None:
    COUNTS.clear()
    _GROUP[:] = [c for c in CONFIGS if c[0] == rules]
    examples = _examples(rules)
    start = time.perf_counter()
    machine: type[EngineFuzz] = EngineFuzz
    if SEED is not None:  # a chunk of a long run: its own draws, reproducible from the seed
        machine = seed(int(SEED) * 1000 + RULESETS.index(rules))(
            type("EngineFuzz", (EngineFuzz,), {})
        )
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=examples,
            stateful_step_count=STEPS,
            derandomize=SEED is None,
            database=None,
            deadline=None,
            phases=PHASES,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
    TOTALS.update(COUNTS)
    TOTALS["runs"] += 1
    # every action given to check/apply, plus the JSON values the parser refused
    tried = COUNTS["legal"] + COUNTS["rejected"] + COUNTS["json_refused"]
    seconds = time.perf_counter() - start
    with capsys.disabled():
        if os.environ.get("BOHNANZA_FUZZ_VERBOSE"):
            print(dict(COUNTS))
            for reason, n in REASONS.most_common():
                print(f"{n:6}  {reason}")
        print(
            f"\nengine fuzz {rules}{'' if SEED is None else f' (seed {SEED})'}: {tried} inputs in {COUNTS['games']} games "
            f"({examples} examples of up to {STEPS} steps, {seconds:.0f} s) "
            f"({COUNTS['legal']} legal actions, {COUNTS['hostile']} hostile actions of which "
            f"{COUNTS['rejected']} refused, {COUNTS['json']} JSON inputs of which "
            f"{COUNTS['json_refused']} refused by the parser; {COUNTS['full_checks']} full "
            f"checks, {COUNTS['finished']} games finished)"
        )
    # The run must have exercised this rule set (the player counts are Hypothesis's
    # draws), and hostile input.
    assert COUNTS[f"rules:{rules}"] > 0
    assert COUNTS["rejected"] > 10 * examples
    # JSON inputs are a few percent of the draws: a small run of one rule set (the duel's
    # 8 examples at CI's size) may draw none the parser refuses; all the runs together
    # must: the last rule set's run checks the totals, whichever it is (the tests run in
    # a random order, on one xdist worker: ``pytestmark``).
    if TOTALS["runs"] == len(RULESETS):
        with capsys.disabled():
            check_totals()


def check_totals() -> None:
    """Over all the rule sets' runs: games were played to their end too (the end-of-game
    checks ran), not only cut off after ``STEPS`` steps."""
    tried = TOTALS["legal"] + TOTALS["rejected"] + TOTALS["json_refused"]
    print(f"\nengine fuzz, all rule sets: {tried} inputs in {TOTALS['games']} games")
    assert TOTALS["finished"] > 0
    assert TOTALS["rejected"] > 10 * EXAMPLES
    assert TOTALS["json_refused"] > 0


@pytest.mark.patches_engine
def test_the_oracle_catches_an_answer_that_depends_on_hidden_cards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fuzz test can fail: an engine whose refusal tells where a named card lies
    (here: "it is in the draw pile") is caught by the shuffled-copy comparison."""
    from bohnanza.errors import Refusal
    from bohnanza.modules.operations import ProposeRule

    honest = ProposeRule.offer_refusal

    def leaky(self: ProposeRule, game: Game, seat: int, offer: Offer) -> Refusal | None:
        refused = honest(self, game, seat, offer)
        if refused is not None and set(offer.give) & set(game.draw):
            return dataclasses.replace(refused, why=f"{refused.why} (it is in the draw pile)")
        return refused

    monkeypatch.setattr(ProposeRule, "offer_refusal", leaky)
    machine = EngineFuzz()
    _GROUP[:] = [("classic", 3, {})]
    machine.start(0, 1)
    g = machine.game
    machine._to_trading()
    hidden = g.draw[len(g.draw) // 2]
    with pytest.raises(AssertionError, match="depends on hidden cards"):
        machine._hostile(g.active, Action.propose(Offer((g.active + 1) % 3, (hidden,))), set())


@pytest.mark.parametrize(
    ("rules", "coins", "legal"),
    [
        # issue 37: the listing was compared with a copy of the buy that its own field
        # table had stripped of the coin list, so this refused buy counted as "listed"
        ("first-edition", (105, 10**30, 105), False),
        ("first-edition", "own", False),  # R-FIELD-3: the top of the treasury pays
        ("fasolki+fasolufka", "own", True),  # R-LADY-10: any three of one's coins
        ("fasolki+fasolufka", (105, 10**30, 105), False),
    ],
)
def test_a_buy_naming_coins_agrees_with_the_listing(
    rules: str, coins: tuple[int, ...] | str, legal: bool
) -> None:
    """A buy naming coins is compared as itself, through the fuzz test's own path: in
    first-edition it is refused and not listed (R-FIELD-3); in Fasolufka three of the
    buyer's coins pass, and the listed template ``Action.buy_field()`` stands for them."""
    machine = EngineFuzz()
    _GROUP[:] = [(rules, 3, {})]
    machine.start(0, 1)
    g = machine.game
    seat = g.active
    mine = give_coins(g, seat, g.config.field_price)
    assert Action.buy_field() in g.legal_actions(seat)
    buy = Action.buy_field(tuple(reversed(mine)) if coins == "own" else cast(tuple[int], coins))
    answer = _answer(g, seat, buy)
    assert (answer is None) == legal, answer
    if rules == "first-edition":
        assert answer is not None and "R-FIELD-3" in answer
    assert listing_disagrees(g, seat, buy, answer) is None
    before = g.to_dict()
    machine._hostile(seat, buy, set())  # the whole hostile-input path, as the fuzz runs it
    assert (g.to_dict() == before) != legal


def test_a_field_its_type_does_not_name_is_refused_and_not_listed() -> None:
    """A listed plant with a card added is another value: refused by its shape (before,
    ``check`` ignored the card, so an action it accepted was not the one listed)."""
    machine = EngineFuzz()
    _GROUP[:] = [("classic", 3, {})]
    machine.start(0, 1)
    g = machine.game
    seat = g.active
    plant = g.legal_actions(seat)[0]
    extra = plant._replace(card=g.hands[seat][0])
    answer = _answer(g, seat, extra)
    assert answer is not None and "plant takes no card" in answer
    assert listing_disagrees(g, seat, extra, answer) is None
    assert listing_disagrees(g, seat, plant, None) is None
    before = g.to_dict()
    machine._hostile(seat, extra, set())
    assert g.to_dict() == before
