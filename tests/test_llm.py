"""LLMAgent against a real Chat Completions server on loopback (tests/llm_server.py) whose
"model" is the heuristic bot: its move rendered as a command, sometimes malformed,
sometimes too slow."""

from __future__ import annotations

import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bohnanza import Action, Game
from bohnanza.actions import Offer
from bohnanza.agents import agent_names, make_agent
from bohnanza.agents.heuristic import HeuristicAgent
from bohnanza.agents.llm import Endpoint, LLMAgent, endpoint_from_spec
from bohnanza.cli import main
from bohnanza.driver import play
from bohnanza.errors import ConfigError
from bohnanza.records import make_record, replay
from bohnanza.seeding import agent_seed
from bohnanza.simulate import seat_record
from bohnanza.text import render_action
from bohnanza.tournament.runner import build_agent, parse_agent
from llm_server import Reply, chat_server

MALFORMED = ["I will plant my bean.", "harvest 9", "offer 1 give 99", "accept", "plant"]


class HeuristicModel:
    """Plays the heuristic's move for whichever seat the prompt names (the game object
    is shared with the test: the agent waits for the answer, so the state is the one the
    prompt shows). ``bad``: share of first answers that are malformed; ``slow``: share
    of decisions answered only after ``delay`` seconds."""

    def __init__(self, game: Game, bad: float = 0.0, slow: float = 0.0, delay: float = 0.0):
        self.game = game
        self.bad, self.slow, self.delay = bad, slow, delay
        self.rng = random.Random(11)
        self.bots = {s: HeuristicAgent(100 + s) for s in range(game.players)}
        self.retries: list[str] = []

    def __call__(self, messages: list[dict[str, str]]) -> tuple[str, float]:
        last = messages[-1]["content"]
        if last.startswith(("Error:", "Błąd:")):
            self.retries.append(last)
        first = messages[1]["content"]
        m = re.search(r"You are seat (\d+)|Jesteś miejscem (\d+)", first)
        assert m is not None
        seat = int(m.group(1) or m.group(2)) - 1  # the text counts seats from 1
        lang = "pl" if m.group(2) else "en"
        if len(messages) == 2 and self.rng.random() < self.slow:
            return "pass", self.delay
        if len(messages) == 2 and self.rng.random() < self.bad:
            return self.rng.choice(MALFORMED), 0.0
        required = "\npass   (" not in first and "\npas   (" not in first
        game = self.game
        view = game.view(seat)
        choice = self.bots[seat].act(view, game.legal_actions(seat), required)
        return (render_action(choice, view, lang, base=1) if choice else "pass"), 0.0


def _play_with_llm(
    rules: str, players: int, seed: int, model: HeuristicModel, endpoint: Endpoint
) -> tuple[Game, LLMAgent, dict[str, Any]]:
    game = model.game
    llm = LLMAgent(agent_seed(seed, 0), endpoint)
    agents = [llm] + [make_agent("heuristic", agent_seed(seed, k)) for k in range(1, players)]
    log = play(game, agents)
    names = [llm.spec] + ["heuristic"] * (players - 1)
    record = make_record(
        game, log.actions, [seat_record(n, a) for n, a in zip(names, agents, strict=True)]
    )
    return game, llm, json.loads(json.dumps(record))


@pytest.mark.parametrize(
    ("rules", "players", "lang"),
    [("classic", 4, "en"), ("fasolki+fasolufka", 3, "pl"), ("fasolki+duel", 2, "en")],
)
def test_whole_games_with_malformed_answers(rules: str, players: int, lang: str) -> None:
    seed = 21
    game = Game.new(rules, players, seed=seed)
    model = HeuristicModel(game, bad=0.15)
    with chat_server(model) as server:
        endpoint = Endpoint("scripted", server.url, "sk-test", timeout=10, lang=lang)  # type: ignore[arg-type]
        game, llm, record = _play_with_llm(rules, players, seed, model, endpoint)
        requests = server.requests
    assert game.over
    c = llm.counts
    assert c["invalid"] > 0 and c["calls"] == len(requests) == c["asked"] + c["invalid"]
    # Every malformed answer got the parser's message back and a retry (budget 2 > 0
    # and the model answers a retry correctly): the heuristic never had to step in.
    assert len(model.retries) == c["invalid"] and c["fallbacks"] == 0
    assert all(r.count("\n") >= 1 for r in model.retries)
    assert any(
        "not a field" in r
        or "nie jest polem" in r
        or "no card" in r
        or "karty" in r
        or "argument" in r
        or "Unknown command" in r
        or "Nieznana" in r
        for r in model.retries
    )
    # The key goes in the header, never into the record.
    assert {r["auth"] for r in requests} == {"Bearer sk-test"}
    assert "sk-test" not in json.dumps(record)
    info = record["seats"][0]["llm"]
    assert info["tokens"] > 0 and info["invalid"] == c["invalid"]
    transcript = info["transcript"]
    assert len(transcript) == c["asked"] and all(t["prompt"] and t["answers"] for t in transcript)
    # Asked only where there was a choice: fewer questions than decisions taken.
    assert 0 < c["asked"] < c["decisions"]
    assert replay(record).result() == game.result()


def test_timeouts_fall_back_to_the_heuristic() -> None:
    seed = 5
    game = Game.new("classic", 3, seed=seed)
    model = HeuristicModel(game, slow=0.1, delay=0.6)
    with chat_server(model) as server:
        endpoint = Endpoint("scripted", server.url, timeout=0.2)
        game, llm, record = _play_with_llm("classic", 3, seed, model, endpoint)
    assert game.over
    c = llm.counts
    assert c["unavailable"] == c["fallbacks"] > 0
    noted = [t for t in record["seats"][0]["llm"]["transcript"] if t.get("fallback")]
    assert len(noted) == c["fallbacks"]
    assert all("no answer" in t["errors"][0] and t["action"] for t in noted)
    assert replay(record).result() == game.result()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("dead", ["http500", "refused"])
def test_a_dead_endpoint_stops_the_tournament_with_one_clear_line(
    tmp_path: Path, dead: str
) -> None:
    """The default policy: after ``give_up`` failed decisions in a row the run stops, exit
    code 2, one line naming the seat (from 1, as the prompts count), model, URL and game
    seed; 5xx answers are retried (``http_retries``) before a decision counts as failed."""
    with chat_server(lambda m: Reply(status=500)) as server:
        url = server.url if dead == "http500" else f"http://127.0.0.1:{_closed_port()}/v1"
        spec = f"llm:m@{url}:backoff=0.001:give_up=3:http_retries=2"
        result = CliRunner().invoke(
            main,
            [
                "tournament",
                "-a",
                f"{spec},heuristic,heuristic,heuristic",
                "-p",
                "4",
                "-n",
                "2",
                "-w",
                "1",
                "--no-plots",
                "--out",
                str(tmp_path / "t"),
                "--json",
            ],
        )
        requests = len(server.requests)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: game seed 1: llm seat 1 ")
    assert "'m'" in lines[0] and url in lines[0] and "3 decisions in a row" in lines[0]
    assert ("HTTP 500" if dead == "http500" else "no answer") in lines[0]
    assert requests == (3 * 3 if dead == "http500" else 0)
    assert result.stdout == ""


def test_fallback_option_plays_on_with_a_warning_and_counts(tmp_path: Path) -> None:
    with chat_server(lambda m: Reply(status=503)) as server:
        spec = f"llm:m@{server.url}:backoff=0.001:give_up=2:http_retries=1"
        result = CliRunner().invoke(
            main,
            [
                "simulate",
                "-r",
                "classic",
                "-p",
                "3",
                "-n",
                "1",
                "--seed",
                "4",
                "-a",
                f"{spec},heuristic,heuristic",
                "--llm-fallback",
                "heuristic",
                "--json",
            ],
        )
        requests = len(server.requests)
    assert result.exit_code == 0, result.output
    warnings = result.stderr.strip().splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("warning: game seed 4: llm seat 1 ")
    counts = json.loads(result.stdout)["llm"]["1"]  # seat 1: counted from 1
    assert counts["fallbacks"] == 2 and counts["gave_up"] == 1 and counts["skipped"] > 10
    assert counts["calls"] == requests == 4 and counts["retries"] == 2
    assert counts["unavailable"] == 4 and counts["invalid"] == 0


def test_the_deadline_holds_against_a_trickling_server() -> None:
    """A server that sends a byte every 0.05 s cannot hold a 1 s decision longer: the
    deadline is per decision, not per socket read."""
    game = Game.new("classic", 4, seed=5)
    with chat_server(lambda m: Reply("plant 1", trickle=0.05)) as server:
        llm = LLMAgent(0, Endpoint("m", server.url, timeout=1.0, backoff=0.01))
        start = time.perf_counter()
        choice = llm.act(game.view(0), game.legal_actions(0), True)
        seconds = time.perf_counter() - start
    assert 0.9 <= seconds <= 1.1
    assert choice in game.legal_actions(0) and llm.counts["fallbacks"] == 1
    assert "in 1 s" in llm.transcript[0]["errors"][-1]


def test_oversized_answers_are_cut_off_while_reading(tmp_path: Path) -> None:
    """A server that ignores max_tokens and answers 2 MB each time: the body is cut off at
    max_bytes, never echoed into a retry or the record; memory and record stay small."""
    huge = "plant 1 " * (2 * 1024 * 1024 // 8)
    with chat_server(lambda m: (huge, 0.0)) as server:
        # The peak of this process's own memory: /proc's VmHWM belongs to the memory map
        # that exec made; getrusage's ru_maxrss would carry the parent's peak across the
        # exec (a long pytest run's hundreds of MB), whatever the child did.
        code = (
            "import resource, sys\n"
            "from bohnanza.cli import main\n"
            "try:\n"
            "    main(sys.argv[1:])\n"
            "finally:\n"
            "    try:\n"
            "        with open('/proc/self/status') as f:\n"
            "            kb = int(next(l for l in f if l.startswith('VmHWM:')).split()[1])\n"
            "    except OSError:\n"
            "        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
            "    print('maxrss', kb, file=sys.stderr)\n"
        )
        args = ["simulate", "-r", "classic", "-p", "3", "-n", "1", "-a"]
        args += [
            f"llm:m@{server.url}:max_tokens=50,heuristic,heuristic",
            "--records",
            str(tmp_path),
        ]
        args += ["--llm-fallback", "heuristic", "--json"]
        run = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")},
            timeout=120,
        )
        sizes = [r["bytes"] for r in server.requests]
        bodies = [r["body"] for r in server.requests]
    assert run.returncode == 0, run.stderr
    maxrss_mb = int(run.stderr.split("maxrss ")[1].split()[0]) / 1024
    assert maxrss_mb < 200
    (path,) = tmp_path.glob("*.json")
    assert path.stat().st_size < 1_000_000
    info = json.loads(path.read_text())["seats"][0]["llm"]
    assert info["invalid"] == 15 and info["fallbacks"] == 5 and info["gave_up"]
    assert all("longer than 262144 bytes" in a for t in info["transcript"] for a in t["answers"])
    assert max(sizes) < 50_000 and len(sizes) == 15
    assert {b["max_tokens"] for b in bodies} == {50}


DECORATED = [
    "<think>Field 2 is empty... maybe harvest 9?\nplant 1\n</think>\nMy move: plant 2",
    "plant 2\nThis keeps my Blue field growing.",
    "I considered plant 1.\n\n**Final answer:** `plant 2`",
    "Reasoning: both fields could take it.\nplant 2.",
    '{"moves": ["plant 2"]}',
    '```json\n{"moves": ["plant 2"]}\n```',
]


@pytest.mark.parametrize("answer", DECORATED)
def test_answers_as_models_give_them(answer: str) -> None:
    """Reasoning blocks are stripped, a label dropped, and the last line that is a valid
    command now is taken (the explanation around it does no harm)."""
    game = Game.new("classic", 3, seed=5)
    view, legal = game.view(0), game.legal_actions(0)
    with chat_server(lambda m: (answer, 0.0)) as server:
        llm = LLMAgent(0, Endpoint("m", server.url, timeout=5))
        choice = llm.act(view, legal, True)
    assert choice is not None and render_action(choice, view) == "plant 2"
    assert llm.counts["invalid"] == 0 and llm.counts["calls"] == 1


def test_json_mode_sends_a_schema_of_the_legal_moves() -> None:
    game = Game.new("classic", 3, seed=5)
    view, legal = game.view(0), game.legal_actions(0)
    with chat_server(lambda m: ('{"moves": ["plant 1"]}', 0.0)) as server:
        llm = make_agent(f"llm:m@{server.url}:json:temperature=0.7:top_p=0.9", 0)
        choice = llm.act(view, legal, True)
        body = server.requests[0]["body"]
    assert choice is not None and render_action(choice, view) == "plant 1"
    schema = body["response_format"]["json_schema"]["schema"]
    assert sorted(schema["properties"]["moves"]["items"]["enum"]) == sorted(
        render_action(a, view) for a in legal
    )
    assert (body["temperature"], body["top_p"]) == (0.7, 0.9)


def test_specs_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    e = endpoint_from_spec("llm:gpt-x@http://h:1/v1", {"OPENAI_API_KEY": "k1"})
    assert (e.model, e.url, e.key, e.chat_url) == (
        "gpt-x",
        "http://h:1/v1",
        "k1",
        "http://h:1/v1/chat/completions",
    )
    env = {
        "BOHNANZA_LLM_MODEL": "m",
        "BOHNANZA_LLM_URL": "https://x/v1/chat/completions",
        "BOHNANZA_LLM_KEY": "k2",
        "OPENAI_API_KEY": "k1",
        "BOHNANZA_LLM_LANG": "pl",
    }
    e = endpoint_from_spec("llm", env)
    assert (e.model, e.key, e.lang, e.chat_url) == (
        "m",
        "k2",
        "pl",
        "https://x/v1/chat/completions",
    )
    assert "k2" not in repr(e)
    # Settings: from the environment, and after the URL in the spec (which wins); a URL's
    # own colons stay in the URL.
    env = {"BOHNANZA_LLM_MAX_TOKENS": "900", "BOHNANZA_LLM_TEMPERATURE": "0.3"}
    e = endpoint_from_spec("llm:m@http://h:8000/v1:max_tokens=50:top_p=0.5:json", env)
    assert (e.url, e.max_tokens, e.temperature, e.top_p, e.mode) == (
        "http://h:8000/v1",
        50,
        0.3,
        0.5,
        "json",
    )
    e = endpoint_from_spec("llm:m@http://h:8000/v1", {**env, "BOHNANZA_LLM_MAX_BYTES": "4096"})
    assert (e.max_tokens, e.max_bytes, e.mode) == (900, 4096, "text")
    assert "key" not in e.settings() and e.settings()["max_tokens"] == 900
    for bad_setting in ("max_tokens=-1", "top_p=2", "mode=xml", "give_up=0", "colour=red"):
        with pytest.raises(ConfigError, match="llm setting"):
            endpoint_from_spec(f"llm:m@http://h/v1:{bad_setting}", {})
    with pytest.raises(ConfigError, match="BOHNANZA_LLM_TIMEOUT"):
        endpoint_from_spec("llm:m@http://h/v1", {"BOHNANZA_LLM_TIMEOUT": "soon"})
    for bad in ("llm", "llm:m", "llm:m@ftp://x", "llmx", "llm:m@http://h:port/v1", "llm:m@http://"):
        with pytest.raises(ConfigError):
            endpoint_from_spec(bad, {})
    assert agent_names("llm:m@http://h/v1,heuristic", 4)[0] == "llm:m@http://h/v1"
    assert isinstance(make_agent("llm:m@http://h/v1", 3), LLMAgent)
    assert isinstance(build_agent("llm:m@http://h/v1", 3), LLMAgent)  # tournaments
    with pytest.raises(ConfigError):
        parse_agent("llm:m@nowhere")


def test_simulate_cli_stores_prompts_with_the_record(tmp_path: Path) -> None:
    """``bohnanza simulate --agents llm:MODEL@URL,... --workers 2``: games run in threads
    with requests in flight at once; each record keeps the model's prompts and answers
    and replays."""
    inflight = [0, 0]  # now, most
    lock = threading.Lock()

    # The CLI builds its own games, so this model only reads the prompt: it answers the
    # first legal move listed (a dull but valid player).
    def first_move(messages: list[dict[str, str]]) -> tuple[str, float]:
        with lock:
            inflight[0] += 1
            inflight[1] = max(inflight)
        time.sleep(0.002)
        section = messages[1]["content"].split("Legal moves now:\n")[1].split("\n\n")[0]
        moves = [x for x in section.split("\n") if not x.startswith((" ", "pass"))]
        moves = [x for x in moves if not x[0].isdigit()]
        with lock:
            inflight[0] -= 1
        return (moves[0] if moves else "pass"), 0.0

    with chat_server(first_move) as server:
        result = CliRunner().invoke(
            main,
            [
                "simulate",
                "--rules",
                "first-edition",
                "--players",
                "3",
                "--games",
                "2",
                "--workers",
                "2",
                "--agents",
                f"llm:dull@{server.url},heuristic",
                "--records",
                str(tmp_path),
            ],
        )
    assert result.exit_code == 0, result.output
    assert inflight[1] == 2
    paths = sorted(tmp_path.glob("*.json"))
    assert len(paths) == 2
    for path in paths:
        record = json.loads(path.read_text())
        info = record["seats"][0]["llm"]
        assert record["seats"][0]["agent"] == f"llm:dull@{server.url}"
        assert info["asked"] > 10 and info["fallbacks"] == 0 and info["invalid"] == 0
        assert "Legal moves now:" in info["transcript"][0]["prompt"]
        replay(record)


def test_offers_to_the_seat_are_answered_in_one_call() -> None:
    game = Game.new(
        "classic", 4, seed=5, deck=["blue", "chili", "blue", "wax", "soy"] + ["stink"] * 5
    )
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    hand = game.hands[0]
    game.apply(0, Action.propose(Offer(1, (hand[0],), (("stink", 1),))))
    game.apply(0, Action.propose(Offer(1, (hand[2],))))
    ids = [o.offer_id for o in game.view(1).offers]
    with chat_server(lambda m: (f"accept {ids[0]} with 1\ndecline {ids[1]}", 0.0)) as server:
        llm = LLMAgent(1, Endpoint("m", server.url, timeout=5))
        first = llm.act(game.view(1), game.legal_actions(1), False)
        assert first == Action.accept(ids[0], (game.hands[1][0],))
        game.apply(1, first)
        second = llm.act(game.view(1), game.legal_actions(1), False)
        assert second == Action.decline(ids[1])
        assert len(server.requests) == 1
        prompt = server.requests[0]["body"]["messages"][1]["content"]
        assert f"Offers #{ids[0]}, #{ids[1]} are addressed to you" in prompt
        # Nothing new waits for it: later rounds of the turn pass without a request.
        game.apply(1, second)
        assert llm.act(game.view(1), game.legal_actions(1), False) is None
        assert len(server.requests) == 1


def test_web_lobby_lists_the_model_only_when_configured() -> None:
    """``llm`` is in the web server's bot list when the server is started with an endpoint
    in the environment (a fresh interpreter, as a server starts)."""
    code = (
        "from bohnanza.web.tables import Settings; from bohnanza.agents import make_agent; "
        "print('llm' in Settings().bots()); make_agent('llm', 1)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOHNANZA_LLM")}
    plain = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert plain.stdout == "False\n" and "needs a model and a URL" in plain.stderr
    env |= {"BOHNANZA_LLM_MODEL": "m", "BOHNANZA_LLM_URL": "http://127.0.0.1:9/v1"}
    configured = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True
    )
    assert configured.stdout == "True\n" and configured.returncode == 0, configured.stderr


def _first_listed(messages: list[dict[str, str]]) -> tuple[str, float]:
    section = messages[1]["content"].split("Legal moves now:\n")[1].split("\n\n")[0]
    moves = [x for x in section.split("\n") if not x.startswith((" ", "pass"))]
    moves = [x for x in moves if not x[0].isdigit()]
    return (moves[0] if moves else "pass"), 0.0


def test_play_against_a_model_in_the_terminal(tmp_path: Path) -> None:
    record_path = tmp_path / "game.json"
    with chat_server(_first_listed) as server:
        result = CliRunner().invoke(
            main,
            [
                "play",
                "--rules",
                "classic",
                "--players",
                "3",
                "--bots",
                f"llm:dull@{server.url},heuristic",
                "--seed",
                "4",
                "--record",
                str(record_path),
            ],
            input="1\n" * 60 + "q\n",
        )
    assert result.exit_code == 0, result.output
    record = json.loads(record_path.read_text())
    assert record["seats"][0] == {"agent": "human"}
    assert record["seats"][1]["llm"]["asked"] > 0
    replay(record)


def test_tournament_keeps_the_model_counters_and_transcripts(tmp_path: Path) -> None:
    with chat_server(_first_listed) as server:
        spec = f"llm:dull@{server.url}:price_in=1:price_out=2"
        result = CliRunner().invoke(
            main,
            [
                "tournament",
                "-a",
                f"{spec},heuristic,heuristic",
                "-p",
                "3",
                "-n",
                "1",
                "-w",
                "1",
                "--no-plots",
                "--out",
                str(tmp_path / "t"),
                "--records",
                str(tmp_path / "r"),
                "--json",
            ],
        )
        requests = len(server.requests)
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)["agents"][spec]["stats"]
    assert stats["calls"]["total"] == requests > 10
    assert stats["tokens"]["total"] > 1000 and stats["cost"]["total"] > 0
    assert stats["seconds"]["total"] > 0
    assert stats["invalid"]["total"] == stats["fallbacks"]["total"] == 0
    assert stats["retries"]["total"] == stats["gave_up"]["total"] == 0
    report = (tmp_path / "t" / "report.md").read_text()
    assert "completion_tokens" in report
    (path,) = (tmp_path / "r").glob("game-*.json")
    record = json.loads(path.read_text())
    info = record["seats"][0]["llm"]
    assert record["seats"][0]["agent"] == spec and info["url"] == server.url
    assert len(info["transcript"]) == info["asked"] and info["calls"] == requests
    replay(record)


def test_web_record_names_the_model_and_url_never_the_key() -> None:
    from bohnanza.web.model import Seat, Table
    from bohnanza.web.replays import record_seats

    spec = "llm:m@http://127.0.0.1:9/v1"
    seats = [Seat(0, "person", "", "Ala"), Seat(1, "bot", spec, "m"), Seat(2, "bot", spec, "m")]
    table = Table("t1", 0.0, "playing", {"rules": "classic", "players": 3}, seats)
    agent = LLMAgent(1, endpoint_from_spec(spec, {"OPENAI_API_KEY": "sk-secret"}))
    agent.counts["calls"] = 7
    table.agents[(1, spec)] = agent
    out = record_seats(table)
    assert "llm" not in out[0]
    assert out[1]["llm"]["model"] == "m" and out[1]["llm"]["url"] == "http://127.0.0.1:9/v1"
    assert out[1]["llm"]["calls"] == 7 and "transcript" not in out[1]["llm"]
    assert out[2]["llm"]["url"] == "http://127.0.0.1:9/v1"  # before its first question
    assert "sk-secret" not in json.dumps(out)


class Quoting(HeuristicModel):
    """The heuristic's move, with a reasoning block that quotes the latest decline of one
    of its offers that the question shows (as a model reasoning from its memory would)."""

    def __call__(self, messages: list[dict[str, str]]) -> tuple[str, float]:
        move, delay = super().__call__(messages)
        quotes = re.findall(r"Seat \d+ declined your offer [^\n]*", messages[-1]["content"])
        if quotes:
            return f"<think>{quotes[-1]}, so I try something else.</think>\n{move}", delay
        return move, delay


def test_the_model_sees_what_happened_since_its_last_question() -> None:
    """Each question carries the events since the seat's previous one and a summary of
    what the others refused: a model can quote a decline of its offer, which the engine's
    own events confirm (seats counted from 1 in the text), and still see it turns later."""
    game = Game.new("classic", 4, seed=3)
    model = Quoting(game)
    with chat_server(model) as server:
        llm = LLMAgent(0, Endpoint("m", server.url, timeout=5))
        play(game, [llm] + [make_agent("heuristic", k) for k in range(1, 4)])
    declined: set[tuple[int, int]] = set()  # (turn, seat) where a seat declined seat 0
    turn = 0
    for e in game.record_events():
        turn = int(e.data["turn"]) if e.type == "turn" else turn
        if e.type == "decline" and e.data["proposer"] == 0:
            declined.add((turn, int(e.seat or 0)))
    quoted = []
    previous = 0
    for entry in llm.transcript:
        found = re.findall(r"^- Seat (\d+) declined your offer ([^\n]*)", entry["prompt"], re.M)
        for seat, text in found:
            assert any((t, int(seat) - 1) in declined for t in range(previous, entry["turn"] + 1))
            quoted.append((entry["turn"], text))
        if found:  # the model's reasoning quotes the latest
            assert f"declined your offer {found[-1][1]}" in entry["answers"][0]
        previous = entry["turn"]
    assert len(quoted) >= 5 and llm.counts["invalid"] == 0
    # A decline is still in the summary of a later turn's question.
    first_turn, first = quoted[0]
    first = first.split(": ", 1)[-1]  # the summary quotes the terms
    assert any(e["turn"] > first_turn + 2 and first in e["prompt"] for e in llm.transcript)
    assert not any("seat 0" in e["prompt"].lower() for e in llm.transcript)


def test_a_run_with_workers_stops_without_playing_the_other_games() -> None:
    """simulate --workers 2 (games in threads): the first game given up ends the run with
    its one line; the games not started are dropped, not played before the error."""
    with chat_server(lambda m: Reply(status=500)) as server:
        spec = f"llm:m@{server.url}:backoff=0.001:give_up=2:http_retries=0"
        result = CliRunner().invoke(
            main,
            ["simulate", "-p", "3", "-n", "30", "-w", "2", "-a", f"{spec},heuristic,heuristic"],
        )
        requests = len(server.requests)
    assert result.exit_code == 2 and result.stderr.startswith("error: game seed 1: llm seat 1")
    assert requests <= 2 * 6  # two decisions in each game that had started; not in all 30
