"""The load generator end to end: a few tables of bot-driven WebSocket clients for a few
seconds against its own server process (``bohnanza load``; figures in
docs/reliability.md). A correct server answers no move with an error, drops no
connection, and every move gets its update."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

from bohnanza.web.load import LoadConfig, choose, load, percentile, run_load


def test_a_short_run_plays_without_errors() -> None:
    # No think time: games finish within seconds, so rematch tables are exercised too.
    r = run_load(LoadConfig(tables=5, players=4, duration=5.0, think=0.0, stall=10.0))
    assert r["errors"] == 0, r["error_samples"]
    assert r["server_log_problems"] == 0, r.get("server_log_samples")
    assert r["clients"] == 20
    assert r["actions"] > 200
    assert r["actions_per_s"] > 0
    lat = r["latency_ms"]
    assert lat["n"] > 200
    assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["max"]
    assert r["ack_latency_ms"]["p50"] is not None
    assert r["games_in_flight"]["max"] <= 5
    assert r["games_finished"] >= 1 or r["games_in_flight"]["at_end"] == 5
    # Trading messages were exercised: offers made, accepted and declined.
    assert r["trades"].get("propose", 0) > 0
    assert r["trades"].get("accept", 0) + r["trades"].get("decline", 0) > 0


def test_the_command_prints_json_and_fails_on_errors() -> None:
    result = CliRunner().invoke(
        load, ["--tables", "2", "--players", "3", "--duration", "1", "--think", "0.05", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["tables"] == 2 and data["players"] == 3 and data["errors"] == 0
    assert data["actions"] > 0


def test_help() -> None:
    result = CliRunner().invoke(load, ["--help"])
    assert result.exit_code == 0
    for option in ("--tables", "--players", "--duration", "--think", "--url", "--json"):
        assert option in result.output


def test_percentile_is_nearest_rank() -> None:
    values = [float(x) for x in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile([], 50) is None


def test_the_policy_waits_for_its_turn() -> None:
    view = {
        "phase": "plant",
        "active": 1,
        "pending": None,
        "offers": [],
        "seats": [{"fields": [[], []], "trade_area": []}] * 2,
    }
    state = {"view": view, "legal": [{"type": "plant", "field": 0}]}
    assert choose(state, 0, set(), random.Random(0)) is None
    assert choose(state, 1, set(), random.Random(0)) == {"type": "plant", "field": 0}
