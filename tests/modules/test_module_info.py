"""One module registry derived from the data file, and each module's ModuleInfo (issue 14):
the code outside ``bohnanza.modules`` reads these instead of module names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bohnanza.actions import Action, ActionType
from bohnanza.cards import catalogue
from bohnanza.errors import ConfigError
from bohnanza.modules import (
    Hooks,
    hooks_class,
    hooks_for,
    info_for_rules,
    module_info,
    module_names,
    register_module,
    unregister_module,
)
from bohnanza.modules.info import BASE_INFO, ModuleInfo
from bohnanza.rules import all_rulesets, make_config

SRC = Path(__file__).resolve().parents[2] / "src" / "bohnanza"


def test_the_module_list_is_the_data_files() -> None:
    assert module_names() == tuple(catalogue()["modules"])
    names = [r["rules"] for r in all_rulesets()]
    assert names == ["classic", "first-edition", "fasolki"] + [
        f"fasolki+{m}" for m in module_names()
    ]


@pytest.mark.parametrize("module", list(catalogue()["modules"]))
def test_each_module_finds_its_hooks_and_its_info_agrees_with_them(module: str) -> None:
    cls = hooks_class(module)
    assert issubclass(cls, Hooks) and cls.__module__.startswith("bohnanza.modules.")
    info = module_info(module)
    assert isinstance(info, ModuleInfo)
    assert info_for_rules(f"fasolki+{module}") is info
    # The flags the engine reads from the hooks and those the outside reads agree.
    assert info.trading == cls.trading
    assert info.own_treasury_visible == cls.own_treasury_visible
    assert set(info.phases) <= cls.phases
    assert set(info.phase_labels) == set(info.phases)
    assert set(info.hint_phases) <= set(info.phases)
    assert set(info.hand_discard_phases) <= set(info.phases)
    for labels in (*info.phase_labels.values(), *info.action_labels.values()):
        assert len(labels) == 2 and all(labels)  # EN and PL
    for value in info.action_labels:
        ActionType(value)  # a real action type


def test_the_base_game_has_the_base_info() -> None:
    assert module_info(None) is BASE_INFO
    assert info_for_rules("classic") is BASE_INFO
    assert BASE_INFO.trading and not BASE_INFO.phases


def test_module_info_is_read_only() -> None:
    info = module_info("duel")
    with pytest.raises(AttributeError):
        info.trading = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        info.phase_labels["x"] = ("a", "b")  # type: ignore[index]
    mine = ModuleInfo(action_labels={"x": ("a", "b")})
    with pytest.raises(TypeError):
        mine.action_labels["y"] = ("c", "d")  # type: ignore[index]


def test_to_json_is_plain_json() -> None:
    data = module_info("duel").to_json()
    assert data["phases"] == ["duel_offer", "duel_discard", "duel_reveal"]
    assert data["hand_discard_phases"] == ["duel_discard"]
    assert data["public"] == ["offer", "revealed"] and data["trading"] is False
    assert module_info("fasolufka").to_json()["buyer_chooses_coins"] is True
    assert module_info("fasolkopajaki").to_json()["declarations"] is True


def test_no_module_names_in_code_outside_modules() -> None:
    """The rule engine's consumers branch on ModuleInfo, not on names: no comparison with
    a module's name or one of its phases is left outside ``bohnanza.modules`` (comments and docs may name them)."""
    words = [*module_names(), *(p for m in module_names() for p in module_info(m).phases)]
    names = "|".join(re.escape(w) for w in words)
    compare = re.compile(rf"""(==|!=|\bin)\s*\(?\s*["']({names})["']|["']({names})["']\s*(==|!=)""")
    found = []
    for path in [*SRC.rglob("*.py"), *SRC.rglob("*.js")]:
        if "modules" in path.relative_to(SRC).parts:
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if compare.search(line):
                found.append(f"{path.relative_to(SRC)}:{i}: {line.strip()}")
    assert not found, found


class _Toy(Hooks):
    info = ModuleInfo(action_labels={"plant": ("plant", "zasadź")})


def test_register_and_unregister_a_module() -> None:
    with pytest.raises(ConfigError, match="unknown module"):
        make_config("fasolki+toy-registry", 4)
    register_module("toy-registry", {"players": [3, 5]}, _Toy)
    try:
        assert "toy-registry" in module_names()
        cfg = make_config("fasolki+toy-registry", 4)
        assert type(hooks_for(cfg)) is _Toy and module_info("toy-registry") is _Toy.info
        assert "fasolki+toy-registry" in [r["rules"] for r in all_rulesets()]
    finally:
        unregister_module("toy-registry")
    assert "toy-registry" not in module_names()
    with pytest.raises(ConfigError):
        make_config("fasolki+toy-registry", 4)


def test_bad_registrations_are_refused() -> None:
    with pytest.raises(ConfigError, match="Hooks subclass"):
        register_module("toy-bad", {"players": [3, 5]}, object)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="already in the data file"):
        register_module("duel", {"players": [2, 2]}, _Toy)
    assert "toy-bad" not in module_names()
    assert hooks_class("duel").__name__ == "DuelHooks"  # unchanged


def test_extended_action_types_behave_like_members() -> None:
    t = ActionType.extend("toy_action")
    assert ActionType.extend("toy_action") is t and ActionType("toy_action") is t
    assert Action.from_json(Action(t).to_json()) == Action(t)
    assert t not in list(ActionType)  # the built-in list is unchanged
    with pytest.raises(ValueError, match="built-in"):
        ActionType.extend("plant")
    with pytest.raises(ValueError, match="lower-case word"):
        ActionType.extend("Not A Word")
