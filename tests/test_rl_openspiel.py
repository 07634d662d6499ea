"""Bohnanza as an OpenSpiel game (bohnanza.rl.openspiel, docs/rl.md): OpenSpiel's own
random-simulation test on every rule set and module, information that hides what it
must, and the ``openspiel-ismcts:SIMS`` agent. Skipped without the open-spiel wheel."""

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
#: Steps per simulated game (OPENSPIEL_STEPS=0 plays whole games: minutes each).
STEPS = int(os.environ.get("OPENSPIEL_STEPS", "40"))
SIMS = int(os.environ.get("OPENSPIEL_SIMS", "1"))


@pytest.mark.parametrize("config", CONFIGS, ids=[f"{r}-{p}p{o}" for r, p, o in CONFIGS])
def test_openspiel_random_simulation(config: tuple[str, int, str]) -> None:
    rules, players, options = config
    game = bos.load(rules, players, options, max_steps=STEPS)
    assert game.num_players() == players
    assert game.num_distinct_actions() == game.template.n_actions
    pyspiel.random_sim_test(game, num_sims=SIMS, serialize=False, verbose=False)


def test_chance_root_legal_actions_and_returns() -> None:
    game = bos.load("classic", 3, max_steps=30)
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert len(state.chance_outcomes()) == bos.CHANCE_SEEDS
    state.apply_action(7)
    assert state.current_player() == 0
    rng = random.Random(1)
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal
        state.apply_action(rng.choice(legal))
    r = state.returns()
    assert len(r) == 3 and all(-1.0 <= x <= 1.0 for x in r)


def test_information_state_hides_other_hands() -> None:
    # R-INFO-1/3: a resampled world (other hands dealt anew) reads the same for the
    # acting seat, and differs in the hidden cards.
    game = bos.load("classic", 3)
    state = game.new_initial_state()
    state.apply_action(3)
    for _ in range(20):
        state.apply_action(state.legal_actions()[0])
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


def test_ismcts_spec_and_bad_parameters() -> None:
    agent = make_agent("openspiel-ismcts:3", 1)
    assert isinstance(agent, bos.ISMCTSAgent) and agent.sims == 3
    with pytest.raises(ConfigError):
        make_agent("openspiel-ismcts:zero", 1)


def test_ismcts_game_finishes_against_bots() -> None:
    # The duel is the shortest game; in a trading rule set the agent answers a few
    # questions with legal actions (a whole game takes about 40 s at 5 simulations).
    cfg = make_config("fasolki+duel", 2)
    game = Game(cfg, seed=3)
    agents = [make_agent("openspiel-ismcts:2", 1), make_agent("heuristic", 2)]
    play(game, agents)
    assert game.over and game.scores is not None
    assert agents[0].stats()["search_steps"] > 0


def test_ismcts_answers_trading_questions_legally() -> None:
    cfg = make_config("classic", 3)
    game = Game(cfg, seed=4)
    agent = make_agent("openspiel-ismcts:2", 5)
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
