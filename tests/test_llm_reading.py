"""Issue 52, item 1: an answer is read by one rule (bohnanza.answers), never guessed. A
marked final answer wins (``Final answer:``, ``[...]``, a JSON ``move``); otherwise the
answer must hold exactly one command, or it is ambiguous: an invalid answer with a
message that says why, counted as such. Against the fake server on loopback."""

from __future__ import annotations

import pytest

from bohnanza import Action, Game
from bohnanza.actions import Offer
from bohnanza.agents.llm import Endpoint, LLMAgent
from bohnanza.answers import AmbiguousAnswer, read_answer
from bohnanza.text import CommandError, render_action
from llm_server import chat_server


def _first_decision() -> tuple[Game, int]:
    game = Game.new("classic", 3, seed=5)  # seat 0 plants: plant 1, 2 or 3
    return game, 0


def _ask(answers: list[str]) -> tuple[LLMAgent, Action | None, list[str]]:
    """One decision of seat 0, the server answering ``answers`` in turn (the last one
    again after that); returns the agent, its move and the retry prompts it sent."""
    game, seat = _first_decision()
    retries: list[str] = []

    def policy(messages: list[dict[str, str]]) -> tuple[str, float]:
        if messages[-1]["content"].startswith("Error:"):
            retries.append(messages[-1]["content"])
        return answers[min(len(messages) // 2 - 1, len(answers) - 1)], 0.0

    with chat_server(policy) as server:
        llm = LLMAgent(0, Endpoint("m", server.url, timeout=5))
        choice = llm.act(game.view(seat), game.legal_actions(seat), True)
    return llm, choice, retries


def _move(choice: Action | None) -> str:
    game, seat = _first_decision()
    return "pass" if choice is None else render_action(choice, game.view(seat), base=1)


def test_a_rejected_move_after_the_chosen_one_is_ambiguous_not_played() -> None:
    """``My move: X`` / ``Rejected: Y``: the old reader played Y (the last valid line).
    Now it is an invalid answer, counted, whose message says why and how to answer;
    the model's marked retry is what is played."""
    llm, choice, retries = _ask(["My move: plant 1\nRejected: plant 2", "Final answer: plant 1"])
    assert _move(choice) == "plant 1"
    c = llm.counts
    assert c["invalid"] == 1 and c["ambiguous"] == 1 and c["calls"] == 2
    assert c["fallbacks"] == 0
    (retry,) = retries
    assert "ambiguous" in retry and "'plant 1'" in retry and "'plant 2'" in retry
    assert "Final answer:" in retry
    assert "ambiguous" in llm.transcript[0]["errors"][0]


def test_an_answer_that_stays_ambiguous_falls_back_and_is_never_guessed() -> None:
    llm, choice, _retries = _ask(["plant 2\nplant 3"])
    c = llm.counts
    assert c["invalid"] == c["ambiguous"] == 3 and c["fallbacks"] == 1
    assert llm.transcript[0]["fallback"] is True
    assert choice is not None  # the heuristic's move, said so in the record


@pytest.mark.parametrize(
    "answer",
    [
        "Options:\n- plant 1\n- plant 3\nFinal answer: plant 2",
        "I weighed plant 1 and plant 3.\n\n**Final answer:** `plant 2`",
        "Final answer:\nplant 2\nIt keeps my Blue field growing, unlike plant 1.",
        "[plant 2] because plant 1 would break my Blue field",
        'Plant 1 is tempting.\n{"move": "plant 2"}',
        '<think>plant 1? plant 3?</think>\n```json\n{"moves": ["plant 2"]}\n```',
        "<think>plant 1 or plant 3</think>\nMy move: plant 2",
        "plant 2\nplant 2",  # one move, written twice
    ],
)
def test_a_marked_final_answer_wins(answer: str) -> None:
    llm, choice, _retries = _ask([answer])
    assert _move(choice) == "plant 2"
    assert llm.counts["invalid"] == 0 and llm.counts["calls"] == 1


def test_polish_final_answer() -> None:
    game, seat = _first_decision()
    answer = "Rozważam zasadź 1.\nOstateczna odpowiedź: zasadź 2"
    with chat_server(lambda m: (answer, 0.0)) as server:
        llm = LLMAgent(0, Endpoint("m", server.url, timeout=5, lang="pl"))
        choice = llm.act(game.view(seat), game.legal_actions(seat), True)
    assert _move(choice) == "plant 2" and llm.counts["invalid"] == 0


def _offers() -> tuple[Game, list[int]]:
    game = Game.new(
        "classic", 4, seed=5, deck=["blue", "chili", "blue", "wax", "soy"] + ["stink"] * 5
    )
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    hand = game.hands[0]
    game.apply(0, Action.propose(Offer(1, (hand[0],), (("stink", 1),))))
    game.apply(0, Action.propose(Offer(1, (hand[2],))))
    return game, [o.offer_id for o in game.view(1).offers]


def test_options_listed_before_a_final_answer_are_not_played() -> None:
    """Offers to answer (several commands allowed): ``Options: - accept 1 - decline 1 …
    Final answer: decline 1`` played the accept (every command-like line ran)."""
    game, ids = _offers()
    answer = (
        f"Options:\n- accept {ids[0]} with 1\n- decline {ids[0]}\n"
        f"Final answer: decline {ids[0]}\ndecline {ids[1]}"
    )
    with chat_server(lambda m: (answer, 0.0)) as server:
        llm = LLMAgent(1, Endpoint("m", server.url, timeout=5))
        first = llm.act(game.view(1), game.legal_actions(1), False)
        assert first == Action.decline(ids[0])
        game.apply(1, first)
        second = llm.act(game.view(1), game.legal_actions(1), False)
    assert second == Action.decline(ids[1]) and llm.counts["invalid"] == 0


def test_one_offer_answered_two_ways_is_ambiguous() -> None:
    game, ids = _offers()
    answer = f"accept {ids[0]} with 1\ndecline {ids[0]}\ndecline {ids[1]}"
    with chat_server(lambda m: (answer, 0.0)) as server:
        llm = LLMAgent(1, Endpoint("m", server.url, timeout=5, retries=0))
        llm.act(game.view(1), game.legal_actions(1), False)
    assert llm.counts["ambiguous"] == 1 and llm.counts["fallbacks"] == 1
    assert f"offer #{ids[0]} is answered twice" in llm.transcript[0]["errors"][0]


def test_the_reader_itself() -> None:
    """The rule as a function, as TextArena uses it: prose is not a command, a command
    that cannot be read is not counted when another is there, and with nothing to read
    the parser's message comes back."""
    game, seat = _first_decision()
    view, legal = game.view(seat), game.legal_actions(seat)
    for text in ("plant 2\nThis keeps my Blue field growing.", "Plant the bean.\nplant 2"):
        actions, passed = read_answer(text, view, legal)
        assert [render_action(a, view, base=1) for a in actions] == ["plant 2"] and not passed
    with pytest.raises(AmbiguousAnswer):
        read_answer("plant 1\nplant 2", view, legal)
    with pytest.raises(CommandError, match="not a field"):
        read_answer("harvest 9", view, legal)
    with pytest.raises(CommandError, match="no command"):
        read_answer("I am not sure.\nLet me think.", view, legal)
    with pytest.raises(CommandError, match="empty"):
        read_answer("<think>plant 1", view, legal)


def test_pass_together_with_moves_is_ambiguous() -> None:
    """An offer waiting, ``pass`` and a decline in one answer: the old reader played the
    decline."""
    game, ids = _offers()
    answer = f"pass\ndecline {ids[0]}"
    with chat_server(lambda m: (answer, 0.0)) as server:
        llm = LLMAgent(1, Endpoint("m", server.url, timeout=5, retries=0))
        llm.act(game.view(1), game.legal_actions(1), False)
    assert llm.counts["ambiguous"] == 1 and llm.counts["fallbacks"] == 1
    assert "says pass and also names moves" in llm.transcript[0]["errors"][0]


@pytest.mark.parametrize("mine", ["pass", "decline {0}"])
def test_a_move_named_under_another_label_is_not_played(mine: str) -> None:
    """Offers waiting (several commands allowed): ``My move: X`` / ``Rejected: Y`` played
    Y, now or in a later round. A command under a label that does not say it is the
    move made, next to another command, makes the answer ambiguous."""
    game, ids = _offers()
    answer = f"My move: {mine.format(ids[0])}\nRejected: decline {ids[1]}"
    with chat_server(lambda m: (answer, 0.0)) as server:
        llm = LLMAgent(1, Endpoint("m", server.url, timeout=5, retries=0))
        llm.act(game.view(1), game.legal_actions(1), False)
    assert llm.counts["ambiguous"] == 1 and llm.counts["fallbacks"] == 1
    error = llm.transcript[0]["errors"][0]
    assert f"'rejected: decline {ids[1]}' names a move without saying" in error
