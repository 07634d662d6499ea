"""Two measures of OpenSpiel's ``python_bohnanza`` for the ISMCTS yardstick (issue 56):

* ``consistency``: how often ``resample_from_infostate`` keeps a withdrawn offer's hand
  cards in the offerer's hand. In seeded games a seat offers two hand cards of one
  variety (the other seats see the variety, R-TRADE-3) and withdraws the offer; another
  seat's information state is then resampled ``--samples`` times, with the seat's memory
  of its views (what the state keeps) and without it (the view alone, as before), and
  the shares of worlds in which the offerer holds at least those two cards, and none of
  the variety, are printed.
* ``leaves``: µs of CPU per leaf of ISMCTS's two leaf evaluators (coin standing, value
  model) on the states of a seeded random game.
* ``steps``: CPU seconds of whole random games (``--games``, seeded; chance by its
  probabilities) without the history (``recall=False``), with it, and with it but
  without the per-seat memory the state keeps beside it: what the memory costs a step.

    python benchmarks/openspiel_resample.py consistency [--games 20] [--samples 50]
    python benchmarks/openspiel_resample.py leaves [--states 300]
    python benchmarks/openspiel_resample.py steps [--games 3]

Prints JSON. Needs the optional ``open-spiel`` wheel (docs/rl.md).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from typing import Any

from bohnanza.rl import openspiel as bos


def _chance(state: Any, rng: random.Random) -> None:
    outcomes = state.chance_outcomes()
    state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])


def _first(legal: list[int], segment: tuple[int, int]) -> int | None:
    start, size = segment
    return next((a for a in legal if start <= a < start + size), None)


def withdrawn_offer(game: Any, seed: int, limit: int = 20_000) -> tuple[Any, int, int] | None:
    """A state of a random game (``seed``) just after a seat offered two hand cards of one
    variety and withdrew the offer, before anything else happened to its hand: the state,
    the offerer and the variety's index; None if the game gave no chance to (rare)."""
    rng = random.Random(seed)
    seg = game.template.builder.segments
    state = game.new_initial_state()
    offer: tuple[int, int, list[int]] | None = None  # offerer, variety, its hand then
    for _ in range(limit):
        if state.is_terminal():
            return None
        if state.is_chance_node():
            _chance(state, rng)
            continue
        p = state.current_player()
        legal = state.legal_actions()
        g = state.env.game
        if offer is not None:
            offerer, v, hand = offer
            if not any(pr == offerer for pr, _ in g.offers.values()):
                if sorted(g.hands[offerer]) != hand:
                    offer = None  # the hand changed meanwhile (it gave cards away): again
                    continue
                return state, offerer, v
            # The offerer withdraws; the others decline, pass or end the trading.
            picks = (
                ("withdraw",) if p == offerer else ("decline", "pass", "end_trading", "withdraw")
            )
            action = next(
                (a for name in picks if (a := _first(legal, seg[name])) is not None), None
            )
            state.apply_action(action if action is not None else rng.choice(legal))
            continue
        view = state.env.view(p)
        card0 = seg["card"][0]
        if view.phase == "trade" and state.env.draft is None and rng.random() < 0.5:
            pairs = Counter(g.config.card_variety[c] for c in view.hand)
            twice = [v for v, k in pairs.items() if k >= 2]
            if twice:
                v = rng.choice(twice)
                at = [k for k, c in enumerate(view.hand) if g.config.card_variety[c] == v][:2]
                if all(card0 + 2 + k in legal for k in at) and _offer(state, rng, at, seg):
                    offer = (p, v, sorted(g.hands[p]))
                    continue
        state.apply_action(rng.choice(legal))
    return None


def _offer(state: Any, rng: random.Random, at: list[int], seg: dict[str, Any]) -> bool:
    """Compose an offer of the hand cards at positions ``at`` (builder steps: the cards,
    then wants or a partner until it may be submitted); False if it could not be."""
    card0 = seg["card"][0]
    for k in at:
        if card0 + 2 + k not in state.legal_actions():
            return False
        state.apply_action(card0 + 2 + k)
    for _ in range(8):
        legal = state.legal_actions()
        submit = _first(legal, seg["submit"])
        if submit is not None:
            state.apply_action(submit)
            return True
        step = _first(legal, seg["partner"])
        if step is None:
            wants = [a for a in legal if seg["want"][0] <= a < sum(seg["want"])]
            step = rng.choice(wants) if wants else None
        if step is None:
            break
        state.apply_action(step)
    cancel = _first(state.legal_actions(), seg["cancel"])
    if cancel is not None:
        state.apply_action(cancel)
    return False


def holds(state: Any, seat: int, variety: int) -> int:
    """How many cards of ``variety`` ``seat`` holds in ``state``'s world."""
    g = state.env.game
    return sum(1 for c in g.hands[seat] if g.config.card_variety[c] == variety)


def consistency(games: int, samples: int, seed: int = 1) -> dict[str, Any]:
    game = bos.load("classic", 3)
    found = 0
    kept = {"memory": 0, "view_only": 0}
    none = {"memory": 0, "view_only": 0}
    total = 0
    cpu = {"memory": 0.0, "view_only": 0.0}
    s = seed
    while found < games and s < seed + 20 * games:
        got = withdrawn_offer(game, s)
        s += 1
        if got is None:
            continue
        state, offerer, v = got
        found += 1
        observer = (offerer + 1) % 3
        bare = state.clone()
        bare._seen = [None] * 3
        for name, root in (("memory", state), ("view_only", bare)):
            rng = random.Random(s)
            t = time.process_time()
            for _ in range(samples):
                world = root.resample_from_infostate(observer, rng.random)
                k = holds(world, offerer, v)
                kept[name] += k >= 2
                none[name] += k == 0
            cpu[name] += time.process_time() - t
        total += samples
    return {
        "games": found,
        "resamples_each": total,
        "offerer_keeps_both": {k: round(x / max(total, 1), 3) for k, x in kept.items()},
        "offerer_holds_none": {k: round(x / max(total, 1), 3) for k, x in none.items()},
        "ms_per_resample": {k: round(1000 * x / max(total, 1), 3) for k, x in cpu.items()},
    }


def leaves(states: int, seed: int = 1) -> dict[str, Any]:
    game = bos.load("classic", 3, recall=False)
    rng = random.Random(seed)
    state = game.new_initial_state()
    picked = []
    step = 0
    while len(picked) < states:
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            _chance(state, rng)
            continue
        step += 1
        if step % 7 == 0:
            picked.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    out: dict[str, Any] = {"states": len(picked)}
    for name, cls in bos.LEAVES.items():
        ev = cls()
        ev.evaluate(picked[0])  # loads the model once
        t = time.process_time()
        for st in picked:
            ev.evaluate(st)
        out[f"{name}_us_per_leaf"] = round(1e6 * (time.process_time() - t) / len(picked), 1)
    return out


def steps(games: int, seed: int = 1) -> dict[str, Any]:
    kinds = {
        "no_history": (False, False),
        "history_and_memory": (True, True),
        "history_only": (True, False),
    }
    loaded = {name: bos.load("classic", 3, recall=recall) for name, (recall, _) in kinds.items()}
    cpu = dict.fromkeys(kinds, 0.0)
    n = dict.fromkeys(kinds, 0)
    for g in range(games):  # the three in turn on each seed: the machine's load shared
        for name, (_, memory) in kinds.items():
            rng = random.Random(seed + g)
            t = time.process_time()
            state = loaded[name].new_initial_state()
            if not memory:
                state._seen = [None] * 3  # inherited by every state after it
            while not state.is_terminal():
                if state.is_chance_node():
                    _chance(state, rng)
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
                n[name] += 1
            cpu[name] += time.process_time() - t
    return {
        name: {
            "cpu_s_per_game": round(cpu[name] / games, 3),
            "steps_per_game": n[name] // games,
            "us_per_step": round(1e6 * cpu[name] / n[name], 1),
        }
        for name in kinds
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["consistency", "leaves", "steps"])
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--states", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.what == "consistency":
        got = consistency(args.games or 20, args.samples, args.seed)
    elif args.what == "steps":
        got = steps(args.games or 3, args.seed)
    else:
        got = leaves(args.states, args.seed)
    print(json.dumps(got, indent=1))
    return got


if __name__ == "__main__":
    main()
