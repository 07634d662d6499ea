"""A stable-baselines3 ``VecEnv`` whose environments live in Ray actors: the same training
as :class:`~stable_baselines3.common.vec_env.SubprocVecEnv`, past one machine.

>>> from functools import partial
>>> from bohnanza.rl import SingleAgentEnv
>>> from bohnanza.rl.ray_vec import RayVecEnv
>>> env = RayVecEnv([partial(SingleAgentEnv, rules="classic", players=3)] * 4,
...                 envs_per_actor=2)                       # doctest: +SKIP

The learner (the policy, its optimiser, the rollout buffer) stays in the driver, the
process that builds the ``RayVecEnv``; only the environments move. Each actor holds
``envs_per_actor`` environments and steps them one after the other, so one round trip
per actor and step carries a batch of observations, rewards and dones. The actors run
where the cluster has room: a new local cluster (``address=None``, or the one this
process already joined), every node of a real one (``address="auto"`` on a cluster node,
``"ray://HEAD:10001"`` through Ray Client).

Behaviour follows :class:`~stable_baselines3.common.vec_env.DummyVecEnv` (sb3 2.x):
a finished episode is reset at once, its last observation in
``info["terminal_observation"]`` and its reset info in ``reset_infos``; seeds and
options set by ``seed()`` / ``set_options()`` are used by the next ``reset()`` only;
rewards are float32, dones bool, observations in the space's dtype. An exception in an
environment is raised again in the driver with its own type (``ValueError`` for a
masked-out action), the actor's traceback added as a note.

Action masks: when every environment has ``action_masks()`` (sb3-contrib's
``MaskablePPO`` reads them with ``env_method("action_masks")`` before every step), the
actors send the masks with each step's and reset's results, and that call is answered
from them without another round trip. Any other ``env_method`` or ``set_attr`` call,
which could change an environment, drops them, and the next mask call asks the actors.

The environment factories travel to the actors with cloudpickle: a ``functools.partial``
of an importable class or function; whatever they import (``bohnanza`` itself) must be
installed on every node, at the driver's version.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv,
    VecEnvIndices,
    VecEnvObs,
    VecEnvStepReturn,
)
from stable_baselines3.common.vec_env.util import dict_to_obs, obs_space_info

from .ray_actor import MASK_METHOD, EnvGroup, Failure


def _check(result: Any) -> Any:
    if isinstance(result, Failure):
        exc = result.exc
        exc.add_note("raised in a Ray actor of RayVecEnv:\n" + result.trace)
        raise exc
    return result


def connect(address: str | None = None, **init_kwargs: Any) -> None:
    """Join the Ray cluster at ``address`` unless this process already joined one:
    ``None`` with no ``RAY_ADDRESS`` set starts a local cluster (without the dashboard),
    ``"auto"`` finds the cluster this node belongs to, ``"ray://HOST:10001"`` goes
    through Ray Client. ``init_kwargs`` go to ``ray.init`` (``runtime_env``, ``num_cpus``
    of a local cluster...)."""
    try:
        import ray
    except ImportError:
        raise ImportError("RayVecEnv needs Ray: pip install 'bohnanza[ray]'") from None
    if ray.is_initialized():
        return
    if address is None and not os.environ.get("RAY_ADDRESS"):
        init_kwargs.setdefault("include_dashboard", False)
    ray.init(address=address, **init_kwargs)


class RayVecEnv(VecEnv):
    """``len(env_fns)`` environments in ``ceil(len(env_fns) / envs_per_actor)`` Ray
    actors of ``num_cpus_per_actor`` CPUs each (environment ``i`` in actor
    ``i // envs_per_actor``).

    Args:
        env_fns: one factory per environment, each building a new environment; they
            are pickled (cloudpickle) to the actors.
        address: the cluster to join if this process has not joined one (see
            :func:`connect`).
        envs_per_actor: environments stepped one after the other in each actor: more
            amortise the round trip, fewer spread the work over more CPUs.
        num_cpus_per_actor: the CPUs Ray reserves for each actor (its scheduling unit;
            fractions pack several actors on a CPU).
        ray_init_kwargs: passed to ``ray.init`` when this class starts or joins the
            cluster (e.g. ``runtime_env``).
    """

    def __init__(
        self,
        env_fns: list[Callable[[], gym.Env[Any, Any]]],
        *,
        address: str | None = None,
        envs_per_actor: int = 1,
        num_cpus_per_actor: float = 1,
        ray_init_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if not env_fns:
            raise ValueError("RayVecEnv needs at least one environment factory")
        if envs_per_actor < 1:
            raise ValueError(f"envs_per_actor must be at least 1, not {envs_per_actor}")
        if num_cpus_per_actor < 0:
            raise ValueError(f"num_cpus_per_actor must be >= 0, not {num_cpus_per_actor}")
        connect(address, **(ray_init_kwargs or {}))
        import ray

        self._ray = ray
        self.closed = False
        self.waiting = False
        n = len(env_fns)
        n_actors = math.ceil(n / envs_per_actor)
        #: (first env, end) of each actor's slice of the environments.
        self._slices = [
            (a * envs_per_actor, min(n, (a + 1) * envs_per_actor)) for a in range(n_actors)
        ]
        # Ray would keep actors that do not fit waiting for CPUs, and this constructor
        # with them, without a word: refuse instead.
        resources: Any = ray.cluster_resources  # untyped in Ray
        cpus = float(resources().get("CPU", 0.0))
        if n_actors * num_cpus_per_actor > cpus + 1e-9:
            raise ValueError(
                f"{n_actors} actors of {num_cpus_per_actor:g} CPUs need "
                f"{n_actors * num_cpus_per_actor:g} CPUs, the Ray cluster has {cpus:g}: "
                "raise envs_per_actor, lower num_cpus_per_actor (fractions share a CPU), "
                "or add nodes"
            )
        actor_cls = ray.remote(EnvGroup).options(num_cpus=num_cpus_per_actor)
        self.actors: list[Any] = [actor_cls.remote(env_fns[s:e]) for s, e in self._slices]
        try:
            found = [_check(f) for f in ray.get([a.spaces.remote() for a in self.actors])]
        except BaseException:
            self._kill()
            raise
        observation_space, action_space, _, metadata = found[0]
        self._prefetch_masks = all(f[2] for f in found)
        self._masks: NDArray[Any] | None = None
        self._pending: list[Any] = []
        self._worker_cpu = 0.0
        super().__init__(n, observation_space, action_space)
        self.metadata = metadata
        self.keys, shapes, dtypes = obs_space_info(observation_space)
        self.buf_obs: OrderedDict[Any, NDArray[Any]] = OrderedDict(
            (k, np.zeros((n, *tuple(shapes[k])), dtype=dtypes[k])) for k in self.keys
        )

    # ------------------------------------------------------------------ stepping

    def step_async(self, actions: NDArray[Any]) -> None:
        if self.closed:
            raise RuntimeError("the RayVecEnv is closed")
        self._masks = None
        actions = np.asarray(actions)
        self._pending = [
            actor.step.remote(actions[s:e])
            for actor, (s, e) in zip(self.actors, self._slices, strict=True)
        ]
        self.waiting = True

    def step_wait(self) -> VecEnvStepReturn:
        raw = self._get(self._pending)
        self._pending = []
        self.waiting = False
        results = [_check(r) for r in raw]
        rews = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = []
        masks = []
        for (s, e), (obs, r, d, info, reset_info, m) in zip(self._slices, results, strict=True):
            self._save_obs(s, e, obs)
            rews[s:e] = r
            dones[s:e] = d
            infos.extend(info)
            for i in np.flatnonzero(d):  # the others keep their last reset's info
                self.reset_infos[s + int(i)] = reset_info[i]
            masks.append(m)
        self._keep_masks(masks)
        return self._obs_from_buf(), rews, dones, infos

    def reset(self) -> VecEnvObs:
        if self.closed:
            raise RuntimeError("the RayVecEnv is closed")
        self._masks = None
        if self.waiting:  # results of a step nobody waited for: drop them
            self._get(self._pending)
            self._pending = []
            self.waiting = False
        refs = [
            actor.reset.remote(self._seeds[s:e], self._options[s:e])
            for actor, (s, e) in zip(self.actors, self._slices, strict=True)
        ]
        results = [_check(r) for r in self._get(refs)]
        masks = []
        for (s, e), (obs, reset_info, m) in zip(self._slices, results, strict=True):
            self._save_obs(s, e, obs)
            self.reset_infos[s:e] = reset_info
            masks.append(m)
        self._keep_masks(masks)
        # Seeds and options are only used once
        self._reset_seeds()
        self._reset_options()
        return self._obs_from_buf()

    def close(self) -> None:
        """Close the environments and end the actors (the Ray cluster stays up: it may
        serve other work of this process; ``ray.shutdown()`` ends a local one)."""
        if self.closed:
            return
        try:
            if self.waiting:
                self._get(self._pending)
            with contextlib.suppress(Exception):  # a dead actor: the sum read last
                self.worker_cpu()
            self._get([a.close.remote() for a in self.actors])
        finally:
            self._kill()
            self.closed = True
            self.waiting = False

    def get_images(self) -> Sequence[NDArray[Any] | None]:
        if self.render_mode != "rgb_array":
            return [None] * self.num_envs
        return self.env_method("render")

    def worker_cpu(self) -> float:
        """CPU seconds the actors' processes used so far, summed (what a trainer adds to
        its own process time; SubprocVecEnv's workers are read from /proc instead, which
        a remote node's are not). After ``close()``: the last sum read."""
        if not self.closed:
            self._worker_cpu = float(sum(self._get([a.cpu_seconds.remote() for a in self.actors])))
        return self._worker_cpu

    # ------------------------------------------------------------------ attributes

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return self._per_actor(
            lambda actor, local: actor.get_attr.remote(attr_name, local), indices
        )

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._masks = None
        self._per_actor(
            lambda actor, local: actor.set_attr.remote(attr_name, value, local), indices
        )

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        if method_name == MASK_METHOD and not method_args and not method_kwargs:
            if self._masks is not None:
                return list(self._masks[self._index_list(indices)])
        else:
            self._masks = None
        return self._per_actor(
            lambda actor, local: actor.env_method.remote(
                method_name, method_args, method_kwargs, local
            ),
            indices,
        )

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper[Any, Any, Any, Any]], indices: VecEnvIndices = None
    ) -> list[bool]:
        return self._per_actor(
            lambda actor, local: actor.is_wrapped.remote(wrapper_class, local), indices
        )

    # ------------------------------------------------------------------ helpers

    def _get(self, refs: list[Any]) -> list[Any]:
        result: list[Any] = self._ray.get(refs)
        return result

    def _kill(self) -> None:
        for actor in self.actors:
            self._ray.kill(actor)
        self.actors = []

    def _index_list(self, indices: VecEnvIndices) -> list[int]:
        found = list(self._get_indices(indices))
        for i in found:
            if not 0 <= i < self.num_envs:
                raise IndexError(f"environment index {i} out of range 0..{self.num_envs - 1}")
        return found

    def _per_actor(
        self, call: Callable[[Any, list[int]], Any], indices: VecEnvIndices
    ) -> list[Any]:
        """One call per actor concerned, with its local indices; the results in the
        order of ``indices``."""
        wanted = self._index_list(indices)
        if self.closed:
            raise RuntimeError("the RayVecEnv is closed")
        per_actor: dict[int, list[int]] = {}
        for i in wanted:
            a = self._actor_of(i)
            per_actor.setdefault(a, []).append(i - self._slices[a][0])
        order = list(per_actor)
        results = self._get([call(self.actors[a], per_actor[a]) for a in order])
        values: dict[int, Iterator[Any]] = {}
        for a, r in zip(order, results, strict=True):
            values[a] = iter(_check(r))
        return [next(iter_) for iter_ in (values[self._actor_of(i)] for i in wanted)]

    def _actor_of(self, index: int) -> int:
        return index // (self._slices[0][1] - self._slices[0][0])

    def _save_obs(self, start: int, end: int, obs: dict[Any, NDArray[Any]]) -> None:
        for key in self.keys:
            self.buf_obs[key][start:end] = obs[key]

    def _obs_from_buf(self) -> VecEnvObs:
        return dict_to_obs(
            self.observation_space, OrderedDict((k, v.copy()) for k, v in self.buf_obs.items())
        )

    def _keep_masks(self, masks: list[NDArray[Any] | None]) -> None:
        if self._prefetch_masks and all(m is not None for m in masks):
            self._masks = np.concatenate([m for m in masks if m is not None])
        else:
            self._masks = None


__all__ = ["RayVecEnv", "connect"]
