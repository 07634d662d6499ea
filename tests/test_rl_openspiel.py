"""Bohnanza as an OpenSpiel game (bohnanza.rl.openspiel, docs/rl.md): OpenSpiel's own
random-simulation test on every rule set and module (states serialised and loaded again), information that hides what it
must, resampling that keeps to what the seat saw, the value leaf, and the
``openspiel-ismcts:SIMS[:value]`` agent. Skipped without the open-spiel wheel."""

from __future__ import annotations

import os
import random

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")
pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("open_spiel.python.algorithms.ismcts")

from bohnanza import Game  # noqa: E402
from bohnanza.agents import make_agent  # noqa: E402
from bohnanza.driver import play  # noqa: E402
from bohnanza.errors import ConfigError  # noqa: E402
from bohnanza.rl import openspiel as bos  # noqa: E402
from bohnanza.rules import all_rulesets, make_config  # noqa: E402

CONFIGS = [(r["rules"], r["min_players"], "") for r in all_rulesets()] + [
    ("classic", 4, ""),
    ("fasolki+new-varieties", 4, "remove=glutton"),
]


def _every_player_count() -> list[tuple[str, int, str]]:
    out = []
    for r in all_rulesets():
        need = r["options"].get("remove", {}).get("required_for_players", [])
        for n in range(r["min_players"], r["max_players"] + 1):
            config = (r["rules"], n, "remove=glutton" if n in need else "")
            if config not in CONFIGS:
                out.append(config)
    return out


#: The other player counts of every rule set (fewer steps: mostly the deal and a turn).
MORE_CONFIGS = _every_player_count()
#: Steps per simulated game (OPENSPIEL_STEPS=0 plays whole games: minutes each).
STEPS = int(os.environ.get("OPENSPIEL_STEPS", "40"))
SIMS = int(os.environ.get("OPENSPIEL_SIMS", "1"))


@pytest.mark.parametrize("config", CONFIGS, ids=[f"{r}-{p}p{o}" for r, p, o in CONFIGS])
def test_openspiel_random_simulation(config: tuple[str, int, str]) -> None:
    rules, players, options = config
    game = bos.load(rules, players, options, max_steps=STEPS)
    assert game.num_players() == players
    assert game.num_distinct_actions() == game.template.n_actions
    pyspiel.random_sim_test(game, num_sims=SIMS, serialize=True, verbose=False)


@pytest.mark.parametrize("config", MORE_CONFIGS, ids=[f"{r}-{p}p{o}" for r, p, o in MORE_CONFIGS])
def test_openspiel_random_simulation_every_player_count(config: tuple[str, int, str]) -> None:
    rules, players, options = config
    game = bos.load(rules, players, options, max_steps=min(STEPS, 25) if STEPS else 0)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def _sample(state, rng: random.Random) -> int:
    outcomes = state.chance_outcomes()
    return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]


def _play(state, rng: random.Random, until=None, limit: int = 100_000) -> int:
    """Random play (chance by its probabilities); returns the steps taken."""
    steps = 0
    while not state.is_terminal() and steps < limit and not (until and until(state)):
        if state.is_chance_node():
            state.apply_action(_sample(state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    return steps


def _class_shares(game, cards) -> list[tuple[int, float]]:
    count: dict[int, int] = {}
    for c in cards:
        k = game.classes.of_card[c]
        count[k] = count.get(k, 0) + 1
    total = sum(count.values())
    return [(k, count[k] / total) for k in sorted(count)]


def test_the_deal_is_one_chance_node_per_card() -> None:
    # R-SETUP-*: the hands are dealt from the shuffled deck, one card per chance node,
    # each over the distinct cards left with their shares.
    game = bos.load("classic", 3, max_steps=30)
    cfg = game.config
    state = game.new_initial_state()
    rng = random.Random(5)
    dealt: list[int] = []
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        left = [c for c in range(cfg.deck_size) if c not in state._fixed]
        assert outcomes == _class_shares(game, left)
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        a = _sample(state, rng)
        dealt.append(a)
        state.apply_action(a)
    assert len(dealt) == sum(cfg.hand_sizes)
    hands = state.env.game.hands
    assert [game.classes.of_card[c] for h in hands for c in h] == dealt
    assert state.current_player() == 0
    # What the chance nodes chose, and nothing else, decides the deal.
    again = game.new_initial_state()
    for a in dealt:
        again.apply_action(a)
    assert again.env.game.hands == hands
    with pytest.raises(ValueError, match="not a chance outcome"):
        bad = game.new_initial_state()
        bad.apply_action(len(game.classes))  # no such class
    _play(state, rng)
    r = state.returns()
    assert len(r) == 3 and all(-1.0 <= x <= 1.0 for x in r)


@pytest.mark.parametrize("rules", ["classic", "fasolki+fasolufka", "fasolki+duel"])
def test_every_draw_is_a_chance_node_over_the_pile(rules: str) -> None:
    # R-DECK-1: each card an action draws (the face-up cards of phase 2, the hand
    # refill, the duel's reveals, a Fasolufka child) is its own chance node over the
    # cards left in the draw pile; the action takes effect when its cards are chosen.
    players = 2 if rules == "fasolki+duel" else 3
    game = bos.load(rules, players, recall=False)
    state = game.new_initial_state()
    rng = random.Random(11)
    _play(state, rng, until=lambda s: not s.is_chance_node())
    checked = counted = 0
    actions = 0
    while not state.is_terminal() and actions < 3000:
        before = state.env.game
        pile, runouts = list(before.draw), before.runouts
        state.apply_action(rng.choice(state.legal_actions()))
        actions += 1
        draws = 0
        while state.is_chance_node():
            assert state.env.game is before, "the action took effect before its cards"
            if draws < len(pile):
                assert state.chance_outcomes() == _class_shares(
                    game, [c for c in pile if c not in state._fixed]
                )
                checked += 1
            state.apply_action(_sample(state, rng))
            draws += 1
        after = state.env.game
        if after.runouts == runouts and len(after.draw) <= len(pile):
            # No reshuffle: every card the pile lost was a chance node.
            assert draws == len(pile) - len(after.draw)
            counted += draws
    assert checked > 20 and counted > 20


def test_draws_after_a_reshuffle_are_chance_nodes_over_the_discard_pile() -> None:
    # R-DECK-1: an empty draw pile is refilled from the shuffled discard pile; the cards
    # drawn from it are chance nodes over the discard pile's cards.
    game = bos.load("classic", 3, recall=False)
    g = Game(make_config("classic", 3), seed=2, events=False)
    g.discard, g.draw = g.draw[:-1], g.draw[-1:]  # one card left to draw
    g.invalidate_views()
    env = game.template.clone()
    env.set_game(g)
    state = bos.BohnanzaState(game, env)
    rng = random.Random(3)
    seen = 0
    while seen == 0:
        assert not state.is_terminal()
        if not state.is_chance_node():
            discard = list(state.env.game.discard)
            first = len(state.env.game.draw)
            state.apply_action(rng.choice(state.legal_actions()))
            continue
        k = len(state._fixed)
        if k >= first:  # from the reshuffled pile
            assert state.chance_outcomes() == _class_shares(
                game, [c for c in discard if c not in state._fixed[first:]]
            )
            seen += 1
        state.apply_action(_sample(state, rng))
    _play(state, rng, until=lambda s: not s.is_chance_node())
    g = state.env.game
    assert g.runouts == 1 and len(g.draw) > 100  # the first pile ran out; drawing the new one
    g._validate()


def test_information_state_ignores_hidden_cards() -> None:
    # R-INFO-1/3: two games whose deals differ only in seat 1's last hand card, played
    # with the same chance outcomes and actions, read the same to seats 0 and 2 (string
    # and tensor, the history included) until seat 1 first acts; seat 1 tells them apart.
    game = bos.load("classic", 3)
    sizes = game.config.hand_sizes
    rng = random.Random(8)
    a, b = game.new_initial_state(), game.new_initial_state()
    for i in range(sum(sizes)):
        x = _sample(a, rng)
        y = x
        if i == sizes[0] + sizes[1] - 1:  # seat 1's last card: another variety
            y = next(c for c, _ in b.chance_outcomes() if c != x)
        a.apply_action(x)
        b.apply_action(y)
    assert a.env.game.hands[1] != b.env.game.hands[1]
    assert a.information_state_string(1) != b.information_state_string(1)
    steps = 0
    while a.current_player() != 1:
        assert a.current_player() == b.current_player()
        for seat in (0, 2):
            assert a.information_state_string(seat) == b.information_state_string(seat)
            assert a.information_state_tensor(seat) == b.information_state_tensor(seat)
            assert a.observation_string(seat) == b.observation_string(seat)
        if a.is_chance_node():
            both = {c for c, _ in a.chance_outcomes()} & {c for c, _ in b.chance_outcomes()}
            x = rng.choice(sorted(both))
        else:
            assert a.legal_actions() == b.legal_actions()
            x = rng.choice(a.legal_actions())
        a.apply_action(x)
        b.apply_action(x)
        steps += 1
    assert steps > 5


def test_information_state_has_perfect_recall() -> None:
    # The information state remembers what the observation forgets: a draft opened and
    # cancelled leaves the observation as it was, not the information state; and it
    # differs from the observation string and tensor.
    game = bos.load("classic", 3)
    state = game.new_initial_state()
    rng = random.Random(4)
    want = game.template.builder.segments["want"][0]
    cancel = game.template.builder.segments["cancel"][0]
    _play(
        state,
        rng,
        until=lambda s: (
            not s.is_chance_node()
            and any(want <= i < want + game.template.encoding.v for i in s.legal_actions())
        ),
    )
    p = state.current_player()
    obs, info = state.observation_string(p), state.information_state_string(p)
    assert info != obs
    assert len(state.information_state_tensor(p)) == len(state.observation_tensor(p)) + 257
    state.apply_action(next(i for i in state.legal_actions() if want <= i))
    assert state.current_player() == p and cancel in state.legal_actions()
    state.apply_action(cancel)
    assert state.observation_string(p) == obs
    assert state.information_state_string(p) != info
    assert state.information_state_tensor(p) != list(np.asarray(state.observation_tensor(p)))
    # The other seats saw nothing of the draft.
    other = (p + 1) % 3
    clone = state.clone()
    assert clone.information_state_string(other) == state.information_state_string(other)


def test_resampled_worlds_keep_the_information_state() -> None:
    # R-INFO-1/3: a resampled world (other hands dealt anew) reads the same for the
    # acting seat, and differs in the hidden cards.
    game = bos.load("classic", 3)
    state = game.new_initial_state()
    rng = random.Random(3)
    _play(state, rng, until=lambda s: not s.is_chance_node())
    for _ in range(20):
        _play(state, rng, limit=1)
        _play(state, rng, until=lambda s: not s.is_chance_node())
    p = state.current_player()
    other = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert other.information_state_string(p) == state.information_state_string(p)
    assert np.array_equal(
        np.asarray(other.information_state_tensor(p)), np.asarray(state.information_state_tensor(p))
    )
    hidden = [(p + 1) % 3, (p + 2) % 3]
    assert any(other.env.game.hands[s] != state.env.game.hands[s] for s in hidden), (
        "resampling dealt the same hidden cards"
    )


def test_no_history_game_has_no_information_state() -> None:
    game = bos.load("classic", 3, recall=False)
    with pytest.raises(Exception, match="recall"):
        game.new_initial_state().information_state_string(0)


def _resample_module():
    import runpy
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    return runpy.run_path(str(root / "benchmarks" / "openspiel_resample.py"))


def test_resampling_keeps_a_withdrawn_offer_in_the_offerers_hand() -> None:
    # Issue 56: a seat offers two hand cards of one variety (the others see the variety,
    # R-TRADE-3) and withdraws the offer; the cards are still in its hand. Every world
    # resampled from another seat's information state must give them to it (the view
    # alone, without the seat's memory, left it none of them in about half the worlds).
    bench = _resample_module()
    game = bos.load("classic", 3)
    got = bench["withdrawn_offer"](game, 1)
    assert got is not None
    state, offerer, variety = got
    assert not any(p == offerer for p, _ in state.env.game.offers.values())
    assert bench["holds"](state, offerer, variety) >= 2
    observer = (offerer + 1) % 3
    bare = state.clone()
    bare._seen = [None] * 3
    rng = random.Random(2)
    n = 40
    kept = [bench["holds"](state.resample_from_infostate(observer, rng.random), offerer, variety)]
    kept += [
        bench["holds"](state.resample_from_infostate(observer, rng.random), offerer, variety)
        for _ in range(n - 1)
    ]
    assert all(k >= 2 for k in kept), kept
    view_only = [
        bench["holds"](bare.resample_from_infostate(observer, rng.random), offerer, variety)
        for _ in range(n)
    ]
    assert sum(k >= 2 for k in view_only) < n / 2  # what the memory fixes
    # The resampled worlds still read the same to the observer.
    world = state.resample_from_infostate(observer, rng.random)
    assert world.information_state_string(observer) == state.information_state_string(observer)


def test_each_seat_remembers_its_views_and_clones_share_nothing_they_change() -> None:
    # The state keeps every seat's memory (with the history); a clone played on leaves
    # the original's memory as it was (copied before it learns); recall=False keeps none.
    game = bos.load("classic", 3)
    state = game.new_initial_state()
    rng = random.Random(6)
    _play(state, rng, limit=400)
    assert all(m is not None and m.views > 0 for m in state._seen)
    before = [(m, m.views, dict(m.known())) for m in state._seen]
    clone = state.clone()
    _play(clone, rng, limit=400)
    assert [(m, m.views, dict(m.known())) for m in state._seen] == before
    assert any(a is not b for a, b in zip(clone._seen, state._seen, strict=True))
    bare = bos.load("classic", 3, recall=False).new_initial_state()
    _play(bare, rng, limit=50)
    assert bare._seen == [None] * 3


def test_value_evaluator_returns_and_terminal_returns() -> None:
    # The value leaf: every seat's predicted final coins turned into returns in [-1, 1]
    # (a seat predicted ahead gets more than one predicted behind); a finished game's
    # returns are its real ones.
    game = bos.load("classic", 3, recall=False)
    ev = bos.ValueEvaluator()
    coin = bos.CoinEvaluator()
    state = game.new_initial_state()
    rng = random.Random(9)
    seen = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(_sample(state, rng))
            continue
        if seen < 30 and rng.random() < 0.02:
            r = ev.evaluate(state)
            assert r.shape == (3,) and np.all(np.abs(r) <= 1.0)
            assert np.all(np.abs(coin.evaluate(state)) <= 1.0)
            seen += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert seen >= 10 and ev.leaves == seen
    assert list(ev.evaluate(state)) == state.returns()
    assert sorted(state.returns())[-1] >= 0.0  # a winner: +1, or 0 when shared
    finals = [3.0, 9.0, 6.0]
    sd = bos.standing(finals)
    assert sd[1] > sd[2] > sd[0] and np.all(np.abs(sd) < 1.0)


def test_ismcts_spec_and_bad_parameters() -> None:
    agent = make_agent("openspiel-ismcts:3", 1)
    assert isinstance(agent, bos.ISMCTSAgent) and agent.sims == 3 and agent.leaf == "coin"
    agent = make_agent("openspiel-ismcts:4:value", 1)
    assert agent.sims == 4 and isinstance(agent.evaluator, bos.ValueEvaluator)
    assert make_agent("openspiel-ismcts:4:coin", 1).leaf == "coin"
    for bad in ("zero", "0", "3:rollout", "3:value:x", ":value"):
        with pytest.raises(ConfigError):
            make_agent(f"openspiel-ismcts:{bad}", 1)
    with pytest.raises(ValueError, match="LEAF"):
        bos.ISMCTSAgent.spec_params("3:nope")
    with pytest.raises(ValueError, match="leaf"):
        bos.ISMCTSAgent(1, sims=2, leaf="nope")


@pytest.mark.parametrize("spec", ["openspiel-ismcts:2", "openspiel-ismcts:2:value"])
def test_ismcts_game_finishes_against_bots(spec: str) -> None:
    # The duel is the shortest game; in a trading rule set the agent answers a few
    # questions with legal actions (a whole game takes about 40 s at 5 simulations).
    # The driver checks every action the agent plays (a wrong one raises).
    cfg = make_config("fasolki+duel", 2)
    game = Game(cfg, seed=3)
    agents = [make_agent(spec, 1), make_agent("heuristic", 2)]
    play(game, agents)
    assert game.over and game.scores is not None
    assert agents[0].stats()["search_steps"] > 0


@pytest.mark.parametrize("spec", ["openspiel-ismcts:2", "openspiel-ismcts:2:value"])
def test_ismcts_answers_trading_questions_legally(spec: str) -> None:
    # Both leaves; the agent remembers every view it is given (its memory deals the
    # worlds of its searches).
    cfg = make_config("classic", 3)
    game = Game(cfg, seed=4)
    agent = make_agent(spec, 5)
    bot = make_agent("heuristic", 6)
    asked = 0
    for _ in range(400):
        if game.over or asked >= 6:
            break
        seat = game.waiting_for()[0]
        legal = game.legal_actions(seat, False)
        if seat == 0:
            action = agent.act(game.view(seat), legal, True)
            assert action is not None
            assert game.is_legal(seat, action), action
            asked += 1
        else:
            action = bot.act(game.view(seat), game.legal_actions(seat), True)
            assert action is not None
        game.apply(seat, action)
    assert asked >= 6
    assert agent.seen.views == asked
    stats = agent.stats()
    assert stats["legal_actions"] >= stats["search_steps"] >= stats["leaf_without_say"] > 0
    if spec.endswith(":value"):
        assert agent.stats()["value_leaves"] > 0


def test_tournament_summary_counts_seats_and_meetings(tmp_path) -> None:
    # benchmarks/openspiel_ismcts.py --summarise (docs/bots.md): a mixed line-up's win
    # shares per seat played, and head-to-head shares that add up to one per pair.
    import json
    import runpy
    import subprocess
    import sys
    from pathlib import Path

    out = tmp_path / "t"
    line_up = ["-a", "random,random,heuristic", "-n", "3", "-w", "1", "--seed", "1"]
    subprocess.run(
        [sys.executable, "-m", "bohnanza", "tournament", *line_up, "-o", str(out), "--no-plots"],
        check=True,
        capture_output=True,
    )
    root = Path(__file__).resolve().parent.parent
    module = runpy.run_path(str(root / "benchmarks" / "openspiel_ismcts.py"))
    got = module["summarise"](str(out))
    assert got["games"] == 3
    agents = got["agents"]
    assert agents["random"]["seat_games"] == 6 and agents["heuristic"]["seat_games"] == 3
    total = 6 * agents["random"]["win_share"] + 3 * agents["heuristic"]["win_share"]
    assert abs(total - 3.0) < 0.01  # one win (or its shares) a game
    pair = got["scored_more_than"]
    a, b = pair["random > heuristic"]["share"], pair["heuristic > random"]["share"]
    assert abs(a + b - 1.0) < 0.01
    lo, hi = agents["heuristic"]["wilson95"]
    assert 0.0 <= lo <= agents["heuristic"]["win_share"] <= hi <= 1.0
    json.dumps(got)


def test_ismcts_in_a_tournament_plays_without_a_forfeit(tmp_path) -> None:
    """The agent through the tournament's worker, as a user runs it: a compiled build
    once forfeited every game here (its encoding could not be pickled or copied)."""
    import json

    from click.testing import CliRunner

    from bohnanza.cli import main

    out = tmp_path / "t"
    args = ["tournament", "-a", "openspiel-ismcts:2,heuristic,autarky", "-n", "1", "-w", "1"]
    result = CliRunner().invoke(main, [*args, "--no-plots", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["games"] == 1 and summary["forfeits"] == 0, summary
