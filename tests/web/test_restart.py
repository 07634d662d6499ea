"""Kill the server with SIGKILL mid-game, start it again on the same SQLite file: the game
goes on from the last acknowledged action, nothing lost."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from bohnanza.records import replay

from .client import Client, simple_choice
from .conftest import ServerProcess


def _play(c: Client, acks: int, proposed: set[int]) -> list[tuple[int, dict[str, Any]]]:
    """Play until ``acks`` more actions of ours are acknowledged (or the game ends)."""
    done: list[tuple[int, dict[str, Any]]] = []
    deadline = time.monotonic() + 60
    while len(done) < acks:
        assert time.monotonic() < deadline, "no progress"
        c.drain(0.02)
        if c.state is not None and c.view["phase"] == "over":
            break
        choice = simple_choice(c, proposed)
        if choice is None:
            continue
        answer = c.act(choice)
        if answer["type"] == "ack":
            done.append((answer["seq"], choice))
    return done


def _settle(c: Client, proposed: set[int]) -> None:
    """Play on until it is this client's phase 1: then only its own move changes the game
    (bots act only when the game needs them; no timer runs)."""
    deadline = time.monotonic() + 30
    while True:
        c.drain(0.1)
        v = c.view
        if v["phase"] == "over" or (v["phase"] == "plant" and v["active"] == c.seat):
            return
        choice = simple_choice(c, proposed)
        if choice is not None:
            c.act(choice)
        assert time.monotonic() < deadline


def test_kill_9_mid_game_then_resume(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'games.db'}"
    acked: list[tuple[int, dict[str, Any]]] = []
    proposed: set[int] = set()

    # 1. Play a while, stop when the game waits for us, and kill the server.
    srv = ServerProcess(db, "--bot-delay", "0.02", "--bot-grace", "0")
    try:
        with httpx.Client(base_url=srv.url, timeout=10) as http:
            made = http.post(
                "/api/tables",
                json={
                    "rules": "classic",
                    "players": 3,
                    "seats": [
                        {"kind": "person"},
                        {"kind": "bot", "bot": "random"},
                        {"kind": "bot"},
                    ],
                    "name": "Ada",
                    "seed": 17,
                },
            ).json()
        table, token = made["table"]["id"], made["token"]
        c = Client(srv.ws_url, table)
        c.hello(token)
        c.request({"type": "start"})
        acked += _play(c, 10, proposed)
        _settle(c, proposed)
        snapshot = c.state
        c.close()
    finally:
        srv.kill()
    assert snapshot is not None

    # 2. Restart (the URL from DATABASE_URL this time): exactly where it was.
    srv = ServerProcess(db, "--bot-delay", "0.05", "--bot-grace", "0", env_db=True)
    try:
        c = Client(srv.ws_url, table)
        c.hello(token)
        assert c.seq == snapshot["seq"] >= acked[-1][0]
        assert c.view == snapshot["view"]
        assert c.legal == snapshot["legal"]
        # Play on, and kill right after an acknowledgement, while the bots are busy.
        more = _play(c, 12, proposed)
        assert more and more[0][0] > snapshot["seq"]
        acked += more
    finally:
        srv.kill()

    # 3. Restart again: at least the last acknowledged action is there; play to the end.
    srv = ServerProcess(db, "--bot-delay", "0", "--bot-grace", "0", "--away-timeout", "0.2")
    try:
        c = Client(srv.ws_url, table)
        c.hello(token)
        assert c.seq >= acked[-1][0]
        c.close()  # away: a bot finishes the game for us
        deadline = time.monotonic() + 90
        with httpx.Client(base_url=srv.url, timeout=10) as http:
            while http.get(f"/api/tables/{table}").json()["status"] != "over":
                assert time.monotonic() < deadline
                time.sleep(0.1)
            record = http.get(f"/api/tables/{table}/record").json()
    finally:
        srv.stop()
    # Every acknowledged action is in the record, at the place it was acknowledged.
    for seq, action in acked:
        assert record["actions"][seq - 1] == {"seat": 0, **action}, seq
    assert replay(record).result() == record["result"]
