"""RayVecEnv (bohnanza.rl.ray_vec): stable-baselines3's VecEnv over Ray actors, checked
against DummyVecEnv step by step on a local Ray cluster, and MaskablePPO training two
iterations through it (issue 29)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("stable_baselines3")
sb3_contrib = pytest.importorskip("sb3_contrib")
pytest.importorskip("gymnasium")

from gymnasium import spaces  # noqa: E402
from gymnasium.wrappers import RecordEpisodeStatistics  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from bohnanza.rl import SingleAgentEnv  # noqa: E402
from bohnanza.rl.ray_actor import EnvGroup, Failure, space_keys  # noqa: E402
from bohnanza.rl.ray_vec import RayVecEnv  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A local cluster of 2 CPUs for the module (its start takes seconds). The actors
    cannot import this module (tests/ is on the driver's sys.path only): its functions
    travel by value."""
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def factories(n: int, **kwargs: Any) -> list[Callable[[], Any]]:
    """Picklable factories (partial of an importable class) of 3-player classic games
    against random bots."""
    kwargs.setdefault("dict_obs", False)
    return [
        partial(SingleAgentEnv, rules="classic", players=3, opponents="random", **kwargs)
        for _ in range(n)
    ]


def monitored(**kwargs: Any) -> RecordEpisodeStatistics:
    """A wrapped environment (Gymnasium's wrapper: sb3's Monitor would make the actors
    import torch), from a factory of this module, which the actors cannot import (see the
    fixture)."""
    return RecordEpisodeStatistics(
        SingleAgentEnv(rules="classic", players=3, opponents="random", **kwargs)
    )


def obs_equal(a: Any, b: Any) -> bool:
    """Equal values and dtypes, through dicts (Dict observations, infos)."""
    if isinstance(a, dict):
        return (
            isinstance(b, dict) and a.keys() == b.keys() and all(obs_equal(a[k], b[k]) for k in a)
        )
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b)) and np.asarray(a).dtype == np.asarray(b).dtype
    return bool(type(a) is type(b) and a == b)


def run_side_by_side(ray_env: RayVecEnv, dummy: DummyVecEnv, steps: int, seed: int) -> int:
    """Step both with the same random legal actions; everything they return must be
    equal. Returns the number of episodes that ended."""
    ray_env.seed(seed)
    dummy.seed(seed)
    assert obs_equal(ray_env.reset(), dummy.reset())
    assert all(obs_equal(r, d) for r, d in zip(ray_env.reset_infos, dummy.reset_infos, strict=True))
    rng = np.random.default_rng(seed)
    ended = 0
    for _ in range(steps):
        masks = np.stack(ray_env.env_method("action_masks"))
        assert np.array_equal(masks, np.stack(dummy.env_method("action_masks")))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rews, dones, infos = ray_env.step(actions)
        d_obs, d_rews, d_dones, d_infos = dummy.step(actions)
        assert obs_equal(obs, d_obs)
        assert rews.dtype == d_rews.dtype and np.array_equal(rews, d_rews)
        assert dones.dtype == d_dones.dtype and np.array_equal(dones, d_dones)
        assert len(infos) == len(d_infos) == ray_env.num_envs
        for i, (info, d_info) in enumerate(zip(infos, d_infos, strict=True)):
            # masks, scores and winners, terminal observations, TimeLimit.truncated
            assert obs_equal(info, d_info)
            assert info["TimeLimit.truncated"] is False
            # the last reset's info, also where this step did not reset
            assert obs_equal(ray_env.reset_infos[i], dummy.reset_infos[i])
            if dones[i]:
                ended += 1
                assert "terminal_observation" in info and "winners" in info
                assert rews[i] in (-1.0, 0.0, 1.0)
    return ended


@pytest.mark.usefixtures("cluster")
def test_ray_vec_env_matches_dummy_vec_env_box() -> None:
    """Box observations, 4 environments in 2 actors: the same observations, rewards,
    dones, infos (terminal observations included) as DummyVecEnv for the same seeds and
    actions, across episode ends (auto-reset)."""
    fns = factories(4)
    env = RayVecEnv(fns, envs_per_actor=2)
    dummy = DummyVecEnv(fns)
    try:
        assert len(env.actors) == 2
        assert env.num_envs == 4
        cpu0 = env.worker_cpu()
        assert env.observation_space == dummy.observation_space
        assert env.action_space == dummy.action_space
        assert isinstance(env.observation_space, spaces.Box)
        assert env.render_mode is None
        # A 3-player game against random bots is 300-700 learner decisions: 4 games
        # over 700 steps makes episode ends (and auto-resets) certain.
        ended = run_side_by_side(env, dummy, steps=700, seed=11)
        assert ended >= 2
        assert env.worker_cpu() > cpu0 > 0  # the actors' own CPU, 2800 steps later
    finally:
        env.close()
        dummy.close()


@pytest.mark.usefixtures("cluster")
def test_ray_vec_env_matches_dummy_vec_env_dict_uneven_actors() -> None:
    """Dict observations (observation + action_mask), 3 environments in actors of 2 and
    1 (an uneven last actor), seeds from ``seed()`` used once: a second reset without a
    seed starts other games, in both."""
    fns = factories(3, dict_obs=True)
    env = RayVecEnv(fns, envs_per_actor=2, num_cpus_per_actor=0.5)
    dummy = DummyVecEnv(fns)
    try:
        assert [len(range(s, e)) for s, e in env._slices] == [2, 1]
        assert isinstance(env.observation_space, spaces.Dict)
        run_side_by_side(env, dummy, steps=60, seed=5)
        # seeds were consumed by the first reset: an unseeded reset differs from a
        # seeded one, and the same seed replays the same first observation
        env.seed(5)
        first = env.reset()
        again = env.reset()
        env.seed(5)
        replay = env.reset()
        assert obs_equal(first, replay)
        assert not all(
            np.array_equal(first["observation"][i], again["observation"][i]) for i in range(3)
        )
    finally:
        env.close()
        dummy.close()


@pytest.mark.usefixtures("cluster")
def test_ray_vec_env_attributes_methods_and_errors() -> None:
    """get_attr / set_attr / env_method / env_is_wrapped / has_attr in the order of the
    indices asked for, across actors; the environment's own exception types come back;
    the mask cache answers only while nothing else touched the environments."""
    fns = [
        partial(monitored, dict_obs=False),
        factories(1)[0],
        partial(monitored, dict_obs=False),
    ]
    env = RayVecEnv(fns, envs_per_actor=2)
    try:
        assert env.get_attr("seat") == [0, 0, 0]
        env.set_attr("seat", 0, indices=[2])  # no-op write, through the second actor
        assert env.get_attr("dict_obs", indices=[2, 0]) == [False, False]
        assert env.env_is_wrapped(RecordEpisodeStatistics) == [True, False, True]
        assert env.env_is_wrapped(RecordEpisodeStatistics, indices=[1, 2]) == [False, True]
        assert env.has_attr("action_masks")
        assert not env.has_attr("no_such_attribute")
        with pytest.raises(AttributeError):
            env.get_attr("no_such_attribute")
        with pytest.raises(IndexError):
            env.get_attr("seat", indices=[3])

        obs = env.reset()
        assert obs.shape == (3, *env.observation_space.shape)
        cached = env.env_method("action_masks")
        assert env._masks is not None  # answered from the reset's results
        fetched = env.env_method("get_wrapper_attr", "seat")  # anything else drops the cache...
        assert env._masks is None and fetched == [0, 0, 0]
        asked = env.env_method("action_masks", indices=[2, 0])  # ...and the actors answer
        assert np.array_equal(asked[0], cached[2]) and np.array_equal(asked[1], cached[0])
        assert env.get_attr("render_mode") == [None, None, None]

        # an illegal action raises the environment's ValueError, not a Ray wrapper
        illegal = int(np.flatnonzero(cached[1] == 0)[0])
        actions = np.array([int(np.flatnonzero(m)[0]) for m in cached])
        actions[1] = illegal
        with pytest.raises(ValueError, match="not legal"):
            env.step(actions)
        assert not env.waiting
    finally:
        env.close()
    env.close()  # twice is fine
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()
    with pytest.raises(RuntimeError, match="closed"):
        env.get_attr("seat")


@pytest.mark.usefixtures("cluster")
def test_ray_vec_env_refuses_bad_arguments_and_reports_factory_errors() -> None:
    with pytest.raises(ValueError, match="at least one"):
        RayVecEnv([])
    with pytest.raises(ValueError, match="envs_per_actor"):
        RayVecEnv(factories(1), envs_per_actor=0)
    with pytest.raises(ValueError, match="num_cpus_per_actor"):
        RayVecEnv(factories(1), num_cpus_per_actor=-1)
    with pytest.raises(ValueError, match="need 3 CPUs, the Ray cluster has 2"):
        RayVecEnv(factories(3))  # would wait for a third CPU for ever
    bad = partial(SingleAgentEnv, rules="classic", players=3, seat=7)
    with pytest.raises(ValueError, match="seat must be"):
        RayVecEnv([bad])
    same = SingleAgentEnv(rules="classic", players=3)
    with pytest.raises(ValueError, match="same instance"):
        RayVecEnv([lambda: same, lambda: same], envs_per_actor=2)


def test_env_group_in_process() -> None:
    """The actor's class works without Ray: keys as sb3's obs_space_info, failures as
    values, auto-reset with the terminal observation."""
    from stable_baselines3.common.vec_env.util import obs_space_info

    for dict_obs in (False, True):
        space = SingleAgentEnv(rules="classic", players=3, dict_obs=dict_obs).observation_space
        assert space_keys(space) == obs_space_info(space)
    box = spaces.Box(0, 1, (3,), np.float32)
    for space in (spaces.Tuple((box, spaces.Discrete(4))), spaces.Dict({"a": box}), box):
        assert space_keys(space) == obs_space_info(space)
    with pytest.raises(NotImplementedError, match="nested"):
        space_keys(spaces.Dict({"a": spaces.Dict({"b": box})}))
    group = EnvGroup(factories(2))
    obs, reset_infos, masks = group.reset([1, 2], [{}, {}])
    assert obs[None].shape[0] == 2 and masks is not None and masks.shape[0] == 2
    assert isinstance(group.get_attr("nope", [0]), Failure)
    rng = np.random.default_rng(0)
    for _ in range(2000):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _obs, _rews, dones, infos, reset_infos, masks = group.step(actions)
        if dones.any():
            i = int(np.flatnonzero(dones)[0])
            assert infos[i]["terminal_observation"].shape == obs[None].shape[1:]
            assert "action_mask" in reset_infos[i]
            break
    else:
        pytest.fail("no episode ended in 2000 steps")


@pytest.mark.usefixtures("cluster")
def test_maskable_ppo_two_iterations_on_ray() -> None:
    """MaskablePPO collects two rollouts of 64 steps from 2 environments in 2 actors and
    trains on each: the timesteps are counted, two updates ran, the weights moved."""
    import torch
    from sb3_contrib import MaskablePPO

    n_envs, n_steps = 2, 64
    env = RayVecEnv(factories(n_envs), envs_per_actor=1)
    try:
        assert len(env.actors) == 2
        model = MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=n_steps,
            batch_size=64,
            n_epochs=1,
            seed=0,
            device="cpu",
            policy_kwargs={"net_arch": [32]},
        )
        before = [p.detach().clone() for p in model.policy.parameters()]
        asked: list[int] = []  # calls that went to the actors other than step / reset
        per_actor = env._per_actor
        env._per_actor = lambda call, indices: asked.append(1) or per_actor(call, indices)  # type: ignore[method-assign]
        model.learn(total_timesteps=2 * n_steps * n_envs)
        # the masks of all 128 steps came with the steps' results
        assert len(asked) < 5
        assert model.num_timesteps == 2 * n_steps * n_envs
        assert model._n_updates == 2  # one epoch per iteration
        after = list(model.policy.parameters())
        assert any(not torch.equal(b, a) for b, a in zip(before, after, strict=True))
    finally:
        env.close()
