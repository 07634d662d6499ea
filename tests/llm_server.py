"""A Chat Completions server on loopback for the language-model tests: real HTTP
(``http.server`` in a thread), answers from a scripted policy."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: messages -> (answer text, seconds to wait before answering)
Policy = Callable[[list[dict[str, str]]], tuple[str, float]]


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
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.requests.append({"body": body, "auth": self.headers.get("Authorization")})
        text, delay = self.server.policy(body["messages"])
        if delay:
            time.sleep(delay)
        words = sum(len(m["content"].split()) for m in body["messages"])
        data = json.dumps(
            {
                "id": "cmpl-test",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": words,
                    "completion_tokens": len(text.split()),
                    "total_tokens": words + len(text.split()),
                },
            }
        ).encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting (a timeout test)


@contextmanager
def chat_server(policy: Policy) -> Iterator[ChatServer]:
    server = ChatServer(policy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
