"""Writing: a seat's view, its legal actions (as commands that parse back to the same
action, derived from each action's shape), offers and pending decisions as text."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..actions import Action, Offer, shape_of
from ..cards import polish_number, varieties
from ..game import Pending
from ..shapes import CARD_KINDS, Param, ParamKind
from ..views import OfferView, View

if TYPE_CHECKING:
    from ..modules.info import EventLabel
    from ..rules import GameConfig
from ._words import (
    _T,
    Lang,
    _,
    _kind_word,
    _pile_prefixes,
    _places,
    _say,
    card_name,
    card_token,
    variety_count,
    variety_name,
    variety_word,
)

#: Longest offer list shown one by one; the rest are counted, never dropped silently.
MAX_OFFER_LINES = 40


def render_action(action: Action, view: View, lang: Lang = "en", *, base: int = 0) -> str:
    """``action`` as a command the reader could type; :func:`parse_command` reads it back
    as the same action. ``base``: the number the text gives the first seat (0 in the
    terminal; 1 for language models, as the rules reference counts). Written from the
    action's shape (its command word, then each parameter), but for the offer's
    sub-language."""
    t = action.type
    if t is _T.PROPOSE:
        assert action.offer is not None
        return render_offer(action.offer, view, lang, base=base)
    shape = shape_of(t)
    parts = [shape.words[1] if lang == "pl" else shape.words[0]]
    for p in shape.params:
        parts += _render_param(p, getattr(action, p.fills), view, lang, base)
    return " ".join(parts)


def _render_param(p: Param, value: Any, view: View, lang: Lang, base: int) -> list[str]:
    """The tokens that write ``value`` of parameter ``p`` (none for a parameter that the
    text leaves out: the pending decision's card, the default coins)."""
    kind = p.kind
    if value is None:
        if p.optional:
            return [_say("none", lang)]
        raise ValueError(f"no value for {p.fills}")
    if kind is ParamKind.FIELD:
        return [str(value + 1)]
    if kind is ParamKind.OFFER_ID:
        return [str(value)]
    if kind is ParamKind.SEAT:
        return [str(value + base)]
    if kind is ParamKind.PENDING_CARD or kind is ParamKind.COINS:
        return []
    if kind is ParamKind.PAYMENT:
        if not value:
            return []
        return [_say("with", lang), ",".join(card_token(view, c, "d") for c in value)]
    if kind is ParamKind.FIELD_CARD:
        for i, f in enumerate(view.me().fields):
            if value in f:
                return [str(i + 1), str(f.index(value) + 1)]
        raise ValueError(f"card {value} is on none of the reader's fields")
    if kind in CARD_KINDS:
        return [_card_token(view, value, p.card_places)]
    raise ValueError(f"no text form for a {kind.value} parameter")


def _card_token(view: View, card: int, places: str) -> str:
    """The token naming ``card`` from one of ``places`` (``h`` the hand)."""
    for prefix, cards in _places(view).items():
        if (prefix or "h") in places and card in cards:
            return f"{prefix}{cards.index(card) + 1}"
    raise ValueError(f"card {card} is not where seat {view.seat} can name it")


def render_offer(offer: Offer, view: View, lang: Lang = "en", *, base: int = 0) -> str:
    parts = [_say("offer", lang), str(offer.to + base)]
    if offer.give:
        parts += [_say("give", lang), ",".join(card_token(view, c, "d") for c in offer.give)]
    if offer.want:
        parts += [
            _say("want", lang),
            ",".join(f"{variety_word(v, lang)}:{n}" for v, n in offer.want),
        ]
    if offer.declared:
        parts += [_say("declare", lang), ",".join(_claim_word(d, lang) for d in offer.declared)]
    return " ".join(parts)


def _claim_word(claim: str, lang: Lang) -> str:
    return _kind_word(claim, lang) if claim else "-"


def _pl_count(n: int, one: str, few: str, many: str) -> str:
    """``n`` and a Polish noun in the form the number asks for ("1 moneta", "2 monety",
    "5 monet"; :func:`bohnanza.cards.polish_number`)."""
    noun = {"one": one, "few": few, "many": many}[polish_number(n)]
    return f"{n} {noun}"


def render_action_safe(action: Action, view: View, lang: Lang, base: int = 0) -> str:
    try:
        return render_action(action, view, lang, base=base)
    except (ValueError, AssertionError):
        return action.type.value


_PHASES: dict[str, tuple[str, str]] = {
    "plant": ("phase 1, planting from the hand", "faza 1, sadzenie z ręki"),
    "trade": ("phase 2, trading", "faza 2, wymiana"),
    "plant_traded": ("phase 3, planting traded cards", "faza 3, sadzenie wymienionych kart"),
    "over": ("game over", "koniec gry"),
}


def phase_name(phase: str, lang: Lang = "en") -> str:
    """A phase in words: the base phases above, a module's own from its ModuleInfo."""
    labels = _PHASES.get(phase)
    if labels is None:
        from ..modules import module_info, module_names

        labels = (phase, phase)
        for name in module_names():
            own = module_info(name).phase_labels
            if phase in own:
                labels = own[phase]
                break
    en, pl = labels
    return pl if lang == "pl" else en


def _field_text(view: View, cards: Sequence[int], pays: int, lang: Lang) -> str:
    if not cards:
        return _(lang, "empty", "puste")
    key = view.variety(cards[-1])
    name = variety_name(key, lang)
    kinds = [view.kind(c) for c in cards]
    text = f"{name} x{len(cards)}"
    if any(kinds):
        text += " [" + ",".join(_kind_word(k, lang) if k else "-" for k in kinds) + "]"
    meter = "/".join(str(b) if b else "-" for b in varieties()[key].beanometer)
    return text + _(lang, f" pays {pays} (meter {meter})", f" płaci {pays} (miernik {meter})")


def _want_text(want: Iterable[Sequence[Any]], lang: Lang) -> str:
    """Wanted cards as the object of a sentence ("chcesz 2 Zielone, 1 Niebieską")."""
    return ", ".join(variety_count(str(v), int(n), lang, "acc") for v, n in want)


def _shown_text(view: View, card: int | None, shown: dict[str, Any], lang: Lang) -> str:
    """An offered card as the object of a sentence ("dajesz Niebieską (ręka 2)")."""
    if card is not None:
        text = card_name(view, card, lang, "acc")
        if card in view.drawn:
            text += f" (d{view.drawn.index(card) + 1})"
        elif view.hand and card in view.hand:
            text += _(
                lang, f" (hand {view.hand.index(card) + 1})", f" (ręka {view.hand.index(card) + 1})"
            )
    else:
        text = variety_name(str(shown.get("variety", "?")), lang, "acc")
        if shown.get("kind"):
            text += f" ({_kind_word(str(shown['kind']), lang)})"
    if shown.get("declared"):
        text += _(lang, " declared ", " deklarowany ") + _kind_word(str(shown["declared"]), lang)
    return text


def offer_line(view: View, o: OfferView, lang: Lang = "en", *, base: int = 0) -> str:
    """An open offer as its reader sees it (``#7 from seat 2 TO YOU: ...``)."""
    give = ", ".join(
        _shown_text(view, c, s, lang) for c, s in zip(o.give, o.shown, strict=True)
    ) or _(lang, "nothing", "nic")
    want = _want_text(o.want, lang) or _(lang, "nothing (a gift)", "nic (prezent)")
    me = view.seat
    to, proposer = o.to + base, o.proposer + base
    if o.proposer == me:
        return _(
            lang,
            f"#{o.offer_id} yours to seat {to}: you give {give}; you want {want}",
            f"#{o.offer_id} twoja do miejsca {to}: dajesz {give}; chcesz {want}",
        )
    if o.to == me:
        return _(
            lang,
            f"#{o.offer_id} from seat {proposer} TO YOU: you get {give}; you give {want}",
            f"#{o.offer_id} od miejsca {proposer} DO CIEBIE: dostajesz {give}; dajesz {want}",
        )
    return _(
        lang,
        f"#{o.offer_id} seat {proposer} to seat {to}: gives {give}; wants {want}",
        f"#{o.offer_id} miejsce {proposer} do miejsca {to}: daje {give}; chce {want}",
    )


def render_view(view: View, lang: Lang = "en", *, base: int = 0) -> str:
    """What ``view.seat`` sees, in a compact text a language model can read (seats
    numbered from ``base``)."""
    if view.seat is None:
        raise ValueError("render_view needs a seat's view")
    cfg = view.config
    me = view.seat
    L: list[str] = []
    act = view.active + base
    active = (
        _(lang, "you are the active player", "jesteś aktywnym graczem")
        if view.active == me
        else _(lang, f"seat {act} is active", f"aktywny jest gracz {act}")
    )
    L.append(
        _(
            lang,
            f"Bohnanza, rules {cfg.rules}, {view.players} players. You are seat {me + base}. "
            f"Turn {view.turn}, {active}; {phase_name(view.phase, lang)}.",
            f"Fasolki/Bohnanza, zasady {cfg.rules}, {view.players} graczy. Jesteś miejscem "
            f"{me + base}. Tura {view.turn}, {active}; {phase_name(view.phase, lang)}.",
        )
    )
    top = card_name(view, view.discard_top, lang) if view.discard_top is not None else "-"
    final = _(lang, " (final: the game ends this turn)", " (ostatni: gra kończy się w tej turze)")
    L.append(
        _(
            lang,
            f"Draw pile {view.draw_size}, discard pile {view.discard_size} (top {top}), "
            f"run-outs {view.runouts} of {cfg.runouts_to_end}"
            f"{final if view.final_runout else ''}; third fields left {view.third_fields_left} "
            f"at {cfg.field_price} coins.",
            f"Talia {view.draw_size}, odrzucone {view.discard_size} (na wierzchu {top}), "
            f"wyczerpania talii {view.runouts} z {cfg.runouts_to_end}"
            f"{final if view.final_runout else ''}; trzecich pól zostało "
            f"{view.third_fields_left} po {cfg.field_price} monety.",
        )
    )
    for s in view.seats:
        who = _(lang, "you", "ty") if s.seat == me else ""
        mark = "*" if s.seat == view.active else ""
        fields = "; ".join(
            f"{i + 1}) {_field_text(view, f, p, lang)}"
            for i, (f, p) in enumerate(zip(s.fields, s.payouts, strict=True))
        )
        line = _(
            lang,
            f"Seat {s.seat + base}{mark}{' (' + who + ')' if who else ''}: {s.coins} "
            f"coin{'' if s.coins == 1 else 's'}, {s.hand_size} "
            f"card{'' if s.hand_size == 1 else 's'} in hand; fields: {fields}",
            f"Miejsce {s.seat + base}{mark}{' (' + who + ')' if who else ''}: "
            f"{_pl_count(s.coins, 'moneta', 'monety', 'monet')}, "
            f"{_pl_count(s.hand_size, 'karta', 'karty', 'kart')} w ręce; pola: {fields}",
        )
        if s.trade_area:
            area = ", ".join(
                f"t{k + 1} {card_name(view, c, lang)}" if s.seat == me else card_name(view, c, lang)
                for k, c in enumerate(s.trade_area)
            )
            line += _(lang, f"; trade area: {area}", f"; pole wymiany: {area}")
        L.append(line)
    hand = view.hand or ()
    cards = ", ".join(f"{k + 1} {card_name(view, c, lang)}" for k, c in enumerate(hand))
    L.append(
        _(
            lang,
            f"Your hand (front first, card 1 is planted next; order cannot change): "
            f"{cards or 'empty'}",
            f"Twoja ręka (od przodu, karta 1 będzie zasadzona najpierw; kolejności nie wolno "
            f"zmieniać): {cards or 'pusta'}",
        )
    )
    if view.drawn:
        drawn = ", ".join(f"d{k + 1} {card_name(view, c, lang)}" for k, c in enumerate(view.drawn))
        L.append(_(lang, f"Turned-up cards: {drawn}", f"Odkryte karty: {drawn}"))
    for key, value in view.public.items():
        if isinstance(value, list) and all(isinstance(c, int) for c in value):
            prefix = _pile_prefixes(view).get(key, "")
            text = ", ".join(
                f"{prefix}{k + 1} {card_name(view, c, lang)}"
                if prefix
                else card_name(view, c, lang)
                for k, c in enumerate(value)
            )
            L.append(f"{key.replace('_', ' ').capitalize()}: {text or '-'}")
        else:
            L.append(f"{key.replace('_', ' ').capitalize()}: {value}")
    if view.offers:
        L.append(_(lang, "Open offers:", "Otwarte oferty:"))
        L += ["  " + offer_line(view, o, lang, base=base) for o in view.offers]
    if view.pending is not None:
        text = pending_text(view, view.pending, lang)
        waits = view.pending.seat + base
        L.append(
            _(lang, f"Waiting for seat {waits} to {text}.", f"Czekamy, aż gracz {waits}: {text}.")
        )
    if view.over:
        winners = [w + base for w in view.winners or ()]
        L.append(
            _(
                lang,
                f"Game over. Scores {list(view.scores or ())}, winners {winners}.",
                f"Koniec gry. Wyniki {list(view.scores or ())}, zwycięzcy {winners}.",
            )
        )
    return "\n".join(L)


def pending_text(view: View, pending: Pending, lang: Lang = "en") -> str:
    """What a pending decision asks, in words: the help of the action that answers it
    (its shape's, where the decision's kind is the answering action's type), naming the
    cards the decision is about (its arguments of a card kind); otherwise its kind and arguments
    as they are."""
    kind = pending.kind
    try:
        shape = shape_of(kind)
    except KeyError:
        return " ".join(str(x) for x in (kind, *pending.args.values()))
    text = shape.help[1] if lang == "pl" else shape.help[0]
    if not text:
        text = shape.label[1] if lang == "pl" else shape.label[0]
    # The cards it is about: its arguments of a card kind (as declared), those the
    # reader is shown (a seat that may not see one is shown the decision without it).
    cards = pending.cards()
    if cards:
        param = next((p for p in shape.params if p.kind is ParamKind.PENDING_CARD), None)
        label = param.label if param is not None else ("card", "karta")
        named = ", ".join(card_name(view, c, lang) for c in cards)
        text += f" ({label[1] if lang == 'pl' else label[0]}: {named})"
    return text


def render_moves(
    view: View, legal: Sequence[Action], required: bool, lang: Lang = "en", *, base: int = 0
) -> str:
    """The legal moves as commands. Ready-made offers are grouped by their terms with the
    seats they may go to; any other offer in the grammar may be made as well."""
    lines: list[str] = []
    if not required:
        lines.append(
            f"{_say('pass', lang)}   " + _(lang, "(do nothing this round)", "(nic w tej rundzie)")
        )
    groups: dict[str, list[int]] = {}
    for a in legal:
        if a.type is _T.PROPOSE and a.offer is not None:
            o = a.offer
            text = render_offer(o._replace(to=0), view, lang)
            head = _say("offer", lang) + " 0 "
            groups.setdefault(text[len(head) :], []).append(o.to + base)
        else:
            lines.append(render_action(a, view, lang, base=base))
    if groups:
        lines.append(
            _(
                lang,
                f"{sum(len(v) for v in groups.values())} ready-made offers in {len(groups)} "
                "groups (SEAT|SEAT means either seat); you may also write any other offer:",
                f"{sum(len(v) for v in groups.values())} gotowych ofert w {len(groups)} "
                "grupach (MIEJSCE|MIEJSCE: do jednego z nich); możesz też napisać inną ofertę:",
            )
        )
        items = list(groups.items())
        for terms, seats in items[:MAX_OFFER_LINES]:
            lines.append(f"  {_say('offer', lang)} {'|'.join(map(str, seats))} {terms}")
        if len(items) > MAX_OFFER_LINES:
            lines.append(
                _(
                    lang,
                    f"  ... and {len(items) - MAX_OFFER_LINES} more groups of the same kind "
                    "(other single cards, gifts or one-for-one offers).",
                    f"  ... i {len(items) - MAX_OFFER_LINES} grup więcej tego samego rodzaju.",
                )
            )
    return "\n".join(lines)


# ---------------------------------------------------------------------- a module's events

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def event_text(
    config: GameConfig,
    event: Mapping[str, Any],
    lang: Lang = "en",
    *,
    who: str | None = None,
    card: Callable[[int], str] | None = None,
    you: bool = False,
) -> str | None:
    """A module's own event in words, from the wordings its ``ModuleInfo.event_labels``
    gives (:class:`bohnanza.modules.info.EventLabel`); None when the module has none for
    it. ``who`` names the event's seat (default: "seat N"), ``card`` a card (default: its
    variety and kind); ``you``: the reader is that seat, so an English template's
    "{who} reveals" reads "You reveal" and "{who}'s" "Your"."""
    from ..modules import module_info

    labels = module_info(config.module).event_labels.get(str(event.get("type")), ())
    return _worded(config, labels, event, lang, who, card, you)


def event_note(
    config: GameConfig,
    event: Mapping[str, Any],
    lang: Lang = "en",
    *,
    who: str | None = None,
    card: Callable[[int], str] | None = None,
    you: bool = False,
) -> str | None:
    """The words a module adds to a base event its hooks emit with keys of their own
    (``ModuleInfo.event_notes``: "and a free third field" after a harvest of two Farmers,
    R-FARM-1); None when none fits. Arguments as :func:`event_text`'s."""
    from ..modules import module_info

    labels = module_info(config.module).event_notes.get(str(event.get("type")), ())
    return _worded(config, labels, event, lang, who, card, you)


def _worded(
    config: GameConfig,
    labels: Iterable[EventLabel],
    event: Mapping[str, Any],
    lang: Lang,
    who: str | None,
    card: Callable[[int], str] | None,
    you: bool,
) -> str | None:
    """The first of ``labels`` that fits ``event``, its placeholders filled."""
    label = next((x for x in labels if x.fits(event)), None)
    if label is None:
        return None
    template = label.text[1] if lang == "pl" else label.text[0]
    seat = event.get("seat")
    if you and lang == "en":
        template = _first_person(template)
        who = "You"
    elif who is None:
        who = _("pl" if lang == "pl" else "en", f"seat {seat}", f"miejsce {seat}")

    def name(c: Any, acc: bool) -> str:
        """A card; ``acc``: as an object (the ``_acc`` placeholders: Polish declines it)."""
        if card is not None:
            return card(int(c))
        key = config.varieties[config.card_variety[int(c)]]
        kind = config.card_kind[int(c)]
        text = variety_name(key, lang, "acc" if acc else "nom")
        return f"{text} ({_kind_word(kind, lang)})" if kind else text

    def fill(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "who":
            return str(who)
        if key in ("card", "card_acc") and isinstance(event.get("card"), int):
            return name(event["card"], key == "card_acc")
        if key in ("cards", "cards_acc"):
            cards = event.get("cards") or []
            return ", ".join(name(c, key == "cards_acc") for c in cards) or _(
                lang, "nothing", "nic"
            )
        if key == "field" and isinstance(event.get("field"), int):
            return str(int(event["field"]) + 1)
        if key in event:
            value = event[key]
            return _kind_word(value, lang) if isinstance(value, str) else str(value)
        return m.group(0)

    return _PLACEHOLDER.sub(fill, template)


def _first_person(template: str) -> str:
    """An English third-person template turned to its reader: "{who}'s" -> "Your",
    "{who} reveals" -> "You reveal" (the verb after {who} loses its -s/-es/-ies)."""
    template = template.replace("{who}'s", "Your")

    def verb(m: re.Match[str]) -> str:
        w = m.group(1)
        if w == "is":
            w = "are"
        elif w == "has":
            w = "have"
        elif w.endswith("ies"):
            w = w[:-3] + "y"
        elif w.endswith(("sses", "shes", "ches", "xes")):
            w = w[:-2]
        elif w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        return "{who} " + w

    return re.sub(r"\{who\} (\w+)", verb, template)
