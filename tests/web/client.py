"""A small synchronous WebSocket client for the protocol tests (real sockets)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from websockets.sync.client import connect


class Client:
    def __init__(self, ws_url: str, table: str, source: str | None = None) -> None:
        """``source``: the local address to connect from (127.0.0.x: another client
        address on loopback, for the per-address limits and bans)."""
        self.table = table
        self._cm = connect(
            f"{ws_url}/ws/{table}",
            max_size=2**22,
            open_timeout=10,
            # No keepalive thread: tests that kill the server would leave it to
            # print a broken-pipe traceback at exit.
            ping_interval=None,
            **({"source_address": (source, 0)} if source else {}),
        )
        self.ws = self._cm.__enter__()
        self.messages: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.info: dict[str, Any] | None = None
        self.seat: int | None = None
        self.next_id = 1
        self.token: str | None = None

    def close(self) -> None:
        self._cm.__exit__(None, None, None)

    # -------------------------------------------------------------- receiving

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        raw = self.ws.recv(timeout)
        msg: dict[str, Any] = json.loads(raw)
        self.messages.append(msg)
        if msg["type"] == "welcome":
            self.seat = msg["seat"]
            self.info = msg["table"]
            if msg["state"] is not None:
                self.state = msg["state"]
        elif msg["type"] == "state":
            self.state = msg
        elif msg["type"] == "table":
            self.info = msg["table"]
        return msg

    def wait_for(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 10
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message")
            msg = self.recv(left)
            if pred(msg):
                return msg

    def drain(self, quiet: float = 0.05) -> None:
        """Read whatever is there until nothing comes for ``quiet`` seconds."""
        while True:
            try:
                self.recv(quiet)
            except TimeoutError:
                return

    # -------------------------------------------------------------- sending

    def send(self, obj: Any) -> None:
        self.ws.send(obj if isinstance(obj, str | bytes) else json.dumps(obj))

    def request(self, msg: dict[str, Any], timeout: float = 10) -> dict[str, Any]:
        """Send with a fresh id; the ack/error/welcome/... that answers it."""
        msg = dict(msg)
        msg["id"] = self.next_id
        self.next_id += 1
        self.send(msg)
        return self.wait_for(lambda m: m.get("id") == msg["id"], timeout)

    def hello(self, token: str | None = None) -> dict[str, Any]:
        return self.request({"type": "hello", **({"token": token} if token else {})})

    def act(self, action: dict[str, Any], timeout: float = 10) -> dict[str, Any]:
        return self.request({"type": "action", "action": action}, timeout)

    # -------------------------------------------------------------- the state

    @property
    def view(self) -> dict[str, Any]:
        assert self.state is not None
        view: dict[str, Any] = self.state["view"]
        return view

    @property
    def legal(self) -> list[dict[str, Any]]:
        assert self.state is not None
        legal: list[dict[str, Any]] = self.state["legal"]
        return legal

    @property
    def seq(self) -> int:
        assert self.state is not None
        return int(self.state["seq"])


def simple_choice(c: Client, proposed: set[int]) -> dict[str, Any] | None:
    """A simple player: plants, gives one gift per turn, accepts every second offer."""
    if c.state is None:
        return None
    v = c.view
    me = c.seat
    assert me is not None
    legal = c.legal
    if v["phase"] == "over" or not legal:
        return None
    kinds = {a["type"] for a in legal}
    if v["pending"] is not None:
        return legal[0] if v["pending"]["seat"] == me else None
    for o in v["offers"]:
        if o["to"] == me:
            accepts = [a for a in legal if a["type"] == "accept" and a["offer_id"] == o["offer_id"]]
            if accepts and o["offer_id"] % 2 == 0:
                return accepts[0]
            return {"type": "decline", "offer_id": o["offer_id"]}
    fields = v["seats"][me]["fields"]
    if v["phase"] == "plant" and v["active"] == me:
        plants = [a for a in legal if a["type"] == "plant"]
        growing = [a for a in plants if fields[a["field"]]]
        if growing:
            return growing[0]
        if "stop_planting" in kinds:
            return {"type": "stop_planting"}
        if plants:
            return plants[0]
        harvests = [a for a in legal if a["type"] == "harvest"]
        return max(harvests, key=lambda a: len(fields[a["field"]]))
    if v["phase"] == "trade" and v["active"] == me:
        if v["turn"] not in proposed and v["hand"]:
            proposed.add(v["turn"])
            other = (me + 1) % v["players"]
            card = v["hand"][-1]
            return {"type": "propose", "offer": {"to": other, "give": [card["id"]], "want": []}}
        if any(o["proposer"] == me for o in v["offers"]):
            return None  # wait for the answer
        return {"type": "end_trading"}
    if v["phase"] == "trade" and v["active"] != me and v["active"] in (0, 1):
        if (
            v["turn"] not in proposed
            and v["hand"]
            and any(d["variety"] == v["hand"][0]["variety"] for d in v["drawn"])
        ):
            proposed.add(v["turn"])
            want = [[v["drawn"][0]["variety"], 1]]
            return {
                "type": "propose",
                "offer": {"to": v["active"], "give": [v["hand"][0]["id"]], "want": want},
            }
        return None
    if v["phase"] == "plant_traded" and v["seats"][me]["trade_area"]:
        plants = [a for a in legal if a["type"] == "plant_traded"]
        growing = [a for a in plants if fields[a["field"]]]
        if growing or plants:
            return (growing or plants)[0]
        harvests = [a for a in legal if a["type"] == "harvest"]
        return max(harvests, key=lambda a: len(fields[a["field"]]))
    return None
