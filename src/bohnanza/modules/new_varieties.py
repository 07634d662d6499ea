"""Module 1, New Bean Varieties (RULES.md §6).

The deck changes (Businessman, Partygoer, Glutton, Farmer; R-NEW-67/45/3) are card data
(``data/cards.toml``) resolved by :func:`bohnanza.rules.make_config`; what is left to play
is the Farmer: a harvest of exactly two Farmers brings a free third field (R-FARM-1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mypy_extensions import mypyc_attr

from .base import Hooks
from .info import EventLabel, ModuleInfo

if TYPE_CHECKING:
    from ..game import Game
    from ..rules import GameConfig


@mypyc_attr(allow_interpreted_subclasses=True)
class NewVarietiesHooks(Hooks):
    info = ModuleInfo(
        title=("Fasolki + New Bean Varieties", "Fasolki + Nowe odmiany"),
        note=(
            "Businessman, Partygoer, Glutton and Farmer (two Farmers harvested: a free third "
            "field).",
            "Biznesmen, Imprezowicz, Łakomczuch i Rolnik (dwóch Rolników zebranych: darmowe "
            "trzecie pole).",
        ),
        # R-FARM-1: what two Farmers bring instead of coins.
        variety_notes={"farmer": ("2 = a 3rd field", "2 = trzecie pole")},
        event_notes={
            "harvest": (
                EventLabel(
                    ("and a free third field (R-FARM-1)", "i darmowe trzecie pole (R-FARM-1)"),
                    when=("farmer_field",),
                ),
            )
        },
    )

    def __init__(self, config: GameConfig) -> None:
        super().__init__(config)
        self.farmer = config.varieties.index("farmer") if "farmer" in config.varieties else -1

    def harvest(self, game: Game, seat: int, field: int, final: bool = False) -> None:
        f = game.fields[seat][field]
        if self.card_variety[f[-1]] != self.farmer or len(f) != 2:
            super().harvest(game, seat, field, final)
            return
        # R-FARM-1: no coins; both Farmers to the discard pile; a free third field if the
        # player has none and the supply has one (never at the final harvest).
        cards = f[:]
        game.discard.extend(f)
        f.clear()
        gained = not final and len(game.fields[seat]) < 3 and game.supply > 0
        if gained:
            game.fields[seat].append([])
            game.supply -= 1
        game.emit(
            "harvest", seat, field=field, cards=cards, coins=0, final=final, farmer_field=gained
        )
