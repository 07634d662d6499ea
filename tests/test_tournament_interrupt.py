"""Ctrl-C during a tournament: the workers stop at once, every finished game is kept,
and the rerun plays only the missing games."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bohnanza.tournament import Store, TournamentSpec, run_tournament

LINEUP = ("heuristic", "heuristic-v1", "autarky", "random")


def stored(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path) as db:
            return int(db.execute("SELECT count(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:  # the table is being created
        return 0


def children(pid: int) -> set[int]:
    """Processes whose parent is ``pid`` (from /proc/*/stat)."""
    out: set[int] = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def default_sigint() -> None:
    """In the child before exec: Python's Ctrl-C again. A test run started in the
    background (``cmd &`` in a script) has SIGINT ignored, and a child inherits that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_keeps_finished_games_and_the_rerun_plays_only_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "t"
    db = out / "games.sqlite"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    cmd = [sys.executable, "-m", "bohnanza.cli", "tournament", "-a", ",".join(LINEUP)]
    cmd += ["-n", "5000", "-w", "2", "-o", str(out), "--no-plots", "--json", "--no-progress"]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_sigint
    )
    try:
        deadline = time.monotonic() + 90
        while stored(db) < 3:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no game stored in 90 s"
            time.sleep(0.2)
        workers = children(proc.pid)
        assert len(workers) >= 2
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)  # to the main process only: it must stop its workers
        _, err = proc.communicate(timeout=30)
        assert time.monotonic() - start < 15
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert b"interrupted" in err and b"Traceback" not in err
    time.sleep(0.5)
    assert not [w for w in workers if alive(w)], "workers left running"
    kept = stored(db)
    assert 3 <= kept < 5000
    spec = TournamentSpec("classic", 4, LINEUP)
    with Store(out) as store:
        rows = store.rows()
    # Every stored game is whole, and they are the games the tournament asked for.
    assert all(len(r["scores"]) == 4 and r["turns"] > 0 for r in rows)
    assert all(tuple(r["seats"]) == spec.seats_for(r["game"]) for r in rows)
    seeds = {r["seed"] for r in rows}
    games = max(seeds) + 2  # every game up to two past the last one stored
    resumed = run_tournament(spec, games, out, workers=1)
    assert resumed.skipped == kept and resumed.played == games - kept
    assert sorted(r["seed"] for r in resumed.rows) == list(range(1, games + 1))
    json.dumps(resumed.summary)


@pytest.fixture
def python_sigint() -> Iterator[None]:
    """Python's own Ctrl-C handler for the test's duration (a run started in the
    background has SIGINT ignored), then whatever was there before."""
    started_with = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, started_with)


def test_ctrl_c_while_the_pool_runs_is_a_flag_checked_between_waits(python_sigint: None) -> None:
    """A KeyboardInterrupt raised inside ``concurrent.futures.wait`` could leave a
    future's lock held, and the pool's shutdown then hung (about one Ctrl-C in five):
    while the workers run, SIGINT only sets a flag, and Python's own handler is back
    afterwards. Where another handler is installed (or SIGINT is ignored, as in a
    background run), it is left alone."""
    from bohnanza.tournament.runner import _deferred_sigint

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with _deferred_sigint() as interrupted:
        assert not interrupted.is_set()
        signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt here
        assert interrupted.is_set()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
    calls: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: calls.append(signum))
    try:
        with _deferred_sigint() as interrupted:
            signal.raise_signal(signal.SIGINT)
            assert calls == [signal.SIGINT] and not interrupted.is_set()
    finally:
        signal.signal(signal.SIGINT, previous)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with _deferred_sigint() as interrupted:
        signal.raise_signal(signal.SIGINT)  # ignored, and no flag set
        assert not interrupted.is_set()
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
