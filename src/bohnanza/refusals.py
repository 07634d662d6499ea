"""Refusals as data: why an action is not allowed, as a code, a rule ID and numbers.

The engine's :class:`~bohnanza.errors.IllegalAction` message is English prose for
programmers ("seat 0 cannot buy a third field: ..."). A player's screen needs the reason in
its own language and numbering (seat 1, field 2). The rule that refuses an action knows
exactly why, so it says so as data: its :class:`~bohnanza.errors.Refusal` carries a
``code`` (one per distinct reason, :data:`REASONS`) and the numbers and names the reason
needs (a field, a variety, a seat, a count), and :func:`explain` only renumbers them from 1
for people - nothing is worked out again from the state. :data:`REASONS` words every code
in English and Polish: the web pages take it as their ``err.*`` strings
(``web/i18n.py``), and :func:`render` words a refusal for the terminal and text players.

A refusal never names a card hidden from the seat it answers: its numbers are fields,
seats, counts, public varieties (a field's top, the front card of the seat's own hand, a
card it named itself) - ``tests/test_engine_fuzz.py`` checks it on copies of the game
with the hidden cards shuffled.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, overload

from .actions import Action
from .errors import GameOver, IllegalAction, NotYourTurn
from .pickling import dataclass_reduce

#: Every reason code, worded in English and Polish. Placeholders: ``{action}`` (what was
#: tried, ``act.*``), ``{who}`` (the seat whose move it is: detail ``active``), ``{whom}``
#: (the trade partner the reason names: detail ``partner``), ``{phase}``, ``{field}``/``{other}`` (1-based fields), ``{top}``/``{card}``
#: (varieties), counts (``{n}``, ``{price}``, ``{coins}``, ``{most}``). ``{n|one|other}``
#: (English) and ``{n|one|few|many}`` (Polish) are plurals, resolved by :func:`render` and
#: the pages (common.js, ``B.t``).
REASONS: dict[str, tuple[str, str]] = {
    # -- any action
    "game_over": ("the game is over", "gra się skończyła"),
    "not_now": (
        "{action} is not possible now (it is {who}'s move)",
        "{action}: teraz niemożliwe (ruch ma: {who})",
    ),
    "wrong_phase": (
        "{action} is not possible in this phase ({phase})",
        "{action}: niemożliwe w tej fazie ({phase})",
    ),
    "own_turn_only": (
        "{action} is possible only in your own turn (it is {who}'s turn)",
        "{action}: tylko we własnej turze (teraz tura: {who})",
    ),
    "decision_pending": (
        "{action} must wait: {who} first finishes a decision that cannot be interrupted",
        "{action} musi poczekać: {who} najpierw kończy decyzję, której nie można przerwać",
    ),
    "no_decision": (
        "{action} answers a decision, and none is open now",
        "{action} odpowiada na decyzję, a żadna nie czeka teraz",
    ),
    "not_in_game": (
        "{action} is not part of this game",
        "{action}: tego nie ma w tej grze",
    ),
    "malformed": (
        "this action is malformed and cannot be taken",
        "ten ruch jest źle zbudowany i nie można go wykonać",
    ),
    "no_seat": ("there is no such seat at this table", "przy tym stole nie ma takiego miejsca"),
    # -- planting (R-PLANT-1…4)
    "planted_two": (
        "two cards are already planted this turn",
        "w tej turze posadzono już dwie karty",
    ),
    "hand_empty": ("your hand is empty", "twoja ręka jest pusta"),
    "plant_first": (
        "plant your front card first",
        "najpierw posadź pierwszą kartę z ręki",
    ),
    "no_field": ("there is no field {field}; you have {n}", "nie ma pola {field}; masz pól: {n}"),
    "field_variety": (
        "field {field} holds {top}, not {card}: plant on an empty field "
        "or one of {card}, or harvest a field first",
        "na polu {field} rośnie {top}, nie {card}: posadź na pustym polu "
        "albo na polu z tą fasolą, albo najpierw zbierz któreś pole",
    ),
    "not_in_trade_area": (
        "that card is not in your trade area",
        "tej karty nie ma w twoim polu wymiany",
    ),
    # -- harvests and third fields (R-HARV-1…3, R-FIELD-1…3)
    "field_empty": ("field {field} is empty", "pole {field} jest puste"),
    "field_protected": (
        "field {field} holds a single bean and is protected while field {other} holds {n}",
        "pole {field} ma jedną fasolkę i jest chronione, dopóki pole {other} ma {n}",
    ),
    "have_third_field": ("you already have a third field", "masz już trzecie pole"),
    "no_third_field_left": ("no third field is left", "nie ma już trzecich pól"),
    "field_price": (
        "a third field costs {price|coin|coins}; you have {coins}",
        "trzecie pole kosztuje {price|monetę|monety|monet}, a masz {coins}",
    ),
    "coins_not_chosen": (
        "a third field is paid with the coins on top of your treasury; name no coins",
        "trzecie pole opłaca się monetami z wierzchu skarbca; nie wskazuj monet",
    ),
    "coin_count": (
        "a third field is paid with exactly {price|coin|coins}, not {n}",
        "trzecie pole opłaca się dokładnie {price|monetą|monetami|monetami}, nie {n}",
    ),
    "coin_twice": ("a coin is named twice", "ta sama moneta wskazana dwa razy"),
    "not_a_coin": (
        "a named card is not a coin in your treasury",
        "wskazana karta nie jest monetą w twoim skarbcu",
    ),
    # -- trading (R-TRADE-1…6, R-BLUFF-1…2)
    "no_trading": ("there is no trading in this game", "w tej grze nie ma handlu"),
    "offer_gone": (
        "that offer is no longer open (taken, declined, withdrawn or lapsed)",
        "ta oferta nie jest już otwarta (przyjęta, odrzucona, wycofana albo wygasła)",
    ),
    "not_your_offer": (
        "that offer was made by {whom}; only they can withdraw it",
        "tę ofertę złożył(a) {whom}; tylko on(a) może ją wycofać",
    ),
    "offer_to_other": (
        "that offer is addressed to {whom}",
        "ta oferta jest skierowana do: {whom}",
    ),
    "card_twice": ("a card is named twice", "ta sama karta podana dwa razy"),
    "not_tradeable": (
        "you do not hold a card named in the trade",
        "nie masz karty wskazanej w wymianie",
    ),
    "wrong_cards": (
        "the chosen cards are not those the offer asks for",
        "wybrane karty nie są tymi, o które prosi oferta",
    ),
    "offer_cards_gone": (
        "{whom} no longer holds the offered cards",
        "{whom} nie ma już oferowanych kart",
    ),
    "bad_partner": (
        "an offer goes to another seat at this table",
        "ofertę składa się innemu graczowi przy tym stole",
    ),
    "trade_with_active": (
        "you may trade only with the active player ({who})",
        "handlować możesz tylko z aktywnym graczem ({who})",
    ),
    "too_many_offers": (
        "at most {most|offer|offers} may be open at once",
        "naraz mogą być otwarte najwyżej {most|oferta|oferty|ofert}",
    ),
    "empty_offer": (
        "an offer must give or ask for something",
        "oferta musi coś dawać albo o coś prosić",
    ),
    "offer_too_big": (
        "at most {most|card|cards} on each side of an offer",
        "najwyżej {most|karta|karty|kart} po każdej stronie oferty",
    ),
    "bad_want": (
        "the offer asks for something that is not a bean of this game",
        "oferta prosi o coś, co nie jest fasolą tej gry",
    ),
    "bad_declaration": (
        "that claim about a card cannot be made",
        "takiej deklaracji o karcie nie można złożyć",
    ),
    "drawn_declared": (
        "drawn cards lie face up: nothing is declared about them",
        "odkryte karty leżą awersem do góry: nic się o nich nie deklaruje",
    ),
    # -- modules' steps (a pending decision, a duel's pile)
    "place_child_first": (
        "first put the received child onto one of your fields of its variety",
        "najpierw połóż otrzymane dziecko na swoim polu jego odmiany",
    ),
    "move_lady_first": (
        "first move a lady two places up, or decline to",
        "najpierw przesuń panią o dwa miejsca w górę albo zrezygnuj",
    ),
    "not_in_offer": (
        "that card is not in the opponent's offer",
        "tej karty nie ma w ofercie przeciwnika",
    ),
    "not_in_revealed": (
        "that card is not among the revealed cards",
        "tej karty nie ma wśród odkrytych kart",
    ),
    "not_in_hand": ("that card is not in your hand", "tej karty nie ma w twojej ręce"),
}

#: The built-in codes (the web pages have a string for each: ``err.<code>``; a module's
#: own, added with :func:`add_reasons`, are in :data:`REASONS` too).
CODES = tuple(REASONS)


def add_reasons(reasons: Mapping[str, tuple[str, str]]) -> None:
    """A module's own refusal codes with their English and Polish words (placeholders as
    in :data:`REASONS`), so that its rules' refusals are worded like the built-in ones on
    the page, in the terminal and for language models. Adding a code again with the same
    words is allowed (a module file imported twice); other words, or a built-in code, are
    refused."""
    for code, words in reasons.items():
        if not code or not code.replace("_", "").isalnum() or code != code.lower():
            raise ValueError(f"a refusal code is a lower-case word, not {code!r}")
        if len(words) != 2 or not all(isinstance(w, str) and w for w in words):
            raise ValueError(f"refusal {code!r} needs its English and Polish words")
        if code in CODES or REASONS.get(code, words) != words:
            raise ValueError(f"refusal code {code!r} is already worded")
        REASONS[code] = (words[0], words[1])


#: Details that are seats or fields (0-based in the engine, 1-based for people).
_ONE_BASED = frozenset(("active", "partner", "field", "other"))


@dataclass(frozen=True, slots=True)
class Explanation:
    """A refusal as a message catalogue needs it: a code, the rule, 1-based numbers."""

    code: str
    rule: str | None
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "rule": self.rule, "params": dict(self.params)}

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:  # compiled: see dataclass_reduce
        return dataclass_reduce(self)


@overload
def explain(action: Action, exc: IllegalAction) -> Explanation: ...


@overload
def explain(game: object, seat: int, action: Action, exc: IllegalAction, /) -> Explanation: ...


def explain(action: Any, exc: Any, *legacy: Any) -> Explanation:
    """The refusal of ``action`` (which raised ``exc``) as data: the code and details the
    refusing rule gave (``exc.refusal``), seats and fields renumbered from 1, plus the
    action's type. It takes no game: the reason is the one the engine knew when it
    refused, never derived again from a state that may have moved on.

    The old form ``explain(game, seat, action, exc)`` is deprecated (removed in 0.3.0):
    it warns, ignores the game and the seat, and answers as ``explain(action, exc)``.
    """
    if legacy:
        if len(legacy) != 2:
            raise TypeError(f"explain() takes 2 arguments (or the old 4), got {2 + len(legacy)}")
        from .deprecation import warn_deprecated

        warn_deprecated("explain(game, seat, action, exc)", "explain(action, exc)")
        action, exc = legacy
    refusal = exc.refusal
    params: dict[str, Any] = {}
    if refusal is None:  # refused before any rule was asked
        code = (
            "game_over"
            if isinstance(exc, GameOver)
            else "not_now"
            if isinstance(exc, NotYourTurn)
            else "malformed"
        )
        rule = exc.rule
    else:
        code, rule = refusal.code, refusal.rule
        for key, value in refusal.details.items():
            params[key] = value + 1 if key in _ONE_BASED and isinstance(value, int) else value
    if "{action}" in REASONS.get(code, ("",))[0]:  # the words name what was tried
        params["action"] = action.type.value
    return Explanation(code, rule, params)


_PLURAL = re.compile(r"\{(\w+)\|([^{}]*)\}")
_PLAIN = re.compile(r"\{(\w+)\}")


def _plural(n: int, forms: list[str]) -> str:
    """English (one, other) or Polish (one; 2-4 except 12-14; other), as common.js."""
    if len(forms) == 2:
        return forms[0] if n == 1 else forms[1]
    if n == 1:
        return forms[0]
    d, h = n % 10, n % 100
    return forms[1] if 2 <= d <= 4 and not 12 <= h <= 14 else forms[2]


def render(
    explanation: Explanation,
    lang: str = "en",
    *,
    seat_name: Callable[[int], str] | None = None,
    words: Mapping[str, str] | None = None,
) -> str:
    """``explanation`` worded in ``lang`` ("en" or "pl"), with its rule: seats named by
    ``seat_name`` (a 0-based seat; default "seat N"), varieties, phases and actions by
    ``words`` (default: as the engine spells them)."""
    en, pl = REASONS.get(explanation.code, REASONS["malformed"])
    text = pl if lang == "pl" else en
    params = dict(explanation.params)
    names = words or {}
    name_seat = seat_name or (lambda s: f"{'gracz' if lang == 'pl' else 'seat'} {s + 1}")
    if "active" in params:
        params["who"] = name_seat(int(params["active"]) - 1)
    if "partner" in params:
        params["whom"] = name_seat(int(params["partner"]) - 1)
    for key in ("action", "phase", "top", "card"):
        if key in params:
            params[key] = names.get(str(params[key]), str(params[key]).replace("_", " "))
    text = _PLURAL.sub(
        lambda m: (
            f"{params[m[1]]} {_plural(int(params[m[1]]), m[2].split('|'))}"
            if m[1] in params
            else m[0]
        ),
        text,
    )
    text = _PLAIN.sub(lambda m: str(params.get(m[1], m[0])), text)
    rule = explanation.rule
    return f"{text} ({rule})" if rule else text


__all__ = ["CODES", "REASONS", "Explanation", "add_reasons", "explain", "render"]
