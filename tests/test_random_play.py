"""Random play through the invariant checker (:mod:`bohnanza.testing.checker`), over every rule set
and every allowed player count (with every required option), including modules: a module
is checked as soon as :func:`bohnanza.rules.all_rulesets` lists it. Test ids start with
``base-`` or ``module-``; ``-k "not module"`` leaves the modules out.

Sizes: ``BOHNANZA_CHECK_GAMES`` (default 120, 250 in the long mode) bulk games, spread over all configurations,
with cheap checks after every action and the heavy checks at a random sample of actions;
plus one game per configuration with every check after every action (the first of each
rule set only, outside the long mode), and a Hypothesis
test (``BOHNANZA_CHECK_EXAMPLES`` examples, default 10, 20 in the long mode). Bulk and full games run on
``BOHNANZA_CHECK_WORKERS`` processes (default: every core this process may use), or,
when pytest-xdist spreads the tests over its workers (the README's test command), each
configuration's games in its own test, so that the workers share them out. The bulk
games' seeds start at ``BOHNANZA_CHECK_SEED`` (default 1000): CI plays 120 games on the
pure build (and 250 in its long stage) and 600 others (seeds from 500,000) on the compiled one, because the compiled
build plays them about twice as fast; the long mode is ``BOHNANZA_CHECK_GAMES=5000``
(docs/testing.md).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bohnanza import Action, Game
from bohnanza.errors import Refusal
from bohnanza.game import ModuleState
from bohnanza.modules.base import Hooks
from bohnanza.modules.operations import HarvestRule
from bohnanza.rules import all_rulesets
from bohnanza.simulate import GameSpec, play_one
from bohnanza.testing.checker import (
    CHEAP,
    FULL,
    Checks,
    Configuration,
    GameStats,
    InvariantError,
    check_game,
    check_random_games,
    configurations,
    option_sets,
    position,
)
from bohnanza.testing.helpers import apply_all
from long_mode import size

Config = Configuration


def config_id(config: Config) -> str:
    rules, players, options = config
    kind = "module" if "+" in rules else "base"
    opts = "".join(f"-{k}={v}" for k, v in sorted(options.items()))
    return f"{kind}-{rules}-{players}p{opts}"


CONFIGS = configurations()
IDS = [config_id(c) for c in CONFIGS]
BULK_GAMES = size("BOHNANZA_CHECK_GAMES", 120, 250)
PER_CONFIG = max(1, math.ceil(BULK_GAMES / len(CONFIGS)))
WORKERS = int(
    os.environ.get("BOHNANZA_CHECK_WORKERS", "0")
    or (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
)
SEED_BASE = int(os.environ.get("BOHNANZA_CHECK_SEED", "1000"))
HYPOTHESIS_EXAMPLES = size("BOHNANZA_CHECK_EXAMPLES", 10, 20)

#: Agent mixes, repeated to fill the seats; random agents trade (slow, many actions),
#: autarky agents do not (fast). Bulk games cycle through these by seed.
MIXES = ("autarky", "random,autarky", "autarky,random", "autarky,autarky,random", "random")


def test_configurations_cover_every_rule_set_and_player_count() -> None:
    covered = {(r, p) for r, p, _ in CONFIGS}
    for entry in all_rulesets():
        for p in range(entry["min_players"], entry["max_players"] + 1):
            assert (entry["rules"], p) in covered
    base = {(r, p) for r, p, _ in CONFIGS if "+" not in r}
    assert base == {("classic", p) for p in range(3, 8)} | {
        (r, p) for r in ("first-edition", "fasolki") for p in range(3, 6)
    }
    # R-NEW-45: both choices of the removed variety are checked with 4 and 5 players
    for p in (4, 5):
        opts = [o for r, n, o in CONFIGS if r == "fasolki+new-varieties" and n == p]
        assert opts == [{"remove": "glutton"}, {"remove": "farmer"}]


# ---------------------------------------------------------------------------- running games
#
# The games of all selected configurations run together on a process pool (one batch for
# the full-check games, one for the bulk), so that both cores stay busy; each
# parametrized test then asserts the results of its own configuration.

Job = tuple[str, int, int, dict[str, str], str, Checks]
Result = GameStats | str


def _run(job: Job) -> Result:
    """One checked game; a failure comes back as its message (picklable, keeps going)."""
    rules, players, seed, options, agents, checks = job
    try:
        return check_game(rules, players, seed, options, agents, checks)
    except InvariantError as exc:
        return str(exc)


def _selected(request: pytest.FixtureRequest, test: str) -> list[Config]:
    """The configurations of ``test`` that this session runs (after ``-k`` and friends)."""
    ids = {
        item.callspec.id
        for item in request.session.items
        if getattr(item, "originalname", None) == test
        and hasattr(item, "callspec")
        and not item.get_closest_marker("skip")  # the long mode's, among others
    }
    return [c for c, i in zip(CONFIGS, IDS, strict=True) if i in ids]


class _OnDemand(dict[str, list[Result]]):
    """Under pytest-xdist: a configuration's games are played when its test asks for
    them, in that test's worker (the workers already keep the cores busy, and a pool in
    each would play every configuration twice)."""

    def __init__(self, jobs: dict[str, list[Job]]) -> None:
        super().__init__()
        self.jobs = jobs

    def __missing__(self, key: str) -> list[Result]:
        self[key] = results = [_run(job) for job in self.jobs[key]]
        return results


def _run_all(jobs: dict[str, list[Job]]) -> dict[str, list[Result]]:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return _OnDemand(jobs)
    flat = [(key, job) for key, js in jobs.items() for job in js]
    # Interleave configurations, so that the costly ones do not all land at the end.
    flat.sort(key=lambda kj: (kj[1][2], kj[0]))
    if WORKERS > 1 and len(flat) > 1:
        with ProcessPoolExecutor(max_workers=WORKERS) as pool:
            results = list(pool.map(_run, [j for _, j in flat], chunksize=2))
    else:
        results = [_run(j) for _, j in flat]
    out: dict[str, list[Result]] = {key: [] for key in jobs}
    for (key, _), result in zip(flat, results, strict=True):
        out[key].append(result)
    return out


def _passed(results: Sequence[Result]) -> list[GameStats]:
    failures = [r for r in results if isinstance(r, str)]
    if failures:
        shown = "\n".join(f"  {f}" for f in failures[:5])
        pytest.fail(
            f"{len(failures)} of {len(results)} games broke an invariant:\n{shown}", pytrace=False
        )
    return [r for r in results if not isinstance(r, str)]


@pytest.fixture(scope="module")
def full_games(request: pytest.FixtureRequest) -> dict[str, list[Result]]:
    jobs: dict[str, list[Job]] = {}
    for i, (rules, players, options) in enumerate(_selected(request, "test_every_check")):
        mix = "random,autarky" if i % 2 == 0 else "autarky,random"
        jobs[config_id((rules, players, options))] = [(rules, players, 1, options, mix, FULL)]
    return _run_all(jobs)


@pytest.fixture(scope="module")
def bulk_games(request: pytest.FixtureRequest) -> dict[str, list[Result]]:
    jobs: dict[str, list[Job]] = {}
    for rules, players, options in _selected(request, "test_many_seeded_games"):
        js: list[Job] = []
        for i in range(PER_CONFIG):
            checks = dataclasses.replace(CHEAP, determinism=i % 4 == 0)
            js.append((rules, players, SEED_BASE + i, options, MIXES[i % len(MIXES)], checks))
        jobs[config_id((rules, players, options))] = js
    return _run_all(jobs)


def _every_check_params() -> list[Any]:
    """Every configuration, those after the first of each rule set in the long mode only:
    the full checks cost ten times the bulk's, which covers every configuration anyway."""
    first: set[str] = set()
    out = []
    for config, id_ in zip(CONFIGS, IDS, strict=True):
        marks = [pytest.mark.long] if config[0] in first else []
        first.add(config[0])
        out.append(pytest.param(config, id=id_, marks=marks))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("config", _every_check_params())
def test_every_check(config: Config, full_games: dict[str, list[Result]]) -> None:
    """A game per configuration with every check after every action (events too)."""
    stats = _passed(full_games[config_id(config)])
    for s in stats:
        assert s.full_checks == s.actions + 1  # after setup and after every action
        assert s.probes > 0


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_many_seeded_games(config: Config, bulk_games: dict[str, list[Result]]) -> None:
    """The bulk: cheap checks after every action, heavy ones at sampled actions and at the
    end; determinism (a second run) for one game in four."""
    stats = _passed(bulk_games[config_id(config)])
    assert len(stats) == PER_CONFIG
    assert all(s.actions <= CHEAP.max_actions for s in stats)  # every game ends (R-END-1)


@settings(
    max_examples=HYPOTHESIS_EXAMPLES,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # seeds do not shrink usefully
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    config=st.sampled_from(CONFIGS),
    seed=st.integers(min_value=0, max_value=2**32),
    mix=st.sampled_from(MIXES),
)
def test_hypothesis_games(config: Config, seed: int, mix: str) -> None:
    rules, players, options = config
    checks = dataclasses.replace(FULL, full_every=25, legal_sample=6, probes=8)
    check_game(rules, players, seed, options, mix, checks)


# ---------------------------------------------------------------------------- the checker itself


def test_checked_game_is_the_simulators_game() -> None:
    """The checker plays through the driver with the simulator's agent seeds, so a failure
    reproduces with ``bohnanza simulate`` as well."""
    stats = check_game("classic", 4, 5, agents="random,autarky", checks=CHEAP)
    outcome = play_one(GameSpec("classic", 4, (), stats.agents, None), 5)
    assert (outcome.scores, outcome.winners, outcome.turns, outcome.actions) == (
        stats.scores,
        stats.winners,
        stats.turns,
        stats.actions,
    )


def test_position_reproduces_a_point_of_a_game() -> None:
    game, actions = position("fasolki", 3, 9, 40, agents="random")
    assert len(actions) == 40
    fresh = Game.new("fasolki", 3, seed=9)
    apply_all(fresh, actions)
    assert fresh == game


def test_agent_mix_longer_than_the_table_is_cut() -> None:
    stats = check_game("fasolki+duel", 2, 3, agents="autarky,autarky,random", checks=CHEAP)
    assert stats.agents == ("autarky", "autarky")


def test_option_sets() -> None:
    entry = next(e for e in all_rulesets() if e["rules"] == "fasolki+new-varieties")
    assert option_sets(entry, 3) == [{}]
    assert option_sets(entry, 4) == [{"remove": "glutton"}, {"remove": "farmer"}]


def test_configurations_of_one_rule_set() -> None:
    assert configurations("fasolki+duel") == [("fasolki+duel", 2, {})]
    assert [c for c in CONFIGS if c[0] == "fasolki+new-varieties"] == configurations(
        ["fasolki+new-varieties"]
    )
    with pytest.raises(ValueError, match="no such rule set"):
        configurations("fasolki+no-such-module")


def test_check_random_games_checks_every_configuration_of_a_module() -> None:
    """The one call a new module's tests need (docs/testing.md)."""
    summary = check_random_games("fasolki+duel", games=2, seed=4, agents="autarky")
    assert summary.games == 2
    assert summary.by_rules == {"fasolki+duel/2": 2}
    assert summary.actions > 0


def test_a_game_that_cannot_be_created_is_a_failure() -> None:
    with pytest.raises(InvariantError, match="cannot be created"):
        check_game("fasolki+new-varieties", 4, 1, options=None, checks=CHEAP)


# Faults injected into the base hooks: the checker must notice each one, so that a
# passing run means something.

QUICK = dataclasses.replace(FULL, determinism=False)


def _expect(
    match: str,
    rules: str = "classic",
    players: int = 3,
    agents: str = "random",
    checks: Checks = QUICK,
) -> None:
    with pytest.raises(InvariantError, match=match):
        for seed in range(1, 4):
            check_game(rules, players, seed, agents=agents, checks=checks)


@pytest.mark.patches_engine
def test_checker_catches_a_lost_card(monkeypatch: pytest.MonkeyPatch) -> None:
    original = Hooks.pay_harvest

    def lossy(self: Hooks, game: Game, seat: int, field: int, coins: int, final: bool) -> None:
        game.fields[seat][field].pop()
        original(self, game, seat, field, coins, final)

    monkeypatch.setattr(Hooks, "pay_harvest", lossy)
    _expect("conservation", agents="autarky")


@pytest.mark.patches_engine
def test_checker_catches_an_offered_card_id(monkeypatch: pytest.MonkeyPatch) -> None:
    original = Hooks.offered_card

    def leaky(self: Hooks, game: Game, card: int, declared: str | None) -> dict[str, Any]:
        return {**original(self, game, card, declared), "id": card}

    monkeypatch.setattr(Hooks, "offered_card", leaky)
    _expect("R-INFO")


@pytest.mark.patches_engine
def test_checker_catches_a_hidden_kind_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    original = Hooks.offered_card

    def leaky(self: Hooks, game: Game, card: int, declared: str | None) -> dict[str, Any]:
        return {**original(self, game, card, declared), "kind": game.config.card_kind[card]}

    monkeypatch.setattr(Hooks, "offered_card", leaky)
    _expect("kind", rules="fasolki+fasolufka")


class _LogState(ModuleState):
    """Module state with a public part, so that views ask for it."""

    __slots__ = ("log",)
    public = True

    def __init__(self) -> None:
        super().__init__()
        self.log: list[int] = []

    def copy(self) -> _LogState:
        new = super().copy()
        new.log = self.log[:]
        return new


def _module_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Give the base game some module state, so that views ask for its public part."""
    monkeypatch.setattr(Hooks, "state_class", _LogState)


def _log(game: Game) -> list[int]:
    assert isinstance(game.extra, _LogState)
    return game.extra.log


@pytest.mark.patches_engine
def test_checker_catches_a_public_area_with_private_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    def peek(self: Hooks, game: Game, seat: int | None) -> dict[str, Any]:
        return {"next": game.draw[-1:]}

    _module_state(monkeypatch)
    monkeypatch.setattr(Hooks, "public_extra", peek)
    _expect("draw pile", agents="autarky")


@pytest.mark.patches_engine
def test_checker_catches_a_view_that_can_be_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Views are immutable (issue 14): a module's public state handed out as a plain dict
    could be changed by one reader under the others."""

    def writable(self: Hooks, game: Game, seat: int | None) -> dict[str, Any]:
        return {"log": list(_log(game))}

    _module_state(monkeypatch)
    monkeypatch.setattr(Hooks, "public_extra", writable)
    _expect("can be changed", agents="autarky")


@pytest.mark.patches_engine
def test_checker_catches_a_view_sharing_state(monkeypatch: pytest.MonkeyPatch) -> None:
    def alias(self: Hooks, game: Game, seat: int | None) -> dict[str, Any]:
        return {"log": _log(game)}

    _module_state(monkeypatch)
    monkeypatch.setattr(Hooks, "public_extra", alias)
    _expect("holds game.extra", agents="autarky")


@pytest.mark.patches_engine
def test_checker_catches_a_leaking_event(monkeypatch: pytest.MonkeyPatch) -> None:
    original = Hooks.end_phase3

    def noisy(self: Hooks, game: Game) -> None:
        if game.draw:
            game.emit("peek", card=game.draw[-1])
        original(self, game)

    monkeypatch.setattr(Hooks, "end_phase3", noisy)
    _expect("event", agents="autarky")


def test_checker_catches_a_clone_sharing_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    original = Game.clone

    def shallow(self: Game) -> Game:
        g = original(self)
        g.hands = self.hands
        return g

    monkeypatch.setattr(Game, "clone", shallow)
    _expect("clone", agents="autarky")


@pytest.mark.patches_engine
def test_checker_catches_an_unlisted_legal_action(monkeypatch: pytest.MonkeyPatch) -> None:
    original = HarvestRule.candidates

    def forgetful(self: HarvestRule, game: Game, seat: int, offers: bool) -> list[Action]:
        return [a for a in original(self, game, seat, offers) if a.field != 1]

    monkeypatch.setattr(HarvestRule, "candidates", forgetful)
    _expect("does not list", agents="autarky")


@pytest.mark.patches_engine
def test_checker_catches_an_illegal_action_let_through(monkeypatch: pytest.MonkeyPatch) -> None:
    def lax(self: HarvestRule, game: Game, seat: int, action: Action) -> Refusal | None:
        return None  # harvesting empty or protected fields, or fields that do not exist

    monkeypatch.setattr(HarvestRule, "refusal", lax)
    _expect("list|IndexError", agents="autarky")


@pytest.mark.patches_engine
def test_checker_catches_hand_reordering(monkeypatch: pytest.MonkeyPatch) -> None:
    original = Hooks.end_phase3

    def shuffle(self: Hooks, game: Game) -> None:
        original(self, game)
        for hand in game.hands:
            hand.reverse()

    monkeypatch.setattr(Hooks, "end_phase3", shuffle)
    _expect("R-SETUP-3", agents="autarky")


@pytest.mark.patches_engine
def test_checker_catches_a_legal_action_naming_a_hidden_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = HarvestRule.candidates

    def peeking(self: HarvestRule, game: Game, seat: int, offers: bool) -> list[Action]:
        acts = original(self, game, seat, offers)
        other = game.hands[(seat + 1) % game.players]
        return [*acts, Action.plant_traded(other[0], 0)] if other else acts

    monkeypatch.setattr(HarvestRule, "candidates", peeking)
    _expect("R-INFO-3|refuse", agents="autarky", checks=dataclasses.replace(QUICK, legal_sample=0))


def test_checker_catches_a_game_that_never_ends() -> None:
    checks = dataclasses.replace(CHEAP, max_actions=50)
    with pytest.raises(InvariantError, match=r"not over after 50|exceeded 50"):
        check_game("classic", 4, 1, agents="random", checks=checks)


def test_checker_catches_a_state_that_does_not_load(monkeypatch: pytest.MonkeyPatch) -> None:
    original = Game.from_dict

    def forgetful(cls: type[Game], data: Any) -> Game:
        game = original(data)
        game.planted = 0
        return game

    monkeypatch.setattr(Game, "from_dict", classmethod(forgetful))
    _expect("differs", agents="autarky")


# ---------------------------------------------------------------------------- engine bugs found


def test_first_edition_final_runout_in_phase_2_keeps_the_drawn_card() -> None:
    """Found by the checker (first-edition, 3–5 players, about half of all seeds): when
    turning over a drawn card empties the draw pile for the final time, R-END-2 ends a
    first-edition game at once, and that card vanished instead of being discarded with the
    other drawn cards (card conservation, §2b). Fixed since; kept as a regression test."""
    game = Game.new("first-edition", 3, seed=0)
    game.discard.extend(game.draw[:-1])
    del game.draw[:-1]  # one card left in the draw pile
    game.runouts = 2  # the next run-out is the final one (R-END-1)
    last = game.draw[-1]
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    assert game.over
    assert sorted(game.all_card_locations()) == list(range(game.config.deck_size))
    assert last in game.discard


def test_fasolufka_child_placed_by_another_seats_action_refreshes_the_cached_view() -> None:
    """Found by the checker (fasolki+fasolufka, 3–5 players, about 1 game in 100): a
    received child waits in the queue of pending decisions while another seat finishes a
    lady move; when that seat's ``move_lady`` lets the child be placed, the receiver's field
    changes, but ``Game.apply`` only refreshed the cached public view of the acting seat,
    the active seat and a trade partner. Bots (the driver hands them cached views) then see
    the receiver's old fields."""
    # Searched for rather than pinned to one seed: the situation arises in about one
    # 3-player random game in 50, and a pinned position breaks whenever the shuffle or a
    # bot's choices change.
    for seed in range(400):
        _, actions = position("fasolki+fasolufka", 3, seed, 10_000, agents="random")
        replay = Game.new("fasolki+fasolufka", 3, seed=seed)
        for seat, action in actions:
            pending, queue = replay.pending, replay.extra.queue
            waiting = [e for e in queue if e.kind == "place_child" and e.seat != seat]
            if pending and pending.kind == "move_lady" and pending.seat == seat and waiting:
                receiver = waiting[0].seat
                before = [f[:] for f in replay.fields[receiver]]
                for s in range(3):
                    replay.view(s, cached=True)  # fill the cache, as the driver does
                replay.apply(seat, action)
                if replay.fields[receiver] != before:  # the child was placed by this move
                    for s in range(3):
                        assert replay.view(s, cached=True) == replay.view(s)
                    return
            else:
                replay.apply(seat, action)
    pytest.fail("no lady move placed another seat's waiting child in 400 games")
