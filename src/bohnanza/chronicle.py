"""What one seat saw happen between its questions, told from its own views only.

Agents get views, not the engine's events (and simulations play without events), so a
language-model seat remembers the game by comparing each view it is shown with the one
before: offers made, accepted, declined or withdrawn, fields harvested and bought, turns
passing. Nothing here reads more than the seat's views show (R-INFO-1…3), and the seat's
own answers fill in what a view cannot tell (whether it declined or withdrew).

:meth:`Chronicle.since_last` is the news of one question (the events since the seat was
last asked); :meth:`Chronicle.rivals` a standing summary of what each other seat has
wanted and refused this game. Seats are numbered from ``base`` (1: as the rules count).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .actions import Action, ActionType, Offer
from .text import Lang, card_name, offer_line, variety_count, variety_name
from .views import OfferView, View

_T = ActionType

#: Event lines kept for one question (the oldest beyond these are counted, not shown).
MAX_EVENTS = 30
#: Declines quoted per seat in the summary (the rest are counted).
MAX_QUOTED = 3


def _(lang: Lang, en: str, pl: str) -> str:
    return pl if lang == "pl" else en


@dataclass
class _Rival:
    wanted: Counter[str] = field(default_factory=Counter)  # varieties asked for in offers
    offered: Counter[str] = field(default_factory=Counter)  # varieties given in offers
    declined_mine: list[str] = field(default_factory=list)  # my offers they declined
    accepted_mine: int = 0
    refused_others: int = 0  # others' offers to them that closed without a trade


class Chronicle:
    """One seat's memory of the game (see the module's docstring)."""

    def __init__(self, lang: Lang = "en", base: int = 1) -> None:
        self.lang: Lang = lang
        self.base = base
        self._last: View | None = None
        self._events: list[str] = []
        self._dropped = 0
        self._rivals: dict[int, _Rival] = {}
        self._answered: dict[int, str] = {}  # offer id -> what this seat did with it
        self._open: dict[int, tuple[OfferView, str]] = {}  # offer id -> (offer, its line)
        # The seat's own offers not seen open yet (answered before its next view), with
        # their description: (offer, line).
        self._proposed: list[tuple[Offer, str]] = []

    # ------------------------------------------------------------------ input

    def mine(self, action: Action, view: View) -> None:
        """The seat's own move (chosen in ``view``): what it did with an offer, and the
        offers it made, which may be answered before it sees another view."""
        if action.type in (_T.DECLINE, _T.WITHDRAW, _T.ACCEPT) and action.offer_id is not None:
            self._answered[action.offer_id] = action.type.value
        if action.type is _T.PROPOSE and action.offer is not None:
            o = action.offer
            lang = self.lang
            # Objects of "dajesz", "chcesz": the Polish accusative ("dajesz Niebieską").
            give = ", ".join(card_name(view, c, lang, "acc") for c in o.give) or _(
                lang, "nothing", "nic"
            )
            want = ", ".join(variety_count(v, n, lang, "acc") for v, n in o.want) or _(
                lang, "nothing (a gift)", "nic (prezent)"
            )
            line = _(
                lang,
                f"to seat {self._n(o.to)}: you give {give}; you want {want}",
                f"do miejsca {self._n(o.to)}: dajesz {give}; chcesz {want}",
            )
            self._proposed.append((o, line))

    def see(self, view: View) -> None:
        """Note what changed since the previous view (every view the seat is shown)."""
        last, self._last = self._last, view
        if view.seat is None:
            return
        for s in view.seats:
            if s.seat != view.seat:
                self._rivals.setdefault(s.seat, _Rival())
        if last is None:
            self._note_new_offers(view)
            return
        if view.turn != last.turn:
            self._add(
                _(
                    self.lang,
                    f"Turn {view.turn}: seat {self._n(view.active)} is active.",
                    f"Tura {view.turn}: aktywny jest gracz {self._n(view.active)}.",
                )
            )
        grew = self._close_offers(last, view)
        self._note_new_offers(view)
        self._close_unseen(view, grew)
        self._note_fields(last, view)

    # ------------------------------------------------------------------ output

    def since_last(self) -> list[str]:
        """The events since the previous call (then forgotten)."""
        out = self._events
        if self._dropped:
            out = [
                _(
                    self.lang,
                    f"({self._dropped} earlier events left out)",
                    f"({self._dropped} wcześniejszych zdarzeń pominięto)",
                ),
                *out,
            ]
        self._events, self._dropped = [], 0
        return out

    def briefing(self) -> str:
        """What a question starts with: the events since the previous question, then
        what each other seat has wanted and refused ("" when there is nothing yet)."""
        lang = self.lang
        parts = []
        news, rivals = self.since_last(), self.rivals()
        if news:
            head = _(lang, "Since your last question:", "Od twojego ostatniego pytania:")
            parts.append("\n".join([head, *(f"- {x}" for x in news)]))
        if rivals:
            head = _(
                lang,
                "What the other seats have wanted and refused this game:",
                "Co inni gracze chcieli i odrzucali w tej grze:",
            )
            parts.append("\n".join([head, *(f"- {x}" for x in rivals)]))
        return "\n\n".join(parts)

    def rivals(self) -> list[str]:
        """One line per other seat: what it has wanted and refused this game."""
        lines = []
        lang = self.lang
        for seat, r in sorted(self._rivals.items()):
            bits = []
            if r.wanted:
                bits.append(_(lang, "wanted ", "chciał ") + self._counts(r.wanted))
            if r.offered:
                bits.append(_(lang, "offered ", "oferował ") + self._counts(r.offered))
            if r.declined_mine:
                quoted = " | ".join(r.declined_mine[-MAX_QUOTED:])
                bits.append(
                    _(
                        lang,
                        f"declined {len(r.declined_mine)} of your offers (latest: {quoted})",
                        f"odrzucił {len(r.declined_mine)} twoich ofert (ostatnie: {quoted})",
                    )
                )
            if r.accepted_mine:
                bits.append(
                    _(
                        lang,
                        f"accepted {r.accepted_mine} of your offers",
                        f"przyjął {r.accepted_mine} twoich ofert",
                    )
                )
            if r.refused_others:
                bits.append(
                    _(
                        lang,
                        f"let {r.refused_others} offer{'' if r.refused_others == 1 else 's'} "
                        "from others go",
                        f"nie przyjął {r.refused_others} ofert od innych",
                    )
                )
            if bits:
                who = _(lang, "Seat", "Miejsce")
                lines.append(f"{who} {self._n(seat)}: " + "; ".join(bits) + ".")
        return lines

    # ------------------------------------------------------------------ details

    def _n(self, seat: int) -> int:
        return seat + self.base

    def _counts(self, c: Counter[str]) -> str:
        """Counted varieties as the object of "wanted"/"chciał" (Polish: "3 Niebieskie")."""
        if self.lang == "pl":
            return ", ".join(variety_count(v, n, "pl", "acc") for v, n in c.most_common(6))
        return ", ".join(f"{variety_name(v, self.lang)} x{n}" for v, n in c.most_common(6))

    def _add(self, line: str) -> None:
        self._events.append(line)
        if len(self._events) > MAX_EVENTS:
            del self._events[0]
            self._dropped += 1

    def _note_new_offers(self, view: View) -> None:
        for o in view.offers:
            if o.offer_id in self._open:
                continue
            line = offer_line(view, o, self.lang, base=self.base)
            self._open[o.offer_id] = (o, line)
            if o.proposer != view.seat:
                self._add(_(self.lang, "New offer ", "Nowa oferta ") + line)
                rival = self._rivals.get(o.proposer)
                if rival is not None:
                    for v, n in o.want:
                        rival.wanted[v] += n
                    for shown in o.shown:
                        if "variety" in shown:
                            rival.offered[str(shown["variety"])] += 1

    def _close_unseen(self, view: View, grew: dict[int, int]) -> None:
        """The seat's own offers answered before it saw them open: accepted when the
        trade areas grew by their cards, else declined (or lapsed with the trading)."""
        proposed, self._proposed = self._proposed, []
        lang = self.lang
        for o, line in proposed:
            if any(
                ov.proposer == view.seat
                and ov.to == o.to
                and ov.give == o.give
                and ov.want == o.want
                for ov in view.offers
            ):
                continue  # open: followed by its id from now on
            need_to, need_from = len(o.give), sum(n for _v, n in o.want)
            rival = self._rivals.get(o.to)
            if grew.get(o.to, 0) >= need_to and grew.get(view.seat or 0, 0) >= need_from:
                grew[o.to] = grew.get(o.to, 0) - need_to
                grew[view.seat or 0] = grew.get(view.seat or 0, 0) - need_from
                text = _(
                    lang,
                    f"Seat {self._n(o.to)} accepted your offer {line}",
                    f"Miejsce {self._n(o.to)} przyjęło twoją ofertę {line}",
                )
                if rival is not None:
                    rival.accepted_mine += 1
            elif view.phase != "trade":
                text = _(
                    lang,
                    f"Lapsed when trading ended: your offer {line}",
                    f"Wygasła z końcem wymiany: twoja oferta {line}",
                )
            else:
                text = _(
                    lang,
                    f"Seat {self._n(o.to)} declined your offer {line}",
                    f"Miejsce {self._n(o.to)} odrzuciło twoją ofertę {line}",
                )
                if rival is not None:
                    rival.declined_mine.append(line.split(": ", 1)[-1])
            self._add(text)

    def _close_offers(self, last: View, view: View) -> dict[int, int]:
        """Offers seen open before and gone now; returns how much each trade area grew
        that these offers do not explain (for :meth:`_close_unseen`)."""
        same_turn = view.turn == last.turn
        grew = {
            s.seat: len(s.trade_area) - len(last.seats[s.seat].trade_area) if same_turn else 0
            for s in view.seats
        }
        now = {o.offer_id for o in view.offers}
        closed = [oid for oid in sorted(self._open) if oid not in now]
        me = view.seat
        lang = self.lang
        for oid in closed:
            o, line = self._open.pop(oid)
            need_to, need_from = len(o.give), sum(n for _v, n in o.want)
            answered = self._answered.pop(oid, None)
            traded = answered == "accept" or (
                answered is None
                and grew.get(o.to, 0) >= need_to
                and grew.get(o.proposer, 0) >= need_from
            )
            if traded:
                grew[o.to] = grew.get(o.to, 0) - need_to
                grew[o.proposer] = grew.get(o.proposer, 0) - need_from
            rival = self._rivals.get(o.to)
            if traded:
                text = _(lang, f"Accepted: {line}", f"Przyjęta: {line}")
                if o.proposer == me and rival is not None:
                    rival.accepted_mine += 1
            elif answered == "decline":
                text = _(lang, f"You declined: {line}", f"Odrzuciłeś: {line}")
            elif answered == "withdraw":
                text = _(lang, f"You withdrew: {line}", f"Wycofałeś: {line}")
            elif not same_turn or view.phase != "trade":
                text = _(
                    lang,
                    f"Lapsed when trading ended: {line}",
                    f"Wygasła z końcem wymiany: {line}",
                )
            elif o.proposer == me:
                text = _(
                    lang,
                    f"Seat {self._n(o.to)} declined your offer {line}",
                    f"Miejsce {self._n(o.to)} odrzuciło twoją ofertę {line}",
                )
                if rival is not None:
                    rival.declined_mine.append(f"#{oid}: " + line.split(": ", 1)[-1])
            else:
                text = _(
                    lang,
                    f"Closed without a trade (declined or withdrawn): {line}",
                    f"Zamknięta bez wymiany (odrzucona albo wycofana): {line}",
                )
                if o.to != me and rival is not None:
                    rival.refused_others += 1
            self._add(text)
        return grew

    def _note_fields(self, last: View, view: View) -> None:
        lang = self.lang
        for s in view.seats:
            before = last.seats[s.seat]
            who = self._n(s.seat)
            for i, cards in enumerate(before.fields):
                after = s.fields[i] if i < len(s.fields) else ()
                kind = view.variety(cards[0]) if cards else ""
                if cards and (
                    len(after) < len(cards) or not after or view.variety(after[0]) != kind
                ):
                    name = variety_name(kind, lang)
                    self._add(
                        _(
                            lang,
                            f"Seat {who} harvested field {i + 1} ({name} x{len(cards)}).",
                            f"Miejsce {who} zebrało pole {i + 1} "
                            f"({variety_count(kind, len(cards), 'pl')}).",
                        )
                    )
            if len(s.fields) > len(before.fields):
                self._add(
                    _(lang, f"Seat {who} bought a third field.", f"Miejsce {who} kupiło pole.")
                )
            if s.coins != before.coins:
                self._add(
                    _(
                        lang,
                        f"Seat {who} has {s.coins} coins (was {before.coins}).",
                        f"Miejsce {who} ma {s.coins} monet (było {before.coins}).",
                    )
                )


__all__ = ["MAX_EVENTS", "Chronicle"]
