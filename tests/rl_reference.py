"""The RL observation and action mask written the straightforward way (numpy slices, one
card at a time): the reference the fast :class:`bohnanza.rl.encoding.Encoding` must match
exactly (``tests/test_rl_fast.py``). This is the encoding as it was before the fast path
(issue 14); keep it plain, it is the specification in code."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from bohnanza.actions import Action, ActionType
from bohnanza.game import MAX_OPEN_OFFERS
from bohnanza.rl.encoding import (
    FIELDS,
    GIVE_COUNTS,
    HAND_SLOTS,
    OFFER_SLOTS,
    PASS,
    PILE_SLOTS,
    TRADE_SLOTS,
    Encoding,
    GiveClass,
)
from bohnanza.views import OfferView, View

_T = ActionType


def _pick(enc: Encoding, view: View, gc: GiveClass, count: int) -> list[int]:
    pool = enc.tradeable(view) if gc.declared is None else list(view.hand or ())
    cv = enc.card_variety
    ck = enc.card_kind
    out = [c for c in pool if cv[c] == gc.variety and (gc.kind is None or ck[c] == gc.kind)]
    return out[:count]


def reference_mask(
    enc: Encoding, view: View, legal: Sequence[Action], may_pass: bool
) -> NDArray[np.int8]:
    """The legal-action mask: 1 for every index that :meth:`decode` turns into an
    action the engine accepts now (or into a pass, where ``may_pass``).

    ``legal`` is the engine's list for the reader (offer templates may be left out of
    it: the encoding builds its own)."""
    m = np.zeros(enc.n_actions, dtype=np.int8)
    for a in legal:
        if a.type is _T.PROPOSE:
            continue
        i = enc.index_of(view, a)
        if i is not None:
            m[i] = 1
    if may_pass:
        m[enc.segments[PASS][0]] = 1
    if (
        enc.trading
        and view.phase == "trade"
        and view.pending is None
        and view.seat is not None
        and len(enc.outgoing(view)) < MAX_OPEN_OFFERS
    ):
        _offer_mask(enc, view, m)
    return m


def _offer_mask(enc: Encoding, view: View, m: NDArray[np.int8]) -> None:
    me = view.seat
    assert me is not None
    n = enc.n
    partners = np.zeros(n - 1, dtype=bool)
    if me == view.active:
        partners[:] = True
    else:
        partners[(view.active - me) % n - 1] = True
    g = len(enc.give_classes)
    avail = np.zeros((g, len(GIVE_COUNTS)), dtype=bool)
    mine = enc.tradeable(view)
    hand = list(view.hand or ())
    cv = enc.card_variety
    ck = enc.card_kind
    for i, gc in enumerate(enc.give_classes):
        pool = mine if gc.declared is None else hand
        have = sum(1 for c in pool if cv[c] == gc.variety and (gc.kind is None or ck[c] == gc.kind))
        for j, k in enumerate(GIVE_COUNTS):
            avail[i, j] = have >= k
    want_ok = np.ones((g, enc.v + 1), dtype=bool)
    for i, gc in enumerate(enc.give_classes):
        want_ok[i, gc.variety + 1] = False  # a card for one of its own variety: pointless
    grid = partners[:, None, None, None] & avail[None, :, :, None] & want_ok[None, :, None, :]
    s, size = enc.segments["offer"]
    m[s : s + size] = grid.reshape(-1).astype(np.int8)
    # A template that would repeat one of the seat's open offers exactly is masked out.
    for o in enc.outgoing(view):
        k = len(o.give)
        if k not in GIVE_COUNTS or not (o.is_gift or (len(o.want) == 1 and o.want[0][1] == 1)):
            continue
        want = None if o.is_gift else o.want[0][0]
        if want is not None and want not in enc.varieties:
            continue
        w = None if want is None else enc.varieties.index(want)
        claims = tuple(sh.get("declared") or "" for sh in o.shown)
        for i, gc in enumerate(enc.give_classes):
            declared = (gc.declared or "",) * k
            if claims == declared and tuple(_pick(enc, view, gc, k)) == o.give:
                m[enc.offer_index((o.to - me) % n, i, k, w)] = 0


def _cards_into(
    enc: Encoding, out: NDArray[np.float32], start: int, cards: Sequence[int], slots: int
) -> None:
    cards = list(cards)[:slots]
    if cards:
        block = enc._card_feats[cards]
        out[start : start + block.size] = block.reshape(-1)


def _counts_into(
    enc: Encoding, out: NDArray[np.float32], start: int, cards: Sequence[int], scale: float
) -> None:
    if cards:
        out[start : start + enc.c] = np.minimum(
            enc._card_feats[list(cards)].sum(axis=0) / scale, 1.0
        )


def reference_observe(enc: Encoding, view: View, trade_round: int = 0) -> NDArray[np.float32]:
    """The observation vector of ``view``'s reader: values in [0, 1], seats ordered
    relative to the reader (the reader first). ``trade_round`` is the environment's
    public count of finished trading rounds this turn."""
    me = view.seat
    if me is None:
        raise ValueError("observations are built for a seat, not a spectator")
    out = np.zeros(enc.obs_size, dtype=np.float32)
    p = enc.obs_parts
    n = enc.n
    cfg = enc.config
    out[p["phase"][0] + enc.phases.index(view.phase)] = 1.0
    out[p["active"][0] + (view.active - me) % n] = 1.0
    out[p["planted"][0]] = view.planted / 2
    out[p["trade_round"][0]] = min(trade_round / max(1, enc.max_trade_rounds), 1.0)
    s = p["piles"][0]
    deck = cfg.deck_size
    out[s] = view.draw_size / deck
    out[s + 1] = view.discard_size / deck
    out[s + 2] = min(view.runouts / cfg.runouts_to_end, 1.0)
    out[s + 3] = float(view.final_runout)
    out[s + 4] = min(view.third_fields_left / max(1, cfg.third_fields), 1.0)
    out[s + 5] = min(view.turn / 100, 1.0)
    if view.discard_top is not None:
        _cards_into(enc, out, p["discard_top"][0], (view.discard_top,), 1)
    hand = view.hand or ()
    _cards_into(enc, out, p["hand"][0], hand, HAND_SLOTS)
    _counts_into(enc, out, p["hand_counts"][0], hand, 10.0)
    out[p["hand_size"][0]] = min(len(hand) / 20, 1.0)
    s = p["seats"][0]
    width = FIELDS * (enc.c + 3) + 2 + enc.c
    for rel in range(n):
        sv = view.seats[(me + rel) % n]
        base = s + rel * width
        for f, field in enumerate(sv.fields[:FIELDS]):
            fb = base + f * (enc.c + 3)
            out[fb] = 1.0  # the field exists
            if field:
                out[fb + 1 : fb + 1 + enc.c] = enc._card_feats[field[-1]]
                out[fb + 1 + enc.c] = min(len(field) / 20, 1.0)
                out[fb + 2 + enc.c] = min(sv.payouts[f] / 4, 1.0)
        tb = base + FIELDS * (enc.c + 3)
        out[tb] = min(sv.coins / 40, 1.0)
        out[tb + 1] = min(sv.hand_size / 20, 1.0)
        _counts_into(enc, out, tb + 2, sv.trade_area, 10.0)
    _cards_into(enc, out, p["trade_slots"][0], view.seats[me].trade_area, TRADE_SLOTS)
    _cards_into(enc, out, p["drawn"][0], view.drawn, 2)
    if enc.trading:
        _offers_into(enc, out, p["incoming"][0], enc.incoming(view), me, True)
        _offers_into(enc, out, p["outgoing"][0], enc.outgoing(view), me, False)
    if enc.treasury and view.treasury:
        # One's own coins, which the buyer of a third field chooses from (R-LADY-10).
        _counts_into(enc, out, p["treasury"][0], view.treasury, 10.0)
    pend = view.pending
    if enc.pending and pend is not None and pend.seat == me and pend.kind in enc.pending_kinds:
        # The block: per pending kind the module answers, a flag then its arguments.
        s = p["pending"][0]
        for kind, names in enc.pending_kinds.items():
            if kind == pend.kind:
                out[s] = 1.0
            s += 1
            for arg, arg_kind in names:  # by the kinds the decision declared
                width = (
                    FIELDS
                    if arg_kind == "field"
                    else n
                    if arg_kind == "seat"
                    else OFFER_SLOTS
                    if arg_kind == "offer_id"
                    else enc.v
                    if arg_kind == "variety"
                    else enc.c
                )
                if kind == pend.kind and arg in pend.args:
                    if arg_kind == "field":
                        out[s + pend[arg]] = 1.0
                    elif arg_kind == "seat":
                        out[s + (pend[arg] - me) % n] = 1.0
                    elif arg_kind == "offer_id":
                        ids = [o.offer_id for o in view.offers[:OFFER_SLOTS]]
                        if pend[arg] in ids:
                            out[s + ids.index(pend[arg])] = 1.0
                    elif arg_kind == "variety":
                        out[s + pend[arg]] = 1.0
                    else:
                        out[s : s + enc.c] = enc._card_feats[pend[arg]]
                s += width
    for key in enc.piles:
        _cards_into(enc, out, p[f"pile_{key}"][0], view.public.get(key, ()), PILE_SLOTS)
    return out


def _offers_into(
    enc: Encoding,
    out: NDArray[np.float32],
    start: int,
    offers: list[OfferView],
    me: int,
    incoming: bool,
) -> None:
    width = 1 + enc.n + enc.c + enc.v
    for j, o in enumerate(offers[:OFFER_SLOTS]):
        b = start + j * width
        out[b] = 1.0
        other = o.proposer if incoming else o.to
        out[b + 1 + (other - me) % enc.n] = 1.0
        g = b + 1 + enc.n
        for card, shown in zip(o.give, o.shown, strict=True):
            if card is not None:
                out[g : g + enc.c] += enc._card_feats[card] / 4
            else:
                key = shown.get("variety")
                if key in enc.varieties:
                    out[g + enc.varieties.index(key)] += 0.25
                claim = shown.get("declared")
                if claim in enc._kind_index:
                    out[g + enc.v + enc._kind_index[claim]] += 0.25
        w = g + enc.c
        for key, count in o.want:
            if key in enc.varieties:
                out[w + enc.varieties.index(key)] += count / 4
        np.minimum(out[b : b + width], 1.0, out=out[b : b + width])


# ------------------------------------------------------------------ text
