"""The environments of one Ray actor of :class:`bohnanza.rl.ray_vec.RayVecEnv`.

A module of its own, importing only gymnasium and numpy: Ray imports an actor's class by
its module in every worker, and stable-baselines3 (which ``ray_vec`` needs) imports torch,
seconds and some hundreds of MB per worker for nothing the environments use.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

MASK_METHOD = "action_masks"


class Failure:
    """An exception raised in an actor, sent back as a value, so that the driver raises
    the environment's own exception type (Ray would wrap it in a ``RayTaskError``), with
    the actor's traceback as text."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc
        self.trace = "".join(traceback.format_exception(exc))


def space_keys(
    space: gym.Space[Any],
) -> tuple[list[Any], dict[Any, tuple[int, ...]], dict[Any, Any]]:
    """The keys, shapes and dtypes of an observation space as stable-baselines3's
    ``obs_space_info`` gives them (``None`` for an unstructured space, the keys of a
    Dict, the positions of a Tuple), without importing it."""
    if isinstance(space, spaces.Dict):
        sub: dict[Any, gym.Space[Any]] = dict(space.spaces)
    elif isinstance(space, spaces.Tuple):
        sub = dict(enumerate(space.spaces))
    else:
        sub = {None: space}
    for key, s in sub.items():
        if isinstance(s, spaces.Dict | spaces.Tuple):
            raise NotImplementedError(f"nested observation spaces are not supported ({key!r})")
    keys = list(sub)
    return (
        keys,
        {k: tuple(s.shape or ()) for k, s in sub.items()},
        {k: s.dtype for k, s in sub.items()},
    )


def has_attr(env: gym.Env[Any, Any], name: str) -> bool:
    try:
        env.get_wrapper_attr(name)
    except AttributeError:
        return False
    return True


class EnvGroup:
    """Environments stepped one after the other, with stable-baselines3's VecEnv
    conventions (auto-reset, ``terminal_observation``); ``ray.remote`` makes it an actor
    at run time, and it works in-process too.

    The methods return a :class:`Failure` instead of raising, the constructor too: it
    keeps its exception for :meth:`spaces` (the first call), instead of a dead actor.
    """

    def __init__(self, env_fns: Sequence[Callable[[], gym.Env[Any, Any]]]) -> None:
        self.envs: list[gym.Env[Any, Any]] = []
        self.failed: Failure | None = None
        try:
            self.envs = [_patched(fn()) for fn in env_fns]
            if len({id(e.unwrapped) for e in self.envs}) != len(self.envs):
                raise ValueError(
                    "the environment factories returned the same instance twice: each call "
                    "must build a new environment"
                )
            self.keys, _, self.dtypes = space_keys(self.envs[0].observation_space)
            self.masks = all(has_attr(e, MASK_METHOD) for e in self.envs)
        except Exception as exc:
            self.failed = Failure(exc)

    def spaces(self) -> Any:
        """The observation and action spaces, whether every environment has masks, and
        the first environment's metadata (or the constructor's failure)."""
        if self.failed is not None:
            return self.failed
        env = self.envs[0]
        return env.observation_space, env.action_space, self.masks, dict(env.metadata)

    def step(self, actions: NDArray[Any]) -> Any:
        """Step every environment (an ended episode is reset at once): the stacked
        observations, float32 rewards, dones, infos, reset infos and masks (or None)."""
        try:
            n = len(self.envs)
            rews = np.zeros(n, dtype=np.float32)
            dones = np.zeros(n, dtype=bool)
            infos: list[dict[str, Any]] = []
            reset_infos: list[dict[str, Any]] = [{} for _ in range(n)]
            obs_list = []
            for i, env in enumerate(self.envs):
                obs, rew, terminated, truncated, info = env.step(actions[i])
                rews[i] = rew
                done = bool(terminated or truncated)
                dones[i] = done
                # See https://github.com/openai/gym/issues/3102 (as DummyVecEnv)
                info["TimeLimit.truncated"] = bool(truncated and not terminated)
                if done:
                    info["terminal_observation"] = obs
                    obs, reset_infos[i] = env.reset()
                infos.append(info)
                obs_list.append(obs)
            return self._stack(obs_list), rews, dones, infos, reset_infos, self._masks()
        except Exception as exc:
            return Failure(exc)

    def reset(self, seeds: Sequence[int | None], options: Sequence[dict[str, Any]]) -> Any:
        """Reset every environment with its seed and options (as DummyVecEnv: options
        only where given)."""
        try:
            obs_list = []
            reset_infos = []
            for env, seed, opts in zip(self.envs, seeds, options, strict=True):
                maybe_options = {"options": opts} if opts else {}
                obs, info = env.reset(seed=seed, **maybe_options)
                obs_list.append(obs)
                reset_infos.append(info)
            return self._stack(obs_list), reset_infos, self._masks()
        except Exception as exc:
            return Failure(exc)

    def get_attr(self, name: str, indices: Sequence[int]) -> Any:
        try:
            return [self.envs[i].get_wrapper_attr(name) for i in indices]
        except Exception as exc:
            return Failure(exc)

    def set_attr(self, name: str, value: Any, indices: Sequence[int]) -> Any:
        try:
            for i in indices:
                setattr(self.envs[i], name, value)
            return [None] * len(indices)
        except Exception as exc:
            return Failure(exc)

    def env_method(
        self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], indices: Sequence[int]
    ) -> Any:
        try:
            return [self.envs[i].get_wrapper_attr(name)(*args, **kwargs) for i in indices]
        except Exception as exc:
            return Failure(exc)

    def is_wrapped(self, wrapper_class: type[Any], indices: Sequence[int]) -> Any:
        """Whether each environment has ``wrapper_class`` in its wrapper chain (as
        stable-baselines3's ``is_wrapped``)."""
        try:
            found = []
            for i in indices:
                env: Any = self.envs[i]
                hit = False
                while isinstance(env, gym.Wrapper):
                    if isinstance(env, wrapper_class):
                        hit = True
                        break
                    env = env.env
                found.append(hit)
            return found
        except Exception as exc:
            return Failure(exc)

    def cpu_seconds(self) -> float:
        """This actor's process CPU time (its environments and its share of Ray)."""
        return time.process_time()

    def close(self) -> None:
        for env in self.envs:
            env.close()

    def _stack(self, obs_list: list[Any]) -> dict[Any, NDArray[Any]]:
        """One array per key of the space: one buffer each to send, not one per
        environment."""
        if self.keys == [None]:
            return {None: np.asarray(obs_list, dtype=self.dtypes[None])}
        return {k: np.asarray([o[k] for o in obs_list], dtype=self.dtypes[k]) for k in self.keys}

    def _masks(self) -> NDArray[Any] | None:
        if not self.masks:
            return None
        return np.stack([np.asarray(e.get_wrapper_attr(MASK_METHOD)()) for e in self.envs])


def _patched(env: Any) -> gym.Env[Any, Any]:
    """A Gymnasium environment as is; an old Gym one through stable-baselines3's patch
    (shimmy), imported only then."""
    if isinstance(env, gym.Env):
        return env
    from stable_baselines3.common.vec_env.patch_gym import _patch_env

    patched: gym.Env[Any, Any] = _patch_env(env)
    return patched


__all__ = ["MASK_METHOD", "EnvGroup", "Failure", "has_attr", "space_keys"]
