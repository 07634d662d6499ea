"""Game records: setup plus every action, as documented in ``docs/records.md``.

A record is valid exactly when every action is legal at its point; replaying it is
"create the game, apply each action". Events and views are derived, never stored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .actions import Action
from .errors import BohnanzaError, RecordError
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


def replay(record: Mapping[str, Any], *, check_result: bool = True) -> Game:
    """Rebuild the game of a record, checking every action and (if present) the result."""
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"not a game record: format must be {FORMAT!r}")
    if record.get("version") != VERSION:
        raise RecordError(
            f"unsupported record version {record.get('version')!r}; this reads {VERSION}"
        )
    game = new_game(record)
    game.record_events(False)  # replayed actions are not logged; later ones are
    actions = record.get("actions", [])
    if not isinstance(actions, list):
        raise RecordError("record actions must be a list")
    for i, entry in enumerate(actions):
        if not isinstance(entry, dict) or "seat" not in entry:
            raise RecordError(f"action #{i}: each action needs a seat: {entry!r}")
        body = {k: v for k, v in entry.items() if k != "seat"}
        try:
            action = Action.from_json(body)
            game.apply(entry["seat"], action)
        except BohnanzaError as exc:
            raise RecordError(f"action #{i} ({entry!r}) is illegal: {exc}") from None
    result = record.get("result")
    if check_result and result is not None:
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
