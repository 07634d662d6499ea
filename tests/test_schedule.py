"""The phase-2 scheduler (bohnanza.schedule): who is asked next, and whether they must
answer. Round order, passes, the end of trading after a quiet round or the last round
(R-TRADE-6), pending decisions first (R-HARV-1, R-LADY-7), the callers' policies (a seat
filter, a per-seat action budget, fresh rounds, seats that end their own trading), and the
driver's games before and after the scheduler took over its phase 2."""

from __future__ import annotations

import ast
import doctest
from collections.abc import Generator, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bohnanza.schedule
from bohnanza import Action, Game, Offer
from bohnanza.agents import make_agent
from bohnanza.agents.base import Agent
from bohnanza.driver import play
from bohnanza.game import OVER, PLANT_TRADED, TRADE
from bohnanza.schedule import MAX_TRADE_ROUNDS, Ask, AskKind, AskLoop, TradeScheduler
from bohnanza.testing.helpers import card_ids, deal, stage_field

SLOT = AskKind.SLOT
FU = "fasolki+fasolufka"


def to_trade(game: Game) -> None:
    """Play the active seat's phase 1 (plant the front card, then stop) up to phase 2."""
    s = TradeScheduler()
    while game.phase != TRADE:
        ask = s.next(game)
        assert ask is not None and ask.kind is AskKind.WAITING and ask.required
        legal = game.legal_actions(ask.seat)
        stop = [a for a in legal if a == Action.stop_planting()]
        game.apply(ask.seat, (stop or legal)[0])


def trade_game(players: int = 4, seed: int = 1) -> Game:
    game = Game.new("classic", players, seed=seed)
    to_trade(game)
    return game


def slots(s: TradeScheduler, game: Game, count: int, acted: bool = False) -> list[int]:
    """Ask ``count`` slots, reporting each as acted or passed; returns the seats."""
    out = []
    for _ in range(count):
        ask = s.next(game)
        assert ask is not None and ask.kind is SLOT and not ask.required, ask
        out.append(ask.seat)
        s.report(acted)
    return out


# ---------------------------------------------------------------------------- the order


def test_the_module_example_runs() -> None:
    # Read from the source file: a compiled module (BOHNANZA_COMPILE=1) keeps no docstring.
    source = Path(bohnanza.schedule.__file__ or "").parent / "schedule.py"
    text = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8")))
    assert text is not None
    test = doctest.DocTestParser().get_doctest(
        text, dict(vars(bohnanza.schedule)), "bohnanza.schedule", str(source), 0
    )
    runner = doctest.DocTestRunner()
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 5 and result.failed == 0


def test_max_trade_rounds_is_one_constant_used_by_the_driver() -> None:
    import inspect

    assert MAX_TRADE_ROUNDS == 6
    assert inspect.signature(play).parameters["max_trade_rounds"].default == MAX_TRADE_ROUNDS
    assert TradeScheduler().max_rounds == MAX_TRADE_ROUNDS


def test_phase_1_asks_the_seat_the_game_waits_for() -> None:
    game = Game.new("classic", 4, seed=1)
    ask = TradeScheduler().next(game)
    assert ask == Ask(game.waiting_for()[0], True, AskKind.WAITING)
    assert not ask.time_up


def test_a_round_is_the_active_seat_then_every_other_seat_once() -> None:
    game = Game.new("classic", 4, seed=1)
    pass_turns(game, 2)  # seat 2 is active now
    to_trade(game)
    assert game.active == 2
    assert slots(TradeScheduler(), game, 4) == [2, 3, 0, 1]


def test_a_quiet_round_ends_trading_r_trade_6() -> None:
    game = trade_game()
    s = TradeScheduler()
    assert slots(s, game, 4) == [0, 1, 2, 3]
    ask = s.next(game)
    assert ask == Ask(0, True, AskKind.TIME_UP) and ask.time_up and s.time_up
    assert s.next(game) == ask  # asked again until the caller ends trading
    game.apply(0, Action.end_trading())
    ask = s.next(game)
    assert ask is not None and ask.kind is AskKind.WAITING and game.phase == PLANT_TRADED


def test_a_round_with_an_action_gives_another_round() -> None:
    game = trade_game()
    s = TradeScheduler()
    for seat in (0, 1, 2, 3):
        ask = s.next(game)
        assert ask is not None and ask.seat == seat
        s.report(seat == 2)  # seat 2 acted (the scheduler trusts the report)
    assert s.next(game) == Ask(0, False, SLOT)  # round 2 (a round ends at the next question)
    assert s.trade_round(game) == 1 and not s.time_up
    s.report(False)
    assert slots(s, game, 3) == [1, 2, 3]
    assert s.next(game) == Ask(0, True, AskKind.TIME_UP)
    assert s.trade_round(game) == 2 and s.actions == {2: 1}


@pytest.mark.parametrize("rounds", [1, 2, MAX_TRADE_ROUNDS])
def test_trading_time_is_up_after_max_rounds_r_trade_6(rounds: int) -> None:
    game = trade_game()
    s = TradeScheduler(rounds)
    for _ in range(rounds):
        assert slots(s, game, 4, acted=True) == [0, 1, 2, 3]
    assert s.next(game) == Ask(0, True, AskKind.TIME_UP)
    assert s.trade_round(game) == rounds
    assert s.actions == {seat: rounds for seat in range(4)}


def test_an_unreported_slot_counts_as_a_pass() -> None:
    game = trade_game()
    s = TradeScheduler()
    for _ in range(4):
        assert s.next(game) is not None  # nobody reports
    assert s.next(game) == Ask(0, True, AskKind.TIME_UP)


def test_report_after_a_required_question_does_nothing() -> None:
    game = Game.new("classic", 4, seed=1)
    s = TradeScheduler()
    assert s.next(game) is not None
    s.report(True)
    assert s.actions == {} and not s.acted


def test_the_active_seat_ending_trading_in_its_slot_ends_the_rounds() -> None:
    game = trade_game()
    s = TradeScheduler()
    ask = s.next(game)
    assert ask == Ask(0, False, SLOT)
    game.apply(0, Action.end_trading())
    s.report(True)
    ask = s.next(game)
    assert ask is not None and ask.kind is AskKind.WAITING and ask.required
    assert s.turn == -1 and s.trade_round(game) == 0


def test_the_next_turn_starts_fresh_rounds() -> None:
    game = trade_game()
    s = TradeScheduler()
    slots(s, game, 4, acted=True)
    game.apply(0, Action.end_trading())
    pass_turns(game, 1, s)
    to_trade(game)
    assert game.active == 1
    assert s.trade_round(game) == 0
    assert slots(s, game, 4) == [1, 2, 3, 0]
    assert s.actions == {}


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="max_rounds"):
        TradeScheduler(0)
    with pytest.raises(ValueError, match="action_limit"):
        TradeScheduler(action_limit=-1)


def test_nothing_is_asked_when_the_game_is_over() -> None:
    game = Game.new("classic", 3, seed=2)
    play(game, [make_agent("random", seed=s) for s in range(3)])
    assert game.phase == OVER and TradeScheduler().next(game) is None


# ---------------------------------------------------------------------------- pending first


def fasolufka_game() -> tuple[Game, int]:
    """Seat 0 active in phase 2 with a golas child in hand; seat 3 has two golas fields,
    so a child it receives waits for its choice of field (R-LADY-7)."""
    men = card_ids(Game.new(FU, 4, seed=0).config, "golas", "man")
    child = card_ids(Game.new(FU, 4, seed=0).config, "golas", "child")[0]
    game = deal(
        FU, 4, hands=[["cowboy/man", child]], fill=("drunkard/man", "fatty/man"), fill_all=True
    )
    stage_field(game, 3, 0, [men[0]])
    stage_field(game, 3, 1, [men[1]])
    to_trade(game)
    assert game.active == 0 and child in game.hands[0]
    return game, child


def test_a_pending_decision_comes_first_mid_round_r_lady_7() -> None:
    game, child = fasolufka_game()
    s = TradeScheduler()
    assert s.next(game) == Ask(0, False, SLOT)
    game.apply(0, Action.propose(Offer(3, (child,), ())))
    s.report(True)
    assert s.next(game) == Ask(1, False, SLOT)
    s.report(False)
    # Seat 3 accepts out of order (as a server allows): its choice of field is pending.
    game.apply(3, Action.accept(max(game.offers), ()))
    assert game.pending is not None
    assert s.next(game) == Ask(3, True, AskKind.PENDING)
    assert s.next(game, only={0, 1, 2}) is None  # a caller that does not play seat 3 waits
    game.apply(3, game.legal_actions(3)[0])
    assert s.next(game) == Ask(2, False, SLOT)  # the round goes on where it stopped


def test_a_decision_pending_when_the_rounds_run_out_comes_first_then_fresh_rounds() -> None:
    """The driver's rule: the last slot of the last round created a pending decision;
    it is taken, and trading goes on with fresh rounds rather than ending (R-HARV-1)."""
    game, child = fasolufka_game()
    s = TradeScheduler(1)
    assert s.next(game) == Ask(0, False, SLOT)
    game.apply(0, Action.propose(Offer(3, (child,), ())))
    s.report(True)
    assert slots(s, game, 2) == [1, 2]
    assert s.next(game) == Ask(3, False, SLOT)
    game.apply(3, Action.accept(max(game.offers), ()))  # the child waits for a field
    s.report(True)
    assert s.next(game) == Ask(3, True, AskKind.PENDING)
    assert not s.time_up and s.trade_round(game) == 0
    game.apply(3, game.legal_actions(3)[0])
    assert slots(s, game, 4) == [0, 1, 2, 3]
    assert s.next(game) == Ask(0, True, AskKind.TIME_UP)


# ---------------------------------------------------------------------------- callers' policies


def test_only_asks_the_given_seats_and_skips_the_others_slots() -> None:
    game = trade_game()
    s = TradeScheduler()
    bots = {1, 3}
    ask = s.next(game, only=bots)
    assert ask == Ask(1, False, SLOT)
    s.report(True)
    assert s.next(game, only=bots) == Ask(3, False, SLOT)
    s.report(False)
    assert s.next(game, only=bots) == Ask(1, False, SLOT)  # round 2
    s.report(False)
    assert s.next(game, only=bots) == Ask(3, False, SLOT)
    # A quiet round: the trading time is up, but the active seat is a person's.
    assert s.next(game, only=bots) is None
    assert s.time_up
    assert s.next(game, only={0}) == Ask(0, True, AskKind.TIME_UP)


def test_only_outside_phase_2_asks_the_first_waiting_seat_in_it() -> None:
    game = Game.new("classic", 4, seed=1)
    assert TradeScheduler().next(game, only={1, 2}) is None  # seat 0 plants
    assert TradeScheduler().next(game, only={0}) == Ask(0, True, AskKind.WAITING)


def test_the_action_limit_skips_a_seat_that_spent_its_budget() -> None:
    game = trade_game()
    s = TradeScheduler(action_limit=1)
    assert slots(s, game, 4, acted=True) == [0, 1, 2, 3]
    assert not s.under_limit(2)
    # Everybody spent the budget: the next round asks nobody, so it is quiet.
    assert s.next(game) == Ask(0, True, AskKind.TIME_UP)


def test_note_action_counts_towards_the_limit_and_keeps_the_round_going() -> None:
    game = trade_game()
    s = TradeScheduler(action_limit=2)
    s.note_action(game, 2)  # seat 2 answered an offer out of its slot
    s.note_action(game, 2)
    assert s.actions == {2: 2} and not s.under_limit(2) and s.under_limit(1)
    assert slots(s, game, 3) == [0, 1, 3]  # seat 2 is skipped
    assert slots(s, game, 3) == [0, 1, 3]  # the noted actions made round 1 not quiet
    assert s.next(game) == Ask(0, True, AskKind.TIME_UP)
    s.note_action(Game.new("classic", 4, seed=1), 1)  # outside phase 2: nothing
    assert s.actions == {2: 2}


def test_restart_gives_fresh_rounds_after_the_time_was_up() -> None:
    game = trade_game()
    s = TradeScheduler(1)
    slots(s, game, 4, acted=True)
    assert s.next(game) is not None and s.time_up
    s.restart()  # a person traded: the bots may answer again
    assert not s.time_up and s.trade_round(game) == 0
    assert slots(s, game, 4) == [0, 1, 2, 3]
    assert s.next(game) == Ask(0, True, AskKind.TIME_UP)
    assert s.actions == {0: 1, 1: 1, 2: 1, 3: 1}


def test_a_self_ending_active_seat_must_answer_every_round_and_never_times_out() -> None:
    game = trade_game()
    s = TradeScheduler(1, self_ending={0})
    for _ in range(3):  # quiet rounds, more than max_rounds
        assert s.next(game) == Ask(0, True, SLOT)
        s.report(False)
        assert slots(s, game, 3) == [1, 2, 3]
    assert not s.time_up
    assert s.next(game, only={1, 2, 3}) == Ask(1, False, SLOT)
    # A self-ending seat that is not active is asked like any other.
    game2 = trade_game()
    s2 = TradeScheduler(self_ending={2})
    assert slots(s2, game2, 4) == [0, 1, 2, 3]
    assert s2.next(game2) == Ask(0, True, AskKind.TIME_UP)


def test_a_self_ending_active_seat_left_out_asks_nobody() -> None:
    game = trade_game()
    s = TradeScheduler(self_ending={0})
    assert s.next(game, only={0}) == Ask(0, True, SLOT)
    assert s.next(game, only=set()) is None  # terminates although rounds never run out


def test_a_web_pump_style_caller_bots_only_offers_answered_fresh_rounds() -> None:
    """Seat 0 is a person, seats 1-3 are bots with a budget of 3 actions each: the bots'
    slots, a bot's answer to the person's offer out of its slot, fresh rounds after the
    person's trade action, and the time-up question only once the active seat is a bot."""
    game = trade_game()
    bots = {1, 2, 3}
    s = TradeScheduler(action_limit=3)
    assert s.next(game, only=bots) == Ask(1, False, SLOT)
    s.report(True)
    # The person proposes to seat 2; the pump answers for the bot at once.
    hand = game.hands[0]
    game.apply(0, Action.propose(Offer(2, (hand[0],), ())))
    s.restart()
    game.apply(2, Action.decline(max(game.offers)))
    s.note_action(game, 2)
    assert s.actions == {1: 1, 2: 1}
    assert s.next(game, only=bots) == Ask(2, False, SLOT)  # the round goes on
    s.report(False)
    assert s.next(game, only=bots) == Ask(3, False, SLOT)
    s.report(False)
    for seat in (1, 2, 3):  # round 2: the last one was not quiet
        assert s.next(game, only=bots) == Ask(seat, False, SLOT)
        s.report(False)
    assert s.next(game, only=bots) is None and s.time_up  # the person ends trading
    s.restart()  # ... or trades again: the bots get fresh rounds
    assert s.next(game, only=bots) == Ask(1, False, SLOT)


# ---------------------------------------------------------------------------- whole games


def pass_turns(game: Game, turns: int, s: TradeScheduler | None = None) -> None:
    """Play ``turns`` turns without trading (first legal action; trading time up at once)."""
    s = s or TradeScheduler()
    end = game.turn + turns
    while game.turn < end and (ask := s.next(game)) is not None:
        if ask.time_up:
            game.apply(ask.seat, Action.end_trading())
        elif ask.required:
            legal = game.legal_actions(ask.seat)
            stop = [a for a in legal if a == Action.stop_planting()]
            game.apply(ask.seat, (stop or legal)[0])
        else:
            s.report(False)


SETUPS = [
    ("classic", 3),
    ("classic", 4),
    ("classic", 5),
    ("first-edition", 4),
    ("fasolki", 3),
    ("fasolki+new-varieties", 3),
    ("fasolki+fasolkopajaki", 4),
    ("fasolki+fasolufka", 3),
    ("fasolki+fasolufka", 5),
    ("fasolki+duel", 2),
]


@settings(max_examples=20, deadline=None)
@given(
    setup=st.sampled_from(SETUPS),
    seed=st.integers(0, 2**20),
    rounds=st.integers(1, MAX_TRADE_ROUNDS),
    bot=st.sampled_from(["random", "heuristic", "probe-spam"]),
)
def test_random_games_through_the_scheduler_end_and_required_seats_can_act(
    setup: tuple[str, int], seed: int, rounds: int, bot: str
) -> None:
    """Driving a game through the scheduler never asks a seat that has no legal action
    for a required decision, answers a pending decision first, and ends the game."""
    rules, n = setup
    game = Game.new(rules, n, seed=seed)
    agents = [make_agent(bot, seed=seed + s) for s in range(n)]
    s = TradeScheduler(rounds)
    asks = 0
    while (ask := s.next(game)) is not None:
        asks += 1
        assert asks < 20_000, "the scheduler does not let the game end"
        seat = ask.seat
        if game.pending is not None:
            assert ask.kind is AskKind.PENDING and seat == game.waiting_for()[0]
        elif ask.kind is not AskKind.SLOT:
            assert seat == game.waiting_for()[0]
        if ask.time_up:
            assert game.phase == TRADE and seat == game.active
            assert Action.end_trading() in game.legal_actions(seat)
            game.apply(seat, Action.end_trading())
            continue
        legal = game.legal_actions(seat, agents[seat].wants_offers(game.turn))
        if ask.required:
            assert legal, f"seat {seat} must answer {ask} with nothing to do"
        elif not legal:
            s.report(False)
            continue
        choice = agents[seat].act(game.view(seat), legal, ask.required)
        assert choice is not None or not ask.required
        if choice is not None:
            game.apply(seat, choice)
        s.report(choice is not None)
    assert game.over


# The driver's phase 2 as it was written before the scheduler (issue 14), kept to show
# that the scheduler asks the same questions in the same order.


def play_before(game: Game, agents: Sequence[Agent], max_trade_rounds: int) -> list[object]:
    log: list[object] = []

    def ask(seat: int, required: bool) -> bool:
        legal = game.legal_actions(seat, agents[seat].wants_offers(game.turn))
        if not legal and not required:
            return False
        choice = agents[seat].act(game.view(seat), legal, required)
        if choice is None:
            assert not required
            return False
        game.apply(seat, choice)
        log.append((seat, choice))
        return True

    n = game.players
    while game.phase != OVER:
        if game.phase == TRADE and game.pending is None:
            turn = game.turn
            for _ in range(max_trade_rounds):
                acted = False
                a = game.active
                for seat in [(a + i) % n for i in range(n)]:
                    if game.phase != TRADE or game.turn != turn or game.over:
                        break
                    while game.pending is not None and not game.over:
                        ask(game.pending.seat, True)
                    if game.phase != TRADE:
                        break
                    acted = ask(seat, False) or acted
                if game.phase != TRADE or game.turn != turn or not acted:
                    break
            if game.phase == TRADE and game.turn == turn and game.pending is None and not game.over:
                seat = game.active
                game.apply(seat, Action.end_trading())
                log.append((seat, Action.end_trading()))
            continue
        ask(game.waiting_for()[0], True)
    return log


@settings(max_examples=15, deadline=None)
@given(
    setup=st.sampled_from(SETUPS),
    seed=st.integers(0, 2**20),
    rounds=st.integers(1, MAX_TRADE_ROUNDS),
    bot=st.sampled_from(["random", "heuristic", "probe-spam"]),
)
def test_the_driver_plays_the_games_it_played_before_the_scheduler(
    setup: tuple[str, int], seed: int, rounds: int, bot: str
) -> None:
    rules, n = setup
    before = Game.new(rules, n, seed=seed)
    expected = play_before(before, [make_agent(bot, seed=seed + s) for s in range(n)], rounds)
    game = Game.new(rules, n, seed=seed)
    log = play(game, [make_agent(bot, seed=seed + s) for s in range(n)], max_trade_rounds=rounds)
    assert log.actions == expected
    assert game.to_dict() == before.to_dict()


@pytest.mark.patches_engine
@pytest.mark.parametrize("seed", [0, 2])
def test_the_driver_takes_a_decision_pending_after_the_last_round_as_before(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fasolufka games in which a child received in the last slot of the last round waits
    for its field (R-LADY-7): the decision is taken, then fresh rounds, as before."""
    restarts: list[int] = []

    class Counting(TradeScheduler):
        __slots__ = ()

        def _end_round(self, game: Game) -> None:
            super()._end_round(game)
            if game.pending is not None and not self.time_up and self.rounds == 0:
                restarts.append(game.turn)

    monkeypatch.setattr("bohnanza.driver.TradeScheduler", Counting)
    before = Game.new(FU, 5, seed=seed)
    agents = [make_agent("probe-spam", seed=seed + s) for s in range(5)]
    expected = play_before(before, agents, 1)
    game = Game.new(FU, 5, seed=seed)
    log = play(
        game, [make_agent("probe-spam", seed=seed + s) for s in range(5)], max_trade_rounds=1
    )
    assert restarts, "the game no longer has the case this test is about"
    assert log.actions == expected


def schedule_before(game: Game, max_trade_rounds: int) -> Generator[tuple[int, bool], bool, None]:
    """bohnanza.textarena.schedule as it was written before the scheduler (issue 14)."""
    n = game.players
    while not game.over:
        if game.phase == TRADE and game.pending is None:
            turn = game.turn
            for _ in range(max_trade_rounds):
                acted = False
                a = game.active
                for seat in [(a + i) % n for i in range(n)]:
                    if game.phase != TRADE or game.turn != turn or game.over:
                        break
                    while game.pending is not None and not game.over:
                        yield game.pending.seat, True
                    if game.phase != TRADE:
                        break
                    if game.legal_actions(seat, True):
                        acted = (yield seat, False) or acted
                if game.phase != TRADE or game.turn != turn or not acted:
                    break
            if game.phase == TRADE and game.turn == turn and game.pending is None and not game.over:
                game.apply(game.active, Action.end_trading())
            continue
        yield game.waiting_for()[0], True


def drive(steps: Generator[tuple[int, bool], bool, None], game: Game, seed: int) -> list[object]:
    """Answer a TextArena-style schedule with random agents; the decisions and actions."""
    agents = [make_agent("probe-spam", seed=seed + s) for s in range(game.players)]
    out: list[object] = []
    try:
        seat, required = next(steps)
        while True:
            legal = game.legal_actions(seat, True)
            choice = agents[seat].act(game.view(seat), legal, required)
            out.append((seat, required, choice))
            if choice is not None:
                game.apply(seat, choice)
            seat, required = steps.send(choice is not None)
    except StopIteration:
        return out


@pytest.mark.parametrize(("rules", "seed", "rounds"), [("classic", 3, 6), (FU, 0, 1), (FU, 2, 2)])
def test_the_textarena_schedule_asks_what_it_asked_before(
    rules: str, seed: int, rounds: int
) -> None:
    from bohnanza.textarena import schedule

    before = Game.new(rules, 5, seed=seed)
    expected = drive(schedule_before(before, rounds), before, seed)
    game = Game.new(rules, 5, seed=seed)
    assert drive(schedule(game, rounds), game, seed) == expected
    assert game.over and game.to_dict() == before.to_dict()


@pytest.mark.parametrize(("rules", "seed", "rounds"), [("classic", 4, 6), (FU, 0, 1), (FU, 2, 2)])
def test_the_rl_environment_asks_in_the_drivers_order(rules: str, seed: int, rounds: int) -> None:
    """Agents stepping the RL environment play the driver's game, a decision pending
    after the last round included (R-LADY-7)."""
    pytest.importorskip("pettingzoo")
    from bohnanza.rl.bohnanza_v0 import raw_env

    n = 5
    ref = Game.new(rules, n, seed=seed)
    expected = play(
        ref, [make_agent("probe-spam", seed=seed + s) for s in range(n)], max_trade_rounds=rounds
    )
    env = raw_env(rules=rules, players=n, max_trade_rounds=rounds)
    env.reset(options={"game_seed": seed})
    agents = [make_agent("probe-spam", seed=seed + s) for s in range(n)]
    game = env.game
    assert game is not None
    applied = []
    while not game.over:
        seat = env.seat
        legal = env.legal_actions(agents[seat].wants_offers(game.turn))
        choice = None
        if legal or env.required:  # the driver does not ask a seat with nothing to do
            choice = agents[seat].act(env.view(), legal, env.required)
        if choice is not None:
            applied.append((seat, choice))
        env.step_action(choice, legal)
    # The environment applies the trading time's end itself; the driver logs it.
    logged = [(s, a) for s, a in expected.actions if a != Action.end_trading()]
    assert [(s, a) for s, a in applied if a != Action.end_trading()] == logged
    assert game.to_dict() == ref.to_dict()


# ---------------------------------------------------------------------------- the one ask loop


def test_the_ask_loop_says_who_acts_whether_they_must_and_what_they_may_do() -> None:
    """AskLoop (issue 27): a pending decision's question names the decision and its
    allowed answers; a time-up question leaves one forced action."""
    game, child = fasolufka_game()
    loop = AskLoop(game)
    first = loop.next()
    assert first == Ask(0, False, SLOT) and first.forced is None and first.decision(game) is None
    assert first.may(game) == game.legal_actions(0)
    game.apply(0, Action.propose(Offer(3, (child,), ())))
    loop.answered(True)
    game.apply(3, Action.accept(max(game.offers), ()))
    ask = loop.next()
    assert ask == Ask(3, True, AskKind.PENDING)
    decision = ask.decision(game)
    assert decision is game.pending and decision is not None and decision.kind == "place_child"
    assert ask.may(game) == decision.answers(game) == game.legal_actions(3)
    assert all(a.type.value == decision.kind for a in ask.may(game))
    game.apply(3, ask.may(game)[0])
    # Everybody passes: the trading time runs out, and the active seat's end is forced.
    for ask in loop:
        if ask.forced is not None:
            break
        loop.answered(False)
    assert ask.time_up and ask.seat == game.active and ask.may(game) == [Action.end_trading()]
    assert ask.forced == Action.end_trading()


def test_the_ask_loop_is_the_one_loop_of_every_front_end() -> None:
    """The order "pending decision → waiting seat → trading round → time up" exists once:
    the driver, the terminal, TextArena, the RL environment and the web pump step through
    AskLoop, and none of them asks the scheduler or the game who is next itself."""
    src = Path(bohnanza.schedule.__file__).parent
    front_ends = ["driver.py", "terminal.py", "textarena.py", "rl/bohnanza_v0.py", "web/pump.py"]
    for name in front_ends:
        text = (src / name).read_text(encoding="utf-8")
        assert "AskLoop(" in text, name
        assert ".next(game" not in text and "scheduler.next(" not in text, name
        assert "waiting_for(" not in text, name
