"""Reading: a command line (one per answer) to the action it names, every action read by
its shape (command word, then its parameters by kind); offers in their own
sub-language; an answer checked against what the view shows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..actions import Action, ActionType, Offer
from ..shapes import ActionShape, Param, ParamKind
from ..views import View
from ._words import (
    _KEYWORD,
    _T,
    CommandError,
    Lang,
    WrongPlace,
    _,
    _action_words,
    _field_number,
    _fold,
    _kind_labels,
    _say,
    parse_card,
    parse_variety,
    rule_shapes,
)
from .render import _want_text, render_action_safe


def _parse_claim(word: str) -> str:
    low = _fold(word)
    if low in ("-", ""):
        return ""
    back = {_fold(word): kind for kind, words in _kind_labels().items() for word in words}
    return back.get(low, low)


def clean_line(line: str) -> str:
    """A model's answer line without the decoration models add (quotes, bullets, a
    trailing full stop, a ``command:`` label)."""
    s = line.strip().strip("`\"'*").strip()
    for label in ("command:", "komenda:", "answer:", "odpowiedź:", "move:", "ruch:"):
        if s.lower().startswith(label):
            s = s[len(label) :].strip()
    if s[:2] in ("- ", "> "):
        s = s[2:].strip()
    return s.rstrip(".").strip().strip("`\"'").strip()


def parse_command(line: str, view: View, lang: Lang = "en", *, base: int = 0) -> Action | None:
    """One command → the action it names, or ``None`` for ``pass``. Anything that cannot
    be read raises :class:`CommandError` with a message saying what to write; nothing is
    checked against the engine here beyond what the reader's view shows. ``base``: the
    number of the first seat in the text (:func:`render_action`). Every action is read
    by its shape: its command word, then its parameters (the offer has its own
    sub-language, :func:`parse_offer`)."""
    text = clean_line(line)
    tokens = text.replace(",", " , ").replace(";", " , ").split()
    if not tokens:
        raise CommandError(_(lang, "The answer is empty; write one command.", "Pusta odpowiedź."))
    if view.seat is None:
        raise CommandError("a spectator has no commands")
    word = _fold(tokens[0])
    args = [t for t in tokens[1:] if t != "," and _KEYWORD.get(_fold(t)) != "on"]
    if _KEYWORD.get(word) == "pass":
        _arity(args, 0, _say("pass", lang), lang)
        return None
    shapes = rule_shapes(view.config)
    candidates = _action_words(shapes).get(word)
    if not candidates:
        known = ", ".join(_commands(shapes, lang))
        raise CommandError(
            _(
                lang,
                f"Unknown command {tokens[0]!r}; commands: {known}.",
                f"Nieznana komenda {tokens[0]!r}; komendy: {known}.",
            )
        )
    if candidates[0].type == _T.PROPOSE:
        return Action.propose(parse_offer(text, view, lang, base=base))
    errors: list[CommandError] = []
    for shape in candidates:
        try:
            return _parse_args(shape, args, view, lang, base)
        except CommandError as exc:
            errors.append(exc)
    forms = " | ".join(_form(s, lang) for s in candidates)
    fitting = [e for e in errors if not isinstance(e, (WrongPlace, _Arity))]
    if fitting:
        raise fitting[0]
    places = [e for e in errors if isinstance(e, WrongPlace)]
    if places and len(candidates) == 1:
        raise places[0]
    counts = {_arg_count(s) for s in candidates}
    if len(counts) == 1 and None not in counts:
        n = counts.pop()
        assert n is not None
        _arity(args, n, forms, lang)
    n = len(args)
    raise CommandError(
        _(
            lang,
            f"{tokens[0]!r} takes other arguments than these {n}: write {forms}.",
            f"{tokens[0]!r} ma inne argumenty niż podane ({n}): napisz {forms}.",
        )
    )


def _arg_count(shape: ActionShape) -> int | None:
    """How many words an action's arguments take in text (None: it varies)."""
    n = 0
    for p in shape.params:
        if p.optional or p.kind in (ParamKind.PAYMENT, ParamKind.OFFER):
            return None
        if p.kind not in (ParamKind.PENDING_CARD, ParamKind.COINS):
            n += 2 if p.kind is ParamKind.FIELD_CARD else 1
    return n


class _Arity(CommandError):
    """A command with the wrong number of arguments for one of the actions of its word."""


def _parse_args(shape: ActionShape, args: list[str], view: View, lang: Lang, base: int) -> Action:
    """The action of ``shape`` that ``args`` write, parameter by parameter."""
    values: dict[str, Any] = {}
    rest = list(args)
    for p in shape.params:
        kind = p.kind
        if p.optional and rest and _KEYWORD.get(_fold(rest[0])) == "none":
            rest.pop(0)
            values[p.fills] = None
            continue
        if kind is ParamKind.PENDING_CARD:
            values[p.fills] = _pending_card(view, shape, p, lang)
            continue
        if kind is ParamKind.COINS:
            continue  # the text names no coins: the default (or suggested) ones pay
        if kind is ParamKind.PAYMENT:
            if rest and _KEYWORD.get(_fold(rest[0])) in ("with", "give"):
                rest.pop(0)
            cards = tuple(parse_card(view, tok, p.card_places, lang) for tok in rest)
            if len(set(cards)) != len(cards):
                raise CommandError(
                    _(lang, "A card is named twice.", "Ta sama karta podana dwa razy.")
                )
            values[p.fills] = cards
            rest = []
            continue
        need = 2 if kind is ParamKind.FIELD_CARD else 1
        if len(rest) < need:
            raise _Arity(_form(shape, lang))
        tok, rest = rest[:need], rest[need:]
        values[p.fills] = _parse_param(shape, p, tok, view, lang, base)
    if rest:
        raise _Arity(_form(shape, lang))
    return Action(ActionType(shape.type), **values)


def _parse_param(
    shape: ActionShape, p: Param, tok: list[str], view: View, lang: Lang, base: int
) -> int:
    kind = p.kind
    if kind is ParamKind.FIELD:
        return _field_number(view, tok[0], lang)
    if kind is ParamKind.OFFER_ID:
        if not tok[0].lstrip("#").isdigit():
            w = shape.words[1] if lang == "pl" else shape.words[0]
            raise CommandError(
                _(
                    lang,
                    f"write {w} OFFER_NUMBER, e.g. {w} 7.",
                    f"napisz {w} NUMER_OFERTY, np. {w} 7.",
                )
            )
        return int(tok[0].lstrip("#"))
    if kind is ParamKind.SEAT:
        n = view.config.players
        if not tok[0].isdigit() or not base <= int(tok[0]) < n + base:
            raise CommandError(
                _(
                    lang,
                    f"{tok[0]!r} is not a seat; seats are {base} to {n - 1 + base}.",
                    f"{tok[0]!r} nie jest miejscem; miejsca to {base} do {n - 1 + base}.",
                )
            )
        return int(tok[0]) - base
    if kind is ParamKind.FIELD_CARD:
        f = _field_number(view, tok[0], lang)
        cards = view.me().fields[f]
        if not tok[1].isdigit() or not 1 <= int(tok[1]) <= len(cards):
            raise CommandError(
                _(
                    lang,
                    f"field {f + 1} holds {len(cards)} cards; PLACE counts from 1 at the bottom.",
                    f"pole {f + 1} ma {len(cards)} kart; MIEJSCE liczone od 1 od spodu.",
                )
            )
        return cards[int(tok[1]) - 1]
    return parse_card(view, tok[0], p.card_places, lang)


def pending_card(view: View, kind: str) -> int | None:
    """The card the reader's open pending decision of ``kind`` is about (its first
    argument of a card kind, as declared), or None."""
    p = view.pending
    if p is None or p.kind != kind or p.seat != view.seat:
        return None
    cards = p.cards()
    return cards[0] if cards else None


def _pending_card(view: View, shape: ActionShape, p: Param, lang: Lang) -> int:
    card = pending_card(view, shape.type)
    if card is None:
        what, verb = (p.label[1], shape.words[1]) if lang == "pl" else (p.label[0], shape.words[0])
        raise CommandError(
            _(
                lang,
                f"There is no {what} to {verb} now.",
                f"Nie ma teraz nic do zrobienia ({verb}: {what}).",
            )
        )
    return card


_ARG_NAMES: dict[str, tuple[str, str]] = {
    ParamKind.FIELD: ("FIELD", "POLE"),
    ParamKind.OFFER_ID: ("N", "N"),
    ParamKind.SEAT: ("SEAT", "MIEJSCE"),
    ParamKind.FIELD_CARD: ("FIELD PLACE", "POLE MIEJSCE"),
}


def _form(shape: ActionShape, lang: Lang) -> str:
    """How an action is written, with placeholders (``plant tN FIELD``)."""
    parts = [shape.words[1] if lang == "pl" else shape.words[0]]
    pl = lang == "pl"
    for p in shape.params:
        kind = p.kind
        if kind in (ParamKind.PENDING_CARD, ParamKind.COINS, ParamKind.OFFER):
            continue
        if kind is ParamKind.PAYMENT:
            parts.append(f"[{_say('with', lang)} 1,d1,…]")
            continue
        names = _ARG_NAMES.get(kind)
        if names is not None:
            text = names[1] if pl else names[0]
        else:
            text = "|".join(f"{c if c != 'h' else ''}N" for c in p.card_places)
        if p.optional:
            text = f"{text}|{_say('none', lang)}"
        parts.append(text)
    return " ".join(parts)


def _commands(shapes: Iterable[ActionShape], lang: Lang) -> list[str]:
    """The command words of a rule set, once each, and ``pass``."""
    out: list[str] = []
    for shape in shapes:
        w = shape.words[1] if lang == "pl" else shape.words[0]
        if w not in out:
            out.append(w)
    return [*out, _say("pass", lang)]


def _no_args(args: Sequence[str], head: str, lang: Lang) -> None:
    _arity(args, 0, _say(head, lang), lang)


def _arity(args: Sequence[str], n: int, form: str, lang: Lang) -> None:
    if len(args) != n:
        raise CommandError(
            _(
                lang,
                f"{form!r} takes {n} argument{'s' if n != 1 else ''}, got {len(args)}: "
                f"write {form}.",
                f"{form!r} ma {n} argument(y), podano {len(args)}: napisz {form}.",
            )
        )


def parse_offer(line: str, view: View, lang: Lang = "en", *, base: int = 0) -> Offer:
    """``offer [SEAT] give 1,3 want chili:1 [declare red]`` → the offer. The seat may be
    left out by a non-active player (it can trade only with the active one, R-TRADE-2)."""
    if view.phase != "trade":
        raise CommandError(
            _(
                lang,
                "Offers can be made only in phase 2 (trading).",
                "Oferty składa się tylko w fazie 2 (wymiana).",
            )
        )
    tokens = clean_line(line).replace(",", " , ").split()[1:]
    to: int | None = None
    if tokens and tokens[0].isdigit():
        to = int(tokens.pop(0)) - base
    parts: dict[str, list[str]] = {}
    key: str | None = None
    example = _(lang, "e.g. offer 2 give 1,3 want chili:1", "np. oferta 2 daję 1,3 chcę kowboj:1")
    for tok in tokens:
        word = _KEYWORD.get(_fold(tok))
        if word in ("give", "want", "declare"):
            key = word
            if key in parts:
                raise CommandError(
                    _(lang, f"{tok!r} is given twice in the offer.", f"{tok!r} podano dwa razy.")
                )
            parts[key] = []
        elif key is None:
            raise CommandError(
                _(
                    lang,
                    f"Cannot read the offer at {tok!r}; write {example}.",
                    f"Nie rozumiem oferty przy {tok!r}; napisz {example}.",
                )
            )
        elif tok != ",":
            parts[key].append(tok)
    me = view.seat
    if to is None:
        if me == view.active:
            raise CommandError(
                _(
                    lang,
                    "Say which seat the offer is for: offer SEAT give ...",
                    "Podaj, do kogo jest oferta: oferta MIEJSCE daję ...",
                )
            )
        to = view.active
    if to == me or not 0 <= to < view.players:
        last = view.players - 1 + base
        mine = (me or 0) + base
        raise CommandError(
            _(
                lang,
                f"seat {to + base} cannot be your partner; seats are {base} to {last}, "
                f"you are seat {mine}.",
                f"miejsce {to + base} nie może być partnerem; miejsca {base}–{last}, "
                f"ty jesteś {mine}.",
            )
        )
    if me != view.active and to != view.active:
        raise CommandError(
            _(
                lang,
                f"you may trade only with the active seat {view.active + base} (R-TRADE-2).",
                f"możesz handlować tylko z aktywnym graczem {view.active + base} (R-TRADE-2).",
            )
        )
    allowed = "hd" if me == view.active else "h"
    give = tuple(parse_card(view, p, allowed, lang, giving=True) for p in parts.get("give", []))
    if len(set(give)) != len(give):
        raise CommandError(_(lang, "A card is given twice.", "Ta sama karta podana dwa razy."))
    want: list[tuple[str, int]] = []
    for item in parts.get("want", []):
        name, _sep, count = item.partition(":")
        if (count and not count.isdigit()) or count == "0":
            raise CommandError(
                _(
                    lang,
                    f"Bad count in {item!r}: write VARIETY:COUNT, e.g. chili:2.",
                    f"Zła liczba w {item!r}: napisz ODMIANA:LICZBA, np. kowboj:2.",
                )
            )
        want.append((parse_variety(view, name, lang), int(count) if count else 1))
    declared = tuple(_parse_claim(d) for d in parts.get("declare", []))
    if declared and len(declared) != len(give):
        raise CommandError(
            _(
                lang,
                f"declare names one claim per given card ({len(give)}), got {len(declared)}; "
                "write - for no claim.",
                f"deklaracja musi mieć po jednej pozycji na daną kartę ({len(give)}).",
            )
        )
    if not give and not want:
        raise CommandError(
            _(
                lang,
                f"The offer gives nothing and asks for nothing; write {example}.",
                f"Oferta nic nie daje i o nic nie prosi; napisz {example}.",
            )
        )
    return Offer(to, give, tuple(want), declared)


def check_answer(
    action: Action, view: View, legal: Sequence[Action], lang: Lang = "en", *, base: int = 0
) -> None:
    """Raise :class:`CommandError` unless ``action`` is allowed now, as far as the view can
    tell: listed in ``legal``, or an offer or acceptance built by the rules of R-TRADE-1…4
    (the legal list holds only a sample of those)."""
    if action in legal:
        return
    t = action.type
    if (
        t is _T.PROPOSE
        and action.offer is not None
        and view.phase == "trade"
        and view.pending is None
    ):
        _check_offer(action.offer, view, lang)
        return
    if t is _T.ACCEPT:
        offer = next((o for o in view.offers if o.offer_id == action.offer_id), None)
        if offer is not None and offer.to == view.seat:
            want = dict(offer.want)
            got: dict[str, int] = {}
            for c in action.cards:
                got[view.variety(c)] = got.get(view.variety(c), 0) + 1
            if (
                got == want
                and (view.seat == view.active or not set(action.cards) & set(view.drawn))
                and any(a.offer_id == action.offer_id for a in legal)
            ):
                return
            asked = _want_text(offer.want, lang) or _(lang, "nothing", "nic")
            raise CommandError(
                _(
                    lang,
                    f"offer #{offer.offer_id} asks for {asked}; give exactly those cards "
                    "from your hand (the active player may also give d1, d2).",
                    f"oferta #{offer.offer_id} prosi o: {asked}; daj dokładnie te karty.",
                )
            )
    raise CommandError(
        _(
            lang,
            f"{render_action_safe(action, view, lang, base)!r} is not allowed now; "
            "choose one of the legal moves listed.",
            f"{render_action_safe(action, view, lang, base)!r} nie jest teraz dozwolone; "
            "wybierz jeden z wymienionych ruchów.",
        )
    )


def _check_offer(o: Offer, view: View, lang: Lang) -> None:
    """The engine's offer rules that :func:`parse_offer` does not apply already
    (R-TRADE-1…4, R-BLUFF-1/2), from what the proposer's view shows."""
    from ..game import MAX_OFFER_CARDS, MAX_OPEN_OFFERS
    from ..modules import hooks_for

    hooks = hooks_for(view.config)
    if not hooks.trading:
        raise CommandError(
            _(lang, "there is no trading in this game.", "w tej grze nie ma wymiany.")
        )
    mine = sum(1 for ov in view.offers if ov.proposer == view.seat)
    if mine >= MAX_OPEN_OFFERS:
        raise CommandError(
            _(
                lang,
                f"at most {MAX_OPEN_OFFERS} of your offers may be open; withdraw one first.",
                f"najwyżej {MAX_OPEN_OFFERS} twoich ofert może być otwartych; wycofaj jedną.",
            )
        )
    if len(o.give) > MAX_OFFER_CARDS or sum(n for _v, n in o.want) > MAX_OFFER_CARDS:
        raise CommandError(
            _(
                lang,
                f"at most {MAX_OFFER_CARDS} cards on each side.",
                f"najwyżej {MAX_OFFER_CARDS} kart z każdej strony.",
            )
        )
    wanted = [v for v, _n in o.want]
    if len(set(wanted)) != len(wanted):
        raise CommandError(
            _(
                lang,
                "name each wanted variety once, with its count (chili:2).",
                "podaj każdą odmianę raz, z liczbą (kowboj:2).",
            )
        )
    for c, d in zip(o.give, o.declared, strict=False):
        if d and c in view.drawn:
            raise CommandError(
                _(
                    lang,
                    "drawn cards are face up: nothing to declare about them (R-BLUFF-2).",
                    "odkryte karty są widoczne: nie ma czego deklarować (R-BLUFF-2).",
                )
            )
        err = hooks.declared_error(None, c, d)
        if err:
            raise CommandError(err)
