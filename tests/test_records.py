"""Game records (docs/records.md): every simulated game's record replays to the same
result, through :func:`bohnanza.records.replay` and through ``bohnanza replay``; broken
records fail with a :class:`RecordError` that names the action index and the reason, and
the command line reports them as one ``error:`` line, exit status 2, no traceback."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bohnanza import Game, RecordError
from bohnanza.actions import Action
from bohnanza.cli import main
from bohnanza.events import Event
from bohnanza.records import load, make_record, replay, save
from bohnanza.rules import all_rulesets
from bohnanza.simulate import GameSpec, options_tuple, play_one
from bohnanza.testing.checker import option_sets

Config = tuple[str, int, dict[str, str]]

CONFIGS: list[Config] = [
    (e["rules"], p, o)
    for e in all_rulesets()
    for p in range(e["min_players"], e["max_players"] + 1)
    for o in option_sets(e, p)
]
IDS = [
    f"{'module' if '+' in r else 'base'}-{r}-{p}p" + "".join(f"-{k}={v}" for k, v in o.items())
    for r, p, o in CONFIGS
]
MIXES = ("random", "random,autarky", "autarky")


def seat_agents(mix: str, players: int) -> tuple[str, ...]:
    names = mix.split(",")
    return tuple(names[i % len(names)] for i in range(players))


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


# ---------------------------------------------------------------------------- good records


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_simulated_records_replay_to_the_same_result(config: Config, tmp_path: Path) -> None:
    rules, players, options = config
    for seed, mix in enumerate(MIXES, start=1):
        spec = GameSpec(
            rules, players, options_tuple(options), seat_agents(mix, players), str(tmp_path)
        )
        outcome = play_one(spec, seed)
        record = load(tmp_path / f"game-{seed}.json")
        assert record["result"] == {
            "scores": list(outcome.scores),
            "winners": list(outcome.winners),
            "turns": outcome.turns,
        }
        assert len(record["actions"]) == outcome.actions
        assert record["seats"] == [{"agent": a} for a in spec.agents]
        game = replay(record)
        assert game.over
        assert (game.scores, game.winners, game.turn) == (
            outcome.scores,
            outcome.winners,
            outcome.turns,
        )
        # the record is a complete description: replaying without the stored result and
        # from the seed alone (no deck) gives the same game
        bare = {k: v for k, v in record.items() if k not in ("result", "deck")}
        assert replay(bare) == game
        code, out, err = cli("replay", "--json", str(tmp_path / f"game-{seed}.json"))
        assert code == 0, err
        assert json.loads(out) == {"over": True, **record["result"], "actions": outcome.actions}


def test_simulate_command_writes_records_that_replay(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    code, out, err = cli(
        "simulate",
        "-r",
        "fasolki",
        "-p",
        "4",
        "-n",
        "3",
        "--seed",
        "20",
        "-a",
        "random,autarky",
        "--records",
        str(folder),
        "--json",
    )
    assert code == 0, err
    files = sorted(folder.glob("*.json"))
    assert [f.name for f in files] == ["game-20.json", "game-21.json", "game-22.json"]
    summary = json.loads(out)
    coins = [0.0] * 4
    for f in files:
        code, out, err = cli("replay", "--json", str(f))
        assert code == 0, err
        result = json.loads(out)
        assert result["over"] and result == {
            "over": True,
            **load(f)["result"],
            "actions": len(load(f)["actions"]),
        }
        coins = [c + s for c, s in zip(coins, result["scores"], strict=True)]
    assert [round(c / 3, 3) for c in coins] == summary["seat_mean_coins"]


def test_an_unfinished_record_replays_to_its_position(tmp_path: Path) -> None:
    record = _good_record()
    cut = {**record, "actions": record["actions"][:25], "result": None}
    game = replay(cut)
    assert not game.over
    path = tmp_path / "cut.json"
    save(cut, path)
    code, out, err = cli("replay", "--json", str(path))
    assert code == 0, err
    assert json.loads(out) == {"over": False, "turns": game.turn, "actions": 25}
    code, out, _ = cli("replay", str(path))
    assert code == 0 and out.startswith("unfinished game after 25 actions")


def test_make_record_of_a_game_in_progress_has_no_result() -> None:
    record = _good_record()
    game = Game.new(record["rules"], record["players"], seed=record["seed"])
    assert make_record(game, [])["result"] is None
    assert make_record(game, [])["seats"] == [{}] * record["players"]


def test_replay_stops_resumes_and_reports_each_action_with_its_events() -> None:
    """``replay`` is the one rebuild of a game from setup + actions (the web server's
    resume, resync and replay frames, ``bohnanza replay --log``): a replay cut at
    ``stop`` equals the cut record's replay (no result check), a replay resumed from it
    equals the whole replay, and ``on_action`` sees every action with the same events
    that applying the actions one by one gives."""
    record = _good_record()
    total = len(record["actions"])
    whole = replay(record)
    cut = replay(record, stop=40)
    assert not cut.over
    assert cut == replay({**record, "actions": record["actions"][:40], "result": None})
    seen: list[tuple[int, int, str]] = []
    logged: list[Event] = []

    def keep(index: int, seat: int, action: Action, events: list[Event]) -> None:
        seen.append((index, seat, action.type.value))
        logged.extend(events)

    resumed = replay(record, resume=(cut, 40), on_action=keep)
    assert resumed is cut and resumed == whole and resumed.over
    assert [i for i, _, _ in seen] == list(range(40, total))
    assert [(s, t) for _, s, t in seen] == [(e["seat"], e["type"]) for e in record["actions"][40:]]
    by_hand = replay(record, stop=40)
    expected: list[Event] = []
    for entry in record["actions"][40:]:
        body = {k: v for k, v in entry.items() if k != "seat"}
        expected += by_hand.apply(entry["seat"], Action.from_json(body))
    assert [e.to_json() for e in logged] == [e.to_json() for e in expected]
    assert replay(record, stop=0) == replay({**record, "actions": [], "result": None})
    for bad in (-1, total + 1):
        with pytest.raises(RecordError, match="cannot stop"):
            replay(record, stop=bad)
    with pytest.raises(RecordError, match="cannot resume"):
        replay(record, resume=(replay(record, stop=3), total + 1))
    with pytest.raises(RecordError, match="cannot stop"):
        replay(record, stop=2, resume=(replay(record, stop=3), 3))


# ---------------------------------------------------------------------------- bad records


_GOOD: dict[str, Any] = {}


def _good_record() -> dict[str, Any]:
    """A finished 4-player classic game with trades (cached: it is only read)."""
    if not _GOOD:
        from bohnanza.agents import make_agent
        from bohnanza.driver import play
        from bohnanza.seeding import agent_seed

        game = Game.new("classic", 4, seed=7)
        names = ["random", "autarky", "random", "autarky"]
        agents = [make_agent(n, agent_seed(7, k)) for k, n in enumerate(names)]
        log = play(game, agents)
        _GOOD.update(make_record(game, log.actions, [{"agent": n} for n in names]))
    return copy.deepcopy(_GOOD)


def _index_of(record: dict[str, Any], kind: str, start: int = 10) -> int:
    return next(i for i, a in enumerate(record["actions"]) if a["type"] == kind and i >= start)


Mutation = Callable[[dict[str, Any]], int | None]  # changes the record; returns the bad index


def _set(key: str, value: Any) -> Mutation:
    def f(r: dict[str, Any]) -> None:
        r[key] = value

    return f


def _drop(key: str) -> Mutation:
    def f(r: dict[str, Any]) -> None:
        del r[key]

    return f


def _action(change: Callable[[dict[str, Any], int], None], kind: str = "plant") -> Mutation:
    def f(r: dict[str, Any]) -> int:
        i = _index_of(r, kind)
        change(r, i)
        return i

    return f


def _other_seat(r: dict[str, Any], i: int) -> None:
    r["actions"][i]["seat"] = (r["actions"][i]["seat"] + 1) % r["players"]


def _repeat(r: dict[str, Any]) -> int:
    """Stop planting twice: the copy is refused (it is phase 2 by then)."""
    i = _index_of(r, "stop_planting")
    r["actions"].insert(i + 1, dict(r["actions"][i]))
    return i + 1


def _repeated_deck(r: dict[str, Any]) -> None:
    deck = r["deck"]
    r["deck"] = [deck[1], *deck[1:]]  # the first card twice, one card missing


BAD_SETUPS: list[tuple[str, Mutation, str]] = [
    ("wrong-format", _set("format", "bohnanza-state"), r"not a game record: format must be"),
    ("no-format", _drop("format"), r"format must be 'bohnanza-record'"),
    ("wrong-version", _set("version", 2), r"unsupported record version 2"),
    ("no-rules", _drop("rules"), r"record lacks 'rules'"),
    ("no-players", _drop("players"), r"record lacks 'players'"),
    ("unknown-rules", _set("rules", "poker"), r"bad record setup: unknown rule set 'poker'"),
    ("module-on-classic", _set("rules", "classic+duel"), r"bad record setup: module 'duel'"),
    ("too-many-players", _set("players", 9), r"bad record setup: classic is for 3–7 players"),
    ("players-text", _set("players", "4"), r"bad record setup: player count must be an integer"),
    ("players-list", _set("players", [4]), r"bad record setup"),
    ("bad-option", _set("options", {"remove": "glutton"}), r"bad record setup: unknown option"),
    ("options-list", _set("options", ["x"]), r"options must be an object"),
    ("seed-text", _set("seed", "seven"), r"bad record setup: seed must be an integer"),
    ("deck-text", _set("deck", "abc"), r"deck must be a list"),
    ("deck-short", lambda r: r.__setitem__("deck", r["deck"][:100]), r"record deck has 100 cards"),
    ("deck-repeats", _repeated_deck, r"bad record setup: deck.*repeated"),
    ("actions-object", _set("actions", {"0": {}}), r"record actions must be a list"),
    (
        "result-differs",
        lambda r: r["result"]["scores"].__setitem__(0, 99),
        r"replayed result .* differs from the record's",
    ),
    (
        "result-early",
        lambda r: r.__setitem__("actions", r["actions"][:-5]),
        r"has a result but its actions do not finish the game",
    ),
]

BAD_ACTIONS: list[tuple[str, Mutation, str]] = [
    ("no-seat", _action(lambda r, i: r["actions"][i].pop("seat")), r"each action needs a seat"),
    (
        "not-an-object",
        _action(lambda r, i: r["actions"].__setitem__(i, ["plant", 0])),
        r"each action needs a seat",
    ),
    (
        "unknown-type",
        _action(lambda r, i: r["actions"][i].update(type="teleport")),
        r"unknown action type 'teleport'",
    ),
    ("no-type", _action(lambda r, i: r["actions"][i].pop("type")), r"unknown action type None"),
    (
        "unexpected-key",
        _action(lambda r, i: r["actions"][i].update(colour="red")),
        r"unexpected key\(s\) colour",
    ),
    (
        "field-text",
        _action(lambda r, i: r["actions"][i].update(field="0")),
        r"field must be an integer",
    ),
    ("no-such-field", _action(lambda r, i: r["actions"][i].update(field=7)), r"no field 7"),
    (
        # a field its type does not name: the record must hold the value that was listed
        "card-of-a-plant",
        _action(lambda r, i: r["actions"][i].update(card=0)),
        r"plant takes no card",
    ),
    (
        "coins-of-a-harvest",
        _action(lambda r, i: r["actions"][i].update(cards=[0, 1]), "harvest"),
        r"harvest takes no cards",
    ),
    (
        "no-such-field-harvest",
        _action(lambda r, i: r["actions"][i].update(field=5), "harvest"),
        r"no field 5",
    ),
    ("wrong-seat", _action(_other_seat), r"seat \d cannot plant"),
    ("no-such-seat", _action(lambda r, i: r["actions"][i].update(seat=4)), r"there is no seat 4"),
    ("seat-text", _action(lambda r, i: r["actions"][i].update(seat="0")), r"there is no seat '0'"),
    ("second-stop", _repeat, r"cannot stop planting"),
    (
        "no-such-offer",
        _action(lambda r, i: r["actions"][i].update(offer_id=999), "accept"),
        r"there is no open offer 999",
    ),
    (
        "offer-of-foreign-card",
        _action(lambda r, i: r["actions"][i]["offer"].update(give=[r["deck"][-1]]), "propose"),
        r"card \d+ is not in its hand",
    ),
    (
        "malformed-offer",
        _action(lambda r, i: r["actions"][i]["offer"].update(want=[["blue"]]), "propose"),
        r"malformed offer",
    ),
]


@pytest.mark.parametrize(
    ("name", "mutate", "reason"),
    BAD_SETUPS + BAD_ACTIONS,
    ids=[b[0] for b in BAD_SETUPS + BAD_ACTIONS],
)
def test_a_bad_record_fails_with_the_index_and_reason(
    name: str, mutate: Mutation, reason: str, tmp_path: Path
) -> None:
    record = _good_record()
    index = mutate(record)
    with pytest.raises(RecordError) as info:
        replay(record)
    message = str(info.value)
    if index is not None:
        assert message.startswith(f"action #{index}"), message
    assert re.search(reason, message), message
    # the command line: exit status 2, one "error:" line naming the same, no traceback
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code, out, err = cli("replay", str(path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert message in err
    assert "Traceback" not in err


def _write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "record.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


BAD_FILES: list[tuple[str, Callable[[Path], Path], str]] = [
    ("truncated", lambda d: _write(d, json.dumps(_good_record())[:5000]), r"cannot read record"),
    ("empty", lambda d: _write(d, ""), r"cannot read record"),
    ("not-json", lambda d: _write(d, "format: bohnanza-record\n"), r"cannot read record"),
    ("not-utf8", lambda d: _write(d, b"\xff\xfe\x00{"), r"cannot read record"),
    ("a-list", lambda d: _write(d, "[1, 2]"), r"does not hold a JSON object"),
    ("missing", lambda d: d / "nowhere.json", r"no such record file"),
    ("a-folder", lambda d: d, r"cannot read record|is a directory|Directory"),
]


@pytest.mark.parametrize(("name", "make", "reason"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_a_bad_record_file_fails_with_one_line(
    name: str, make: Callable[[Path], Path], reason: str, tmp_path: Path
) -> None:
    path = make(tmp_path)
    if name != "a-folder":  # click refuses a folder before the record code sees it
        with pytest.raises(RecordError, match=reason):
            load(path)
    code, out, err = cli("replay", str(path))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert "Traceback" not in err
    assert re.search(reason, err, flags=re.IGNORECASE), err


def test_the_real_program_reports_a_bad_record_in_one_line(tmp_path: Path) -> None:
    record = _good_record()
    i = _index_of(record, "plant")
    record["actions"][i]["field"] = 7
    bad = tmp_path / "bad.json"
    save(record, bad)
    truncated = _write(tmp_path, bad.read_text(encoding="utf-8")[:300])
    for path, expected in ((bad, f"action #{i} "), (truncated, "cannot read record")):
        proc = subprocess.run(
            [sys.executable, "-m", "bohnanza.cli", "replay", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2
        assert proc.stdout == ""
        lines = proc.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0]
        assert "Traceback" not in proc.stderr
