"""Issue 55: a module whose action takes a card *and* a seat, and whose rule leaves a
decision to another seat, written with no override of the engine's internals.

*Gift* is a toy rule (not a module of the game): in phase 1 of one's own turn, before
planting, the active seat may offer a hand card behind its front one to another seat
(``give CARD SEAT``). The receiver must then decide (a pending decision, R-HARV-1): plant
the gift on one of its fields, or take it into its hand (``take_gift FIELD`` / ``none``).
Only the giver and the receiver know which card it is: the decision shows the card to the
receiver, and nobody else's view holds its id.

The module below is what an author writes: the two shapes, the decision's declaration
(its arguments with their kinds), two rules and the hooks with its ``info``. The engine
routes the answer to its rule (no ``pending_refusal`` override); the views, the
invariant checker, the RL observation and the text front end read the kinds.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bohnanza import Game
from bohnanza.actions import Action, ActionType
from bohnanza.errors import NotYourTurn, Refusal
from bohnanza.game import PLANT, Pending, declare_decision
from bohnanza.modules import register_module, unregister_module
from bohnanza.modules.base import Hooks
from bohnanza.modules.info import ModuleInfo
from bohnanza.modules.operations import DecisionRule, Rule, with_rules
from bohnanza.refusals import add_reasons
from bohnanza.shapes import ActionShape, Param, ParamKind
from bohnanza.testing.checker import CHEAP, FULL, InvariantError, check_game

# ---------------------------------------------------------------------- the module

NAME = "gift"
RULES = "fasolki+gift"
SPEC = {"hooks": "test_new_module_seams:GiftHooks", "players": [3, 5]}
RULE = "R-" + "GIFT-1"  # a toy rule: not in docs/rules.md

add_reasons(
    {
        "gift_not_behind": (
            "a gift is a hand card behind the front one",
            "prezent to karta z ręki spoza pierwszej",
        ),
        "gift_to_self": ("a gift goes to another seat", "prezent trafia do innego gracza"),
    }
)

GIVE = ActionType.extend(
    ActionShape(
        "give",
        (
            Param(ParamKind.HAND_CARD, "card", ("hand card", "karta z ręki")),
            Param(ParamKind.SEAT, "target", ("to seat", "dla gracza")),
        ),
        ("give a card", "daj kartę"),
        ("give a hand card to another seat", "daj kartę z ręki innemu graczowi"),
        ("give", "daj"),
    )
)
TAKE_GIFT = ActionType.extend(
    ActionShape(
        "take_gift",
        (
            Param(
                ParamKind.FIELD,
                "field",
                ("field", "pole"),
                ("a field for the gift", "pole na prezent"),
                optional=True,
                none_label=("into the hand", "do ręki"),
            ),
        ),
        ("take the gift", "weź prezent"),
        ("plant the gift on a field, or take it into the hand", "zasadź prezent albo weź"),
        ("take", "weź"),
        ("wez",),
    )
)
# The decision: which card (shown to the receiver only) and who gave it (a seat).
declare_decision("take_gift", card=ParamKind.CARD, seat=ParamKind.SEAT)


class GiveRule(Rule):
    type = GIVE
    phases = frozenset({PLANT})

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        if seat != game.active or game.planted:
            return []
        return [
            Action(GIVE, card=c, target=k)
            for c in game.hands[seat][1:]
            for k in range(game.players)
            if k != seat
        ]

    def refusal(self, game: Game, seat: int, action: Action) -> Refusal | None:
        what = f"give card {action.card} to seat {action.target}"
        if seat != game.active or game.planted:
            why = "a gift is given in phase 1 of one's own turn, before planting"
            return self.refuse(game, seat, what, why, RULE, NotYourTurn)
        if action.card not in game.hands[seat][1:]:
            why = "it is not a hand card behind the front one"
            return self.refuse(game, seat, what, why, RULE, code="gift_not_behind")
        if action.target is None or not 0 <= action.target < game.players or action.target == seat:
            return self.refuse(game, seat, what, "no such other seat", RULE, code="gift_to_self")
        return None

    def execute(self, game: Game, seat: int, action: Action) -> None:
        card, to = action.card, action.target
        assert card is not None and to is not None
        # The card stays in the giver's hand until the receiver decides.
        game.emit("give", seat, private={"card": card}, to=to)
        self.hooks.push_pending(game, Pending(to, "take_gift", card=card, seat=seat))


class TakeGiftRule(DecisionRule):
    type = TAKE_GIFT

    def candidates(self, game: Game, seat: int, offers: bool) -> list[Action]:
        p = self.decision(game, seat)
        if p is None:
            return []
        card = p["card"]
        fields = [
            Action(TAKE_GIFT, field=f)
            for f in range(len(game.fields[seat]))
            if self.hooks.can_plant(game, seat, card, f)
        ]
        return [*fields, Action(TAKE_GIFT)]

    def execute(self, game: Game, seat: int, action: Action) -> None:
        p = game.pending
        assert p is not None
        card, giver = p["card"], p["seat"]
        game.hands[giver].remove(card)
        if action.field is None:
            game.hands[seat].append(card)
            game.emit("take_gift", seat, private={"card": card}, field=None)
        else:
            game.emit("take_gift", seat, card=card, field=action.field)
            self.hooks.place(game, seat, card, action.field)
        self.hooks.pop_pending(game)


class GiftHooks(Hooks):
    rule_classes = with_rules(Hooks.rule_classes, GiveRule, TakeGiftRule)
    info = ModuleInfo(
        title=("Fasolki + Gift", "Fasolki + Prezent"),
        note=("Give a card to another seat.", "Daj kartę innemu graczowi."),
    )


# ---------------------------------------------------------------------- the tests


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    register_module(NAME, SPEC, GiftHooks)
    try:
        yield
    finally:
        unregister_module(NAME)


def _given(seed: int = 1) -> tuple[Game, int, int, int]:
    """A game with a gift just given: (game, giver, receiver, card)."""
    game = Game.new(RULES, 3, seed=seed)
    giver = game.active
    card = game.hands[giver][1]
    receiver = (giver + 1) % 3
    game.apply(giver, Action(GIVE, card=card, target=receiver))
    return game, giver, receiver, card


def test_a_seat_argument_is_an_action_field_and_a_decision_argument() -> None:
    action = Action(GIVE, card=17, target=2)
    assert Action.from_json(action.to_json()) == action == Action.of("give", 17, 2)
    assert action.to_json() == {"type": "give", "card": 17, "target": 2}
    assert eval(repr(action)) == action
    game, giver, receiver, card = _given()
    p = game.pending
    assert p == Pending(receiver, "take_gift", card=card, seat=giver)
    assert p is not None and p.seat == receiver and p["seat"] == giver
    assert Pending.from_json(p.to_json()) == p


def test_the_engine_routes_the_answer_to_its_rule() -> None:
    game, giver, receiver, card = _given()
    assert game.waiting_for() == [receiver]
    answers = game.legal_actions(receiver)
    assert answers and all(a.type is TAKE_GIFT for a in answers)
    assert game.legal_actions(giver) == []
    refusal = game.refusal(giver, Action.plant(0))
    assert refusal is not None and refusal.code == "decision_pending"
    refusal = game.refusal(receiver, Action(TAKE_GIFT, field=7))
    assert refusal is not None and refusal.code == "not_an_answer"
    before = len(game.hands[receiver])
    game.apply(receiver, Action(TAKE_GIFT))
    assert game.pending is None and card in game.hands[receiver]
    assert len(game.hands[receiver]) == before + 1 and card not in game.hands[giver]
    # an answer with no decision open
    refusal = game.refusal(receiver, Action(TAKE_GIFT))
    assert refusal is not None and refusal.code == "no_decision"


def test_only_the_giver_and_the_receiver_see_the_card() -> None:
    game, giver, receiver, card = _given()
    third = 3 - giver - receiver
    assert card in game.view(receiver).visible_cards()
    assert game.view(receiver).pending == game.pending
    # The page reads the kinds and the card from the view's JSON.
    shown = game.view(receiver).to_json()["pending"]
    assert shown["kinds"] == {"card": "card", "seat": "seat"}
    assert [c["id"] for c in shown["cards"]] == [card]
    for k in (third, None):
        view = game.view(k)
        assert view.pending is not None and view.pending.args == {"seat": giver}
        assert card not in view.visible_cards()
        assert view.to_json()["pending"]["args"] == {"seat": giver}
        assert view.to_json()["pending"]["cards"] == []
    assert card in game.hooks.private_cards(game, receiver)
    assert card not in game.hooks.known_cards(game, third)


def test_the_determiniser_keeps_the_card_in_the_givers_hand() -> None:
    import random

    game, giver, receiver, card = _given()
    view = game.view(receiver)
    for seed in range(5):
        sample = Game.determinise(view, random.Random(seed))
        assert card in sample.hands[giver]
        assert sample.pending == game.pending
        sample.apply(receiver, Action(TAKE_GIFT))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_checked_games(seed: int) -> None:
    check_game(RULES, 3, seed, agents="random", checks=CHEAP)


def test_checker_every_check_once() -> None:
    stats = check_game(RULES, 3, 4, agents="random", checks=FULL)
    assert stats.full_checks == stats.actions + 1 and stats.probes > 0


def test_the_checker_catches_the_card_shown_to_a_third_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The leak of issue 55: the module shows the bartered card to every seat."""

    def leaky(self: Hooks, game: Game, seat: int | None) -> Pending | None:
        return game.pending

    monkeypatch.setattr(GiftHooks, "public_pending", leaky)
    with pytest.raises(InvariantError, match=r"hand.*R-INFO-3"):
        for seed in range(1, 6):
            check_game(RULES, 3, seed, agents="random", checks=CHEAP)


def test_the_rl_observation_reads_the_kinds() -> None:
    pytest.importorskip("numpy")
    from bohnanza.rl.encoding import Encoding

    game, giver, receiver, _card = _given()
    enc = Encoding(game.config)
    assert enc.pending_kinds["take_gift"] == (("card", ParamKind.CARD), ("seat", ParamKind.SEAT))
    flag, args = enc._pending_at["take_gift"]
    start, _ = enc.obs_parts["pending"]
    obs = enc.observe(game.view(receiver))
    assert obs[start + flag] == 1.0
    (_, _, card_at), (_, _, seat_at) = args
    assert obs[start + seat_at + (giver - receiver) % 3] == 1.0
    assert obs[start + card_at : start + seat_at].any()  # the card's features
    # The answers are laid out and decode back.
    view = game.view(receiver)
    for action in game.legal_actions(receiver):
        i = enc.index_of(view, action)
        assert i is not None and enc.decode(view, i) == action


def test_the_text_front_end_reads_and_writes_it() -> None:
    from bohnanza.text import parse_command, render_action, render_prompt

    game = Game.new(RULES, 3, seed=1)
    giver = game.active
    view = game.view(giver)
    gifts = [a for a in game.legal_actions(giver) if a.type is GIVE]
    for action in gifts:
        line = render_action(action, view, "en")
        assert parse_command(line, view, "en") == action
    game.apply(giver, gifts[0])
    receiver = gifts[0].target
    assert receiver is not None
    view = game.view(receiver)
    prompt = render_prompt(view, game.legal_actions(receiver), True, "en")
    assert "take" in prompt
    # The card the decision is about is named to the deciding seat, and to no other.
    from bohnanza.text.render import pending_text

    assert view.pending is not None and "(card: " in pending_text(view, view.pending, "en")
    third = 3 - giver - receiver
    other = game.view(third)
    assert other.pending is not None and "(card" not in pending_text(other, other.pending, "en")
    for action in game.legal_actions(receiver):
        line = render_action(action, view, "en")
        assert parse_command(line, view, "en") == action
