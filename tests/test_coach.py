"""Coach mode (issue 36): the search's three best actions with the search's own margins,
the terminal's ``hint``, and the review of a finished game."""

from __future__ import annotations

import re
import statistics

import pytest

from bohnanza import coach
from bohnanza.actions import Action
from bohnanza.agents import make_agent
from bohnanza.agents.search import MARGIN_SCALE, SearchAgent
from bohnanza.driver import PlayLog, play
from bohnanza.game import Game
from bohnanza.terminal import TerminalGame
from bohnanza.text import variety_name


def trading_position(seed: int = 5, turn: int = 3) -> Game:
    """A 4-player classic game played by heuristic bots up to the trading of ``turn``:
    the active seat has drawn cards, offers to make and trading to end."""
    game = Game.new("classic", 4, seed=seed)
    bots = [make_agent("heuristic", seed * 10 + s) for s in range(4)]
    while not (game.phase == "trade" and game.turn >= turn):
        seat = game.waiting_for()[0]
        choice = bots[seat].act(game.view(seat), game.legal_actions(seat, True), True)
        game.apply(seat, choice if choice is not None else Action.end_trading())
    return game


def test_advice_is_legal_and_its_margins_are_the_searchs() -> None:
    game = trading_position()
    seat = game.active
    before = game.to_dict()
    advice = coach.advise(game, seat, seed=7, rollouts=60, seconds=None)
    assert game.to_dict() == before  # advising changes nothing
    assert len(advice) == 3
    assert [a.margin for a in advice] == sorted((a.margin for a in advice), reverse=True)
    for a in advice:
        assert a.action is None or game.is_legal(seat, a.action)
        assert a.reason["en"] and a.reason["pl"] and a.reason["en"] != a.reason["pl"]
    # The search itself, asked directly with the same seed and budget, plays the same
    # roll-outs: the coach's margins are the means of its values, in coins.
    search = SearchAgent(7, rollouts=60, trades_only=False)
    choice = search.act(game.view(seat), game.legal_actions(seat, True), False)
    direct = sorted(
        (
            (statistics.fmean(v) / MARGIN_SCALE, c)
            for c, v in zip(search.last_candidates, search.last_values, strict=True)
        ),
        key=lambda x: -x[0],
    )
    assert [(pytest.approx(m), c) for m, c in direct[:3]] == [(a.margin, a.action) for a in advice]
    assert choice in search.last_candidates
    assert all(a.samples == len(search.last_values[0]) for a in advice)


def test_another_seed_samples_other_states() -> None:
    game = trading_position()
    one = coach.advise(game, game.active, seed=1, rollouts=30, seconds=None)
    two = coach.advise(game, game.active, seed=2, rollouts=30, seconds=None)
    assert [a.margin for a in one] != [a.margin for a in two]


def test_a_seat_with_nothing_to_decide_is_refused() -> None:
    game = Game.new("classic", 4, seed=3)  # seat 0 plants; the others wait
    with pytest.raises(coach.CoachError, match="nothing to decide"):
        coach.advise(game, 1)
    with pytest.raises(coach.CoachError, match="no seat"):
        coach.advise(game, 7)


def test_reasons_name_what_a_planting_does() -> None:
    game = Game.new("classic", 4, seed=3)
    view = game.view(0)
    first = view.config.varieties[view.config.card_variety[view.hand[0]]]  # type: ignore[index]
    r = coach.reason(view, Action.plant(0))
    assert r["en"].startswith("starts a") and r["pl"].startswith("zakłada pole")
    assert variety_name(first, "en") in r["en"]


def test_terminal_hint_prints_three_lines() -> None:
    game = trading_position()
    seat = game.active
    bots = {s: make_agent("heuristic", s) for s in range(4) if s != seat}
    out: list[str] = []
    answers = iter(["hint", "q"])
    term = TerminalGame(
        game, seat, bots, read=lambda _prompt: next(answers), write=out.append, width=100
    )
    assert term.play() is False  # the person quit after the hint
    lines = [ln for chunk in out for ln in chunk.split("\n")]
    hints = [ln for ln in lines if re.match(r"^[123]\. .*: [+-]\d+\.\d coins \(±", ln)]
    assert len(hints) == 3, "\n".join(lines)


def test_review_marks_the_decisions_that_lost_most() -> None:
    game = Game.new("classic", 3, seed=21)
    start = game.clone()
    # Seat 0 plays at random: it loses margin somewhere the search can see.
    agents = [make_agent("random", 1), make_agent("heuristic", 2), make_agent("heuristic", 3)]
    log = play(game, agents, log=PlayLog())
    marks, decisions, reviewed = coach.review(
        start, log.actions, [0], seed=4, rollouts=6, seconds=6.0
    )
    assert decisions > 0 and 0 < reviewed <= decisions
    assert 1 <= len(marks) <= 3
    for m in marks:
        assert m.seat == 0 and m.loss >= coach.MARK_LOSS
        assert log.actions[m.step] == (0, m.played)
        assert m.to_json()["loss"] == round(m.loss, 2)
