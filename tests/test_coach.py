"""Coach mode (issue 36): the search's three best actions with the search's own margins,
the terminal's ``hint``, and the review of a finished game."""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Sequence
from types import SimpleNamespace

import pytest

from bohnanza import coach
from bohnanza.actions import Action, ActionType
from bohnanza.agents import make_agent
from bohnanza.agents.base import Agent
from bohnanza.agents.heuristic import HeuristicAgent
from bohnanza.agents.search import MARGIN_SCALE, SearchAgent
from bohnanza.driver import PlayLog, play
from bohnanza.game import Game
from bohnanza.terminal import TerminalGame
from bohnanza.text import variety_name
from bohnanza.views import View


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
    hints = [ln for ln in lines if re.match(r"^[123]=?\. .*: [+-]\d+\.\d coins \(±", ln)]
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


def planting_position() -> Game:
    """Seat 0's first planting (a Garden, onto either of its two empty fields) with 3
    coins: a third field may be bought at any moment of the turn."""
    game = Game.new("classic", 4, seed=3)
    game.treasury[0].extend(game.draw[:3])
    del game.draw[:3]
    game.invalidate_views()
    return game


def test_identical_options_score_identically_and_are_tied() -> None:
    # Common random numbers: every option on the same sampled states, with the same
    # players and seeds, so one option listed twice gets the same value, sample by
    # sample, and the two are tied (not ranked apart by noise).
    game = planting_position()
    view, legal, required = coach.decision(game, 0)
    twice = [Action.plant(0), Action.plant(0), Action.plant(1)]
    scored = coach.evaluate(coach.searcher(5, 30, None), view, legal, required, cands=twice)
    values = [v for _a, v in scored]
    assert len(set(values[0])) > 1  # the samples differ...
    assert values[0] == values[1]  # ...the two copies do not
    rank = coach.ranks(values)
    assert rank[0] == rank[1]
    assert coach.ranks([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [0.0, 1.0, 2.5]]) == [1, 1, 3]


class BuysBesideAnEmptyField(Agent):
    """Seat ``mine`` of a roll-out: buys a third field at its first decision when its
    second field is empty, and never else; otherwise plays ``inner``. A later choice
    that depends on which field the option planted, and has nothing to do with it."""

    def __init__(self, inner: Agent, mine: bool) -> None:
        super().__init__(inner.seed)
        self.inner, self.mine, self.first = inner, mine, True

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        buy = next((a for a in legal if a.type is ActionType.BUY_FIELD), None)
        first, self.first = self.first, False
        assert view.seat is not None
        if self.mine and first and buy is not None and not view.seats[view.seat].fields[1]:
            return buy
        return self.inner.act(view, [a for a in legal if a is not buy], required)


def test_a_later_unrelated_choice_does_not_rank_two_options() -> None:
    # Planting the Garden on field 1 or field 2 is the same decision. A continuation
    # that buys a field after the first but not the second ranked them 3 coins apart
    # (issue 53's "second Soy field"); under the same continuation (no purchase in it,
    # HELD) they score the same and are tied.
    game = planting_position()
    view, legal, required = coach.decision(game, 0)
    pair = [Action.plant(0), Action.plant(1)]

    def players(n: int, me: int, seed: int) -> list[Agent]:
        return [BuysBesideAnEmptyField(HeuristicAgent(seed + s), s == me) for s in range(n)]

    def scores(held: frozenset[ActionType]) -> tuple[list[float], list[int]]:
        agent = coach.searcher(5, 30, None)
        got = coach.evaluate(agent, view, legal, required, held=held, players=players, cands=pair)
        values = [v for _a, v in got]
        return [statistics.fmean(v) / MARGIN_SCALE for v in values], coach.ranks(values)

    margins, rank = scores(frozenset())  # the continuation may buy: the old coach
    assert rank == [2, 1] and margins[1] - margins[0] > 2.0
    margins, rank = scores(coach.HELD)
    assert rank == [1, 1] and margins[0] == pytest.approx(margins[1])


def test_the_polish_hint_names_the_varieties_in_polish() -> None:
    game = planting_position()
    cfg = game.config
    garden = cfg.varieties[cfg.card_variety[game.hands[0][0]]]
    assert garden == "garden"
    pl = coach.hint_lines(game, 0, "pl", seed=2, rollouts=12, seconds=None)
    en = coach.hint_lines(game, 0, "en", seed=2, rollouts=12, seconds=None)
    text = "\n".join(pl)
    assert variety_name(garden, "pl", "many") in text  # "zakłada pole Ogrodowych"
    assert "Garden" not in text and "Garden" in "\n".join(en)
    assert all(re.match(r"^\d=?\. .*: [+-]\d+,\d monety \(±\d+,\d\) - ", ln) for ln in pl), pl


def test_the_review_budget_is_cpu_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # The review's clock is the thread's CPU time: a fake one that advances 10 s a
    # reading cuts a 15-second review after two decisions, however long they took.
    game = Game.new("classic", 3, seed=21)
    start = game.clone()
    agents = [make_agent("random", 1), make_agent("heuristic", 2), make_agent("heuristic", 3)]
    log = play(game, agents, log=PlayLog())
    ticks = iter(range(10, 10_000, 10))
    fake = SimpleNamespace(perf_counter=time.perf_counter, thread_time=lambda: float(next(ticks)))
    monkeypatch.setattr(coach, "time", fake)
    _marks, decisions, reviewed = coach.review(start, log.actions, [0], rollouts=3, seconds=15.0)
    assert decisions > 2 and reviewed == 2
