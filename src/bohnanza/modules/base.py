"""The base game's rules as overridable hooks.

:class:`Hooks` *is* the base game (RULES.md §3–§5): the turn's phases, planting, trading,
harvesting and the end. Each module subclasses it in its own file and overrides only the
points it changes (deck, payout, what an offer shows, who may buy a field, the duel's turn).
The engine (:mod:`bohnanza.game`) owns the state and calls these methods; it never asks
which module is in play.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..actions import Action, ActionType, Offer
from ..errors import IllegalAction, InvalidOffer, NotYourTurn
from ..game import MAX_OFFER_CARDS, MAX_OPEN_OFFERS, OVER, PLANT, PLANT_TRADED, TRADE
from .info import BASE_INFO, ModuleInfo

if TYPE_CHECKING:
    from ..game import Game
    from ..rules import GameConfig

_T = ActionType
_HARVEST = [Action.harvest(i) for i in range(3)]
_PLANT = [Action.plant(i) for i in range(3)]
_STOP = Action.stop_planting()


class Hooks:
    """Default behaviour: the base game. One instance per config, shared by clones."""

    #: What the code outside ``bohnanza.modules`` may know about this module (its phases,
    #: public state, labels, behaviour flags, RL encoding hints): a module sets its own.
    info: ClassVar[ModuleInfo] = BASE_INFO
    trading = True  # duel: False (R-DUEL-1)
    #: Every value ``game.phase`` may take under these rules.
    phases: frozenset[str] = frozenset((PLANT, TRADE, PLANT_TRADED, OVER))

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.payout = config.payout
        self.card_variety = config.card_variety
        # Hot-path shortcut: true while planting follows the base rule (R-PLANT-3).
        self._base_planting = type(self).can_plant is Hooks.can_plant
        self._base_payout = type(self).field_coins is Hooks.field_coins
        self._base_timing = type(self).may_act_out_of_turn is Hooks.may_act_out_of_turn

    # ------------------------------------------------------------------ setup and flow

    def setup(self, game: Game) -> None:
        """Called once after dealing, before the first turn."""

    def start_turn(self, game: Game, seat: int) -> None:
        game.active = seat
        game.phase = PLANT
        game.planted = 0
        game.turn += 1
        if game._events is not None:
            game.emit("turn", seat, turn=game.turn)
        if not game.hands[seat]:  # R-PLANT-1: skipped with an empty hand
            self.start_trade(game)

    def start_trade(self, game: Game) -> None:
        """Phase 2: turn over the drawn cards (R-TRADE-1)."""
        game.phase = TRADE
        for _ in range(self.config.drawn_count):
            card = game.draw_card()
            if card is None:
                break
            game.drawn.append(card)
            if game._events is not None:
                game.emit("turn_over", game.active, card=card, variety=self.config.variety_of(card))
            if game.final_runout:
                break
        if game.final_runout and self.config.end_immediately:
            game.end_game()  # R-END-2, first-edition: at once; the drawn cards are discarded

    def end_trading(self, game: Game) -> None:
        """R-TRADE-6/7: cancel open offers, kept drawn cards go to the trade area."""
        for oid in list(game.offers):
            game.emit("offer_cancelled", offer_id=oid, reason="trading ended")
        game.offers.clear()
        a = game.active
        if game.drawn:
            game.trade[a].extend(game.drawn)
            game.emit("keep_drawn", a, cards=list(game.drawn))
            game.drawn.clear()
        game.phase = PLANT_TRADED
        self.after_step(game)

    def after_step(self, game: Game) -> None:
        """Run the automatic steps that follow once nobody is needed any more."""
        if game.phase == PLANT_TRADED and game.pending is None and not any(game.trade):
            self.end_phase3(game)

    def end_phase3(self, game: Game) -> None:
        """End of phase 3: the end (R-END-2) or phase 4's draws (R-DRAW-1), next turn."""
        if game.final_runout:
            game.end_game()
            return
        a = game.active
        for _ in range(self.config.draw_count):
            card = game.draw_card()
            if card is not None:
                game.hands[a].append(card)
                if game._events is not None:
                    game.emit("draw", a, private={"card": card})
            if game.final_runout:  # R-END-2: in phase 4 the game ends at once
                if not game.over:
                    game.end_game()
                return
        self.start_turn(game, (a + 1) % self.config.players)

    def on_final_runout(self, game: Game) -> None:
        """Called inside the draw that runs the pile out for the last time. The game never
        ends *inside* a draw (the drawn card must first land somewhere): the step that
        drew ends it (R-END-2), at the end of phase 3, or at once in phase 4 and in
        ``first-edition``."""

    def waiting_for(self, game: Game) -> list[int]:
        phase = game.phase
        if phase in (PLANT, TRADE):
            return [game.active]
        if game.phase == PLANT_TRADED:
            n = self.config.players
            a = game.active
            trade = game.trade
            return [(a + i) % n for i in range(n) if trade[(a + i) % n]]
        return []

    def extra_cards(self, game: Game) -> list[int]:
        """Cards in module-owned places (for conservation checks)."""
        return []

    def table_piles(self, game: Game) -> list[list[int]]:
        """Module-owned piles whose cards are discarded when the game ends."""
        return []

    def public_pending(self, game: Game, seat: int | None) -> tuple[Any, ...] | None:
        """The pending indivisible decision as ``seat`` may see it (module decisions are
        public in the base design)."""
        return game.pending

    def public_extra(self, game: Game, seat: int | None) -> dict[str, Any]:
        """Module-owned public state for views (e.g. the duel's offer)."""
        return {}

    # ------------------------------------------------------------------ fields

    def can_plant(self, game: Game, seat: int, card: int, field: int) -> bool:
        f = game.fields[seat][field]
        return not f or self.card_variety[f[-1]] == self.card_variety[card]

    def place(self, game: Game, seat: int, card: int, field: int) -> None:
        """Put a card on top of a field (R-PLANT-3)."""
        game.fields[seat][field].append(card)

    def plant_error(self, game: Game, seat: int, card: int, field: int) -> str | None:
        if (
            not isinstance(field, int)
            or isinstance(field, bool)
            or not 0 <= field < len(game.fields[seat])
        ):
            return f"there is no field {field!r} (seat {seat} has {len(game.fields[seat])})"
        if not self.can_plant(game, seat, card, field):
            top = game.fields[seat][field][-1]
            return (
                f"field {field} holds {self.config.describe(top)}, not "
                f"{self.config.describe(card)}; harvest a field first or plant elsewhere (R-PLANT-3)"
            )
        return None

    def field_coins(self, game: Game, seat: int, field: int) -> int:
        """Coins a harvest of this field would pay now (R-HARV-2)."""
        f = game.fields[seat][field]
        return self.payout[self.card_variety[f[-1]]][len(f)] if f else 0

    def seat_payouts(self, game: Game, seat: int) -> tuple[int, ...]:
        """What each of ``seat``'s fields would pay now (public; shown in views)."""
        if not self._base_payout:
            return tuple([self.field_coins(game, seat, f) for f in range(len(game.fields[seat]))])
        payout = self.payout
        cv = self.card_variety
        return tuple([payout[cv[f[-1]]][len(f)] if f else 0 for f in game.fields[seat]])

    def harvest(self, game: Game, seat: int, field: int, final: bool = False) -> None:
        """Carry out a harvest (R-HARV-2): the top ``coins`` cards become coins, the rest
        go to the discard pile bottom first, so the field's top card ends on top."""
        self.pay_harvest(game, seat, field, self.field_coins(game, seat, field), final)

    def pay_harvest(self, game: Game, seat: int, field: int, coins: int, final: bool) -> None:
        f = game.fields[seat][field]
        cards = f[:]
        split = len(f) - coins
        game.discard.extend(f[:split])
        game.treasury[seat].extend(f[split:])
        f.clear()
        if game._events is not None:
            game.emit("harvest", seat, field=field, cards=cards, coins=coins, final=final)

    def harvest_error(self, game: Game, seat: int, field: int) -> str | None:
        """Why ``seat`` may not harvest ``field`` now, or None (R-HARV-1, R-HARV-3)."""
        fields = game.fields[seat]
        if not isinstance(field, int) or isinstance(field, bool) or not 0 <= field < len(fields):
            return f"there is no field {field!r} (seat {seat} has {len(fields)})"
        n = len(fields[field])
        if n == 0:
            return f"field {field} is empty"
        if n == 1:
            for i, other in enumerate(fields):
                if len(other) > 1:
                    return (
                        f"a field with one bean is protected while field {i} holds "
                        f"{len(other)} (R-HARV-3)"
                    )
        return None

    def may_act_out_of_turn(self, game: Game, seat: int) -> str | None:
        """Harvest/buy timing (R-HARV-1): never inside an indivisible step, i.e. while a
        module decision (a child's lady move, say) is pending, not even for its owner."""
        if game.pending is not None:
            return f"seat {game.pending[0]} must first finish {game.pending[1]} (R-HARV-1)"
        return None

    def buy_error(self, game: Game, seat: int) -> str | None:
        """Why ``seat`` may not buy a third field now (R-FIELD-1, R-FIELD-2, R-VAR-3)."""
        if len(game.fields[seat]) >= 3:
            return "it already has a third field; one per player (R-FIELD-1)"
        if game.supply <= 0:
            return "no third-field card is left in the supply (R-FIELD-1)"
        price = self.config.field_price
        if game.coins(seat) < price:
            return f"a third field costs {price} coins and it has {game.coins(seat)} (R-FIELD-2)"
        return None

    def buy_field(self, game: Game, seat: int, coins: tuple[int, ...] = ()) -> None:
        """Pay with the coins on top of the treasury (R-FIELD-3), or with the ``coins``
        chosen where the rule set lets the buyer choose (checked by :meth:`coins_error`),
        which go onto the discard pile in that order."""
        price = self.config.field_price
        t = game.treasury[seat]
        if coins:
            paid = list(coins)
            for c in paid:
                t.remove(c)
        else:
            paid = t[len(t) - price :]
            del t[len(t) - price :]
        self.spend_coins(game, paid)
        game.fields[seat].append([])
        game.supply -= 1
        if game._events is not None:
            self.emit_buy(game, seat, price, paid)

    def emit_buy(self, game: Game, seat: int, price: int, paid: list[int]) -> None:
        game.emit("buy_field", seat, price=price)

    #: Whether a seat's view shows the cards of its own treasury (R-LADY-10); elsewhere
    #: coins are face down and a view holds only their count (R-INFO-2).
    own_treasury_visible: ClassVar[bool] = False

    def coins_error(self, game: Game, seat: int, coins: tuple[int, ...]) -> str | None:
        """Why a buy may not name ``coins``: here the price is always the top of the
        treasury (R-FIELD-3); a rule set that lets the buyer choose overrides this."""
        if coins:
            return (
                f"in {self.config.rules} the price is paid with the coins on top of the "
                "treasury; a buy names no coins (R-FIELD-3)"
            )
        return None

    def spend_coins(self, game: Game, cards: list[int]) -> None:
        game.discard.extend(cards)

    # ------------------------------------------------------------------ offers

    def offered_card(self, game: Game, card: int, declared: str | None) -> dict[str, Any]:
        """What everyone but the proposer sees of a card offered from a hand: its variety.
        Modules hide or replace attributes (R-BLUFF-1, R-LADY-6)."""
        return {"variety": self.config.variety_of(card)}

    def declared_error(self, game: Game, card: int, declared: str) -> str | None:
        """Whether ``declared`` is an allowed claim about ``card`` ("" is no claim; the
        base game allows no other)."""
        if declared == "":
            return None
        return "nothing may be declared about a card in this rule set"

    def declarations(self, game: Game, card: int) -> list[str | None]:
        """Claims a proposer may make about ``card`` (None: no claim)."""
        return [None]

    def receive(self, game: Game, seat: int, card: int) -> None:
        """A card received in phase 2 goes to the trade area (R-TRADE-5)."""
        game.trade[seat].append(card)

    # ------------------------------------------------------------------ checking

    def check(self, game: Game, seat: int, action: Action) -> None:
        t = action.type
        if game.pending is not None:
            self.check_pending(game, seat, action)
            return
        handler = self._checks.get(t)
        if handler is None:
            raise game.fail(
                seat, t.value, f"that is not possible now in {self.config.rules}", cls=NotYourTurn
            )
        handler(self, game, seat, action)

    def check_pending(self, game: Game, seat: int, action: Action) -> None:
        """Only the pending decision may be taken while one is open (modules override)."""
        assert game.pending is not None
        raise game.fail(
            seat,
            action.type.value,
            f"seat {game.pending[0]} must first finish {game.pending[1]}",
            cls=NotYourTurn,
        )

    def _check_plant(self, game: Game, seat: int, action: Action) -> None:
        what = f"plant on field {action.field}"
        if game.phase != PLANT or seat != game.active:
            raise game.fail(
                seat,
                what,
                _not_now(game, "planting from the hand is phase 1 of one's own turn"),
                "R-PLANT-1",
                NotYourTurn,
            )
        if game.planted >= 2:
            raise game.fail(seat, what, "two cards are already planted this turn", "R-PLANT-2")
        hand = game.hands[seat]
        if not hand:
            raise game.fail(seat, what, "the hand is empty", "R-PLANT-1")
        err = self.plant_error(game, seat, hand[0], action.field)  # type: ignore[arg-type]
        if err:
            raise game.fail(seat, what, err)

    def _check_stop(self, game: Game, seat: int, action: Action) -> None:
        if game.phase != PLANT or seat != game.active:
            raise game.fail(
                seat,
                "stop planting",
                _not_now(game, "it is not its phase 1"),
                "R-PLANT-2",
                NotYourTurn,
            )
        if game.planted == 0:
            raise game.fail(
                seat, "stop planting", "the front card must be planted first", "R-PLANT-1"
            )

    def _check_trade_phase(self, game: Game, seat: int, what: str) -> None:
        if not self.trading:
            raise game.fail(
                seat, what, f"there is no trading in {self.config.rules}", "R-DUEL-1", NotYourTurn
            )
        if game.phase != TRADE:
            raise game.fail(
                seat, what, _not_now(game, "trading happens in phase 2"), "R-TRADE-1", NotYourTurn
            )

    def _check_propose(self, game: Game, seat: int, action: Action) -> None:
        what = "propose this offer"
        self._check_trade_phase(game, seat, what)
        offer = action.offer
        if not isinstance(offer, Offer):
            raise game.fail(seat, what, "the action carries no offer", cls=InvalidOffer)
        self.offer_error(game, seat, offer)

    def offer_error(self, game: Game, seat: int, offer: Offer) -> None:
        what = "propose this offer"
        n = self.config.players
        a = game.active
        to = offer.to
        if not isinstance(to, int) or isinstance(to, bool) or not 0 <= to < n or to == seat:
            raise game.fail(
                seat, what, f"the partner must be another seat, not {to!r}", cls=InvalidOffer
            )
        if seat != a and to != a:
            raise game.fail(
                seat,
                what,
                f"non-active players trade only with the active seat {a}",
                "R-TRADE-2",
                InvalidOffer,
            )
        if sum(1 for p, _ in game.offers.values() if p == seat) >= MAX_OPEN_OFFERS:
            raise game.fail(
                seat,
                what,
                f"at most {MAX_OPEN_OFFERS} offers may be open at once",
                cls=InvalidOffer,
            )
        give = offer.give
        if not give and not offer.want:
            raise game.fail(seat, what, "it neither gives nor asks for anything", cls=InvalidOffer)
        if len(give) > MAX_OFFER_CARDS or sum(c for _, c in offer.want) > MAX_OFFER_CARDS:
            raise game.fail(
                seat, what, f"at most {MAX_OFFER_CARDS} cards on each side", cls=InvalidOffer
            )
        if len(set(give)) != len(give):
            raise game.fail(seat, what, "a card is given twice", cls=InvalidOffer)
        mine = game.tradeable(seat)
        for c in give:
            if c not in mine:
                where = "its hand or the drawn cards" if seat == a else "its hand"
                raise game.fail(
                    seat, what, f"card {c} is not in {where}", "R-TRADE-2", InvalidOffer
                )
        seen: set[str] = set()
        for item in offer.want:
            if not (isinstance(item, tuple) and len(item) == 2):
                raise game.fail(seat, what, f"malformed want {item!r}", cls=InvalidOffer)
            v, count = item
            if v not in self.config.varieties:
                raise game.fail(
                    seat, what, f"{v!r} is not a variety of {self.config.rules}", cls=InvalidOffer
                )
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise game.fail(
                    seat, what, f"want count for {v} must be a positive integer", cls=InvalidOffer
                )
            if v in seen:
                raise game.fail(seat, what, f"{v} is asked for twice", cls=InvalidOffer)
            seen.add(v)
        if offer.declared:
            if len(offer.declared) != len(give):
                raise game.fail(
                    seat, what, "declare one claim per given card, or none", cls=InvalidOffer
                )
            for c, d in zip(give, offer.declared, strict=True):
                if not isinstance(d, str):
                    raise game.fail(
                        seat, what, f"a declaration must be a string, not {d!r}", cls=InvalidOffer
                    )
                if d and c in game.drawn:
                    raise game.fail(
                        seat,
                        what,
                        "drawn cards are face up: nothing to declare",
                        "R-BLUFF-2",
                        InvalidOffer,
                    )
                err = self.declared_error(game, c, d)
                if err:
                    raise game.fail(seat, what, err, cls=InvalidOffer)

    def _offer_for(self, game: Game, seat: int, action: Action, what: str) -> tuple[int, Offer]:
        self._check_trade_phase(game, seat, what)
        entry = game.offers.get(action.offer_id) if isinstance(action.offer_id, int) else None
        if entry is None:
            raise game.fail(
                seat, what, f"there is no open offer {action.offer_id!r}", cls=InvalidOffer
            )
        return entry

    def _check_accept(self, game: Game, seat: int, action: Action) -> None:
        what = f"accept offer {action.offer_id}"
        proposer, offer = self._offer_for(game, seat, action, what)
        if offer.to != seat:
            raise game.fail(seat, what, f"it is addressed to seat {offer.to}", cls=InvalidOffer)
        cards = action.cards
        if len(set(cards)) != len(cards):
            raise game.fail(seat, what, "a card is chosen twice", cls=InvalidOffer)
        mine = game.tradeable(seat)
        for c in cards:
            if c not in mine:
                raise game.fail(
                    seat,
                    what,
                    f"card {c} is not among its tradeable cards",
                    "R-TRADE-2",
                    InvalidOffer,
                )
        want = {v: n for v, n in offer.want}
        got: dict[str, int] = {}
        for c in cards:
            v = self.config.variety_of(c)
            got[v] = got.get(v, 0) + 1
        if got != want:
            asked = ", ".join(f"{n} {v}" for v, n in offer.want) or "nothing"
            chosen = ", ".join(f"{n} {v}" for v, n in got.items()) or "nothing"
            raise game.fail(
                seat,
                what,
                f"the offer asks for {asked}; the chosen cards are {chosen}",
                cls=InvalidOffer,
            )
        theirs = game.tradeable(proposer)
        if any(c not in theirs for c in offer.give):
            raise game.fail(
                seat,
                what,
                f"seat {proposer} no longer holds the offered cards",
                "R-TRADE-3",
                InvalidOffer,
            )

    def _check_decline(self, game: Game, seat: int, action: Action) -> None:
        what = f"decline offer {action.offer_id}"
        _, offer = self._offer_for(game, seat, action, what)
        if offer.to != seat:
            raise game.fail(seat, what, f"it is addressed to seat {offer.to}", cls=InvalidOffer)

    def _check_withdraw(self, game: Game, seat: int, action: Action) -> None:
        what = f"withdraw offer {action.offer_id}"
        proposer, _ = self._offer_for(game, seat, action, what)
        if proposer != seat:
            raise game.fail(seat, what, f"it was proposed by seat {proposer}", cls=InvalidOffer)

    def _check_end_trading(self, game: Game, seat: int, action: Action) -> None:
        self._check_trade_phase(game, seat, "end trading")
        if seat != game.active:
            raise game.fail(
                seat,
                "end trading",
                f"only the active seat {game.active} ends phase 2",
                "R-TRADE-6",
                NotYourTurn,
            )

    def _check_plant_traded(self, game: Game, seat: int, action: Action) -> None:
        what = f"plant card {action.card} on field {action.field}"
        if game.phase != PLANT_TRADED:
            raise game.fail(
                seat,
                what,
                _not_now(game, "traded cards are planted in phase 3"),
                "R-PLANT-4",
                NotYourTurn,
            )
        if action.card not in game.trade[seat]:
            raise game.fail(seat, what, "that card is not in its trade area", "R-PLANT-4")
        err = self.plant_error(game, seat, action.card, action.field)  # type: ignore[arg-type]
        if err:
            raise game.fail(seat, what, err)

    def _check_harvest(self, game: Game, seat: int, action: Action) -> None:
        what = f"harvest field {action.field}"
        err = self.may_act_out_of_turn(game, seat) or self.harvest_error(game, seat, action.field)  # type: ignore[arg-type]
        if err:
            raise game.fail(seat, what, err)  # the reason cites its rule; .rule is read from it

    def _check_buy(self, game: Game, seat: int, action: Action) -> None:
        err = (
            self.may_act_out_of_turn(game, seat)
            or self.buy_error(game, seat)
            or self.coins_error(game, seat, action.cards)
        )
        if err:
            raise game.fail(seat, "buy a third field", err)

    _checks: ClassVar[dict[ActionType, Any]] = {
        _T.PLANT: _check_plant,
        _T.STOP_PLANTING: _check_stop,
        _T.PROPOSE: _check_propose,
        _T.ACCEPT: _check_accept,
        _T.DECLINE: _check_decline,
        _T.WITHDRAW: _check_withdraw,
        _T.END_TRADING: _check_end_trading,
        _T.PLANT_TRADED: _check_plant_traded,
        _T.HARVEST: _check_harvest,
        _T.BUY_FIELD: _check_buy,
    }

    # ------------------------------------------------------------------ executing (already checked)

    def execute(self, game: Game, seat: int, action: Action) -> None:
        t = action.type
        if t is _T.PLANT:
            card = game.hands[seat].pop(0)
            field: int = action.field  # type: ignore[assignment]
            if game._events is not None:
                game.emit(
                    "plant", seat, card=card, field=field, variety=self.config.variety_of(card)
                )
            self.place(game, seat, card, field)
            game.planted += 1
            if game.pending is None:
                self.after_plant(game)
        elif t is _T.STOP_PLANTING:
            game.emit("stop_planting", seat)
            self.start_trade(game)
        elif t is _T.HARVEST:
            self.harvest(game, seat, action.field)  # type: ignore[arg-type]
        elif t is _T.BUY_FIELD:
            self.buy_field(game, seat, action.cards)
        elif t is _T.PLANT_TRADED:
            card = action.card  # type: ignore[assignment]
            game.trade[seat].remove(card)
            if game._events is not None:
                game.emit(
                    "plant",
                    seat,
                    card=card,
                    field=action.field,
                    variety=self.config.variety_of(card),
                    traded=True,
                )
            self.place(game, seat, card, action.field)  # type: ignore[arg-type]
            self.after_step(game)
        elif t is _T.PROPOSE:
            self.propose(game, seat, action.offer)  # type: ignore[arg-type]
        elif t is _T.ACCEPT:
            self.accept(game, seat, action)
        elif t is _T.DECLINE:
            proposer, offer = game.offers.pop(action.offer_id)  # type: ignore[arg-type]
            game.emit(
                "decline", seat, offer_id=action.offer_id, proposer=proposer, gift=offer.is_gift
            )
        elif t is _T.WITHDRAW:
            game.offers.pop(action.offer_id)  # type: ignore[arg-type]
            game.emit("withdraw", seat, offer_id=action.offer_id)
        elif t is _T.END_TRADING:
            game.emit("end_trading", seat)
            self.end_trading(game)
        else:
            self.execute_extra(game, seat, action)

    def execute_extra(self, game: Game, seat: int, action: Action) -> None:
        """Action types that only modules define (already checked by their ``_checks``)."""
        raise IllegalAction(f"{action!r} is not handled in {self.config.rules}")

    # A queue of indivisible decisions (R-HARV-1): ``game.pending`` is the head, the rest
    # wait in ``game.extra["queue"]``. When the last is done, the interrupted flow resumes.

    def push_pending(self, game: Game, item: tuple[Any, ...]) -> None:
        if game.pending is None:
            game.pending = item
        else:
            game.extra.setdefault("queue", []).append(list(item))

    def pop_pending(self, game: Game) -> None:
        queue = game.extra.get("queue")
        if queue:
            game.pending = tuple(queue.pop(0))
            if not queue:
                del game.extra["queue"]
            return
        game.pending = None
        self.resume(game)

    def resume(self, game: Game) -> None:
        """Continue the turn after the last pending decision."""
        if game.phase == PLANT:
            self.after_plant(game)
        else:
            self.after_step(game)

    def after_plant(self, game: Game) -> None:
        """After a phase-1 plant: the optional second card, else on to phase 2."""
        if game.planted >= 2 or not game.hands[game.active]:
            self.start_trade(game)

    def propose(self, game: Game, seat: int, offer: Offer) -> None:
        oid = game.next_offer_id
        game.next_offer_id += 1
        game.offers[oid] = (seat, offer)
        shown = [self.public_offered(game, seat, c, d) for c, d in _with_declared(offer)]
        game.emit(
            "offer",
            seat,
            private={"give_cards": list(offer.give)},
            offer_id=oid,
            to=offer.to,
            give=shown,
            want=[list(w) for w in offer.want],
        )

    def public_offered(
        self, game: Game, seat: int, card: int, declared: str | None
    ) -> dict[str, Any]:
        """An offered card as others see it: drawn cards face up, hand cards by hook."""
        if card in game.drawn:
            return {
                "card": card,
                "variety": self.config.variety_of(card),
                **({"kind": self.config.card_kind[card]} if self.config.card_kind[card] else {}),
            }
        return self.offered_card(game, card, declared)

    def accept(self, game: Game, seat: int, action: Action) -> None:
        """Execute a trade atomically: both sides' cards to the other's trade area."""
        proposer, offer = game.offers.pop(action.offer_id)  # type: ignore[arg-type]
        for who, cards in ((proposer, offer.give), (seat, action.cards)):
            hand = game.hands[who]
            for c in cards:
                if c in hand:
                    hand.remove(c)
                else:
                    game.drawn.remove(c)
        game.emit(
            "trade",
            seat,
            offer_id=action.offer_id,
            proposer=proposer,
            gave=list(offer.give),
            got=list(action.cards),
            gift=offer.is_gift,
        )
        for c in offer.give:
            self.receive(game, seat, c)
        for c in action.cards:
            self.receive(game, proposer, c)
        self.drop_stale_offers(game)

    def drop_stale_offers(self, game: Game) -> None:
        for oid, (p, o) in list(game.offers.items()):
            held = game.tradeable(p)
            if any(c not in held for c in o.give):
                del game.offers[oid]
                game.emit("offer_cancelled", p, offer_id=oid, reason="offered cards are gone")

    # ------------------------------------------------------------------ listing legal actions

    def legal_actions(self, game: Game, seat: int, offers: bool = True) -> list[Action]:
        if game.pending is not None:
            acts = self.pending_actions(game, seat) if game.pending[0] == seat else []
            return acts + self.anytime_actions(game, seat)
        acts = []
        phase = game.phase
        if phase == PLANT:
            if seat == game.active:
                hand = game.hands[seat]
                if hand and game.planted < 2:
                    card = hand[0]
                    if self._base_planting:
                        cv = self.card_variety
                        v = cv[card]
                        acts = [
                            _PLANT[i]
                            for i, f in enumerate(game.fields[seat])
                            if not f or cv[f[-1]] == v
                        ]
                    else:
                        acts = [
                            Action.plant(f)
                            for f in range(len(game.fields[seat]))
                            if self.can_plant(game, seat, card, f)
                        ]
                if game.planted == 1:
                    acts.append(_STOP)
        elif phase == TRADE:
            if self.trading:
                acts += self.trade_actions(game, seat, offers)
            if seat == game.active:
                acts.append(Action.end_trading())
        elif phase == PLANT_TRADED:
            fields = game.fields[seat]
            if self._base_planting:
                cv = self.card_variety
                tops = [cv[f[-1]] if f else -1 for f in fields]
                acts = [
                    Action(_T.PLANT_TRADED, field=i, card=card)
                    for card in game.trade[seat]
                    for i, top in enumerate(tops)
                    if top < 0 or top == cv[card]
                ]
            else:
                acts = [
                    Action.plant_traded(card, f)
                    for card in game.trade[seat]
                    for f in range(len(fields))
                    if self.can_plant(game, seat, card, f)
                ]
        return acts + self.anytime_actions(game, seat)

    def pending_actions(self, game: Game, seat: int) -> list[Action]:
        return []

    def anytime_actions(self, game: Game, seat: int) -> list[Action]:
        """Harvests and the field purchase, when their timing allows (R-HARV-1, R-FIELD-1).
        The purchase is listed once, naming no coins: where the buyer chooses them
        (R-LADY-10), any valid choice passes :meth:`check` just as the template does."""
        if game.pending is not None or (
            not self._base_timing and self.may_act_out_of_turn(game, seat)
        ):
            return []
        fields = game.fields[seat]
        multi = False
        for f in fields:
            if len(f) > 1:
                multi = True
                break
        acts = [_HARVEST[i] for i, f in enumerate(fields) if f and (len(f) > 1 or not multi)]
        if (
            len(fields) < 3
            and game.supply > 0
            and len(game.treasury[seat]) >= self.config.field_price
            and self.buy_error(game, seat) is None
        ):
            acts.append(Action.buy_field())
        return acts

    def trade_actions(self, game: Game, seat: int, offers: bool = True) -> list[Action]:
        """Answers to open offers (every choice of cards, capped) plus offer templates."""
        acts: list[Action] = []
        mine = game.tradeable(seat)
        for oid, (p, o) in game.offers.items():
            if p == seat:
                acts.append(Action.withdraw(oid))
            elif o.to == seat:
                acts.append(Action.decline(oid))
                for choice in _choices(mine, o.want, self.config):
                    acts.append(Action.accept(oid, choice))
        if offers:
            acts += self.offer_templates(game, seat)
        return acts

    def offer_templates(self, game: Game, seat: int) -> list[Action]:
        """A finite, useful sample of offers: each distinct card as a gift, or for one card
        of a variety the proposer grows (or, for a non-active seat, one of the drawn)."""
        if sum(1 for p, _ in game.offers.values() if p == seat) >= MAX_OPEN_OFFERS:
            return []
        a = game.active
        partners = [s for s in range(self.config.players) if s != seat] if seat == a else [a]
        wanted: list[str] = []
        for f in game.fields[seat]:
            if f:
                v = self.config.variety_of(f[-1])
                if v not in wanted:
                    wanted.append(v)
        if seat != a:
            for c in game.drawn:
                v = self.config.variety_of(c)
                if v not in wanted:
                    wanted.append(v)
        acts: list[Action] = []
        seen: set[tuple[int, str, bool]] = set()
        for card in game.tradeable(seat):
            key = (self.card_variety[card], self.config.card_kind[card], card in game.drawn)
            if key in seen:
                continue
            seen.add(key)
            own = self.config.variety_of(card)
            for d in [None] if card in game.drawn else self.declarations(game, card):
                declared = (d,) if d is not None else ()
                for to in partners:
                    acts.append(Action.propose(Offer(to, (card,), (), declared)))
                    for v in wanted:
                        if v != own:
                            acts.append(Action.propose(Offer(to, (card,), ((v, 1),), declared)))
        return acts


def _with_declared(offer: Offer) -> list[tuple[int, str | None]]:
    if offer.declared:
        return [(c, d or None) for c, d in zip(offer.give, offer.declared, strict=True)]
    return [(c, None) for c in offer.give]


def _choices(
    mine: list[int], want: tuple[tuple[str, int], ...], config: GameConfig, cap: int = 16
) -> list[tuple[int, ...]]:
    """Every way to pick the wanted cards from ``mine``, up to ``cap`` ways."""
    from itertools import combinations, product

    per: list[list[tuple[int, ...]]] = []
    for v, n in want:
        pool = [c for c in mine if config.variety_of(c) == v]
        if len(pool) < n:
            return []
        per.append(list(combinations(pool, n)))
    out: list[tuple[int, ...]] = []
    for combo in product(*per):
        out.append(tuple(c for part in combo for c in part))
        if len(out) >= cap:
            break
    return out


def _not_now(game: Game, why: str) -> str:
    if game.phase == OVER:
        return "the game is over"
    return f"{why}; now it is seat {game.active}'s turn, phase {game.phase}"
