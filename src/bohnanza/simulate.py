"""Many seeded games with bots, on one core or several, with a summary.

Game ``i`` of a run with seed ``S`` uses seed ``S + i``; the agent at seat ``k`` of that
game is seeded ``(S + i) * 1009 + k`` (:mod:`bohnanza.seeding`). A run is therefore
reproducible whatever the number of workers.

A failing agent ends its game only (:mod:`bohnanza.forfeits`): the summary counts and
lists the forfeits; ``fail_fast`` stops the run at the first one instead.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .actions import Action
from .agents import make_agent
from .agents.llm import LLMGaveUp, gave_up_warnings, is_llm_spec, set_on_failure
from .agents.specs import add_import_paths
from .driver import AgentFailed, play
from .forfeits import Forfeit, RunStopped, forfeit_of
from .game import Game
from .records import make_record
from .seeding import agent_seed as agent_seed  # re-exported: callers import it from here
from .seeding import game_seeds


@dataclass(frozen=True, slots=True)
class GameSpec:
    rules: str
    players: int
    options: tuple[tuple[str, str], ...]
    agents: tuple[str, ...]
    records: str | None
    #: Folders external agents were loaded from (``agents.specs.import_paths``): workers
    #: add them to ``sys.path`` and resolve the specs themselves.
    import_paths: tuple[str, ...] = ()
    #: What a language-model seat does after its endpoint failed ``give_up`` decisions
    #: in a row: ``stop`` the run (LLMGaveUp) or let the ``heuristic`` play on.
    llm_fallback: str = "stop"
    #: Stop the run at the first forfeit (RunStopped) instead of counting it.
    fail_fast: bool = False


@dataclass(frozen=True, slots=True)
class GameOutcome:
    seed: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    turns: int
    actions: int
    #: Per seat, what its agent counted (``Agent.stats()``: a model's calls, tokens...).
    stats: tuple[dict[str, float], ...] = ()


def seat_record(name: str, agent: object) -> dict[str, Any]:
    """A record's entry for one seat: the agent's name, plus what an agent keeps about
    its game (a language model's prompts and answers, ``record_extra``)."""
    extra = getattr(agent, "record_extra", None)
    return {"agent": name, **(extra() if callable(extra) else {})}


def write_record(
    folder: str | Path,
    seed: int,
    game: Game,
    actions: Sequence[tuple[int, Action]],
    names: Sequence[str],
    agents: Sequence[object],
) -> Path:
    """``folder/game-SEED.json``: the game's record with what each agent keeps about it
    (a language model's settings, counters and transcript)."""
    seats = [seat_record(name, agent) for name, agent in zip(names, agents, strict=True)]
    record = make_record(game, actions, seats)
    path = Path(folder) / f"game-{seed}.json"
    path.write_text(json.dumps(record, separators=(",", ":")) + "\n", encoding="utf-8")
    return path


def play_one(spec: GameSpec, seed: int) -> GameOutcome:
    """Play the game seeded ``seed``; a failing agent raises
    :class:`bohnanza.driver.AgentFailed` (:func:`play_contained` makes it a forfeit)."""
    game = Game.new(spec.rules, spec.players, options=dict(spec.options), seed=seed, events=False)
    agents = [make_agent(name, agent_seed(seed, k)) for k, name in enumerate(spec.agents)]
    set_on_failure(agents, "heuristic" if spec.llm_fallback == "heuristic" else "stop")
    try:
        log = play(game, agents, contain=True)
    except LLMGaveUp as exc:
        raise exc.in_game(seed) from None
    for line in gave_up_warnings(agents, seed):
        print(line, file=sys.stderr, flush=True)
    if spec.records:
        write_record(spec.records, seed, game, log.actions, spec.agents, agents)
    assert game.scores is not None and game.winners is not None
    stats = tuple(dict(a.stats()) for a in agents)
    return GameOutcome(seed, game.scores, game.winners, game.turn, len(log.actions), stats)


def play_contained(spec: GameSpec, seed: int, index: int) -> GameOutcome | Forfeit:
    """Game ``index`` of the run, or the forfeit of the seat whose agent failed in it
    (with ``spec.fail_fast``: :class:`RunStopped`)."""
    try:
        return play_one(spec, seed)
    except AgentFailed as exc:
        forfeit = forfeit_of(exc, seed, index, spec.agents)
    if spec.fail_fast:
        raise RunStopped(forfeit)
    print(f"warning: {forfeit.line()}", file=sys.stderr, flush=True)
    return forfeit


def _play_batch(spec: GameSpec, games: Sequence[tuple[int, int]]) -> list[GameOutcome | Forfeit]:
    add_import_paths(spec.import_paths)
    return [play_contained(spec, s, i) for i, s in games]


def run_games(
    spec: GameSpec,
    games: int,
    seed: int,
    workers: int = 1,
    batch: int = 25,
    start_method: str | None = None,
) -> Iterator[GameOutcome | Forfeit]:
    """Yield outcomes in seed order (so summaries do not depend on ``workers``); worker
    processes start by ``start_method`` (fork, spawn, forkserver; default: Python's)."""
    if spec.records:
        Path(spec.records).mkdir(parents=True, exist_ok=True)
    seeds = list(enumerate(game_seeds(seed, games)))
    if workers <= 1:
        for i, s in seeds:
            yield play_contained(spec, s, i)
        return
    # Games with a language model wait on HTTP, not on the CPU: threads, one game each,
    # so that ``workers`` requests are in flight at once.
    threads = any(is_llm_spec(a) for a in spec.agents)
    batch = 1 if threads else batch
    batches = [seeds[i : i + batch] for i in range(0, len(seeds), batch)]
    pool: Executor = (
        ThreadPoolExecutor(max_workers=workers)
        if threads
        else ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context(start_method)
        )
    )
    with pool:
        for outcomes in pool.map(_play_batch, [spec] * len(batches), batches):
            yield from outcomes


def default_workers() -> int:
    return max(
        1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )


def summarise(
    spec: GameSpec,
    seed: int,
    outcomes: Sequence[GameOutcome],
    seconds: float,
    forfeits: Sequence[Forfeit] = (),
) -> dict[str, Any]:
    """The run's summary: ``games`` counts every game, ``finished`` those played to the
    end and ``forfeits`` the others, each a loss of the seat that failed and a win
    shared by the other seats in ``seat_wins`` (issue 53: left out, they flattered the
    failing bot). Coins, turns and actions are the finished games'."""
    n = spec.players
    games = len(outcomes)
    wins = [0.0] * n
    coins = [0.0] * n
    for o in outcomes:
        for w in o.winners:
            wins[w] += 1 / len(o.winners)  # a shared win counts as a fraction
        for k in range(n):
            coins[k] += o.scores[k]
    for f in forfeits:
        for k in range(n):
            if k != f.seat:
                wins[k] += 1 / (n - 1)
    total_actions = sum(o.actions for o in outcomes)
    llm: dict[str, dict[str, float]] = {}
    for k, name in enumerate(spec.agents):
        if is_llm_spec(name):
            totals: dict[str, float] = {}
            for o in outcomes:
                for key, value in (o.stats[k] if o.stats else {}).items():
                    totals[key] = totals.get(key, 0) + value
            # Keyed by the seat's number as people read it (from 1, as in the prompts).
            llm[str(k + 1)] = {key: round(value, 6) for key, value in totals.items()}
    return {
        "games": games + len(forfeits),
        "finished": games,
        "rules": spec.rules,
        "players": n,
        "options": dict(spec.options),
        "agents": list(spec.agents),
        "seed": seed,
        "mean_turns": sum(o.turns for o in outcomes) / games if games else 0.0,
        "mean_actions": total_actions / games if games else 0.0,
        "seat_wins": [round(w, 3) for w in wins],
        "seat_mean_coins": [round(c / games, 3) if games else 0.0 for c in coins],
        "forfeits": len(forfeits),
        "forfeited": [f.to_json() for f in forfeits],
        "seconds": round(seconds, 3),
        "games_per_second": round(games / seconds, 2) if seconds > 0 else None,
        "actions_per_second": round(total_actions / seconds, 1) if seconds > 0 else None,
        **({"llm": llm} if llm else {}),
    }


def simulate(
    spec: GameSpec,
    games: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    start_method: str | None = None,
) -> dict[str, Any]:
    start = time.perf_counter()
    outcomes: list[GameOutcome] = []
    forfeits: list[Forfeit] = []
    for o in run_games(spec, games, seed, workers, start_method=start_method):
        if isinstance(o, Forfeit):
            forfeits.append(o)
        else:
            outcomes.append(o)
        if progress:
            progress(1)
    return summarise(spec, seed, outcomes, time.perf_counter() - start, forfeits)


def options_tuple(options: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(options.items()))
