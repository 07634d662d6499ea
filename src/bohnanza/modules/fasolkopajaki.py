"""Module 2, Fasolkopająki (RULES.md §7): red and black cards of one variety, paid by
bean races (R-RACE-1/2), and bluffing about colours in offers (R-BLUFF-1/2).

The colour is a card's ``kind`` (``"red"``/``"black"``) in the card data. Fields keep
their planting order (the engine's fields are bottom→top lists), which is all R-RACE-1
needs. An offered hand card shows only its *declared* colour until the trade completes;
the trade event then shows the true one.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from .base import Hooks
from .info import CardKind, EncodingHints, EventLabel, ModuleInfo

if TYPE_CHECKING:
    from ..game import Game
    from ..rules import GameConfig

COLOURS = ("red", "black")


def race_coins(colours: list[str]) -> int:
    """R-RACE-2: one group of 2+ pays 1; 2, 3, 4+ groups pay 2, 3, 4; one card pays 0."""
    if len(colours) < 2:
        return 0
    groups = 1 + sum(1 for a, b in pairwise(colours) if a != b)
    return min(groups, 4)


@mypyc_attr(allow_interpreted_subclasses=True)
class FasolkopajakiHooks(Hooks):
    info = ModuleInfo(
        title=("Fasolki + Fasolkopająki", "Fasolki + Fasolkopająki"),
        note=(
            "Red and black Fasolkopająki paid by races; black ones may be declared red in offers.",
            "Czerwone i czarne Fasolkopająki płacą za wyścigi; czarne można w ofercie zgłosić "
            "jako czerwone.",
        ),
        declarations=True,
        # R-RACE-1: the colours.
        kinds={
            "red": CardKind(("red", "czerwony"), "●"),
            "black": CardKind(("black", "czarny"), "●"),
        },
        variety_notes={"fasolkopajak": ("groups pay", "płacą grupy")},
        # R-BLUFF-2: the true colour of a declared card, shown once the offer is taken.
        event_labels={
            "reveal": (
                EventLabel(
                    (
                        "{who}'s Fasolkopająk declared {declared} was {colour}: a bluff!",
                        "Fasolkopająk gracza {who} zgłoszony jako {declared} był {colour}: blef!",
                    ),
                    when=("bluff",),
                ),
                EventLabel(
                    (
                        "{who}'s Fasolkopająk declared {declared} was indeed {colour}",
                        "Fasolkopająk gracza {who} zgłoszony jako {declared} rzeczywiście był "
                        "{colour}",
                    )
                ),
            )
        },
        encoding=EncodingHints(
            # R-BLUFF-1: red cards, black cards told truly, black cards declared red.
            give_classes={"fasolkopajak": (("red", None), ("black", None), ("black", "red"))},
            # R-RACE-2: a field of them pays by its bean races.
            paid_by_kinds={"fasolkopajak": race_coins},
        ),
    )

    def __init__(self, config: GameConfig) -> None:
        super().__init__(config)
        self.spider = config.varieties.index("fasolkopajak")

    def field_coins(self, game: Game, seat: int, field: int) -> int:
        f = game.fields[seat][field]
        if f and self.card_variety[f[-1]] == self.spider:
            return race_coins([self.config.card_kind[c] for c in f])
        return super().field_coins(game, seat, field)

    def offered_card(self, game: Game, card: int, declared: str | None) -> dict[str, Any]:
        shown = super().offered_card(game, card, declared)
        if self.card_variety[card] == self.spider:
            shown["declared"] = declared or self.config.card_kind[card]
        return shown

    def declarations(self, game: Game, card: int) -> list[str | None]:
        # R-BLUFF-1: a black card may be declared red; a red card only red (the truth).
        if self.card_variety[card] == self.spider and self.config.card_kind[card] == "black":
            return [None, "red"]
        return [None]

    def declared_error(self, game: Game | None, card: int, declared: str) -> str | None:
        if declared == "":
            return None
        if self.card_variety[card] != self.spider:
            return "only a Fasolkopająk's colour can be declared (R-BLUFF-1)"
        if declared not in COLOURS:
            return f"a declared colour is red or black, not {declared!r} (R-BLUFF-1)"
        if self.config.card_kind[card] == "red" and declared != "red":
            return "a red Fasolkopająk must be declared red (R-BLUFF-1)"
        return None

    def accept(self, game: Game, seat: int, action: Any) -> None:
        # R-BLUFF-2: reveal the true colours of what was declared, for the log.
        proposer, offer = game.offers[action.offer_id]
        if offer.declared and game._events is not None:
            for c, d in zip(offer.give, offer.declared, strict=True):
                if d:
                    game.emit(
                        "reveal",
                        proposer,
                        card=c,
                        declared=d,
                        colour=self.config.card_kind[c],
                        bluff=d != self.config.card_kind[c],
                    )
        super().accept(game, seat, action)
