"""The offer-builder action mode of the RL environment (``action_mode="builder"``,
bohnanza.rl.builder, docs/rl.md): over seeded random rollouts of every rule set and
module, every masked index is accepted by the engine, the agent to act always has an
action, and a random search over builder steps reaches multi-card and mixed offers and
every payment the engine lists."""

from __future__ import annotations

import collections
import copy
import os
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, render_test, seed_test  # type: ignore[import-untyped]  # noqa: E402

from bohnanza import Action, ActionType  # noqa: E402
from bohnanza.rl import bohnanza_v0  # noqa: E402
from bohnanza.rl.builder import Builder, Draft  # noqa: E402
from bohnanza.rules import all_rulesets  # noqa: E402

Config = tuple[str, int, dict[str, str]]
CONFIGS: list[Config] = [(r["rules"], r["min_players"], {}) for r in all_rulesets()] + [
    ("classic", 4, {}),
    ("fasolki+new-varieties", 4, {"remove": "glutton"}),
]
IDS = [f"{r}-{p}p" + "".join(f"-{v}" for v in o.values()) for r, p, o in CONFIGS]
#: Steps per rollout (RL_BUILDER_STEPS raises it for a longer local run).
STEPS = int(os.environ.get("RL_BUILDER_STEPS", "600"))


def make_env(config: Config, **kwargs: Any) -> bohnanza_v0.raw_env:
    rules, players, options = config
    return bohnanza_v0.raw_env(
        rules=rules, players=players, options=options, action_mode="builder", **kwargs
    )


def pick(b: Builder, mask: Any, rng: Any) -> int:
    """A random legal index, uniform over segments first, then inside the segment."""
    by_segment: dict[str, list[int]] = collections.defaultdict(list)
    for i in np.flatnonzero(mask):
        by_segment[b.segment_of(int(i))[0]].append(int(i))
    names = sorted(by_segment)
    seg = by_segment[names[int(rng.integers(len(names)))]]
    return seg[int(rng.integers(len(seg)))]


def outcome(env: bohnanza_v0.raw_env, index: int) -> tuple[bool, Action | None, Draft | None]:
    """What ``index`` would do now, without doing it (the draft is copied)."""
    b = env.builder
    assert b is not None
    step, draft = b.step(env.view(), index, copy.deepcopy(env.draft))
    return step.done, step.action, draft


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_every_masked_builder_index_is_accepted(config: Config) -> None:
    env = make_env(config)
    b = env.builder
    assert b is not None
    rng = np.random.default_rng(7)
    used: collections.Counter[str] = collections.Counter()
    offers: list[Action] = []
    env.reset(seed=3)
    for _ in range(STEPS):
        game = env.game
        assert game is not None
        if game.over:
            break
        mask = env.action_mask()
        assert mask.shape == (b.n_actions,)
        assert mask.any(), "the agent to act has no action"
        for i in np.flatnonzero(mask):
            done, action, _ = outcome(env, int(i))
            used[b.segment_of(int(i))[0]] += 1
            if done and action is not None:
                assert game.is_legal(env.seat, action), (b.describe(int(i)), action)
            elif done:
                assert b.segment_of(int(i))[0] == "pass" and not env.required
        i = pick(b, mask, rng)
        done, action, _ = outcome(env, i)
        if done and action is not None and action.type is ActionType.PROPOSE:
            offers.append(action)
        env.step(i)
    assert used["plant"] and used["harvest"]
    if config[0] != "fasolki+duel":
        for name in ("card", "want", "submit", "cancel", "accept", "decline"):
            assert used[name], name
        assert offers


def _search_offers(config: Config, seed: int, tries: int) -> list[Action]:
    """Random drafts from the states of one random rollout: the offers submitted."""
    env = make_env(config)
    b = env.builder
    assert b is not None
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    found: list[Action] = []
    while env.game is not None and not env.game.over and len(found) < tries:
        mask = env.action_mask()
        starts = [i for i in np.flatnonzero(mask) if b.segment_of(int(i))[0] == "card"]
        if env.draft is None and starts:
            # compose: 1-4 cards, 0-3 wants, then submit when possible
            for _ in range(int(rng.integers(1, 5))):
                cards = [
                    i
                    for i in np.flatnonzero(env.action_mask())
                    if b.segment_of(int(i))[0] in ("card", "card_declared")
                ]
                if cards:
                    env.step(int(rng.choice(cards)))
            for _ in range(int(rng.integers(0, 4))):
                env.step(b.base("want") + int(rng.integers(b.enc.v)))
            m = env.action_mask()
            if env.draft is not None and env.draft.partner is None:
                env.step(
                    int(
                        rng.choice(
                            [i for i in np.flatnonzero(m) if b.segment_of(int(i))[0] == "partner"]
                        )
                    )
                )
                m = env.action_mask()
            if m[b.base("submit")]:
                done, action, _ = outcome(env, b.base("submit"))
                assert done and action is not None
                found.append(action)
                env.step(b.base("submit"))
                continue
            env.step(b.base("cancel"))
            continue
        env.step(pick(b, mask, rng))
    return found


@pytest.mark.parametrize(
    "config", [("classic", 4, {}), ("fasolki+fasolkopajaki", 3, {})], ids=["classic", "spiders"]
)
def test_random_builder_search_reaches_multi_card_and_mixed_offers(config: Config) -> None:
    found = _search_offers(config, 11, 40)
    assert found
    cv = make_env(config).config.variety_of
    multi = [a for a in found if a.offer is not None and len(a.offer.give) >= 2]
    mixed = [a for a in found if a.offer is not None and len({cv(c) for c in a.offer.give}) >= 2]
    many_wants = [a for a in found if a.offer is not None and sum(k for _, k in a.offer.want) >= 2]
    assert multi and mixed and many_wants
    if config[0] == "fasolki+fasolkopajaki":
        # a declared colour can be part of a composed offer (R-BLUFF-1)
        assert any(a.offer is not None and a.offer.declared for a in found)


def _payments(env: bohnanza_v0.raw_env, j: int) -> set[tuple[int, ...]]:
    """Every card set the builder can pay offer slot ``j`` with: a search over all the
    pay steps it masks in."""
    b = env.builder
    assert b is not None
    start = b.base("accept") + j
    done, action, draft = outcome(env, start)
    if done:
        assert action is not None
        return {tuple(sorted(action.cards))}
    out: set[tuple[int, ...]] = set()
    stack = [draft]
    view = env.view()
    while stack:
        d = stack.pop()
        assert d is not None
        m = b.mask(
            env.game,
            env.seat,
            view,
            env.encoding.mask(view, env._legal, not env.required),
            d,
            False,
        )  # type: ignore[arg-type]
        for i in np.flatnonzero(m):
            if b.segment_of(int(i))[0] != "card":
                continue
            step, nd = b.step(view, int(i), copy.deepcopy(d))
            if step.done:
                assert step.action is not None
                out.add(tuple(sorted(step.action.cards)))
            else:
                stack.append(nd)
    return out


@pytest.mark.parametrize(
    "config", [("classic", 3, {}), ("fasolki", 3, {})], ids=["classic", "fasolki"]
)
def test_every_legal_payment_is_reachable(config: Config) -> None:
    env = make_env(config)
    b = env.builder
    assert b is not None
    rng = np.random.default_rng(5)
    env.reset(seed=5)
    checked = 0
    for _ in range(STEPS * 2):
        game = env.game
        assert game is not None
        if game.over or checked >= 6:
            break
        mask = env.action_mask()
        if env.draft is None and not env._draft_blocked:
            incoming = env.encoding.incoming(env.view())
            for j, o in enumerate(incoming[:6]):
                legal = {
                    tuple(sorted(a.cards))
                    for a in game.legal_actions(env.seat, False)
                    if a.type is ActionType.ACCEPT and a.offer_id == o.offer_id
                }
                if legal and o.want:
                    assert mask[b.base("accept") + j]
                    assert legal <= _payments(env, j)
                    checked += 1
        env.step(pick(b, mask, rng))
    assert checked


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(
    "config", [("classic", 3, {}), ("fasolki+fasolkopajaki", 3, {})], ids=["classic", "spiders"]
)
def test_builder_mode_passes_pettingzoo_tests(config: Config) -> None:
    def build() -> Any:
        return bohnanza_v0.env(rules=config[0], players=config[1], action_mode="builder")

    api_test(build(), num_cycles=60)
    seed_test(build, num_cycles=40)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("mode", ["flat", "builder"])
def test_render_test_passes(mode: str) -> None:
    def build(render_mode: str | None = None) -> Any:
        return bohnanza_v0.env(
            rules="classic", players=3, render_mode=render_mode, action_mode=mode
        )

    render_test(build)


def test_human_render_prints(capsys: pytest.CaptureFixture[str]) -> None:
    env = bohnanza_v0.env(rules="classic", players=3, render_mode="human", action_mode="builder")
    env.reset(seed=1)
    assert env.render() is None
    out = capsys.readouterr().out
    assert "legal actions" in out and "seat 0 (you)" in out


def test_bad_action_mode() -> None:
    with pytest.raises(ValueError, match="action_mode"):
        bohnanza_v0.raw_env(rules="classic", action_mode="templates")


def test_single_agent_wrapper_in_builder_mode() -> None:
    from bohnanza.rl import SingleAgentEnv

    env = SingleAgentEnv(
        rules="classic", players=3, opponents="random", seed=4, action_mode="builder"
    )
    assert env.action_space.n == env.aec.builder.n_actions  # type: ignore[union-attr]
    rng = np.random.default_rng(4)
    _, info = env.reset()
    done = False
    steps = 0
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        assert legal.size
        _, reward, done, _, info = env.step(int(rng.choice(legal)))
        steps += 1
    assert reward in (-1.0, 0.0, 1.0) and "scores" in info and steps > 10


def test_training_example_with_opponents_and_memory(tmp_path: Any) -> None:
    # examples/train_rl.py: trained against given opponents with the memory observation,
    # evaluated against each evaluation bot with a 95% interval (two here, for time; the
    # default is random, autarky, heuristic-v1 and heuristic).
    import runpy
    from pathlib import Path

    pytest.importorskip("matplotlib")
    root = Path(__file__).resolve().parent.parent
    module = runpy.run_path(str(root / "examples" / "train_rl.py"))
    argv = ["--quick", "--workers", "1", "--out", str(tmp_path), "--opponents", "autarky"]
    result = module["main"]([*argv, "--memory", "--eval-opponents", "heuristic-v1,heuristic"])
    assert set(result["evaluation"]) == {"heuristic-v1", "heuristic"}
    for r in result["evaluation"].values():
        lo, hi = r["wilson95"]
        assert 0.0 <= lo <= r["win_rate"] <= hi <= 1.0
    assert (tmp_path / "learning_curve.png").stat().st_size > 1000
    # A policy with memory is written as a policy file and plays as rl:PATH.
    from bohnanza.agents import make_agent
    from bohnanza.driver import play
    from bohnanza.game import Game
    from bohnanza.rl.policy import load_policy
    from bohnanza.rules import make_config

    policy = str(tmp_path / "policy.npz")
    assert load_policy(policy).meta["memory"] is True
    game = Game(make_config("classic", 3, {}, ()), seed=1)
    play(game, [make_agent(f"rl:{policy}", 0)] + [make_agent("autarky", k) for k in (1, 2)])
    assert game.over
    with pytest.raises(SystemExit):
        module["main"]([*argv[:-2], "--opponents", "random,random,random"])
