"""Module 4, Duel (RULES.md §9): two players, no trading, a turn of four steps.

Phases of a duel turn (R-DUEL-3): ``duel_offer`` (plant or discard each card the opponent
left), ``plant`` (the base phase 1), ``duel_discard`` (optionally discard one hand card),
``duel_reveal`` (reveal 3, pull matching cards off the discard pile, plant any, leave the
rest as the offer); then 2 cards are drawn automatically. The offer and the revealed cards
live in ``game.extra`` and are public. Harvests and the field purchase happen only in
one's own turn, and coins paid for a field leave the game (R-DUEL-2). The game ends after
the turn in which the pile first runs out, plus one turn for seat 1 if seat 0 was active
(R-DUEL-4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..actions import Action, ActionType
from ..game import PLANT
from .base import Hooks
from .info import EncodingHints, ModuleInfo, PileTurn

if TYPE_CHECKING:
    from ..game import Game

_T = ActionType
OFFER = "duel_offer"
DISCARD = "duel_discard"
REVEAL = "duel_reveal"
REVEAL_COUNT = 3


class DuelHooks(Hooks):
    info = ModuleInfo(
        phases=(OFFER, DISCARD, REVEAL),
        phase_labels={
            OFFER: ("plant or discard the offer", "zasadź lub wyrzuć ofertę"),
            DISCARD: ("discard a hand card (or not)", "wyrzuć kartę z ręki (albo nie)"),
            REVEAL: ("plant revealed cards", "zasadź odkryte karty"),
        },
        source_labels={
            OFFER: ("from the offer", "z oferty"),
            REVEAL: ("from the revealed cards", "z odkrytych kart"),
        },
        action_labels={
            "discard": ("discard", "odrzuć"),
            "skip_discard": ("keep the hand", "zachowaj rękę"),
            "plant_revealed": ("plant", "zasadź"),
            "end_reveal": ("leave the rest as the offer", "zostaw resztę jako ofertę"),
        },
        hint_phases=(OFFER, DISCARD, REVEAL),
        hand_discard_phases=(DISCARD,),
        public=("offer", "revealed"),
        trading=False,
        turn_cards=REVEAL_COUNT,
        last_turn_public=True,
        encoding=EncodingHints(
            pile_turn=PileTurn(
                offer="offer",
                revealed="revealed",
                offer_phase=OFFER,
                discard_phase=DISCARD,
                reveal_phase=REVEAL,
            )
        ),
    )
    trading = False
    phases = Hooks.phases | {OFFER, DISCARD, REVEAL}

    def setup(self, game: Game) -> None:
        game.extra["offer"] = []
        game.extra["revealed"] = []

    # ---------------------------------------------------------------- the turn

    def start_turn(self, game: Game, seat: int) -> None:
        game.active = seat
        game.planted = 0
        game.turn += 1
        game.emit("turn", seat, turn=game.turn)
        if game.extra["offer"]:
            game.phase = OFFER
        else:
            self.start_planting(game)

    def start_planting(self, game: Game) -> None:
        game.phase = PLANT
        if not game.hands[game.active]:
            self.start_trade(game)

    def start_trade(self, game: Game) -> None:
        """After phase 1 the duel has no trade: the optional hand discard comes instead."""
        game.phase = DISCARD
        if not game.hands[game.active]:
            self.reveal(game)

    def reveal(self, game: Game) -> None:
        game.phase = REVEAL
        revealed: list[int] = game.extra["revealed"]
        for _ in range(REVEAL_COUNT):
            card = game.draw_card()
            if card is None:
                break
            revealed.append(card)
            game.emit("reveal", game.active, card=card, variety=self.config.variety_of(card))
        kinds = {self.card_variety[c] for c in revealed}
        while game.discard and self.card_variety[game.discard[-1]] in kinds:
            card = game.discard.pop()
            revealed.append(card)
            game.emit("pull_discard", game.active, card=card, variety=self.config.variety_of(card))

    def end_reveal(self, game: Game) -> None:
        a = game.active
        game.extra["offer"] = game.extra["revealed"]
        game.extra["revealed"] = []
        game.emit("leave_offer", a, cards=list(game.extra["offer"]))
        for _ in range(self.config.draw_count):
            card = game.draw_card()
            if card is None:
                break
            game.hands[a].append(card)
            if game._events is not None:
                game.emit("draw", a, private={"card": card})
        if game.final_runout:
            if a == 0 and not game.extra.get("last_turn"):
                game.extra["last_turn"] = True  # R-DUEL-4: equal turns
                self.start_turn(game, 1)
            else:
                game.end_game()
            return
        self.start_turn(game, 1 - a)

    def waiting_for(self, game: Game) -> list[int]:
        return [game.active]

    def extra_cards(self, game: Game) -> list[int]:
        return list(game.extra.get("offer", [])) + list(game.extra.get("revealed", []))

    def table_piles(self, game: Game) -> list[list[int]]:
        return [game.extra["offer"], game.extra["revealed"]]

    def public_extra(self, game: Game, seat: int | None) -> dict[str, Any]:
        return {"offer": list(game.extra["offer"]), "revealed": list(game.extra["revealed"])}

    # ---------------------------------------------------------------- timing and coins

    def may_act_out_of_turn(self, game: Game, seat: int) -> str | None:
        if seat != game.active:
            return "in the duel one harvests and buys a field only in one's own turn (R-DUEL-2)"
        return super().may_act_out_of_turn(game, seat)

    def spend_coins(self, game: Game, cards: list[int]) -> None:
        game.out.extend(cards)  # R-DUEL-2: paid coins leave the game

    # ---------------------------------------------------------------- actions

    def legal_actions(self, game: Game, seat: int, offers: bool = True) -> list[Action]:
        phase = game.phase
        if seat != game.active:
            return []
        if phase == PLANT:
            return super().legal_actions(game, seat, offers)
        acts: list[Action] = []
        if phase in (OFFER, REVEAL):
            pile = game.extra["offer"] if phase == OFFER else game.extra["revealed"]
            for card in pile:
                acts += [
                    Action.plant_revealed(card, f)
                    for f in range(len(game.fields[seat]))
                    if self.can_plant(game, seat, card, f)
                ]
                if phase == OFFER:
                    acts.append(Action.discard(card))
            if phase == REVEAL:
                acts.append(Action.end_reveal())
        elif phase == DISCARD:
            acts = [Action.discard(c) for c in game.hands[seat]] + [Action.skip_discard()]
        return acts + self.anytime_actions(game, seat)

    def _own_step(self, game: Game, seat: int, action: Action, phases: tuple[str, ...]) -> None:
        what = action.type.value.replace("_", " ")
        if seat != game.active or game.phase not in phases:
            raise game.fail(
                seat, what, f"now it is seat {game.active}'s step {game.phase}", "R-DUEL-3"
            )

    def _check_plant_revealed(self, game: Game, seat: int, action: Action) -> None:
        self._own_step(game, seat, action, (OFFER, REVEAL))
        pile = game.extra["offer"] if game.phase == OFFER else game.extra["revealed"]
        where = "the opponent's offer" if game.phase == OFFER else "the revealed cards"
        if action.card not in pile:
            raise game.fail(
                seat, f"plant card {action.card}", f"it is not among {where}", "R-DUEL-3"
            )
        err = self.plant_error(game, seat, action.card, action.field)  # type: ignore[arg-type]
        if err:
            raise game.fail(seat, f"plant card {action.card} on field {action.field}", err)

    def _check_discard(self, game: Game, seat: int, action: Action) -> None:
        self._own_step(game, seat, action, (OFFER, DISCARD))
        pile = game.extra["offer"] if game.phase == OFFER else game.hands[seat]
        if action.card not in pile:
            where = "the opponent's offer" if game.phase == OFFER else "its hand"
            raise game.fail(
                seat, f"discard card {action.card}", f"it is not in {where}", "R-DUEL-3"
            )

    def _check_skip(self, game: Game, seat: int, action: Action) -> None:
        self._own_step(game, seat, action, (DISCARD,))

    def _check_end_reveal(self, game: Game, seat: int, action: Action) -> None:
        self._own_step(game, seat, action, (REVEAL,))

    _checks: ClassVar[dict[ActionType, Any]] = {
        **Hooks._checks,
        _T.PLANT_REVEALED: _check_plant_revealed,
        _T.DISCARD: _check_discard,
        _T.SKIP_DISCARD: _check_skip,
        _T.END_REVEAL: _check_end_reveal,
    }

    def execute_extra(self, game: Game, seat: int, action: Action) -> None:
        t = action.type
        if t is _T.PLANT_REVEALED:
            card, field = action.card, action.field
            assert card is not None and field is not None
            pile = game.extra["offer"] if game.phase == OFFER else game.extra["revealed"]
            pile.remove(card)
            game.emit(
                "plant",
                seat,
                card=card,
                field=field,
                variety=self.config.variety_of(card),
                source=game.phase,
            )
            self.place(game, seat, card, field)
            if game.phase == OFFER and not pile:
                self.start_planting(game)
        elif t is _T.DISCARD:
            card = action.card
            assert card is not None
            if game.phase == OFFER:
                game.extra["offer"].remove(card)
                game.discard.append(card)
                game.emit("discard", seat, card=card, source="offer")
                if not game.extra["offer"]:
                    self.start_planting(game)
            else:
                game.hands[seat].remove(card)
                game.discard.append(card)
                game.emit(
                    "discard", seat, card=card, source="hand", variety=self.config.variety_of(card)
                )
                self.reveal(game)
        elif t is _T.SKIP_DISCARD:
            game.emit("skip_discard", seat)
            self.reveal(game)
        elif t is _T.END_REVEAL:
            self.end_reveal(game)
        else:
            super().execute_extra(game, seat, action)
