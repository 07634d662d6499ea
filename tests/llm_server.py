"""A Chat Completions server on loopback for the language-model tests: real HTTP
(``http.server`` in a thread), answers from a scripted policy.

A policy gets the request's messages and returns ``(answer text, seconds to wait)`` or a
:class:`Reply` for the servers that misbehave (an HTTP error with its headers and body, a
body that is not JSON, an answer trickled byte by byte, a reasoning model cut off by
``max_tokens``). ``server.requests`` keeps every request body and when it came
(``time.monotonic()``)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    text: str = ""
    delay: float = 0.0
    status: int = 200
    raw: bytes | None = None  # the body as is, instead of a chat completion of ``text``
    trickle: float = 0.0  # seconds between the bytes of the body
    headers: tuple[tuple[str, str], ...] = ()  # extra response headers (Retry-After)
    finish_reason: str = "stop"
    null: bool = False  # "content": null, as a reasoning model cut off by max_tokens
    usage: tuple[int, int] | None = None  # (prompt, completion) tokens to report


#: request body -> (answer text, seconds to wait before answering) or a Reply
Policy = Callable[[list[dict[str, str]]], "tuple[str, float] | Reply"]


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, policy: Policy) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.policy = policy
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        if self.path != "/v1/chat/completions":
            self.send_error(404)
            return
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        body = json.loads(raw)
        with self.server.lock:
            self.server.requests.append(
                {
                    "body": body,
                    "auth": self.headers.get("Authorization"),
                    "bytes": len(raw),
                    "at": time.monotonic(),
                }
            )
        answer = self.server.policy(body["messages"])
        reply = answer if isinstance(answer, Reply) else Reply(answer[0], answer[1])
        if reply.delay:
            time.sleep(reply.delay)
        text = reply.text
        words = sum(len(m["content"].split()) for m in body["messages"])
        data = reply.raw
        prompt, completion = reply.usage or (words, len(text.split()))
        if data is None:
            data = json.dumps(
                {
                    "id": "cmpl-test",
                    "object": "chat.completion",
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {
                                "role": "assistant",
                                "content": None if reply.null else text,
                            },
                            "finish_reason": reply.finish_reason,
                        }
                    ],
                    "usage": {
                        "prompt_tokens": prompt,
                        "completion_tokens": completion,
                        "total_tokens": prompt + completion,
                    },
                }
            ).encode()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers:
                self.send_header(name, value)
            self.end_headers()
            if reply.trickle:
                for i in range(len(data)):
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
                    time.sleep(reply.trickle)
            else:
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting or reading (a timeout or size test)


@contextmanager
def chat_server(policy: Policy) -> Iterator[ChatServer]:
    server = ChatServer(policy)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
