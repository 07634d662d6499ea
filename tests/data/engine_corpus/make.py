"""Write the engine corpus: seeded games with trading bots in every rule set and module,
played by the engine of the commit named in ``ENGINE``, each stored as its record plus
digests of every state, every event and every seat's view after each action.

``tests/test_engine_corpus.py`` replays them and compares the digests: a change to the
engine's internals (issue 14) must leave every game identical. Regenerate only when a
rule really changes: ``python tests/data/engine_corpus/make.py``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent.parent))

from bohnanza import Game  # noqa: E402
from bohnanza.agents import make_agent  # noqa: E402
from bohnanza.driver import play  # noqa: E402
from bohnanza.records import make_record  # noqa: E402

#: (rules, modules, players, agent line-up): trading bots everywhere, random bots for
#: odd offers, declines and withdrawals, autarky for refusals.
SETUPS: list[
    tuple[str, tuple[str, ...], int, tuple[str, ...]]
    | tuple[str, tuple[str, ...], int, tuple[str, ...], dict[str, str]]
] = [
    ("classic", (), 3, ("heuristic", "random", "heuristic-v1")),
    ("classic", (), 4, ("heuristic", "heuristic", "random", "autarky")),
    ("classic", (), 5, ("heuristic", "random", "heuristic-v1", "heuristic", "random")),
    (
        "classic",
        (),
        7,
        ("heuristic", "random", "heuristic", "autarky", "heuristic", "random", "heuristic-v1"),
    ),
    ("first-edition", (), 4, ("heuristic", "random", "heuristic", "heuristic-v1")),
    ("fasolki", (), 4, ("heuristic", "random", "heuristic", "heuristic-v1")),
    (
        "fasolki",
        ("new-varieties",),
        4,
        ("heuristic", "random", "heuristic", "heuristic"),
        {"remove": "glutton"},
    ),
    (
        "fasolki",
        ("new-varieties",),
        5,
        ("heuristic", "random", "heuristic", "heuristic", "random"),
        {"remove": "farmer"},
    ),
    (
        "fasolki",
        ("new-varieties",),
        6,
        ("heuristic", "random", "heuristic", "heuristic", "random", "heuristic"),
    ),
    ("fasolki", ("fasolkopajaki",), 4, ("heuristic", "random", "heuristic", "random")),
    ("fasolki", ("fasolufka",), 3, ("heuristic", "random", "heuristic")),
    ("fasolki", ("fasolufka",), 5, ("heuristic", "random", "heuristic", "random", "heuristic")),
    ("fasolki", ("duel",), 2, ("heuristic", "random")),
    ("fasolki", ("duel",), 2, ("random", "heuristic")),
]
SEEDS = (11, 12)


def digest(obj: Any) -> str:
    return hashlib.sha256(
        json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def as_written(form: dict[str, Any]) -> dict[str, Any]:
    """A state's or view's JSON form in the shape the corpus was written in: a pending
    decision (``pending``, and the state's queue behind it) as the list ``[seat, kind,
    *args]`` it was before decisions were typed (issue 27). Only the form changes: the
    typed value's :meth:`~bohnanza.game.Pending.legacy_json` gives back the exact list, so
    the digests stay those the old engine wrote."""
    from bohnanza.game import Pending

    if form.get("pending") is not None:
        # A view's pending decision also carries its arguments' kinds and its cards as
        # cards (``kinds``, ``cards``, for the page): derived from the rest, never written.
        pending = {k: v for k, v in form["pending"].items() if k not in ("kinds", "cards")}
        form = {**form, "pending": Pending.from_json(pending).legacy_json()}
    extra = form.get("extra")
    if isinstance(extra, dict) and extra.get("queue"):
        queue = [Pending.from_json(p).legacy_json() for p in extra["queue"]]
        form = {**form, "extra": {**extra, "queue": queue}}
    return form


def trace(game: Game, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """Replay ``actions`` on ``game`` and hash what every step leaves behind."""
    from bohnanza.actions import Action

    states, events, views = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    for entry in actions:
        body = {k: v for k, v in entry.items() if k != "seat"}
        for ev in game.apply(entry["seat"], Action.from_json(body)):
            events.update(digest(ev.to_json()).encode())
        states.update(digest(as_written(game.to_dict())).encode())
        for seat in (*range(game.players), None):
            views.update(digest(as_written(game.view(seat).to_json())).encode())
    return {"states": states.hexdigest(), "events": events.hexdigest(), "views": views.hexdigest()}


def main() -> None:
    for index, setup in enumerate(SETUPS):
        rules, modules, players, lineup = setup[:4]
        options = setup[4] if len(setup) > 4 else {}  # type: ignore[misc]
        for seed in SEEDS:
            game = Game.new(rules, players, modules=modules, options=options, seed=seed)
            agents = [make_agent(name, seed=seed * 100 + i) for i, name in enumerate(lineup)]
            log = play(game, agents)
            record = make_record(game, log.actions, [{"agent": a} for a in lineup])
            fresh = Game.new(rules, players, modules=modules, options=options, seed=seed)
            record["digests"] = trace(fresh, record["actions"])
            name = "_".join((rules, *modules)) + f"-{players}p-{index:02d}-s{seed}.json"
            (HERE / name).write_text(json.dumps(record, separators=(",", ":")) + "\n")
            print(name, len(record["actions"]), record["result"])


if __name__ == "__main__":
    main()
