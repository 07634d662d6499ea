"""A seat's game as text, and a command language for its answers (English and Polish).

This is the one command language of the project: the terminal game reads it, and language
model players (:mod:`bohnanza.agents.llm`, :mod:`bohnanza.textarena`) answer in it.

Cards are named by where the reader sees them, never by card id: ``1``…``n`` are places in
the reader's hand (1 = the front card), ``d1``, ``d2`` the turned-up cards, ``t1``… the
reader's trade area, ``o1``… and ``r1``… the duel's offered and revealed cards. Fields are
numbered from 1. Varieties are written by key (``chili``), English or Polish name, or an
unambiguous prefix (``blu``). Commands, one per line::

    plant 1                         front hand card onto field 1 (phase 1)
    stop                            do not plant a second card
    offer 2 give 1,3 want chili:1   hand cards 1 and 3 to seat 2 for one Chili
    offer give d1                   a gift (seat left out: to the active player)
    accept 7 with 2,4               accept offer #7 giving hand cards 2 and 4
    decline 7 / withdraw 7          refuse an offer to you / take back your own
    end                             the active player ends trading
    plant t1 2                      trade-area card 1 onto field 2 (phase 3)
    harvest 2 / buy                 harvest field 2 / buy a third field
    pass                            nothing this round (trading, when not required)

A text built here is made only from a :class:`~bohnanza.views.View`, which holds nothing
its reader may not know (R-INFO-1…3); card ids never appear in it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources
from typing import Any, Literal

from .actions import Action, ActionType, Offer, all_shapes, shape_of
from .cards import catalogue, varieties
from .rules import GameConfig
from .shapes import BASE_SHAPES, CARD_KINDS, ActionShape, Param, ParamKind
from .views import OfferView, View

Lang = Literal["en", "pl"]
LANGS: tuple[Lang, ...] = ("en", "pl")
_T = ActionType

#: Longest offer list shown one by one; the rest are counted, never dropped silently.
MAX_OFFER_LINES = 40


class CommandError(ValueError):
    """A command that cannot be understood or is not allowed now; the message says what
    to write instead, in the reader's language."""


class WrongPlace(CommandError):
    """A card named from a place the command does not take it from (the parser then
    tries the other actions written with the same word)."""


def _(lang: Lang, en: str, pl: str) -> str:
    return pl if lang == "pl" else en


def _fold(word: str) -> str:
    """Lower case without diacritics (``zasadź`` → ``zasadz``), for keyword matching."""
    word = word.lower().replace("ł", "l")
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


# The words of the commands' sub-languages (offers, answers) and of ``pass``: canonical
# name -> words that mean it (English, Polish; folded). The actions' own command words
# come from their shapes (ActionShape.words and aliases, see _action_words).
_WORDS: dict[str, tuple[str, ...]] = {
    "give": ("give", "daje", "daj"),
    "want": ("want", "for", "chce", "za"),
    "declare": ("declare", "deklaruje", "deklaracja"),
    "with": ("with", "dajac", "oddaje"),
    "none": ("none", "nic", "nie"),
    "on": ("on", "na"),
    "pass": ("pass", "pas", "p"),
}
_KEYWORD = {w: key for key, words in _WORDS.items() for w in words}
# How each word is written when rendered.
_SAY: dict[str, tuple[str, str]] = {
    "give": ("give", "daję"),
    "want": ("want", "chcę"),
    "declare": ("declare", "deklaruję"),
    "with": ("with", "dając"),
    "none": ("none", "nic"),
    "pass": ("pass", "pas"),
}


def _action_words(shapes: Iterable[ActionShape]) -> dict[str, list[ActionShape]]:
    """Folded command word -> the shapes it starts, in table order (several actions may
    share a word: ``plant FIELD``, ``plant tN FIELD``)."""
    out: dict[str, list[ActionShape]] = {}
    for shape in shapes:
        for w in {_fold(shape.words[0]), _fold(shape.words[1]), *map(_fold, shape.aliases)}:
            if shape not in out.setdefault(w, []):
                out[w].append(shape)
    return out


def rule_shapes(config: GameConfig) -> tuple[ActionShape, ...]:
    """The shapes of the actions of ``config``'s rule set, in its rules' listing order
    (the base game's and its module's own)."""
    from .modules import hooks_for

    return tuple(cls.shape() for cls in hooks_for(config).rule_classes)


def is_command(word: str) -> bool:
    """Whether ``word`` starts a command (in either language) of any rule set."""
    w = _fold(word)
    return _KEYWORD.get(w) == "pass" or w in _action_words(all_shapes().values())


def _say(word: str, lang: Lang) -> str:
    en, pl = _SAY[word] if word in _SAY else shape_of(_BY_WORD[word]).words
    return pl if lang == "pl" else en


# The base game's actions by the word the hand-written parts (offers) name them with.
_BY_WORD = {
    "plant": "plant",
    "stop": "stop_planting",
    "offer": "propose",
    "accept": "accept",
    "decline": "decline",
    "withdraw": "withdraw",
    "end": "end_trading",
    "harvest": "harvest",
    "buy": "buy_field",
}


# ---------------------------------------------------------------------- names of things


def variety_name(key: str, lang: Lang = "en") -> str:
    v = varieties().get(key)
    if v is None:
        return key
    return v.name_pl if lang == "pl" else v.name


def variety_word(key: str, lang: Lang = "en") -> str:
    """A variety as written in commands: the key in English, the folded-free Polish name."""
    if lang == "pl":
        return variety_name(key, lang).lower()
    return key


def card_name(view: View, card: int, lang: Lang = "en") -> str:
    text = variety_name(view.variety(card), lang)
    kind = view.kind(card)
    return f"{text} ({_kind_word(kind, lang)})" if kind else text


_KINDS = {"lady": "dama", "child": "dziecko", "red": "czerwony", "black": "czarny"}


def _kind_word(kind: str, lang: Lang) -> str:
    return _KINDS.get(kind, kind) if lang == "pl" else kind


def parse_variety(view: View, name: str, lang: Lang = "en") -> str:
    """A variety key from how a player wrote it (key, English or Polish name, prefix)."""
    low = _fold(name.strip())
    keys = view.config.varieties
    spell = {k: {k, _fold(variety_name(k, "en")), _fold(variety_name(k, "pl"))} for k in keys}
    exact = [k for k in keys if low in spell[k]]
    if exact:
        return exact[0]
    found = [k for k in keys if low and any(s.startswith(low) for s in spell[k])]
    if len(found) == 1:
        return found[0]
    known = ", ".join(variety_word(k, lang) for k in keys)
    if found:
        which = ", ".join(variety_name(k, lang) for k in found)
        raise CommandError(
            _(
                lang,
                f"{name!r} could be {which}; write more of the name.",
                f"{name!r} może znaczyć: {which}; napisz więcej liter.",
            )
        )
    raise CommandError(
        _(
            lang,
            f"No variety {name!r} in this game; it has: {known}.",
            f"W tej grze nie ma odmiany {name!r}; są: {known}.",
        )
    )


# ---------------------------------------------------------------------- card places


def _places(view: View) -> dict[str, tuple[int, ...]]:
    """Where the reader sees cards it may name in a command, by token prefix."""
    me = view.me()
    out: dict[str, tuple[int, ...]] = {
        "": view.hand or (),
        "d": view.drawn,
        "t": me.trade_area,
    }
    for key, prefix in _pile_prefixes(view).items():
        pile = view.public.get(key)
        if isinstance(pile, list) and all(isinstance(c, int) for c in pile):
            out[prefix] = tuple(pile)
    return out


def _pile_prefixes(view: View) -> dict[str, str]:
    """The token prefix of each public pile of the view's module (ModuleInfo.pile_tokens)."""
    if view.config.module is None:
        return {}
    from .modules import module_info

    return dict(module_info(view.config.module).pile_tokens)


def _pile_names(view: View) -> dict[str, tuple[str, str]]:
    """Per token prefix of the module's public piles, the pile's name (EN, PL)."""
    if view.config.module is None:
        return {}
    from .modules import module_info

    info = module_info(view.config.module)
    return {
        prefix: info.pile_names.get(key, (key.replace("_", " "),) * 2)
        for key, prefix in info.pile_tokens.items()
    }


def card_token(view: View, card: int, prefixes: str = "dtor") -> str:
    """The token naming ``card`` for the reader (``3``, ``d1``, ``t2``); hand first."""
    for prefix, cards in _places(view).items():
        if (prefix == "" or prefix in prefixes) and card in cards:
            return f"{prefix}{cards.index(card) + 1}"
    raise ValueError(f"card {card} is not where seat {view.seat} can name it")


def parse_card(
    view: View, token: str, allowed: str, lang: Lang = "en", *, giving: bool = False
) -> int:
    """The card a token names. ``allowed`` lists the places that make sense for the
    command: ``h`` (hand), ``d``, ``t``, ``o``, ``r`` (a module's piles: their
    ``ModuleInfo.pile_tokens``). ``giving``: the cards an offer gives (where a drawn
    card is refused for a reason of its own, R-TRADE-2)."""
    low = token.strip().lower()
    prefix = low.rstrip("0123456789")
    number = low[len(prefix) :]
    if prefix == "h":
        prefix = ""
    key = prefix or "h"
    where = {
        "h": ("your hand", "twojej ręce"),
        "d": ("the drawn cards", "odkrytych kartach"),
        "t": ("your trade area", "twoim polu wymiany"),
        **_pile_names(view),
    }
    shown = {"h": "1,2,…", "d": "d1,d2", "t": "t1,…"}
    tokens = ", ".join(shown.get(p, f"{p}1,…") for p in allowed if p in where)
    if not number or len(prefix) > 1 or key not in where:
        raise CommandError(
            _(
                lang,
                f"{token!r} is not a card position; name cards by position: {tokens}.",
                f"{token!r} nie jest pozycją karty; podaj pozycje: {tokens}.",
            )
        )
    if key not in allowed:
        if key == "d" and giving:
            raise CommandError(
                _(
                    lang,
                    "Only the active player may offer the drawn cards (R-TRADE-2).",
                    "Tylko aktywny gracz może oferować odkryte karty (R-TRADE-2).",
                )
            )
        raise WrongPlace(
            _(
                lang,
                f"cards from {where[key][0]} cannot be used here; use {tokens}.",
                f"karty z {where[key][1]} nie mogą być tu użyte; użyj {tokens}.",
            )
        )
    cards = _places(view).get(prefix, ())
    k = int(number)
    if not 1 <= k <= len(cards):
        if key == "h":
            raise CommandError(
                _(
                    lang,
                    f"There is no card {k} in your hand; it holds {len(cards)}.",
                    f"Nie ma karty {k} w twojej ręce; jest w niej {len(cards)}.",
                )
            )
        raise CommandError(
            _(
                lang,
                f"There is no {'drawn card' if key == 'd' else 'card'} {token} in "
                f"{where[key][0]}; there are {len(cards)}.",
                f"Nie ma karty {token} w {where[key][1]}; jest ich {len(cards)}.",
            )
        )
    return cards[k - 1]


def _field_number(view: View, token: str, lang: Lang) -> int:
    n = len(view.me().fields)
    if not token.isdigit() or not 1 <= int(token) <= n:
        raise CommandError(
            _(
                lang,
                f"{token!r} is not a field; your fields are numbered 1 to {n}.",
                f"{token!r} nie jest polem; twoje pola mają numery od 1 do {n}.",
            )
        )
    return int(token) - 1


# ---------------------------------------------------------------------- actions as commands


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


def _parse_claim(word: str) -> str:
    low = _fold(word)
    if low in ("-", ""):
        return ""
    back = {_fold(pl): en for en, pl in _KINDS.items()}
    return back.get(low, low)


# ---------------------------------------------------------------------- commands as actions


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
    """The card the reader's open pending decision of ``kind`` is about, or None: the
    first number after its kind (``(seat, kind, card, ...)``)."""
    p = view.pending
    if p is None or len(p) < 3 or p[1] != kind or p[0] != view.seat:
        return None
    card = p[2]
    return card if isinstance(card, int) else None


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
    from .game import MAX_OFFER_CARDS, MAX_OPEN_OFFERS
    from .modules import hooks_for

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


def render_action_safe(action: Action, view: View, lang: Lang, base: int = 0) -> str:
    try:
        return render_action(action, view, lang, base=base)
    except (ValueError, AssertionError):
        return action.type.value


# ---------------------------------------------------------------------- the view as text

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
        from .modules import module_info, module_names

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
    return ", ".join(f"{n} {variety_name(str(v), lang)}" for v, n in want)


def _shown_text(view: View, card: int | None, shown: dict[str, Any], lang: Lang) -> str:
    if card is not None:
        text = card_name(view, card, lang)
        if card in view.drawn:
            text += f" (d{view.drawn.index(card) + 1})"
        elif view.hand and card in view.hand:
            text += _(
                lang, f" (hand {view.hand.index(card) + 1})", f" (ręka {view.hand.index(card) + 1})"
            )
    else:
        text = variety_name(str(shown.get("variety", "?")), lang)
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
            f"Miejsce {s.seat + base}{mark}{' (' + who + ')' if who else ''}: {s.coins} monet, "
            f"{s.hand_size} kart w ręce; pola: {fields}",
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
        who, what, *rest = view.pending
        text = pending_text(view, str(what), rest, lang)
        waits = int(who) + base
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


def pending_text(view: View, kind: str, args: Sequence[Any], lang: Lang = "en") -> str:
    """What a pending decision asks, in words: the help of the action that answers it
    (its shape's, where the decision's kind is the answering action's type), naming the
    card the decision is about; otherwise its kind and numbers as they are."""
    try:
        shape = shape_of(kind)
    except KeyError:
        return " ".join(str(x) for x in (kind, *args))
    text = shape.help[1] if lang == "pl" else shape.help[0]
    if not text:
        text = shape.label[1] if lang == "pl" else shape.label[0]
    pending = next((p for p in shape.params if p.kind is ParamKind.PENDING_CARD), None)
    if pending is not None and args and isinstance(args[0], int):
        label = pending.label[1] if lang == "pl" else pending.label[0]
        text += f" ({label}: {card_name(view, int(args[0]), lang)})"
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


def render_prompt(
    view: View, legal: Sequence[Action], required: bool, lang: Lang = "en", *, base: int = 0
) -> str:
    """The user message of one decision: the table, the moves, and how to answer."""
    to_me = [o for o in view.offers if o.to == view.seat]
    if to_me and view.phase == "trade":
        ask = _(
            lang,
            f"{'Offers' if len(to_me) > 1 else 'Offer'} "
            f"{', '.join('#' + str(o.offer_id) for o in to_me)} "
            f"{'are' if len(to_me) > 1 else 'is'} addressed to you. "
            "Answer each of them (accept or decline), one command per line; you may add other "
            "commands (a harvest, your own offer) on further lines.",
            f"Oferty {', '.join('#' + str(o.offer_id) for o in to_me)} są skierowane do ciebie. "
            "Odpowiedz na każdą (przyjmij albo odrzuć), jedna komenda w linii; możesz dodać "
            "inne komendy w kolejnych liniach.",
        )
    else:
        ask = _(
            lang,
            "Answer with one command on one line, nothing else.",
            "Odpowiedz jedną komendą w jednej linii, bez niczego więcej.",
        )
    return (
        render_view(view, lang, base=base)
        + "\n\n"
        + _(lang, "Legal moves now:", "Dozwolone ruchy:")
        + "\n"
        + render_moves(view, legal, required, lang, base=base)
        + "\n\n"
        + ask
    )


RULES_EN = """\
You play the card game Bohnanza (bean trading). Goal: most coins at the end; ties go to \
the player with more cards in hand, then share the win. Seats are numbered from 1; seat 1 \
takes the first turn, then play goes round in seat order.
Each player has 2 bean fields (a third may be bought). A field holds one variety only. \
Harvesting a field pays coins by its beanometer: "meter 4/6/8/10" means 4 beans pay 1 coin, \
6 pay 2, 8 pay 3, 10 pay 4 ("-" = no such level). A field with exactly one bean may not be \
harvested while you have a field with more beans. Coins leave the game.
Your hand order is fixed: you always plant from the front (card 1); new cards go to the back.
A turn of the active player: (1) plant the front hand card (must), then optionally the \
next one; (2) cards are turned up (d1, d2); the active player trades them and hand \
cards with anyone, the others trade hand cards with the active player only; received \
cards go to the trade area; offers name the cards given (by position) and the varieties \
wanted; gifts are allowed; (3) everybody plants their trade-area cards, the active \
player also the turned-up cards kept; (4) the active player draws cards to the back of \
the hand. When you must plant a card of a variety you have no field for, harvest one \
first.
Strategy hints: keep long fields growing, trade away cards that would force you to \
harvest early, avoid planting a variety that breaks a valuable field."""

RULES_PL = """\
Grasz w grę karcianą Fasolki (Bohnanza, handel fasolą). Cel: najwięcej monet na końcu; przy \
remisie wygrywa gracz z większą liczbą kart w ręce, a gdy i to jest równe, zwycięstwo jest \
dzielone. Miejsca są numerowane od 1; miejsce 1 zaczyna, dalej gra idzie kolejno według miejsc.
Każdy ma 2 pola fasolek (trzecie można kupić). Na polu rośnie tylko jedna odmiana. Zbiór pola \
płaci monety według miernika: "miernik 4/6/8/10" znaczy, że 4 fasolki dają 1 monetę, 6 \
dwie, 8 trzy, 10 cztery ("-" = brak takiego progu). Pola z dokładnie jedną fasolką nie wolno \
zebrać, gdy masz pole z większą liczbą fasolek. Monety wychodzą z gry.
Kolejność kart w ręce jest stała: sadzisz zawsze z przodu (karta 1), nowe karty idą na koniec.
Tura aktywnego gracza: (1) zasadź pierwszą kartę z ręki (obowiązkowo), potem ewentualnie \
następną; (2) odkrywa się karty (d1, d2); aktywny gracz wymienia je i karty z ręki z \
każdym, pozostali wymieniają karty z ręki tylko z aktywnym; otrzymane karty trafiają na \
pole wymiany; oferta podaje dawane karty (według pozycji) i chciane odmiany; wolno też \
dawać prezenty; (3) wszyscy sadzą karty z pola wymiany, aktywny gracz także zatrzymane \
odkryte karty; (4) aktywny gracz dobiera karty na koniec ręki. Gdy musisz zasadzić \
odmianę, dla której nie masz pola, najpierw zbierz któreś pole.
Wskazówki: pozwól długim polom rosnąć, oddawaj karty, które zmusiłyby cię do wczesnego \
zbioru, nie sadź odmiany, która zniszczyłaby cenne pole."""


def _nth(n: int, lang: Lang) -> str:
    if lang == "pl":
        return f"{n}."
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


def game_facts(config: GameConfig, lang: Lang = "en") -> str:
    """The numbers of this rule set and player count: the deck with its beanometers,
    hands, fields and the end (what the brief leaves to the rule set)."""
    counts = [0] * len(config.varieties)
    for v in config.card_variety:
        counts[v] += 1
    beans = "; ".join(
        f"{variety_name(key, lang)} {counts[i]} "
        + _(lang, "cards, meter ", "kart, miernik ")
        + "/".join(str(b) if b else "-" for b in varieties()[key].beanometer)
        for i, key in enumerate(config.varieties)
    )
    hands = "/".join(str(h) for h in config.hand_sizes)
    n = config.players
    module = f" + {config.module}" if config.module else ""
    fields = (
        _(
            lang,
            "Everybody starts with three fields.",
            "Każdy zaczyna z trzema polami.",
        )
        if config.start_with_third_field
        else _(
            lang,
            f"A third field costs {config.field_price} coins ({config.third_fields} for the "
            "whole table).",
            f"Trzecie pole kosztuje {config.field_price} monety ({config.third_fields} na "
            "cały stół).",
        )
    )
    end = (
        _(
            lang,
            "The game ends the moment the draw pile runs out.",
            "Gra kończy się w chwili, gdy skończy się talia.",
        )
        if config.end_immediately
        else _(
            lang,
            f"The discard pile is reshuffled when the draw pile runs out; the game ends when "
            f"it runs out for the {_nth(config.runouts_to_end, lang)} time (that turn is "
            "finished).",
            f"Gdy talia się skończy, tasuje się odrzucone; gra kończy się, gdy talia skończy "
            f"się po raz {_nth(config.runouts_to_end, lang)} (ta tura jest dokańczana).",
        )
    )
    return _(
        lang,
        f"This game: rules {config.base}{module}, {n} players (seats 1 to {n}). Deck: {beans}. "
        f"Starting hands by seat: {hands} cards. In phase 2, {config.drawn_count} cards are "
        f"turned up; in phase 4 the active player draws {config.draw_count}. {fields} {end}",
        f"Ta gra: zasady {config.base}{module}, {n} graczy (miejsca 1 do {n}). Talia: {beans}. "
        f"Ręce na start według miejsc: {hands} kart. W fazie 2 odkrywa się "
        f"{config.drawn_count} karty; w fazie 4 aktywny gracz dobiera {config.draw_count}. "
        f"{fields} {end}",
    )


@cache
def rules_reference(lang: Lang = "en", module: str | None = None) -> str:
    """The player-facing rules reference (``docs/rules.md``, shipped with the package as
    ``web/static/rules.<lang>.md``) with the sections of the other modules left out: what
    a person reads, so that the model plays by the same rules and rule IDs."""
    text = (resources.files("bohnanza") / "web" / "static" / f"rules.{lang}.md").read_text(
        encoding="utf-8"
    )
    # The data file lists the modules in the order of the reference's "Module N" sections.
    order = tuple(catalogue()["modules"])
    keep = f"{order.index(module) + 1}:" if module in order else None
    out: list[str] = []
    skipping = False
    for line in text.splitlines():
        if line.startswith("## "):
            words = line.split()
            is_module = len(words) > 2 and words[1] in ("Module", "Moduł")
            skipping = is_module and words[2] != keep
        if not skipping:
            out.append(line)
    return "\n".join(out).strip()


@cache
def module_rules(lang: Lang, module: str) -> str:
    """The section of the rules reference on ``module`` alone (with its rule IDs)."""
    order = tuple(catalogue()["modules"])
    if module not in order:
        return ""
    keep = f"{order.index(module) + 1}:"
    out: list[str] = []
    inside = False
    for line in rules_reference(lang, module).splitlines():
        if line.startswith("## "):
            words = line.split()
            inside = len(words) > 2 and words[1] in ("Module", "Moduł") and words[2] == keep
        if inside:
            out.append(line)
    return "\n".join(out).strip()


def module_commands(config: GameConfig | None, lang: Lang = "en") -> str:
    """The commands of a module's own actions, written from their shapes (word,
    arguments, help), one per line after a heading; "" for a rule set without any.
    ``config`` None: every module's (a prompt for any game)."""
    if config is None:
        shapes = [s for k, s in all_shapes().items() if k not in BASE_SHAPES]
    else:
        shapes = [s for s in rule_shapes(config) if s.type not in BASE_SHAPES]
    if not shapes:
        return ""
    pl = lang == "pl"
    lines = [_(lang, "Module commands when listed:", "Komendy modułu, gdy są wymienione:")]
    for shape in shapes:
        help_ = shape.help[1] if pl else shape.help[0]
        lines.append(f"  {_form(shape, lang)}" + (f" - {help_}" if help_ else ""))
    if config is None or config.module is not None:
        from .modules import module_info

        infos = [module_info(config.module)] if config and config.module else []
        if config is None or any(i.declarations for i in infos):
            lines.append(
                _(
                    lang,
                    "  declare CLAIM,... at the end of an offer - what you claim about each "
                    "given card",
                    "  deklaruję KOLOR,... na końcu oferty - co twierdzisz o każdej dawanej karcie",
                )
            )
    return "\n".join(lines)


@cache
def system_prompt(lang: Lang = "en", config: GameConfig | None = None) -> str:
    """The system message for a model: short and the same for every question of a game
    (endpoints that cache a prompt prefix then send it once): the game in brief, the
    numbers of this rule set and player count, the rules of its module (if any) from
    the rules reference, and the command language. Seats are numbered from 1."""
    parts = [RULES_PL if lang == "pl" else RULES_EN]
    if config is not None:
        parts.append(game_facts(config, lang))
        if config.module:
            parts.append(module_rules(lang, config.module))
    if lang == "pl":
        parts.append(
            "Komendy (pola numerowane od 1, miejsca od 1, karty według pozycji: 1,2,… w ręce, "
            "d1,d2 odkryte, t1,… pole wymiany):\n"
            "  zasadź POLE | dość | oferta MIEJSCE daję 1,3 chcę kowboj:1 | "
            "przyjmij N dając 2,4 | odrzuć N | wycofaj N | koniec | zasadź t1 POLE | "
            "zbierz POLE | kup | pas"
        )
    else:
        parts.append(
            "Commands (fields and seats numbered from 1; cards by position: 1,2,... in your "
            "hand, d1,d2 turned-up, t1,... your trade area):\n"
            "  plant FIELD | stop | offer SEAT give 1,3 want chili:1 | accept N with 2,4 | "
            "decline N | withdraw N | end | plant t1 FIELD | harvest FIELD | buy | pass"
        )
    own = module_commands(config, lang)
    if own:
        parts[-1] += "\n" + own
    parts[-1] += "\n" + _(
        lang,
        "Answer with commands only, one per line.",
        "Odpowiadaj samymi komendami, każda w osobnej linii.",
    )
    return "\n\n".join(p for p in parts if p)


__all__ = [
    "LANGS",
    "CommandError",
    "Lang",
    "card_token",
    "check_answer",
    "clean_line",
    "game_facts",
    "is_command",
    "module_rules",
    "offer_line",
    "parse_card",
    "parse_command",
    "parse_offer",
    "parse_variety",
    "render_action",
    "render_moves",
    "render_offer",
    "render_prompt",
    "render_view",
    "rules_reference",
    "system_prompt",
]
