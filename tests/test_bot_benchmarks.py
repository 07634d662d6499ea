"""The bot benchmarks that issues 34 and 36 report from: ``benchmarks/policy_screen.py``
(its opponents' settings) and ``benchmarks/heuristic_census.py`` (its counts)."""

from __future__ import annotations

import pytest

import bohnanza
from bohnanza import Game
from bohnanza.agents.heuristic import HeuristicAgent, Position
from bohnanza.driver import play
from bohnanza.seeding import agent_seed
from scripts import load_script


@pytest.mark.parametrize("seed", [40001, 40002])
def test_policy_screen_opponents_are_the_bots_named(seed: int) -> None:
    """A screen against three ``heuristic:hc0.1`` scores the changed seat on the very game
    those three bots play: the share it reports is the one a direct game gives."""
    screen = load_script("benchmarks/policy_screen.py")
    variant = {"_field_gain": 0.9, "_hand_card": 0.1}
    share = screen.one((variant, {"hand_card": 0.1}, seed))
    seat = seed % 4
    agents = [HeuristicAgent(agent_seed(seed, s), hand_card=0.1) for s in range(4)]
    agents[seat] = HeuristicAgent(agent_seed(seed, seat), field_gain=0.9, hand_card=0.1)
    game = Game.new("classic", 4, seed=seed)
    play(game, agents)
    assert game.winners is not None
    assert share == (1.0 / len(game.winners) if seat in game.winners else 0.0)


def test_policy_screen_reads_lists_as_tuples() -> None:
    screen = load_script("benchmarks/policy_screen.py")
    assert screen._kwargs({"rivalry": [0.5, 4.0, 1.0], "hand_card": 0.1}) == {
        "rivalry": (0.5, 4.0, 1.0),
        "hand_card": 0.1,
    }


@pytest.mark.skipif(bohnanza.compiled_core(), reason="the compiled bot cannot be wrapped")
def test_heuristic_census_counts_and_restores() -> None:
    census = load_script("benchmarks/heuristic_census.py")
    act, plan = HeuristicAgent.act, Position.plan
    n = census.census("classic", 4, range(3, 5))
    # The bot is itself again afterwards.
    assert HeuristicAgent.act is act and Position.plan is plan
    assert n["valuation contexts"] > 0 and n["placements computed afresh"] > 0
    own = n["plans: distinct"] + n["plans: valued again in the same context"]
    assert 0 < own <= n["plans: valued"]
    for who in ("active seat", "other seats"):
        lists = n[f"offer lists: by the {who}"]
        assert lists > 0 and n[f"offer lists: by the {who}, none worth making"] <= lists
    # Every offer list is built for a phase-2 ask.
    asks = n["decisions: phase-2 ask, acted"] + n["decisions: phase-2 ask, passed"]
    assert n["offer lists: by the active seat"] + n["offer lists: by the other seats"] <= asks
