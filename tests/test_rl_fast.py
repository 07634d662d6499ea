"""The fast RL observation and mask (issue 14: environment steps ≥2× faster) against the
plain reference encoding of ``tests/rl_reference.py``: on seeded random games of every
rule set, every seat's observation and the acting seat's mask must be identical, value
for value. Hidden information (R-INFO-1…3) is covered by ``tests/test_rl.py``; this test
only pins the vectors."""

from __future__ import annotations

import collections
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")

from bohnanza.rl import bohnanza_v0  # noqa: E402
from bohnanza.rl.encoding import Encoding  # noqa: E402
from bohnanza.rules import all_rulesets  # noqa: E402
from rl_reference import reference_mask, reference_observe  # noqa: E402

CONFIGS: list[tuple[str, int, dict[str, str]]] = [
    (r["rules"], r["min_players"], {}) for r in all_rulesets()
] + [
    ("classic", 5, {}),
    ("fasolki+new-varieties", 4, {"remove": "farmer"}),
    ("fasolki+fasolkopajaki", 5, {}),
    ("fasolki+fasolufka", 4, {}),
]


def _pick(enc: Encoding, mask: Any, rng: Any) -> int:
    """Uniform over mask segments first, so that offers, accepts and module actions all
    happen (the offer templates would swamp everything else)."""
    by_segment: dict[str, list[int]] = collections.defaultdict(list)
    for i in np.flatnonzero(mask):
        by_segment[enc.segment_of(int(i))[0]].append(int(i))
    names = sorted(by_segment)
    seg = by_segment[names[int(rng.integers(len(names)))]]
    return seg[int(rng.integers(len(seg)))]


@pytest.mark.parametrize(
    "config", CONFIGS, ids=[f"{r}-{p}p{''.join(o.values())}" for r, p, o in CONFIGS]
)
def test_fast_observation_and_mask_equal_the_reference(
    config: tuple[str, int, dict[str, str]],
) -> None:
    rules, players, options = config
    env = bohnanza_v0.raw_env(rules=rules, players=players, options=options)
    enc = env.encoding
    compared = offers_seen = 0
    for seed in (1, 2):
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        for _ in range(400):
            g = env.game
            assert g is not None
            if g.over:
                break
            for seat in range(players):
                view = env.view(seat)
                fast = enc.observe(view, env.trade_round)
                ref = reference_observe(enc, view, env.trade_round)
                assert fast.dtype == ref.dtype == np.float32
                assert np.array_equal(fast, ref), (seed, g.turn, seat, np.flatnonzero(fast != ref))
                offers_seen += bool(view.offers)
                compared += 1
            view = env.view()
            legal = g.legal_actions(env.seat, False)
            fast_m = enc.mask(view, legal, not env.required)
            ref_m = reference_mask(enc, view, legal, not env.required)
            assert fast_m.dtype == ref_m.dtype == np.int8
            assert np.array_equal(fast_m, ref_m), (seed, g.turn, np.flatnonzero(fast_m != ref_m))
            env.step(_pick(enc, fast_m, rng))
    assert compared > 100
    if enc.trading:
        assert offers_seen > 0  # the offer blocks were compared too
