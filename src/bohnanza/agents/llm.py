"""A language model as a player, through any OpenAI-compatible Chat Completions endpoint.

Spec: ``llm:MODEL@URL[:SETTING...]`` (``URL`` is the API base, e.g.
``http://127.0.0.1:8000/v1``, or a full ``.../chat/completions`` address); plain ``llm``
(or ``llm:MODEL``) takes what is missing from the environment (``BOHNANZA_LLM_MODEL``,
``BOHNANZA_LLM_URL``). The key comes from ``BOHNANZA_LLM_KEY`` or ``OPENAI_API_KEY`` and
is never written to a record. Settings (:data:`SETTINGS`) come after the URL as
``:key=value`` (``llm:m@http://h:8000/v1:max_tokens=400:temperature=0.7``, the mode as
``:json``) or from the environment as ``BOHNANZA_LLM_<KEY>`` (the spec wins).

A decision has one deadline (``timeout`` seconds, for every request, retry and backoff
it takes): a server that trickles its answer cannot hold it longer, since a watchdog
closes the connection when the time is up. 5xx answers, 429, timeouts, refused
connections and malformed bodies are retried with backoff (``http_retries``), a
``Retry-After`` honoured within the deadline; an error's body is shown, bounded. An answer
is read by one rule (:mod:`bohnanza.answers`: a marked final answer wins, else exactly
one command, else it is ambiguous); one that is not a valid command gets the parser's
message and another try (``retries``), and one cut off by ``max_tokens`` counts as such
(``cut_off``, its tokens included). An
answer body is read up to ``max_bytes`` and cut off there (never kept whole). When a
decision cannot be had from the model the heuristic takes it (counted); after
``give_up`` such decisions in a row the agent gives up: :class:`LLMGaveUp` is raised
(``on_failure="stop"``, the default of ``simulate`` and ``tournament``) or the heuristic
plays the rest of the game (``on_failure="heuristic"``).

The model is asked only when a decision has more than one sensible option: a single legal
move is taken without asking, and a seat that is not the active player is asked once per
turn unless an offer waits for its answer. All offers addressed to the seat are answered
in one call (one command per line); the answers are then played in the next rounds while
they stay legal. Only the standard library is used for HTTP (``http.client``): one
request at a time per agent, so concurrent games (``simulate``/``tournament`` workers,
web tables in their threads) make concurrent requests.
"""

from __future__ import annotations

import contextlib
import email.utils
import http.client
import json
import os
import random
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from ..actions import Action, ActionType
from ..answers import AmbiguousAnswer, command_lines, read_answer, strip_reasoning
from ..chronicle import Chronicle
from ..errors import ConfigError, StopsRun
from ..text import (
    CommandError,
    Lang,
    check_answer,
    render_action,
    render_prompt,
    system_prompt,
)
from ..views import View
from .base import Agent
from .heuristic import HeuristicAgent

_T = ActionType

Mode = Literal["text", "json"]
OnFailure = Literal["stop", "heuristic"]

#: How much of a model's answer a retry prompt, the transcript or an error message keeps.
ECHO_CHARS = 2000

#: The number the text gives the first seat: 1, as the rules reference counts.
BASE = 1


#: How much of an error's body (the server's own message) an error line keeps.
ERROR_BODY_CHARS = 300

#: The most of a language model's decisions the heuristic may have taken for a run's
#: results to be ranked as the model's (:func:`leaderboard_line`).
MAX_FALLBACK_SHARE = 0.05


class LLMUnavailable(Exception):
    """The endpoint did not answer usefully (timeout, connection or HTTP error, bad JSON).
    ``retry``: whether asking again may help (5xx, 429, timeouts, connections, bodies).
    ``retry_after``: the seconds the server asked to wait (``Retry-After``), if it did;
    ``status``: the HTTP status, if there was one."""

    def __init__(
        self,
        message: str,
        retry: bool = True,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.retry = retry
        self.retry_after = retry_after
        self.status = status


class AnswerTooLong(Exception):
    """The answer's body passed ``max_bytes`` and was cut off while being read: the model's
    fault (it ignored ``max_tokens``), so it counts as an invalid answer, not an outage."""


class LLMGaveUp(StopsRun):
    """``give_up`` decisions in a row could not be had from the model: the game is abandoned.
    The message names the seat (counted from 1, as the prompts count), the model and the
    URL (never the key); the caller that knows the game adds its seed (:meth:`in_game`).
    ``seat`` is the engine's index (from 0)."""

    def __init__(self, message: str, *, seat: int, model: str, url: str) -> None:
        super().__init__(message)
        self.seat, self.model, self.url = seat, model, url

    def __reduce__(self) -> tuple[Any, ...]:  # across process pools and Ray
        return (_gave_up, (str(self), self.seat, self.model, self.url))

    def in_game(self, seed: int) -> LLMGaveUp:
        return LLMGaveUp(
            f"game seed {seed}: {self}", seat=self.seat, model=self.model, url=self.url
        )


def _gave_up(message: str, seat: int, model: str, url: str) -> LLMGaveUp:
    return LLMGaveUp(message, seat=seat, model=model, url=url)


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and how to ask; ``key`` stays out of reprs and records."""

    model: str
    url: str
    key: str = ""
    timeout: float = 60.0  # seconds per decision, every request and retry included
    retries: int = 2  # wrong answers allowed per decision
    lang: Lang = "en"
    price_in: float = 0.0  # dollars per million prompt tokens
    price_out: float = 0.0  # dollars per million completion tokens
    temperature: float = 0.0
    max_tokens: int = 200  # 0: not sent
    top_p: float | None = None  # None: not sent
    max_bytes: int = 262_144  # an answer's body is cut off past this
    http_retries: int = 3  # 5xx, 429, timeouts, connections: retried per decision
    give_up: int = 5  # failed decisions in a row before the game is abandoned
    mode: Mode = "text"  # json: response_format with a JSON schema of the legal moves
    backoff: float = 0.5  # seconds before the first HTTP retry, doubled each time

    @property
    def chat_url(self) -> str:
        url = self.url.rstrip("/")
        return url if url.endswith("/chat/completions") else url + "/chat/completions"

    def __repr__(self) -> str:
        return f"Endpoint(model={self.model!r}, url={self.url!r})"

    def settings(self) -> dict[str, Any]:
        """What a record keeps about the endpoint: everything but the key."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "key"}


def _positive(x: float) -> bool:
    return x > 0


def _at_least(n: float) -> Callable[[float], bool]:
    return lambda x: x >= n


#: The settings a spec (``:key=value``) or the environment (``BOHNANZA_LLM_KEY``) may
#: give: their type, the check and what to say when the check fails.
SETTINGS: dict[str, tuple[Callable[[str], Any], Callable[[Any], bool], str]] = {
    "timeout": (float, _positive, "seconds per decision, more than 0"),
    "retries": (int, _at_least(0), "wrong answers allowed per decision, 0 or more"),
    "http_retries": (int, _at_least(0), "HTTP retries per decision, 0 or more"),
    "give_up": (int, _at_least(1), "failed decisions in a row, 1 or more"),
    "max_tokens": (int, _at_least(0), "tokens per answer (0: not sent)"),
    "temperature": (float, _at_least(0), "0 or more"),
    "top_p": (float, lambda x: 0 < x <= 1, "more than 0, at most 1"),
    "max_bytes": (int, _at_least(256), "bytes per answer body, 256 or more"),
    "backoff": (float, _at_least(0), "seconds, 0 or more"),
    "price_in": (float, _at_least(0), "dollars per million prompt tokens"),
    "price_out": (float, _at_least(0), "dollars per million completion tokens"),
    "mode": (str, lambda x: x in ("text", "json"), "text or json"),
    "lang": (str, lambda x: x in ("en", "pl"), "en or pl"),
}

_WORD_SETTINGS = {"json": ("mode", "json"), "text": ("mode", "text")}


def _setting(key: str, raw: str, where: str) -> Any:
    kind, ok, what = SETTINGS[key]
    try:
        value = kind(raw.strip())
    except ValueError:
        raise ConfigError(f"bad llm setting {where}={raw!r}: {what}") from None
    if not ok(value):
        raise ConfigError(f"bad llm setting {where}={raw!r}: {what}")
    return value


def _split_settings(rest: str) -> tuple[str, dict[str, str]]:
    """``m@http://h:8000/v1:max_tokens=9:json`` → (``m@http://h:8000/v1``, settings): the
    trailing ``:``-parts that are settings, so that a URL's own colons stay in place."""
    parts = rest.split(":")
    found: dict[str, str] = {}
    while len(parts) > 1:
        last = parts[-1].strip()
        key, sep, value = last.partition("=")
        if sep and key.strip() in SETTINGS:
            found.setdefault(key.strip(), value)
        elif last in _WORD_SETTINGS:
            found.setdefault(*_WORD_SETTINGS[last])
        elif sep and key.strip().isidentifier():
            raise ConfigError(f"unknown llm setting {key.strip()!r}; known: {', '.join(SETTINGS)}")
        else:
            break
        parts.pop()
    return ":".join(parts), found


def endpoint_from_spec(spec: str, env: Mapping[str, str] | None = None) -> Endpoint:
    """``llm:MODEL@URL[:key=value...]`` or ``llm`` (+ environment) → an :class:`Endpoint`."""
    env = os.environ if env is None else env
    rest = spec.strip()[len("llm") :]
    model, url = env.get("BOHNANZA_LLM_MODEL", ""), env.get("BOHNANZA_LLM_URL", "")
    given: dict[str, str] = {}
    if rest:
        if not rest.startswith(":"):
            raise ConfigError(f"bad llm agent {spec!r}: write llm:MODEL@URL")
        target, given = _split_settings(rest[1:])
        if target:
            m, sep, url_part = target.partition("@")
            model = m or model
            url = url_part if sep else url
    if not model or not url:
        raise ConfigError(
            f"llm agent {spec!r} needs a model and a URL: write llm:MODEL@URL or set "
            "BOHNANZA_LLM_MODEL and BOHNANZA_LLM_URL"
        )
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"llm agent URL must start with http:// or https://, not {url!r}")
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError as exc:
        raise ConfigError(f"bad llm agent URL {url!r}: {exc}") from None
    if not parts.hostname:
        raise ConfigError(f"llm agent URL {url!r} names no host")
    values: dict[str, Any] = {}
    price = env.get("BOHNANZA_LLM_PRICE")
    if price:
        prices = price.split(",")
        if len(prices) not in (1, 2):
            raise ConfigError(f"BOHNANZA_LLM_PRICE takes IN,OUT dollars, not {price!r}")
        values["price_in"] = _setting("price_in", prices[0], "BOHNANZA_LLM_PRICE")
        values["price_out"] = _setting("price_out", prices[-1], "BOHNANZA_LLM_PRICE")
    for key in SETTINGS:
        name = f"BOHNANZA_LLM_{key.upper()}"
        if env.get(name):
            values[key] = _setting(key, env[name], name)
    for key, raw in given.items():
        values[key] = _setting(key, raw, key)
    key = env.get("BOHNANZA_LLM_KEY") or env.get("OPENAI_API_KEY") or ""
    return Endpoint(model, url, key, **values)


# ---------------------------------------------------------------------------- HTTP


def _post(endpoint: Endpoint, body: bytes, deadline: float) -> tuple[int, bytes, str | None]:
    """POST ``body``; (status, the body read up to ``max_bytes``, its ``Retry-After``
    header or None). The deadline holds for the whole exchange: a watchdog shuts the
    socket when it passes, whatever the server trickles. Raises LLMUnavailable (time
    out, connection) or AnswerTooLong."""
    parts = urllib.parse.urlsplit(endpoint.chat_url)
    left = deadline - time.monotonic()
    if left <= 0:
        raise LLMUnavailable(f"no answer from {endpoint.chat_url} in {endpoint.timeout:g} s")
    conn_type = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    )
    conn = conn_type(parts.hostname or "", parts.port, timeout=left)
    expired = threading.Event()

    def watchdog() -> None:
        expired.set()
        sock = conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(left, watchdog)
    timer.daemon = True
    timer.start()
    headers = {"Content-Type": "application/json"}
    if endpoint.key:
        headers["Authorization"] = f"Bearer {endpoint.key}"
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        conn.request("POST", path, body, headers)
        resp = conn.getresponse()
        chunks: list[bytes] = []
        size = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or expired.is_set():
                raise TimeoutError
            if conn.sock is not None:
                conn.sock.settimeout(left)
            chunk = resp.read1(65_536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > endpoint.max_bytes and resp.status == 200:
                raise AnswerTooLong(
                    f"the answer was longer than {endpoint.max_bytes} bytes and was cut off"
                )
            if size > endpoint.max_bytes:
                break  # an error page: its start says enough
        if expired.is_set():
            raise TimeoutError
        return resp.status, b"".join(chunks)[: endpoint.max_bytes], resp.getheader("Retry-After")
    except TimeoutError:
        raise LLMUnavailable(
            f"no answer from {endpoint.chat_url} in {endpoint.timeout:g} s"
        ) from None
    except (OSError, http.client.HTTPException) as exc:
        if expired.is_set():
            raise LLMUnavailable(
                f"no answer from {endpoint.chat_url} in {endpoint.timeout:g} s"
            ) from None
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise LLMUnavailable(f"no answer from {endpoint.chat_url}: {reason}") from None
    finally:
        timer.cancel()
        conn.close()


def _clip(text: str, limit: int = ECHO_CHARS) -> str:
    return (
        text
        if len(text) <= limit
        else text[:limit] + f" [... {len(text) - limit} more characters cut]"
    )


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds to wait from now: a number of seconds or an HTTP date
    (RFC 9110); None when absent or unreadable (the backoff applies then)."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT; a date without a zone is taken so
        return None
    now = time.time() if now is None else now
    return max(0.0, when.timestamp() - now)


def error_detail(raw: bytes) -> str:
    """What an error body says, on one line and at most :data:`ERROR_BODY_CHARS` long:
    the ``error.message`` (or ``message``, ``detail``) of a JSON body, else its text.
    Why: a 400 often says exactly what is wrong (an unsupported ``response_format``, a
    model name the server does not know), and "HTTP 400" alone hides it."""
    text = raw[: ERROR_BODY_CHARS * 8].decode("utf-8", "replace")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        data = None
    if isinstance(data, dict):
        found: Any = data.get("error", data)
        if isinstance(found, dict):
            found = found.get("message") or found.get("detail") or found.get("error")
        if isinstance(found, str | int | float) and str(found).strip():
            text = str(found)
    text = " ".join(text.split())
    if len(text) > ERROR_BODY_CHARS:
        text = text[:ERROR_BODY_CHARS] + "..."
    return text


@dataclass(frozen=True, slots=True)
class Completion:
    """One answer of the endpoint: its text ("" when ``content`` was null), the tokens
    it reports (``prompt``, ``completion``) and why it ended (``finish_reason``:
    ``length`` when ``max_tokens`` cut it off)."""

    text: str
    usage: dict[str, int]
    finish_reason: str | None = None

    @property
    def cut_off(self) -> bool:
        return self.finish_reason == "length"


def chat(
    endpoint: Endpoint,
    messages: Sequence[Mapping[str, str]],
    deadline: float | None = None,
    response_format: Mapping[str, Any] | None = None,
) -> Completion:
    """One Chat Completions request → its :class:`Completion`, by ``deadline`` (a
    ``time.monotonic()`` instant; default: ``timeout`` from now). Raises LLMUnavailable
    or AnswerTooLong. A null ``content`` is an answer without text, not an outage: a
    reasoning model that ``max_tokens`` cut off gives one, with its tokens counted."""
    if deadline is None:
        deadline = time.monotonic() + endpoint.timeout
    request: dict[str, Any] = {
        "model": endpoint.model,
        "messages": list(messages),
        "temperature": endpoint.temperature,
    }
    if endpoint.max_tokens:
        request["max_tokens"] = endpoint.max_tokens
    if endpoint.top_p is not None:
        request["top_p"] = endpoint.top_p
    if response_format is not None:
        request["response_format"] = dict(response_format)
    status, raw, retry_after = _post(endpoint, json.dumps(request).encode(), deadline)
    if status != 200:
        retry = status >= 500 or status in (408, 409, 429)
        detail = error_detail(raw)
        raise LLMUnavailable(
            f"HTTP {status} from {endpoint.chat_url}" + (f": {detail}" if detail else ""),
            retry=retry,
            retry_after=retry_after_seconds(retry_after),
            status=status,
        )
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LLMUnavailable(f"not JSON from {endpoint.chat_url}: {exc}") from None
    try:
        choice = data["choices"][0]
        text = choice["message"]["content"]
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise TypeError("content is not a string")
        finish = choice.get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise LLMUnavailable(f"not a chat completion from {endpoint.chat_url}: {exc!r}") from None
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Completion(
        text,
        {
            "prompt": int(usage.get("prompt_tokens", 0) or 0),
            "completion": int(usage.get("completion_tokens", 0) or 0),
        },
        finish if isinstance(finish, str) else None,
    )


# ---------------------------------------------------------------------------- answers


def moves_schema(view: View, legal: Sequence[Action], required: bool, lang: Lang) -> dict[str, Any]:
    """``response_format`` for JSON mode: ``{"moves": [...]}``, each a legal command when
    there are few enough to list (an offer of one's own may be any the grammar allows)."""
    item: dict[str, Any] = {"type": "string"}
    listed = [a for a in legal if a.type != _T.PROPOSE]
    if len(listed) == len(legal) and len(legal) <= 100:
        names = [render_action(a, view, lang, base=BASE) for a in legal]
        if not required:
            names.append("pass")
        item["enum"] = names
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "bohnanza_moves",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {"moves": {"type": "array", "items": item, "minItems": 1}},
                "required": ["moves"],
                "additionalProperties": False,
            },
        },
    }


class LLMAgent(Agent):
    """A seat played by a language model; :meth:`record_extra` is stored with the record
    (settings, prompts, answers, counters, every decision the heuristic took over) and
    :meth:`stats` gives a tournament the counters.

    ``on_failure``: what happens after ``give_up`` failed decisions in a row: ``"stop"``
    raises :class:`LLMGaveUp`; ``"heuristic"`` (the default, for the web and the
    terminal, where a game should go on) lets the heuristic play the rest of the game."""

    name = "llm"

    def __init__(
        self,
        seed: int = 0,
        endpoint: Endpoint | None = None,
        on_failure: OnFailure = "heuristic",
    ) -> None:
        super().__init__(seed)
        if endpoint is None:
            endpoint = endpoint_from_spec("llm")
        self.endpoint = endpoint
        self.on_failure: OnFailure = on_failure
        self.lang: Lang = endpoint.lang
        self.fallback = HeuristicAgent(seed)
        self.transcript: list[dict[str, Any]] = []
        self.chronicle = Chronicle(self.lang, BASE)
        self.counts = {
            "calls": 0,  # HTTP requests
            "decisions": 0,  # every time the seat was asked to act
            "asked": 0,  # decisions the model was asked about
            "invalid": 0,  # answers that were not a valid command (all kinds below too)
            "ambiguous": 0,  # invalid: named several moves and marked none (answers.py)
            "cut_off": 0,  # invalid: cut off by max_tokens before a command
            "retries": 0,  # HTTP requests repeated after an outage (5xx, time-out, ...)
            "rate_limited": 0,  # answers 429 (Too Many Requests)
            "fallbacks": 0,  # decisions the heuristic took because the model gave none
            "unavailable": 0,  # requests that failed (HTTP error, time-out, connection)
            "skipped": 0,  # decisions not asked after giving up (on_failure="heuristic")
            "prompt_tokens": 0,
            "completion_tokens": 0,
        }
        self.seconds = 0.0
        self.limit_wait = 0.0  # seconds slept because the server said Retry-After
        self.gave_up: str | None = None  # why, once given up
        self._queue: list[Action] = []
        self._asked_turn = -1
        self._answered: set[int] = set()
        self._failures = 0  # failed decisions in a row
        self._jitter = random.Random(seed)

    @property
    def spec(self) -> str:
        return f"llm:{self.endpoint.model}@{self.endpoint.url}"

    def __repr__(self) -> str:
        return f"LLMAgent(seed={self.seed}, {self.endpoint!r})"

    # ------------------------------------------------------------------ deciding

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        self.chronicle.see(view)
        choice = self._act(view, legal, required)
        if choice is not None:
            self.chronicle.mine(choice, view)
        return choice

    def _act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        self.counts["decisions"] += 1
        if view.turn != self._asked_turn and view.phase != "trade":
            self._queue.clear()
        queued = self._from_queue(view, legal)
        if queued is not None:
            return queued
        if not legal:
            return None
        if required and len(legal) == 1:
            return legal[0]  # nothing to decide
        waiting = [
            o.offer_id
            for o in view.offers
            if o.to == view.seat and o.offer_id not in self._answered
        ]
        if (
            not required
            and view.phase == "trade"
            and view.seat != view.active
            and not waiting
            and self._asked_turn == view.turn
        ):
            return None  # asked once this turn already, and no new offer waits
        self._asked_turn = view.turn
        self._answered.update(waiting)
        if self.gave_up is not None:
            # Given up on the endpoint: the heuristic plays on without waiting for a
            # deadline at every decision (counted, not asked).
            self.counts["skipped"] += 1
            return self.fallback.act(view, legal, required)
        return self._ask(view, legal, required)

    def _from_queue(self, view: View, legal: Sequence[Action]) -> Action | None:
        while self._queue:
            action = self._queue.pop(0)
            try:
                check_answer(action, view, legal, self.lang, base=BASE)
            except CommandError:
                continue  # overtaken by events (the offer went, the card was traded)
            return action
        return None

    def _request(
        self,
        messages: Sequence[Mapping[str, str]],
        deadline: float,
        response_format: Mapping[str, Any] | None,
        errors: list[str],
    ) -> Completion:
        """One answer, retrying outages with backoff while the decision's time and the
        HTTP retries last. A ``Retry-After`` the server sends (429, 503) is honoured: the
        next request waits at least that long, and when that would pass the decision's
        deadline the decision fails at once (a request sent earlier would only be
        refused again). Raises LLMUnavailable (given up) or AnswerTooLong."""
        e = self.endpoint
        for attempt in range(e.http_retries + 1):
            if attempt:
                self.counts["retries"] += 1
            start = time.perf_counter()
            try:
                return chat(e, messages, deadline, response_format)
            except LLMUnavailable as exc:
                self.counts["unavailable"] += 1
                if exc.status == 429:
                    self.counts["rate_limited"] += 1
                wait = e.backoff * 2**attempt * (0.75 + 0.5 * self._jitter.random())
                asked = exc.retry_after
                if asked is not None:
                    wait = max(wait, asked)
                left = deadline - time.monotonic()
                if exc.retry and asked is not None and wait >= left:
                    why = (
                        f"{exc}; the server asked to wait {asked:g} s (Retry-After), past "
                        f"this decision's deadline ({max(0.0, left):.1f} s of timeout="
                        f"{e.timeout:g} left): slow the requests down or raise timeout"
                    )
                    errors.append(why)
                    raise LLMUnavailable(why, retry=False, status=exc.status) from None
                errors.append(str(exc))
                if not exc.retry or wait >= left or attempt >= e.http_retries:
                    raise
                time.sleep(wait)
                if asked is not None:
                    self.limit_wait += wait
            finally:
                self.seconds += time.perf_counter() - start
                self.counts["calls"] += 1
        raise AssertionError("unreachable")  # pragma: no cover

    def _ask(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        lang = self.lang
        e = self.endpoint
        deadline = time.monotonic() + e.timeout
        prompt = self._prompt(view, legal, required)
        messages: list[dict[str, str]] = [
            {"role": "system", "content": system_prompt(lang, view.config)},
            {"role": "user", "content": prompt},
        ]
        fmt = moves_schema(view, legal, required, lang) if e.mode == "json" else None
        entry: dict[str, Any] = {"turn": view.turn, "phase": view.phase, "prompt": prompt}
        answers: list[str] = []
        errors: list[str] = []
        entry["answers"], entry["errors"] = answers, errors
        self.transcript.append(entry)
        self.counts["asked"] += 1
        multi = any(o.to == view.seat for o in view.offers) and view.phase == "trade"
        for _attempt in range(e.retries + 1):
            try:
                answer = self._request(messages, deadline, fmt, errors)
            except LLMUnavailable as exc:
                return self._fail(view, legal, required, entry, str(exc))
            except AnswerTooLong as exc:
                answer, problem = Completion("", {"prompt": 0, "completion": 0}), str(exc)
                answers.append(f"[{problem}]")
            else:
                answers.append(_clip(answer.text) if answer.text else "[no content]")
                problem = ""
            text = answer.text
            self.counts["prompt_tokens"] += answer.usage["prompt"]
            self.counts["completion_tokens"] += answer.usage["completion"]
            retry_text = ""
            if not problem:
                try:
                    actions, passed = self._read(text, view, legal, multi)
                except CommandError as exc:
                    problem = str(exc)
                    if answer.cut_off:
                        # Cut off before a command: not the model's wording but the
                        # request's budget, which only the person running it can raise.
                        self.counts["cut_off"] += 1
                        problem = (
                            f"the answer was cut off at max_tokens={e.max_tokens or 'unset'} "
                            f"(finish_reason: length) before a command ({problem}); raise "
                            "max_tokens (:max_tokens=N; reasoning models need thousands)"
                        )
                        retry_text = _cut_off_text(lang)
                    elif isinstance(exc, AmbiguousAnswer):
                        self.counts["ambiguous"] += 1
                else:
                    if passed and not actions and not required:
                        self._failures = 0
                        entry["action"] = "pass"
                        return None
                    if actions:
                        self._failures = 0
                        self._queue = actions[1:]
                        entry["action"] = render_action(actions[0], view, lang, base=BASE)
                        return actions[0]
                    problem = "you must act now; 'pass' is not allowed"
            self.counts["invalid"] += 1
            errors.append(problem)
            if time.monotonic() >= deadline:
                break
            messages += [
                {"role": "assistant", "content": _clip(text, 500) or "..."},
                {"role": "user", "content": retry_text or _retry_text(problem, lang)},
            ]
        return self._fail(view, legal, required, entry, errors[-1] if errors else "no answer")

    def _fail(
        self, view: View, legal: Sequence[Action], required: bool, entry: dict[str, Any], why: str
    ) -> Action | None:
        """The model gave no move for this decision: the heuristic takes it; after
        ``give_up`` of these in a row the agent gives up (:attr:`on_failure`)."""
        self._failures += 1
        if self._failures >= self.endpoint.give_up:
            e = self.endpoint
            seat = view.seat if view.seat is not None else -1
            # Seats counted as the prompts count them (from 1): one numbering for people.
            self.gave_up = (
                f"llm seat {seat + BASE} (model {e.model!r} at {e.url}): {self._failures} "
                f"decisions in a row got no valid move; last: {_clip(' '.join(why.split()), 300)}"
            )
            if self.on_failure == "stop":
                raise LLMGaveUp(self.gave_up, seat=seat, model=e.model, url=e.url)
        self.counts["fallbacks"] += 1
        choice = self.fallback.act(view, legal, required)
        entry["fallback"] = True
        entry["action"] = (
            render_action(choice, view, self.lang, base=BASE) if choice is not None else "pass"
        )
        return choice

    def _prompt(self, view: View, legal: Sequence[Action], required: bool) -> str:
        """The question: what happened since the seat was last asked, what each other
        seat has wanted and refused, then the table and the legal moves."""
        briefing = self.chronicle.briefing()
        table = render_prompt(view, legal, required, self.lang, base=BASE)
        return f"{briefing}\n\n{table}" if briefing else table

    def _read(
        self, text: str, view: View, legal: Sequence[Action], multi: bool = False
    ) -> tuple[list[Action], bool]:
        """The commands of an answer, by the one reading rule (:mod:`bohnanza.answers`):
        a marked final answer wins, otherwise exactly one command (``multi``, offers to
        answer: several, each offer answered once); anything else is invalid, never a
        guess. The first is checked now, the others when their turn comes."""
        return read_answer(text, view, legal, self.lang, multi=multi, base=BASE)

    # ------------------------------------------------------------------ the record

    def cost(self) -> float:
        e = self.endpoint
        c = self.counts
        return (c["prompt_tokens"] * e.price_in + c["completion_tokens"] * e.price_out) / 1e6

    def decisions_by(self) -> dict[str, int]:
        """Who took the seat's decisions that needed one: ``model_decisions`` (questions
        the model answered) and ``fallback_decisions`` (the heuristic's: a question the
        model failed, or every decision after giving up). Why apart: with
        ``--llm-fallback heuristic`` a seat's coins and wins may be mostly the heuristic's,
        and a result must say how much (:func:`fallback_share`)."""
        c = self.counts
        return {
            "model_decisions": c["asked"] - c["fallbacks"],
            "fallback_decisions": c["fallbacks"] + c["skipped"],
        }

    def stats(self) -> Mapping[str, float]:
        """The counters a tournament stores per game and sums per agent."""
        c = self.counts
        return {
            **{k: float(v) for k, v in c.items()},
            **{k: float(v) for k, v in self.decisions_by().items()},
            "tokens": float(c["prompt_tokens"] + c["completion_tokens"]),
            "cost": round(self.cost(), 6),
            "seconds": round(self.seconds, 3),
            "limit_wait": round(self.limit_wait, 3),
            "gave_up": float(self.gave_up is not None),
        }

    def summary(self) -> dict[str, Any]:
        """The model, its endpoint's settings and the counters (no key, no transcript)."""
        return {
            "model": self.endpoint.model,
            "url": self.endpoint.url,
            "lang": self.lang,
            "settings": self.endpoint.settings(),
            **self.counts,
            **self.decisions_by(),
            "tokens": self.counts["prompt_tokens"] + self.counts["completion_tokens"],
            "cost": round(self.cost(), 6),
            "seconds": round(self.seconds, 3),
            "limit_wait": round(self.limit_wait, 3),
            "gave_up": self.gave_up,
        }

    def record_extra(self) -> dict[str, Any]:
        """What the game record keeps about this seat (no key); the seat's ``agent`` stays
        the spec it was given, settings included."""
        return {"llm": {**self.summary(), "transcript": self.transcript}}


def _retry_text(error: str, lang: Lang) -> str:
    if lang == "pl":
        return f"Błąd: {error}\nOdpowiedz jeszcze raz, poprawną komendą."
    return f"Error: {error}\nAnswer again with a valid command."


def _cut_off_text(lang: Lang) -> str:
    """What a model cut off by ``max_tokens`` is told: to be brief (the person running
    the benchmark is told to raise ``max_tokens``)."""
    if lang == "pl":
        return (
            "Błąd: odpowiedź została ucięta (limit tokenów) przed komendą.\n"
            "Odpowiedz krótko: sama komenda."
        )
    return (
        "Error: your answer was cut off (token limit) before a command.\n"
        "Answer briefly: the command alone."
    )


def make_llm_agent(spec: str, seed: int = 0, on_failure: OnFailure = "heuristic") -> LLMAgent:
    return LLMAgent(seed, endpoint_from_spec(spec), on_failure)


def is_llm_spec(name: str) -> bool:
    return name == "llm" or name.startswith("llm:")


def _total(stats: Mapping[str, Any], key: str) -> float:
    """A counter of ``stats``: a number, or a tournament's ``{"total", "mean"}``."""
    value = stats.get(key, 0)
    return float(value["total"] if isinstance(value, Mapping) else value)


def fallback_share(stats: Mapping[str, Any]) -> float | None:
    """The share of a model seat's decisions the heuristic took (``fallback_decisions``
    over those and ``model_decisions``); None when neither was counted."""
    model, fallback = _total(stats, "model_decisions"), _total(stats, "fallback_decisions")
    return fallback / (model + fallback) if model + fallback else None


def llm_line(stats: Mapping[str, Any]) -> str:
    """A model's counters in one line of a summary: ``stats`` maps each counter to a
    number or to a tournament's ``{"total", "mean"}``. Who decided comes first (the
    model, the heuristic), so that a run the heuristic played is seen as one."""

    def total(key: str) -> float:
        return _total(stats, key)

    share = fallback_share(stats)
    parts = [
        f"{total('model_decisions'):.0f} decisions by the model, "
        f"{total('fallback_decisions'):.0f} by the heuristic"
        + (f" (fallback share {100 * share:.1f}%)" if share is not None else ""),
        f"{total('calls'):.0f} calls, {total('tokens'):.0f} tokens, ${total('cost'):.4f}",
        f"{total('invalid'):.0f} invalid answers ({total('ambiguous'):.0f} ambiguous, "
        f"{total('cut_off'):.0f} cut off)",
        f"{total('retries'):.0f} retries, {total('fallbacks'):.0f} fallbacks, "
        f"{total('skipped'):.0f} decisions after giving up ({total('gave_up'):.0f} games)",
        f"{total('rate_limited'):.0f} rate-limited answers (429), "
        f"{total('limit_wait'):.1f} s waited on rate limits",
        f"{total('seconds'):.1f} s waiting",
    ]
    if total("cut_off"):
        parts.append(f"{total('cut_off'):.0f} answers cut off by max_tokens: raise max_tokens")
    return "; ".join(parts)


def leaderboard_line(
    name: str,
    stats: Mapping[str, Any],
    result: str,
    max_share: float = MAX_FALLBACK_SHARE,
) -> str:
    """A ranked line for a model seat: ``name``, its ``result`` (win rate, coins) and
    its fallback share; or, when the heuristic took more than ``max_share`` of the
    seat's decisions, a line that refuses to rank it, since the result is then the
    heuristic's as much as the model's."""
    share = fallback_share(stats)
    if share is not None and share > max_share:
        model, fallback = _total(stats, "model_decisions"), _total(stats, "fallback_decisions")
        return (
            f"{name}: not ranked: the heuristic took {100 * share:.1f}% of its decisions "
            f"({fallback:.0f} of {model + fallback:.0f}; at most {100 * max_share:g}% "
            f"allowed), so its results are not the model's ({result})"
        )
    said = "no decisions counted" if share is None else f"fallback share {100 * share:.1f}%"
    return f"{name}: {result}; {said}"


def llm_seat_summary(spec: str, agent: object | None) -> dict[str, Any]:
    """What a record where transcripts are not kept (the web's) says about a language-model
    seat: :meth:`LLMAgent.summary` once the agent has played, else the model and URL its
    spec names (from the environment for plain ``llm``). Never the key."""
    if isinstance(agent, LLMAgent):
        return agent.summary()
    try:
        e = endpoint_from_spec(spec)
    except ConfigError:
        return {}
    return {"model": e.model, "url": e.url, "lang": e.lang, "settings": e.settings()}


def _llm_of(agent: Agent) -> LLMAgent | None:
    inner = getattr(agent, "inner", agent)  # tournament.runner.Timed wraps agents
    return inner if isinstance(inner, LLMAgent) else None


def set_on_failure(agents: Sequence[Agent], policy: OnFailure) -> None:
    """The failure policy of every language-model seat among ``agents``."""
    if policy not in ("stop", "heuristic"):
        raise ConfigError(f"unknown llm fallback {policy!r}; use stop or heuristic")
    for agent in agents:
        llm = _llm_of(agent)
        if llm is not None:
            llm.on_failure = policy


def gave_up_warnings(agents: Sequence[Agent], seed: int) -> list[str]:
    """One warning line per language-model seat that gave up in the game of ``seed``."""
    lines = []
    for agent in agents:
        llm = _llm_of(agent)
        if llm is not None and llm.gave_up is not None:
            lines.append(
                f"warning: game seed {seed}: {llm.gave_up}; the heuristic played the rest "
                f"of the game ({llm.counts['skipped']} decisions)"
            )
    return lines


__all__ = [
    "MAX_FALLBACK_SHARE",
    "SETTINGS",
    "AnswerTooLong",
    "Completion",
    "Endpoint",
    "LLMAgent",
    "LLMGaveUp",
    "LLMUnavailable",
    "chat",
    "command_lines",
    "endpoint_from_spec",
    "error_detail",
    "fallback_share",
    "gave_up_warnings",
    "is_llm_spec",
    "leaderboard_line",
    "llm_line",
    "llm_seat_summary",
    "make_llm_agent",
    "moves_schema",
    "retry_after_seconds",
    "set_on_failure",
    "strip_reasoning",
]
