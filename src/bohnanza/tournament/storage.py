"""Where a tournament keeps its games: one SQLite file, one row per game.

The ``games`` table has plain columns for numbers and text and JSON for the lists, so that
``pandas.read_sql("select * from games", sqlite3.connect(path))`` or the ``sqlite3``
shell (with its ``json_each``) opens it directly. ``meta`` remembers which tournament
the file belongs to, so that a resumed run cannot mix two different line-ups.
``forfeits`` holds the games an agent failed in (:mod:`bohnanza.forfeits`): the seat, its
agent and the error; they are not in ``games`` and a resumed run does not replay them.
``agent_stats`` holds the counters agents reported (``Agent.stats()``), one row per game,
seat and counter (``select agent, counter, avg(value) from agent_stats group by 1, 2``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import ConfigError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    seed INTEGER PRIMARY KEY,       -- the game's seed (tournament seed + game index)
    game INTEGER NOT NULL,          -- game index in the tournament, from 0
    rules TEXT NOT NULL,
    players INTEGER NOT NULL,
    options TEXT NOT NULL,          -- JSON object
    seats TEXT NOT NULL,            -- JSON list: the agent at each seat (seat 0 starts)
    agents TEXT NOT NULL,           -- JSON object: agent -> list of the seats it held
    scores TEXT NOT NULL,           -- JSON list: coins per seat
    winners TEXT NOT NULL,          -- JSON list of winning seats (several: a shared win)
    hand_sizes TEXT NOT NULL,       -- JSON list: cards in hand at the end (the tie-break)
    turns INTEGER NOT NULL,
    actions INTEGER NOT NULL,
    seconds REAL NOT NULL,          -- wall time of the game
    decision_ms TEXT NOT NULL,      -- JSON list: median ms per non-trivial decision, per seat
    cpu_seconds REAL                -- the worker's CPU time for the game (NULL: not measured)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS forfeits (
    seed INTEGER PRIMARY KEY,       -- the game's seed
    game INTEGER NOT NULL,          -- game index in the tournament, from 0
    seat INTEGER NOT NULL,          -- the seat whose agent failed
    agent TEXT NOT NULL,            -- that agent's spec
    error TEXT NOT NULL             -- what it did: the exception or the illegal action
);
CREATE TABLE IF NOT EXISTS agent_stats (
    seed INTEGER NOT NULL,          -- the game (games.seed)
    seat INTEGER NOT NULL,
    agent TEXT NOT NULL,            -- the agent at that seat
    counter TEXT NOT NULL,          -- a name from the agent's stats()
    value REAL NOT NULL,
    PRIMARY KEY (seed, seat, counter)
);
"""

COLUMNS = (
    "seed",
    "game",
    "rules",
    "players",
    "options",
    "seats",
    "agents",
    "scores",
    "winners",
    "hand_sizes",
    "turns",
    "actions",
    "seconds",
    "decision_ms",
    "cpu_seconds",
)
JSON_COLUMNS = frozenset(
    ("options", "seats", "agents", "scores", "winners", "hand_sizes", "decision_ms")
)
FILENAME = "games.sqlite"


class Store:
    """The games of one tournament, in ``<folder>/games.sqlite``."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / FILENAME
        self.db = sqlite3.connect(self.path)
        self.db.executescript(SCHEMA)
        have = {r[1] for r in self.db.execute("PRAGMA table_info(games)")}
        if "cpu_seconds" not in have:  # a file from before the column
            self.db.execute("ALTER TABLE games ADD COLUMN cpu_seconds REAL")
        self.db.commit()

    def close(self) -> None:
        self.db.commit()
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- the tournament's identity

    def claim(self, identity: Mapping[str, Any]) -> None:
        """Record which tournament this file holds, or refuse a different one."""
        text = json.dumps(dict(identity), sort_keys=True)
        row = self.db.execute("SELECT value FROM meta WHERE key = 'tournament'").fetchone()
        if row is None:
            self.db.execute("INSERT INTO meta (key, value) VALUES ('tournament', ?)", (text,))
            self.db.commit()
            return
        if row[0] != text:
            old = json.loads(row[0])
            if "fingerprints" not in old:
                raise ConfigError(
                    f"{self.path} holds games stored before the agents' code was fingerprinted; "
                    "they may come from older versions of the bots: choose another --out "
                    "folder to start a new tournament"
                )
            changed = sorted(
                name
                for name, mark in dict(identity.get("fingerprints") or {}).items()
                if name in old["fingerprints"] and old["fingerprints"][name] != mark
            )
            if changed and {**old, "fingerprints": None} == {**identity, "fingerprints": None}:
                raise ConfigError(
                    f"{self.path} holds games played by another version of "
                    f"{', '.join(map(repr, changed))} (its code or parameters changed since); "
                    "resuming would mix the two: choose another --out folder to start a new "
                    "tournament"
                )
            diff = ", ".join(
                f"{k}: {old.get(k)!r} there, {identity.get(k)!r} now"
                for k in sorted(set(old) | set(identity))
                if old.get(k) != identity.get(k)
            )
            raise ConfigError(
                f"{self.path} holds a different tournament ({diff}); "
                "choose another --out folder to start a new one"
            )

    # ---------------------------------------------------------------- rows

    def seeds(self) -> set[int]:
        """Seeds of the games already stored or forfeited (a resumed run skips them)."""
        query = "SELECT seed FROM games UNION SELECT seed FROM forfeits"
        return {int(r[0]) for r in self.db.execute(query)}

    def add_forfeits(self, forfeits: Iterable[Mapping[str, Any]]) -> None:
        """Store forfeits (:meth:`bohnanza.forfeits.Forfeit.to_json`); committed with the
        next :meth:`commit`."""
        self.db.executemany(
            "INSERT OR REPLACE INTO forfeits (seed, game, seat, agent, error) "
            "VALUES (:seed, :game, :seat, :agent, :error)",
            [dict(f) for f in forfeits],
        )

    def forfeits(self, seeds: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """Forfeited games in seed order (only ``seeds`` when given)."""
        cur = self.db.execute("SELECT seed, game, seat, agent, error FROM forfeits ORDER BY seed")
        wanted = set(seeds) if seeds is not None else None
        keys = ("seed", "game", "seat", "agent", "error")
        return [
            dict(zip(keys, values, strict=True))
            for values in cur
            if wanted is None or values[0] in wanted
        ]

    def commit(self) -> None:
        self.db.commit()

    def add(self, rows: Iterable[Mapping[str, Any]], *, commit: bool = True) -> int:
        """Store rows; with ``commit=False`` the caller commits (:meth:`commit`) later."""
        values = [
            tuple(json.dumps(r[c]) if c in JSON_COLUMNS else r.get(c) for c in COLUMNS)
            for r in rows
        ]
        self.db.executemany(
            f"INSERT OR REPLACE INTO games ({', '.join(COLUMNS)}) "
            f"VALUES ({', '.join('?' * len(COLUMNS))})",
            values,
        )
        self._add_stats(rows)
        if commit:
            self.db.commit()
        return len(values)

    def _add_stats(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for r in rows:
            self.db.execute("DELETE FROM agent_stats WHERE seed = ?", (r["seed"],))
            self.db.executemany(
                "INSERT INTO agent_stats (seed, seat, agent, counter, value) VALUES (?, ?, ?, ?, ?)",
                [
                    (r["seed"], seat, r["seats"][seat], counter, value)
                    for seat, counters in enumerate(r.get("agent_stats") or [])
                    for counter, value in counters.items()
                ],
            )

    def stats(self) -> dict[int, list[dict[str, float]]]:
        """Seed → per seat the counters its agent reported (empty when none)."""
        out: dict[int, list[dict[str, float]]] = {}
        query = "SELECT seed, seat, counter, value FROM agent_stats ORDER BY seed, seat, counter"
        for seed, seat, counter, value in self.db.execute(query):
            seats = out.setdefault(int(seed), [])
            while len(seats) <= seat:
                seats.append({})
            seats[seat][counter] = int(value) if float(value).is_integer() else value
        return out

    def rows(self, seeds: Sequence[int] | None = None) -> list[dict[str, Any]]:
        """Stored games in seed order (only ``seeds`` when given), JSON decoded."""
        cur = self.db.execute(f"SELECT {', '.join(COLUMNS)} FROM games ORDER BY seed")
        wanted = set(seeds) if seeds is not None else None
        out: list[dict[str, Any]] = []
        for values in cur:
            row = {
                c: json.loads(v) if c in JSON_COLUMNS else v
                for c, v in zip(COLUMNS, values, strict=True)
            }
            if wanted is None or row["seed"] in wanted:
                out.append(row)
        counters = self.stats()
        for row in out:
            have = counters.get(row["seed"], [])
            row["agent_stats"] = [have[k] if k < len(have) else {} for k in range(row["players"])]
        return out


__all__ = ["COLUMNS", "FILENAME", "SCHEMA", "Store"]
