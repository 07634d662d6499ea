"""The broadcast after each action splices one shared encoding of the public seat parts
into every seat's message (``Session.broadcast_state``, the server's hot path). It must
send exactly the bytes of encoding each seat's whole ``state`` on its own: checked here
over whole random games of every rule set, for every seat and a spectator."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bohnanza import Game
from bohnanza.web.protocol import dumps
from bohnanza.web.tables import Conn, Manager, Settings, Table

CASES = [
    ("classic", 4, {}),
    ("fasolki+fasolkopajaki", 4, {}),  # declared colours in offers
    ("fasolki+fasolufka", 3, {}),  # hidden kinds in offers, pending lady moves
    ("fasolki+new-varieties", 5, {"remove": "farmer"}),
    ("fasolki+duel", 2, {}),
]


class Socket:
    """Never written to: the test reads the connections' queues."""

    async def send_text(self, data: str) -> None:  # pragma: no cover - not called
        raise AssertionError("not expected")

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        return None


@pytest.mark.parametrize(("rules", "players", "options"), CASES)
def test_spliced_broadcast_equals_each_seats_own_state(
    tmp_path: Path, rules: str, players: int, options: dict[str, str]
) -> None:
    async def run() -> int:
        manager = Manager(Settings(database_url=f"sqlite:///{tmp_path / 'db.sqlite'}"))
        table = Table("t", 0.0, "playing", {"rules": rules, "players": players}, [])
        game = Game.new(rules, players, options=options, seed=7)
        table.game = game
        readers: list[int | None] = [*range(players), None]
        conns = [Conn(Socket(), table, seat=s, authed=True) for s in readers]
        table.conns = set(conns)
        rng = random.Random(7)
        checked = 0
        while not game.over and checked < 400:
            seat = rng.choice(game.waiting_for() or list(range(players)))
            legal = game.legal_actions(seat)
            if not legal:
                seat = next(s for s in range(players) if game.legal_actions(s))
                legal = game.legal_actions(seat)
            events = game.apply(seat, rng.choice(legal))
            table.actions.append((seat, legal[0]))  # only the count (seq) matters here
            manager.session.broadcast_state(table, events)
            for conn in conns:
                sent = conn.queue.get_nowait()
                state = manager.session.state(table, conn.seat, events)
                assert state is not None
                assert sent == dumps(state), f"seat {conn.seat} after {checked} actions"
                assert conn.queue.empty()
            checked += 1
        manager.store.close()
        return checked

    assert asyncio.run(run()) > 50
