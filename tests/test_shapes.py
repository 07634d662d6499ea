"""Action shapes (issue 27): every action type's parameters are declared once, on its
rule; the fields an action names, its repr and its JSON follow from the declaration; the
core enum keeps the base game's types and a module's types resolve wherever they are
named (records, pickles) before anything imported the module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bohnanza.actions import Action, ActionType, all_shapes, shape_of, takes
from bohnanza.modules import hooks_class, module_json, module_names
from bohnanza.shapes import BASE_SHAPES, ActionShape, Param, ParamKind

ROOT = Path(__file__).resolve().parent.parent

#: The fields each type named before the shapes (actions.py's former table): the shapes
#: must declare the same, or old records would be refused.
FORMER_TAKES = {
    "plant": {"field"},
    "stop_planting": set(),
    "propose": {"offer"},
    "accept": {"offer_id", "cards"},
    "decline": {"offer_id"},
    "withdraw": {"offer_id"},
    "end_trading": set(),
    "plant_traded": {"card", "field"},
    "harvest": {"field"},
    "buy_field": {"cards"},
    "move_lady": {"card"},
    "place_child": {"card", "field"},
    "discard": {"card"},
    "skip_discard": set(),
    "plant_revealed": {"card", "field"},
    "end_reveal": set(),
}


def test_the_core_enum_holds_the_base_game_and_modules_hold_theirs() -> None:
    assert [t.value for t in ActionType] == list(BASE_SHAPES)
    for value, fields in FORMER_TAKES.items():
        assert takes(ActionType(value)) == frozenset(fields), value
    assert set(FORMER_TAKES) <= set(all_shapes())


def test_every_rule_of_every_module_has_a_shape_with_both_languages() -> None:
    for module in [None, *module_names()]:
        for rule in hooks_class(module).rule_classes:
            shape = rule.shape()
            assert shape.type == rule.type.value
            assert all(shape.label) and all(shape.words) and all(shape.help), shape.type
            for p in shape.params:
                assert all(p.label), (shape.type, p)


def test_a_module_action_reprs_with_every_argument_and_pastes_back() -> None:
    from bohnanza.modules.duel import plant_revealed
    from bohnanza.modules.fasolufka import move_lady

    for action in (plant_revealed(12, 1), move_lady(None), move_lady(40)):
        text = repr(action)
        assert text.startswith("Action.of(") and eval(text) == action
    assert repr(plant_revealed(12, 1)) == "Action.of('plant_revealed', 12, 1)"
    assert repr(Action.buy_field()) == "Action.buy_field()"
    assert repr(Action.buy_field((1, 2, 3))) == "Action.buy_field((1, 2, 3))"
    odd = Action(ActionType.PLANT, field=1, card=3)  # a field its type does not take
    assert "card=3" in repr(odd)


def test_shapes_refuse_what_cannot_be_filled() -> None:
    with pytest.raises(ValueError, match="cannot fill"):
        Param(ParamKind.FIELD, "card", ("x", "x"))
    with pytest.raises(ValueError, match="two parameters fill"):
        ActionShape(
            "twice",
            (
                Param(ParamKind.FIELD, "field", ("a", "a")),
                Param(ParamKind.FIELD, "field", ("b", "b")),
            ),
        )
    with pytest.raises(ValueError, match="lower-case word"):
        ActionShape("Not A Word")
    with pytest.raises(ValueError, match="built-in"):
        ActionType.extend(ActionShape("plant"))
    with pytest.raises(ValueError, match="another shape"):
        ActionType.extend(ActionShape("discard"))  # the duel's takes a card


def test_module_types_resolve_in_a_fresh_process_before_any_module_import() -> None:
    """A record names "discard" before anything asked for the duel: the type resolves
    (the built-in modules are imported on the first unknown value)."""
    code = (
        "import sys\n"
        "from bohnanza.actions import Action, ActionType\n"
        "assert 'bohnanza.modules.duel' not in sys.modules\n"
        "a = Action.from_json({'type': 'discard', 'card': 4})\n"
        "assert a.type is ActionType('discard') and repr(a) == \"Action.of('discard', 4)\"\n"
        "print('ok')\n"
    )
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_the_page_gets_every_shape_with_the_module_info() -> None:
    info = module_json("fasolki+duel")
    types = [s["type"] for s in info["actions"]]
    assert "plant_revealed" in types and "plant" in types
    revealed = next(s for s in info["actions"] if s["type"] == "plant_revealed")
    assert [p["kind"] for p in revealed["params"]] == ["pile_card", "field"]
    assert info["action_labels"]["plant_revealed"] == list(shape_of("plant_revealed").label)
