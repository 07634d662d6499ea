"""The rules engine: one mutable game state, validated actions, automatic chance steps.

Design (the map of the code is docs/design.md):

* There is no single "current player". :meth:`Game.legal_actions` answers for any seat at
  any moment, because in phase 2 several seats act at once and anybody may harvest or buy a
  third field out of turn (R-HARV-1, R-FIELD-1). A driver (:mod:`bohnanza.driver`) decides
  whom to ask; a server takes actions in arrival order. Both call :meth:`Game.apply`.
* :meth:`Game.apply` first checks the whole action, raising :class:`IllegalAction` with the
  rule ID, and only then changes anything: a rejected action leaves the state exactly as it
  was. Chance steps (draws, reshuffles) run automatically right after the action that causes
  them, from the game's own seeded generator (:mod:`bohnanza.shuffle`: a cryptographic one,
  so the cards a player sees tell nothing about the cards they do not).
* Cards are ints indexing the config's public tables; piles are plain lists (hands front
  first; draw, discard and treasury with their top at the end; fields bottom to top).
* What modules change goes through ``self.hooks`` (:class:`bohnanza.modules.base.Hooks`);
  the core holds no module names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

from .actions import Action, ActionType, Offer, shape_error
from .errors import (
    ConfigError,
    GameOver,
    IllegalAction,
    InvalidOffer,
    NotYourTurn,
    RecordError,
    Refusal,
)
from .events import Event
from .rules import GameConfig, make_config
from .shuffle import (
    COMPILED,
    DEFAULT,
    Generator,
    copy_generator,
    fresh_seed,
    generator_name,
    load_generator,
    make_generator,
    save_generator,
)
from .state import (
    DECISION_KINDS,
    MAX_OFFER_CARDS,
    MAX_OPEN_OFFERS,
    OVER,
    PLANT,
    PLANT_TRADED,
    TRADE,
    CardId,
    FieldId,
    ModuleState,
    Pending,
    Phase,
    SeatId,
    decision_arg_kind,
    decision_args,
    decision_names,
    declare_decision,
)
from .views import HELD_BASE, OfferViews, SeatView, View, live_view, make_view, retire

if TYPE_CHECKING:
    import random

    from .determinise import SeenCards
    from .modules.base import Hooks


# The phases, pending decisions and module state live a layer below (bohnanza.state),
# shared with the rules' hooks; they are re-exported here, where programs find them.
# The same as plain ``str`` for comparisons: compiled, ``str == str`` is a C string check
# (the same object, at once), where an enum member is compared through Python's generic
# comparison.
_OVER: Final[str] = OVER
_ACCEPT: Final = ActionType.ACCEPT
_ACTION: Final = Action  # the class, compared with every action's type

_T = ActionType


#: :func:`bohnanza.determinise.determinise`, registered by that module when it is imported
#: (:meth:`Game.determinise`): the engine does not import the layer above it.
_DETERMINISE: list[Callable[[View, random.Random, SeenCards | None], Game]] = []


def register_determiniser(
    function: Callable[[View, random.Random, SeenCards | None], Game],
) -> None:
    """Make ``function`` the one :meth:`Game.determinise` calls (bohnanza.determinise)."""
    _DETERMINISE[:] = [function]


#: The version of :meth:`Game.to_dict`'s format; :meth:`Game.from_dict` reads only this one.
STATE_VERSION = 1

#: Events that report the card a draw took (logged before that draw's run-out).
_CARD_EVENTS = frozenset(("draw", "turn_over", "reveal"))


@mypyc_attr(allow_interpreted_subclasses=True)
class Game:
    """A game in progress. Create with :meth:`Game.new`; drive with :meth:`apply`."""

    __slots__ = (
        "_events",
        "_live_views",
        "_offer_views",
        "_seat_views",
        "active",
        "config",
        "discard",
        "draw",
        "drawn",
        "extra",
        "fields",
        "final_runout",
        "hands",
        "hooks",
        "initial_deck",
        "next_offer_id",
        "offers",
        "out",
        "pending",
        "phase",
        "planted",
        "rng",
        "runouts",
        "scores",
        "seed",
        "supply",
        "trade",
        "treasury",
        "turn",
        "winners",
    )

    config: GameConfig
    hooks: Hooks
    seed: int
    rng: Generator
    initial_deck: tuple[int, ...]
    draw: list[int]
    discard: list[int]
    out: list[int]
    hands: list[list[int]]
    fields: list[list[list[int]]]
    treasury: list[list[int]]
    trade: list[list[int]]
    drawn: list[int]
    offers: dict[int, tuple[int, Offer]]
    next_offer_id: int
    supply: int
    active: int
    phase: str
    planted: int
    turn: int
    runouts: int
    final_runout: bool
    pending: Pending | None
    #: The pending queue and a module's own state (``hooks.state_class``).
    extra: ModuleState
    scores: tuple[int, ...] | None
    winners: tuple[int, ...] | None
    _events: list[Event] | None
    _seat_views: list[SeatView | None]
    _offer_views: OfferViews
    #: The live views handed out since the last action (completed before the next one:
    #: :func:`bohnanza.views.retire`).
    _live_views: list[View]

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(
        cls,
        rules: object = "classic",
        players: object = 4,
        *,
        modules: Sequence[str] = (),
        options: Mapping[str, str] | None = None,
        seed: object = None,
        deck: Sequence[str | int] | None = None,
        generator: str = DEFAULT,
        events: bool = True,
    ) -> Game:
        """Create a game and deal (R-SETUP-1…5).

        ``seed`` makes the game repeatable: the same seed (and generator) deals the same
        game. Without one the game takes 128 bits from :mod:`secrets`, so that nobody can
        work the deck out from the cards they see. ``deck`` fixes the order of the first
        cards, top first, as variety keys (``"blue"``) or card ids; the rest of the deck
        follows in a seeded shuffle. Hands are dealt in seat order: seat 0 takes the first
        cards, then seat 1, and so on. ``generator`` names the shuffle generator
        (:data:`bohnanza.shuffle.GENERATORS`); only replays of old records need another.
        ``events=False`` plays without recording events (simulations, search; see
        :meth:`record_events`). ``rules``, ``players`` and ``seed`` often come from
        outside (a record, a request): a wrong type is a :class:`ConfigError`.
        """
        config = make_config(rules, players, options, tuple(modules))
        return cls(config, seed=seed, deck=deck, generator=generator, events=events)

    def __init__(
        self,
        config: GameConfig,
        *,
        seed: object = None,
        deck: Sequence[str | int] | None = None,
        generator: str = DEFAULT,
        events: bool = True,
        _blank: bool = False,
    ) -> None:
        from .modules import hooks_for

        if _blank:  # clone() and from_dict() fill every slot themselves
            return
        if seed is None:
            seed = fresh_seed()
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ConfigError(f"seed must be an integer, got {seed!r}")
        self.config = config
        self.hooks = hooks_for(config)
        self.seed = seed
        self.rng = make_generator(generator, seed)
        order = self._arrange(deck)
        self.initial_deck = tuple(order)
        n = config.players
        self.draw = order[::-1]
        self.discard = []
        self.out = []
        self.hands = []
        for size in config.hand_sizes:
            self.hands.append([self.draw.pop() for _ in range(size)])
        fields = 3 if config.start_with_third_field else 2
        self.fields = [[[] for _ in range(fields)] for _ in range(n)]
        self.treasury = [[] for _ in range(n)]
        self.trade = [[] for _ in range(n)]
        self.drawn = []
        self.offers = {}
        self.next_offer_id = 1
        self.supply = config.third_fields - (n if config.start_with_third_field else 0)
        self.active = 0
        self.phase = PLANT
        self.planted = 0
        self.turn = 0
        self.runouts = 0
        self.final_runout = False
        self.pending = None
        self.extra = self.hooks.state_class()
        self.scores = None
        self.winners = None
        self._events = None
        self._seat_views = [None] * n
        self._offer_views = {}
        self._live_views = []
        self.hooks.setup(self)
        self.hooks.start_turn(self, 0)
        if events:  # from the first action on (the deal and the first turn are not logged)
            self._events = []

    def _arrange(self, deck: Sequence[str | int] | None) -> list[int]:
        # Shuffle first in every case, so that the RNG is in the same state afterwards
        # whether or not an explicit order is given: a record that stores the full deck
        # and the seed then replays later reshuffles exactly.
        size = self.config.deck_size
        order = list(range(size))
        self.rng.shuffle(order)
        if deck is None:
            return order
        if isinstance(deck, str | bytes):
            raise ConfigError("deck must be a list of variety keys or card ids, not a string")
        if not isinstance(deck, Sequence):
            raise ConfigError("deck must be a list of variety keys or card ids")
        for i, item in enumerate(deck):
            if isinstance(item, bool) or not isinstance(item, int | str):
                raise ConfigError(f"deck[{i}] must be a variety key or a card id, got {item!r}")
        ids = [item for item in deck if isinstance(item, int)]
        for card in ids:
            if not 0 <= card < size:
                raise ConfigError(f"deck: card id {card} is out of range 0..{size - 1}")
        if len(set(ids)) != len(ids):
            raise ConfigError("deck: a card id is repeated")
        used: set[int] = set(ids)
        free: dict[int, list[int]] = {}
        for card in range(size - 1, -1, -1):
            if card not in used:
                free.setdefault(self.config.card_variety[card], []).append(card)
        taken: list[int] = []
        for i, item in enumerate(deck):
            if isinstance(item, int):
                taken.append(item)
                continue
            v = self.config.variety_index(item)
            if not free.get(v):
                raise ConfigError(
                    f"deck[{i}]: no {item!r} card left in the {self.config.rules} deck"
                )
            card = free[v].pop()
            used.add(card)
            taken.append(card)
        return taken + [c for c in order if c not in used]

    # ------------------------------------------------------------------ small queries

    @property
    def generator(self) -> str:
        """The name of the shuffle generator (:mod:`bohnanza.shuffle`), kept in records."""
        return generator_name(self.rng)

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def over(self) -> bool:
        return self.phase == _OVER

    def variety(self, card: int) -> int:
        return self.config.card_variety[card]

    def coins(self, seat: int) -> int:
        return len(self.treasury[seat])

    def field_variety(self, seat: int, field: int) -> int | None:
        f = self.fields[seat][field]
        return self.config.card_variety[f[-1]] if f else None

    def tradeable(self, seat: int) -> list[int]:
        """Cards ``seat`` may give in phase 2: the hand, plus the drawn cards if active."""
        return self.hands[seat] + self.drawn if seat == self.active else list(self.hands[seat])

    def waiting_for(self) -> list[int]:
        """Seats whose decision the game needs before it can go on, active seat first.

        In phase 2 nobody is strictly needed except the active player, who must end it.
        """
        if self.phase == _OVER:
            return []
        if self.pending is not None:
            return [self.pending.seat]
        return self.hooks.waiting_for(self)

    # ------------------------------------------------------------------ events

    def record_events(self, on: bool = True) -> list[Event]:
        """Switch event recording on (the default of a new game) or off; returns the live
        list the engine appends to (empty while off). Recording costs time: simulations
        and search play without it."""
        if not on:
            self._events = None
            return []
        if self._events is None:
            self._events = []
        return self._events

    @property
    def recording(self) -> bool:
        """Whether :meth:`apply` records events (:meth:`record_events`)."""
        return self._events is not None

    def emit(
        self,
        type_: str,
        seat: int | None = None,
        private: Mapping[str, Any] | None = None,
        **data: Any,
    ) -> None:
        events = self._events
        if events is None:
            return
        if type_ in _CARD_EVENTS and events and events[-1].type == "runout":
            # draw_card() announces the run-out as it takes the last card, before its
            # caller reports the card: the log tells the draw first, then the run-out.
            events.insert(len(events) - 1, Event(type_, seat, data, private))
            return
        events.append(Event(type_, seat, data, private))

    # ------------------------------------------------------------------ actions

    def apply(self, seat: object, action: object, *, trusted: bool = False) -> list[Event]:
        """Check ``action`` for ``seat`` and carry it out, or raise and change nothing.

        Returns the events it caused while the game records them (:meth:`record_events`),
        else an empty list. ``trusted=True`` skips the check: only for an action taken
        from :meth:`legal_actions` *of this same state* (the random-play checker verifies
        that every listed action passes the check); anything else must be checked.
        Typed ``object`` as :meth:`check` is: a wrong type gets an ``IllegalAction``.
        """
        if type(seat) is not int or type(action) is not _ACTION:
            self.check(seat, action)  # refuses it: not a seat number, or not an action
            raise AssertionError(f"check accepted seat {seat!r} with {action!r}")
        if not trusted:
            self.check(seat, action)
        if self._live_views:  # views handed out of this state: complete those still held
            retire(self._live_views, HELD_BASE)
        events = self._events
        start = len(events) if events is not None else 0
        proposer = None
        if action.type is _ACCEPT:
            proposer = self.offers[action.offer_id][0]  # type: ignore[index]
        active = self.active
        interrupted = self.pending is not None
        rule = self.hooks.rules.get(action.type)
        if rule is None:
            raise IllegalAction(f"{action!r} is not handled in {self.config.rules}", seat=seat)
        rule.execute(self, seat, action)
        # An action changes the public side of its actor, the active seat (automatic
        # draws, kept cards) and a trade partner only; the end of the game changes all,
        # and so may the queue of pending decisions (a child of another seat placed
        # once a lady move is done), so anything touching it refreshes every seat.
        cache = self._seat_views
        if self.phase == _OVER or interrupted or self.pending is not None:
            cache[:] = [None] * self.players
        else:
            cache[seat] = cache[active] = cache[self.active] = None
            if proposer is not None:
                cache[proposer] = None
        return events[start:] if events is not None else []

    def check(self, seat: object, action: object) -> None:
        """Raise :class:`IllegalAction` unless ``seat`` may do ``action`` now.

        Typed ``object``: whatever a caller passes gets an answer here, an
        ``IllegalAction`` for a wrong type too (a compiled core would otherwise refuse
        it with a ``TypeError`` before the first line)."""
        if type(seat) is not int or not 0 <= seat < self.config.players:
            why = f"there is no seat {seat!r} in a {self.players}-player game"
            raise IllegalAction(why, refusal=Refusal(-1, "act", why, code="no_seat"))
        if type(action) is not Action:
            why = f"not an action: {action!r}"
            raise IllegalAction(why, seat=seat, refusal=Refusal(seat, "act", why, code="malformed"))
        malformed = shape_error(action)
        if malformed:
            why = f"sent a malformed action: {malformed}"
            raise IllegalAction(
                f"seat {seat} {why}",
                seat=seat,
                refusal=Refusal(seat, "act", why, code="malformed"),
            )
        if self.phase == _OVER:
            raise Refusal(seat, "act", "the game is over", kind=GameOver).error()
        refusal = self.hooks.refusal(self, seat, action)
        if refusal is not None:
            raise refusal.error()

    def refusal(self, seat: object, action: object) -> Refusal | None:
        """Why ``seat`` may not take ``action`` now, as data, or None when it may (the
        refusal's seat is -1 when ``seat`` is not an integer)."""
        try:
            self.check(seat, action)
        except IllegalAction as exc:
            if exc.refusal is not None:
                return exc.refusal
            return Refusal(
                seat if type(seat) is int else -1,
                action.type.value if isinstance(action, Action) else "act",
                str(exc),
            )
        return None

    def is_legal(self, seat: object, action: object) -> bool:
        try:
            self.check(seat, action)
        except IllegalAction:
            return False
        return True

    def legal_actions(self, seat: int, offers: bool = True) -> list[Action]:
        """Every action ``seat`` may take now. Offers are listed as a finite sample of
        one-card templates (the space of all offers is too large to list); any
        well-formed offer passes :meth:`apply`. ``offers=False`` leaves the templates
        out, for agents that never propose (it is the costliest part of the list)."""
        if self.phase == _OVER:
            return []
        return self.hooks.legal_actions(self, seat, offers)

    # ------------------------------------------------------------------ helpers the hooks use

    def draw_card(self) -> int | None:
        """Take the top card of the draw pile (R-DECK-1, R-END-1).

        Reshuffles the discard pile when a card is needed and the pile is empty; returns
        ``None`` after the final run-out. A run-out is counted when a draw removes the
        last card.
        """
        if not self.draw:
            if self.final_runout:
                return None
            if not self.discard:
                self.emit("runout", count=self.runouts, final=True, reason="no cards left")
                self._final_runout()
                return None
            self.draw = self.discard
            self.discard = []
            self.rng.shuffle(self.draw)
            self.emit("reshuffle", cards=len(self.draw))
        card = self.draw.pop()
        if not self.draw:
            self.runouts += 1
            final = self.runouts >= self.config.runouts_to_end
            self.emit("runout", count=self.runouts, final=final)
            if final:
                self._final_runout()
        return card

    def _final_runout(self) -> None:
        self.final_runout = True
        self.hooks.on_final_runout(self)

    def end_game(self) -> None:
        """Final harvest and scores (R-END-3, R-END-4, R-END-5)."""
        self.offers.clear()
        self.pending = None
        self.extra.queue.clear()
        for pile in (self.drawn, *self.trade, *self.hooks.table_piles(self)):
            if pile:
                self.discard.extend(pile)
                self.emit("discard_unplanted", cards=list(pile))
                pile.clear()
        self.phase = OVER
        # R-END-5: in turn order from the active player, each player's fields in order; a
        # Gardener lady's coins (R-LADY-5) come from the discard pile earlier harvests fed.
        for k in range(self.players):
            seat = (self.active + k) % self.players
            for f in range(len(self.fields[seat])):
                if self.fields[seat][f]:
                    self.hooks.harvest(self, seat, f, final=True)
        scores = tuple(len(t) for t in self.treasury)
        best = max(scores)
        tied = [s for s in range(self.players) if scores[s] == best]
        most = max(len(self.hands[s]) for s in tied)
        self.scores = scores
        self.winners = tuple(s for s in tied if len(self.hands[s]) == most)
        self.emit("game_over", scores=list(scores), winners=list(self.winners), turns=self.turn)

    def result(self) -> dict[str, Any]:
        """Scores, winners and length of a finished game."""
        if self.scores is None or self.winners is None:
            raise IllegalAction("the game is not over yet")
        return {"scores": list(self.scores), "winners": list(self.winners), "turns": self.turn}

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None, cached: bool = False, lazy: bool = True) -> View:
        """What ``seat`` may know (``None``: a spectator), as a :class:`bohnanza.views.View`.

        ``cached=True`` reuses the public parts of seats that no action touched since the
        last cached view (the driver's hot path), and makes a live view, whose parts are
        computed when read (issue 34; ``lazy=False``: all at once, for a reader that reads
        every part, such as the RL encoding). The game owns that cache: it is valid
        while every change goes through :meth:`apply`; code that edits the state directly
        calls :meth:`invalidate_views` afterwards (or uses the default).
        """
        if type(seat) is int:
            if cached and 0 <= seat < len(self._seat_views):  # the driver's hot path
                if lazy:  # _live_view, written out: one call less per decision
                    live = self._live_views
                    if len(live) >= 64:  # many views of one state (a reader that never acts)
                        retire(live, HELD_BASE)
                    view = live_view(self, seat)
                    live.append(view)
                    return view
                return make_view(self, seat, self._seat_views, self._offer_views)
            if not 0 <= seat < self.config.players:
                raise IllegalAction(f"there is no seat {seat!r} in a {self.players}-player game")
        elif seat is not None:
            raise IllegalAction(f"there is no seat {seat!r} in a {self.players}-player game")
        if cached:
            if lazy:
                return self._live_view(seat)
            return make_view(self, seat, self._seat_views, self._offer_views)
        return make_view(self, seat)

    def _live_view(self, seat: int | None) -> View:
        """A view whose parts are computed when read (:func:`bohnanza.views.live_view`);
        the game completes it before it next changes, if anybody still holds it."""
        live = self._live_views
        if len(live) >= 64:  # many views of one state (a reader that never acts)
            retire(live, HELD_BASE)
        view = live_view(self, seat)
        live.append(view)
        return view

    def cached_seat_views(self) -> tuple[SeatView | None, ...]:
        """The cached public seat views (``None``: stale), for the invariant checker."""
        return tuple(self._seat_views)

    def release_views(self) -> None:
        """Complete the live views still held by someone, and let the others go: a game
        that makes no further move (a finished game, a roll-out cut short) would
        otherwise keep its live views, and they it, in a reference cycle."""
        if self._live_views:
            retire(self._live_views, HELD_BASE)

    def invalidate_views(self) -> None:
        """Forget the cached public seat and offer views (after editing the state
        directly)."""
        if self._live_views:
            retire(self._live_views, HELD_BASE)
        self._seat_views = [None] * self.config.players
        self._offer_views = {}

    # ------------------------------------------------------------------ copies and persistence

    def clone(self) -> Game:
        """A cheap independent copy (lists of ints copied, no deep copy of objects). The
        copy does not record events (:meth:`record_events` switches that on)."""
        # Plain Python makes the bare instance faster without the constructor's call.
        g = Game(self.config, _blank=True) if COMPILED else Game.__new__(Game)
        g.config = self.config
        g.hooks = self.hooks
        g.seed = self.seed
        g.rng = copy_generator(self.rng)
        g.initial_deck = self.initial_deck
        g.draw = self.draw[:]
        g.discard = self.discard[:]
        g.out = self.out[:]
        g.hands = [h[:] for h in self.hands]
        g.fields = [[f[:] for f in fs] for fs in self.fields]
        g.treasury = [t[:] for t in self.treasury]
        g.trade = [t[:] for t in self.trade]
        g.drawn = self.drawn[:]
        g.offers = dict(self.offers)
        g.next_offer_id = self.next_offer_id
        g.supply = self.supply
        g.active = self.active
        g.phase = self.phase
        g.planted = self.planted
        g.turn = self.turn
        g.runouts = self.runouts
        g.final_runout = self.final_runout
        g.pending = self.pending
        g.extra = self.extra.copy()
        g.scores = self.scores
        g.winners = self.winners
        g._events = None
        g._seat_views = self._seat_views[:]
        g._offer_views = dict(self._offer_views)
        g._live_views = []
        return g

    @staticmethod
    def determinise(view: View, rng: random.Random, seen: SeenCards | None = None) -> Game:
        """A full state consistent with everything ``view``'s seat knows: its view exactly,
        and what ``seen`` remembers of earlier views; the hidden cards are dealt with
        ``rng`` from those it has not accounted for (for search bots; the view alone is
        used, never a real game: :mod:`bohnanza.determinise`)."""
        # The determiniser is a layer above the engine (it builds games): it registers
        # itself here when imported, and the package imports it (bohnanza/__init__.py).
        if not _DETERMINISE:
            raise RuntimeError("import bohnanza.determinise to determinise a view")
        return _DETERMINISE[0](view, rng, seen)

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (private parts included: not for players)."""
        return {
            "format": "bohnanza-state",
            "version": STATE_VERSION,
            "rules": self.config.rules,
            "players": self.players,
            "options": dict(self.config.options),
            "seed": self.seed,
            "rng": save_generator(self.rng),
            "initial_deck": list(self.initial_deck),
            "draw": self.draw[:],
            "discard": self.discard[:],
            "out": self.out[:],
            "hands": [h[:] for h in self.hands],
            "fields": [[f[:] for f in fs] for fs in self.fields],
            "treasury": [t[:] for t in self.treasury],
            "trade": [t[:] for t in self.trade],
            "drawn": self.drawn[:],
            "offers": [
                {"id": oid, "proposer": p, "offer": o.to_json()}
                for oid, (p, o) in self.offers.items()
            ],
            "next_offer_id": self.next_offer_id,
            "supply": self.supply,
            "active": self.active,
            "phase": self.phase,
            "planted": self.planted,
            "turn": self.turn,
            "runouts": self.runouts,
            "final_runout": self.final_runout,
            "pending": self.pending.to_json() if self.pending is not None else None,
            "extra": self.extra.to_json(),
            "scores": list(self.scores) if self.scores is not None else None,
            "winners": list(self.winners) if self.winners is not None else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, events: bool = True) -> Game:
        """Rebuild a state saved by :meth:`to_dict`; a malformed one, or one of another
        format version, raises RecordError. The game records events from here on unless
        ``events=False``."""
        from .modules import hooks_for

        if not isinstance(data, Mapping):
            raise RecordError(f"a saved state must be a JSON object, not {type(data).__name__}")
        try:
            if data.get("format") != "bohnanza-state":
                raise RecordError("not a bohnanza state (format must be 'bohnanza-state')")
            if data.get("version") != STATE_VERSION:
                raise RecordError(
                    f"unsupported saved-state version {data.get('version')!r}; "
                    f"this engine reads version {STATE_VERSION}"
                )
            config = make_config(str(data["rules"]), int(data["players"]), dict(data["options"]))
            g = Game(config, _blank=True)
            g.config = config
            g.hooks = hooks_for(config)
            g.seed = int(data["seed"])
            try:
                g.rng = load_generator(data["rng"], g.seed)
            except ConfigError as exc:
                raise RecordError(f"malformed saved state: {exc}") from None
            g.initial_deck = tuple(int(c) for c in data["initial_deck"])
            g.draw = [int(c) for c in data["draw"]]
            g.discard = [int(c) for c in data["discard"]]
            g.out = [int(c) for c in data["out"]]
            g.hands = [[int(c) for c in h] for h in data["hands"]]
            g.fields = [[[int(c) for c in f] for f in fs] for fs in data["fields"]]
            g.treasury = [[int(c) for c in t] for t in data["treasury"]]
            g.trade = [[int(c) for c in t] for t in data["trade"]]
            g.drawn = [int(c) for c in data["drawn"]]
            g.offers = {
                int(o["id"]): (int(o["proposer"]), Offer.from_json(o["offer"]))
                for o in data["offers"]
            }
            g.next_offer_id = int(data["next_offer_id"])
            g.supply = int(data["supply"])
            g.active = int(data["active"])
            phase = str(data["phase"])
            g.phase = next((p for p in g.hooks.phases if p == phase), phase)
            g.planted = int(data["planted"])
            g.turn = int(data["turn"])
            g.runouts = int(data["runouts"])
            g.final_runout = bool(data["final_runout"])
            g.pending = Pending.from_json(data["pending"]) if data["pending"] is not None else None
            g.extra = g.hooks.state_class.from_json(data["extra"])
            g.scores = tuple(data["scores"]) if data["scores"] is not None else None
            g.winners = tuple(data["winners"]) if data["winners"] is not None else None
            g._events = [] if events else None
            g._seat_views = [None] * config.players
            g._offer_views = {}
            g._live_views = []
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise RecordError(f"malformed saved state: {exc!r}") from None
        g._validate()
        return g

    def _validate(self) -> None:
        """Structural consistency of a loaded state (RecordError otherwise)."""
        n = self.players

        def bad(why: str) -> RecordError:
            return RecordError(f"malformed saved state: {why}")

        for name in ("hands", "fields", "treasury", "trade"):
            if len(getattr(self, name)) != n:
                raise bad(f"{name} must have one entry per seat ({n})")
        if not 0 <= self.active < n:
            raise bad(f"active seat {self.active} out of range")
        if self.phase not in self.hooks.phases:
            raise bad(f"unknown phase {self.phase!r}")
        for s, fs in enumerate(self.fields):
            if not 2 <= len(fs) <= 3:
                raise bad(f"seat {s} has {len(fs)} fields; a seat has 2 or 3")
        everything = sorted(self.all_card_locations())
        if everything != list(range(self.config.deck_size)):
            raise bad("cards are missing or duplicated")
        for oid, (p, o) in self.offers.items():
            if not 0 <= p < n or not 0 <= o.to < n:
                raise bad(f"offer {oid} names a seat out of range")
            held = self.tradeable(p)
            if any(c not in held for c in o.give):
                raise bad(f"offer {oid} gives a card its proposer does not hold")

    def all_card_locations(self) -> list[int]:
        """Every card id in every place, once per occurrence (for conservation checks)."""
        cards = self.draw + self.discard + self.out + self.drawn
        for s in range(self.players):
            cards += self.hands[s] + self.treasury[s] + self.trade[s]
            for f in self.fields[s]:
                cards += f
        cards += self.hooks.extra_cards(self)
        return cards

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Game {self.config.rules} players={self.players} seed={self.seed} "
            f"turn={self.turn} active={self.active} phase={self.phase}>"
        )


__all__ = [
    "DECISION_KINDS",
    "MAX_OFFER_CARDS",
    "MAX_OPEN_OFFERS",
    "OVER",
    "PLANT",
    "PLANT_TRADED",
    "TRADE",
    "Action",
    "ActionType",
    "CardId",
    "FieldId",
    "Game",
    "InvalidOffer",
    "ModuleState",
    "NotYourTurn",
    "Offer",
    "Pending",
    "Phase",
    "SeatId",
    "decision_arg_kind",
    "decision_args",
    "decision_names",
    "declare_decision",
    "register_determiniser",
]
