"""The worked example of docs/modules.md and a module with an argument-free action, kept as
tests (issue 14: a new module touches at most 4 files plus its tests; issue 27: the example's
action takes a card and a field).

The guide's module file and data table are the toll fixture's (tests/fixtures/module_toll.py,
played everywhere by tests/modules/test_module_toll.py): the guide is checked against it
here, so it cannot go stale. The Compost module (tests/fixtures/module_compost.py), whose
action takes no argument, is registered from its file and played through the invariant
checker, the text commands, the terminal, the RL environment and the web strings."""

from __future__ import annotations

import re
import tomllib
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bohnanza import Game, IllegalAction
from bohnanza.actions import Action, ActionType
from bohnanza.modules import hooks_for, register_module, unregister_module
from bohnanza.testing.checker import CHEAP, check_game
from fixtures import module_compost, module_toll

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "modules.md"
TOY_RULE = module_compost.RULE


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guides_module_file_and_data_are_the_toll_fixture() -> None:
    (code,) = _blocks("python")
    fixture = ROOT / "tests" / "fixtures" / "module_toll.py"
    assert code == fixture.read_text(encoding="utf-8")
    (toml,) = _blocks("toml")
    assert tomllib.loads(toml)["modules"]["toll"] == module_toll.SPEC


@pytest.fixture(scope="module")
def compost() -> Iterator[types.ModuleType]:
    """The Compost module, registered as its data table would register it."""
    register_module("compost", module_compost.SPEC, module_compost.CompostHooks)
    try:
        yield module_compost
    finally:
        unregister_module("compost")


def _to_plant_phase_with_hand(seed: int) -> Game:
    return Game.new("fasolki+compost", 4, seed=seed)


def test_compost_moves_the_front_card_face_up_and_counts_as_a_plant_toy_rule(
    compost: types.ModuleType,
) -> None:
    game = _to_plant_phase_with_hand(1)
    seat = game.active
    front = game.hands[seat][0]
    action = Action(compost.COMPOST)
    assert action in game.legal_actions(seat)
    events = game.apply(seat, action)
    assert game.discard[-1] == front and front not in game.hands[seat]
    assert game.planted == 1 and [e.type for e in events] == ["compost"]
    assert Action(compost.COMPOST) in game.legal_actions(seat)  # a second one is allowed
    game.apply(seat, action)
    assert game.planted == 2 and game.phase == "trade"  # two cards: on to phase 2 (R-PLANT-2)


def test_compost_is_refused_out_of_turn_and_with_arguments_toy_rule(
    compost: types.ModuleType,
) -> None:
    game = _to_plant_phase_with_hand(2)
    other = (game.active + 1) % 4
    before = game.to_dict()
    with pytest.raises(IllegalAction, match=TOY_RULE):
        game.apply(other, Action(compost.COMPOST))
    with pytest.raises(IllegalAction, match="compost takes no field"):
        game.apply(game.active, Action(compost.COMPOST, field=0))
    assert game.to_dict() == before  # refused: nothing changed
    assert type(hooks_for(game.config)).__name__ == "CompostHooks"


@pytest.mark.parametrize(
    ("seed", "agents"), [(0, "random"), (1, "random"), (2, "random"), (3, "heuristic")]
)
def test_seeded_games_pass_the_invariant_checker(
    compost: types.ModuleType, seed: int, agents: str
) -> None:
    """Random bots use the new action; the heuristic bot, which does not know it, still
    plays whole games."""
    stats = check_game("fasolki+compost", 3 + seed % 3, seed, agents=agents, checks=CHEAP)
    assert stats.actions > 0 and stats.scores


def test_records_carry_the_new_action_type(compost: types.ModuleType) -> None:
    data: dict[str, Any] = Action(compost.COMPOST).to_json()
    assert data == {"type": "compost"} and Action.from_json(data).type is compost.COMPOST
    assert ActionType("compost") is compost.COMPOST


def test_text_commands_terminal_rl_and_web_strings_know_it_from_its_info(
    compost: types.ModuleType,
) -> None:
    from bohnanza.text import parse_command, render_action
    from bohnanza.web.i18n import strings

    game = _to_plant_phase_with_hand(3)
    view = game.view(game.active)
    action = Action(compost.COMPOST)
    assert render_action(action, view) == "compost"
    assert parse_command("compost", view) == action
    from bohnanza.agents import make_agent
    from bohnanza.terminal import TerminalGame

    others = {s: make_agent("random", s) for s in range(4) if s != game.active}
    term = TerminalGame(game, game.active, others, read=input, write=print)
    assert term.describe(action, view) == "compost the front card"
    events = [e.to_json() for e in game.apply(game.active, action)]
    assert term._event_lines(events)  # the new event is told, not a crash
    game = _to_plant_phase_with_hand(3)
    ui = strings()["ui"]
    assert ui["en"]["rules.fasolki+compost"] == "Fasolki + Compost"
    assert ui["pl"]["rules.fasolki+compost"] == "Fasolki + Kompost"

    pytest.importorskip("pettingzoo")
    from bohnanza.rl import bohnanza_v0

    env = bohnanza_v0.raw_env(rules="fasolki+compost", players=4)
    env.reset(seed=3)
    enc = env.encoding
    index = enc.segments["compost"][0]
    assert enc.describe(index) == "compost"
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][index] == 1
    seat = env.seat
    env.step(index)
    assert env.game is not None and env.game.planted == 1 and env.game.active == seat
