"""Training a policy: MaskablePPO over vectorised environments, a league of opponents,
behaviour cloning as a warm start, evaluation on held-out seeds, export to numpy.

Needs the optional extra ``train`` (torch, sb3-contrib, tensorboard); torch and
stable-baselines3 are imported inside the functions that use them, so that
``bohnanza.rl`` and the ``bohnanza`` command import without them. The command line is
``bohnanza train`` (``bohnanza train --help``); the recipe is in ``docs/rl.md``.

A run lives in one folder:

    config.json          the run's configuration (a resumed run reads it back)
    checkpoints/         ppo_<steps>.zip (sb3) and ppo_<steps>.json (steps, CPU seconds)
    league/              snap_<steps>.npz: earlier policies the league draws opponents from
    eval/                policy_<steps>.npz: each evaluated policy (numpy format)
    learning_curve.csv   per evaluation and opponent set: steps, training CPU seconds,
                         games, wins, win rate and its 95% Wilson interval
    learning_curve.png   the curve (win rate against training CPU time)
    train.csv            per finished rollout: steps, CPU seconds, recent episode
                         reward and win rate (sb3's own CSV/TensorBoard logs in logs/)
    best.npz             the policy with the best mean evaluation win rate

CPU time is the main process's plus its worker processes' (read from ``/proc``), minus
the time spent in evaluations, so the curve shows what training cost.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from numpy.typing import NDArray

from ..actions import Action, ActionType
from ..agents import Agent, make_agent
from ..errors import ConfigError
from ..schedule import MAX_TRADE_ROUNDS
from ..tournament.stats import wilson
from .bohnanza_v0 import raw_env
from .policy import NumpyPolicy, action_index, save_policy
from .single_agent import SingleAgentEnv

#: Opponents the league draws from by default (each other seat draws its own).
DEFAULT_POOL = ("random", "autarky", "heuristic-v1", "heuristic")
#: Fixed evaluation opponent sets: the learner against every other seat of each.
DEFAULT_EVAL = ("autarky", "heuristic-v1")
#: The first held-out seed (docs/testing.md: 900,001-999,999, never trained on).
EVAL_SEED = 900_001
#: Seeds of a final evaluation: held out too, and apart from the curve's.
FINAL_SEED = 950_001
BACKENDS = ("subproc", "dummy", "ray")


def _need_train() -> None:
    try:
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            f"training needs the optional extra 'train' ({exc.name} is missing): "
            "pip install -e '.[rl,train]'"
        ) from None


def git_commit() -> str:
    """The source tree's commit (``unknown`` outside a git checkout), with ``+dirty``."""
    here = Path(__file__).resolve().parent
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (rev + ("+dirty" if dirty else "")) if rev else "unknown"


# ---------------------------------------------------------------------------- config


@dataclass
class RunConfig:
    """Everything a run is made of; written to ``config.json`` and read back on resume."""

    rules: str = "classic"
    players: int = 3
    options: dict[str, str] = field(default_factory=dict)
    seat: str = "random"  # "random", or a seat number
    pool: list[str] = field(default_factory=lambda: list(DEFAULT_POOL))
    league: bool = True
    league_share: float = 0.25  # the chance that a seat draws a snapshot, once there are any
    snapshot_every: int = 50_000
    league_keep: int = 5
    total_steps: int = 200_000
    n_envs: int = 1
    backend: str = "subproc"
    ray_address: str | None = (
        None  # ray: None = a local cluster (or RAY_ADDRESS); "auto"; "ray://host:10001"
    )
    envs_per_actor: int = 1  # ray: environments per actor (each actor call costs ~1.5 ms of CPU)
    seed: int = 0
    reward: str = "win"
    max_trade_rounds: int = MAX_TRADE_ROUNDS
    action_mode: str = "flat"  # "flat" (offer templates) or "builder" (offers step by step)
    memory: bool = False  # the observation's memory part (docs/rl.md)
    learning_rate: float = 3e-4
    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    ent_coef: float = 0.005
    clip_range: float = 0.2
    target_kl: float | None = 0.03
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    activation: str = "relu"
    checkpoint_every: int = 20_000
    eval_every: int = 20_000
    eval_games: int = 100
    eval_opponents: list[str] = field(default_factory=lambda: list(DEFAULT_EVAL))
    eval_grouped: bool = False  # the curve plays rl:PATH:grouped (the likeliest kind first)
    init: str | None = None  # a behaviour-cloned policy (bc_policy.pt) to start from
    torch_threads: int = 1
    command: str = ""
    commit: str = ""

    def check(self) -> None:
        if self.backend not in BACKENDS:
            raise ConfigError(f"backend must be one of {', '.join(BACKENDS)}, not {self.backend!r}")
        if self.activation not in ("tanh", "relu"):
            raise ConfigError("activation must be tanh or relu")
        if self.n_envs < 1 or self.total_steps < 1 or self.envs_per_actor < 1:
            raise ConfigError("n_envs, envs_per_actor and total_steps must be at least 1")
        if self.seat != "random" and not self.seat.isdigit():
            raise ConfigError(f"seat must be 'random' or a seat number, not {self.seat!r}")
        if not self.pool:
            raise ConfigError("the opponent pool is empty")
        for spec in [*self.pool, *self.eval_opponents]:
            make_agent(spec, 0)  # a ConfigError naming the spec
        env = raw_env(
            self.rules,
            self.players,
            options=self.options or None,
            action_mode=self.action_mode,
            memory=self.memory,
        )
        self.players = env.config.players
        if self.seat != "random" and int(self.seat) >= self.players:
            raise ConfigError(f"seat {self.seat} does not exist with {self.players} players")

    @classmethod
    def load(cls, path: Path) -> RunConfig:
        data = json.loads(path.read_text())
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(dataclasses.asdict(self), indent=2) + "\n")


# ---------------------------------------------------------------------------- environment


class LeagueEnv(gym.Env[NDArray[np.float32], np.int64]):
    """The learning seat against opponents drawn per episode: each other seat draws a
    spec from ``pool``, or (with probability ``league_share``, once any exist) one of the
    policy snapshots in ``league_dir`` as an ``rl:PATH`` agent. The learning seat is drawn
    too (``seat="random"``), so the policy learns every seat. Observations are the flat
    vector; ``action_masks()`` gives the mask (MaskablePPO)."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's API)

    def __init__(
        self,
        rules: str = "classic",
        players: int = 3,
        options: Mapping[str, str] | None = None,
        pool: Sequence[str] = DEFAULT_POOL,
        seat: str = "random",
        league_dir: str | None = None,
        league_share: float = 0.25,
        seed: int = 0,
        reward: str = "win",
        max_trade_rounds: int = MAX_TRADE_ROUNDS,
        action_mode: str = "flat",
        memory: bool = False,
    ) -> None:
        super().__init__()
        self.inner = SingleAgentEnv(
            rules,
            players,
            seat=0,
            opponents=pool[0],
            options=options,
            reward=reward,
            max_trade_rounds=max_trade_rounds,
            dict_obs=False,
            action_mode=action_mode,
            memory=memory,
        )
        self.players = self.inner.aec.config.players
        self.pool = list(pool)
        self.seat_mode = seat
        self.league_dir = league_dir
        self.league_share = league_share
        self.rng = random.Random(seed)
        self._seed = seed
        self._episodes = 0
        self.action_space = self.inner.action_space
        self.observation_space = self.inner.observation_space
        self._snapshots: list[str] = []
        self._scanned = -1

    def _league(self, rescan: bool = False) -> list[str]:
        if self.league_dir is None:
            return []
        # A listing per 20 games: the trainer prunes old snapshots in between, so a
        # listed file may be gone by the time it is drawn (see ``reset``).
        if rescan or self._scanned < 0 or self._episodes - self._scanned >= 20:
            self._scanned = self._episodes
            d = Path(self.league_dir)
            self._snapshots = sorted(str(p) for p in d.glob("snap_*.npz")) if d.is_dir() else []
        return self._snapshots

    def _draw(self, snaps: list[str]) -> list[str]:
        """An agent spec per other seat."""
        specs: list[str] = []
        for _ in range(self.players - 1):
            if snaps and self.rng.random() < self.league_share:
                specs.append("rl:" + self.rng.choice(snaps))
            else:
                specs.append(self.rng.choice(self.pool))
        return specs

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        if seed is not None:
            self.rng = random.Random(seed)
        self._episodes += 1
        n = self.players
        seat = self.rng.randrange(n) if self.seat_mode == "random" else int(self.seat_mode)
        env = self.inner
        env.seat = seat
        env.agent_name = env.aec.possible_agents[seat]
        snaps = self._league()
        for attempt in range(3):
            specs = self._draw(snaps)
            env.opponent_specs = list(specs)
            try:
                obs, info = env.reset(seed=self.rng.randrange(2**31 - 1))
                break
            except ConfigError:
                # A snapshot pruned since the listing (the trainer runs beside the
                # workers): list again and draw again; with no snapshot drawn, the
                # error is a real one and is raised.
                if attempt == 2 or not any(x.startswith("rl:") for x in specs):
                    raise
                snaps = self._league(rescan=True)
        info["opponents"] = specs
        info["seat"] = seat
        return obs, info

    def step(self, action: Any) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        obs, reward, done, trunc, info = self.inner.step(action)
        if done:
            info["win"] = float(self.inner.seat in info.get("winners", ()))
        return obs, reward, done, trunc, info

    def action_masks(self) -> NDArray[np.int8]:
        return self.inner.action_masks()


def _make_env(cfg: RunConfig, league_dir: str | None, rank: int) -> Callable[[], gym.Env[Any, Any]]:
    """A picklable maker of worker ``rank``'s environment (spawn-safe: module level)."""
    return _EnvMaker(cfg, league_dir, rank)


@dataclass
class _EnvMaker:
    cfg: RunConfig
    league_dir: str | None
    rank: int

    def __call__(self) -> gym.Env[Any, Any]:
        from stable_baselines3.common.monitor import Monitor

        c = self.cfg
        env = LeagueEnv(
            c.rules,
            c.players,
            c.options or None,
            c.pool,
            c.seat,
            self.league_dir if c.league else None,
            c.league_share,
            seed=c.seed * 1000 + self.rank,
            reward=c.reward,
            max_trade_rounds=c.max_trade_rounds,
            action_mode=c.action_mode,
            memory=c.memory,
        )
        return Monitor(env, info_keywords=("win",))


def make_vec_env(cfg: RunConfig, league_dir: str | None, seed_offset: int = 0) -> Any:
    """The vectorised environments of ``cfg.backend``: ``subproc`` (one worker process
    per environment, spawned), ``dummy`` (all in this process) or ``ray`` (Ray actors,
    :class:`bohnanza.rl.ray_vec.RayVecEnv`)."""
    fns = [_make_env(cfg, league_dir, seed_offset + i) for i in range(cfg.n_envs)]
    if cfg.backend == "dummy":
        from stable_baselines3.common.vec_env import DummyVecEnv

        return DummyVecEnv(fns)
    if cfg.backend == "ray":
        try:
            from .ray_vec import RayVecEnv  # type: ignore[import-not-found,unused-ignore]
        except ImportError as exc:
            raise ConfigError(f"the ray backend is not available: {exc}") from None
        return RayVecEnv(fns, address=cfg.ray_address, envs_per_actor=cfg.envs_per_actor)
    from stable_baselines3.common.vec_env import SubprocVecEnv

    return SubprocVecEnv(fns, start_method="spawn")


def _worker_cpu(vec: Any) -> float:
    """CPU seconds of the environments' worker processes so far: a SubprocVecEnv's read
    from /proc, a RayVecEnv's actors' as they report them (0 where unknown)."""
    if hasattr(vec, "worker_cpu"):
        return float(vec.worker_cpu())
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for p in getattr(vec, "processes", []) or []:
        try:
            parts = Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(parts[11]) + int(parts[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


# ---------------------------------------------------------------------------- model


def build_model(cfg: RunConfig, env: Any, tb_dir: str | None = None) -> Any:
    """A fresh MaskablePPO with ``cfg``'s network and hyper-parameters, on the CPU."""
    _need_train()
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(max(1, cfg.torch_threads))
    act = torch.nn.Tanh if cfg.activation == "tanh" else torch.nn.ReLU
    kwargs = {"net_arch": {"pi": list(cfg.hidden), "vf": list(cfg.hidden)}, "activation_fn": act}
    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=cfg.learning_rate,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        ent_coef=cfg.ent_coef,
        clip_range=cfg.clip_range,
        target_kl=cfg.target_kl,
        policy_kwargs=kwargs,
        seed=cfg.seed,
        device="cpu",
        tensorboard_log=tb_dir,
        verbose=0,
    )


def export_policy(policy: Any, path: str | os.PathLike[str], meta: Mapping[str, Any]) -> None:
    """Write an sb3 (Maskable)ActorCriticPolicy's actor as a numpy policy file."""
    import torch

    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    acts = {
        type(m).__name__
        for m in policy.mlp_extractor.policy_net
        if not isinstance(m, torch.nn.Linear)
    }
    activation = "tanh" if "Tanh" in acts else "relu"
    hidden = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in layers]
    an = policy.action_net
    action = (an.weight.detach().cpu().numpy(), an.bias.detach().cpu().numpy())
    save_policy(path, hidden, action, activation, meta)


def policy_meta(cfg: RunConfig, steps: int, **extra: Any) -> dict[str, Any]:
    env = raw_env(
        cfg.rules,
        cfg.players,
        options=cfg.options or None,
        max_trade_rounds=cfg.max_trade_rounds,
        action_mode=cfg.action_mode,
        memory=cfg.memory,
    )
    return {
        "rules": cfg.rules,
        "players": env.config.players,
        "options": dict(cfg.options),
        "action_mode": cfg.action_mode,
        "memory": cfg.memory,
        "obs_size": env.obs_size,
        "n_actions": env.n_actions,
        "max_trade_rounds": cfg.max_trade_rounds,
        "steps": steps,
        "commit": cfg.commit or git_commit(),
        "command": cfg.command,
        **extra,
    }


def export_checkpoint(checkpoint: str, out: str, run_dir: str | None = None) -> dict[str, Any]:
    """``bohnanza train export``: a checkpoint (.zip) to a numpy policy file; the run's
    ``config.json`` (next to ``checkpoints/``, or ``run_dir``) supplies the meta data."""
    _need_train()
    from sb3_contrib import MaskablePPO

    ck = Path(checkpoint)
    root = Path(run_dir) if run_dir else ck.parent.parent
    cfg_path = root / "config.json"
    if not cfg_path.is_file():
        raise ConfigError(f"no config.json in {str(root)!r}: pass the run folder")
    cfg = RunConfig.load(cfg_path)
    model = MaskablePPO.load(str(ck), device="cpu")
    meta = policy_meta(cfg, int(model.num_timesteps), checkpoint=str(ck))
    export_policy(model.policy, out, meta)
    return meta


# ---------------------------------------------------------------------------- evaluation


def evaluate(
    policy_file: str,
    rules: str,
    players: int,
    options: Mapping[str, str],
    opponent: str,
    games: int,
    first_seed: int = EVAL_SEED,
    grouped: bool = False,
) -> dict[str, Any]:
    """Play ``rl:policy_file`` against ``opponent`` in every other seat, on the seeds
    ``first_seed``, ``first_seed + 1``, …, the learner's seat rotating with the game;
    a shared win counts as a win. Through the engine's driver, as a tournament would.
    ``grouped`` plays ``rl:policy_file:grouped`` (the likeliest kind of action first)."""
    from ..simulate import GameSpec, options_tuple, play_one

    wins = 0
    coins = 0.0
    for i in range(games):
        seat = i % players
        me = f"rl:{policy_file}:grouped" if grouped else f"rl:{policy_file}"
        agents = tuple(me if k == seat else opponent for k in range(players))
        spec = GameSpec(rules, players, options_tuple(options), agents, None, fail_fast=True)
        out = play_one(spec, first_seed + i)
        wins += seat in out.winners
        coins += out.scores[seat]
    lo, hi = wilson(wins, games)
    return {
        "opponent": opponent,
        "grouped": grouped,
        "games": games,
        "wins": wins,
        "win_rate": wins / games if games else 0.0,
        "ci_low": lo,
        "ci_high": hi,
        "coins": coins / games if games else 0.0,
    }


CURVE_FIELDS = (
    "steps",
    "train_cpu_s",
    "wall_s",
    "opponent",
    "grouped",
    "games",
    "wins",
    "win_rate",
    "ci_low",
    "ci_high",
    "coins",
    "policy",
)


def plot_curve(csv_path: Path, png_path: Path) -> bool:
    """Draw the learning curve (win rate with its interval against training CPU time, a
    line per opponent set); ``False`` without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = list(csv.DictReader(csv_path.open()))
    fig, ax = plt.subplots(figsize=(7, 4))
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        rs = [r for r in rows if r["opponent"] == opp]
        x = [float(r["train_cpu_s"]) / 60 for r in rs]
        y = [float(r["win_rate"]) for r in rs]
        lo = [float(r["ci_low"]) for r in rs]
        hi = [float(r["ci_high"]) for r in rs]
        ax.plot(x, y, marker="o", label=f"vs {opp}")
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.set_xlabel("training CPU minutes")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------- training


def _latest_checkpoint(run: Path) -> Path | None:
    """The newest whole checkpoint: its side file (.json) is written after the model's
    .zip, so a run stopped between the two leaves a .zip that resume must not read."""
    cks = sorted(
        (p for p in (run / "checkpoints").glob("ppo_*.zip") if p.with_suffix(".json").is_file()),
        key=lambda p: int(p.stem.split("_")[1]),
    )
    return cks[-1] if cks else None


def train(
    cfg: RunConfig, out: str, resume: bool = False, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Run (or with ``resume`` continue) the training of ``cfg`` in folder ``out``; returns
    a summary (steps, CPU seconds, the last evaluation, the best policy file)."""
    _need_train()
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import configure

    run = Path(out)
    state: dict[str, Any] = {"steps": 0, "cpu_s": 0.0, "eval_cpu_s": 0.0, "wall_s": 0.0}
    if resume:
        if not (run / "config.json").is_file():
            raise ConfigError(f"nothing to resume in {out!r}: no config.json")
        total = cfg.total_steps
        cfg = RunConfig.load(run / "config.json")
        cfg.total_steps = max(cfg.total_steps, total)
    else:
        cfg.check()
        if (run / "config.json").exists():
            raise ConfigError(f"{out!r} holds a run already: --resume {out} continues it")
        cfg.commit = cfg.commit or git_commit()
    for sub in ("checkpoints", "league", "eval", "logs"):
        (run / sub).mkdir(parents=True, exist_ok=True)
    cfg.save(run / "config.json")
    torch.set_num_threads(max(1, cfg.torch_threads))

    ck = _latest_checkpoint(run) if resume else None
    vec = make_vec_env(
        cfg, str(run / "league"), seed_offset=0 if ck is None else int(ck.stem.split("_")[1])
    )
    try:
        tb = None
        try:
            import tensorboard  # type: ignore[import-untyped,unused-ignore]  # noqa: F401

            tb = "tensorboard"
        except ImportError:
            pass
        if ck is not None:
            model = MaskablePPO.load(str(ck), env=vec, device="cpu")
            side = json.loads(ck.with_suffix(".json").read_text())
            state.update(side)
            log(f"resumed from {ck} at {model.num_timesteps} steps")
        else:
            if resume:
                log("no checkpoint yet: starting afresh with the saved configuration")
            model = build_model(cfg, vec)
            if cfg.init:
                sd = torch.load(cfg.init, map_location="cpu", weights_only=True)
                try:
                    model.policy.load_state_dict(sd)
                except RuntimeError as exc:
                    raise ConfigError(
                        f"--init {cfg.init!r} does not fit this network: {exc}"
                    ) from None
                log(f"starting from the behaviour-cloned policy {cfg.init}")
        session = len(list((run / "logs").glob("session_*")))
        fmts = ["csv"] + (["tensorboard"] if tb else [])
        model.set_logger(configure(str(run / "logs" / f"session_{session}"), fmts))

        cpu0 = time.process_time()
        wall0 = time.perf_counter()
        base = {k: state[k] for k in ("cpu_s", "eval_cpu_s", "wall_s")}
        # A resumed run's workers are new processes: their CPU time starts from zero.

        def cpu_now() -> float:
            return float(base["cpu_s"]) + (time.process_time() - cpu0) + _worker_cpu(vec)

        def train_cpu() -> float:
            return cpu_now() - float(state["eval_cpu_s"])

        curve = run / "learning_curve.csv"
        best_path = run / "best.npz"
        best_score = float(state.get("best_score", -1.0))

        def run_eval(steps: int) -> list[dict[str, Any]]:
            nonlocal best_score
            t0 = time.process_time()
            file = run / "eval" / f"policy_{steps}.npz"
            export_policy(model.policy, file, policy_meta(cfg, steps))
            rows = []
            for opp in cfg.eval_opponents:
                r = evaluate(
                    str(file),
                    cfg.rules,
                    cfg.players,
                    cfg.options,
                    opp,
                    cfg.eval_games,
                    grouped=cfg.eval_grouped,
                )
                rows.append(r)
            state["eval_cpu_s"] += time.process_time() - t0
            new = not curve.exists()
            fields: Sequence[str] = CURVE_FIELDS
            if not new:  # a run begun before a column was added keeps its own header
                with curve.open(newline="") as f:
                    fields = next(csv.reader(f), []) or CURVE_FIELDS
            with curve.open("a", newline="") as f:
                w = csv.DictWriter(f, fields, extrasaction="ignore")
                if new:
                    w.writeheader()
                for r in rows:
                    w.writerow(
                        {
                            "steps": steps,
                            "train_cpu_s": round(train_cpu(), 1),
                            "wall_s": round(base["wall_s"] + time.perf_counter() - wall0, 1),
                            **{
                                k: (round(v, 4) if isinstance(v, float) else v)
                                for k, v in r.items()
                            },
                            "policy": str(file),
                        }
                    )
            score = float(np.mean([r["win_rate"] for r in rows]))
            if score > best_score:
                best_score = score
                state["best_score"] = score
                shutil.copyfile(file, best_path)
            plot_curve(curve, run / "learning_curve.png")
            log(
                f"eval at {steps} steps, {train_cpu():.0f} training CPU s: "
                + ", ".join(
                    f"{r['opponent']} {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                    for r in rows
                )
            )
            return rows

        def checkpoint(steps: int) -> None:
            path = run / "checkpoints" / f"ppo_{steps}.zip"
            model.save(str(path))
            side = {
                "steps": steps,
                "cpu_s": cpu_now(),
                "eval_cpu_s": state["eval_cpu_s"],
                "wall_s": base["wall_s"] + time.perf_counter() - wall0,
                "best_score": best_score,
            }
            path.with_suffix(".json").write_text(json.dumps(side) + "\n")

        def snapshot(steps: int) -> None:
            snaps = run / "league"
            export_policy(model.policy, snaps / f"snap_{steps:09d}.npz", policy_meta(cfg, steps))
            old = sorted(snaps.glob("snap_*.npz"))
            for p in old[: max(0, len(old) - cfg.league_keep)]:
                p.unlink()

        train_csv = run / "train.csv"

        class Hooks(BaseCallback):  # type: ignore[misc,unused-ignore]
            def __init__(self) -> None:
                super().__init__()
                self.wins: list[float] = []
                self.rews: list[float] = []
                self.next_ck = (
                    model.num_timesteps // cfg.checkpoint_every + 1
                ) * cfg.checkpoint_every
                self.next_ev = (model.num_timesteps // cfg.eval_every + 1) * cfg.eval_every
                self.next_snap = (
                    model.num_timesteps // cfg.snapshot_every + 1
                ) * cfg.snapshot_every

            def _on_step(self) -> bool:
                for info in self.locals.get("infos", ()):
                    ep = info.get("episode")
                    if ep is not None:
                        self.rews.append(float(ep["r"]))
                        self.wins.append(float(info.get("win", ep.get("win", 0.0))))
                return True

            def _on_rollout_end(self) -> None:
                steps = self.model.num_timesteps
                new = not train_csv.exists()
                with train_csv.open("a", newline="") as f:
                    w = csv.writer(f)
                    if new:
                        w.writerow(["steps", "train_cpu_s", "episodes", "ep_reward", "win_rate"])
                    w.writerow(
                        [
                            steps,
                            round(train_cpu(), 1),
                            len(self.rews),
                            round(float(np.mean(self.rews)), 4) if self.rews else "",
                            round(float(np.mean(self.wins)), 4) if self.wins else "",
                        ]
                    )
                self.rews, self.wins = [], []
                if cfg.league and steps >= self.next_snap:
                    snapshot(steps)
                    self.next_snap += cfg.snapshot_every
                if steps >= self.next_ev:
                    run_eval(steps)
                    self.next_ev = (steps // cfg.eval_every + 1) * cfg.eval_every
                if steps >= self.next_ck:
                    checkpoint(steps)
                    self.next_ck = (steps // cfg.checkpoint_every + 1) * cfg.checkpoint_every

        if model.num_timesteps == 0 and cfg.eval_every > 0 and not curve.exists():
            run_eval(0)  # where the curve starts (the behaviour-cloned or random policy)
        remaining = cfg.total_steps - model.num_timesteps
        if remaining > 0:
            model.learn(remaining, callback=Hooks(), reset_num_timesteps=False, tb_log_name="ppo")
        steps = int(model.num_timesteps)
        if not (run / "checkpoints" / f"ppo_{steps}.zip").exists():
            checkpoint(steps)
        if not curve.exists() or int(list(csv.DictReader(curve.open()))[-1]["steps"]) != steps:
            last = run_eval(steps)
        else:
            last = [r for r in csv.DictReader(curve.open()) if int(r["steps"]) == steps]
        export_policy(model.policy, run / "final.npz", policy_meta(cfg, steps))
        return {
            "steps": steps,
            "train_cpu_s": round(train_cpu(), 1),
            "eval_cpu_s": round(state["eval_cpu_s"], 1),
            "last_eval": last,
            "best": str(best_path) if best_path.exists() else None,
            "best_score": best_score,
        }
    finally:
        vec.close()


# ---------------------------------------------------------------------------- behaviour cloning


def bot_decisions(
    env: raw_env, bots: Sequence[Agent]
) -> Iterator[tuple[int, list[Action], Action | None]]:
    """Ask the engine bots seated in ``env``'s game for their choices, as the driver would
    (the legal actions with offers when the bot wants them, its own view), until the game
    is over: each item is (seat, legal actions, the bot's choice). The caller advances the
    environment (``step_action`` or the builder's steps) before taking the next item;
    turns where a seat has nothing to do and may pass are passed here, as the driver does.

    The one home of the loop that records teachers (:func:`record_decisions`) and that the
    environment's tests use to compare the encodings with what the bots chose."""
    g = env._g
    while not g.over:
        seat = env.seat
        bot = bots[seat]
        legal = g.legal_actions(seat, bot.wants_offers(g.turn))
        if not legal and not env.required:
            env.step_action(None)
            continue
        yield seat, legal, bot.act(g.view(seat, cached=True), legal, env.required)


def record_decisions(
    rules: str,
    players: int,
    options: Mapping[str, str] | None,
    teachers: Sequence[str],
    games: int,
    seed: int = 0,
    max_trade_rounds: int = MAX_TRADE_ROUNDS,
    action_mode: str = "flat",
    memory: bool = False,
) -> dict[str, NDArray[Any]]:
    """Play ``games`` games with the ``teachers`` (specs, one per seat or repeated) in the
    environment and record every decision of every seat that had more than one legal
    index: the observation, the mask, the index of the teacher's choice, the seat's final
    reward and the game.

    Flat mode labels a choice with :func:`bohnanza.rl.policy.action_index`; choices the
    encoding cannot name (offers beyond the templates) are played but not recorded, and
    ``unmapped`` counts them. Builder mode decomposes a choice into its builder steps
    (:meth:`bohnanza.rl.builder.Builder.steps_of`) and steps the environment through them,
    each step a sample with its own observation (the open draft in it) and mask; a choice
    whose steps the masks refuse is cancelled, played directly and counted in
    ``unmapped``. ``decisions`` counts the teachers' choices that had more than one
    legal index (the denominator of ``unmapped``)."""
    env = raw_env(
        rules,
        players,
        options=options or None,
        max_trade_rounds=max_trade_rounds,
        action_mode=action_mode,
        memory=memory,
    )
    enc = env.encoding
    builder = env.builder
    n = env.config.players
    obs_l: list[NDArray[np.float32]] = []
    mask_l: list[NDArray[np.int8]] = []
    act_l: list[int] = []
    seat_l: list[int] = []
    game_l: list[int] = []
    outcome_l: list[float] = []
    unmapped = 0
    decisions = 0
    unmapped_offers = 0
    offers = 0
    rng = random.Random(seed)
    for gi in range(games):
        env.reset(options={"game_seed": rng.randrange(2**31 - 1)})
        bots = [make_agent(teachers[k % len(teachers)], rng.randrange(2**31 - 1)) for k in range(n)]
        start = len(act_l)
        g = env._g
        for seat, legal, choice in bot_decisions(env, bots):
            mask = env._current_mask()
            agent = env.possible_agents[seat]
            if int(mask.sum()) <= 1:
                env.step_action(choice, legal)
                continue
            decisions += 1
            is_offer = choice is not None and choice.type is ActionType.PROPOSE
            offers += is_offer
            if builder is None:
                i = action_index(enc, env.view(), choice, mask)
                if i is None:
                    unmapped += 1
                    unmapped_offers += is_offer
                else:
                    obs_l.append(env.observe(agent)["observation"])
                    mask_l.append(mask.copy())
                    act_l.append(i)
                    seat_l.append(seat)
                    game_l.append(gi)
                env.step_action(choice, legal)
                continue
            steps = builder.steps_of(env.view(), choice)
            got: list[tuple[NDArray[np.float32], NDArray[np.int8], int]] = []
            ok = steps is not None
            for i in steps or ():
                m = env._current_mask()
                if not m[i]:
                    ok = False
                    break
                if int(m.sum()) > 1:
                    got.append((env.observe(agent)["observation"], m.copy(), i))
                env.step(i)
            if ok:
                for o, m, i in got:
                    obs_l.append(o)
                    mask_l.append(m)
                    act_l.append(i)
                    seat_l.append(seat)
                    game_l.append(gi)
                continue
            unmapped += 1
            unmapped_offers += is_offer
            if env.draft is not None:
                env.step(builder.base("cancel"))
            env.step_action(choice, legal)
        rewards = env.final_rewards(g)
        outcome_l += [rewards[s] for s in seat_l[start:]]
    size = env.n_actions
    return {
        "obs": np.asarray(obs_l, np.float32).reshape(-1, env.obs_size),
        "mask": np.packbits(np.asarray(mask_l, np.int8).reshape(-1, size).astype(bool), axis=1),
        "n_actions": np.asarray(size, np.int64),
        "action": np.asarray(act_l, np.int64),
        "seat": np.asarray(seat_l, np.int64),
        "game": np.asarray(game_l, np.int64),
        "outcome": np.asarray(outcome_l, np.float32),
        "unmapped": np.asarray(unmapped, np.int64),
        "decisions": np.asarray(decisions, np.int64),
        "offers": np.asarray(offers, np.int64),
        "unmapped_offers": np.asarray(unmapped_offers, np.int64),
        "meta": np.asarray(
            json.dumps(
                {
                    "rules": rules,
                    "players": n,
                    "options": dict(options or {}),
                    "teachers": list(teachers),
                    "games": games,
                    "seed": seed,
                    "action_mode": action_mode,
                    "memory": memory,
                }
            )
        ),
    }


def save_dataset(path: str | os.PathLike[str], data: Mapping[str, NDArray[Any]]) -> None:
    with open(path, "wb") as f:
        np.savez_compressed(f, **data)  # type: ignore[arg-type,unused-ignore]


def load_dataset(path: str | os.PathLike[str]) -> dict[str, NDArray[Any]]:
    with np.load(path, allow_pickle=False) as d:
        return {k: d[k] for k in d.files}


def dataset_masks(data: Mapping[str, NDArray[Any]]) -> NDArray[np.bool_]:
    n = int(data["n_actions"])
    return np.unpackbits(data["mask"], axis=1, count=n).astype(bool)


def behaviour_clone(
    cfg: RunConfig,
    data: Mapping[str, NDArray[Any]],
    out: str,
    epochs: int = 10,
    lr: float = 1e-3,
    holdout: float = 0.1,
    log: Callable[[str], None] = print,
    patience: int | None = None,
) -> dict[str, Any]:
    """Train ``cfg``'s policy network to imitate ``data``: cross-entropy of the masked
    logits on the teacher's index, plus the value head on the seat's final reward (so that
    PPO starts with a value estimate); the last ``holdout`` share of the games is held
    out for the imitation accuracy (the masked arg-max equals the teacher's index).
    The network kept is the epoch's with the best held-out accuracy: cloning overfits
    after a few epochs on a few hundred games, and the last epoch is then worse than an
    earlier one. With ``patience`` it stops after that many epochs without a better one.
    Writes ``bc_policy.pt`` (the policy's state, ``--init`` of a PPO run), ``bc.npz``
    (numpy policy) and ``bc.json``."""
    _need_train()
    import torch
    import torch.nn.functional as F
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(max(1, cfg.torch_threads))
    run = Path(out)
    run.mkdir(parents=True, exist_ok=True)
    vec = DummyVecEnv([_make_env(cfg, None, 0)])
    model = build_model(cfg, vec)
    pol = model.policy
    obs = torch.as_tensor(data["obs"])
    masks = torch.as_tensor(dataset_masks(data))
    y = torch.as_tensor(data["action"])
    v_target = torch.as_tensor(data["outcome"])
    games = data["game"]
    cut = int(np.ceil(games.max() + 1) * (1 - holdout)) if len(games) else 0
    train_i = np.flatnonzero(games < cut)
    test_i = np.flatnonzero(games >= cut)
    if len(train_i) == 0 or len(test_i) == 0:
        raise ConfigError("too few games for a held-out split: record more")
    opt = torch.optim.Adam(pol.parameters(), lr=lr)
    rng = np.random.default_rng(cfg.seed)

    def forward(idx: Any) -> tuple[Any, Any]:
        feats = pol.extract_features(obs[idx], pol.pi_features_extractor)
        if isinstance(feats, tuple):
            feats = feats[0]
        lp, lv = pol.mlp_extractor(feats)
        logits = pol.action_net(lp).masked_fill(~masks[idx], -1e9)
        return logits, pol.value_net(lv).squeeze(-1)

    def accuracy(idx: NDArray[np.int64]) -> float:
        hits = 0
        with torch.no_grad():
            for s in range(0, len(idx), 4096):
                b = idx[s : s + 4096]
                logits, _ = forward(b)
                hits += int((logits.argmax(-1) == y[b]).sum())
        return hits / max(1, len(idx))

    history = []
    best: tuple[float, int, dict[str, Any]] | None = None
    t0 = time.process_time()
    for epoch in range(epochs):
        perm = rng.permutation(train_i)
        total = 0.0
        for s in range(0, len(perm), 256):
            b = perm[s : s + 256]
            logits, value = forward(b)
            loss = F.cross_entropy(logits, y[b]) + 0.5 * F.mse_loss(value, v_target[b])
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call,unused-ignore]
            opt.step()
            total += float(loss.detach()) * len(b)
        acc = accuracy(test_i)
        history.append({"epoch": epoch + 1, "loss": total / len(perm), "heldout_accuracy": acc})
        log(f"bc epoch {epoch + 1}: loss {total / len(perm):.4f}, held-out accuracy {acc:.4f}")
        if best is None or acc > best[0]:
            state = {k: v.detach().clone() for k, v in pol.state_dict().items()}
            best = (acc, epoch + 1, state)
        elif patience is not None and epoch + 1 - best[1] >= patience:
            break
    if best is not None:
        pol.load_state_dict(best[2])
    train_acc = accuracy(train_i)
    test_acc = accuracy(test_i)
    torch.save(pol.state_dict(), run / "bc_policy.pt")
    meta = policy_meta(cfg, 0, bc=True)
    export_policy(pol, run / "bc.npz", meta)
    summary = {
        "samples": len(y),
        "train_samples": len(train_i),
        "heldout_samples": len(test_i),
        "heldout_games": int(games.max() + 1 - cut),
        "unmapped": int(data["unmapped"]),
        "decisions": int(data["decisions"]) if "decisions" in data else None,
        "offers": int(data["offers"]) if "offers" in data else None,
        "unmapped_offers": int(data["unmapped_offers"]) if "unmapped_offers" in data else None,
        "train_accuracy": train_acc,
        "heldout_accuracy": test_acc,
        "best_epoch": best[1] if best is not None else 0,
        "epochs": history,
        "cpu_s": round(time.process_time() - t0, 1),
        "config": dataclasses.asdict(cfg),
    }
    (run / "bc.json").write_text(json.dumps(summary, indent=2) + "\n")
    vec.close()
    return summary


def command_line() -> str:
    """The command as typed, for the run's provenance."""
    name = Path(sys.argv[0]).name
    if name in ("__main__.py", "cli.py"):  # python -m bohnanza
        name = "bohnanza"
    return " ".join([name, *sys.argv[1:]])


__all__ = [
    "BACKENDS",
    "DEFAULT_EVAL",
    "DEFAULT_POOL",
    "EVAL_SEED",
    "FINAL_SEED",
    "LeagueEnv",
    "NumpyPolicy",
    "RunConfig",
    "behaviour_clone",
    "bot_decisions",
    "dataset_masks",
    "evaluate",
    "export_checkpoint",
    "export_policy",
    "load_dataset",
    "make_vec_env",
    "plot_curve",
    "record_decisions",
    "save_dataset",
    "train",
    "wilson",
]
