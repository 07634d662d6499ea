"""Coach mode at the web table (issue 36, ``web/coaching.py``): a hint for a person's
seat on a table whose host chose the coach, refused elsewhere and rate-limited; and the
review of a finished game."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bohnanza import Game
from bohnanza.agents import make_agent
from bohnanza.driver import PlayLog, play
from bohnanza.web.coaching import Coaching, coach_allowed
from bohnanza.web.tables import LobbyError, Seat, Table

from .conftest import ServerThread


def _run(coro: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run`` in a thread of its own: the browser tests' Playwright keeps an
    event loop running in the main thread for the rest of the session."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def started(server: ServerThread, coach: bool) -> tuple[str, str]:
    made = server.create(coach=coach, seed=7)
    assert made["table"]["coach"] is coach
    table, token = made["table"]["id"], made["token"]
    c = server.client(table, token)
    try:
        assert c.request({"type": "start"})["type"] == "ack"
        c.wait_for(lambda m: m.get("type") == "state" and m.get("view") is not None)
    finally:
        c.close()
    return table, token


def test_a_hint_appears_on_a_coach_table_and_is_rate_limited(server: ServerThread) -> None:
    table, token = started(server, coach=True)
    with server.http() as http:
        r = http.post(f"/api/tables/{table}/hint", json={"token": token}, timeout=30)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["seat"] == 0 and 1 <= len(body["hints"]) <= 3
        margins = [h["margin"] for h in body["hints"]]
        assert margins == sorted(margins, reverse=True)
        for h in body["hints"]:
            assert h["action"]["type"] == "plant"  # seat 0 plants its first card
            assert h["reason"]["en"] and h["reason"]["pl"] and h["samples"] >= 3
        again = http.post(f"/api/tables/{table}/hint", json={"token": token})
        assert again.status_code == 429 and again.json()["code"] == "hint_wait"
        other = http.post(f"/api/tables/{table}/hint", json={"token": "not-a-seat"})
        assert other.status_code == 403 and other.json()["code"] == "bad_token"


def test_a_hint_is_refused_where_the_host_did_not_choose_the_coach(server: ServerThread) -> None:
    table, token = started(server, coach=False)
    with server.http() as http:
        r = http.post(f"/api/tables/{table}/hint", json={"token": token})
        assert r.status_code == 403 and r.json()["code"] == "coach_off"
        r = http.get(f"/api/tables/{table}/review")
        assert r.status_code == 403 and r.json()["code"] == "coach_off"


def finished_table(settings: dict[str, object]) -> Table:
    game = Game.new("classic", 3, seed=11)
    log = play(
        game,
        [make_agent("random", 1), make_agent("heuristic", 2), make_agent("heuristic", 3)],
        log=PlayLog(),
    )
    seats = [
        Seat(0, "person", "", "Ada"),
        Seat(1, "bot", "heuristic", ""),
        Seat(2, "bot", "heuristic", ""),
    ]
    table = Table("t", 0.0, "over", {"rules": "classic", "players": 3, **settings}, seats)
    table.game, table.actions = game, list(log.actions)
    return table


def test_a_rated_table_never_has_the_coach() -> None:
    table = finished_table({"coach": True, "rated": "people"})
    assert not coach_allowed(table)
    assert coach_allowed(finished_table({"coach": True}))
    try:
        _run(Coaching().review(table))
    except LobbyError as exc:
        assert exc.status == 403 and exc.code == "coach_off"
    else:
        raise AssertionError("a rated table was reviewed")


def test_the_review_marks_the_persons_costliest_decisions_once() -> None:
    table = finished_table({"coach": True})
    coaching = Coaching()
    started_at = time.monotonic()
    out = _run(coaching.review(table))
    took = time.monotonic() - started_at
    assert out["decisions"] > 0 and 0 < out["reviewed"] <= out["decisions"]
    assert 1 <= len(out["marks"]) <= 3
    for mark in out["marks"]:
        assert mark["seat"] == 0 and mark["loss"] >= 0.5
        assert table.actions[mark["step"]][0] == 0
    started_at = time.monotonic()
    assert _run(coaching.review(table)) is out  # kept, not worked out again
    assert time.monotonic() - started_at < took
