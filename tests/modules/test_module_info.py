"""One module registry derived from the data file, and each module's ModuleInfo (issue 14):
the code outside ``bohnanza.modules`` reads these instead of module names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bohnanza.actions import Action, ActionType
from bohnanza.cards import catalogue, varieties
from bohnanza.errors import ConfigError
from bohnanza.game import Game
from bohnanza.modules import (
    Hooks,
    hooks_class,
    hooks_for,
    info_for_rules,
    module_info,
    module_names,
    module_shapes,
    register_module,
    unregister_module,
)
from bohnanza.modules.info import BASE_INFO, ModuleInfo
from bohnanza.rules import all_rulesets, make_config
from bohnanza.shapes import BASE_SHAPES

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


def _generic_code() -> list[Path]:
    """The .py and .js files outside ``bohnanza.modules``: the engine's consumers."""
    return [
        path
        for path in sorted([*SRC.rglob("*.py"), *SRC.rglob("*.js")])
        if "modules" not in path.relative_to(SRC).parts
    ]


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """A file's lines without comment lines and without ``double-backquoted`` spans (a
    docstring's example may name a module's words)."""
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip().startswith(("#", "//")):
            continue
        out.append((i, re.sub(r"``.*?``", "", line)))
    return out


def test_no_module_names_in_code_outside_modules() -> None:
    """The rule engine's consumers branch on ModuleInfo, not on names: no comparison with
    a module's name or one of its phases is left outside ``bohnanza.modules`` (comments and docs may name them)."""
    words = [*module_names(), *(p for m in module_names() for p in module_info(m).phases)]
    names = "|".join(re.escape(w) for w in words)
    compare = re.compile(rf"""(==|!=|\bin)\s*\(?\s*["']({names})["']|["']({names})["']\s*(==|!=)""")
    found = []
    for path in _generic_code():
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if compare.search(line):
                found.append(f"{path.relative_to(SRC)}:{i}: {line.strip()}")
    assert not found, found


def _module_words() -> dict[str, str]:
    """Each word that belongs to one module, with what it is, taken from the modules'
    data and declarations (a new module is covered without touching this test): the
    varieties a module adds, the card kinds of its cards (card data, ``ModuleInfo.kinds``),
    the event keys its wordings test (``EventLabel.when``), its own action types and its
    phases. A word the base game also uses is left out, since the base game may name it:
    the classic game's Red bean (a Fasolkopająk's colour is "red" too), the state's
    "discard" pile (the duel's action "discard")."""
    data = catalogue()
    base: set[str] = set()
    for ruleset in data["rulesets"].values():
        base |= set(ruleset.get("varieties", []))
    base |= set(BASE_SHAPES)
    base |= set(Game(make_config("fasolki", 4), seed=1).to_dict())
    base |= set(Hooks.phases)
    words: dict[str, str] = {}
    for name in module_names():
        spec = data["modules"][name]
        info = module_info(name)
        for v in spec.get("add", []):
            words[v] = f"a variety of {name}"
        cfg = make_config(f"fasolki+{name}", max(spec["players"]) if "players" in spec else 4)
        for kind in {*cfg.card_kind, *info.kinds} - {""}:
            words[kind] = f"a card kind of {name}"
        for labels in (*info.event_labels.values(), *info.event_notes.values()):
            for label in labels:
                for key in label.when:
                    words[key] = f"an event key of {name}"
        for shape in module_shapes(f"fasolki+{name}"):
            if shape["type"] not in BASE_SHAPES:
                words[shape["type"]] = f"an action type of {name}"
        for phase in info.phases:
            words[phase] = f"a phase of {name}"
    return {w: what for w, what in words.items() if w not in base}


#: Generic files allowed to name a module's word, and why (kept short: each entry is a
#: place where the knowledge has not moved into the module yet, or is not module
#: knowledge at all). Paths relative to src/bohnanza.
ALLOWED_WORDS: dict[str, tuple[set[str], str]] = {
    # A bot's strategy may value particular cards (a Farmer pair, a lady under a child,
    # a black Fasolkopająk declared red); it reads the rules through ModuleInfo and the
    # shapes and imports no module (test below).
    "agents/heuristic.py": ({"fasolkopajak", "farmer", "lady", "child", "black"}, "strategy"),
    # Frozen baseline: must not change (tests/test_heuristic_v1.py).
    "agents/heuristic_v1.py": ({"fasolkopajak", "farmer", "lady", "child", "black"}, "frozen"),
    # To move: the determiniser's bluff classes (R-BLUFF-1) could read
    # EncodingHints.give_classes; the page's declaration picker (R-BLUFF-1) could offer
    # what Hooks.declarations lists; Pending's argument kinds name Fasolufka's "child".
    "determinise.py": ({"black"}, "to move"),
    "web/static/table.js": ({"black"}, "to move"),
    "game.py": ({"child"}, "to move"),
    "state.py": ({"child"}, "to move"),  # where game.py's pending decisions are moving
    # Not a card: a plot's colour.
    "tournament/suite.py": ({"black"}, "matplotlib"),
}
#: The deprecated ``Action.move_lady()``… and ``ActionType.MOVE_LADY``… (until 0.3.0)
#: name the module action types they stand for.
DEPRECATED = "actions.py"


def test_no_module_words_in_code_outside_modules() -> None:
    """No module's variety, card kind, event key, action type or phase is written as a
    string literal outside ``bohnanza.modules`` (ALLOWED_WORDS aside): the front ends and
    bots read what a module declares (ModuleInfo: kinds, variety_notes, event_notes…)."""
    words = _module_words()
    assert {"farmer", "lady", "black", "farmer_field", "gardener_lady", "move_lady"} <= set(words)
    literal = re.compile(
        rf"""(?<![\w.])(["'])({"|".join(re.escape(w) for w in sorted(words))})\1"""
    )
    found = []
    used = set()
    for path in _generic_code():
        rel = path.relative_to(SRC).as_posix()
        allowed = ALLOWED_WORDS.get(rel, (set(), ""))[0]
        if rel == DEPRECATED:
            allowed = {w for w, what in words.items() if what.startswith("an action type")}
        for i, line in _code_lines(path):
            for m in literal.finditer(line):
                word = m.group(2)
                if word in allowed:
                    used.add((rel, word))
                else:
                    found.append(f"{rel}:{i}: {word!r} ({words[word]}): {line.strip()}")
    assert not found, "\n".join(found)
    # The list stays minimal: every allowed word is still used in a file allowed it.
    unused = {w for ws, _why in ALLOWED_WORDS.values() for w in ws} - {w for _f, w in used}
    assert not unused, sorted(unused)


#: The module files a generic file may import (kept minimal): the deprecated
#: ``Action.move_lady()``… and ``ActionType.MOVE_LADY``… forward to the modules that own
#: them now (until they are removed, 0.3.0); heuristic-v1 is a frozen baseline.
ALLOWED_IMPORTS = {"actions.py", "agents/heuristic_v1.py"}


def test_front_ends_and_bots_import_no_module_of_their_own() -> None:
    """Code outside ``bohnanza.modules`` imports the package (module_info, hooks_for…) and
    its generic parts (info, base, operations), never one module's file: what a bot or a
    front end needs of a module is in its declarations."""
    own = {hooks_class(m).__module__.rpartition(".")[2] for m in module_names()}
    assert {"duel", "fasolufka", "fasolkopajaki", "new_varieties"} <= own
    names = "|".join(sorted(own))
    from_file = re.compile(rf"from\s+(?:\.+|bohnanza\.)modules\.({names})\b")
    import_file = re.compile(rf"import\s+bohnanza\.modules\.({names})\b")
    from_package = re.compile(r"from\s+(?:\.+|bohnanza\.)modules\s+import\s+(\([^)]*\)|[^\n]*)")
    found = []
    for path in _generic_code():
        rel = path.relative_to(SRC).as_posix()
        if path.suffix != ".py" or rel in ALLOWED_IMPORTS:
            continue
        lines = _code_lines(path)
        for i, line in lines:
            if from_file.search(line) or import_file.search(line):
                found.append(f"{rel}:{i}: {line.strip()}")
        # ``from ..modules import duel`` (one line, or a parenthesised list on several).
        text = "\n".join(line for _i, line in lines)
        for m in from_package.finditer(text):
            names_imported = set(re.split(r"[\s,()]+", m.group(1)))
            if names_imported & own:
                found.append(f"{rel}: {m.group(0).strip()}")
    assert not found, found


@pytest.mark.parametrize("module", list(catalogue()["modules"]))
def test_each_card_kind_is_declared_for_the_front_ends(module: str) -> None:
    """Every kind a module's cards carry has its words (EN, PL) and mark in the module's
    ModuleInfo.kinds, and every variety it adds without a beanometer has a note."""
    spec = catalogue()["modules"][module]
    cfg = make_config(f"fasolki+{module}", max(spec["players"]))
    info = module_info(module)
    assert set(cfg.card_kind) - {""} <= set(info.kinds)
    for kind in info.kinds.values():
        assert len(kind.label) == 2 and all(kind.label) and kind.mark
    for key in spec.get("add", []):
        if not any(varieties()[key].beanometer):
            assert key in info.variety_notes, key
    for labels in info.variety_notes.values():
        assert len(labels) == 2 and all(labels)


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
