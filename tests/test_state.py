"""Saved states (``Game.to_dict`` / ``Game.from_dict``) and ``Game.clone``: exact round
trips at every kind of position in every rule set, ``RecordError`` for malformed states,
and clones that share nothing mutable with their original."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from bohnanza import Action, Game, RecordError
from bohnanza.errors import IllegalAction
from bohnanza.game import Pending
from bohnanza.rules import all_rulesets
from bohnanza.testing.checker import option_sets, position

Config = tuple[str, int, dict[str, str]]
Log = list[tuple[int, Action]]

CONFIGS: list[Config] = [
    (e["rules"], p, o)
    for e in all_rulesets()
    for p in range(e["min_players"], e["max_players"] + 1)
    for o in option_sets(e, p)
]
IDS = [
    f"{'module' if '+' in r else 'base'}-{r}-{p}p" + "".join(f"-{k}={v}" for k, v in o.items())
    for r, p, o in CONFIGS
]


@cache
def _log(rules: str, players: int, options: tuple[tuple[str, str], ...], seed: int) -> Log:
    """Every action of a seeded bot game (random and autarky seats)."""
    _, actions = position(rules, players, seed, 10**9, dict(options), "random,autarky")
    return actions


def game_log(config: Config, seed: int = 3) -> Log:
    rules, players, options = config
    return _log(rules, players, tuple(sorted(options.items())), seed)


def replayed(config: Config, actions: Log, seed: int = 3) -> Game:
    rules, players, options = config
    game = Game.new(rules, players, options=options, seed=seed)
    for seat, action in actions:
        game.apply(seat, action)
    return game


def through_json(game: Game) -> Game:
    return Game.from_dict(json.loads(json.dumps(game.to_dict())))


def interesting_points(actions: Log) -> list[int]:
    """Positions worth saving: the start, the first offer, the first phase-3 plant, a
    pending module decision or module action, a harvest, the middle and the end."""
    n = len(actions)
    points = {0, n // 2, n}
    kinds = {
        "propose",
        "plant_traded",
        "move_lady",
        "place_child",
        "plant_revealed",
        "discard",
        "harvest",
        "buy_field",
    }
    for i, (_, a) in enumerate(actions):
        if a.type.value in kinds:
            points.add(i)
            kinds.discard(a.type.value)
    return sorted(points)


# ---------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_save_and_load_round_trips_and_plays_on_identically(config: Config) -> None:
    actions = game_log(config)
    final = replayed(config, actions)
    assert final.over
    for i in interesting_points(actions):
        game = replayed(config, actions[:i])
        saved = game.to_dict()
        loaded = through_json(game)
        assert loaded == game
        assert loaded.to_dict() == saved
        assert json.loads(json.dumps(saved)) == saved  # plain JSON, nothing lost
        for seat in [*range(game.players), None]:
            assert loaded.view(seat).to_json() == game.view(seat).to_json()
            if seat is not None:
                assert loaded.legal_actions(seat) == game.legal_actions(seat)
        assert loaded.waiting_for() == game.waiting_for()
        # the loaded game (RNG included) continues exactly as the original did
        for seat, action in actions[i:]:
            loaded.apply(seat, action)
        assert loaded == final
        assert loaded.result() == final.result()


def test_to_dict_is_a_copy_and_from_dict_keeps_none_of_its_input() -> None:
    actions = game_log(CONFIGS[0])
    game = replayed(CONFIGS[0], actions[:40])
    before = game.to_dict()
    data = game.to_dict()
    loaded = Game.from_dict(data)
    for key in ("draw", "discard", "hands", "fields", "treasury", "trade", "drawn", "extra"):
        value = data[key]
        if isinstance(value, list):
            value.append([999] if value and isinstance(value[0], list) else 999)
        else:
            value["junk"] = 1
    data["rng"]["used"] += 1
    data["offers"].clear()
    assert game.to_dict() == before
    assert loaded.to_dict() == before


def test_a_finished_game_round_trips() -> None:
    config = CONFIGS[0]
    game = replayed(config, game_log(config))
    loaded = through_json(game)
    assert loaded == game and loaded.over and loaded.result() == game.result()
    assert all(loaded.legal_actions(s) == [] for s in range(game.players))


def test_states_compare_by_value() -> None:
    config = CONFIGS[0]
    actions = game_log(config)
    a = replayed(config, actions[:30])
    b = replayed(config, actions[:30])
    c = replayed(config, actions[:31])
    assert a == b and a is not b
    assert a != c
    assert a != a.to_dict()  # a Game never equals a plain dict
    with pytest.raises(TypeError):
        hash(a)  # mutable: not hashable


# ---------------------------------------------------------------------------- malformed states


def _state() -> dict[str, Any]:
    """A saved 4-player classic game in phase 2 with open offers."""
    config = next(c for c in CONFIGS if c[0] == "classic" and c[1] == 4)
    actions = game_log(config)
    for i in range(len(actions)):
        game = replayed(config, actions[:i])
        if game.offers and len(game.offers) >= 1 and game.phase == "trade":
            return game.to_dict()
    raise AssertionError("no position with an open offer")


_STATE = _state()

Corruption = Callable[[dict[str, Any]], object]


def _drop_last_seat(key: str) -> Corruption:
    """One list per seat fewer (the last seat's cards moved to seat 1: none is lost)."""

    def corrupt(d: dict[str, Any]) -> None:
        d[key][1].extend(d[key].pop())

    return corrupt


def _one_field(d: dict[str, Any]) -> None:
    fields = d["fields"][0]
    fields[1].extend(fields.pop(0))


def _foreign_offer(d: dict[str, Any]) -> None:
    offer = d["offers"][0]
    proposer = offer["proposer"]
    other = next(h for s, h in enumerate(d["hands"]) if s != proposer and h)
    offer["offer"]["give"] = [other[0]]  # a card of another seat's hand


MALFORMED: list[tuple[str, Corruption]] = [
    ("wrong-format", lambda d: d.update(format="bohnanza-record")),
    ("no-format", lambda d: d.pop("format")),
    *[
        (f"no-{key}", lambda d, key=key: d.pop(key))
        for key in _STATE
        if key not in ("format", "version")
    ],
    ("unknown-rules", lambda d: d.update(rules="poker")),
    ("players-out-of-range", lambda d: d.update(players=9)),
    ("players-list", lambda d: d.update(players=[4])),
    ("card-twice", lambda d: d["hands"][0].append(d["draw"][0])),
    ("card-missing", lambda d: d["draw"].pop()),
    ("card-unknown", lambda d: d["draw"].append(10_000)),
    ("card-text", lambda d: d["draw"].__setitem__(0, "blue")),
    ("hand-not-a-list", lambda d: d["hands"].__setitem__(0, 5)),
    ("rng-wrong-size", lambda d: d.update(rng=[3, [1, 2, 3], None])),
    ("rng-text", lambda d: d.update(rng="seed")),
    ("offers-not-a-list", lambda d: d.update(offers=7)),
    ("offer-malformed", lambda d: d["offers"][0].update(offer=[1, 2])),
    ("scores-number", lambda d: d.update(scores=3)),
    ("three-hands-for-four", _drop_last_seat("hands")),
    ("three-treasuries-for-four", _drop_last_seat("treasury")),
    ("three-trade-areas-for-four", _drop_last_seat("trade")),
    ("other-player-count", lambda d: d.update(players=5)),
]

#: States that load without a crash but break invariants every game relies on: one
#: active seat that exists, 2 or 3 fields per seat (R-FIELD-1), open offers only of cards
#: their proposer holds.
INCONSISTENT: list[tuple[str, Corruption]] = [
    ("active-seat-9", lambda d: d.update(active=9)),
    ("one-field", _one_field),
    ("four-fields", lambda d: d["fields"][0].extend([[], []])),
    ("offer-of-a-foreign-card", _foreign_offer),
]


@pytest.mark.parametrize(("name", "corrupt"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_a_malformed_state_raises_record_error(name: str, corrupt: Corruption) -> None:
    data = copy.deepcopy(_STATE)
    corrupt(data)
    with pytest.raises(RecordError):
        Game.from_dict(data)


@pytest.mark.parametrize(("name", "corrupt"), INCONSISTENT, ids=[m[0] for m in INCONSISTENT])
def test_an_inconsistent_state_raises_record_error(name: str, corrupt: Corruption) -> None:
    data = copy.deepcopy(_STATE)
    corrupt(data)
    with pytest.raises(RecordError):
        Game.from_dict(data)


@pytest.mark.parametrize(
    "data",
    [None, [], "bohnanza-state", 7, [("format", "bohnanza-state")]],
    ids=["none", "list", "text", "number", "pairs"],
)
def test_a_state_that_is_not_an_object_raises_record_error(data: Any) -> None:
    with pytest.raises(RecordError):
        Game.from_dict(data)


def test_the_untouched_state_loads() -> None:
    assert Game.from_dict(copy.deepcopy(_STATE)).to_dict() == _STATE


# ---------------------------------------------------------------------------- clones


def _mutate_everything(g: Game) -> None:
    """Change every mutable part of a game in place."""
    if g.draw:
        g.draw.append(g.draw.pop(0))
    g.discard.append(-1)
    g.out.append(-2)
    for pile in (*g.hands, *g.treasury, *g.trade, g.drawn):
        pile.append(-3)
    for fields in g.fields:
        fields[0].append(-4)
        fields.append([])
    g.offers.clear()
    g.extra.queue.append(Pending(0, "junk"))
    for name, value in g.extra.parts().items():
        if isinstance(value, list) and name != "queue":
            value.append(-5)
    g.rng.shuffle([1, 2, 3])
    g.active = (g.active + 1) % g.players
    g.turn += 100


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_a_clone_shares_nothing_with_its_original(config: Config) -> None:
    actions = game_log(config)
    for i in interesting_points(actions)[:-1]:
        game = replayed(config, actions[:i])
        before = game.to_dict()
        clone = game.clone()
        assert clone == game
        _mutate_everything(clone)
        assert game.to_dict() == before  # the clone's changes did not reach the original

        clone = game.clone()
        _mutate_everything(game)
        assert clone.to_dict() == before  # nor the original's changes the clone


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_a_clone_plays_on_like_its_original(config: Config) -> None:
    actions = game_log(config)
    final = replayed(config, actions)
    for i in interesting_points(actions)[:-1]:
        game = replayed(config, actions[:i])
        clone = game.clone()
        before = game.to_dict()
        for seat, action in actions[i:]:
            clone.apply(seat, action)  # reshuffles use the clone's own copy of the RNG
        assert clone == final
        assert game.to_dict() == before
        view = game.view(0).to_json()
        assert game.clone().view(0).to_json() == view


def test_a_clone_of_a_clone_and_a_loaded_clone_agree() -> None:
    config = next(c for c in CONFIGS if c[0] == "fasolki+fasolufka")
    actions = game_log(config)
    game = replayed(config, actions[: len(actions) // 3])
    assert game.clone().clone() == game == Game.from_dict(game.clone().to_dict())


@pytest.mark.parametrize("version", [0, 2, "1", None])
def test_a_state_of_another_version_raises_a_clear_record_error(version: Any) -> None:
    data = Game.new("classic", 3, seed=1).to_dict()
    data["version"] = version
    with pytest.raises(RecordError, match=r"unsupported saved-state version .*reads version 1"):
        Game.from_dict(data)


def test_event_recording_is_an_explicit_switch() -> None:
    """A new game records the events of every applied action; ``events=False`` (or
    ``record_events(False)``) plays without, and ``apply`` then returns no events."""
    game = Game.new("classic", 3, seed=1)
    assert game.recording
    assert [e.type for e in game.apply(0, game.legal_actions(0)[0])][:1] == ["plant"]
    quiet = Game.new("classic", 3, seed=1, events=False)
    assert not quiet.recording and quiet.apply(0, quiet.legal_actions(0)[0]) == []
    assert quiet.to_dict() == game.to_dict()  # recording changes no state
    live = quiet.record_events()
    events = quiet.apply(0, quiet.legal_actions(0)[0])
    assert events and live == events  # the live list holds what was recorded since
    assert game.clone().recording is False and Game.from_dict(game.to_dict()).recording


def test_a_trusted_apply_skips_the_check_and_an_untrusted_one_refuses() -> None:
    game = Game.new("classic", 3, seed=1)
    before = game.to_dict()
    with pytest.raises(IllegalAction):
        game.apply(1, Action.plant(0))  # not seat 1's turn (R-PLANT-1)
    assert game.to_dict() == before
    action = game.legal_actions(0)[0]
    twin = game.clone()
    game.apply(0, action, trusted=True)
    twin.apply(0, action)
    assert game.to_dict() == twin.to_dict()


def test_phases_are_string_enums_and_load_as_members() -> None:
    from bohnanza.game import Phase

    game = Game.new("classic", 3, seed=1)
    assert game.phase is Phase.PLANT and game.phase == "plant"
    loaded = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert loaded.phase is Phase.PLANT


def test_a_pending_decision_is_a_typed_value_that_reads_the_old_list_form() -> None:
    import pickle

    import bohnanza.modules.fasolufka  # noqa: F401 - declares its two decisions

    p = Pending(2, "move_lady", field=1, child=40)
    assert (p.seat, p.kind, p.args, p["child"]) == (2, "move_lady", {"field": 1, "child": 40}, 40)
    assert p.to_json() == {"seat": 2, "asks": "move_lady", "args": {"field": 1, "child": 40}}
    assert Pending.from_json(p.to_json()) == p and pickle.loads(pickle.dumps(p)) == p
    # Records and saved states written before decisions were typed hold a list.
    assert (
        p.legacy_json() == [2, "move_lady", 1, 40]
        and Pending.from_json([2, "move_lady", 1, 40]) == p
    )
    with pytest.raises(AttributeError):
        p.seat = 1  # type: ignore[misc]
    # read by name, no longer a tuple: reading it by position still answers, with a
    # DeprecationWarning, until 0.3.0 (tests/test_deprecations.py, CHANGELOG.md)
    with pytest.warns(DeprecationWarning, match=r"pending\.seat"):
        assert p[0] == 2
    bad_forms: list[object] = [[], [1], ["1", "x"], [1, 2], [1, "x", "3"], "1,x"]
    bad_forms += [[2, "move_lady", 1], [2, "nobody_declared_this", 1]]
    bad_forms += [{"seat": "2", "asks": "x"}, {"seat": 2, "asks": "x", "args": {"a": "1"}}]
    bad_forms += [{"seat": 2, "asks": "x", "extra": 1}]
    for bad in bad_forms:
        with pytest.raises(RecordError):
            Pending.from_json(bad)


def test_views_and_configs_cannot_be_changed_by_a_reader() -> None:
    """Every base-game view used to share one module-level ``public`` dict, and configs are
    shared through a cache: a reader that changed them changed them for every game."""
    game = Game.new("fasolki+duel", 2, seed=3)
    view = game.view(0)
    with pytest.raises(TypeError):
        view.public["offer"] = []  # type: ignore[index]
    with pytest.raises(TypeError):
        view.public["revealed"].append(1)
    classic = Game.new("classic", 3, seed=1).view(0)
    with pytest.raises(TypeError):
        classic.public["x"] = 1  # type: ignore[index]
    config = Game.new("fasolki+new-varieties", 4, options={"remove": "farmer"}, seed=1).config
    with pytest.raises(TypeError):
        config.options["remove"] = "glutton"  # type: ignore[index]
    again = Game.new("fasolki+new-varieties", 4, options={"remove": "farmer"}, seed=1)
    assert again.to_dict()["options"] == {"remove": "farmer"}


def test_a_view_survives_pickling_for_search_workers() -> None:
    import pickle

    game = Game.new("fasolki+duel", 2, seed=3)
    view = game.view(1)
    assert pickle.loads(pickle.dumps(view)) == view


def test_a_pickled_game_brings_the_shared_hooks_back_without_their_view_cache() -> None:
    """The hooks are one object per configuration, shared by every game of it in the
    process; their cache of shown cards (and their rules' caches of candidates) grows as
    any of those games is played. A pickled
    game carried that cache (the object-protocol check saw a game's pickle change after
    another test had played the same configuration): the hooks travel as their class and
    configuration and come back shared."""
    import pickle

    from bohnanza.agents import make_agent
    from bohnanza.driver import play
    from bohnanza.modules import hooks_for

    game = Game.new("classic", 4, seed=3)
    size = len(pickle.dumps(game))
    other = Game.new("classic", 4, seed=4)
    # Offers shown to the seats fill the shared hooks' cache of shown cards.
    play(other, [make_agent("heuristic", seed=s) for s in range(4)])
    assert game.hooks is other.hooks and game.hooks._shown
    assert len(pickle.dumps(game)) == size
    back = pickle.loads(pickle.dumps(game))
    assert back.hooks is hooks_for(game.config) and back == game
    assert copy.deepcopy(game).hooks is game.hooks
    # A rule alone (its caches of candidates filled by the play) comes back as the rule
    # its hooks hold.
    for rule in game.hooks.rules.values():
        assert pickle.loads(pickle.dumps(rule)) is rule


@pytest.mark.parametrize("rules", ["classic", "fasolki+duel"])
def test_a_fresh_process_unpickling_games_makes_one_shared_hooks_per_configuration(
    rules: str,
) -> None:
    """A process that has played no game of a configuration (a pool worker handed pickled
    games) made a new hooks object for every game it unpickled, each with its own caches;
    the first one unpickled becomes the configuration's shared hooks. A test's own
    subclass of the class still comes back apart."""
    import pickle

    from bohnanza.modules import hooks_class, hooks_for
    from bohnanza.modules.base import SHARED, shared_hooks

    players = 2 if rules.endswith("duel") else 4
    blobs = [pickle.dumps(Game.new(rules, players, seed=s)) for s in (1, 2)]
    saved = dict(SHARED)
    SHARED.clear()
    try:
        one, two = (pickle.loads(b) for b in blobs)
        assert one.hooks is two.hooks
        assert hooks_for(one.config) is one.hooks
        assert type(one.hooks) is hooks_class(one.config.module)

        class Own(hooks_class(one.config.module)):  # type: ignore[misc]
            pass

        apart = shared_hooks(Own, one.config)
        assert type(apart) is Own and apart is not one.hooks
        assert hooks_for(one.config) is one.hooks
        SHARED.clear()
        assert type(shared_hooks(Own, one.config)) is Own
        assert type(hooks_for(one.config)) is hooks_class(one.config.module)
    finally:
        SHARED.clear()
        SHARED.update(saved)


# ---------------------------------------------------------------------- typed module state


@pytest.mark.parametrize("rules", ["classic", "fasolki+duel", "fasolki+fasolufka"])
def test_module_state_is_a_typed_value_with_the_old_json_form(rules: str) -> None:
    """``game.extra`` is the module's typed state (issue 14), written as the same
    ``extra`` object as before; it loads back equal, and a clone shares none of it."""
    from bohnanza.game import ModuleState
    from bohnanza.modules.duel import DuelState

    players = 2 if "duel" in rules else 4
    game, _ = position(rules, players, 3, 40, agents="random")
    state = game.extra
    assert isinstance(state, ModuleState)
    assert isinstance(state, DuelState) == ("duel" in rules)
    data = game.to_dict()["extra"]
    if "duel" in rules:
        assert set(data) >= {"offer", "revealed"}  # R-DUEL-3: the piles, public
    back = type(state).from_json(data)
    assert back == state and back.to_json() == data
    assert eval(repr(state), {type(state).__name__: type(state)}) == state
    copy = game.clone().extra
    assert copy == state
    for name, value in state.parts().items():
        if isinstance(value, list):
            assert value is not copy.parts()[name], name


@pytest.mark.parametrize(
    "bad",
    [
        {"queue": 3},
        {"queue": [["x"]]},
        {"offer": "no"},
        {"offer": [1, "2"]},
        [],
    ],
)
def test_a_malformed_module_state_is_refused(bad: object) -> None:
    from bohnanza.modules.duel import DuelState

    with pytest.raises(RecordError):
        DuelState.from_json(bad)  # type: ignore[arg-type]
