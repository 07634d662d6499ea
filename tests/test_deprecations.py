"""Deprecated names (CHANGELOG.md, "Deprecated"; docs/releasing.md): each still works as
it did, and each use warns with a DeprecationWarning that names its replacement and is
attributed to the caller's line (this file), in the pure build and the compiled one."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

from bohnanza import Action, ActionType, Game, IllegalAction
from bohnanza.game import Pending
from bohnanza.modules import duel, fasolufka
from bohnanza.refusals import explain


def _warns(call: Callable[[], Any], replacement: str) -> Any:
    """Run ``call``; exactly one DeprecationWarning, naming ``replacement``, from here."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(deprecations) == 1, [str(w.message) for w in caught]
    message = str(deprecations[0].message)
    assert replacement in message and "removed in bohnanza 0.3.0" in message, message
    assert deprecations[0].filename == __file__, deprecations[0].filename
    return result


ALIASES = [
    (lambda: Action.move_lady(7), lambda: fasolufka.move_lady(7), "fasolufka.move_lady"),
    (lambda: Action.move_lady(None), lambda: fasolufka.move_lady(None), "fasolufka.move_lady"),
    (
        lambda: Action.place_child(7, 1),
        lambda: fasolufka.place_child(7, 1),
        "fasolufka.place_child",
    ),
    (lambda: Action.discard(3), lambda: duel.discard(3), "duel.discard"),
    (lambda: Action.skip_discard(), lambda: duel.skip_discard(), "duel.skip_discard"),
    (
        lambda: Action.plant_revealed(3, 0),
        lambda: duel.plant_revealed(3, 0),
        "duel.plant_revealed",
    ),
    (lambda: Action.end_reveal(), lambda: duel.end_reveal(), "duel.end_reveal"),
]


@pytest.mark.parametrize(("old", "new", "replacement"), ALIASES)
def test_the_removed_action_constructors_warn_and_build_the_same_action(
    old: Callable[[], Action], new: Callable[[], Action], replacement: str
) -> None:
    action = _warns(old, f"bohnanza.modules.{replacement}(")
    assert action == new()
    assert Action.from_json(action.to_json()) == action


def test_an_old_duel_action_is_still_legal_where_the_new_one_is() -> None:
    """Not only equal values: the engine takes the deprecated form in a duel."""
    game = Game.new("fasolki+duel", 2, seed=3)
    while not any(a.type.value == "skip_discard" for a in game.legal_actions(game.active)):
        seat = game.active
        game.apply(seat, game.legal_actions(seat)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = Action.skip_discard()
    assert old in game.legal_actions(game.active)
    game.apply(game.active, old)


def _refused() -> tuple[Game, Action, IllegalAction]:
    game = Game.new("classic", 4, seed=7)
    action = Action.harvest(0)
    try:
        game.apply(1, action)
    except IllegalAction as exc:
        return game, action, exc
    raise AssertionError("harvesting an empty field was allowed")


def test_explain_in_its_old_form_warns_and_explains_the_same() -> None:
    game, action, exc = _refused()
    new = explain(action, exc)
    old = _warns(lambda: explain(game, 1, action, exc), "explain(action, exc)")
    assert old == new and old.code == new.code and old.params == new.params
    with pytest.raises(TypeError, match="explain"):
        explain(action, exc, game)  # type: ignore[call-overload]


def test_pending_still_reads_as_the_tuple_it_was() -> None:
    """Before 0.2.0 a pending decision was the tuple ``(seat, kind, *args)``: built from
    positional numbers, indexed and unpacked. Each of these warns and still answers."""
    pending = Pending(2, fasolufka.MOVE_LADY, field=1, child=40)
    old = _warns(lambda: Pending(2, fasolufka.MOVE_LADY, 1, 40), "Pending(seat, kind, name=value")
    assert old == pending and old["child"] == 40
    assert _warns(lambda: pending[0], "pending.seat") == 2
    assert _warns(lambda: pending[1], "pending.seat") == "move_lady"
    assert _warns(lambda: pending[2:], "pending.seat") == (1, 40)

    def unpack() -> tuple[Any, ...]:
        seat, kind, *args = pending
        return seat, kind, args

    assert _warns(unpack, "pending.args") == (2, "move_lady", [1, 40])
    # The named form itself does not warn.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (pending.seat, pending.kind, pending["field"], pending.args) == (
            2,
            "move_lady",
            1,
            {"field": 1, "child": 40},
        )
    with pytest.raises(TypeError, match="named arguments"):
        _warns(lambda: Pending(2, fasolufka.MOVE_LADY, 1), "Pending(")


MEMBERS = [
    ("MOVE_LADY", lambda: fasolufka.MOVE_LADY_TYPE),
    ("PLACE_CHILD", lambda: fasolufka.PLACE_CHILD_TYPE),
    ("DISCARD", lambda: duel.DISCARD_CARD),
    ("SKIP_DISCARD", lambda: duel.SKIP_DISCARD),
    ("PLANT_REVEALED", lambda: duel.PLANT_REVEALED),
    ("END_REVEAL", lambda: duel.END_REVEAL),
]


@pytest.mark.parametrize(("old", "new"), MEMBERS)
def test_the_removed_action_type_members_warn_and_answer_the_modules_types(
    old: str, new: Callable[[], ActionType]
) -> None:
    found = _warns(lambda: getattr(ActionType, old), "bohnanza.modules.")
    assert found is new() and found is ActionType(new().value)
    # Not members again: the base game's types are what iterating the enumeration lists.
    assert old not in ActionType.__members__ and found not in list(ActionType)
