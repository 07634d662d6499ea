"""What the value model reads: a fixed-length vector of one seat's view of a position.

The features are the seat's own (:class:`~bohnanza.views.View`: its hand, the public
table), never another seat's hidden cards, so that a model trained on recorded games can
score the leaves of a search's roll-outs (where every seat's view of the sampled state
is taken in turn) and a live position alike. They are built from what the ``heuristic``
bot already computes (:class:`~bohnanza.agents.heuristic.Position`): what each field is
worth (coins now plus the chance-weighted next level), what planting the trade area and
the hand adds to the fields, and the estimate of the seat's own turns left. The model
learns how these combine into final coins; the heuristic's fixed sum (the ``search``
bot's roll-out score, :func:`~bohnanza.agents.search.position_value`) is one of the
things it can learn, so it has no reason to do worse where the data covers the game.

Every number is scaled to about 0-20 (coins) or 0-1 (shares), and the same code runs for
every rule set and player count (3 to 5 seats; the rule set's own deck size, run-outs
and field tables), so one model file serves several of them; a model is trained on the
rule sets its data holds (its metadata says which).
"""

from __future__ import annotations

from ..agents.heuristic import Position, tables_for, turns_left
from ..views import View

#: The features' names, in the vector's order (the model files store them, and a model
#: whose names differ from these is refused).
FEATURES: tuple[str, ...] = (
    "players",  # seats at the table / 5
    "turns_left",  # own turns left, estimated from the piles (heuristic.turns_left) / 10
    "draw_share",  # cards in the draw pile / deck size
    "runouts",  # run-outs of the draw pile so far / run-outs that end the game
    "final_runout",  # 1 once the last run-out has begun
    "coins",  # own coins
    "fields_value",  # own fields: coins now plus the chance-weighted next level
    "plan_value",  # what planting own trade area, then the hand's front, adds
    "hand_size",  # cards in own hand / 10
    "field_count",  # own fields (3: a third field bought) / 3
    "trade_cards",  # cards in own trade area / 5
    "to_move",  # seats until own next turn / seats (0: own turn now)
    "after_trading",  # 1 once the turn's trading is over (its traded cards to plant)
    "opp_coins_max",  # the richest other seat's coins
    "opp_coins_mean",  # the other seats' mean coins
    "opp_total_max",  # the best other seat's coins plus fields value
    "opp_fields_mean",  # the other seats' mean fields value (valued by own tables)
    "opp_hand_mean",  # the other seats' mean hand size / 10
    "lead_coins",  # own coins less the richest other seat's
    "lead_total",  # own coins plus fields value less the best other seat's
)

N_FEATURES = len(FEATURES)


def features(view: View) -> list[float]:
    """The feature vector of the seat whose view this is (:data:`FEATURES`).

    A seat that is not the view's own (a spectator's view) has no features: ValueError."""
    me = view.seat
    if me is None:
        raise ValueError("a spectator's view has no seat to value")
    cfg = view.config
    t = tables_for(cfg)
    pos = Position(view, t)
    seats = view.seats
    n = len(seats)
    own = seats[me]
    fvals = [sum((pos.fval(f) for f in s.fields), 0.0) for s in seats]
    plan = pos.plan(pos.fields, list(own.trade_area), list(view.hand or ()))
    others = [k for k in range(n) if k != me]
    coins = [float(s.coins) for s in seats]
    opp_coins = [coins[k] for k in others]
    opp_total = [coins[k] + fvals[k] for k in others]
    opp_fields = [fvals[k] for k in others]
    opp_hand = [float(seats[k].hand_size) for k in others]
    deck = max(1, cfg.deck_size)
    runouts_end = max(1, cfg.runouts_to_end)
    m = float(len(others)) or 1.0
    return [
        n / 5.0,
        turns_left(view) / 10.0,
        view.draw_size / deck,
        view.runouts / runouts_end,
        1.0 if view.final_runout else 0.0,
        coins[me],
        fvals[me],
        plan,
        own.hand_size / 10.0,
        len(own.fields) / 3.0,
        len(own.trade_area) / 5.0,
        ((me - view.active) % n) / n,
        0.0 if view.phase in ("plant", "trade") else 1.0,
        max(opp_coins),
        sum(opp_coins) / m,
        max(opp_total),
        sum(opp_fields) / m,
        sum(opp_hand) / m / 10.0,
        coins[me] - max(opp_coins),
        coins[me] + fvals[me] - max(opp_total),
    ]


__all__ = ["FEATURES", "N_FEATURES", "features"]
