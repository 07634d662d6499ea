"""Rules as objects (bohnanza.modules.operations): one rule object per action type, which
lists, checks and carries out its actions; a module adds or replaces rule objects, and the
engine honours them in both the check and the listing."""

from __future__ import annotations

import pytest

from bohnanza import Action, Game
from bohnanza.errors import IllegalAction, NotYourTurn, Refusal
from bohnanza.modules.base import Hooks
from bohnanza.modules.duel import END_REVEAL
from bohnanza.modules.operations import (
    BASE_RULES,
    BuyFieldRule,
    HarvestRule,
    PlantRule,
    Rule,
    StopPlantingRule,
    with_rules,
)


class NoSecondFieldPlant(PlantRule):
    """A made-up module rule: nothing may be planted on field 1 from the hand."""

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        return [a for a in super().candidates(game, seat, offers) if a.field != 1]

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        if action.field == 1:
            return self.refuse(game, seat, "plant on field 1", "field 1 is fallow here")
        return super().refusal(game, seat, action)


class FallowHooks(Hooks):
    rule_classes = with_rules(Hooks.rule_classes, NoSecondFieldPlant)


def _fallow_game() -> Game:
    game = Game.new("classic", 4, seed=3)
    game.hooks = FallowHooks(game.config)
    return game


def test_a_module_replacing_a_rule_object_is_honoured_by_check_and_listing() -> None:
    """The old ``_checks`` table held the base class's functions, so a module's override of
    a plant check was silently ignored; a replaced rule object is asked instead."""
    game = _fallow_game()
    assert Action.plant(1) not in game.legal_actions(0)
    assert Action.plant(0) in game.legal_actions(0)
    before = game.to_dict()
    with pytest.raises(IllegalAction, match="field 1 is fallow here") as info:
        game.apply(0, Action.plant(1))
    assert game.to_dict() == before  # refused: nothing changed
    assert info.value.refusal is not None and info.value.refusal.what == "plant on field 1"
    game.apply(0, Action.plant(0))  # the rest of the base rule still holds
    assert game.planted == 1


def test_with_rules_replaces_in_place_and_adds_new_rules_before_the_anytime_rules() -> None:
    class Shout(Rule):
        type = END_REVEAL  # any type the base game lacks
        phases = frozenset({"plant"})

    table = with_rules(BASE_RULES, NoSecondFieldPlant, Shout)
    assert table[0] is NoSecondFieldPlant
    assert table[-3:] == (Shout, HarvestRule, BuyFieldRule)
    assert len(table) == len(BASE_RULES) + 1


def test_every_action_type_of_the_base_game_has_one_rule_object() -> None:
    hooks = Game.new("classic", 3, seed=0).hooks
    assert set(hooks.rules) == {r.type for r in BASE_RULES}
    for t, rule in hooks.rules.items():
        assert rule.type is t and rule.hooks is hooks


def test_a_refusal_is_typed_data_with_the_rule_id_and_numbers_r_harv_3() -> None:
    game = Game.new("classic", 3, seed=0)
    v = game.config.card_variety
    lone = game.draw.pop()
    pair = [game.draw.pop()]
    pair.append(next(c for c in game.draw if v[c] == v[pair[0]]))
    game.draw.remove(pair[1])
    game.fields[0] = [[lone], pair]  # one bean beside two: the one is protected
    refusal = game.hooks.refusal(game, 0, Action.harvest(0))
    assert refusal is not None
    assert refusal.rule == "R-HARV-3" and refusal.code == "field_protected"
    assert refusal.details == {"field": 0, "other": 1, "n": 2}
    assert refusal.message == (
        "seat 0 cannot harvest field 0: a field with one bean is protected while field 1 "
        "holds 2 (R-HARV-3)"
    )
    error = refusal.error()
    assert str(error) == refusal.message and error.rule == "R-HARV-3" and error.refusal is refusal


def test_refusals_of_phase_and_seat_name_the_seat_whose_move_it_is_r_plant_1() -> None:
    game = Game.new("classic", 3, seed=0)
    with pytest.raises(NotYourTurn) as info:
        game.check(2, Action.plant(0))
    refusal = info.value.refusal
    assert refusal is not None
    assert (refusal.code, refusal.rule, refusal.details) == ("not_now", "R-PLANT-1", {"active": 0})
    assert str(info.value) == refusal.message
    assert game.refusal(2, Action.plant(0)) == refusal
    assert game.refusal(0, game.legal_actions(0)[0]) is None


class CarelessStop(StopPlantingRule):
    """A made-up module rule that keeps its declared phase (phase 1) and forgets to check
    it."""

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        return None  # its phase is declared once, above: the hooks enforce it


class CarelessHooks(Hooks):
    rule_classes = with_rules(Hooks.rule_classes, CarelessStop)


def test_a_rules_declared_phases_are_enforced_by_the_hooks_r_plant_2() -> None:
    game = Game.new("classic", 3, seed=0)
    game.hooks = CarelessHooks(game.config)
    game.apply(0, game.legal_actions(0)[0])
    assert game.is_legal(0, Action.stop_planting())
    game.apply(0, Action.stop_planting())
    assert game.phase == "trade"
    # Its own check lets everything through; the declared phase refuses it now.
    with pytest.raises(NotYourTurn) as info:
        game.check(0, Action.stop_planting())
    refusal = info.value.refusal
    assert refusal is not None and refusal.code == "wrong_phase"
    assert refusal.details == {"phase": "trade"}
    with pytest.raises(NotYourTurn) as info:
        game.check(1, Action.stop_planting())
    assert info.value.refusal is not None and info.value.refusal.code == "not_now"
