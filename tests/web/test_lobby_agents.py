"""The lobby seats bots from outside the package only when ``bohnanza serve
--allow-agent`` named them; an allowed one plays."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnanza.agents import lobby_agents
from bohnanza.cli import main
from external_bots import COUNTING, PUBLISHED, forget_bots, write_bots

from .conftest import ServerThread


@pytest.fixture(autouse=True)
def _fresh_package() -> Iterator[None]:
    """Each test writes the package into its own folder: resolve it from there."""
    forget_bots()
    yield
    forget_bots()


def test_the_lobby_offers_only_allowed_external_bots(
    make_server: Callable[..., ServerThread], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(write_bots(tmp_path / "byob")))
    trace = tmp_path / "lobby.trace"
    allowed = f"{COUNTING}:trace={trace}"
    srv = make_server(allowed_agents=(allowed,))
    with srv.http() as http:
        bots = http.get("/api/rules").json()["bots"]
        assert bots == [*lobby_agents(), allowed]  # the built-in bots, then the allowed one
        for bot in (COUNTING, PUBLISHED, f"{COUNTING}:trace=/tmp/other"):
            r = http.post(
                "/api/tables",
                json={
                    "rules": "classic",
                    "players": 3,
                    "seats": [{"kind": "person"}, {"kind": "bot", "bot": bot}, {"kind": "bot"}],
                },
            )
            assert r.status_code == 400 and "unknown bot" in r.json()["error"], r.text
    assert not trace.exists()
    # The person takes seat 2, so that the allowed bot at seat 0 begins the game.
    made = srv.create(
        seats=[
            {"kind": "bot", "bot": allowed},
            {"kind": "bot", "bot": "autarky"},
            {"kind": "person"},
        ]
    )
    assert made["seat"] == 2
    person = srv.client(made["table"]["id"], made["token"])
    assert person.request({"type": "start"})["type"] != "error"
    deadline = time.monotonic() + 15
    # The file may exist a moment before the bot's line is written into it.
    while not (trace.exists() and trace.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert trace.read_text().split()[-1] == "0"  # it decided, at seat 0
    person.close()


def test_serve_refuses_a_broken_allowed_agent_in_one_line() -> None:
    result = CliRunner().invoke(main, ["serve", "--port", "0", "--allow-agent", "byob_nowhere:Bot"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error:") and result.stderr.count("\n") == 1
    assert "--allow-agent" in result.stderr and "byob_nowhere" in result.stderr


def test_a_bot_no_longer_allowed_after_a_restart_is_substituted(
    make_server: Callable[..., ServerThread], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(write_bots(tmp_path / "byob")))
    trace = tmp_path / "restart.trace"
    allowed = f"{COUNTING}:trace={trace}"
    first = make_server(allowed_agents=(allowed,))
    made = first.create(
        seats=[
            {"kind": "bot", "bot": allowed},
            {"kind": "bot", "bot": "autarky"},
            {"kind": "person"},
        ]
    )
    first.stop()
    second = make_server()  # the same database, no --allow-agent
    person = second.client(made["table"]["id"], made["token"])
    assert person.request({"type": "start"})["type"] != "error"
    # Seat 0's turn is played (by the substitute) and seat 1's begins.
    person.wait_for(lambda m: m["type"] == "state" and m["view"]["active"] == 1, 15)
    assert not trace.exists()
    person.close()
