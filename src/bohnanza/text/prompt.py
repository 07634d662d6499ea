"""The language-model prompt: the game in brief, the numbers of the rule set, its
module's rules and commands (from the actions' shapes), and the message of one decision."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources

from ..actions import Action, all_shapes
from ..cards import catalogue, polish_number, varieties
from ..rules import GameConfig
from ..shapes import BASE_SHAPES
from ..views import View
from ._words import Lang, _, rule_shapes, variety_name
from .parse import _form
from .render import render_moves, render_view


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
    # Polish "22 karty", "25 kart" (the noun after a number, bohnanza.cards.polish_number).
    cards_pl = {"one": "karta", "few": "karty", "many": "kart"}
    beans = "; ".join(
        f"{variety_name(key, lang)} {counts[i]} "
        + _(lang, "cards, meter ", f"{cards_pl[polish_number(counts[i])]}, miernik ")
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
        from ..modules import module_info

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
