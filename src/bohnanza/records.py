"""Game records: setup plus every action, as documented in ``docs/records.md``.

A record is valid exactly when every action is legal at its point; replaying it is
"create the game, apply each action". Events and views are derived, never stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .actions import Action
from .errors import BohnanzaError, RecordError
from .events import Event
from .game import Game
from .shuffle import LEGACY

FORMAT = "bohnanza-record"
VERSION = 1


def make_record(
    game: Game,
    actions: Sequence[tuple[int, Action]],
    seats: Sequence[Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The record of ``game`` after ``actions`` (result included once it is over)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": game.config.rules,
        "players": game.players,
        "options": dict(game.config.options),
        "seed": game.seed,
        "generator": game.generator,
        "deck": list(game.initial_deck),
        "seats": [dict(s) for s in seats]
        if seats is not None
        else [{} for _ in range(game.players)],
        "actions": [{"seat": s, **a.to_json()} for s, a in actions],
        "result": game.result() if game.over else None,
    }


def new_game(setup: Mapping[str, Any]) -> Game:
    """The game a record starts from (its setup: rules, players, options, seed, generator,
    deck), before any action. A record without a generator name was shuffled by the
    Mersenne Twister (:data:`bohnanza.shuffle.LEGACY`), the only one there was then."""
    try:
        rules = setup["rules"]
        players = setup["players"]
    except KeyError as exc:
        raise RecordError(f"record lacks {exc.args[0]!r}") from None
    options = setup.get("options") or {}
    seed = setup.get("seed", 0)
    deck = setup.get("deck")
    generator = setup.get("generator", LEGACY)
    if not isinstance(options, dict):
        raise RecordError("record options must be an object")
    if deck is not None and not isinstance(deck, list):
        raise RecordError("record deck must be a list")
    if not isinstance(generator, str):
        raise RecordError("record generator must be a name")
    try:
        game = Game.new(
            str(rules), players, options=options, seed=seed, deck=deck, generator=generator
        )
    except BohnanzaError as exc:
        raise RecordError(f"bad record setup: {exc}") from None
    if deck is not None and len(deck) != game.config.deck_size:
        raise RecordError(
            f"record deck has {len(deck)} cards; {rules} with {players} uses "
            f"{game.config.deck_size}"
        )
    return game


#: What :func:`replay` tells its caller after each action it carries out: the action's
#: index in the record, its seat, the action and the events it caused.
OnAction = Callable[[int, int, Action, list[Event]], None]


def replay(
    record: Mapping[str, Any],
    *,
    check_result: bool = True,
    stop: int | None = None,
    resume: tuple[Game, int] | None = None,
    on_action: OnAction | None = None,
) -> Game:
    """Rebuild the game of a record, checking every action and (if present) the result.

    This is the one place that turns a setup plus actions into a game: the CLI, the
    web server (resuming tables, reading back a write it was unsure of, replay frames)
    and the checker all come here, so that a record means one thing everywhere.

    * ``stop``: carry out the first ``stop`` actions only (a replay frame); the result
      is then not checked.
    * ``resume``: ``(game, done)``, the record's game after its first ``done`` actions
      (it is changed in place): only the actions after those are carried out, and the
      setup is not built again (the web server catching up with its database).
    * ``on_action``: called after each action carried out, with its index, seat, the
      action and its events (the game then records events, as for a game log).
    """
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"not a game record: format must be {FORMAT!r}")
    if record.get("version") != VERSION:
        raise RecordError(
            f"unsupported record version {record.get('version')!r}; this reads {VERSION}"
        )
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError("record actions must be a list")
    if resume is not None:
        game, first = resume
        if not 0 <= first <= len(actions):
            raise RecordError(f"cannot resume after {first} of {len(actions)} actions")
    else:
        game, first = new_game(record), 0
    last = len(actions) if stop is None else stop
    if not first <= last <= len(actions):
        raise RecordError(f"cannot stop after {stop} of {len(actions)} actions")
    # Replayed actions are logged only for on_action; actions after the replay are.
    game.record_events(on_action is not None)
    for i in range(first, last):
        entry = actions[i]
        if not isinstance(entry, dict) or "seat" not in entry:
            raise RecordError(f"action #{i}: each action needs a seat: {entry!r}")
        body = {k: v for k, v in entry.items() if k != "seat"}
        try:
            action = Action.from_json(body)
            seat = entry["seat"]
            events = game.apply(seat, action)
        except BohnanzaError as exc:
            raise RecordError(f"action #{i} ({entry!r}) is illegal: {exc}") from None
        if on_action is not None:
            on_action(i, seat, action, events)
    result = record.get("result")
    if check_result and result is not None and last == len(actions):
        if not game.over:
            raise RecordError("the record has a result but its actions do not finish the game")
        if game.result() != result:
            raise RecordError(f"replayed result {game.result()} differs from the record's {result}")
    game.record_events()
    return game


def load(path: str | Path) -> dict[str, Any]:
    """Read a record file; a missing or malformed file raises RecordError."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RecordError(f"no such record file: {p}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordError(f"cannot read record {p}: {exc}") from None
    if not isinstance(data, dict):
        raise RecordError(f"{p} does not hold a JSON object")
    return data


def save(record: Mapping[str, Any], path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, separators=(",", ":")) + "\n", encoding="utf-8")


#: The public names (tests/test_public_api.py; CHANGELOG.md says when they change).
__all__ = [
    "FORMAT",
    "VERSION",
    "load",
    "make_record",
    "new_game",
    "replay",
    "save",
]
