"""``bohnanza bench``: the engine's speed, measured side by side in one process.

Timings on a shared machine drift by tens of percent from one minute to the next, so a
figure alone says little. ``bench`` therefore times the engine against a yardstick run in
the same process, interleaved with it: a **bare loop** (:func:`bare_autarky_game`), a plain
Python loop written for speed, with no decision interface (no legal-action lists, no
views, no agents), that plays the very same games as the engine with ``autarky`` bots -
same seeded deck (:mod:`bohnanza.shuffle`), same choices, same scores and turns (a test
holds it to that). The ratio engine/bare is what the engine's overhead costs;
it is printed every time (issue 14's target: at least 0.38).

Both sides deal their decks with the SHA-256 generator (:mod:`bohnanza.shuffle`), which in
plain Python is about a third of the bare loop's time: a cost that is the same in both
and so pulls the ratio towards 1. It is therefore also measured apart - the very shuffles
of the same games, replayed alone with the bare loop's generator and with the engine's
(compiled, in the compiled build) - and the ratio is printed without it as well.

How the engine compares with an *older* engine is measured, never assumed: with
``--baseline TREE``, every round also times the same games in a child process that
imports the engine from that source tree, and the gain is the ratio of the two CPU times
from the same rounds. ``benchmarks/compare_engines.py`` compares two trees at length.

Every figure is CPU time (:func:`time.process_time`) summed over several rounds, the
measurements alternating inside each round, so that a slow minute slows all of them alike.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from . import compiled_core, shuffle
from .agents import make_agent
from .driver import play
from .errors import ConfigError
from .game import Game
from .rules import BASE_RULESETS, make_config
from .shuffle import DEFAULT, LEGACY, DeckRandom
from .simulate import agent_seed

#: Issue 14's target for the engine/bare-loop ratio (4-player classic, autarky): twice
#: the 0.19 its review measured with a bare loop of its own.
TARGET_RATIO = 0.38
#: The markers around the figures that ``bench --write-readme`` rewrites: one block per
#: build of the engine (pure Python, or compiled with ``BOHNANZA_COMPILE=1``).
README_START = "<!-- bench -->"
README_START_COMPILED = "<!-- bench compiled -->"
README_END = "<!-- /bench -->"


def readme_start(compiled: bool) -> str:
    return README_START_COMPILED if compiled else README_START


def build_name(compiled: bool) -> str:
    return "compiled with mypyc" if compiled else "pure Python"


class GameResult(NamedTuple):
    """What both the engine and the bare loop report of one finished game."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    turns: int
    actions: int


# ---------------------------------------------------------------------- the bare loop


def plain_deck_random() -> type[DeckRandom]:
    """:class:`DeckRandom` as plain Python, whichever build of the engine runs.

    The bare loop is the yardstick of plain Python speed; with the compiled core
    (``BOHNANZA_COMPILE=1``) the imported generator is compiled too, and the yardstick
    would speed up with the engine it measures. Its source file, which a compiled install
    keeps beside the compiled module, is then loaded once more as plain Python."""
    if not shuffle.COMPILED:
        return DeckRandom
    import importlib.util

    path = Path(shuffle.__file__ or "").with_name("shuffle.py")
    spec = importlib.util.spec_from_file_location("bohnanza._plain_shuffle", path)
    if spec is None or spec.loader is None:  # pragma: no cover - the file ships
        raise ImportError(f"no plain shuffle module at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    plain: type[DeckRandom] = module.DeckRandom
    return plain


_PlainDeckRandom = plain_deck_random()


class BareRules(NamedTuple):
    """The numbers of a base rule set that the bare loop reads, as plain tuples and ints:
    a process that imports another tree's engine can be handed them as JSON
    (``benchmarks/compare_engines.py``), so that the yardstick is the same in both."""

    card_variety: tuple[int, ...]
    payout: tuple[tuple[int, ...], ...]
    hand_sizes: tuple[int, ...]
    fields: int
    drawn_count: int
    draw_count: int
    runouts_to_end: int
    end_immediately: bool


def bare_rules(rules: str = "classic", players: int = 4) -> BareRules:
    """The :class:`BareRules` of a base rule set (no module) for ``players``."""
    if rules not in BASE_RULESETS:
        raise ConfigError(f"the bare loop plays a base rule set ({', '.join(BASE_RULESETS)})")
    c = make_config(rules, players)
    return BareRules(
        tuple(c.card_variety),
        tuple(tuple(row) for row in c.payout),
        tuple(c.hand_sizes),
        3 if c.start_with_third_field else 2,
        c.drawn_count,
        c.draw_count,
        c.runouts_to_end,
        c.end_immediately,
    )


def bare_autarky_game(seed: int, players: int = 4, rules: str = "classic") -> GameResult:
    """Play one seeded game of a base rule set (no module) with ``autarky`` at every seat,
    as fast as plain Python allows, and return what :func:`engine_game` returns for it
    (:func:`bare_game` with this rule set's numbers and the plain generator)."""
    return bare_game(seed, bare_rules(rules, players), _PlainDeckRandom)


def bare_game(
    seed: int,
    config: BareRules,
    deck_random: Callable[[int], Any],
    shuffles: list[int] | None = None,
) -> GameResult:
    """The bare loop itself: one seeded autarky game with ``config``'s numbers, decks
    dealt by ``deck_random(seed)``; the length of every list it shuffles is appended to
    ``shuffles`` when given (to replay the shuffles alone: :func:`shuffle_plan`).

    It replays the engine's game exactly: the deck is dealt by :class:`DeckRandom` as
    :class:`bohnanza.game.Game` deals it, the discard pile keeps the engine's order (a
    reshuffle depends on it), and every choice is the one
    :class:`bohnanza.agents.simple.AutarkyAgent` makes: in phase 1 plant onto a growing
    field of the card's variety, else (first card only) onto the first empty field, else
    stop; in phase 2 end trading at once; in phase 3 plant the kept cards the same way;
    when a card fits nowhere, harvest the field that pays most (fewest beans on a tie,
    R-HARV-3's protected single beans excluded). Autarky never buys a field or trades.
    """
    players = len(config.hand_sizes)
    cv = config.card_variety
    pay = config.payout
    drawn_count = config.drawn_count
    draw_count = config.draw_count
    runouts_to_end = config.runouts_to_end
    end_immediately = config.end_immediately
    rng = deck_random(seed)
    order = list(range(len(cv)))
    rng.shuffle(order)
    if shuffles is not None:
        shuffles.append(len(order))
    draw = order[::-1]
    hands = [[draw.pop() for _ in range(size)] for size in config.hand_sizes]
    nfields = config.fields
    fields: list[list[list[int]]] = [[[] for _ in range(nfields)] for _ in range(players)]
    coins = [0] * players
    discard: list[int] = []
    runouts = 0
    final = False
    turn = 0
    actions = 0
    a = 0

    def take() -> int | None:
        # Game.draw_card: reshuffle the discard pile when the draw pile is empty; the
        # draw that takes the last card counts a run-out (R-DECK-1, R-END-1).
        nonlocal draw, discard, runouts, final
        if not draw:
            if final:
                return None
            if not discard:
                final = True
                return None
            draw = discard
            discard = []
            rng.shuffle(draw)
            if shuffles is not None:
                shuffles.append(len(draw))
        card = draw.pop()
        if not draw:
            runouts += 1
            if runouts >= runouts_to_end:
                final = True
        return card

    def harvest(fs: list[list[int]], seat: int) -> None:
        # The harvest autarky picks: most coins, then fewest beans, first field on a tie;
        # a single bean is protected while another field holds more (R-HARV-3).
        multi = False
        for f in fs:
            if len(f) > 1:
                multi = True
                break
        best: list[int] | None = None
        best_key = (-1, 0)
        for f in fs:
            n = len(f)
            if n and (n > 1 or not multi):
                key = (pay[cv[f[-1]]][n], -n)
                if best is None or key > best_key:
                    best, best_key = f, key
        assert best is not None
        c = best_key[0]
        discard.extend(best[: len(best) - c])  # the rest become coins (R-HARV-2)
        coins[seat] += c
        best.clear()

    while True:
        turn += 1
        hand = hands[a]
        fs = fields[a]
        # Phase 1 (skipped with an empty hand, R-PLANT-1).
        planted = 0
        while hand:
            v = cv[hand[0]]
            target: list[int] | None = None
            empty: list[int] | None = None
            for f in fs:
                if f:
                    if cv[f[-1]] == v:
                        target = f
                        break
                elif empty is None:
                    empty = f
            if target is None:
                if planted:  # the optional second card goes only onto its variety
                    actions += 1  # stop planting
                    break
                if empty is None:
                    harvest(fs, a)
                    actions += 1
                    continue
                target = empty
            target.append(hand.pop(0))
            actions += 1
            planted += 1
            if planted >= 2:
                break
        # Phase 2: turn over the drawn cards (R-TRADE-1); autarky ends trading at once.
        drawn: list[int] = []
        for _ in range(drawn_count):
            card = take()
            if card is None:
                break
            drawn.append(card)
            if final:
                break
        if final and end_immediately:
            break
        actions += 1  # end trading: the drawn cards go to the trade area
        # Phase 3: plant them, in the engine's listing order (card, then field).
        while drawn:
            pick = -1
            spot: list[int] | None = None
            for i, card in enumerate(drawn):
                v = cv[card]
                for f in fs:
                    if f and cv[f[-1]] == v:
                        pick, spot = i, f
                        break
                if spot is not None:
                    break
            if spot is None:
                for f in fs:
                    if not f:
                        pick, spot = 0, f
                        break
                if spot is None:
                    harvest(fs, a)
                    actions += 1
                    continue
            spot.append(drawn.pop(pick))
            actions += 1
        # The end of phase 3 (R-END-2), else phase 4's draws (R-DRAW-1).
        if final:
            break
        for _ in range(draw_count):
            card = take()
            if card is not None:
                hand.append(card)
            if final:
                break
        if final:
            break
        a = (a + 1) % players

    # The final harvest (R-END-3) and the winners (R-END-4).
    for seat in range(players):
        for f in fields[seat]:
            if f:
                coins[seat] += pay[cv[f[-1]]][len(f)]
    best = max(coins)
    tied = [s for s in range(players) if coins[s] == best]
    most = max(len(hands[s]) for s in tied)
    winners = tuple(s for s in tied if len(hands[s]) == most)
    return GameResult(tuple(coins), winners, turn, actions)


def shuffle_plan(
    seeds: range, config: BareRules | None = None
) -> list[tuple[int, list[list[int]]]]:
    """Per seed, lists as long as the ones its autarky game shuffles (the deal, then every
    reshuffle of the discard pile): what :func:`replay_shuffles` shuffles again. A
    shuffle's cost depends only on the seed's stream and the lengths, not on the cards."""
    config = config or bare_rules()
    plan = []
    for seed in seeds:
        sizes: list[int] = []
        bare_game(seed, config, _PlainDeckRandom, sizes)
        plan.append((seed, [list(range(n)) for n in sizes]))
    return plan


def replay_shuffles(
    plan: list[tuple[int, list[list[int]]]], deck_random: Callable[[int], Any]
) -> int:
    """The shuffles of the planned games alone, with ``deck_random``'s generator (seeded
    as the games seed theirs); returns how many lists it shuffled."""
    n = 0
    for seed, lists in plan:
        rng = deck_random(seed)
        for cards in lists:
            rng.shuffle(cards)
        n += len(lists)
    return n


# ---------------------------------------------------------------------- the engine


def engine_game(seed: int, agent: str = "autarky", players: int = 4) -> GameResult:
    """One seeded 4-player ``classic`` game through the engine, the driver and the agents,
    as ``bohnanza simulate`` plays it (same game and agent seeds, no event log)."""
    game = Game.new("classic", players, seed=seed, events=False)
    agents = [make_agent(agent, agent_seed(seed, k)) for k in range(players)]
    log = play(game, agents)
    assert game.scores is not None and game.winners is not None
    return GameResult(game.scores, game.winners, game.turn, len(log.actions))


def midgame_state(seed: int = 1, actions: int = 60, generator: str = DEFAULT) -> Game:
    """A 4-player classic game some turns in (the first legal action, ``actions`` times):
    the state ``clone()`` is timed on. ``generator="mt19937"`` (:data:`LEGACY`, the
    generator of old records) makes the copy of the generator the dearest part of it."""
    game = Game.new("classic", 4, seed=seed, generator=generator)
    for _ in range(actions):
        seat = game.waiting_for()[0]
        game.apply(seat, game.legal_actions(seat, offers=False)[0])
    return game


def rl_loop(steps: int, seed: int = 0) -> Callable[[], int]:
    """A function that takes ``steps`` steps of the RL environment (4-player classic,
    random masked actions, the observation read at every step, as
    ``benchmarks/rl_steps.py``), the same steps every call. Raises ImportError without
    the ``rl`` extra."""
    import numpy as np

    from .rl import bohnanza_v0

    env = bohnanza_v0.env(rules="classic", players=4)

    def run() -> int:
        rng = np.random.default_rng(seed)
        done = 0
        game = 0
        while done < steps:
            env.reset(seed=seed + game)
            game += 1
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                if done >= steps:
                    break
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
                done += 1
        return done

    return run


# ---------------------------------------------------------------------- measuring


@dataclass
class _Timer:
    """CPU seconds and work done, summed over the rounds, plus each round's rate."""

    seconds: float = 0.0
    units: int = 0
    actions: int = 0

    def add(self, seconds: float, units: int, actions: int = 0) -> None:
        self.seconds += seconds
        self.units += units
        self.actions += actions

    @property
    def rate(self) -> float:
        return self.units / self.seconds if self.seconds > 0 else 0.0


def _timed(work: Callable[[], tuple[int, int]]) -> tuple[float, int, int]:
    start = time.process_time()
    units, actions = work()
    return time.process_time() - start, units, actions


#: What a child process runs to time an older engine's autarky games (``--baseline``):
#: only the public calls every tree since the first has (``Game.new``, ``driver.play``,
#: ``make_agent``), its CPU time measured inside, so that its start is not counted.
_BASELINE_CHILD = """
import inspect, json, sys, time
src, games = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, src)
import bohnanza
from bohnanza.agents import make_agent
from bohnanza.driver import play
from bohnanza.game import Game
try:  # issue 14's switch: games without an event log, as simulate plays them
    quiet = "events" in inspect.signature(Game.new).parameters
except ValueError:  # a compiled Game shows no signature
    quiet = hasattr(Game, "record_events")
kwargs = {"events": False} if quiet else {}
def one(seed):
    game = Game.new("classic", 4, seed=seed, **kwargs)
    return len(play(game, [make_agent("autarky", k) for k in range(4)]).actions)
one(games + 1)
start = time.process_time()
actions = sum(one(s) for s in range(1, games + 1))
seconds = time.process_time() - start
print(json.dumps({"seconds": seconds, "actions": actions, "file": bohnanza.__file__}))
"""


def baseline_src(tree: str) -> str:
    """The folder to import an older engine from, given its checkout or its ``src``;
    ConfigError if there is no ``bohnanza`` package there."""
    p = Path(tree).resolve()
    if (p / "src" / "bohnanza").is_dir():
        p = p / "src"
    if not (p / "bohnanza" / "__init__.py").is_file():
        raise ConfigError(f"{tree}: no bohnanza package there (give a source tree or its src)")
    return str(p)


def baseline_games(src: str, games: int) -> tuple[float, int, int]:
    """CPU seconds, games and actions of ``games`` seeded autarky games (seeds 1..games)
    played by the engine under ``src``, in a child process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", _BASELINE_CHILD, src, str(games)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        raise ConfigError(f"the baseline engine under {src} failed:\n{proc.stderr[-2000:]}")
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    if not str(Path(got["file"]).resolve()).startswith(src):
        raise ConfigError(f"the baseline imported bohnanza from {got['file']}, not from {src}")
    return float(got["seconds"]), games, int(got["actions"])


def run_bench(
    games: int = 100,
    rounds: int = 5,
    *,
    rl: bool = True,
    baseline: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Measure everything ``bohnanza bench`` prints, interleaved in ``rounds`` rounds.

    Per round: ``games`` autarky games through the engine and the same games in the bare
    loop (seeds 1..games), ``max(1, games // 20)`` ``random`` games, ``100 * games``
    clones of a mid-game state (``25 * games`` with the legacy generator), ``10 * games``
    RL environment steps, the autarky games' shuffles alone (with the bare loop's plain
    generator and with the engine's) and, given ``baseline`` (an older tree), the same
    autarky games played by that engine in a child process; in an order that rotates
    from round to round.
    """
    if games < 1 or rounds < 1:
        raise ValueError("games and rounds must be at least 1")
    old_src = baseline_src(baseline) if baseline else None
    seeds = range(1, games + 1)
    random_seeds = range(1, max(1, games // 20) + 1)
    clones = 100 * games
    state = midgame_state()
    legacy_state = midgame_state(generator=LEGACY)
    # Warm up outside the timing (configs, hooks, agent classes, first-call caches), so
    # that the first round measures what the others do.
    engine_game(games + 1)
    bare_autarky_game(games + 1)
    engine_game(games + 1, "random")

    def engine() -> tuple[int, int]:
        return len(seeds), sum(engine_game(s).actions for s in seeds)

    def bare() -> tuple[int, int]:
        return len(seeds), sum(bare_autarky_game(s).actions for s in seeds)

    def random_games() -> tuple[int, int]:
        return len(random_seeds), sum(engine_game(s, "random").actions for s in random_seeds)

    def clone() -> tuple[int, int]:
        c = state.clone
        for _ in range(clones):
            c()
        return clones, 0

    def clone_legacy() -> tuple[int, int]:
        c = legacy_state.clone
        for _ in range(clones // 4):
            c()
        return clones // 4, 0

    plan = shuffle_plan(seeds)

    def shuffle_bare() -> tuple[int, int]:
        return len(plan), replay_shuffles(plan, _PlainDeckRandom)

    def shuffle_engine() -> tuple[int, int]:
        return len(plan), replay_shuffles(plan, DeckRandom)

    jobs: dict[str, Callable[[], tuple[float, int, int]]] = {
        "engine": lambda: _timed(engine),
        "bare": lambda: _timed(bare),
        "random": lambda: _timed(random_games),
        "clone": lambda: _timed(clone),
        "clone_legacy": lambda: _timed(clone_legacy),
        "shuffle_bare": lambda: _timed(shuffle_bare),
        "shuffle_engine": lambda: _timed(shuffle_engine),
    }
    if old_src is not None:
        jobs["baseline"] = lambda: baseline_games(old_src, games)
    rl_error = None
    if rl:
        try:
            steps = rl_loop(10 * games)
            jobs["rl"] = lambda: _timed(lambda: (steps(), 0))
        except ImportError as exc:
            rl_error = f"not measured (the rl extra is missing: {exc.name})"
    # What the setup made (the RL environment and its libraries, the states to clone) is
    # moved out of the garbage collector's sight: otherwise every full collection during
    # the games walks it, a cost the games would not pay in a process of their own, and
    # one that weighs more the faster the engine is (the compiled core: about 10%).
    gc.collect()
    gc.freeze()
    timers = {name: _Timer() for name in jobs}
    ratios: list[float] = []
    names = list(jobs)
    try:
        for r in range(rounds):
            k = r % len(names)
            per_round: dict[str, float] = {}
            for name in names[k:] + names[:k]:
                seconds, units, actions = jobs[name]()
                timers[name].add(seconds, units, actions)
                per_round[name] = seconds
            engine_s = per_round["engine"]
            ratios.append(per_round["bare"] / engine_s if engine_s else 0.0)
            if progress:
                progress(f"round {r + 1}/{rounds}: engine/bare {ratios[-1]:.3f}")
    finally:  # a caller that goes on (a test, Ctrl-C caught above) gets its collector back
        gc.unfreeze()
    e, b = timers["engine"], timers["bare"]
    sb, se = timers["shuffle_bare"], timers["shuffle_engine"]
    out: dict[str, Any] = {
        "rules": "classic",
        "players": 4,
        "rounds": rounds,
        "games": games,
        "python": platform.python_version(),
        "compiled": compiled_core(),
        "autarky": {
            "games": e.units,
            "seconds": round(e.seconds, 3),
            "games_per_second": round(e.rate, 1),
            "actions_per_second": round(e.actions / e.seconds, 1) if e.seconds else None,
        },
        "bare": {
            "games": b.units,
            "seconds": round(b.seconds, 3),
            "games_per_second": round(b.rate, 1),
        },
        "ratio": round(b.seconds / e.seconds, 3) if e.seconds else None,
        "ratio_rounds": [round(x, 3) for x in ratios],
        # The shuffles of the same games alone: the bare loop's share of them, and the
        # ratio with each side's own shuffling taken out.
        "shuffle": {
            "bare_seconds": round(sb.seconds, 3),
            "engine_seconds": round(se.seconds, 3),
            "bare_share": round(sb.seconds / b.seconds, 3) if b.seconds else None,
        },
        "ratio_without_shuffle": round((b.seconds - sb.seconds) / (e.seconds - se.seconds), 3)
        if e.seconds > se.seconds
        else None,
        "target_ratio": TARGET_RATIO,
        "random": {
            "games": timers["random"].units,
            "seconds": round(timers["random"].seconds, 3),
            "games_per_second": round(timers["random"].rate, 2),
            "actions_per_second": round(timers["random"].actions / timers["random"].seconds, 1)
            if timers["random"].seconds
            else None,
        },
        "clone_us": round(1e6 / timers["clone"].rate, 2) if timers["clone"].rate else None,
        "clone_legacy_us": round(1e6 / timers["clone_legacy"].rate, 2)
        if timers["clone_legacy"].rate
        else None,
    }
    if "rl" in timers:
        t = timers["rl"]
        out["rl"] = {
            "steps": t.units,
            "seconds": round(t.seconds, 3),
            "steps_per_second": round(t.rate, 1),
        }
    else:
        out["rl"] = {"error": rl_error or "not measured (--no-rl)"}
    if old_src is not None:
        o = timers["baseline"]
        out["baseline"] = {
            "src": old_src,
            "games": o.units,
            "seconds": round(o.seconds, 3),
            "games_per_second": round(o.rate, 1),
            "actions_per_second": round(o.actions / o.seconds, 1) if o.seconds else None,
            # new/old per game, both CPU time summed over the same rounds
            "gain": round(o.seconds / e.seconds, 3) if e.seconds else None,
        }
    return out


def parallel_autarky(games: int, workers: int) -> dict[str, Any]:
    """Wall-clock throughput of ``simulate`` with ``workers`` processes (autarky)."""
    from .simulate import GameSpec, simulate

    s = simulate(GameSpec("classic", 4, (), ("autarky",) * 4, None), games, 1, workers)
    return {
        "workers": workers,
        "games": games,
        "games_per_second": s["games_per_second"],
        "actions_per_second": s["actions_per_second"],
    }


# ---------------------------------------------------------------------- reporting


def _num(x: float | None, digits: int = 0) -> str:
    if x is None:
        return "-"
    return f"{x:,.{digits}f}"


def text_lines(result: dict[str, Any]) -> list[str]:
    """The figures as ``bench`` prints them."""
    e, b, r = result["autarky"], result["bare"], result["random"]
    ratio = result["ratio"]
    verdict = "meets" if ratio is not None and ratio >= TARGET_RATIO else "below"
    sh = result["shuffle"]
    lines = [
        f"4-player classic, CPU time, {result['rounds']} interleaved rounds "
        f"(Python {result['python']}; engine {build_name(result.get('compiled', False))})",
        f"engine  autarky  {_num(e['games_per_second'], 1):>9} games/s  "
        f"{_num(e['actions_per_second']):>9} actions/s  ({e['games']} games)",
        f"bare    autarky  {_num(b['games_per_second'], 1):>9} games/s  (same games)",
        f"engine/bare      {_num(ratio, 3)}  ({verdict} issue 14's {TARGET_RATIO}, set against "
        f"a slower bare loop; rounds {', '.join(f'{x:.3f}' for x in result['ratio_rounds'])})",
        f"  without shuffling {_num(result['ratio_without_shuffle'], 3)}  (the deals and "
        f"reshuffles timed apart: {_num(100 * (sh['bare_share'] or 0))}% of the bare loop)",
        f"engine  random   {_num(r['games_per_second'], 2):>9} games/s  "
        f"{_num(r['actions_per_second']):>9} actions/s  ({r['games']} games)",
        f"clone()          {_num(result['clone_us'], 2):>9} µs  (mid-game state; "
        f"{_num(result['clone_legacy_us'], 2)} µs with the legacy mt19937 generator)",
    ]
    rl = result["rl"]
    if "steps_per_second" in rl:
        lines.append(
            f"RL env steps     {_num(rl['steps_per_second']):>9} steps/s  "
            f"(with observations, {rl['steps']} steps)"
        )
    else:
        lines.append(f"RL env steps     {rl['error']}")
    old = result.get("baseline")
    if old:
        lines.append(
            f"older engine     {_num(old['games_per_second'], 1):>9} games/s  (autarky, "
            f"{old['src']}, pure Python, child processes in the same rounds)"
        )
        lines.append(f"engine new/old   {_num(old['gain'], 2)}x  (CPU time per game)")
    for p in result.get("parallel", []):
        lines.append(
            f"engine  autarky  {_num(p['games_per_second'], 1):>9} games/s wall clock with "
            f"{p['workers']} worker processes ({p['games']} games)"
        )
    return lines


def readme_block(result: dict[str, Any], command: str) -> str:
    """The Markdown that goes between the bench markers (of docs/performance.md)."""
    e, b, r = result["autarky"], result["bare"], result["random"]
    rl = result["rl"]
    rl_cell = f"{_num(rl['steps_per_second'])} steps/s" if "steps_per_second" in rl else rl["error"]
    rows = [
        (
            "engine, `autarky` bots (driver, legal actions, views, agents)",
            f"{_num(e['games_per_second'])} games/s, {_num(e['actions_per_second'])} actions/s",
        ),
        (
            "bare loop, the same games (no decision interface)",
            f"{_num(b['games_per_second'])} games/s",
        ),
        ("**engine / bare loop**", f"**{_num(result['ratio'], 3)}×**"),
        (
            "engine / bare loop, each without its shuffling (timed apart)",
            f"{_num(result['ratio_without_shuffle'], 3)}× (shuffling: "
            f"{_num(100 * (result['shuffle']['bare_share'] or 0))}% of the bare loop)",
        ),
        (
            "engine, `random` bots (offers, ~1,500 actions a game)",
            f"{_num(r['games_per_second'], 1)} games/s, {_num(r['actions_per_second'])} actions/s",
        ),
        ("`Game.clone()` of a mid-game state", f"{_num(result['clone_us'], 1)} µs"),
        (
            "the same, with the legacy `mt19937` generator of old records",
            f"{_num(result['clone_legacy_us'], 1)} µs",
        ),
        ("RL environment step with its observation (`bohnanza_v0`)", rl_cell),
    ]
    old = result.get("baseline")
    if old:
        rows.append(
            (
                "older engine (`--baseline`), the same `autarky` games, pure Python",
                f"{_num(old['games_per_second'])} games/s: new/old **{_num(old['gain'], 2)}×**",
            )
        )
    for p in result.get("parallel", []):
        rows.append(
            (
                f"engine, `autarky`, {p['workers']} worker processes (wall clock)",
                f"{_num(p['games_per_second'], 1)} games/s",
            )
        )
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    intro = (
        f"Engine {build_name(result.get('compiled', False))}. "
        f"Measured with `{command}` (4-player `classic`, CPU time of one process, "
        f"{result['rounds']} rounds in which every measurement takes its turn; Python "
        f"{result['python']}, this project's shared 2-core machine):"
    )
    after = (
        "The bare loop (`bohnanza.bench.bare_autarky_game`) plays the same seeded games as "
        "the engine, with the same choices and results, as a plain Python loop with no "
        "decision interface; the ratio is the share of the bare loop's speed the engine "
        "keeps, and it holds still when the shared machine's speed drifts. Both deal with "
        "the SHA-256 generator, whose cost pulls the ratio towards 1 (the bare loop's is "
        "always plain Python, the engine's compiled with it): the same games' shuffles are "
        "timed alone too, with each side's generator, and taken out for the second ratio. "
        "`bohnanza bench --baseline OLD/src` times an older "
        "engine's games in the same rounds; `python benchmarks/compare_engines.py "
        "--baseline OLD/src` compares two source trees at length, in alternating processes."
    )
    return (
        f"{textwrap.fill(intro, 90)}\n\n| measurement | figure |\n|---|---|\n{table}\n\n"
        f"{textwrap.fill(after, 90)}\n"
    )


def write_readme(path: Path, block: str, compiled: bool = False) -> None:
    """Replace what lies between the bench markers of this build (docs/performance.md) with
    ``block``; a page without both markers, in order, raises ValueError and is left as
    it was."""
    text = path.read_text(encoding="utf-8")
    start = readme_start(compiled)
    pattern = re.compile(re.escape(start) + r"\n.*?" + re.escape(README_END), re.S)
    if not pattern.search(text):
        raise ValueError(f"{path} has no {start} … {README_END} block")
    new = pattern.sub(lambda _: f"{start}\n{block}{README_END}", text, count=1)
    path.write_text(new, encoding="utf-8")
