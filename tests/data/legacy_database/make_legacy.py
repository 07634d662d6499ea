"""Write a database with the store of commit 107b166, the last before migrations (run it
with that commit's sources first on PYTHONPATH; see README.md here)."""

from __future__ import annotations

import sys
import time

from bohnanza.agents import make_agent
from bohnanza.driver import PlayLog, play
from bohnanza.game import Game
from bohnanza.records import make_record
from bohnanza.web.store import Store, StoredSeat, StoredTable


def main(url: str) -> None:
    store = Store(url)
    game = Game.new("classic", 3, seed=11)
    log = play(game, [make_agent("autarky") for _ in range(3)], log=PlayLog())
    record = make_record(game, log.actions)
    setup = {k: v for k, v in record.items() if k not in ("actions", "result")}
    acts = [(s, a.to_json()) for s, a in log.actions]
    settings = {
        "rules": "classic",
        "players": 3,
        "options": {},
        "trade_limit": 0,
        "stand_in_bot": "autarky",
    }
    seats = [
        StoredSeat(0, "person", "", "Ada", "a" * 64),
        StoredSeat(1, "bot", "autarky", "", None),
        StoredSeat(2, "bot", "autarky", "", None),
    ]
    for table, count, result in (
        ("done", len(acts), game.result()),
        ("half", len(acts) // 2, None),
    ):
        store.create_table(StoredTable(table, time.time(), "lobby", settings, seats))
        store.start_game(table, setup)
        store.append_actions(table, 0, acts[:count], result)
    store.create_table(StoredTable("lobby", time.time(), "lobby", settings, seats))
    store.add_chat("done", 0, "Ada", "gg")
    with store.engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()


if __name__ == "__main__":
    main(sys.argv[1])
