"""How often a language-model seat's answer is misread (issue 52, item 1).

A stand-in model on loopback plays the heuristic's move for the seat it is asked about,
but writes it in one of two shapes that name another move too:

- ``rejected``: ``My move: X`` then ``Rejected: Y`` (Y another legal move);
- ``options`` (only when offers wait for the seat): ``Options:`` listing ``- ACCEPT``
  and ``- decline N`` for an offer, then ``Final answer: decline N``.

Asked again after an error, it answers ``Final answer: X`` (a model that corrects itself).
Counted per first answer: the move it rejected was played (misread), its own move was
played, or the answer was refused as invalid (then its corrected answer is played).

    PYTHONPATH=src python benchmarks/llm_misread.py [GAMES]

Works with the reader before and after issue 52 (it reads only the transcript).
"""

from __future__ import annotations

import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

from bohnanza import Game
from bohnanza.actions import ActionType
from bohnanza.agents import make_agent
from bohnanza.agents.heuristic import HeuristicAgent
from bohnanza.agents.llm import Endpoint, LLMAgent
from bohnanza.driver import play
from bohnanza.text import render_action


class _StandIn(BaseHTTPRequestHandler):
    """The heuristic's move, written with a second move next to it (see the module)."""

    game: ClassVar[Game]
    bot: ClassVar[HeuristicAgent]
    #: per question (its prompt): (the move meant, the move named besides, the shape)
    asked: ClassVar[dict[str, tuple[str, str, str]]] = {}

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        messages = body["messages"]
        prompt = messages[1]["content"]
        m = re.search(r"You are seat (\d+)", prompt)
        assert m is not None
        seat = int(m.group(1)) - 1
        game = type(self).game
        view = game.view(seat)
        legal = game.legal_actions(seat)
        required = "\npass   (" not in prompt
        if prompt not in self.asked:
            choice = self.bot.act(view, legal, required)
            meant = render_action(choice, view, base=1) if choice is not None else "pass"
            others = [render_action(a, view, base=1) for a in legal]
            others = [o for o in others if o != meant and not o.startswith("offer")]
            shape, other = "rejected", (others[0] if others else "")
            waiting = [o.offer_id for o in view.offers if o.to == seat]
            accepts = [a for a in legal if a.type is ActionType.ACCEPT and a.offer_id in waiting]
            if accepts and view.phase == "trade":
                offer = accepts[0].offer_id
                shape, meant = "options", f"decline {offer}"
                other = render_action(accepts[0], view, base=1)
            self.asked[prompt] = (meant, other, shape)
        meant, other, shape = self.asked[prompt]
        if len(messages) > 2 or not other:
            text = f"Final answer: {meant}"
        elif shape == "options":
            text = f"Options:\n- {other}\n- {meant}\nFinal answer: {meant}"
        else:
            text = f"My move: {meant}\nRejected: {other}"
        data = json.dumps(
            {
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def measure(games: int) -> dict[str, dict[str, int]]:
    """Per shape: first answers whose rejected move was played (``misread``), whose own
    move was played (``meant``) and that were refused (``refused``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _StandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    counts = {s: {"misread": 0, "meant": 0, "refused": 0} for s in ("rejected", "options")}
    try:
        for seed in range(1, games + 1):
            game = Game.new("classic", 4, seed=seed)
            _StandIn.game, _StandIn.bot, _StandIn.asked = game, HeuristicAgent(seed), {}
            llm = LLMAgent(seed, Endpoint("stand-in", url, timeout=30))
            play(game, [llm] + [make_agent("heuristic", seed * 10 + k) for k in range(1, 4)])
            for entry in llm.transcript:
                found = _StandIn.asked.get(entry["prompt"])
                if found is None or not found[1]:
                    continue
                meant, other, shape = found
                if entry.get("errors"):
                    counts[shape]["refused"] += 1
                elif entry.get("action") == other:
                    counts[shape]["misread"] += 1
                elif entry.get("action") == meant:
                    counts[shape]["meant"] += 1
    finally:
        server.shutdown()
    return counts


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 3)))
