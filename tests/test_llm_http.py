"""Issue 52, items 2–4: what an endpoint says is heard. ``Retry-After`` on 429 is honoured
(seconds or an HTTP date, never past the decision's deadline) and the time waited is in
the summary; a reasoning model cut off by ``max_tokens`` is an invalid answer of its own
kind with its tokens counted, not an outage; an error's body is shown (bounded). All
against the fake server on loopback."""

from __future__ import annotations

import re
import time
from email.utils import formatdate

from bohnanza import Game
from bohnanza.agents.llm import Endpoint, LLMAgent, llm_line
from bohnanza.text import render_action
from llm_server import Reply, chat_server


def _decide(endpoint: Endpoint) -> tuple[LLMAgent, str]:
    game = Game.new("classic", 3, seed=5)  # seat 0 plants: plant 1, 2 or 3
    view = game.view(0)
    llm = LLMAgent(0, endpoint)
    choice = llm.act(view, game.legal_actions(0), True)
    assert choice is not None
    return llm, render_action(choice, view, base=1)


def _limited_once(retry_after: str) -> object:
    """429 with ``Retry-After`` for the first request, then ``plant 2``."""
    seen = [0]

    def policy(messages: list[dict[str, str]]) -> tuple[str, float] | Reply:
        seen[0] += 1
        if seen[0] == 1:
            return Reply(status=429, headers=(("Retry-After", retry_after),))
        return "plant 2", 0.0

    return policy


def test_retry_after_in_seconds_is_honoured_and_summed() -> None:
    """The old client retried 0.4 s, 1.4 s, 3 s after a ``Retry-After: 5``: here it waits
    the 1 s the server asked for (its own backoff is 0.01 s), and says so."""
    with chat_server(_limited_once("1")) as server:  # type: ignore[arg-type]
        llm, move = _decide(Endpoint("m", server.url, timeout=10, backoff=0.01))
        at = [r["at"] for r in server.requests]
    assert move == "plant 2" and len(at) == 2
    assert 1.0 <= at[1] - at[0] < 1.5
    stats = llm.stats()
    assert stats["rate_limited"] == 1 and 1.0 <= stats["limit_wait"] < 1.5
    assert llm.counts["fallbacks"] == 0
    line = llm_line(stats)
    assert re.search(r"1 rate-limited answers \(429\), 1\.\d s waited on rate limits", line)


def test_retry_after_as_an_http_date() -> None:
    when = formatdate(time.time() + 2, usegmt=True)  # whole seconds: 1 to 2 s from now
    with chat_server(_limited_once(when)) as server:  # type: ignore[arg-type]
        _llm, move = _decide(Endpoint("m", server.url, timeout=10, backoff=0.01))
        at = [r["at"] for r in server.requests]
    assert move == "plant 2" and 0.9 <= at[1] - at[0] < 2.5


def test_retry_after_past_the_deadline_ends_the_decision_at_once() -> None:
    """A wait the deadline cannot hold is not slept through, nor cut short by retrying
    early: the decision fails now and the message says why."""
    with chat_server(lambda m: Reply(status=429, headers=(("Retry-After", "30"),))) as server:
        start = time.perf_counter()
        llm, _move = _decide(Endpoint("m", server.url, timeout=2, backoff=0.01))
        seconds = time.perf_counter() - start
        requests = len(server.requests)
    assert requests == 1 and seconds < 1.0
    error = llm.transcript[0]["errors"][-1]
    assert "Retry-After" in error and "30 s" in error and "deadline" in error
    assert llm.counts["fallbacks"] == 1


def test_a_reasoning_model_cut_off_by_max_tokens_is_an_invalid_answer() -> None:
    """``content: null``, ``finish_reason: length``: the old client called it an outage,
    sent it again 4 times and counted 0 tokens. It is an answer (its tokens count) that
    holds no command: invalid, of the kind "cut off", and the message says to raise
    ``max_tokens``."""
    reply = Reply(null=True, finish_reason="length", usage=(100, 200))
    with chat_server(lambda m: reply) as server:
        llm, _move = _decide(Endpoint("m", server.url, timeout=5, max_tokens=200))
        requests = len(server.requests)
    c = llm.counts
    assert requests == 3 and c["calls"] == 3  # the first answer and two retries
    assert c["unavailable"] == 0 and c["retries"] == 0
    assert c["invalid"] == c["cut_off"] == 3 and c["fallbacks"] == 1
    assert (c["prompt_tokens"], c["completion_tokens"]) == (300, 600)
    error = llm.transcript[0]["errors"][0]
    assert "cut off" in error and "max_tokens=200" in error and "raise max_tokens" in error
    assert "3 answers cut off by max_tokens: raise max_tokens" in llm_line(llm.stats())


def test_reasoning_cut_off_in_its_think_block_counts_as_cut_off() -> None:
    reply = Reply("<think>Field 1 holds Blue, so", finish_reason="length", usage=(10, 50))
    with chat_server(lambda m: reply) as server:
        llm, _move = _decide(Endpoint("m", server.url, timeout=5, retries=0))
    assert llm.counts["cut_off"] == 1 and llm.counts["completion_tokens"] == 50


def test_an_answer_cut_off_after_its_command_still_counts() -> None:
    reply = Reply("plant 2\nBecause Blue is", finish_reason="length")
    with chat_server(lambda m: reply) as server:
        llm, move = _decide(Endpoint("m", server.url, timeout=5))
    assert move == "plant 2" and llm.counts["invalid"] == llm.counts["cut_off"] == 0


def test_an_error_body_is_shown_bounded() -> None:
    """A 400 whose body says what is wrong (here: ``response_format`` unsupported) was
    reported as a bare "HTTP 400 from URL"; the message now comes along, cut short."""
    body = (
        b'{"error": {"message": "response_format is not supported by this server",'
        b' "type": "invalid_request_error"}}'
    )
    with chat_server(lambda m: Reply(status=400, raw=body)) as server:
        llm, _move = _decide(Endpoint("m", server.url, timeout=5, mode="json"))
        requests = len(server.requests)
    error = llm.transcript[0]["errors"][0]
    assert error.startswith("HTTP 400 from ") and requests == 1  # a 400 is not retried
    assert error.endswith(": response_format is not supported by this server")
    with chat_server(lambda m: Reply(status=404, raw=b"<html>" + b"x" * 100_000)) as server:
        llm, _move = _decide(Endpoint("m", server.url, timeout=5))
    error = llm.transcript[0]["errors"][0]
    assert "HTTP 404" in error and "<html>xxx" in error and len(error) < 600
