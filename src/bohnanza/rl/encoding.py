"""The fixed action encoding and the observation vector of the RL environment.

Everything here is built from one seat's :class:`bohnanza.views.View` (what that seat may
know, R-INFO-1…3) and, for the action mask, the engine's legal actions for that seat;
nothing reads the game state itself. The full table is in ``docs/rl.md``.

An :class:`Encoding` is fixed per game configuration (rule set, module, player count,
options): its action space is ``Discrete(encoding.n_actions)`` and its observation a
float32 vector of ``encoding.obs_size`` values in [0, 1]. Cards that must be named by an
action are named by *slot*: their position in the hand, the trade area, the duel's offer
or revealed cards, or the order of open offers; trade offers are chosen from templates
("to partner p, give k cards of variety a, for one card of variety b or as a gift").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..actions import Action, ActionType, Offer
from ..coins import with_coins
from ..game import MAX_OPEN_OFFERS
from ..rules import GameConfig
from ..views import OfferView, View

_T = ActionType

#: Field slots per seat (two, or three with a third field).
FIELDS = 3
#: Hand positions shown one by one in the observation (the rest only as counts).
HAND_SLOTS = 12
#: Trade-area positions that ``plant_traded`` can name (a longer trade area is planted
#: from the front: slots shift as cards leave).
TRADE_SLOTS = 8
#: Open offers addressed to the seat (accept/decline) and made by it (withdraw), oldest
#: first; later ones become reachable as earlier ones close.
OFFER_SLOTS = 6
#: Duel: positions of the opponent's offer and of the revealed cards.
DUEL_SLOTS = 8
#: Duel: hand positions that may be discarded (skip_discard is always possible).
DUEL_HAND_SLOTS = 12
#: Fasolufka: ladies below a new child that may move, nearest to the child first.
LADY_SLOTS = 4
#: Offer templates give 1 or 2 cards.
GIVE_COUNTS = (1, 2)

PHASES = ("plant", "trade", "plant_traded", "duel_offer", "duel_discard", "duel_reveal", "over")

PASS = "pass"


@dataclass(frozen=True, slots=True)
class GiveClass:
    """Which cards an offer template gives: a variety, optionally only one kind (colour),
    optionally declared as something else (the fasolkopajaki bluff, R-BLUFF-1)."""

    variety: int
    kind: str | None = None
    declared: str | None = None

    def label(self, config: GameConfig) -> str:
        name = config.varieties[self.variety]
        if self.kind:
            name += f"({self.kind})"
        if self.declared:
            name += f" declared {self.declared}"
        return name


class Encoding:
    """Action indices and observation layout for one game configuration."""

    def __init__(self, config: GameConfig, max_trade_rounds: int = 6) -> None:
        self.config = config
        self.n = config.players
        self.max_trade_rounds = max_trade_rounds
        self.varieties = config.varieties
        self.v = len(config.varieties)
        self.kinds: tuple[str, ...] = tuple(sorted({k for k in config.card_kind if k}))
        self.c = self.v + len(self.kinds)  # width of one card's features
        self._kind_index = {k: i for i, k in enumerate(self.kinds)}
        self.card_variety = config.card_variety
        self.card_kind = config.card_kind
        self.trading = config.module != "duel"
        self.fasolufka = config.module == "fasolufka"
        self.duel = config.module == "duel"
        # Card features, one row per card id (a view holds ids of visible cards only).
        feats = np.zeros((config.deck_size, self.c), dtype=np.float32)
        for card, v in enumerate(config.card_variety):
            feats[card, v] = 1.0
            kind = config.card_kind[card]
            if kind:
                feats[card, self.v + self._kind_index[kind]] = 1.0
        self._card_feats = feats
        self.give_classes: tuple[GiveClass, ...] = self._give_classes()
        self._build_actions()
        self._build_observation()

    # ------------------------------------------------------------------ action layout

    def _give_classes(self) -> tuple[GiveClass, ...]:
        out: list[GiveClass] = []
        for v, key in enumerate(self.varieties):
            if self.config.module == "fasolkopajaki" and key == "fasolkopajak":
                # R-BLUFF-1: red cards, black cards told truly, black cards declared red.
                out.append(GiveClass(v, "red"))
                out.append(GiveClass(v, "black"))
                out.append(GiveClass(v, "black", "red"))
            else:
                out.append(GiveClass(v))
        return tuple(out)

    def _build_actions(self) -> None:
        segs: list[tuple[str, int]] = [
            ("plant", FIELDS),
            ("stop_planting", 1),
            ("harvest", FIELDS),
            ("buy_field", 1),
            ("end_trading", 1),
            (PASS, 1),
            ("plant_traded", TRADE_SLOTS * FIELDS),
        ]
        if self.trading:
            segs += [
                ("accept", OFFER_SLOTS),
                ("decline", OFFER_SLOTS),
                ("withdraw", OFFER_SLOTS),
                (
                    "offer",
                    (self.n - 1) * len(self.give_classes) * len(GIVE_COUNTS) * (self.v + 1),
                ),
            ]
        if self.fasolufka:
            segs += [("place_child", FIELDS), ("move_lady", LADY_SLOTS), ("keep_lady", 1)]
        if self.duel:
            segs += [
                ("offer_plant", DUEL_SLOTS * FIELDS),
                ("offer_discard", DUEL_SLOTS),
                ("hand_discard", DUEL_HAND_SLOTS),
                ("skip_discard", 1),
                ("reveal_plant", DUEL_SLOTS * FIELDS),
                ("end_reveal", 1),
            ]
        self.segments: dict[str, tuple[int, int]] = {}
        start = 0
        for name, size in segs:
            self.segments[name] = (start, size)
            start += size
        self.n_actions = start
        self._seg_of = np.zeros(start, dtype=np.int16)
        self._seg_names = [name for name, _ in segs]
        for i, (name, _) in enumerate(segs):
            s, size = self.segments[name]
            self._seg_of[s : s + size] = i

    def base(self, segment: str) -> int:
        return self.segments[segment][0]

    def segment_of(self, index: int) -> tuple[str, int]:
        """(segment name, offset inside it) of an action index."""
        name = self._seg_names[int(self._seg_of[index])]
        return name, index - self.segments[name][0]

    def offer_index(self, partner: int, give_class: int, count: int, want: int | None) -> int:
        """Index of the template "to seat +``partner`` (1…n-1, relative to the proposer),
        give ``count`` cards of ``give_classes[give_class]``, for one card of variety
        ``want`` (an index into the varieties) or as a gift (``None``)."""
        k = GIVE_COUNTS.index(count)
        w = 0 if want is None else want + 1
        g = len(self.give_classes)
        return (
            self.base("offer")
            + (((partner - 1) * g + give_class) * len(GIVE_COUNTS) + k) * (self.v + 1)
            + w
        )

    def _offer_parts(self, offset: int) -> tuple[int, int, int, int | None]:
        w = offset % (self.v + 1)
        rest = offset // (self.v + 1)
        k = rest % len(GIVE_COUNTS)
        rest //= len(GIVE_COUNTS)
        gc = rest % len(self.give_classes)
        partner = rest // len(self.give_classes) + 1
        return partner, gc, GIVE_COUNTS[k], (None if w == 0 else w - 1)

    def describe(self, index: int) -> str:
        """A short human-readable name of an action index (for rendering and docs)."""
        name, off = self.segment_of(index)
        if name in ("plant", "harvest", "place_child"):
            return f"{name} field {off}"
        if name in ("plant_traded", "offer_plant", "reveal_plant"):
            return f"{name} slot {off // FIELDS} -> field {off % FIELDS}"
        if name in ("accept", "decline", "withdraw", "offer_discard", "hand_discard"):
            return f"{name} slot {off}"
        if name == "move_lady":
            return f"move lady {off} (counted down from the child)"
        if name == "offer":
            partner, gc, count, want = self._offer_parts(off)
            what = self.give_classes[gc].label(self.config)
            for_ = "as a gift" if want is None else f"for 1 {self.varieties[want]}"
            return f"offer to seat +{partner}: {count} {what} {for_}"
        return name

    # ------------------------------------------------------------------ slots from a view

    def incoming(self, view: View) -> list[OfferView]:
        """Open offers addressed to the reader, oldest first (accept/decline slots)."""
        me = view.seat
        return [o for o in view.offers if o.to == me and o.proposer != me]

    def outgoing(self, view: View) -> list[OfferView]:
        """Open offers the reader made, oldest first (withdraw slots)."""
        me = view.seat
        return [o for o in view.offers if o.proposer == me]

    def tradeable(self, view: View) -> list[int]:
        """Cards the reader may give, in the order templates and accepts take them:
        the drawn cards first (active seat only), then the hand from the front."""
        hand = list(view.hand or ())
        return list(view.drawn) + hand if view.seat == view.active else hand

    def _pick(self, view: View, gc: GiveClass, count: int) -> list[int]:
        pool = self.tradeable(view) if gc.declared is None else list(view.hand or ())
        cv = self.card_variety
        ck = self.card_kind
        out = [c for c in pool if cv[c] == gc.variety and (gc.kind is None or ck[c] == gc.kind)]
        return out[:count]

    def accept_cards(self, view: View, offer: OfferView) -> tuple[int, ...] | None:
        """The canonical answer to ``offer``: for each wanted variety, the first matching
        cards in :meth:`tradeable` order; ``None`` if the reader cannot pay."""
        mine = self.tradeable(view)
        out: list[int] = []
        for key, count in offer.want:
            v = self.varieties.index(key) if key in self.varieties else -1
            pool = [c for c in mine if self.card_variety[c] == v]
            if len(pool) < count:
                return None
            out += pool[:count]
        return tuple(out)

    def _ladies(self, view: View) -> list[int]:
        p = view.pending
        if p is None or len(p) < 4 or view.seat is None:
            return []
        field = view.seats[view.seat].fields[p[2]]
        below = field[: field.index(p[3])] if p[3] in field else ()
        return [c for c in below if self.card_kind[c] == "lady"][::-1]

    # ------------------------------------------------------------------ actions

    def index_of(self, view: View, action: Action) -> int | None:
        """The index that stands for an engine action, or ``None`` if the encoding cannot
        name it (beyond a slot bound, or an offer outside the templates). Every accept
        of one offer maps to the same index (its canonical cards)."""
        t = action.type
        seg = self.segments
        if t is _T.PLANT:
            return seg["plant"][0] + action.field  # type: ignore[operator]
        if t is _T.HARVEST:
            return seg["harvest"][0] + action.field  # type: ignore[operator]
        if t is _T.STOP_PLANTING:
            return seg["stop_planting"][0]
        if t is _T.BUY_FIELD:
            return seg["buy_field"][0]  # every choice of coins (R-LADY-10) maps here
        if t is _T.END_TRADING:
            return seg["end_trading"][0]
        if t is _T.PLANT_TRADED:
            assert view.seat is not None
            area = view.seats[view.seat].trade_area
            pos = area.index(action.card) if action.card in area else TRADE_SLOTS
            if pos >= TRADE_SLOTS:
                return None
            return seg["plant_traded"][0] + pos * FIELDS + action.field  # type: ignore[operator]
        if t in (_T.ACCEPT, _T.DECLINE, _T.WITHDRAW):
            offers = self.outgoing(view) if t is _T.WITHDRAW else self.incoming(view)
            ids = [o.offer_id for o in offers]
            if action.offer_id not in ids:
                return None
            j = ids.index(action.offer_id)
            return seg[t.value][0] + j if j < OFFER_SLOTS else None
        if t is _T.PLACE_CHILD:
            return seg["place_child"][0] + action.field  # type: ignore[operator]
        if t is _T.MOVE_LADY:
            if action.card is None:
                return seg["keep_lady"][0]
            ladies = self._ladies(view)
            if action.card not in ladies:
                return None
            k = ladies.index(action.card)
            return seg["move_lady"][0] + k if k < LADY_SLOTS else None
        if t is _T.DISCARD:
            if view.phase == "duel_offer":
                pile = list(view.public.get("offer", ()))
                name, bound = "offer_discard", DUEL_SLOTS
            else:
                pile = list(view.hand or ())
                name, bound = "hand_discard", DUEL_HAND_SLOTS
            pos = pile.index(action.card) if action.card in pile else bound
            return seg[name][0] + pos if pos < bound else None
        if t is _T.SKIP_DISCARD:
            return seg["skip_discard"][0]
        if t is _T.END_REVEAL:
            return seg["end_reveal"][0]
        if t is _T.PLANT_REVEALED:
            offer_phase = view.phase == "duel_offer"
            pile = list(view.public.get("offer" if offer_phase else "revealed", ()))
            pos = pile.index(action.card) if action.card in pile else DUEL_SLOTS
            if pos >= DUEL_SLOTS:
                return None
            name = "offer_plant" if offer_phase else "reveal_plant"
            return seg[name][0] + pos * FIELDS + action.field  # type: ignore[operator]
        return None

    def mask(self, view: View, legal: Sequence[Action], may_pass: bool) -> NDArray[np.int8]:
        """The legal-action mask: 1 for every index that :meth:`decode` turns into an
        action the engine accepts now (or into a pass, where ``may_pass``).

        ``legal`` is the engine's list for the reader (offer templates may be left out of
        it: the encoding builds its own)."""
        m = np.zeros(self.n_actions, dtype=np.int8)
        for a in legal:
            if a.type is _T.PROPOSE:
                continue
            i = self.index_of(view, a)
            if i is not None:
                m[i] = 1
        if may_pass:
            m[self.segments[PASS][0]] = 1
        if (
            self.trading
            and view.phase == "trade"
            and view.pending is None
            and view.seat is not None
            and len(self.outgoing(view)) < MAX_OPEN_OFFERS
        ):
            self._offer_mask(view, m)
        return m

    def _offer_mask(self, view: View, m: NDArray[np.int8]) -> None:
        me = view.seat
        assert me is not None
        n = self.n
        partners = np.zeros(n - 1, dtype=bool)
        if me == view.active:
            partners[:] = True
        else:
            partners[(view.active - me) % n - 1] = True
        g = len(self.give_classes)
        avail = np.zeros((g, len(GIVE_COUNTS)), dtype=bool)
        mine = self.tradeable(view)
        hand = list(view.hand or ())
        cv = self.card_variety
        ck = self.card_kind
        for i, gc in enumerate(self.give_classes):
            pool = mine if gc.declared is None else hand
            have = sum(
                1 for c in pool if cv[c] == gc.variety and (gc.kind is None or ck[c] == gc.kind)
            )
            for j, k in enumerate(GIVE_COUNTS):
                avail[i, j] = have >= k
        want_ok = np.ones((g, self.v + 1), dtype=bool)
        for i, gc in enumerate(self.give_classes):
            want_ok[i, gc.variety + 1] = False  # a card for one of its own variety: pointless
        grid = partners[:, None, None, None] & avail[None, :, :, None] & want_ok[None, :, None, :]
        s, size = self.segments["offer"]
        m[s : s + size] = grid.reshape(-1).astype(np.int8)
        # A template that would repeat one of the seat's open offers exactly is masked out.
        for o in self.outgoing(view):
            k = len(o.give)
            if k not in GIVE_COUNTS or not (o.is_gift or (len(o.want) == 1 and o.want[0][1] == 1)):
                continue
            want = None if o.is_gift else o.want[0][0]
            if want is not None and want not in self.varieties:
                continue
            w = None if want is None else self.varieties.index(want)
            claims = tuple(sh.get("declared") or "" for sh in o.shown)
            for i, gc in enumerate(self.give_classes):
                declared = (gc.declared or "",) * k
                if claims == declared and tuple(self._pick(view, gc, k)) == o.give:
                    m[self.offer_index((o.to - me) % n, i, k, w)] = 0

    def decode(self, view: View, index: int) -> Action | None:
        """The engine action an index stands for in this view (``None``: pass).

        Meaningful where the mask allows the index; otherwise the action may be illegal
        (:meth:`bohnanza.game.Game.apply` then refuses it) or :class:`ValueError` is raised
        when a slot is empty."""
        if not 0 <= index < self.n_actions:
            raise ValueError(f"action index {index} out of range 0..{self.n_actions - 1}")
        name, off = self.segment_of(index)
        me = view.seat
        assert me is not None
        if name == "plant":
            return Action.plant(off)
        if name == "harvest":
            return Action.harvest(off)
        if name == "stop_planting":
            return Action.stop_planting()
        if name == "buy_field":
            # Fasolufka: the canonical coins, least useful to the others (R-LADY-10).
            return with_coins(view, Action.buy_field())
        if name == "end_trading":
            return Action.end_trading()
        if name == PASS:
            return None
        if name == "plant_traded":
            area = view.seats[me].trade_area
            return Action.plant_traded(_slot(area, off // FIELDS, name), off % FIELDS)
        if name in ("accept", "decline"):
            offer = _slot(self.incoming(view), off, name)
            if name == "decline":
                return Action.decline(offer.offer_id)
            cards = self.accept_cards(view, offer)
            if cards is None:
                raise ValueError(f"cannot pay for offer {offer.offer_id}")
            return Action.accept(offer.offer_id, cards)
        if name == "withdraw":
            return Action.withdraw(_slot(self.outgoing(view), off, name).offer_id)
        if name == "offer":
            partner, gc_i, count, want = self._offer_parts(off)
            gc = self.give_classes[gc_i]
            give = self._pick(view, gc, count)
            if len(give) < count:
                raise ValueError(f"not enough {gc.label(self.config)} cards to give {count}")
            wanted = () if want is None else ((self.varieties[want], 1),)
            declared = (gc.declared,) * count if gc.declared else ()
            return Action.propose(Offer((me + partner) % self.n, tuple(give), wanted, declared))
        if name == "place_child":
            p = view.pending
            if p is None or len(p) < 3:
                raise ValueError("no child waits to be placed")
            return Action.place_child(p[2], off)
        if name == "move_lady":
            return Action.move_lady(_slot(self._ladies(view), off, name))
        if name == "keep_lady":
            return Action.move_lady(None)
        if name in ("offer_plant", "reveal_plant"):
            pile = view.public.get("offer" if name == "offer_plant" else "revealed", ())
            return Action.plant_revealed(_slot(pile, off // FIELDS, name), off % FIELDS)
        if name == "offer_discard":
            return Action.discard(_slot(view.public.get("offer", ()), off, name))
        if name == "hand_discard":
            return Action.discard(_slot(view.hand or (), off, name))
        if name == "skip_discard":
            return Action.skip_discard()
        if name == "end_reveal":
            return Action.end_reveal()
        raise ValueError(f"unknown action segment {name}")  # pragma: no cover

    # ------------------------------------------------------------------ observation

    def _build_observation(self) -> None:
        c, v, n = self.c, self.v, self.n
        parts: list[tuple[str, int]] = [
            ("phase", len(PHASES)),
            ("active", n),
            ("planted", 1),
            ("trade_round", 1),
            ("piles", 6),  # draw, discard, run-outs, final run-out, third fields left, turn
            ("discard_top", c),
            ("hand", HAND_SLOTS * c),
            ("hand_counts", c),
            ("hand_size", 1),
            ("seats", n * (FIELDS * (c + 3) + 2 + c)),
            ("trade_slots", TRADE_SLOTS * c),
            ("drawn", 2 * c),
        ]
        if self.trading:
            parts += [
                ("incoming", OFFER_SLOTS * (1 + n + c + v)),
                ("outgoing", OFFER_SLOTS * (1 + n + c + v)),
            ]
        if self.fasolufka:
            parts += [("pending", 2 + FIELDS + LADY_SLOTS), ("treasury", self.c)]
        if self.duel:
            parts += [("duel_offer", DUEL_SLOTS * c), ("duel_revealed", DUEL_SLOTS * c)]
        self.obs_parts: dict[str, tuple[int, int]] = {}
        start = 0
        for name, size in parts:
            self.obs_parts[name] = (start, size)
            start += size
        self.obs_size = start

    def _cards_into(
        self, out: NDArray[np.float32], start: int, cards: Sequence[int], slots: int
    ) -> None:
        cards = list(cards)[:slots]
        if cards:
            block = self._card_feats[cards]
            out[start : start + block.size] = block.reshape(-1)

    def _counts_into(
        self, out: NDArray[np.float32], start: int, cards: Sequence[int], scale: float
    ) -> None:
        if cards:
            out[start : start + self.c] = np.minimum(
                self._card_feats[list(cards)].sum(axis=0) / scale, 1.0
            )

    def observe(self, view: View, trade_round: int = 0) -> NDArray[np.float32]:
        """The observation vector of ``view``'s reader: values in [0, 1], seats ordered
        relative to the reader (the reader first). ``trade_round`` is the environment's
        public count of finished trading rounds this turn."""
        me = view.seat
        if me is None:
            raise ValueError("observations are built for a seat, not a spectator")
        out = np.zeros(self.obs_size, dtype=np.float32)
        p = self.obs_parts
        n = self.n
        cfg = self.config
        out[p["phase"][0] + PHASES.index(view.phase)] = 1.0
        out[p["active"][0] + (view.active - me) % n] = 1.0
        out[p["planted"][0]] = view.planted / 2
        out[p["trade_round"][0]] = min(trade_round / max(1, self.max_trade_rounds), 1.0)
        s = p["piles"][0]
        deck = cfg.deck_size
        out[s] = view.draw_size / deck
        out[s + 1] = view.discard_size / deck
        out[s + 2] = min(view.runouts / cfg.runouts_to_end, 1.0)
        out[s + 3] = float(view.final_runout)
        out[s + 4] = min(view.third_fields_left / max(1, cfg.third_fields), 1.0)
        out[s + 5] = min(view.turn / 100, 1.0)
        if view.discard_top is not None:
            self._cards_into(out, p["discard_top"][0], (view.discard_top,), 1)
        hand = view.hand or ()
        self._cards_into(out, p["hand"][0], hand, HAND_SLOTS)
        self._counts_into(out, p["hand_counts"][0], hand, 10.0)
        out[p["hand_size"][0]] = min(len(hand) / 20, 1.0)
        s = p["seats"][0]
        width = FIELDS * (self.c + 3) + 2 + self.c
        for rel in range(n):
            sv = view.seats[(me + rel) % n]
            base = s + rel * width
            for f, field in enumerate(sv.fields[:FIELDS]):
                fb = base + f * (self.c + 3)
                out[fb] = 1.0  # the field exists
                if field:
                    out[fb + 1 : fb + 1 + self.c] = self._card_feats[field[-1]]
                    out[fb + 1 + self.c] = min(len(field) / 20, 1.0)
                    out[fb + 2 + self.c] = min(sv.payouts[f] / 4, 1.0)
            tb = base + FIELDS * (self.c + 3)
            out[tb] = min(sv.coins / 40, 1.0)
            out[tb + 1] = min(sv.hand_size / 20, 1.0)
            self._counts_into(out, tb + 2, sv.trade_area, 10.0)
        self._cards_into(out, p["trade_slots"][0], view.seats[me].trade_area, TRADE_SLOTS)
        self._cards_into(out, p["drawn"][0], view.drawn, 2)
        if self.trading:
            self._offers_into(out, p["incoming"][0], self.incoming(view), me, True)
            self._offers_into(out, p["outgoing"][0], self.outgoing(view), me, False)
        if self.fasolufka and view.treasury:
            # One's own coins, which the buyer of a third field chooses from (R-LADY-10).
            self._counts_into(out, p["treasury"][0], view.treasury, 10.0)
        if self.fasolufka and view.pending is not None:
            s = p["pending"][0]
            pend = view.pending
            if pend[0] == me:
                if pend[1] == "place_child":
                    out[s] = 1.0
                else:
                    out[s + 1] = 1.0
                    out[s + 2 + int(pend[2])] = 1.0
                    out[
                        s + 2 + FIELDS : s + 2 + FIELDS + min(len(self._ladies(view)), LADY_SLOTS)
                    ] = 1.0
        if self.duel:
            self._cards_into(out, p["duel_offer"][0], view.public.get("offer", ()), DUEL_SLOTS)
            self._cards_into(
                out, p["duel_revealed"][0], view.public.get("revealed", ()), DUEL_SLOTS
            )
        return out

    def _offers_into(
        self,
        out: NDArray[np.float32],
        start: int,
        offers: list[OfferView],
        me: int,
        incoming: bool,
    ) -> None:
        width = 1 + self.n + self.c + self.v
        for j, o in enumerate(offers[:OFFER_SLOTS]):
            b = start + j * width
            out[b] = 1.0
            other = o.proposer if incoming else o.to
            out[b + 1 + (other - me) % self.n] = 1.0
            g = b + 1 + self.n
            for card, shown in zip(o.give, o.shown, strict=True):
                if card is not None:
                    out[g : g + self.c] += self._card_feats[card] / 4
                else:
                    key = shown.get("variety")
                    if key in self.varieties:
                        out[g + self.varieties.index(key)] += 0.25
                    claim = shown.get("declared")
                    if claim in self._kind_index:
                        out[g + self.v + self._kind_index[claim]] += 0.25
            w = g + self.c
            for key, count in o.want:
                if key in self.varieties:
                    out[w + self.varieties.index(key)] += count / 4
            np.minimum(out[b : b + width], 1.0, out=out[b : b + width])

    # ------------------------------------------------------------------ text

    def render(self, view: View, mask: NDArray[np.int8] | None = None, limit: int = 40) -> str:
        """A text rendering of the reader's view (``render_mode="ansi"``)."""
        me = view.seat
        cfg = self.config
        lines = [
            f"{cfg.rules}, {self.n} players - turn {view.turn}, seat {view.active} active, "
            f"phase {view.phase}; draw pile {view.draw_size}, discard {view.discard_size}, "
            f"run-outs {view.runouts}/{cfg.runouts_to_end}"
        ]
        if me is not None:
            lines.append(f"seat {me} (you), hand: {_names(cfg, view.hand or ())}")
        if view.treasury:
            lines.append(f"your coins: {_names(cfg, view.treasury)}")
        if view.drawn:
            lines.append(f"drawn: {_names(cfg, view.drawn)}")
        for sv in view.seats:
            who = " (you)" if sv.seat == me else ""
            fields = " | ".join(_names(cfg, f) or "-" for f in sv.fields)
            line = (
                f"  seat {sv.seat}{who}: {sv.coins} coins, {sv.hand_size} in hand; fields: {fields}"
            )
            if sv.trade_area:
                line += f"; trade area: {_names(cfg, sv.trade_area)}"
            lines.append(line)
        for o in view.offers:
            give = ", ".join(_shown(cfg, c, sh) for c, sh in zip(o.give, o.shown, strict=True))
            want = ", ".join(f"{n} {v}" for v, n in o.want) or "nothing (gift)"
            lines.append(
                f"  offer {o.offer_id}: seat {o.proposer} -> seat {o.to}: {give} for {want}"
            )
        for key, cards in view.public.items():
            if isinstance(cards, list) and cards:
                lines.append(f"{key}: {_names(cfg, cards)}")
        if view.pending is not None:
            lines.append(f"pending: {list(view.pending)}")
        if view.scores is not None:
            lines.append(
                f"game over: scores {list(view.scores)}, winners {list(view.winners or ())}"
            )
        if mask is not None:
            legal = [int(i) for i in np.flatnonzero(mask)]
            names = [f"{i}: {self.describe(i)}" for i in legal[:limit]]
            more = f" (+{len(legal) - limit} more)" if len(legal) > limit else ""
            lines.append(f"legal actions ({len(legal)}){more}:")
            lines += [f"  {x}" for x in names]
        return "\n".join(lines)


def _slot(items: Sequence[Any], i: int, what: str) -> Any:
    if i >= len(items):
        raise ValueError(f"{what}: slot {i} is empty")
    return items[i]


def _names(config: GameConfig, cards: Sequence[int]) -> str:
    return ", ".join(config.describe(c) for c in cards)


def _shown(config: GameConfig, card: int | None, shown: dict[str, Any]) -> str:
    if card is not None:
        return config.describe(card)
    text = str(shown.get("variety", "?"))
    if shown.get("declared"):
        text += f" (declared {shown['declared']})"
    return text


__all__ = [
    "DUEL_HAND_SLOTS",
    "DUEL_SLOTS",
    "FIELDS",
    "GIVE_COUNTS",
    "HAND_SLOTS",
    "LADY_SLOTS",
    "OFFER_SLOTS",
    "PASS",
    "PHASES",
    "TRADE_SLOTS",
    "Encoding",
    "GiveClass",
]
