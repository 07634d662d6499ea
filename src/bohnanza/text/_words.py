"""The words of the text interface: the two languages, the command keywords, the names
of varieties and cards, and the places a reader names cards by (``3``, ``d1``, ``t2``…)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Literal

from ..actions import ActionType, all_shapes, shape_of
from ..cards import PlForm, varieties
from ..rules import GameConfig
from ..shapes import ActionShape
from ..views import View

Lang = Literal["en", "pl"]


LANGS: tuple[Lang, ...] = ("en", "pl")


_T = ActionType


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
    from ..modules import hooks_for

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


def variety_name(key: str, lang: Lang = "en", form: PlForm = "nom") -> str:
    """A variety's name; ``form``: how a Polish sentence uses it (``acc`` as an object,
    :data:`bohnanza.cards.PL_FORMS`), which English does not mark."""
    v = varieties().get(key)
    if v is None:
        return key
    return v.pl(form) if lang == "pl" else v.name


def variety_count(key: str, n: int, lang: Lang = "en", case: Literal["nom", "acc"] = "nom") -> str:
    """``n`` cards of a variety: "2 Blue"; in Polish with the form the number asks for
    ("2 Niebieskie", "5 Niebieskich"; one card as ``case`` has it: "1 Niebieską")."""
    v = varieties().get(key)
    if v is None:
        return f"{n} {key}"
    return v.pl_count(n, case) if lang == "pl" else f"{n} {v.name}"


def variety_word(key: str, lang: Lang = "en") -> str:
    """A variety as written in commands: the key in English, the Polish name in lower
    case, one word (a command is split at spaces: "czarne-oczko")."""
    if lang == "pl":
        return variety_name(key, lang).lower().replace(" ", "-")
    return key


def card_name(view: View, card: int, lang: Lang = "en", form: PlForm = "nom") -> str:
    """A card by its variety (and kind); ``form`` as in :func:`variety_name`."""
    text = variety_name(view.variety(card), lang, form)
    kind = view.kind(card)
    return f"{text} ({_kind_word(kind, lang)})" if kind else text


_KIND_LABELS: dict[tuple[str, ...], dict[str, tuple[str, str]]] = {}


def _kind_labels() -> dict[str, tuple[str, str]]:
    """Every card kind the modules declare (``ModuleInfo.kinds``), by kind: its word in
    English and Polish (computed again when a module is registered)."""
    from ..modules import module_info, module_names

    names = tuple(module_names())
    labels = _KIND_LABELS.get(names)
    if labels is None:
        labels = {}
        for name in names:
            for kind, info in module_info(name).kinds.items():
                labels.setdefault(kind, info.label)
        _KIND_LABELS.clear()
        _KIND_LABELS[names] = labels
    return labels


def _kind_word(kind: str, lang: Lang) -> str:
    """A card kind in words, as its module declares it (the kind itself where none does)."""
    labels = _kind_labels().get(kind)
    if labels is None:
        return kind
    return labels[1] if lang == "pl" else labels[0]


def parse_variety(view: View, name: str, lang: Lang = "en") -> str:
    """A variety key from how a player wrote it (key, English or Polish name, prefix)."""
    low = _fold(name.strip())
    keys = view.config.varieties
    spell = {
        k: {
            k,
            _fold(variety_name(k, "en")),
            _fold(variety_name(k, "pl")),
            _fold(variety_word(k, "pl")),
        }
        for k in keys
    }
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
    from ..modules import module_info

    return dict(module_info(view.config.module).pile_tokens)


def _pile_names(view: View) -> dict[str, tuple[str, str]]:
    """Per token prefix of the module's public piles, the pile's name (EN, PL)."""
    if view.config.module is None:
        return {}
    from ..modules import module_info

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
