"""The offer-builder action mode of the RL environment (``action_mode="builder"``).

The flat encoding (:mod:`bohnanza.rl.encoding`) names an offer by one template index, so
it can only express "1 or 2 cards of one kind for nothing or for one card". Here an offer
and an acceptance's payment are composed over several masked steps instead, so that every
offer and payment the engine allows (up to the slot bound below) is reachable:

* ``card`` i: add the card at *tradeable slot* i: slots 0 and 1 are the drawn cards
  (active seat only), slot 2 + k is the hand card at position k; ``card_declared`` does
  the same for a hand card while claiming a kind for it (R-BLUFF-1, Fasolkopajaki);
* ``want`` v: ask for one more card of variety v;
* ``partner`` p: address the seat p places after the proposer (the active seat only; a
  non-active seat always addresses the active seat, R-TRADE-2);
* ``submit``: propose the draft; ``cancel``: drop it.

``accept`` j starts a payment for the j-th incoming offer (a gift is taken at once); the
``card`` steps then choose the paying cards, and the acceptance is applied as soon as
the payment is complete. While a draft is open only its own steps are masked in; the
agent keeps the turn until it submits, completes or cancels. After a cancel no new draft
can be started in the same decision, so random play always moves on.

This module is not compiled (only :mod:`bohnanza.rl.encoding` is); it reads the view and,
for the submit step and the "may propose at all" probe, asks the engine (``is_legal``)
about the seat's own offer, which depends on nothing hidden from that seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ..actions import Action, ActionType, Offer
from ..game import MAX_OFFER_CARDS, Game
from ..views import OfferView, View
from .encoding import OFFER_SLOTS, Encoding

#: Hand positions a ``card`` step can name (slots 2 … 2 + HAND_TRADE_SLOTS - 1).
HAND_TRADE_SLOTS = 40
#: Tradeable slots: the two drawn cards, then the hand positions.
CARD_SLOTS = 2 + HAND_TRADE_SLOTS

#: The flat segments the builder replaces (``accept`` keeps its name: it starts a payment).
_DROPPED = ("offer",)


@dataclass(slots=True)
class Draft:
    """An offer or a payment being composed by the agent to act."""

    kind: str  # "offer" or "pay"
    slots: list[int] = field(default_factory=list)
    declared: list[str] = field(default_factory=list)
    want: dict[int, int] = field(default_factory=dict)  # variety index -> count
    partner: int | None = None  # absolute seat
    offer: OfferView | None = None  # the offer being paid for
    offer_slot: int = -1


@dataclass(frozen=True, slots=True)
class Step:
    """What one builder index did: ``done`` tells whether ``action`` (an engine action,
    or ``None`` for the pass) is to be applied; otherwise only the draft changed."""

    done: bool
    action: Action | None = None


class Builder:
    """The builder layout for one :class:`Encoding`: the flat segments without ``offer``,
    then ``card``, ``card_declared`` (where the rule set has declarations), ``want``,
    ``partner``, ``submit`` and ``cancel``."""

    def __init__(self, encoding: Encoding) -> None:
        self.enc = enc = encoding
        self.trading = enc.trading
        self._vi = {key: i for i, key in enumerate(enc.varieties)}
        # Kinds a hand card may be declared as: the kinds of the give classes that carry a
        # declaration, and the truthful kinds beside them (EncodingHints.give_classes).
        decl: list[str] = []
        for classes in enc.info.encoding.give_classes.values():
            if any(d for _, d in classes):
                for kind, d in classes:
                    for k in (kind, d):
                        if k and k not in decl:
                            decl.append(k)
        self.declarable: tuple[str, ...] = tuple(decl)
        self._keep: list[tuple[int, int]] = []  # (flat start, size) of kept segments
        segs: list[tuple[str, int]] = []
        self.flat_at: dict[str, int] = {}
        for name, (start, size) in enc.segments.items():
            if name in _DROPPED:
                continue
            segs.append((name, size))
            self._keep.append((start, size))
        if self.trading:
            segs += [("card", CARD_SLOTS)]
            if self.declarable:
                segs += [("card_declared", HAND_TRADE_SLOTS * len(self.declarable))]
            segs += [("want", enc.v), ("partner", enc.n - 1), ("submit", 1), ("cancel", 1)]
        self.segments: dict[str, tuple[int, int]] = {}
        start = 0
        for name, size in segs:
            self.segments[name] = (start, size)
            start += size
        self.n_actions = start
        self._shared = sum(size for _, size in self._keep)
        # builder index -> flat index for the kept segments
        self._to_flat = np.concatenate(
            [np.arange(s, s + size) for s, size in self._keep] or [np.zeros(0, dtype=np.int64)]
        ).astype(np.int64)
        self._seg_names = [name for name, _ in segs]
        self._seg_of = np.zeros(start, dtype=np.int16)
        for i, (name, _) in enumerate(segs):
            s, size = self.segments[name]
            self._seg_of[s : s + size] = i
        n, v = enc.n, enc.v
        self.draft_parts = {
            "kind": (0, 2),
            "cards": (2, CARD_SLOTS),
            "declared": (2 + CARD_SLOTS, len(self.declarable)),
            "want": (2 + CARD_SLOTS + len(self.declarable), v),
            "partner": (2 + CARD_SLOTS + len(self.declarable) + v, n),
            "pay_offer": (2 + CARD_SLOTS + len(self.declarable) + v + n, OFFER_SLOTS),
        }
        # No trading (ModuleInfo.trading): nothing is ever drafted, so nothing is observed.
        self.draft_size = (
            2 + CARD_SLOTS + len(self.declarable) + v + n + OFFER_SLOTS if self.trading else 0
        )

    # ------------------------------------------------------------------ layout

    def base(self, segment: str) -> int:
        return self.segments[segment][0]

    def segment_of(self, index: int) -> tuple[str, int]:
        name = self._seg_names[int(self._seg_of[index])]
        return name, index - self.segments[name][0]

    def describe(self, index: int) -> str:
        name, off = self.segment_of(index)
        if index < self._shared:
            flat = self.enc.describe(int(self._to_flat[index]))
            return f"accept slot {off} (start paying)" if name == "accept" else flat
        if name == "card":
            return f"card: drawn card {off}" if off < 2 else f"card: hand position {off - 2}"
        if name == "card_declared":
            k = len(self.declarable)
            return f"card: hand position {off // k} declared {self.declarable[off % k]}"
        if name == "want":
            return f"want 1 {self.enc.varieties[off]}"
        if name == "partner":
            return f"partner seat +{off + 1}"
        return name

    # ------------------------------------------------------------------ slots

    @staticmethod
    def card_at(view: View, slot: int) -> int | None:
        """The card at tradeable slot ``slot`` of the reader, or ``None``."""
        if slot < 2:
            if view.seat != view.active or slot >= len(view.drawn):
                return None
            return view.drawn[slot]
        hand = view.hand or ()
        k = slot - 2
        return hand[k] if k < len(hand) else None

    def _slots(self, view: View) -> list[tuple[int, int]]:
        """(slot, card) for every occupied tradeable slot."""
        out: list[tuple[int, int]] = []
        if view.seat == view.active:
            out += [(i, c) for i, c in enumerate(view.drawn[:2])]
        out += [(2 + k, c) for k, c in enumerate((view.hand or ())[:HAND_TRADE_SLOTS])]
        return out

    def offer_of(self, view: View, draft: Draft) -> Offer:
        assert draft.partner is not None
        cards = tuple(self.card_at(view, s) or 0 for s in draft.slots)
        declared = tuple(draft.declared) if any(draft.declared) else ()
        want = tuple((self.enc.varieties[v], k) for v, k in sorted(draft.want.items()))
        return Offer(draft.partner, cards, want, declared)

    def _may_propose(self, game: Game, seat: int, view: View) -> bool:
        """Whether the seat may open an offer at all now: a probe with a pure request,
        which the engine accepts exactly when proposing is possible (R-TRADE-1/2)."""
        if not self.trading or view.phase != "trade" or view.pending is not None:
            return False
        to = view.active if seat != view.active else (seat + 1) % self.enc.n
        probe = Offer(to, (), ((self.enc.varieties[0], 1),))
        return game.is_legal(seat, Action.propose(probe))

    # ------------------------------------------------------------------ mask

    def mask(
        self,
        game: Game,
        seat: int,
        view: View,
        flat: NDArray[np.int8],
        draft: Draft | None,
        blocked: bool,
    ) -> NDArray[np.int8]:
        """The builder mask from the flat mask (built from the engine's legal actions
        without templates), the open draft and whether drafting is blocked (a cancel)."""
        m = np.zeros(self.n_actions, dtype=np.int8)
        if draft is None:
            m[: self._shared] = flat[self._to_flat]
            if not self.trading:
                return m
            acc = self.base("accept")
            incoming = self.enc.incoming(view)
            for j in range(min(len(incoming), OFFER_SLOTS)):
                if (
                    m[acc + j]
                    and incoming[j].want
                    and (blocked or not self._payable(view, incoming[j]))
                ):
                    m[acc + j] = 0  # a payment cannot be composed (bound) or was cancelled
            if not blocked and self._may_propose(game, seat, view):
                self._offer_steps(game, view, m, Draft("offer", partner=self._fixed(view)))
            return m
        m[self.base("cancel")] = 1
        if draft.kind == "pay":
            assert draft.offer is not None
            need = self._need_left(view, draft)
            cs = self.base("card")
            cv = self.enc.card_variety
            for s, c in self._slots(view):
                if s not in draft.slots and need.get(cv[c], 0) > 0:
                    m[cs + s] = 1
            return m
        self._offer_steps(game, view, m, draft)
        if draft.partner is not None and (draft.slots or draft.want):
            offer = self.offer_of(view, draft)
            if game.is_legal(seat, Action.propose(offer)):
                m[self.base("submit")] = 1
        return m

    def _fixed(self, view: View) -> int | None:
        """The partner a non-active seat must address (the active seat, R-TRADE-2)."""
        return view.active if view.seat != view.active else None

    def _offer_steps(self, game: Game, view: View, m: NDArray[np.int8], draft: Draft) -> None:
        cs = self.base("card")
        if len(draft.slots) < MAX_OFFER_CARDS:
            decl = self.declarable
            ds = self.base("card_declared") if decl else 0
            for s, c in self._slots(view):
                if s in draft.slots:
                    continue
                m[cs + s] = 1
                if decl and s >= 2:
                    for i, d in enumerate(decl):
                        if game.hooks.declared_error(game, c, d) is None:
                            m[ds + (s - 2) * len(decl) + i] = 1
        if sum(draft.want.values()) < MAX_OFFER_CARDS:
            w = self.base("want")
            m[w : w + self.enc.v] = 1
        if draft.partner is None:
            p = self.base("partner")
            m[p : p + self.enc.n - 1] = 1

    def _payable(self, view: View, offer: OfferView) -> bool:
        have: dict[int, int] = {}
        cv = self.enc.card_variety
        for _, c in self._slots(view):
            have[cv[c]] = have.get(cv[c], 0) + 1
        vi = self._vi
        return all(have.get(vi.get(key, -1), 0) >= k for key, k in offer.want)

    def _need(self, draft: Draft) -> dict[int, int]:
        assert draft.offer is not None
        vi = self._vi
        return {vi[key]: k for key, k in draft.offer.want if key in vi}

    # ------------------------------------------------------------------ steps

    def step(self, view: View, index: int, draft: Draft | None) -> tuple[Step, Draft | None]:
        """Apply builder index ``index`` (already checked against the mask): either an
        engine action to apply (``Step(True, action)``), or a changed draft."""
        if index < self._shared:
            name, off = self.segment_of(index)
            if name == "accept":
                offer = self.enc.incoming(view)[off]
                if not offer.want:
                    return Step(True, Action.accept(offer.offer_id, ())), None
                return Step(False), Draft("pay", offer=offer, offer_slot=off)
            return Step(True, self.enc.decode(view, int(self._to_flat[index]))), None
        name, off = self.segment_of(index)
        if name == "cancel":
            return Step(False), None
        if draft is None:
            draft = Draft("offer", partner=self._fixed(view))
        if name == "submit":
            return Step(True, Action.propose(self.offer_of(view, draft))), None
        if name == "want":
            draft.want[off] = draft.want.get(off, 0) + 1
        elif name == "partner":
            assert view.seat is not None
            draft.partner = (view.seat + off + 1) % self.enc.n
        elif name in ("card", "card_declared"):
            if name == "card":
                slot, claim = off, ""
            else:
                k = len(self.declarable)
                slot, claim = 2 + off // k, self.declarable[off % k]
            draft.slots.append(slot)
            draft.declared.append(claim)
            if draft.kind == "pay" and not any(self._need_left(view, draft).values()):
                assert draft.offer is not None
                cards = tuple(self.card_at(view, s) or 0 for s in draft.slots)
                return Step(True, Action.accept(draft.offer.offer_id, cards)), None
        return Step(False), draft

    # ------------------------------------------------------------------ decomposition

    def steps_of(self, view: View, action: Action | None) -> list[int] | None:
        """The builder indices that compose ``action`` (``None``: the pass) in ``view``,
        in order, or ``None`` when the layout cannot name it (a card beyond the slots, a
        kept segment's action the encoding cannot name). Behaviour cloning records a
        teacher's choice as these steps, each a sample with its own mask: an offer is its
        partner (the active seat only), its cards in the order given (declared where it
        claims a kind), its wanted cards, then ``submit``; an acceptance is its offer's
        ``accept`` index, then the paying cards. The steps are not checked against the
        masks here (the caller steps them)."""
        enc = self.enc
        if action is None:
            flat = enc.base("pass") if "pass" in enc.segments else None
            return None if flat is None else self._from_flat(flat)
        if action.type is ActionType.PROPOSE:
            offer = action.offer
            if offer is None or view.seat is None or not self.trading:
                return None
            out: list[int] = []
            if self._fixed(view) is None:
                rel = (offer.to - view.seat) % enc.n
                if rel == 0:
                    return None
                out.append(self.base("partner") + rel - 1)
            elif offer.to != view.active:
                return None
            claims = offer.declared or ("",) * len(offer.give)
            for card, claim in zip(offer.give, claims, strict=False):
                slot = self._slot_of(view, card)
                if slot is None:
                    return None
                if claim:
                    if slot < 2 or claim not in self.declarable:
                        return None
                    k = len(self.declarable)
                    out.append(
                        self.base("card_declared") + (slot - 2) * k + self.declarable.index(claim)
                    )
                else:
                    out.append(self.base("card") + slot)
            for key, count in offer.want:
                v = self._vi.get(key)
                if v is None:
                    return None
                out += [self.base("want") + v] * count
            out.append(self.base("submit"))
            return out
        if action.type is ActionType.ACCEPT and self.trading:
            incoming = enc.incoming(view)
            j = next((i for i, o in enumerate(incoming) if o.offer_id == action.offer_id), None)
            if j is None or j >= OFFER_SLOTS:
                return None
            out = [self.base("accept") + j]
            for card in action.cards:
                slot = self._slot_of(view, card)
                if slot is None:
                    return None
                out.append(self.base("card") + slot)
            return out
        flat_index = enc.index_of(view, action)
        return None if flat_index is None else self._from_flat(flat_index)

    def _from_flat(self, flat: int) -> list[int] | None:
        hit = np.flatnonzero(self._to_flat == flat)
        return [int(hit[0])] if len(hit) else None

    def _slot_of(self, view: View, card: int) -> int | None:
        for s, c in self._slots(view):
            if c == card:
                return s
        return None

    def _need_left(self, view: View, draft: Draft) -> dict[int, int]:
        need = self._need(draft)
        cv = self.enc.card_variety
        for s in draft.slots:
            c = self.card_at(view, s)
            if c is not None:
                need[cv[c]] = need.get(cv[c], 0) - 1
        return need

    # ------------------------------------------------------------------ observation

    def observe_draft(self, view: View, draft: Draft | None) -> NDArray[np.float32]:
        """The open draft of the reader (zeros when none): kind, chosen slots, declared
        kinds, wanted varieties (a quarter per card), partner (relative), paid offer."""
        out = np.zeros(self.draft_size, dtype=np.float32)
        if draft is None or view.seat is None:
            return out
        p = self.draft_parts
        out[p["kind"][0] + (0 if draft.kind == "offer" else 1)] = 1.0
        for s, d in zip(draft.slots, draft.declared, strict=True):
            out[p["cards"][0] + s] = 1.0
            if d:
                i = p["declared"][0] + self.declarable.index(d)
                out[i] = min(out[i] + 0.25, 1.0)
        for v, k in draft.want.items():
            out[p["want"][0] + v] = min(k / 4, 1.0)
        if draft.partner is not None:
            out[p["partner"][0] + (draft.partner - view.seat) % self.enc.n] = 1.0
        if draft.kind == "pay" and 0 <= draft.offer_slot < OFFER_SLOTS:
            out[p["pay_offer"][0] + draft.offer_slot] = 1.0
        return out


__all__ = ["CARD_SLOTS", "HAND_TRADE_SLOTS", "Builder", "Draft", "Step"]
