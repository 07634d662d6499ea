"""The numpy policy agent ``rl:PATH`` (bohnanza.rl.policy): files round-trip, games under
every rule set finish with it seated, it is deterministic under a seed, it resolves in a
spawned worker, and it labels a bot's choices for behaviour cloning. Needs numpy and the
rl extra, never torch: the policies here have random weights."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from bohnanza.agents import make_agent  # noqa: E402
from bohnanza.errors import ConfigError  # noqa: E402
from bohnanza.rl import bohnanza_v0  # noqa: E402
from bohnanza.rl.policy import (  # noqa: E402
    NumpyPolicy,
    PolicyAgent,
    action_index,
    load_policy,
    save_policy,
)
from bohnanza.rl.train import bot_decisions  # noqa: E402
from bohnanza.rules import all_rulesets  # noqa: E402
from bohnanza.simulate import GameSpec, options_tuple, play_one, run_games  # noqa: E402

Config = tuple[str, int, dict[str, str]]
CONFIGS: list[Config] = [(r["rules"], r["min_players"], {}) for r in all_rulesets()] + [
    ("classic", 4, {}),
    ("fasolki+new-varieties", 4, {"remove": "glutton"}),
]
IDS = [f"{r}-{p}p" + "".join(f"-{v}" for v in o.values()) for r, p, o in CONFIGS]


def random_policy(
    path: Path,
    config: Config,
    seed: int = 0,
    hidden: int = 32,
    mode: str = "flat",
    memory: bool = False,
    depth: int = 2,
) -> str:
    """A policy file of random weights for ``config`` (what an untrained export holds),
    in action ``mode``, with ``memory`` or not, with ``depth`` hidden layers."""
    rules, players, options = config
    env = bohnanza_v0.raw_env(
        rules, players, options=options or None, action_mode=mode, memory=memory
    )
    rng = np.random.default_rng(seed)
    layers = [(rng.normal(0, 0.3, (hidden, env.obs_size)), rng.normal(0, 0.1, hidden))]
    layers += [
        (rng.normal(0, 0.3, (hidden, hidden)), rng.normal(0, 0.1, hidden)) for _ in range(depth - 1)
    ]
    action = (rng.normal(0, 1.0, (env.n_actions, hidden)), rng.normal(0, 0.1, env.n_actions))
    meta = {
        "rules": rules,
        "players": env.config.players,
        "options": options,
        "action_mode": mode,
        "memory": memory,
        "obs_size": env.obs_size,
        "n_actions": env.n_actions,
        "max_trade_rounds": 6,
        "commit": "test",
    }
    save_policy(path, layers, action, "relu", meta)
    return str(path)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_policy_plays_legal_games_under_every_rule_set(tmp_path: Path, config: Config) -> None:
    rules, players, options = config
    file = random_policy(tmp_path / "p.npz", config)
    n = bohnanza_v0.raw_env(rules, players, options=options or None).config.players
    for seat in range(min(n, 2)):
        agents = tuple(f"rl:{file}" if k == seat else "heuristic" for k in range(n))
        # fail_fast: an illegal action from the policy seat stops the run with an error.
        spec = GameSpec(rules, n, options_tuple(options), agents, None, fail_fast=True)
        out = play_one(spec, 900_001 + seat)
        assert len(out.scores) == n and out.winners
        assert out.actions > 0


def test_file_round_trips_and_logits_match(tmp_path: Path) -> None:
    file = random_policy(tmp_path / "p.npz", ("classic", 3, {}), seed=3)
    p = NumpyPolicy.load(file)
    p.save(tmp_path / "q.npz")
    q = NumpyPolicy.load(tmp_path / "q.npz")
    x = np.random.default_rng(1).random((5, p.obs_size), dtype=np.float32)
    assert np.array_equal(p.logits(x), q.logits(x))
    assert q.meta["rules"] == "classic" and q.meta["players"] == 3
    # By hand: two relu layers and the logits.
    w0, b0 = p.hidden[0]
    w1, b1 = p.hidden[1]
    h = np.maximum(np.maximum(x @ w0.T + b0, 0) @ w1.T + b1, 0)
    assert np.allclose(p.logits(x), h @ p.action[0].T + p.action[1], atol=1e-5)


def test_choose_respects_the_mask_and_is_seeded(tmp_path: Path) -> None:
    p = NumpyPolicy.load(random_policy(tmp_path / "p.npz", ("classic", 3, {})))
    x = np.random.default_rng(2).random(p.obs_size, dtype=np.float32)
    mask = np.zeros(p.n_actions, dtype=np.int8)
    mask[[3, 7, 50]] = 1
    assert p.choose(x, mask) in (3, 7, 50)
    draws = [p.choose(x, mask, np.random.default_rng(5), 5.0) for _ in range(3)]
    assert len(set(draws)) == 1  # the same seed, the same sample
    many = {p.choose(x, mask, np.random.default_rng(s), 50.0) for s in range(40)}
    assert many <= {3, 7, 50} and len(many) > 1  # a hot temperature samples several
    with pytest.raises(ValueError):
        p.choose(x, np.zeros(p.n_actions, dtype=np.int8))


def test_grouped_choice_takes_the_likeliest_kind_of_action(tmp_path: Path) -> None:
    """A kind spread over many indices wins a grouped choice when its total is larger,
    though each of its indices is less likely than a lone index of another kind."""
    p = NumpyPolicy.load(random_policy(tmp_path / "p.npz", ("classic", 3, {})))
    n = p.n_actions
    x = np.zeros(p.obs_size, dtype=np.float32)
    p.action = (np.zeros_like(p.action[0]), np.zeros(n, dtype=np.float32))
    bias = p.action[1]
    bias[0] = np.log(4.0)  # one index of group 0: weight 4
    bias[1:6] = np.log(1.0)  # five indices of group 1: weight 1 each, 5 in all
    bias[6] = np.log(1.1)
    mask = np.zeros(n, dtype=np.int8)
    mask[:7] = 1
    groups = np.zeros(n, dtype=np.intp)
    groups[1:7] = 1
    assert p.choose(x, mask) == 0  # the plain arg-max
    assert p.choose(x, mask, groups=groups) == 6  # group 1 (6.1 > 4), its likeliest index
    mask[6] = 0
    mask[2:6] = 0  # group 1 now holds 1 in all: group 0 wins
    assert p.choose(x, mask, groups=groups) == 0


def test_grouped_spec_plays_legal_reproducible_games(tmp_path: Path) -> None:
    file = random_policy(tmp_path / "p.npz", ("classic", 3, {}))
    agent = make_agent(f"rl:{file}:grouped", 1)
    assert isinstance(agent, PolicyAgent) and agent.grouped and agent.temperature == 0.0
    spec = GameSpec(
        "classic", 3, (), (f"rl:{file}:grouped", "heuristic", "autarky"), None, fail_fast=True
    )
    a, b = play_one(spec, 900_124), play_one(spec, 900_124)
    assert (a.scores, a.actions, a.turns) == (b.scores, b.actions, b.turns)
    plain = GameSpec("classic", 3, (), (f"rl:{file}", "heuristic", "autarky"), None, fail_fast=True)
    assert play_one(plain, 900_124).actions != a.actions  # grouping changes the choices


def test_same_seed_same_game(tmp_path: Path) -> None:
    file = random_policy(tmp_path / "p.npz", ("classic", 3, {}))
    for agent in (f"rl:{file}", f"rl:{file}:sample"):
        spec = GameSpec("classic", 3, (), (agent, "autarky", "autarky"), None, fail_fast=True)
        a, b = play_one(spec, 900_123), play_one(spec, 900_123)
        assert (a.scores, a.actions, a.turns) == (b.scores, b.actions, b.turns)


def test_spec_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no policy file"):
        make_agent(f"rl:{tmp_path / 'missing.npz'}")
    with pytest.raises(ConfigError):
        make_agent("rl:")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a policy")
    with pytest.raises(ConfigError, match="not a policy file"):
        make_agent(f"rl:{bad}")
    file = random_policy(tmp_path / "p.npz", ("classic", 3, {}))
    agent = make_agent(f"rl:{file}:t0.5", 1)
    assert isinstance(agent, PolicyAgent) and agent.temperature == 0.5
    # A policy for 3 players refuses a 4-player game with a clear error.
    spec = GameSpec(
        "classic", 4, (), (f"rl:{file}", "random", "random", "random"), None, fail_fast=True
    )
    with pytest.raises(Exception, match="trained for 'classic' with 3 players"):
        play_one(spec, 900_001)


def test_spec_resolves_in_a_spawned_worker(tmp_path: Path) -> None:
    file = random_policy(tmp_path / "p.npz", ("classic", 3, {}))
    spec = GameSpec("classic", 3, (), (f"rl:{file}", "autarky", "autarky"), None, fail_fast=True)
    there = list(run_games(spec, 2, 5, workers=2, batch=1, start_method="spawn"))
    local = list(run_games(spec, 2, 5, workers=1))
    assert [(o.scores, o.actions) for o in there] == [(o.scores, o.actions) for o in local]  # type: ignore[union-attr]


def test_action_index_labels_heuristic_choices() -> None:
    env = bohnanza_v0.raw_env("classic", 3)
    env.reset(options={"game_seed": 11})
    enc = env.encoding
    bots = [make_agent("heuristic", k) for k in range(3)]
    named = unnamed = 0
    kinds: set[str] = set()
    for _seat, legal, choice in bot_decisions(env, bots):
        if named >= 400:
            break
        mask = env._current_mask()
        i = action_index(enc, env.view(), choice, mask)
        if i is None:
            unnamed += 1
        else:
            named += 1
            decoded: Any = enc.decode(env.view(), i)
            # The index stands for the same kind of action (an offer's template may give
            # other cards of the same class).
            assert (decoded is None) == (choice is None)
            if choice is not None:
                assert decoded.type == choice.type
                kinds.add(choice.type.value)
                if choice.type.value != "propose":
                    assert decoded == choice or choice.type.value == "accept"
        env.step_action(choice, legal)
    assert named > 50 and {"plant", "propose"} <= kinds


def test_load_policy_caches_by_mtime(tmp_path: Path) -> None:
    file = random_policy(tmp_path / "p.npz", ("classic", 3, {}), seed=1)
    a = load_policy(file)
    assert load_policy(file) is a
    import os

    random_policy(tmp_path / "p.npz", ("classic", 3, {}), seed=2)
    os.utime(file, (1, 1))
    assert load_policy(file) is not a


def test_playing_and_the_command_line_need_no_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys, bohnanza.cli, bohnanza.rl.policy, bohnanza.train_command; "
        "bad = [m for m in ('torch', 'stable_baselines3', 'sb3_contrib') if m in sys.modules]; "
        "assert not bad, bad"
    )
    src = str(Path(__file__).resolve().parent.parent / "src")
    env = {**__import__("os").environ, "PYTHONPATH": src}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)


SHIPPED = sorted(
    (Path(__file__).resolve().parent.parent / "src/bohnanza/data/policies").glob("*.npz")
)


@pytest.mark.parametrize("file", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_policies_play(file: Path) -> None:
    import json

    side = json.loads(file.with_suffix(".json").read_text())
    assert side["commands"] and side["commit"]
    meta = load_policy(str(file)).meta
    n = int(meta["players"])
    agents = (f"rl:{file}", *(["heuristic-v1"] * (n - 1)))
    spec = GameSpec(
        meta["rules"], n, options_tuple(meta.get("options", {})), agents, None, fail_fast=True
    )
    out = play_one(spec, 900_001)
    assert len(out.scores) == n


def test_train_eval_plays_the_grouped_choice(tmp_path: Path) -> None:
    """``bohnanza train eval --grouped`` evaluates rl:POLICY:grouped, and says so."""
    from click.testing import CliRunner

    from bohnanza.cli import main

    file = random_policy(tmp_path / "p.npz", ("classic", 3, {}))
    runs = {}
    for flag in ([], ["--grouped"]):
        res = CliRunner().invoke(
            main,
            [
                "train",
                "eval",
                file,
                "--opponents",
                "heuristic",
                "--games",
                "3",
                "--seed",
                "7",
                *flag,
            ],
        )
        assert res.exit_code == 0, res.output
        (row,) = json.loads(res.output[res.output.index("[") :])
        assert row["games"] == 3 and row["grouped"] == bool(flag)
        runs[bool(flag)] = row
    assert 0.0 <= runs[True]["win_rate"] <= 1.0
