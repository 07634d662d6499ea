"""Parameter readers: the text after ``NAME:`` in an agent spec turned into keyword
arguments (:mod:`.specs` says the grammar). Apart from the registry and the resolving, so
that an agent module can read its own parameters (``valuesearch`` extends ``search``'s)
without importing the registry that imports it: the agents' imports point down.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ConfigError
from .heuristic import WARY
from .search import PRUNE_Z

ParamReader = Callable[[str], dict[str, Any]]


#: The search's one-word parameters: the keyword each sets, and to what.
_SEARCH_WORDS: dict[str, tuple[str, Any]] = {
    "hand": ("hand_value", True),
    "nohand": ("hand_value", False),
    "strict": ("strict", True),
    "wide": ("wide", True),
    "trade": ("trades_only", True),
    "all": ("trades_only", False),
    "full": ("full", True),
    "turn": ("depth", 0),
    "mean": ("mean", True),
    "best": ("mean", False),
    "eager": ("eager", True),
    "wary": ("rivalry", WARY),
    "mild": ("rivalry", None),
    "count": ("counting", True),
    "nocount": ("counting", False),
    "king": ("kingmaking", True),
    "infer": ("infer", True),
    "noinfer": ("infer", False),
    "pairs": ("pairs", True),
    "nopairs": ("pairs", False),
    "spread": ("spread", True),
    "nospread": ("spread", False),
    "prune": ("prune", PRUNE_Z),
    "noprune": ("prune", None),
}


def _worth(p: str) -> float:
    """The number after a parameter's two-letter prefix, 0 or more: ``fg0.9`` → 0.9, the
    share of its coin rate a seat expects a third field to add when it decides whether
    to buy one; ``hc0.1`` → 0.1, what a card in hand is worth at the end, in coins (a
    ValueError if that is not a number ≥ 0)."""
    worth = float(p[2:])
    if not worth >= 0:
        raise ValueError(p)
    return worth


def _trading(p: str, kwargs: dict[str, Any]) -> bool:
    """The heuristic's trading settings, in ``kwargs``; whether ``p`` was one: ``wv3``
    asks for up to 3 varieties it wants (the default 2), ``ep0`` acts on any gain above
    0 coins (the default 0.05: offers, acceptances, varieties asked for), ``fo0.6``
    counts a refusal 0.6 as much each turn (the default 0.85: it asks again sooner),
    ``sw0.05`` expects a partner to take an offer that asks for cards back 0.05 of the
    time when it gains nothing by it (the heuristic's guess: 0.2), ``sl1.0`` that each
    coin the partner gains makes its yes 1.0 likelier (the heuristic's: 0.45).
    A ValueError if the number does not fit."""
    if p.startswith("wv"):
        wanted = int(p[2:])
        if wanted < 0:
            raise ValueError(p)
        kwargs["wanted"] = wanted
    elif p.startswith("ep"):
        kwargs["eps"] = _worth(p)
    elif p.startswith("fo"):
        forget = _worth(p)
        if forget > 1:
            raise ValueError(p)
        kwargs["forget"] = forget
    elif p.startswith("sw"):
        swap = _worth(p)
        if swap > 1:
            raise ValueError(p)
        kwargs["accept_swap"] = swap
    elif p.startswith("sl"):
        kwargs["accept_slope"] = _worth(p)
    else:
        return False
    return True


def heuristic_parameters(text: str) -> dict[str, Any]:
    """``fg0.9``: buy the third field when it should add 0.9 of the seat's coin rate
    (the default 0.38); ``wary``: weigh a partner's gain by its standing as
    :data:`~bohnanza.agents.heuristic.WARY` does (``search`` plays its own turns with
    ``fg0.9``, and with ``wary`` as ``search:wary``); ``count``: leave the cards it saw
    go to the discard pile or a treasury out of its card counts; ``hc0.1``: a card given
    away from the hand costs 0.1 coins beyond the plan (it breaks ties, R-END-4);
    ``king``: may feed the sole leader late in the game, as before issue 36
    (:data:`~bohnanza.agents.heuristic.KING_TURNS`); ``wv3``, ``ep0``, ``fo0.6``,
    ``sw0.05`` and ``sl1``: the trading settings of :func:`_trading` (the search's own
    play trades with the first three)."""
    kwargs: dict[str, Any] = {}
    for p in [p.strip() for p in text.split(":")]:
        try:
            if _trading(p, kwargs):
                continue
            if p == "wary":
                kwargs["rivalry"] = WARY
                continue
            if p == "count":
                kwargs["counting"] = True
                continue
            if p == "king":
                kwargs["kingmaking"] = True
                continue
            if p.startswith("hc"):
                kwargs["hand_card"] = _worth(p)
                continue
            if not p.startswith("fg"):
                raise ValueError(p)
            kwargs["field_gain"] = _worth(p)
        except ValueError:
            raise ConfigError(
                f"bad heuristic parameter {p!r}: use fgGAIN (fg0.9), a third field's gain, hcCOINS (hc0.1), a hand card's worth, wvN (wv3), varieties asked for, epGAIN (ep0), the smallest gain worth an action, foSHARE (fo0.6), a refusal's fading, swCHANCE (sw0.05), a swap's chance of a yes, slSLOPE (sl1.0), its rise per coin the partner gains, wary, count or king"
            ) from None
    return kwargs


def search_parameters(text: str) -> dict[str, Any]:
    """``0.2`` → seconds per decision; ``50it`` → samples per decision (each candidate
    played out on each); ``40ro`` → roll-outs per decision, shared by the candidates;
    ``d8`` limits roll-outs to 8 turns (``d0``: to the end of the game; ``turn``, the
    default: to the end of the turn being played); ``wide`` tries many offers, in two rounds;
    ``trade`` (the default) searches phase-2 decisions only, ``all`` every decision
    with a choice; ``full`` has roll-outs trade as the
    real bots do; ``z1.5`` the standard errors by which an alternative must beat the
    heuristic's choice; ``hand`` (the default) values the hands at a roll-out's end,
    ``nohand`` coins and fields only; ``strict`` corrects ``z`` for few samples and
    several alternatives; ``fg0.38`` what its own play expects a third field to add to
    its coin rate when it decides to buy one (the default 0.9; the heuristic's 0.38);
    ``mean`` values a roll-out by the margin over the other seats' mean, ``best`` (the
    default) over the best of them; ``wary`` weighs a partner's gain by its standing as
    :data:`~bohnanza.agents.heuristic.WARY` does, ``mild`` (the default) as the
    heuristic does; ``eager`` also tries the heuristic's untried offers where it makes
    none; ``end1`` plays roll-outs on to the end of the game once it has one own turn
    left or fewer (estimated); ``count`` has its own play leave the cards it saw go to
    the discard pile or a treasury out of its card counts, ``nocount`` not; ``hc0.2``
    (the default; ``hc0.1`` the previous one) values a card in hand at 0.2 coins (it
    breaks ties on coins, R-END-4): in its own play giving one away costs that much, and
    a roll-out's end adds it per card in every seat's hand; ``king`` may accept trades
    that feed the sole leader late in the game, as before issue 36; ``infer`` weights
    the other seats' hidden hands in its samples by what their offers, wants and
    refusals imply (``noinfer``: uniform); ``pairs`` also tries 2-for-2 offers;
    ``spread`` tries the best offer to each partner first (``nopairs``, ``nospread``:
    not); ``prune`` stops playing out an alternative once it is past overruling the
    heuristic's choice (:meth:`~bohnanza.agents.search.SearchAgent._sample`: the same
    decisions for about half the roll-outs; ``noprune``, the default for ``search``,
    plays every candidate every sample; ``valuesearch`` prunes by default); ``ohc0.1``
    has the other seats of its roll-outs value a card in hand at 0.1 coins (a model of
    opponents that keep their hand cards; the default: as the heuristic, nothing); ``wv2``, ``ep0.05``, ``fo0.85``, ``sw0.05``, ``sl1`` its own
    play's trading settings (:func:`_trading`; the first three: as the heuristic
    trades; the defaults ``wv3``, ``ep0``, ``fo0.6``, and the heuristic's guesses of a
    partner's yes, ``sw0.2``, ``sl0.45``); joined by ``:``."""
    kwargs: dict[str, Any] = {}
    for p in [p.strip() for p in text.split(":")]:
        try:
            if p.endswith("it"):
                kwargs["iterations"] = int(p[:-2])
                kwargs["seconds"] = None
            elif p.endswith("ro"):
                kwargs["rollouts"] = int(p[:-2])
                kwargs["seconds"] = None
            elif p in _SEARCH_WORDS:
                key, value = _SEARCH_WORDS[p]
                kwargs[key] = value
            elif p.startswith("z"):
                kwargs["z"] = float(p[1:])
            elif p.startswith("fg"):
                kwargs["field_gain"] = _worth(p)
            elif p.startswith("end"):
                kwargs["endgame"] = float(p[3:])
            elif p.startswith("hc"):
                kwargs["hand_card"] = _worth(p)
            elif p.startswith("ohc"):
                kwargs["opponent_hand_card"] = _worth(p[1:])
            elif _trading(p, kwargs):
                pass
            elif p.startswith("d"):
                depth = int(p[1:])
                kwargs["depth"] = depth if depth > 0 else None
            else:
                kwargs["seconds"] = float(p[:-1] if p.endswith("s") else p)
        except ValueError:
            raise ConfigError(
                f"bad search parameter {p!r}: use SECONDS (0.2), ITERATIONSit (50it), ROLLOUTSro (40ro), dTURNS (d8), turn, zSE (z1.5), fgGAIN (fg0.38), hand, nohand, strict, wide, trade, all, full, mean, best, wary, mild, eager, count, nocount, endTURNS (end1), hcCOINS (hc0.2), ohcCOINS (ohc0.1), wvN (wv3), epGAIN (ep0), foSHARE (fo0.6), swCHANCE (sw0.05), slSLOPE (sl1.0), king, infer, noinfer, pairs, nopairs, spread, nospread, prune or noprune"
            ) from None
    if kwargs.get("seconds") is not None and kwargs["seconds"] <= 0:
        raise ConfigError("search seconds must be positive")
    if kwargs.get("iterations") is not None and kwargs["iterations"] < 1:
        raise ConfigError("search iterations must be at least 1")
    if kwargs.get("rollouts") is not None and kwargs["rollouts"] < 1:
        raise ConfigError("search roll-outs must be at least 1")
    if kwargs.get("endgame") is not None and not kwargs["endgame"] >= 0:
        raise ConfigError("search end must be a number of own turns, 0 or more")
    if kwargs.get("z") is not None and not kwargs["z"] >= 0:
        raise ConfigError("search z must be a number of standard errors, 0 or more")
    return kwargs


def _literal(value: str) -> Any:
    low = value.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def keyword_parameters(text: str) -> dict[str, Any]:
    """``greed=0.7:name=bob`` → ``{"greed": 0.7, "name": "bob"}`` (external agents)."""
    kwargs: dict[str, Any] = {}
    for item in text.split(":"):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ConfigError(f"bad parameter {item!r}: use KEY=VALUE, separated by ':'")
        kwargs[key] = _literal(value.strip())
    return kwargs
