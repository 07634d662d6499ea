"""Records and replays of a table's game, for the pages and the database.

A table's game is stored as a setup (a record without actions) plus its actions; every
rebuild goes through :func:`bohnanza.records.replay`, like any other record.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..actions import Action
from ..agents.llm import is_llm_spec, llm_seat_summary
from ..events import Event
from ..game import Game
from ..records import make_record, replay
from .model import LobbyError, Table


def stored_record(
    setup: dict[str, Any], actions: Sequence[tuple[int, dict[str, Any]]]
) -> dict[str, Any]:
    """The record of a stored game: its setup and its stored ``(seat, action)`` rows."""
    return {**setup, "actions": [{"seat": seat, **raw} for seat, raw in actions]}


def rebuild(
    setup: dict[str, Any], actions: Sequence[tuple[int, dict[str, Any]]]
) -> tuple[Game, list[tuple[int, Action]], list[Event]]:
    """Replay a stored record (setup + actions), keeping the events for the game log."""
    done: list[tuple[int, Action]] = []
    events: list[Event] = []

    def keep(_index: int, seat: int, action: Action, caused: list[Event]) -> None:
        done.append((seat, action))
        events.extend(caused)

    game = replay(stored_record(setup, actions), on_action=keep)
    return game, done, events


def record_seats(table: Table) -> list[dict[str, Any]]:
    """The seats as a record names them (who played, which bot; a language model's
    model, URL and counters, never its key)."""
    seats = []
    for s in table.seats:
        entry: dict[str, Any] = {
            "kind": s.kind,
            **({"bot": s.bot} if s.kind == "bot" else {}),
            "name": s.name,
        }
        if s.kind == "bot" and is_llm_spec(s.bot):
            entry["llm"] = llm_seat_summary(s.bot, table.agents.get((s.seat, s.bot)))
        seats.append(entry)
    return seats


def table_record(table: Table) -> dict[str, Any]:
    """The finished game's record (the seed and every hand in it: only once it is over)."""
    if table.status != "over" or table.game is None:
        raise LobbyError("the record is shown once the game is over", 403, "not_over")
    return make_record(table.game, table.actions, record_seats(table))


def card_table(game: Game) -> list[list[str]]:
    """The public card table: card id -> [variety, kind] (R-INFO: which card is where is
    private, what a card id stands for is not)."""
    config = game.config
    return [[config.variety_of(c), config.card_kind[c]] for c in range(config.deck_size)]


def turn_steps(table: Table) -> list[int]:
    """The step at which each turn of the finished game begins (turn 1 at step 0), so
    that a replay can jump to a turn instead of stepping through a thousand actions.
    Worked out once per table (a finished game does not change)."""
    if table.turn_steps is None:
        assert table.game is not None
        starts = [0]

        def keep(index: int, _seat: int, _action: Action, caused: list[Event]) -> None:
            if any(e.type == "turn" for e in caused):
                starts.append(index + 1)

        replay(make_record(table.game, table.actions), on_action=keep)
        table.turn_steps = starts
    return table.turn_steps


def replay_frame(table: Table, step: int) -> dict[str, Any]:
    """The finished game after ``step`` actions, with everything revealed."""
    if table.status != "over" or table.game is None:
        raise LobbyError("a replay is shown once the game is over", 403, "not_over")
    total = table.seq
    if not 0 <= step <= total:
        raise LobbyError(f"step must be 0 to {total}", 400)
    events: list[Event] = []

    def keep(_index: int, _seat: int, _action: Action, caused: list[Event]) -> None:
        events.extend(caused)

    # The steps before the last without events (faster), then the last with its own.
    record = make_record(table.game, table.actions)
    game = replay(record, stop=max(0, step - 1))
    if step > 0:
        game = replay(record, stop=step, resume=(game, step - 1), on_action=keep)
    view = game.view(None)
    cj = view.card_json
    last = table.actions[step - 1] if step > 0 else None
    return {
        "step": step,
        "total": total,
        "turn_steps": turn_steps(table),
        "action": {"seat": last[0], **last[1].to_json()} if last is not None else None,
        "events": [e.to_json() for e in events],
        "view": view.to_json(),
        "hands": [[cj(c) for c in h] for h in game.hands],
        "offers": [
            {
                "offer_id": oid,
                "proposer": p,
                "to": o.to,
                "give": [cj(c) for c in o.give],
                "declared": list(o.declared),
                "want": [list(w) for w in o.want],
            }
            for oid, (p, o) in game.offers.items()
        ],
        "varieties": list(game.config.varieties),
        "cards": card_table(game),
    }
