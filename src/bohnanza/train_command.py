"""``bohnanza train``: behaviour cloning, MaskablePPO with a league, export, evaluation.

The heavy imports (torch, sb3-contrib, the environment) happen inside the commands, so
that ``bohnanza --help`` works without the ``rl`` and ``train`` extras. The recipe is in
``docs/rl.md``; the machinery in :mod:`bohnanza.rl.train`.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from .errors import BohnanzaError
from .run_options import fail as _fail
from .run_options import parse_options


def _train_module() -> Any:
    try:
        from .rl import train as t
    except ImportError as exc:
        _fail(str(exc))
    return t


def _specs(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def _ints(text: str) -> list[int]:
    try:
        out = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        _fail(f"--hidden takes layer widths like 256,256, not {text!r}")
    if not out or min(out) < 1:
        _fail("--hidden needs at least one positive width")
    return out


def _game(f: Any) -> Any:
    f = click.option(
        "--option", "options", multiple=True, metavar="KEY=VALUE", help="Rule-set option."
    )(f)
    f = click.option("--players", "-p", type=int, default=3, show_default=True, help="Players.")(f)
    f = click.option("--rules", "-r", default="classic", show_default=True, help="Rule set.")(f)
    return f


def _modes(f: Any) -> Any:
    f = click.option(
        "--memory/--no-memory",
        default=False,
        show_default=True,
        help="Append the memory part to the observation (docs/rl.md).",
    )(f)
    f = click.option(
        "--action-mode",
        type=click.Choice(["flat", "builder"]),
        default="flat",
        show_default=True,
        help="flat: offer templates, one index each; builder: offers and payments "
        "composed step by step (every offer the engine allows).",
    )(f)
    return f


def _network(f: Any) -> Any:
    f = click.option(
        "--activation", type=click.Choice(["relu", "tanh"]), default="relu", show_default=True
    )(f)
    f = click.option(
        "--hidden",
        default="256,256",
        show_default=True,
        help="Hidden layer widths (policy and value nets).",
    )(f)
    f = click.option("--seed", type=int, default=0, show_default=True, help="Seed of the run.")(f)
    f = click.option("--threads", type=int, default=1, show_default=True, help="Torch threads.")(f)
    return f


@click.group("train")
def train() -> None:
    """Train a policy (needs the extras rl and train): bc records a bot and imitates it,
    ppo runs MaskablePPO (from scratch, from --init, or --resume), export writes the
    numpy policy file that the agent spec rl:PATH plays, eval plays it on held-out seeds."""


@train.command("ppo")
@click.option(
    "--out", "out", type=click.Path(file_okay=False), default=None, help="New run folder."
)
@click.option(
    "--resume",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="Continue the run in this folder from its last checkpoint, with its saved configuration (--total-steps may raise the goal).",
)
@_game
@_network
@_modes
@click.option(
    "--total-steps",
    type=int,
    default=200_000,
    show_default=True,
    help="Environment steps (of the learning seat) in all.",
)
@click.option(
    "--n-envs",
    type=int,
    default=1,
    show_default=True,
    help="Environments (one worker process each with subproc).",
)
@click.option(
    "--backend",
    type=click.Choice(["subproc", "dummy", "ray"]),
    default="subproc",
    show_default=True,
    help="subproc: spawned worker processes; dummy: in this process; ray: Ray actors (bohnanza.rl.ray_vec).",
)
@click.option(
    "--ray-address",
    default=None,
    help="With --backend ray: the cluster (auto, HOST:PORT or ray://HOST:10001); default a local one or RAY_ADDRESS.",
)
@click.option(
    "--envs-per-actor",
    type=int,
    default=1,
    show_default=True,
    help="With --backend ray: environments per Ray actor (fewer, busier actors cost less CPU per step).",
)
@click.option(
    "--opponents",
    default="random,autarky,heuristic-v1,heuristic",
    show_default=True,
    help="The pool each other seat draws its agent spec from, per episode.",
)
@click.option(
    "--league/--no-league",
    default=True,
    show_default=True,
    help="Also draw earlier snapshots of the policy (rl:PATH) as opponents.",
)
@click.option(
    "--league-share",
    type=float,
    default=0.25,
    show_default=True,
    help="Chance that a seat draws a snapshot, once there are any.",
)
@click.option(
    "--snapshot-every",
    type=int,
    default=50_000,
    show_default=True,
    help="Steps between league snapshots.",
)
@click.option(
    "--seat",
    default="random",
    show_default=True,
    help="The learning seat: random (drawn per episode) or a number.",
)
@click.option("--reward", type=click.Choice(["win", "coins"]), default="win", show_default=True)
@click.option("--lr", type=float, default=3e-4, show_default=True, help="Learning rate.")
@click.option(
    "--n-steps",
    type=int,
    default=1024,
    show_default=True,
    help="Steps per environment per rollout.",
)
@click.option("--batch-size", type=int, default=256, show_default=True)
@click.option("--epochs", type=int, default=4, show_default=True, help="PPO epochs per rollout.")
@click.option("--gamma", type=float, default=0.995, show_default=True)
@click.option("--ent-coef", type=float, default=0.005, show_default=True)
@click.option("--clip", type=float, default=0.2, show_default=True)
@click.option(
    "--target-kl",
    type=float,
    default=0.03,
    show_default=True,
    help="Stop a rollout's epochs past this KL (0: never).",
)
@click.option("--checkpoint-every", type=int, default=20_000, show_default=True)
@click.option(
    "--eval-every",
    type=int,
    default=20_000,
    show_default=True,
    help="Steps between evaluations (0: only at the end).",
)
@click.option(
    "--eval-games",
    type=int,
    default=100,
    show_default=True,
    help="Games per evaluation opponent (held-out seeds from 900001, learner seat rotating).",
)
@click.option(
    "--eval-opponents",
    default="autarky,heuristic-v1",
    show_default=True,
    help="Evaluation opponents: each fills every other seat in turn.",
)
@click.option(
    "--eval-grouped/--eval-argmax",
    default=False,
    show_default=True,
    help="Evaluate the grouped choice (the likeliest kind of action, then its likeliest "
    "index) instead of the plain argmax.",
)
@click.option(
    "--init",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Start from a behaviour-cloned policy (bc_policy.pt of bohnanza train bc).",
)
def ppo_cmd(
    out: str | None,
    resume: str | None,
    rules: str,
    players: int,
    options: tuple[str, ...],
    activation: str,
    hidden: str,
    seed: int,
    threads: int,
    total_steps: int,
    n_envs: int,
    backend: str,
    ray_address: str | None,
    envs_per_actor: int,
    opponents: str,
    league: bool,
    league_share: float,
    snapshot_every: int,
    seat: str,
    reward: str,
    lr: float,
    n_steps: int,
    batch_size: int,
    epochs: int,
    gamma: float,
    ent_coef: float,
    clip: float,
    target_kl: float,
    checkpoint_every: int,
    eval_every: int,
    eval_games: int,
    eval_opponents: str,
    eval_grouped: bool,
    init: str | None,
    action_mode: str,
    memory: bool,
) -> None:
    """MaskablePPO on the CPU against a league of opponents; checkpoints, CSV (and
    TensorBoard) logs, a learning curve on held-out seeds."""
    if (out is None) == (resume is None):
        _fail("give either --out DIR (a new run) or --resume DIR")
    t = _train_module()
    cfg = t.RunConfig(
        rules=rules,
        players=players,
        options=parse_options(options),
        seat=seat,
        pool=_specs(opponents),
        league=league,
        league_share=league_share,
        snapshot_every=max(1, snapshot_every),
        total_steps=total_steps,
        n_envs=n_envs,
        backend=backend,
        ray_address=ray_address,
        envs_per_actor=envs_per_actor,
        seed=seed,
        reward=reward,
        learning_rate=lr,
        n_steps=n_steps,
        batch_size=batch_size,
        n_epochs=epochs,
        gamma=gamma,
        ent_coef=ent_coef,
        clip_range=clip,
        target_kl=target_kl or None,
        hidden=_ints(hidden),
        activation=activation,
        checkpoint_every=max(1, checkpoint_every),
        eval_every=eval_every if eval_every > 0 else 10**12,
        eval_games=eval_games,
        eval_opponents=_specs(eval_opponents),
        eval_grouped=eval_grouped,
        init=init,
        action_mode=action_mode,
        memory=memory,
        torch_threads=threads,
        command=t.command_line(),
    )
    run = resume or out
    assert run is not None  # one of the two, checked above
    try:
        with _terminate_as_interrupt():
            summary = t.train(
                cfg, run, resume=resume is not None, log=lambda s: click.echo(s, err=True)
            )
    except BohnanzaError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        last = t._latest_checkpoint(Path(run))
        where = f"the last checkpoint is {last}" if last else "no checkpoint was written yet"
        click.echo(
            f"\nstopped: {where}; bohnanza train ppo --resume {run} continues the run", err=True
        )
        sys.exit(130)
    click.echo(json.dumps(summary, indent=2, default=str))


@contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a run as Ctrl-C does (the workers closed, the checkpoints kept).

    A run started in the background of a script never sees Ctrl-C: a non-interactive shell
    starts its background jobs with SIGINT ignored, so ``kill`` (SIGTERM) is how such a
    run is stopped, and it should stop as cleanly."""

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        old = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: leave the signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@train.command("bc")
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    required=True,
    help="Folder for the data set and the cloned policy.",
)
@_game
@_network
@_modes
@click.option(
    "--teacher",
    default="heuristic",
    show_default=True,
    help="Agent specs whose decisions are recorded, one per seat or repeated (e.g. heuristic or heuristic,search).",
)
@click.option(
    "--games",
    type=int,
    default=200,
    show_default=True,
    help="Games to record (every seat's decisions).",
)
@click.option(
    "--data",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Use this recorded data set (.npz) instead of recording.",
)
@click.option("--epochs", type=int, default=10, show_default=True)
@click.option("--lr", type=float, default=1e-3, show_default=True)
@click.option(
    "--holdout",
    type=float,
    default=0.1,
    show_default=True,
    help="Share of the games held out for the imitation accuracy.",
)
@click.option(
    "--patience",
    type=int,
    default=None,
    help="Stop after this many epochs without a better held-out accuracy (the best epoch's network is kept either way).",
)
def bc_cmd(
    out: str,
    rules: str,
    players: int,
    options: tuple[str, ...],
    activation: str,
    hidden: str,
    seed: int,
    threads: int,
    teacher: str,
    games: int,
    data: str | None,
    epochs: int,
    lr: float,
    holdout: float,
    patience: int | None,
    action_mode: str,
    memory: bool,
) -> None:
    """Behaviour cloning: record a bot's decisions through the environment's encoding
    (observation, mask, the index of its choice), save them (dataset.npz), train the
    policy network to imitate them and report the held-out imitation accuracy. Start
    PPO from it with bohnanza train ppo --init OUT/bc_policy.pt (same --hidden)."""
    from pathlib import Path

    t = _train_module()
    cfg = t.RunConfig(
        rules=rules,
        players=players,
        options=parse_options(options),
        seed=seed,
        hidden=_ints(hidden),
        activation=activation,
        torch_threads=threads,
        pool=["random"],
        eval_opponents=[],
        action_mode=action_mode,
        memory=memory,
        command=t.command_line(),
    )
    try:
        cfg.check()
        Path(out).mkdir(parents=True, exist_ok=True)
        record_cpu = None
        if data is None:
            start = time.process_time()
            ds = t.record_decisions(
                rules,
                cfg.players,
                cfg.options,
                _specs(teacher),
                games,
                seed,
                action_mode=action_mode,
                memory=memory,
            )
            record_cpu = round(time.process_time() - start, 1)
            data = str(Path(out) / "dataset.npz")
            t.save_dataset(data, ds)
            click.echo(
                f"recorded {len(ds['action'])} samples of {games} games into {data} "
                f"({int(ds['unmapped'])} of {int(ds['decisions'])} choices beyond the "
                f"encoding skipped, {int(ds['unmapped_offers'])} of {int(ds['offers'])} offers)",
                err=True,
            )
        summary = t.behaviour_clone(
            cfg,
            t.load_dataset(data),
            out,
            epochs,
            lr,
            holdout,
            log=lambda s: click.echo(s, err=True),
            patience=patience,
        )
    except BohnanzaError as exc:
        _fail(str(exc))
    summary.pop("config", None)
    summary["record_cpu_s"] = record_cpu
    click.echo(json.dumps(summary, indent=2))


@train.command("export")
@click.argument("checkpoint", type=click.Path(dir_okay=False, exists=True))
@click.argument("out", type=click.Path(dir_okay=False))
@click.option(
    "--run",
    "run_dir",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="The run folder (default: the checkpoint's folder's parent).",
)
def export_cmd(checkpoint: str, out: str, run_dir: str | None) -> None:
    """Write a checkpoint's policy as a numpy policy file (play it as rl:OUT)."""
    t = _train_module()
    try:
        meta = t.export_checkpoint(checkpoint, out, run_dir)
    except BohnanzaError as exc:
        _fail(str(exc))
    click.echo(json.dumps(meta, indent=2))


@train.command("eval")
@click.argument("policy", type=click.Path(dir_okay=False, exists=True))
@click.option(
    "--opponents",
    default="autarky,heuristic-v1",
    show_default=True,
    help="Each fills every other seat in turn.",
)
@click.option("--games", type=int, default=200, show_default=True)
@click.option("--seed", type=int, default=950_001, show_default=True, help="First held-out seed.")
@click.option(
    "--grouped",
    is_flag=True,
    help="Play the policy as rl:POLICY:grouped (the likeliest kind of action first).",
)
def eval_cmd(policy: str, opponents: str, games: int, seed: int, grouped: bool) -> None:
    """Play rl:POLICY against each opponent set on held-out seeds (learner seat rotating):
    win rates with 95% Wilson intervals."""
    t = _train_module()
    from .rl.policy import load_policy

    try:
        meta = load_policy(policy).meta
        rows = [
            t.evaluate(
                policy,
                meta["rules"],
                int(meta["players"]),
                meta.get("options", {}),
                o,
                games,
                seed,
                grouped,
            )
            for o in _specs(opponents)
        ]
    except BohnanzaError as exc:
        _fail(str(exc))
    click.echo(json.dumps(rows, indent=2))


@train.command("plot")
@click.argument("run", type=click.Path(file_okay=False, exists=True))
def plot_cmd(run: str) -> None:
    """Draw RUN/learning_curve.png from RUN/learning_curve.csv."""
    from pathlib import Path

    t = _train_module()
    if not t.plot_curve(Path(run) / "learning_curve.csv", Path(run) / "learning_curve.png"):
        _fail("plotting needs matplotlib")
    click.echo(str(Path(run) / "learning_curve.png"))


@train.command("value-data")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="Data file (.npz).")
@click.option("--games", type=int, default=700, show_default=True)
@click.option(
    "--seed", type=int, default=300_001, show_default=True, help="Seed of the first game."
)
@click.option("--rules", "-r", default="classic", show_default=True, help="Rule set.")
@click.option(
    "--players", default="3,4,5", show_default=True, help="Player counts, cycled over the games."
)
@click.option("--workers", "-w", type=int, default=1, show_default=True)
@click.option(
    "--backend",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="ray: Ray tasks on the cluster ray.init() finds (large runs).",
)
@click.option(
    "--pool",
    "pool_items",
    multiple=True,
    metavar="SPEC=WEIGHT",
    help="A bot the seats are drawn from, with its weight (repeat; rl: the shipped "
    "policy). Default: the varied pool of docs/value.md.",
)
def value_data_cmd(
    out: str,
    games: int,
    seed: int,
    rules: str,
    players: str,
    workers: int,
    backend: str,
    pool_items: tuple[str, ...],
) -> None:
    """Record positions and outcomes from seeded games of a varied pool of bots, for
    bohnanza train value (docs/value.md); numpy only."""
    try:
        from .value.data import POOL, generate, parse_pool

        meta = generate(
            out,
            games=games,
            seed=seed,
            rules=rules,
            players=[int(p) for p in players.split(",") if p.strip()],
            pool=parse_pool(pool_items) if pool_items else POOL,
            workers=workers,
            backend=backend,
        )
    except (BohnanzaError, ImportError, ValueError) as exc:
        _fail(str(exc))
    click.echo(json.dumps({k: v for k, v in meta.items() if k != "seats"}, indent=2))


@train.command("value")
@click.argument("data", nargs=-1, required=True, type=click.Path(dir_okay=False, exists=True))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="Model file (.npz).")
@click.option("--kind", type=click.Choice(["mlp", "ridge"]), default="mlp", show_default=True)
@click.option("--hidden", type=int, default=32, show_default=True, help="Hidden units (mlp).")
@click.option("--epochs", type=int, default=60, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Calibration PNG.")
@click.option(
    "--target",
    type=click.Choice(["gain", "win"]),
    default="gain",
    show_default=True,
    help="gain: coins still to come (valuesearch's m=); win: the share of the win (its wm=).",
)
def value_cmd(
    data: tuple[str, ...],
    out: str,
    kind: str,
    hidden: int,
    epochs: int,
    seed: int,
    plot: str | None,
    target: str,
) -> None:
    """Train the value model that valuesearch scores its roll-outs with, from DATA files
    (bohnanza train value-data): held-out errors (games whose seed % 5 == 0) against a
    constant, ridge and the network, and a calibration plot (docs/value.md)."""
    try:
        from .value.train import train_value

        meta = train_value(
            list(data),
            out,
            kind=kind,
            hidden=hidden,
            epochs=epochs,
            seed=seed,
            plot=plot,
            target=target,
        )
    except (BohnanzaError, ImportError, ValueError) as exc:
        _fail(str(exc))
    shown = ("heldout", "heldout_games", "train_rows", "heldout_rows", "commit", "train_cpu_s")
    click.echo(json.dumps({k: meta[k] for k in shown}, indent=2))
