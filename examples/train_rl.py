"""Train a small policy network to play Bohnanza against bots (CPU, numpy only).

Needs the optional extra ``rl`` (numpy, gymnasium, pettingzoo, matplotlib)::

    pip install -e '.[rl]'
    python examples/train_rl.py                 # a few minutes on 2 cores
    python examples/train_rl.py --quick         # a seconds-long smoke run
    python examples/train_rl.py --opponents heuristic,random --action-mode builder --memory

The learner plays one seat of ``classic`` (3 players by default) through
:class:`bohnanza.rl.SingleAgentEnv`; the other seats are the bots of ``--opponents``
(any agent specs, comma-separated: one for every other seat, or one per seat in seat
order; default ``random``). ``--action-mode builder`` trains in the offer-builder action
space and ``--memory`` adds the memory part to the observation (docs/rl.md).
The policy is a one-hidden-layer network over the observation vector with a masked
softmax over the action encoding (illegal actions get probability 0) and a value head;
it is trained with REINFORCE and the value as baseline (advantages normalised per batch,
an entropy bonus, Adam). The learning signal is the learner's coins, paid when earned
(reward-to-go: the coins still to be earned from each decision on), plus a bonus for a win
at the end.

Every ``--eval-every`` batches the greedy policy (the most probable legal action) plays
``--eval-games`` games on held-out seeds (never used for training); its win rate (a
shared win counts as a share) goes into the learning curve, written as a PNG together
with the win rate of the engine's ``random`` bot in the same seat on the same seeds and
the 1/players line. The curve and the final evaluation are played against each of the
``--eval-opponents`` (default: ``random``, ``autarky``, ``heuristic-v1``, ``heuristic``;
the learner in seat 0, every other seat that bot), each with its 95% Wilson interval.
The final numbers are printed.

This is the small, dependency-free example. The full pipeline (MaskablePPO over worker
processes, a league of opponents, behaviour cloning, checkpoints and resume, the numpy
policy agent ``rl:PATH``) is ``bohnanza train`` (:mod:`bohnanza.rl.train`, the ``train``
extra); its recipe is in docs/rl.md ("Training with bohnanza train").
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The matrices are small: one BLAS thread per process is fastest (set before numpy loads).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

from bohnanza.rl import SingleAgentEnv  # noqa: E402

Params = dict[str, NDArray[np.float64]]
EVAL_SEED_BASE = 1_000_000  # held-out game seeds: training uses seeds below this


# ---------------------------------------------------------------------- the network


def save_example_policy(out: Path, params: Params, args: argparse.Namespace) -> Path:
    """Write the trained network where the agent spec ``rl:PATH`` can play it: a policy
    file (:func:`bohnanza.rl.policy.save_policy`: the hidden layer and the action head,
    tanh, with the training's rule set, players, observation size and commit in its
    meta) at ``policy.npz``, in any action mode, with or without memory: the agent plays
    them all (builder steps and the memory rebuilt from its views, docs/rl.md)."""
    from bohnanza.rl.policy import save_policy
    from bohnanza.rl.train import git_commit
    from bohnanza.schedule import MAX_TRADE_ROUNDS

    path = out / "policy.npz"
    meta = {
        "rules": args.rules,
        "players": args.players,
        "obs_size": int(params["W1"].shape[0]),
        "n_actions": int(params["W2"].shape[1]),
        "action_mode": args.action_mode,
        "memory": bool(args.memory),
        "max_trade_rounds": MAX_TRADE_ROUNDS,
        "network": f"examples/train_rl.py: one hidden layer of {params['W1'].shape[1]} tanh units",
        "commit": git_commit(),
        "opponents": args.opponents,
    }
    save_policy(
        path, [(params["W1"].T, params["b1"])], (params["W2"].T, params["b2"]), "tanh", meta
    )
    print(f"the policy plays as the agent spec rl:{path}")
    return path


def init_params(obs_size: int, n_actions: int, hidden: int, rng: np.random.Generator) -> Params:
    return {
        "W1": rng.normal(0.0, 1.0 / np.sqrt(obs_size), (obs_size, hidden)),
        "b1": np.zeros(hidden),
        "W2": rng.normal(0.0, 0.01, (hidden, n_actions)),
        "b2": np.zeros(n_actions),
        "w3": np.zeros(hidden),
        "b3": np.zeros(1),
    }


def forward(
    p: Params, x: NDArray[Any], mask: NDArray[Any]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Hidden layer, masked action probabilities and values for a batch of states."""
    h = np.tanh(x @ p["W1"] + p["b1"])
    z = h @ p["W2"] + p["b2"]
    z = np.where(mask > 0, z, -1e9)
    z -= z.max(axis=-1, keepdims=True)
    e = np.exp(z) * (mask > 0)
    probs = e / e.sum(axis=-1, keepdims=True)
    values = h @ p["w3"] + p["b3"][0]
    return h, probs, values


def act(p: Params, obs: dict[str, NDArray[Any]], rng: np.random.Generator | None) -> int:
    """Sample an action (``rng``) or take the most probable one (``rng=None``)."""
    _, probs, _ = forward(p, obs["observation"][None, :], obs["action_mask"][None, :])
    if rng is None:
        return int(np.argmax(probs[0]))
    cumulative = np.cumsum(probs[0])
    # The first index whose cumulative probability exceeds u: always a legal one.
    return int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))


# ---------------------------------------------------------------------- playing


@dataclass
class Episode:
    obs: NDArray[np.float32]
    masks: NDArray[np.int8]
    actions: NDArray[np.int64]
    rewards: NDArray[np.float64]
    win: float
    coins: int


def win_share(info: dict[str, Any], seat: int) -> float:
    winners = info.get("winners", [])
    return 1.0 / len(winners) if seat in winners else 0.0


def opponents(spec: str, players: int) -> list[str]:
    """``--opponents``: one spec for every other seat, or one per other seat."""
    specs = [s.strip() for s in spec.split(",") if s.strip()]
    if len(specs) == 1:
        return specs * (players - 1)
    if len(specs) != players - 1:
        raise SystemExit(f"--opponents: give 1 or {players - 1} agent specs, not {len(specs)}")
    return specs


def play_episode(
    params: Params,
    seed: int,
    config: dict[str, Any],
    greedy: bool,
    record: bool,
    opponent: str = "random",
) -> Episode:
    """One game of the learner; game, seat and bots from ``seed``. Training games
    (``record``) put the learner in a random seat against ``config["opponents"]``,
    evaluations in seat 0 against ``opponent`` in every other seat."""
    rng = np.random.default_rng(seed)
    seat = int(rng.integers(config["players"])) if record and config["random_seat"] else 0
    env = SingleAgentEnv(
        config["rules"],
        config["players"],
        seat=seat,
        opponents=opponents(config["opponents"] if record else opponent, config["players"]),
        seed=seed,
        action_mode=config["action_mode"],
        memory=config["memory"],
    )
    obs, info = env.reset()
    xs: list[NDArray[np.float32]] = []
    ms: list[NDArray[np.int8]] = []
    acts: list[int] = []
    rewards: list[float] = []
    coins = 0
    done = False
    while not done:
        a = act(params, obs, None if greedy else rng)
        if record:
            xs.append(obs["observation"])
            ms.append(obs["action_mask"])
            acts.append(a)
        obs, _, done, _, info = env.step(a)
        now = env.aec.view(seat).seats[seat].coins  # public information
        rewards.append(float(now - coins))
        coins = now
    win = win_share(info, seat)
    if rewards:
        rewards[-1] += config["win_bonus"] * win
    empty_x = np.zeros((0, env.aec.obs_size), dtype=np.float32)
    return Episode(
        np.array(xs, dtype=np.float32) if xs else empty_x,
        np.array(ms, dtype=np.int8),
        np.array(acts, dtype=np.int64),
        np.array(rewards if record else [], dtype=np.float64),
        win,
        int(info["scores"][seat]),
    )


def random_bot_result(seed: int, config: dict[str, Any]) -> tuple[float, int]:
    """The engine's ``random`` bot in seat 0 of the same held-out game (same deal, same
    opponent bots) as the evaluation of the trained policy."""
    from bohnanza.agents import make_agent

    env = SingleAgentEnv(config["rules"], config["players"], seat=0, opponents="random", seed=seed)
    env.reset()
    me = make_agent("random", seed)
    aec = env.aec
    done = False
    info: dict[str, Any] = {}
    while not done:
        g = aec._g
        legal = g.legal_actions(0, me.wants_offers(g.turn))
        choice = me.act(aec.view(0), legal, aec.required) if legal or aec.required else None
        _, _, done, _, info = env.step_action(choice, legal)
    return win_share(info, 0), int(info["scores"][0])


def _worker(task: tuple[str, Params | None, list[int], dict[str, Any]]) -> list[Any]:
    kind, params, seeds, config = task
    if kind == "random":
        return [random_bot_result(s, config) for s in seeds]
    assert params is not None
    if kind.startswith("eval:"):
        spec = kind.split(":", 1)[1]
        return [play_episode(params, s, config, True, False, spec) for s in seeds]
    return [play_episode(params, s, config, False, True) for s in seeds]


# ---------------------------------------------------------------------- learning


def gradients(
    p: Params, episodes: list[Episode], gamma: float, entropy: float, value_coef: float
) -> tuple[Params, dict[str, float]]:
    x = np.concatenate([e.obs for e in episodes])
    mask = np.concatenate([e.masks for e in episodes])
    a = np.concatenate([e.actions for e in episodes])
    returns = []
    for e in episodes:
        g = np.zeros(len(e.rewards))
        running = 0.0
        for t in range(len(e.rewards) - 1, -1, -1):
            running = e.rewards[t] + gamma * running
            g[t] = running
        returns.append(g)
    ret = np.concatenate(returns)
    h, probs, values = forward(p, x, mask)
    adv = ret - values
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    n = len(a)
    onehot = np.zeros_like(probs)
    onehot[np.arange(n), a] = 1.0
    logp = np.log(np.where(mask > 0, probs, 1.0) + 1e-12)
    ent = -(probs * logp).sum(axis=1)
    dz = -(adv[:, None] * (onehot - probs)) / n
    dz -= entropy * (-probs * (logp + ent[:, None])) / n  # maximise the entropy
    dv = value_coef * 2.0 * (values - ret) / n
    dh = dz @ p["W2"].T + dv[:, None] * p["w3"][None, :]
    dpre = dh * (1.0 - h * h)
    grads: Params = {
        "W1": x.T @ dpre,
        "b1": dpre.sum(axis=0),
        "W2": h.T @ dz,
        "b2": dz.sum(axis=0),
        "w3": h.T @ dv,
        "b3": np.array([dv.sum()]),
    }
    stats = {
        "steps": float(n),
        "entropy": float(ent.mean()),
        "value_error": float(np.mean((values - ret) ** 2)),
    }
    return grads, stats


class Adam:
    def __init__(self, params: Params, lr: float, clip: float = 1.0) -> None:
        self.lr = lr
        self.clip = clip
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params: Params, grads: Params) -> None:
        norm = np.sqrt(sum(float((g * g).sum()) for g in grads.values()))
        scale = min(1.0, self.clip / (norm + 1e-12))
        self.t += 1
        for k, g in grads.items():
            g = g * scale
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            mh = self.m[k] / (1 - 0.9**self.t)
            vh = self.v[k] / (1 - 0.999**self.t)
            params[k] -= self.lr * mh / (np.sqrt(vh) + 1e-8)


def split(seeds: list[int], parts: int) -> list[list[int]]:
    return [seeds[i::parts] for i in range(parts) if seeds[i::parts]]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--batches", type=int, default=30, help="training batches")
    ap.add_argument("--batch-games", type=int, default=16, help="games per batch")
    ap.add_argument("--eval-every", type=int, default=5, help="batches between evaluations")
    ap.add_argument("--eval-games", type=int, default=40)
    ap.add_argument("--final-games", type=int, default=100, help="games of the final evaluation")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--gamma", type=float, default=1.0)
    ap.add_argument("--entropy", type=float, default=0.003)
    ap.add_argument("--win-bonus", type=float, default=3.0)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="rl_out", help="folder for the PNG and the JSON results")
    ap.add_argument("--quick", action="store_true", help="a seconds-long smoke run")
    ap.add_argument(
        "--opponents", default="random", help="training bots: agent specs, comma-separated"
    )
    ap.add_argument(
        "--eval-opponents",
        default="random,autarky,heuristic-v1,heuristic",
        help="evaluate against each of these (every other seat that bot)",
    )
    ap.add_argument("--action-mode", default="flat", choices=("flat", "builder"))
    ap.add_argument("--memory", action="store_true", help="observe with the memory part")
    args = ap.parse_args(argv)
    from bohnanza import notice_pure_core

    notice_pure_core()  # RL runs are where the compiled core pays most
    if args.quick:
        args.batches, args.batch_games, args.eval_every = 2, 1, 2
        args.eval_games, args.final_games = 1, 1
    config = {
        "rules": args.rules,
        "players": args.players,
        "random_seat": True,
        "win_bonus": args.win_bonus,
        "opponents": args.opponents,
        "action_mode": args.action_mode,
        "memory": args.memory,
    }
    from bohnanza.agents import make_agent

    for spec in [*opponents(args.opponents, args.players), *args.eval_opponents.split(",")]:
        make_agent(spec.strip())  # a bad spec fails now, not in a worker
    evals = [s.strip() for s in args.eval_opponents.split(",") if s.strip()]
    probe = SingleAgentEnv(
        args.rules, args.players, action_mode=args.action_mode, memory=args.memory
    )
    obs_size = probe.aec.obs_size
    n_actions = probe.aec.n_actions
    rng = np.random.default_rng(args.seed)
    params = init_params(obs_size, n_actions, args.hidden, rng)
    opt = Adam(params, args.lr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(
        f"{args.rules}, {args.players} players: observation {obs_size}, actions {n_actions}, "
        f"{args.workers} worker(s)"
    )
    ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
    pool = ctx.Pool(args.workers) if args.workers > 1 else None

    def run(kind: str, p: Params | None, seeds: list[int]) -> list[Any]:
        tasks = [(kind, p, part, config) for part in split(seeds, args.workers)]
        results = pool.map(_worker, tasks) if pool is not None else [_worker(t) for t in tasks]
        return [r for part in results for r in part]

    eval_seeds = [EVAL_SEED_BASE + i for i in range(args.eval_games)]
    final_seeds = [EVAL_SEED_BASE + 500_000 + i for i in range(args.final_games)]

    def evaluate(p: Params, seeds: list[int], spec: str) -> tuple[float, float]:
        eps = run(f"eval:{spec}", p, seeds)
        return float(np.mean([e.win for e in eps])), float(np.mean([e.coins for e in eps]))

    def evaluate_all(p: Params, seeds: list[int]) -> dict[str, tuple[float, float]]:
        return {spec: evaluate(p, seeds, spec) for spec in evals}

    def line(results: dict[str, tuple[float, float]]) -> str:
        return ", ".join(f"vs {k} {w:.2f} ({c:.1f} coins)" for k, (w, c) in results.items())

    start = time.time()
    #: (training games, {eval opponent: win rate}) per evaluation
    curve: list[tuple[int, dict[str, float]]] = []
    rand_win = float(np.mean([w for w, _ in run("random", None, eval_seeds)]))
    now = evaluate_all(params, eval_seeds)
    curve.append((0, {k: w for k, (w, _) in now.items()}))
    print(f"games 0: win rate {line(now)} (random bot vs random: {rand_win:.2f})")
    games = 0
    for b in range(1, args.batches + 1):
        seeds = [b * 10_000 + i for i in range(args.batch_games)]
        episodes = run("train", params, seeds)
        games += len(episodes)
        grads, stats = gradients(params, episodes, args.gamma, args.entropy, 0.5)
        opt.step(params, grads)
        if b % args.eval_every == 0 or b == args.batches:
            now = evaluate_all(params, eval_seeds)
            curve.append((games, {k: w for k, (w, _) in now.items()}))
            train_coins = np.mean([e.coins for e in episodes])
            print(
                f"games {games}: win rate {line(now)} (greedy, held-out); "
                f"training coins {train_coins:.2f}, entropy {stats['entropy']:.2f}, "
                f"{time.time() - start:.0f}s"
            )
    train_time = time.time() - start
    final = evaluate_all(params, final_seeds)
    final_win, final_coins = final[evals[0]]
    rand = run("random", None, final_seeds)
    rand_final = float(np.mean([w for w, _ in rand]))
    rand_coins = float(np.mean([c for _, c in rand]))
    if pool is not None:
        pool.close()
    n = len(final_seeds)
    low = wilson_lower(final_win, n)
    against = {
        spec: {
            "win_rate": round(w, 3),
            "wilson95": [round(wilson_lower(w, n), 3), round(wilson_upper(w, n), 3)],
            "coins": round(c, 2),
        }
        for spec, (w, c) in final.items()
    }
    result = {
        "opponents": args.opponents,
        "action_mode": args.action_mode,
        "memory": args.memory,
        "evaluation": against,
        "rules": args.rules,
        "players": args.players,
        "training_games": games,
        "training_seconds": round(train_time, 1),
        "final_games": n,
        "trained_win_rate": round(final_win, 3),
        "trained_win_rate_95_lower": round(low, 3),
        "trained_coins": round(final_coins, 2),
        "random_win_rate": round(rand_final, 3),
        "random_coins": round(rand_coins, 2),
        "chance": round(1 / args.players, 3),
        "curve": curve,
    }
    png = out / "learning_curve.png"
    plot(curve, rand_win, 1 / args.players, png, args)
    for spec, r in against.items():
        lo, hi = r["wilson95"]
        print(
            f"  vs {args.players - 1} {spec}: wins {r['win_rate']:.1%} "
            f"(95% interval {lo:.1%} to {hi:.1%}), {r['coins']:.2f} coins"
        )
    (out / "results.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    weights = save_example_policy(out, params, args)
    print(
        f"final ({n} held-out games, seat 0 vs {args.players - 1} {evals[0]} bots): trained policy "
        f"wins {final_win:.1%} (95% lower bound {low:.1%}), {final_coins:.2f} coins; the random bot in the "
        f"same seat wins {rand_final:.1%}, {rand_coins:.2f} coins; chance {1 / args.players:.1%}"
    )
    print(f"learning curve: {png}; results and weights: {out / 'results.json'}, {weights}")
    return result


def wilson_upper(p: float, n: int, z: float = 1.96) -> float:
    """The upper end of the Wilson score interval of a rate ``p`` over ``n`` games."""
    if n == 0:
        return 1.0
    centre = p + z * z / (2 * n)
    spread = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return min(1.0, float((centre + spread) / (1 + z * z / n)))


def wilson_lower(p: float, n: int, z: float = 1.96) -> float:
    """The lower end of the Wilson score interval of a rate ``p`` over ``n`` games."""
    if n == 0:
        return 0.0
    centre = p + z * z / (2 * n)
    spread = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, float((centre - spread) / (1 + z * z / n)))


def plot(
    curve: list[tuple[int, dict[str, float]]],
    random_rate: float,
    chance: float,
    path: Path,
    args: argparse.Namespace,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    xs = [c[0] for c in curve]
    for spec in curve[0][1]:
        ax.plot(xs, [c[1][spec] for c in curve], marker="o", label=f"policy vs {spec}")
    ax.axhline(random_rate, color="tab:red", linestyle="--", label="random bot vs random")
    ax.axhline(chance, color="grey", linestyle=":", label=f"1/{args.players}")
    ax.set_xlabel("training games")
    ax.set_ylabel(f"greedy policy's win rate ({args.eval_games} held-out games)")
    ax.set_ylim(0, 1)
    ax.set_title(
        f"Bohnanza {args.rules}, {args.players} players: REINFORCE, trained vs {args.opponents}"
    )
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main()
