"""Polish as a Polish speaker writes it (issue 54, item 8): every variety has a Polish name
and the forms its sentences decline it into (cards.toml), a variety named as an object
takes the accusative and after a number the plural the number asks for, and the spider
of module 2 is spelt one way, with its accent (pająk), wherever a reader sees it.

The web pages build their sentences in JavaScript: tests/web/test_browser_declension.py
drives those; here are the data and the Python sentence builders (the text front end,
the chronicle, the coach)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bohnanza import Action, Game
from bohnanza.actions import Offer
from bohnanza.cards import PL_FORMS, catalogue, polish_number, varieties

ROOT = Path(__file__).resolve().parent.parent
#: The spider's name without its accent, as a reader must never see it (a lower-case
#: ``fasolkopajak…`` is an identifier: the module id, a variety key, a string key).
UNACCENTED = re.compile(r"Fasolkopajak")


def test_every_variety_has_a_polish_name_and_every_form_a_sentence_needs() -> None:
    """Written in the card data, not guessed: a variety without ``name_pl`` (the base deck's
    had none) or without one of its forms would show a reader the English name, or the
    nominative where Polish needs another case."""
    raw = catalogue()["varieties"]
    assert len(raw) == 24
    for key, data in raw.items():
        assert data.get("name_pl"), key
        forms = data.get("name_pl_forms", {})
        assert set(forms) == set(PL_FORMS) - {"nom"}, key
        assert all(isinstance(f, str) and f.strip() for f in forms.values()), key
        v = varieties()[key]
        assert [v.pl(f) for f in PL_FORMS] == [data["name_pl"], *(forms[f] for f in PL_FORMS[1:])]
    # The base deck's names are this project's translation, and said to be so.
    text = (ROOT / "src" / "bohnanza" / "data" / "cards.toml").read_text(encoding="utf-8")
    assert "this project's translation" in text
    classic = catalogue()["rulesets"]["classic"]["varieties"]
    assert {varieties()[k].name_pl for k in classic} >= {"Niebieska", "Śmierdząca", "Zielona"}
    # Feminine adjectives (the base deck's beans: "fasolka" understood) decline as such.
    for key in classic:
        v = varieties()[key]
        if v.name_pl.endswith("a"):
            stem = v.name_pl[:-1]
            soft = stem[-1] in "kg"  # -ka, -ga: -kiej, -kie, -kich
            assert v.pl("acc") == stem + "ą", key
            assert v.pl("gen") == stem + ("iej" if soft else "ej"), key
            assert v.pl("few") == stem + ("ie" if soft else "e"), key
            assert v.pl("many") == stem + ("ich" if soft else "ych"), key


def test_numbers_take_the_form_they_ask_for() -> None:
    """1 takes the singular (the accusative as an object), 2–4 (but 12–14) the plural,
    5 and more the genitive plural; a man with a number is counted as men are ("2
    Kowbojów"), a spider as animals are ("2 Fasolkopająki")."""
    assert [polish_number(n) for n in (1, 2, 4, 5, 11, 12, 14, 21, 22, 24, 25, 102)] == [
        "one", "few", "few", "many", "many", "many", "many", "many", "few", "few", "many", "few",
    ]  # fmt: skip
    blue = varieties()["blue"]
    assert blue.pl_count(1) == "1 Niebieska"
    assert blue.pl_count(1, "acc") == "1 Niebieską"
    assert blue.pl_count(3, "acc") == "3 Niebieskie"
    assert blue.pl_count(5) == "5 Niebieskich"
    assert blue.pl_count(12, "acc") == "12 Niebieskich"
    assert blue.pl_count(22) == "22 Niebieskie"
    assert varieties()["cowboy"].pl_count(2) == "2 Kowbojów"
    assert varieties()["cowboy"].pl("acc") == "Kowboja"
    assert varieties()["fasolkopajak"].pl_count(3) == "3 Fasolkopająki"
    assert varieties()["fasolkopajak"].pl_count(6) == "6 Fasolkopająków"
    assert varieties()["black-eyed"].pl("gen") == "Czarnego oczka"
    assert varieties()["chili"].pl_count(7) == "7 Chili"  # indeclinable


def _offer_game() -> Game:
    """Seat 0 (active, trading) holds Chili, Blue, Wax, Soy; the drawn cards are Stink."""
    game = Game.new(
        "classic", 4, seed=5, deck=["blue", "chili", "blue", "wax", "soy"] + ["stink"] * 15
    )
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    return game


def test_a_polish_trade_line_names_its_cards_in_the_accusative() -> None:
    """The text front end's offer lines ("dajesz …; chcesz …") and the chronicle's: the
    given and the wanted cards are objects, so "dajesz Niebieską", "chcesz 2 Zielone",
    "5 Czerwonych"; English keeps its one form."""
    from bohnanza.chronicle import Chronicle
    from bohnanza.text.render import offer_line

    game = _offer_game()
    blue = game.hands[0][1]
    offer = Offer(1, (blue,), (("green", 2), ("red", 5), ("chili", 1)))
    game.apply(0, Action.propose(offer))
    mine, theirs = game.view(0), game.view(1)
    line = offer_line(mine, mine.offers[0], "pl")
    assert "dajesz Niebieską (ręka 2); chcesz 2 Zielone, 5 Czerwonych, 1 Chili" in line
    assert "dostajesz Niebieską; dajesz 2 Zielone" in offer_line(theirs, theirs.offers[0], "pl")
    assert "you give Blue (hand 2); you want 2 Green" in offer_line(mine, mine.offers[0])
    other = game.view(2)
    assert "daje Niebieską; chce 2 Zielone" in offer_line(other, other.offers[0], "pl")

    game = _offer_game()
    chronicle = Chronicle("pl")
    gift = Offer(2, (game.hands[0][1], game.hands[0][3]), (("stink", 1),))
    chronicle.mine(Action.propose(gift), game.view(0))
    assert "dajesz Niebieską, Sojową; chcesz 1 Śmierdzącą" in chronicle._proposed[0][1]


def test_a_modules_objects_are_declined_in_polish() -> None:
    """A module's wording that names a card as an object ({card_acc}, {cards_acc}) gets the
    accusative in the text front end too: the duel's "bierze też Kowboja"."""
    from bohnanza.rules import make_config
    from bohnanza.text import event_text

    duel = make_config("fasolki+duel", 2)
    card = next(c for c in range(duel.deck_size) if duel.variety_of(c) == "cowboy")
    pull = {"type": "pull_discard", "seat": 0, "card": card}
    assert event_text(duel, pull, "pl", who="Ola") == "Ola bierze też Kowboja ze stosu odrzuconych"


def test_the_coach_names_a_field_by_its_beans() -> None:
    """The coach's reasons: a field "of Blues" is the genitive plural ("pole Niebieskich"),
    a planted card the accusative ("sadzi Niebieską"), coins and cards after a number
    agree with it."""
    from bohnanza import coach

    game = Game.new("classic", 4, seed=3, deck=["soy", "soy", "stink"] + ["wax"] * 17)
    view = game.view(0)
    assert coach.reason(view, Action.plant(0))["pl"] == "zakłada pole Sojowych"
    game.apply(0, Action.plant(0))
    view = game.view(0)
    # R-HARV-2: Soy pays 1 coin from 2 beans.
    assert (
        coach.reason(view, Action.plant(0))["pl"]
        == "dopełnia pole Sojowych warte 1 monetę (2 karty)"
    )
    game.apply(0, Action.plant(0))
    assert (
        coach.reason(game.view(0), Action.harvest(0))["pl"]
        == "zbiera pole 1 za 1 monetę i je zwalnia"
    )
    game = Game.new("classic", 4, seed=3, deck=["blue", "stink"] + ["wax"] * 18)
    game.apply(0, Action.plant(0))
    view = game.view(0)
    assert coach.reason(view, Action.plant(1))["pl"] == "zakłada pole Śmierdzących"
    over = coach.reason(view, Action.plant(0))["pl"]
    assert over == "sadzi Śmierdzącą na polu, które płaci 0 (najpierw zbiór)"


def _shown_strings() -> list[str]:
    """Every string a reader may be shown about cards and modules: the card data's names,
    the modules' titles, notes, labels and hints, the web app's strings (values only)."""
    from bohnanza.modules import module_info, module_names
    from bohnanza.web.i18n import strings

    out: list[str] = []
    for v in varieties().values():
        out += [v.name, *(v.pl(f) for f in PL_FORMS)]
    for name in module_names():
        out.append(json.dumps(module_info(name).to_json(), ensure_ascii=False))
    web = strings()
    out += [json.dumps(web["ui"], ensure_ascii=False)]
    out += [json.dumps(b, ensure_ascii=False) for b in web["beans"].values()]
    return out


def test_the_spider_is_spelt_with_its_accent_wherever_a_reader_sees_it() -> None:
    """Pająk is a spider: "Fasolkopająk", "Fasolkopająki" in both languages (the module id
    ``fasolkopajaki`` and the variety key stay ASCII identifiers)."""
    shown = _shown_strings()
    assert not [s for s in shown if UNACCENTED.search(s)]
    assert varieties()["fasolkopajak"].name == "Fasolkopająk"
    assert varieties()["fasolkopajak"].name_pl == "Fasolkopająk"
    assert any("Fasolkopająki" in s for s in shown)  # the module's title
    # The rules reference: tests/test_docs.py.


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_the_text_front_end_spells_the_spider_with_its_accent(lang: str) -> None:
    from bohnanza.text import render_view

    game = Game.new("fasolki+fasolkopajaki", 3, seed=1, deck=["fasolkopajak"] * 6 + ["cowboy"] * 20)
    text = render_view(game.view(0), lang)  # type: ignore[arg-type]
    assert "Fasolkopająk" in text and not UNACCENTED.search(text)


def test_the_text_front_end_counts_in_polish() -> None:
    """Numbers the text front end writes with a noun: "22 karty", "1 moneta", "5 kart"."""
    from bohnanza.rules import make_config
    from bohnanza.text import render_view
    from bohnanza.text.prompt import game_facts

    facts = game_facts(make_config("classic", 4, None, ()), "pl")
    assert "Woskowa 22 karty" in facts and "Niebieska 20 kart" in facts
    assert "Kakaowa 4 karty" in facts
    game = _offer_game()
    text = render_view(game.view(0), "pl")
    assert "Miejsce 0* (ty): 0 monet, 4 karty w ręce" in text
    assert "Miejsce 1: 0 monet, 5 kart w ręce" in text
