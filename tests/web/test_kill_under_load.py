"""``kill -9`` under load (issue 51), small: ``benchmarks/kill_under_load.py`` with 3 tables
and 3 kills on SQLite and on PostgreSQL (the full size, 20 kills, is the benchmark's own
run; docs/reliability.md). The kills land at random moments while both people of every
table play as fast as they may, so some land between a commit and its ``ack``.

The checker is tested on its own too: a run that loses nothing proves little unless the
same checker is seen to flag a record that lacks an acknowledged action.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scripts import load_script

from .conftest import Postgres

kill = load_script("benchmarks/kill_under_load.py")

#: Acks a small run must reach, far below what one makes (about 250 on a loaded 2-core
#: machine): a run that played almost nothing cannot pass.
MIN_ACKS = 60


def test_kill_9_under_load_loses_no_acknowledged_action(db_url: str, tmp_path: Path) -> None:
    db = db_url.split(":", 1)[0].split("+", 1)[0]
    outcome = kill.run_kills(db_url, db, kills=3, tables=3, seed=51, workdir=tmp_path)
    print(outcome.summary())
    print(outcome.details())
    assert outcome.lost == []
    assert not outcome.failed
    assert outcome.acknowledged >= MIN_ACKS, outcome.summary()
    # Every table played, and every client came back after every kill.
    assert len({ack.table for ack in outcome.acks}) >= 3
    assert outcome.reconnects >= 3 * 6 - 6  # 6 clients x 3 kills, less a few finished games
    assert not outcome.errors, outcome.details()
    assert outcome.server_log == [], outcome.server_log[:5]


# ------------------------------------------------------------------ the checker


def _acks() -> list[Any]:
    plant = {"type": "plant", "field": 0}
    end = {"type": "end_trading"}
    return [kill.Ack("t1", 1, 0, plant), kill.Ack("t1", 3, 1, end), kill.Ack("t2", 2, 0, end)]


def _records() -> dict[str, dict[str, Any]]:
    bot = {"seat": 2, "type": "stop_planting"}
    return {
        "t1": {
            "actions": [
                {"seat": 0, "type": "plant", "field": 0},
                bot,
                {"seat": 1, "type": "end_trading"},
                bot,
            ]
        },
        "t2": {"actions": [bot, {"seat": 0, "type": "end_trading"}]},
    }


def test_checker_passes_a_record_holding_every_ack() -> None:
    assert kill.check(_acks(), _records()) == []


def test_checker_flags_a_record_that_lacks_an_ack() -> None:
    records = _records()
    records["t1"]["actions"] = records["t1"]["actions"][:2]  # the write of seq 3 undone
    lost = kill.check(_acks(), records)
    assert len(lost) == 1 and "t1 seq 3: missing" in lost[0]


def test_checker_flags_another_action_at_the_acked_place() -> None:
    records = _records()
    records["t2"]["actions"][1] = {"seat": 0, "type": "plant", "field": 1}
    lost = kill.check(_acks(), records)
    assert len(lost) == 1 and "t2 seq 2" in lost[0]


def test_checker_flags_a_seq_acknowledged_twice() -> None:
    """The server forgot seq 3 and acknowledged the same action again under that
    number: the record matches the second ack, the first was lost all the same."""
    acks = [*_acks(), kill.Ack("t1", 3, 1, {"type": "end_trading"})]
    lost = kill.check(acks, _records())
    assert len(lost) == 1 and "acknowledged again later" in lost[0]


def test_checker_flags_a_table_without_a_record() -> None:
    records = _records()
    del records["t2"]
    assert kill.check(_acks(), records) == ["table t2 seq 2: no record"]


@pytest.mark.long
def test_kill_9_of_instances_sharing_one_postgresql_database(postgres: Postgres) -> None:
    """Two instances on one database (web/leases.py), each killed in turn under load: the
    survivor takes the dead one's tables over; no acknowledged action lost or doubled."""
    url = postgres.new_database()
    outcome = kill.run_kills(url, "postgresql", kills=3, tables=3, seed=52, instances=2)
    print(outcome.summary())
    assert outcome.lost == [] and not outcome.failed, outcome.details()
    assert outcome.acknowledged >= MIN_ACKS and not outcome.errors, outcome.details()
