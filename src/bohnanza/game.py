"""The rules engine: one mutable game state, validated actions, automatic chance steps.

Design (see DESIGN-NOTES.md):

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

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

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
    DEFAULT,
    Generator,
    copy_generator,
    fresh_seed,
    generator_name,
    load_generator,
    make_generator,
    save_generator,
)
from .views import View, make_view

if TYPE_CHECKING:
    import random

    from .determinise import SeenCards
    from .modules.base import Hooks

PLANT = "plant"
TRADE = "trade"
PLANT_TRADED = "plant_traded"
OVER = "over"

#: An open offer may hold at most this many cards on either side, and a seat may keep at
#: most this many offers open: bounds that keep bots and network clients from flooding.
MAX_OFFER_CARDS = 12
MAX_OPEN_OFFERS = 16

_T = ActionType


#: Events that report the card a draw took (logged before that draw's run-out).
_CARD_EVENTS = frozenset(("draw", "turn_over", "reveal"))


class Game:
    """A game in progress. Create with :meth:`Game.new`; drive with :meth:`apply`."""

    __slots__ = (
        "_events",
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
    pending: tuple[Any, ...] | None
    extra: dict[str, Any]
    scores: tuple[int, ...] | None
    winners: tuple[int, ...] | None
    _events: list[Event] | None
    _seat_views: list[Any]

    # ------------------------------------------------------------------ creation

    @classmethod
    def new(
        cls,
        rules: str = "classic",
        players: int = 4,
        *,
        modules: Sequence[str] = (),
        options: Mapping[str, str] | None = None,
        seed: int | None = None,
        deck: Sequence[str | int] | None = None,
        generator: str = DEFAULT,
    ) -> Game:
        """Create a game and deal (R-SETUP-1…5).

        ``seed`` makes the game repeatable: the same seed (and generator) deals the same
        game. Without one the game takes 128 bits from :mod:`secrets`, so that nobody can
        work the deck out from the cards they see. ``deck`` fixes the order of the first
        cards, top first, as variety keys (``"blue"``) or card ids; the rest of the deck
        follows in a seeded shuffle. Hands are dealt in seat order: seat 0 takes the first
        cards, then seat 1, and so on. ``generator`` names the shuffle generator
        (:data:`bohnanza.shuffle.GENERATORS`); only replays of old records need another.
        """
        config = make_config(rules, players, options, tuple(modules))
        return cls(config, seed=seed, deck=deck, generator=generator)

    def __init__(
        self,
        config: GameConfig,
        *,
        seed: int | None = None,
        deck: Sequence[str | int] | None = None,
        generator: str = DEFAULT,
    ) -> None:
        from .modules import hooks_for

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
        self.extra = {}
        self.scores = None
        self.winners = None
        self._events = None
        self._seat_views = [None] * n
        self.hooks.setup(self)
        self.hooks.start_turn(self, 0)

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
        return self.phase == OVER

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
        if self.phase == OVER:
            return []
        if self.pending is not None:
            return [self.pending[0]]
        return self.hooks.waiting_for(self)

    # ------------------------------------------------------------------ events

    def collect_events(self) -> list[Event]:
        """Start recording events; returns the live list the engine appends to."""
        if self._events is None:
            self._events = []
        return self._events

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

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Check ``action`` for ``seat`` and carry it out, or raise and change nothing.

        Returns the events it caused (recording is switched on by the first call).
        """
        self.check(seat, action)
        events = self.collect_events()
        start = len(events)
        self._execute(seat, action)
        return events[start:]

    def apply_fast(self, seat: int, action: Action) -> None:
        """:meth:`apply` without event recording, for simulations that do not need logs."""
        self.check(seat, action)
        self._execute(seat, action)

    def apply_unchecked(self, seat: int, action: Action) -> None:
        """Carry out an action taken from :meth:`legal_actions` *for this same state*,
        without checking it again (the driver's hot path). Anything else must go
        through :meth:`apply`."""
        self._execute(seat, action)

    def _execute(self, seat: int, action: Action) -> None:
        proposer = None
        if action.type is ActionType.ACCEPT:
            proposer = self.offers[action.offer_id][0]  # type: ignore[index]
        active = self.active
        interrupted = self.pending is not None
        self.hooks.execute(self, seat, action)
        # An action changes the public side of its actor, the active seat (automatic
        # draws, kept cards) and a trade partner only; the end of the game changes all,
        # and so may the queue of pending decisions (a child of another seat placed
        # once a lady move is done), so anything touching it refreshes every seat.
        cache = self._seat_views
        if self.phase == OVER or interrupted or self.pending is not None:
            cache[:] = [None] * self.players
        else:
            cache[seat] = cache[active] = cache[self.active] = None
            if proposer is not None:
                cache[proposer] = None

    def check(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` unless ``seat`` may do ``action`` now."""
        if type(seat) is not int or not 0 <= seat < self.config.players:
            raise IllegalAction(f"there is no seat {seat!r} in a {self.players}-player game")
        if type(action) is not Action:
            raise IllegalAction(f"not an action: {action!r}", seat=seat)
        malformed = shape_error(action)
        if malformed:
            raise IllegalAction(f"seat {seat} sent a malformed action: {malformed}", seat=seat)
        if self.phase == OVER:
            raise Refusal(seat, "act", "the game is over", kind=GameOver).error()
        refusal = self.hooks.refusal(self, seat, action)
        if refusal is not None:
            raise refusal.error()

    def refusal(self, seat: int, action: Action) -> Refusal | None:
        """Why ``seat`` may not take ``action`` now, as data, or None when it may."""
        try:
            self.check(seat, action)
        except IllegalAction as exc:
            if exc.refusal is not None:
                return exc.refusal
            return Refusal(
                seat, action.type.value if isinstance(action, Action) else "act", str(exc)
            )
        return None

    def is_legal(self, seat: int, action: Action) -> bool:
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
        if self.phase == OVER:
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
        """Final harvest and scores (R-END-3, R-END-4)."""
        self.offers.clear()
        self.pending = None
        self.extra.pop("queue", None)
        for pile in (self.drawn, *self.trade, *self.hooks.table_piles(self)):
            if pile:
                self.discard.extend(pile)
                self.emit("discard_unplanted", cards=list(pile))
                pile.clear()
        self.phase = OVER
        for seat in range(self.players):
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

    def fail(
        self,
        seat: int,
        what: str,
        why: str,
        rule: str | None = None,
        cls: type[IllegalAction] = IllegalAction,
    ) -> IllegalAction:
        """Build the exception for "seat cannot <what>: <why> (rule)"."""
        return cls(f"seat {seat} cannot {what}: {why}", seat=seat, rule=rule)

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None, cached: bool = False) -> View:
        """What ``seat`` may know (``None``: a spectator), as a :class:`bohnanza.views.View`.

        ``cached=True`` reuses the public parts of seats that no action touched since the
        last cached view (the driver's hot path). It is only valid while every change goes
        through :meth:`apply`; code that edits the state directly must use the default.
        """
        if seat is not None and (
            not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players
        ):
            raise IllegalAction(f"there is no seat {seat!r} in a {self.players}-player game")
        return make_view(self, seat, self._seat_views if cached else None)

    # ------------------------------------------------------------------ copies and persistence

    def clone(self) -> Game:
        """A cheap independent copy (lists of ints copied, no deep copy of objects)."""
        g = Game.__new__(Game)
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
        g.extra = _copy_json(self.extra)
        g.scores = self.scores
        g.winners = self.winners
        g._events = None
        g._seat_views = self._seat_views[:]
        return g

    @staticmethod
    def determinise(view: View, rng: random.Random, seen: SeenCards | None = None) -> Game:
        """A full state consistent with everything ``view``'s seat knows: its view exactly,
        and what ``seen`` remembers of earlier views; the hidden cards are dealt with
        ``rng`` from those it has not accounted for (for search bots; the view alone is
        used, never a real game: :mod:`bohnanza.determinise`)."""
        from .determinise import determinise

        return determinise(view, rng, seen)

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-ready data (private parts included: not for players)."""
        return {
            "format": "bohnanza-state",
            "version": 1,
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
            "pending": list(self.pending) if self.pending is not None else None,
            "extra": _copy_json(self.extra),
            "scores": list(self.scores) if self.scores is not None else None,
            "winners": list(self.winners) if self.winners is not None else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a state saved by :meth:`to_dict`; a malformed one raises RecordError."""
        from .modules import hooks_for

        if not isinstance(data, Mapping):
            raise RecordError(f"a saved state must be a JSON object, not {type(data).__name__}")
        try:
            if data.get("format") != "bohnanza-state":
                raise RecordError("not a bohnanza state (format must be 'bohnanza-state')")
            config = make_config(str(data["rules"]), int(data["players"]), dict(data["options"]))
            g = Game.__new__(Game)
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
            g.phase = str(data["phase"])
            g.planted = int(data["planted"])
            g.turn = int(data["turn"])
            g.runouts = int(data["runouts"])
            g.final_runout = bool(data["final_runout"])
            g.pending = tuple(data["pending"]) if data["pending"] is not None else None
            g.extra = _copy_json(dict(data["extra"]))
            g.scores = tuple(data["scores"]) if data["scores"] is not None else None
            g.winners = tuple(data["winners"]) if data["winners"] is not None else None
            g._events = None
            g._seat_views = [None] * config.players
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


def _copy_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_json(v) for v in value]
    return value


__all__ = [
    "MAX_OFFER_CARDS",
    "MAX_OPEN_OFFERS",
    "OVER",
    "PLANT",
    "PLANT_TRADED",
    "TRADE",
    "Action",
    "ActionType",
    "Game",
    "InvalidOffer",
    "NotYourTurn",
    "Offer",
]
