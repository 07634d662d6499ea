"""A language model as a player, through any OpenAI-compatible Chat Completions endpoint.

Spec: ``llm:MODEL@URL`` (``URL`` is the API base, e.g. ``http://127.0.0.1:8000/v1``, or a
full ``.../chat/completions`` address); plain ``llm`` takes both from the environment
(``BOHNANZA_LLM_MODEL``, ``BOHNANZA_LLM_URL``). The key comes from ``BOHNANZA_LLM_KEY`` or
``OPENAI_API_KEY`` and is never written to a record. Other settings from the environment:
``BOHNANZA_LLM_TIMEOUT`` (seconds per request, default 60), ``BOHNANZA_LLM_RETRIES``
(answers that may be wrong per decision before the heuristic decides, default 2),
``BOHNANZA_LLM_LANG`` (``en``/``pl``), ``BOHNANZA_LLM_PRICE`` (``IN,OUT`` dollars per
million tokens, for the cost count).

The model is asked only when a decision has more than one sensible option: a single legal
move is taken without asking, and a seat that is not the active player is asked once per
turn unless an offer waits for its answer. All offers addressed to the seat are answered
in one call (one command per line); the answers are then played in the next rounds while
they stay legal. Only the standard library is used for HTTP (``urllib``, with timeouts):
one request at a time per agent, so concurrent games (``simulate``/``tournament``
workers, web tables in their threads) make concurrent requests.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..actions import Action, ActionType
from ..errors import ConfigError
from ..text import (
    CommandError,
    Lang,
    check_answer,
    clean_line,
    parse_command,
    render_action,
    render_prompt,
    system_prompt,
)
from ..views import View
from .base import Agent
from .heuristic import HeuristicAgent

_T = ActionType

#: Endpoint failures in a row after which the heuristic plays the rest of the game.
GIVE_UP_AFTER = 5


class LLMUnavailable(Exception):
    """The endpoint did not answer usefully (timeout, connection or HTTP error, bad JSON)."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where and how to ask; ``key`` stays out of reprs and records."""

    model: str
    url: str
    key: str = ""
    timeout: float = 60.0
    retries: int = 2
    lang: Lang = "en"
    price_in: float = 0.0  # dollars per million prompt tokens
    price_out: float = 0.0  # dollars per million completion tokens
    temperature: float = 0.0
    max_tokens: int = 200

    @property
    def chat_url(self) -> str:
        url = self.url.rstrip("/")
        return url if url.endswith("/chat/completions") else url + "/chat/completions"

    def __repr__(self) -> str:
        return f"Endpoint(model={self.model!r}, url={self.url!r})"


def endpoint_from_spec(spec: str, env: Mapping[str, str] | None = None) -> Endpoint:
    """``llm:MODEL@URL`` or ``llm`` (+ environment) → an :class:`Endpoint`."""
    env = os.environ if env is None else env
    rest = spec.strip()[len("llm") :]
    model, url = env.get("BOHNANZA_LLM_MODEL", ""), env.get("BOHNANZA_LLM_URL", "")
    if rest:
        if not rest.startswith(":"):
            raise ConfigError(f"bad llm agent {spec!r}: write llm:MODEL@URL")
        model, sep, url_part = rest[1:].partition("@")
        url = url_part if sep else url
    if not model or not url:
        raise ConfigError(
            f"llm agent {spec!r} needs a model and a URL: write llm:MODEL@URL or set "
            "BOHNANZA_LLM_MODEL and BOHNANZA_LLM_URL"
        )
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"llm agent URL must start with http:// or https://, not {url!r}")
    lang = env.get("BOHNANZA_LLM_LANG", "en")
    if lang not in ("en", "pl"):
        raise ConfigError(f"BOHNANZA_LLM_LANG must be en or pl, not {lang!r}")
    try:
        timeout = float(env.get("BOHNANZA_LLM_TIMEOUT", "60"))
        retries = int(env.get("BOHNANZA_LLM_RETRIES", "2"))
        prices = [float(x) for x in env.get("BOHNANZA_LLM_PRICE", "0,0").split(",")]
        price_in, price_out = prices if len(prices) == 2 else (prices[0], prices[0])
    except ValueError as exc:
        raise ConfigError(f"bad BOHNANZA_LLM_* setting: {exc}") from None
    if timeout <= 0 or retries < 0:
        raise ConfigError("BOHNANZA_LLM_TIMEOUT must be positive and RETRIES at least 0")
    key = env.get("BOHNANZA_LLM_KEY") or env.get("OPENAI_API_KEY") or ""
    return Endpoint(
        model, url, key, timeout, retries, "pl" if lang == "pl" else "en", price_in, price_out
    )


def chat(endpoint: Endpoint, messages: Sequence[Mapping[str, str]]) -> tuple[str, dict[str, int]]:
    """One Chat Completions request → (answer text, usage). Raises LLMUnavailable."""
    body = json.dumps(
        {
            "model": endpoint.model,
            "messages": list(messages),
            "temperature": endpoint.temperature,
            "max_tokens": endpoint.max_tokens,
        }
    ).encode()
    headers = {"Content-Type": "application/json"}
    if endpoint.key:
        headers["Authorization"] = f"Bearer {endpoint.key}"
    req = urllib.request.Request(endpoint.chat_url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=endpoint.timeout) as resp:
            data = json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        raise LLMUnavailable(f"HTTP {exc.code} from {endpoint.chat_url}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise LLMUnavailable(f"no answer from {endpoint.chat_url}: {reason}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LLMUnavailable(f"not JSON from {endpoint.chat_url}: {exc}") from None
    try:
        text = data["choices"][0]["message"]["content"]
        if not isinstance(text, str):
            raise TypeError("content is not a string")
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMUnavailable(f"not a chat completion: {exc}") from None
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return text, {
        "prompt": int(usage.get("prompt_tokens", 0) or 0),
        "completion": int(usage.get("completion_tokens", 0) or 0),
    }


class LLMAgent(Agent):
    """A seat played by a language model; :meth:`record_extra` is stored with the record
    (prompts, answers, token and cost counts, and every decision the heuristic took over)."""

    name = "llm"

    def __init__(self, seed: int = 0, endpoint: Endpoint | None = None) -> None:
        super().__init__(seed)
        if endpoint is None:
            endpoint = endpoint_from_spec("llm")
        self.endpoint = endpoint
        self.lang: Lang = endpoint.lang
        self.fallback = HeuristicAgent(seed)
        self.transcript: list[dict[str, Any]] = []
        self.counts = {
            "calls": 0,
            "decisions": 0,  # every time the seat was asked to act
            "asked": 0,  # decisions the model was asked about
            "invalid": 0,
            "fallbacks": 0,
            "unavailable": 0,
            "skipped": 0,  # decisions not asked after GIVE_UP_AFTER failures in a row
            "prompt_tokens": 0,
            "completion_tokens": 0,
        }
        self.seconds = 0.0
        self._queue: list[Action] = []
        self._asked_turn = -1
        self._answered: set[int] = set()
        self._failures = 0  # endpoint failures in a row

    @property
    def spec(self) -> str:
        return f"llm:{self.endpoint.model}@{self.endpoint.url}"

    def __repr__(self) -> str:
        return f"LLMAgent(seed={self.seed}, {self.endpoint!r})"

    # ------------------------------------------------------------------ deciding

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
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
        if self._failures >= GIVE_UP_AFTER:
            # The endpoint failed again and again: the heuristic plays on without
            # waiting for a timeout at every decision (counted, not asked).
            self.counts["skipped"] += 1
            return self.fallback.act(view, legal, required)
        return self._ask(view, legal, required)

    def _from_queue(self, view: View, legal: Sequence[Action]) -> Action | None:
        while self._queue:
            action = self._queue.pop(0)
            try:
                check_answer(action, view, legal, self.lang)
            except CommandError:
                continue  # overtaken by events (the offer went, the card was traded)
            return action
        return None

    def _ask(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        lang = self.lang
        prompt = render_prompt(view, legal, required, lang)
        messages: list[dict[str, str]] = [
            {"role": "system", "content": system_prompt(lang, view.config)},
            {"role": "user", "content": prompt},
        ]
        entry: dict[str, Any] = {"turn": view.turn, "phase": view.phase, "prompt": prompt}
        answers: list[str] = []
        errors: list[str] = []
        entry["answers"], entry["errors"] = answers, errors
        self.transcript.append(entry)
        self.counts["asked"] += 1
        for _attempt in range(self.endpoint.retries + 1):
            start = time.perf_counter()
            try:
                text, usage = chat(self.endpoint, messages)
            except LLMUnavailable as exc:
                self.counts["unavailable"] += 1
                self._failures += 1
                errors.append(str(exc))
                break
            finally:
                self.seconds += time.perf_counter() - start
                self.counts["calls"] += 1
            self._failures = 0
            self.counts["prompt_tokens"] += usage["prompt"]
            self.counts["completion_tokens"] += usage["completion"]
            answers.append(text)
            try:
                actions, passed = self._read(text, view, legal)
            except CommandError as exc:
                self.counts["invalid"] += 1
                errors.append(str(exc))
                messages += [
                    {"role": "assistant", "content": text},
                    {"role": "user", "content": _retry_text(str(exc), lang)},
                ]
                continue
            if passed and not actions and not required:
                entry["action"] = "pass"
                return None
            if actions:
                self._queue = actions[1:]
                entry["action"] = render_action(actions[0], view, lang)
                return actions[0]
            self.counts["invalid"] += 1
            msg = "you must act now; 'pass' is not allowed"
            errors.append(msg)
            messages += [
                {"role": "assistant", "content": text},
                {"role": "user", "content": _retry_text(msg, lang)},
            ]
        # The retry budget is spent or the endpoint failed: the heuristic decides.
        self.counts["fallbacks"] += 1
        choice = self.fallback.act(view, legal, required)
        entry["fallback"] = True
        entry["action"] = render_action(choice, view, lang) if choice is not None else "pass"
        return choice

    def _read(self, text: str, view: View, legal: Sequence[Action]) -> tuple[list[Action], bool]:
        """Every command of an answer, checked against the view (any bad line: the
        whole answer is refused, with that line's message)."""
        lines = [clean_line(x) for x in text.strip().splitlines()]
        lines = [x for x in lines if x]
        if not lines:
            raise CommandError("the answer is empty; write one command")
        actions: list[Action] = []
        passed = False
        for line in lines[:8]:
            try:
                action = parse_command(line, view, self.lang)
            except CommandError as exc:
                raise CommandError(f"{line!r}: {exc}") from None
            if action is None:
                passed = True
                continue
            if not actions:  # later lines are checked when their turn comes
                try:
                    check_answer(action, view, legal, self.lang)
                except CommandError as exc:
                    raise CommandError(f"{line!r}: {exc}") from None
            actions.append(action)
        return actions, passed

    # ------------------------------------------------------------------ the record

    def cost(self) -> float:
        e = self.endpoint
        c = self.counts
        return (c["prompt_tokens"] * e.price_in + c["completion_tokens"] * e.price_out) / 1e6

    def record_extra(self) -> dict[str, Any]:
        """What the game record keeps about this seat (no key)."""
        return {
            "agent": self.spec,
            "llm": {
                "model": self.endpoint.model,
                "lang": self.lang,
                **self.counts,
                "tokens": self.counts["prompt_tokens"] + self.counts["completion_tokens"],
                "cost": round(self.cost(), 6),
                "seconds": round(self.seconds, 3),
                "transcript": self.transcript,
            },
        }


def _retry_text(error: str, lang: Lang) -> str:
    if lang == "pl":
        return f"Błąd: {error}\nOdpowiedz jeszcze raz, poprawną komendą."
    return f"Error: {error}\nAnswer again with a valid command."


def make_llm_agent(spec: str, seed: int = 0) -> LLMAgent:
    return LLMAgent(seed, endpoint_from_spec(spec))


def is_llm_spec(name: str) -> bool:
    return name == "llm" or name.startswith("llm:")


__all__ = [
    "Endpoint",
    "LLMAgent",
    "LLMUnavailable",
    "chat",
    "endpoint_from_spec",
    "is_llm_spec",
    "make_llm_agent",
]
