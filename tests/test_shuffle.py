"""The deck's shuffle generator: unpredictable without the seed, repeatable with it, and
old records (Mersenne Twister) still replay (R-SETUP-1, R-DECK-1)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bohnanza import Action, Game
from bohnanza.errors import ConfigError, RecordError
from bohnanza.records import make_record, new_game, replay
from bohnanza.shuffle import DEFAULT, LEGACY, DeckRandom, load_generator, save_generator

LEGACY_RECORDS = sorted((Path(__file__).parent / "data" / "legacy_records").glob("*.json"))


@given(st.integers(min_value=-(2**200), max_value=2**200))
@settings(max_examples=40, deadline=None)
def test_the_same_seed_deals_the_same_game_r_setup_1(seed: int) -> None:
    a = Game.new("classic", 4, seed=seed)
    b = Game.new("classic", 4, seed=seed)
    assert a == b and a.initial_deck == b.initial_deck
    assert a.generator == DEFAULT and isinstance(a.rng, DeckRandom)
    assert sorted(a.initial_deck) == list(range(a.config.deck_size))


def test_a_game_without_seed_takes_128_bits_from_secrets_r_setup_1() -> None:
    seeds = [Game.new("classic", 4).seed for _ in range(32)]
    assert len(set(seeds)) == 32
    assert all(0 <= s < 2**128 for s in seeds)
    # 32 draws of 128 bits: the largest is below 2**120 with probability 2**-256.
    assert max(seeds).bit_length() > 120
    decks = {Game.new("classic", 4).initial_deck for _ in range(8)}
    assert len(decks) == 8


def test_neighbouring_seeds_deal_unrelated_decks() -> None:
    # A hash of the seed, not the seed itself, drives the shuffle: seeds 1 and 2 share no
    # structure (in a 104-card deck, about one card in 104 keeps its place by chance).
    a = Game.new("classic", 4, seed=1).initial_deck
    b = Game.new("classic", 4, seed=2).initial_deck
    assert sum(x == y for x, y in zip(a, b, strict=True)) < 8


def test_the_shuffle_is_uniform() -> None:
    # Every order of four cards, 24,000 shuffles: each of the 24 orders about 1,000 times.
    rng = DeckRandom(2026)
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(24_000):
        cards = [0, 1, 2, 3]
        rng.shuffle(cards)
        counts[tuple(cards)] += 1
    assert len(counts) == 24
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 60  # 23 degrees of freedom: p < 1e-4 beyond this


def test_randbelow_has_no_modulo_bias() -> None:
    # With n = 3·2**62 a plain "word % n" would give the lowest third twice as often.
    rng = DeckRandom(5)
    n = 3 * 2**62
    low = sum(rng.randbelow(n) < 2**62 for _ in range(6000))
    assert 1700 < low < 2300  # 2000 expected
    with pytest.raises(ValueError):
        rng.randbelow(0)


def test_the_generator_state_saves_and_continues() -> None:
    rng = DeckRandom(99)
    rng.shuffle(list(range(50)))
    saved = json.loads(json.dumps(save_generator(rng)))
    again = load_generator(saved, 99)
    assert again == rng
    a, b = list(range(30)), list(range(30))
    rng.shuffle(a)
    again.shuffle(b)
    assert a == b
    copy = rng.copy()
    rng.shuffle(a)
    assert copy != rng  # the copy did not move with the original
    legacy = random.Random(3)
    assert load_generator(json.loads(json.dumps(save_generator(legacy))), 3).getstate() == (
        legacy.getstate()
    )


@pytest.mark.parametrize("bad", [{"name": "xorshift", "used": 0}, {"name": DEFAULT, "used": -1}])
def test_a_saved_state_with_a_bad_generator_is_refused(bad: dict[str, object]) -> None:
    data = Game.new("classic", 4, seed=3).to_dict()
    data["rng"] = bad
    with pytest.raises(RecordError):
        Game.from_dict(data)


def test_a_reshuffle_continues_from_a_saved_state_r_deck_1() -> None:
    game = Game.new("classic", 3, seed=8)
    # Empty the draw pile into the discard pile: the next draw reshuffles (R-DECK-1).
    game.discard.extend(game.draw[:-1])
    del game.draw[:-1]
    loaded = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    for g in (game, loaded):
        while g.phase == "plant":
            g.apply(g.active, g.legal_actions(g.active)[0])
        for _ in range(4):
            if g.phase != "trade":
                break
            g.apply(g.active, Action.end_trading())
    assert loaded == game


def test_records_name_their_generator_and_replay() -> None:
    game = Game.new("classic", 4, seed=12)
    record = json.loads(json.dumps(make_record(game, [])))
    assert record["generator"] == DEFAULT
    assert replay(record) == game
    assert new_game({**record, "generator": LEGACY}).generator == LEGACY
    with pytest.raises(RecordError, match="generator"):
        new_game({**record, "generator": "xorshift"})
    with pytest.raises(RecordError, match="generator"):
        new_game({**record, "generator": 7})
    with pytest.raises(ConfigError):
        Game.new("classic", 4, seed=1, generator="xorshift")


@pytest.mark.parametrize("path", LEGACY_RECORDS, ids=[p.stem for p in LEGACY_RECORDS])
def test_records_from_before_the_generator_change_replay_r_deck_1(path: Path) -> None:
    """Records written by the engine when it shuffled with ``random.Random`` and wrote no
    generator name (every rule set and module, bots that trade, reshuffles included)."""
    record = json.loads(path.read_text(encoding="utf-8"))
    assert "generator" not in record
    game = replay(record)  # checks every action and the stored result
    assert game.over and game.generator == LEGACY
    assert game.result() == record["result"]
    # The same record read as if it had been shuffled by the new generator diverges at the
    # first reshuffle, which proves the legacy generator is the one that replays it.
    if game.runouts > 1:  # a reshuffle happened (a duel ends at its first run-out)
        with pytest.raises(RecordError):
            replay({**record, "generator": DEFAULT})
