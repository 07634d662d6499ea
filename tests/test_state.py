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
    g.extra["junk"] = [1]
    for value in g.extra.values():
        if isinstance(value, list):
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
