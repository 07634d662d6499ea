"""Positions with their outcomes, from seeded games of a varied pool of bots.

Each game draws its seats from :data:`POOL` (weighted, from the game's seed), plays to
the end, and at the start of every turn records every seat's features
(:func:`~.features.features` of that seat's view) with what the seat then still gained
(its final coins less its coins then) and its share of the win. A varied pool, and not
one bot in self-play, so that the model sees the positions that strong and weak,
trading and hoarding players make, and what they come to.

A data file (``.npz``) holds the rows and a ``meta`` entry (JSON): the rule sets and
player counts, the pool, the first and last game seed (game ``i`` of a run seeded ``S``
is seeded ``S + i``, its seats ``agent_seed``), the commit of the code that played them
(with ``+dirty`` when the package had changes not committed), the CPU seconds it took.
The same command at the same commit writes the same rows.
"""

from __future__ import annotations

import json
import random
import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..actions import Action
from ..agents import make_agent
from ..agents.base import Agent
from ..driver import play
from ..game import Game
from ..seeding import agent_seed
from ..views import View
from .features import FEATURES, features

#: The policy shipped with the package (3-player classic only).
POLICY = str(Path(__file__).resolve().parent.parent / "data" / "policies" / "classic3-bc-ppo.npz")

#: The bots a game's seats are drawn from, with their weights. The search is expensive
#: (a cheap budget, and rare), the learned policy plays only the game it was trained for
#: (3-player classic).
POOL: tuple[tuple[str, float], ...] = (
    ("heuristic", 3.0),
    ("heuristic:hc0.1", 2.0),
    ("heuristic:fg0.9:wv3:ep0:fo0.6:hc0.2", 2.0),  # the search's own play
    ("heuristic-v1", 1.5),
    ("autarky", 0.5),
    ("search:12ro", 0.25),
    ("rl", 1.0),
)


def parse_pool(items: Sequence[str]) -> tuple[tuple[str, float], ...]:
    """A pool spelled ``SPEC=WEIGHT`` per bot (``valuesearch=2``, ``heuristic:hc0.1=1``;
    ``rl`` is the shipped policy): a second round of data from the bots that will use
    the model, rather than from the first round's varied pool. Each spec is made once
    here, so a misspelt one is refused before any game is played."""
    pool: list[tuple[str, float]] = []
    for item in items:
        spec, eq, weight = item.rpartition("=")
        if not eq or not spec:
            raise ValueError(f"pool entry {item!r}: expected SPEC=WEIGHT")
        try:
            w = float(weight)
        except ValueError:
            raise ValueError(f"pool entry {item!r}: weight {weight!r} is not a number") from None
        if not w > 0 or w == float("inf"):
            raise ValueError(f"pool entry {item!r}: the weight must be positive")
        make_agent(f"rl:{POLICY}" if spec == "rl" else spec, 0)
        pool.append((spec, w))
    if not pool:
        raise ValueError("the pool is empty")
    return tuple(pool)


def commit() -> str:
    """The short commit of the checkout this package runs from, ``+dirty`` when its
    files have changes not committed, or ``unknown`` outside a checkout."""
    here = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "."],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}+dirty" if dirty else head or "unknown"


def seat_specs(seed: int, rules: str, players: int, pool: Sequence[tuple[str, float]]) -> list[str]:
    """The seats of the game seeded ``seed``, drawn from ``pool`` by weight (the learned
    policy only in 3-player classic, its own game)."""
    usable = [(s, w) for s, w in pool if s != "rl" or (rules == "classic" and players == 3)]
    rng = random.Random(seed * 7919 + 17)
    names = [s for s, _ in usable]
    weights = [w for _, w in usable]
    return [f"rl:{POLICY}" if s == "rl" else s for s in rng.choices(names, weights, k=players)]


class _Watch(Agent):
    """Passes every decision to the seat's bot; the first decision of each turn, and the
    first after its trading, ask the recorder to record the position (every seat's
    view) first: the two points where a search's roll-outs end (``turn``, ``trade``)."""

    def __init__(self, inner: Agent, rec: _Recorder) -> None:
        super().__init__(inner.seed)
        self.inner = inner
        self.rec = rec
        self.proposes = inner.proposes

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        self.rec.tick(view.turn, view.phase == "trade")
        return self.inner.act(view, legal, required)


class _Recorder:
    """The feature rows of one game: a row per seat at the start of each turn and at the
    first decision after its trading."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.turn = -1
        self.traded = False
        self.rows: list[tuple[int, int, list[float], int]] = []  # turn, seat, x, coins

    def tick(self, turn: int, trading: bool) -> None:
        if turn == self.turn:
            if trading:
                self.traded = True
            if not self.traded or trading:
                return
            self.traded = False  # the turn's trading is over: record once more
        else:
            self.turn = turn
            self.traded = trading
        g = self.game
        for s in range(g.players):
            self.rows.append((turn, s, features(g.view(s)), len(g.treasury[s])))


@dataclass(frozen=True)
class GameRows:
    """One game's rows (see :func:`generate` for the columns)."""

    seed: int
    x: list[list[float]]
    gain: list[float]
    final: list[float]
    win: list[float]
    seat: list[int]
    turn: list[int]
    agents: list[str]
    cpu: float


def play_recorded(
    rules: str, players: int, seed: int, pool: Sequence[tuple[str, float]]
) -> GameRows:
    """Play the game seeded ``seed`` with seats from ``pool`` and return its rows."""
    started = time.process_time()
    specs = seat_specs(seed, rules, players, pool)
    game = Game.new(rules, players, seed=seed, events=False)
    rec = _Recorder(game)
    agents = [_Watch(make_agent(s, agent_seed(seed, k)), rec) for k, s in enumerate(specs)]
    play(game, agents)
    assert game.scores is not None and game.winners is not None
    scores, winners = game.scores, game.winners
    out = GameRows(seed, [], [], [], [], [], [], specs, 0.0)
    for turn, s, x, coins in rec.rows:
        out.x.append(x)
        out.gain.append(float(scores[s] - coins))
        out.final.append(float(scores[s]))
        out.win.append(1.0 / len(winners) if s in winners else 0.0)
        out.seat.append(s)
        out.turn.append(turn)
    return GameRows(
        out.seed,
        out.x,
        out.gain,
        out.final,
        out.win,
        out.seat,
        out.turn,
        specs,
        time.process_time() - started,
    )


def _chunk(args: tuple[str, int, list[int], list[tuple[str, float]]]) -> list[GameRows]:
    rules, players, seeds, pool = args
    return [play_recorded(rules, players, s, pool) for s in seeds]


def generate(
    out: str | Path,
    *,
    games: int,
    seed: int,
    rules: str = "classic",
    players: Sequence[int] = (3, 4, 5),
    pool: Sequence[tuple[str, float]] = POOL,
    workers: int = 1,
    backend: str = "local",
) -> dict[str, Any]:
    """Play ``games`` games seeded ``seed``, ``seed + 1``, ... (the player count cycles
    through ``players``) and write their rows to ``out``; returns the file's meta.

    Columns: ``x`` (features), ``gain`` (coins still to come), ``final`` (final coins),
    ``win`` (share of the win), ``game`` (the game's seed), ``seat``, ``turn``,
    ``players``. ``workers`` processes play the games (``backend="ray"``: Ray tasks on
    the cluster ``ray.init()`` finds, for large runs), in chunks, in seed order."""
    started = time.perf_counter()
    pool_l = [(s, float(w)) for s, w in pool]
    jobs: list[tuple[str, int, list[int], list[tuple[str, float]]]] = []
    for n in players:
        seeds = [seed + i for i in range(games) if players[i % len(players)] == n]
        step = max(1, min(25, len(seeds) // max(1, 4 * workers) or 1))
        for i in range(0, len(seeds), step):
            jobs.append((rules, n, seeds[i : i + step], pool_l))
    results: list[GameRows] = []
    if backend == "ray":
        import ray  # the ray extra; imported only when asked for

        ray.init(ignore_reinit_error=True)
        remote = ray.remote(_chunk)
        for part in ray.get([remote.remote(j) for j in jobs]):
            results.extend(part)
    elif workers <= 1:
        for j in jobs:
            results.extend(_chunk(j))
    else:
        with ProcessPoolExecutor(workers) as ex:
            for part in ex.map(_chunk, jobs):
                results.extend(part)
    results.sort(key=lambda r: r.seed)
    cols: dict[str, list[Any]] = {k: [] for k in ("x", "gain", "final", "win", "game", "seat")}
    cols.update(turn=[], players=[])
    for r in results:
        n = len(r.agents)
        cols["x"].extend(r.x)
        cols["gain"].extend(r.gain)
        cols["final"].extend(r.final)
        cols["win"].extend(r.win)
        cols["game"].extend([r.seed] * len(r.gain))
        cols["seat"].extend(r.seat)
        cols["turn"].extend(r.turn)
        cols["players"].extend([n] * len(r.gain))
    meta: dict[str, Any] = {
        "format": "bohnanza-value-data-1",
        "rules": rules,
        "players": list(players),
        "games": games,
        "first_seed": seed,
        "last_seed": seed + games - 1,
        "pool": pool_l,
        "commit": commit(),
        "features": list(FEATURES),
        "rows": len(cols["gain"]),
        "cpu_s": round(sum(r.cpu for r in results), 1),
        "wall_s": round(time.perf_counter() - started, 1),
        "workers": workers,
        "backend": backend,
        "seats": {str(r.seed): r.agents for r in results},
    }
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("wb") as fh:
        np.savez_compressed(
            fh,
            x=np.array(cols["x"], dtype=np.float64).reshape(-1, len(FEATURES)),
            gain=np.array(cols["gain"]),
            final=np.array(cols["final"]),
            win=np.array(cols["win"]),
            game=np.array(cols["game"], dtype=np.int64),
            seat=np.array(cols["seat"], dtype=np.int64),
            turn=np.array(cols["turn"], dtype=np.int64),
            players=np.array(cols["players"], dtype=np.int64),
            meta=np.array(json.dumps(meta)),
        )
    return meta


def load(
    paths: Sequence[str | Path],
) -> tuple[dict[str, np.ndarray[Any, Any]], list[dict[str, Any]]]:
    """The rows of one or more data files, joined, and each file's meta. A file made
    for other features than this version's is refused (ValueError)."""
    keys = ("x", "gain", "final", "win", "game", "seat", "turn", "players")
    parts: dict[str, list[np.ndarray[Any, Any]]] = {k: [] for k in keys}
    metas: list[dict[str, Any]] = []
    for path in paths:
        with np.load(Path(path), allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if tuple(meta.get("features", ())) != FEATURES:
                raise ValueError(f"{path}: recorded with other features than this version's")
            meta["file"] = str(path)
            metas.append(meta)
            for k in keys:
                parts[k].append(np.array(z[k]))
    return {k: np.concatenate(v) for k, v in parts.items()}, metas


__all__ = ["POOL", "commit", "generate", "load", "parse_pool", "play_recorded", "seat_specs"]
