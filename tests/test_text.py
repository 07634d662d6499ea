"""The text interface (bohnanza.text): render → parse round trips, precise errors, and no
hidden card in the text (R-INFO-1…3)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from bohnanza import Action, Game
from bohnanza.actions import ActionType, Offer
from bohnanza.agents import make_agent
from bohnanza.agents.base import Agent
from bohnanza.driver import play
from bohnanza.modules.duel import DISCARD_CARD, PLANT_REVEALED, SKIP_DISCARD
from bohnanza.modules.fasolufka import MOVE_LADY_TYPE, PLACE_CHILD_TYPE
from bohnanza.seeding import agent_seed
from bohnanza.testing.checker import FULL, InvariantChecker
from bohnanza.text import (
    CommandError,
    check_answer,
    parse_command,
    render_action,
    render_prompt,
    render_view,
)
from bohnanza.views import View

# Every rule set and module, with a player count and the options it needs.
SETUPS: list[tuple[str, int, dict[str, str]]] = [
    ("classic", 3, {}),
    ("classic", 4, {}),
    ("classic", 6, {}),
    ("first-edition", 4, {}),
    ("fasolki", 3, {}),
    ("fasolki+new-varieties", 4, {"remove": "glutton"}),
    ("fasolki+fasolkopajaki", 4, {}),
    ("fasolki+fasolufka", 3, {}),
    ("fasolki+duel", 2, {}),
]


class _Probe(Agent):
    """Plays like ``inner`` but first hands every decision to ``look``."""

    def __init__(self, inner: Agent, look: Callable[[View, Sequence[Action], bool], None]) -> None:
        super().__init__(inner.seed)
        self.inner = inner
        self.look = look

    def wants_offers(self, turn: int) -> bool:
        return self.inner.wants_offers(turn)

    def act(self, view: View, legal: Sequence[Action], required: bool) -> Action | None:
        self.look(view, legal, required)
        return self.inner.act(view, legal, required)


def _play(
    rules: str,
    players: int,
    options: dict[str, str],
    seed: int,
    look: Callable[[Game, View, Sequence[Action], bool], None],
    agent: str = "random",
) -> Game:
    game = Game.new(rules, players, options=options, seed=seed)
    agents = [
        _Probe(make_agent(agent, agent_seed(seed, k)), lambda v, lg, r: look(game, v, lg, r))
        for k in range(players)
    ]
    play(game, agents, max_trade_rounds=3)
    assert game.over
    return game


#: The round trips of these setups run in the long mode only (docs/testing.md): the others
#: cover the base game, every decision-bearing module and the duel.
_LONG_ROUND_TRIPS = {
    ("classic", 6),
    ("first-edition", 4),
    ("fasolki", 3),
    ("fasolki+new-varieties", 4),
}


@pytest.mark.parametrize(
    ("rules", "players", "options"),
    [
        pytest.param(*s, marks=[pytest.mark.long] if s[:2] in _LONG_ROUND_TRIPS else [])
        for s in SETUPS
    ],
)
def test_every_legal_action_round_trips(rules: str, players: int, options: dict[str, str]) -> None:
    """render_action then parse_command gives back the very action, in both languages,
    for every legal action of every decision of whole random games."""
    seen: set[ActionType] = set()
    count = 0

    def look(game: Game, view: View, legal: Sequence[Action], required: bool) -> None:
        nonlocal count
        for action in legal:
            for lang in ("en", "pl"):
                text = render_action(action, view, lang)
                back = parse_command(text, view, lang)
                assert back == action, (text, lang, action, back)
                check_answer(action, view, legal, lang)  # listed actions always pass
            seen.add(action.type)
            count += 1
        if not required:
            assert parse_command("pass", view) is None
            assert parse_command("pas", view, "pl") is None

    _play(rules, players, options, 1, look)
    assert count > 100
    assert {ActionType.PLANT, ActionType.HARVEST} <= seen
    if rules != "fasolki+duel":
        assert {ActionType.PROPOSE, ActionType.PLANT_TRADED, ActionType.END_TRADING} <= seen
    if rules == "fasolki+duel":
        assert {PLANT_REVEALED, DISCARD_CARD, SKIP_DISCARD} <= seen
    if rules == "fasolki+fasolufka":
        assert PLACE_CHILD_TYPE in seen or MOVE_LADY_TYPE in seen


def _hidden_places(game: Game, seat: int) -> list[tuple[list[int], int]]:
    """(pile, index) of every card ``seat`` may not see that a permutation may move
    without changing anything public: other seats' hands (not cards they offer), the
    draw pile, the treasuries (coins lie face down)."""
    offered = {c for _p, o in game.offers.values() for c in o.give}
    fixed = offered | set(game.hooks.extra_cards(game))
    if game.pending is not None:
        fixed |= set(game.pending.args.values())
    piles: list[list[int]] = [game.draw, *game.treasury]
    piles += [h for s, h in enumerate(game.hands) if s != seat]
    return [(p, i) for p in piles for i, c in enumerate(p) if c not in fixed]


def _shuffled_hidden(game: Game, seat: int, rng: random.Random) -> Game | None:
    """A copy of ``game`` in which the cards ``seat`` cannot see have swapped places."""
    other = Game.from_dict(game.to_dict())
    places = _hidden_places(other, seat)
    cards = [p[i] for p, i in places]
    shuffled = cards[:]
    rng.shuffle(shuffled)
    cv = game.config.card_variety
    if [cv[c] for c in cards] == [cv[c] for c in shuffled]:
        return None  # nothing hidden that could differ
    for (p, i), c in zip(places, shuffled, strict=True):
        p[i] = c
    return other


@pytest.mark.parametrize(("rules", "players", "options"), SETUPS)
def test_text_never_shows_a_hidden_card(rules: str, players: int, options: dict[str, str]) -> None:
    """What a seat reads does not change when every card it may not see changes place
    (other hands, the draw pile, the coins), in both languages; and the views it is
    made from pass the engine's own leak checks (checker.view_leaks, R-INFO-3)."""
    rng = random.Random(7)
    checked = 0

    def look(game: Game, view: View, legal: Sequence[Action], required: bool) -> None:
        nonlocal checked
        if rng.random() > 0.08:
            return
        seat = view.seat
        assert seat is not None
        InvariantChecker(game, FULL, f"text leak {rules}", rng).view_leaks()
        other = _shuffled_hidden(game, seat, rng)
        if other is None:
            return
        legal2 = other.legal_actions(seat)
        for lang in ("en", "pl"):
            text = render_prompt(view, game.legal_actions(seat), required, lang)
            assert render_prompt(other.view(seat), legal2, required, lang) == text
        checked += 1

    _play(rules, players, options, 3, look)
    assert checked >= 5


def _trade_state() -> tuple[Game, View]:
    game = Game.new(
        "classic", 4, seed=5, deck=["blue", "chili", "blue", "wax", "soy"] + ["stink"] * 15
    )
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    return game, game.view(0)


def test_offer_command_and_precise_errors() -> None:
    game, view = _trade_state()
    hand = game.hands[0]
    act = parse_command("offer 2 give 1,3 want wax:2, SOY", view)
    assert act == Action.propose(Offer(2, (hand[0], hand[2]), (("wax", 2), ("soy", 1))))
    assert parse_command("`offer 1 give d2`.", view) == Action.propose(Offer(1, (game.drawn[1],)))
    bad = {
        "offer give 1": "Say which seat",
        "offer 0 give 1": "cannot be your partner",
        "offer 2 give 9": "no card 9",
        "offer 2 give t1": "cannot be used here",
        "offer 2 want bl": "could be",
        "offer 2 want kiwi": "No variety 'kiwi'",
        "offer 2 want wax:x": "Bad count",
        "offer 2": "gives nothing",
        "harvest": "takes 1 argument",
        "harvest 7": "numbered 1 to 2",
        "dance": "Unknown command 'dance'",
        "": "empty",
        "accept x": "OFFER_NUMBER",
    }
    for line, message in bad.items():
        with pytest.raises(CommandError, match=message):
            parse_command(line, view)
    before = game.to_dict()
    with pytest.raises(CommandError, match="is not allowed now"):
        check_answer(Action.harvest(1), view, game.legal_actions(0))
    assert game.to_dict() == before


def test_polish_commands_and_text() -> None:
    game = Game.new("fasolki", 3, seed=4, deck=["cowboy", "fatty", "hippie"] + ["drunkard"] * 12)
    game.apply(0, Action.plant(0))
    view = game.view(0)
    assert parse_command("zasadź 2", view, "pl") == Action.plant(1)
    assert parse_command("zasadz 2", view, "pl") == Action.plant(1)
    assert parse_command("dość", view, "pl") == Action.stop_planting()
    text = render_view(view, "pl")
    assert "Twoja ręka" in text and "Grubas" in text and "Kowboj x1" in text
    with pytest.raises(CommandError, match="Nieznana komenda"):
        parse_command("tańcz", view, "pl")


def test_accept_and_check_answer() -> None:
    game, _ = _trade_state()
    # Seat 1 asks the active seat for a Blue from the hand.
    v1 = game.view(1)
    assert parse_command("offer want blue", v1) == Action.propose(Offer(0, (), (("blue", 1),)))
    game.apply(1, Action.propose(Offer(0, (), (("blue", 1),))))
    view = game.view(0)
    oid = view.offers[0].offer_id
    legal = game.legal_actions(0)
    blue = game.hands[0].index(
        next(c for c in game.hands[0] if game.config.variety_of(c) == "blue")
    )
    act = parse_command(f"accept {oid} with {blue + 1}", view)
    assert act in legal
    check_answer(act, view, legal)
    with pytest.raises(CommandError, match="asks for 1 Blue"):
        check_answer(parse_command(f"accept {oid} with 1", view), view, legal)
    # A custom offer not among the templates is allowed (R-TRADE-1).
    custom = parse_command("offer 2 give 1,2 want stink:3", view)
    assert custom not in legal
    check_answer(custom, view, legal)


@pytest.mark.parametrize(
    ("rules", "players", "options"),
    [("classic", 4, {}), ("fasolki+fasolkopajaki", 3, {}), ("fasolki+fasolufka", 3, {})],
)
def test_check_answer_agrees_with_the_engine(
    rules: str, players: int, options: dict[str, str]
) -> None:
    """Offers and acceptances written freely (not from the legal list): when the command
    parses, check_answer lets it through exactly when the engine would take it
    (R-TRADE-1…4, R-BLUFF-1/2), so a model's own offer never breaks a game."""
    rng = random.Random(3)
    verdicts = {True: 0, False: 0}

    def command(game: Game, view: View) -> str:
        hand = len(view.hand or ())
        tokens = [str(k) for k in range(1, hand + 2)] + ["d1", "d2"]
        give = rng.sample(tokens, rng.randint(0, min(3, len(tokens))))
        offers_to_me = [o.offer_id for o in view.offers if o.to == view.seat]
        if offers_to_me and rng.random() < 0.4:
            return f"accept {rng.choice(offers_to_me)} with {','.join(give)}".strip()
        names = list(view.config.varieties)
        want = [f"{rng.choice(names)}:{rng.randint(1, 3)}" for _ in range(rng.randint(0, 2))]
        line = f"offer {rng.randrange(players)}"
        if give:
            line += " give " + ",".join(give)
        if want:
            line += " want " + ",".join(want)
        if give and rng.random() < 0.3:
            line += " declare " + ",".join(rng.choice(["red", "black", "-"]) for _ in give)
        return line

    def look(game: Game, view: View, legal: Sequence[Action], required: bool) -> None:
        if view.phase != "trade":
            return
        seat = view.seat
        assert seat is not None
        for _ in range(4):
            try:
                action = parse_command(command(game, view), view)
            except CommandError:
                continue
            assert action is not None
            try:
                check_answer(action, view, legal)
                ok = True
            except CommandError:
                ok = False
            assert ok == game.is_legal(seat, action), (action, ok)
            verdicts[ok] += 1

    _play(rules, players, options, 5, look)
    assert verdicts[True] > 20 and verdicts[False] > 20, verdicts


def test_the_system_prompt_is_short_and_teaches_the_game_being_played() -> None:
    """The model reads the game in brief, the numbers of its rule set and player count,
    and its own module's section of docs/rules.md (as shipped in the package) with the
    rule IDs, not the other modules' (R-LADY-10, R-DUEL-1); seats counted from 1 as the
    rules count them (R-SETUP-4). At most about half of the former 2,000 words, the same for every question."""
    from bohnanza.rules import make_config
    from bohnanza.text import system_prompt

    docs = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text("utf-8")
    fasolufka = system_prompt("en", make_config("fasolki+fasolufka", 3, None, ()))
    section = docs.split("## Module 3", 1)[1].split("\n## ", 1)[0]
    assert section.strip() in fasolufka and "**R-LADY-10**" in fasolufka
    assert "**R-DUEL-1**" not in fasolufka
    duel = system_prompt("en", make_config("fasolki+duel", 2, None, ()))
    assert "**R-DUEL-1**" in duel and "**R-LADY-10**" not in duel
    classic = system_prompt("en", make_config("classic", 4, None, ()))
    assert "seat 1 takes the first turn" in classic and "seats 1 to 4" in classic
    assert "Coffee" not in classic and "Cocoa 4 cards, meter -/2/3/4" in classic  # R-VAR-45
    assert "third field costs 3 coins" in classic and "Module commands" not in classic
    assert "three fields" in system_prompt("en", make_config("classic", 3, None, ()))
    for lang in ("en", "pl"):
        for rules, n in [("classic", 4), ("fasolki+duel", 2), ("fasolki+fasolufka", 5)]:
            # About half of the 2,000 words of the former prompt at the most.
            assert len(system_prompt(lang, make_config(rules, n, None, ())).split()) < 1100
    polish = system_prompt("pl", make_config("fasolki+duel", 2, None, ()))
    assert "**R-DUEL-1**" in polish and "**R-LADY-1**" not in polish and "Komendy" in polish
    assert "Wskazówki" in polish and "miejsca 1 do 2" in polish


def test_a_modules_events_are_worded_from_its_module_info() -> None:
    """The duel's reveal-step events and the Fasolkopajaki bluff are worded by their
    modules (ModuleInfo.event_labels), in both languages, the first fitting variant first;
    an event no module words is None (the front ends fall back to the action's shape)."""
    from bohnanza.modules import module_info
    from bohnanza.rules import make_config
    from bohnanza.text import event_text

    duel = make_config("fasolki+duel", 2)
    card = next(c for c in range(duel.deck_size) if duel.variety_of(c) == "cowboy")
    reveal = {"type": "reveal", "seat": 1, "card": card, "variety": "cowboy"}
    assert event_text(duel, reveal) == "seat 1 reveals Cowboy"
    assert event_text(duel, reveal, who="Ola") == "Ola reveals Cowboy"
    assert event_text(duel, reveal, "pl", who="Ola") == "Ola odkrywa kartę: Kowboj"
    assert event_text(duel, reveal, who="Seat 1", you=True) == "You reveal Cowboy"
    left = {"type": "leave_offer", "seat": 0, "cards": [card, card]}
    assert event_text(duel, left, who="Ola") == "Ola leaves Cowboy, Cowboy as the offer"
    assert event_text(duel, {**left, "cards": []}, "pl", who="Ola") == "Ola zostawia ofertę: nic"
    pull = {"type": "pull_discard", "seat": 0, "card": card}
    assert event_text(duel, pull, you=True) == "You take Cowboy from the discard pile too"
    assert event_text(duel, {"type": "harvest", "seat": 0}) is None
    assert module_info("duel").to_json()["event_labels"]["reveal"][0]["text"][1]

    spider = make_config("fasolki+fasolkopajaki", 3)
    black = next(c for c in range(spider.deck_size) if spider.card_kind[c] == "black")
    told = {"type": "reveal", "seat": 2, "card": black, "declared": "red", "colour": "black"}
    assert event_text(spider, {**told, "bluff": True}, who="Ola") == (
        "Ola's Fasolkopająk declared red was black: a bluff!"
    )
    truth = {**told, "declared": "black", "bluff": False}
    assert event_text(spider, truth, who="Ola") == (
        "Ola's Fasolkopająk declared black was indeed black"
    )
    assert event_text(spider, truth, you=True).startswith("Your Fasolkopająk")  # type: ignore[union-attr]
    assert "blef" in str(event_text(spider, {**told, "bluff": True}, "pl", who="Ola"))
    assert "czarny" in str(event_text(spider, {**told, "bluff": True}, "pl", who="Ola"))
