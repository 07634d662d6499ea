"""Benchmark figures for a language model from game records (docs/llm.md).

    bohnanza simulate --agents llm:MODEL@URL,heuristic,heuristic,heuristic --games 50 \
        --records runs/m
    python examples/llm_benchmark.py report runs/m [MAX_FALLBACK_SHARE]

``report`` prints one JSON line: the model's win rate (a shared win counts as a
fraction) with a 95% Wilson interval over games (not seats: the seats of one game are
not independent), the share of its answers that were not valid commands, the decisions
the model took and those the heuristic took for it (``fallback_share``), and tokens (and
cost) per game; then its leaderboard line, which refuses to rank a run whose fallback
share is above MAX_FALLBACK_SHARE (default 0.05; exit code 1 then).

``scripted GAMES DIR [STYLE] [MODE]`` plays GAMES games against three heuristic bots with
a *scripted stand-in* for a model: a Chat Completions server on loopback whose answer is
the heuristic bot's move rendered as a command, malformed one time in ten. STYLE is how
the stand-in writes its answer: ``terse`` (the command alone, the default), ``reasoning``
(a ``<think>`` block, then ``My move: COMMAND`` and a line of explanation) or ``chatty``
(a sentence, the command in bold, a sentence). MODE is the agent's: ``text`` (the
default) or ``json`` (``response_format`` with a schema of the legal moves; the stand-in
then answers ``{"moves": [COMMAND]}``, after a ``<think>`` block when ``reasoning``, in a
fenced block when ``chatty``). It checks the pipeline end to end; its figures
say nothing about any real model.
"""

from __future__ import annotations

import json
import random
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

from bohnanza import Game
from bohnanza.agents import make_agent
from bohnanza.agents.heuristic import HeuristicAgent
from bohnanza.agents.llm import (
    MAX_FALLBACK_SHARE,
    Endpoint,
    LLMAgent,
    fallback_share,
    leaderboard_line,
)
from bohnanza.driver import play
from bohnanza.records import make_record, save
from bohnanza.seeding import agent_seed
from bohnanza.simulate import seat_record
from bohnanza.text import render_action
from bohnanza.tournament.stats import wilson


def report(folder: str, max_fallback_share: float = MAX_FALLBACK_SHARE) -> dict[str, Any]:
    """The model's figures from the records in ``folder``, printed as one JSON line and
    then its leaderboard line. The interval counts games, not seats: each game adds the
    share of the model's seats that won it (a shared win in part), since the seats of one
    game are not independent. ``fallback_share`` is the share of the model seats'
    decisions the heuristic took; above ``max_fallback_share`` the leaderboard line
    refuses to rank the run (``ranked`` false)."""
    games = 0
    seats = 0
    wins = 0.0
    totals = dict.fromkeys(
        ("asked", "calls", "invalid", "fallbacks", "tokens", "model_decisions"), 0
    )
    totals["fallback_decisions"] = 0
    cost = 0.0
    names: set[str] = set()
    for path in sorted(Path(folder).glob("*.json")):
        record = json.loads(path.read_text())
        if record.get("result") is None:
            continue
        mine = [k for k, info in enumerate(record["seats"]) if "llm" in info]
        if not mine:
            continue
        winners = record["result"]["winners"]
        games += 1
        seats += len(mine)
        wins += sum(1 / len(winners) for k in mine if k in winners) / len(mine)
        for k in mine:
            info = record["seats"][k]["llm"]
            names.add(str(info.get("model") or "llm"))
            for key in totals:
                totals[key] += int(info.get(key, 0))
            if "model_decisions" not in info:  # a record from before these counters
                totals["model_decisions"] += int(info["asked"]) - int(info["fallbacks"])
                totals["fallback_decisions"] += int(info["fallbacks"]) + int(info["skipped"])
            cost += float(info["cost"])
    lo, hi = wilson(wins, games)
    share = fallback_share(totals)
    out: dict[str, Any] = {
        "games": games,
        "seats_per_game": round(seats / games, 2) if games else None,
        "win_rate": round(wins / games, 3) if games else None,
        "win_rate_95": [round(lo, 3), round(hi, 3)],
        "invalid_rate": round(totals["invalid"] / totals["calls"], 3) if totals["calls"] else None,
        "fallback_rate": round(totals["fallbacks"] / totals["asked"], 3)
        if totals["asked"]
        else None,
        "model_decisions": totals["model_decisions"],
        "fallback_decisions": totals["fallback_decisions"],
        "fallback_share": round(share, 4) if share is not None else None,
        "questions_per_game": round(totals["asked"] / games, 1) if games else None,
        "tokens_per_game": round(totals["tokens"] / games) if games else None,
        "cost_per_game": round(cost / games, 4) if games else None,
    }
    if games and seats > games:
        out["note"] = (
            f"the model held {seats / games:g} seats per game: the interval counts "
            f"{games} games, not {seats} seats; list one agent per seat "
            "(llm:MODEL@URL,heuristic,heuristic,heuristic) to measure one model seat"
        )
    name = ", ".join(sorted(names)) or "llm"
    result = (
        f"win rate {out['win_rate']} [{out['win_rate_95'][0]}, {out['win_rate_95'][1]}] "
        f"over {games} games"
    )
    out["leaderboard"] = leaderboard_line(name, totals, result, max_fallback_share)
    out["ranked"] = share is not None and share <= max_fallback_share
    print(json.dumps(out))
    print(out["leaderboard"])
    return out


class _Scripted(BaseHTTPRequestHandler):
    """The stand-in model: the heuristic's move for the seat and state of the prompt."""

    game: Game
    bots: ClassVar[dict[int, HeuristicAgent]] = {}
    rng = random.Random(5)
    style = "terse"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        messages = body["messages"]
        first = messages[1]["content"]
        m = re.search(r"You are seat (\d+)", first)
        assert m is not None
        seat = int(m.group(1)) - 1  # the text counts seats from 1
        if len(messages) == 2 and self.rng.random() < 0.1:
            text = self.rng.choice(["I plant my bean.", "harvest 9", "accept"])
        else:
            game = type(self).game
            view = game.view(seat)
            bot = self.bots.setdefault(seat, HeuristicAgent(seat))
            required = "\npass   (" not in first
            choice = bot.act(view, game.legal_actions(seat), required)
            text = render_action(choice, view, base=1) if choice is not None else "pass"
        if "response_format" in body:
            text = json.dumps({"moves": [text]})
            if self.style == "reasoning":
                text = f"<think>Which field grows best? Maybe plant 1.</think>\n{text}"
            elif self.style == "chatty":
                text = f"```json\n{text}\n```"
        elif self.style == "reasoning":
            text = (
                "<think>Which field grows best? Planting elsewhere could break a field; "
                f"maybe harvest 9 or plant 1 first.</think>\nMy move: {text}\n"
                "This keeps my longest field growing."
            )
        elif self.style == "chatty":
            text = f"Let me look at my fields.\n**{text}**\nThat should work well."
        words = sum(len(m["content"].split()) for m in messages)
        data = json.dumps(
            {
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": words, "completion_tokens": len(text.split())},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def scripted(
    games: int,
    folder: str,
    style: str = "terse",
    mode: str = "text",
    rules: str = "classic",
    players: int = 4,
) -> None:
    Path(folder).mkdir(parents=True, exist_ok=True)
    _Scripted.style = style
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        for seed in range(1, games + 1):
            game = Game.new(rules, players, seed=seed)
            _Scripted.game = game
            _Scripted.bots = {}
            # The model sits at a different seat each game (seat order matters).
            llm_seat = seed % players
            agents = [
                LLMAgent(
                    agent_seed(seed, k),
                    Endpoint("scripted-heuristic", url, timeout=30, mode=mode),  # type: ignore[arg-type]
                )
                if k == llm_seat
                else make_agent("heuristic", agent_seed(seed, k))
                for k in range(players)
            ]
            log = play(game, agents)
            names = ["llm" if k == llm_seat else "heuristic" for k in range(players)]
            seats = [seat_record(n, a) for n, a in zip(names, agents, strict=True)]
            save(make_record(game, log.actions, seats), Path(folder) / f"game-{seed}.json")
    finally:
        server.shutdown()


if __name__ == "__main__":
    if len(sys.argv) in (3, 4) and sys.argv[1] == "report":
        ranked = report(sys.argv[2], *map(float, sys.argv[3:]))["ranked"]
        sys.exit(0 if ranked else 1)
    elif 4 <= len(sys.argv) <= 6 and sys.argv[1] == "scripted":
        scripted(int(sys.argv[2]), sys.argv[3], *sys.argv[4:])
        report(sys.argv[3])
    else:
        sys.exit(__doc__)
