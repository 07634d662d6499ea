"""The worked example of issue 27 (tests/fixtures/module_toll.py): a module whose action
takes a hand card and a field, registered with no edit outside its own file, is playable
through the text commands and the prompt (English and Polish), the terminal
(``bohnanza play``), and games of ``random`` and ``heuristic`` bots; its repr, JSON and
labels come from the shape declared on its rule (R-TOLL-1 is the fixture's toy rule)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from bohnanza import Game
from bohnanza.actions import Action, ActionType, shape_of, takes
from bohnanza.cli import main
from bohnanza.modules import module_shapes
from bohnanza.rules import make_config
from bohnanza.testing.checker import CHEAP, check_game
from bohnanza.text import CommandError, parse_command, render_action, render_prompt, system_prompt
from fixtures import module_toll
from fixtures.module_toll import RULE, TOLL, toll

RULES = "fasolki+toll"


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    module_toll.register()
    try:
        yield
    finally:
        module_toll.unregister()


def _game_with_two_alike(seed_from: int = 0) -> tuple[Game, int, int]:
    """A game in phase 1 whose active hand holds, behind the front card, two cards of one
    variety that may both go onto the same field: (game, first, second)."""
    for seed in range(seed_from, seed_from + 200):
        game = Game.new(RULES, 3, seed=seed)
        hand = game.hands[game.active][1:]
        cv = game.config.card_variety
        for i, a in enumerate(hand):
            for b in hand[i + 1 :]:
                if cv[a] == cv[b]:
                    return game, a, b
    raise AssertionError("no such deal")


def test_the_shape_declares_the_fields_the_repr_and_the_json() -> None:
    assert ActionType("toll") is TOLL and TOLL not in list(ActionType)
    assert takes(TOLL) == frozenset({"card", "field"})
    action = toll(17, 1)
    assert repr(action) == "Action.of('toll', 17, 1)"  # the card is never dropped
    assert eval(repr(action)) == action
    assert Action.from_json(action.to_json()) == action == Action.of("toll", 17, 1)
    with pytest.raises(TypeError, match="needs its field"):
        Action.of("toll", 17)
    shapes = {s["type"]: s for s in module_shapes(RULES)}
    assert [p["kind"] for p in shapes["toll"]["params"]] == ["hand_card", "field"]
    assert shapes["toll"]["label"] == ["pay the toll and plant", "zapłać myto i zasadź"]


def test_the_rule_is_checked_and_played_r_toll_1() -> None:
    game, _, _ = _game_with_two_alike()
    seat = game.active
    legal = game.legal_actions(seat)
    moves = [a for a in legal if a.type is TOLL]
    assert moves and all(a.card in game.hands[seat][1:] for a in moves)
    front = game.hands[seat][0]
    before = game.to_dict()
    from bohnanza.errors import IllegalAction

    with pytest.raises(IllegalAction, match=RULE):
        game.apply(seat, toll(front, 0))  # the front card is planted the usual way
    with pytest.raises(IllegalAction, match=RULE):
        game.apply((seat + 1) % 3, moves[0])
    assert game.to_dict() == before
    game.apply(seat, moves[0])
    assert game.planted == 1 and moves[0].card in game.fields[seat][moves[0].field]  # type: ignore[index]
    assert not [a for a in game.legal_actions(seat) if a.type is TOLL]  # once, first


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_text_commands_read_and_write_it_in_both_languages(lang: str) -> None:
    game, a, b = _game_with_two_alike()
    seat = game.active
    view = game.view(seat)
    hand = list(view.hand or ())
    word = "toll" if lang == "en" else "myto"
    for card in (a, b):
        field = next(
            f for f in range(len(view.me().fields)) if toll(card, f) in game.legal_actions(seat)
        )
        action = toll(card, field)
        line = render_action(action, view, lang)  # type: ignore[arg-type]
        assert line == f"{word} {hand.index(card) + 1} {field + 1}"
        assert parse_command(line, view, lang) == action  # type: ignore[arg-type]
    # Polish input may drop its diacritics; either language's word is read.
    assert parse_command(f"toll {hand.index(a) + 1} 1", view, lang) == toll(a, 0)  # type: ignore[arg-type]
    bad = {
        f"{word} {hand.index(a) + 1}": "FIELD" if lang == "en" else "POLE",
        f"{word} d1 1": "cannot be used here" if lang == "en" else "nie mogą być tu użyte",
        f"{word} 99 1": "no card 99" if lang == "en" else "Nie ma karty 99",
        f"{word} 2 7": "numbered 1 to" if lang == "en" else "numery od 1 do",
    }
    for line, message in bad.items():
        with pytest.raises(CommandError, match=message):
            parse_command(line, view, lang)  # type: ignore[arg-type]


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_the_prompt_lists_and_teaches_it(lang: str) -> None:
    game, _, _ = _game_with_two_alike()
    seat = game.active
    view = game.view(seat)
    legal = game.legal_actions(seat)
    prompt = render_prompt(view, legal, True, lang)  # type: ignore[arg-type]
    word = "toll" if lang == "en" else "myto"
    listed = [line for line in prompt.splitlines() if line.startswith(word + " ")]
    assert len(listed) == sum(1 for x in legal if x.type is TOLL)
    system = system_prompt(lang, make_config(RULES, 3, None, ()))  # type: ignore[arg-type]
    form = "toll N FIELD" if lang == "en" else "myto N POLE"
    help_ = shape_of(TOLL).help[0 if lang == "en" else 1]
    assert f"{form} - {help_}" in system


def test_the_terminal_menu_tells_equal_labels_apart_and_plays_it() -> None:
    from bohnanza.agents import make_agent
    from bohnanza.terminal import TerminalGame

    game, a, b = _game_with_two_alike()
    seat = game.active
    view = game.view(seat)
    others = {s: make_agent("random", s) for s in range(3) if s != seat}
    term = TerminalGame(game, seat, others, read=input, write=print)
    legal = game.legal_actions(seat)
    field = next(f for f in range(2) if toll(a, f) in legal and toll(b, f) in legal)
    one, two = term.describe(toll(a, field), view), term.describe(toll(b, field), view)
    assert one != two and one.startswith("pay the toll and plant") and "field" in one
    menu = term._menu(view, legal, True)
    assert toll(a, field) in menu and toll(b, field) in menu  # both listed, none collapsed


def test_bohnanza_play_takes_the_command() -> None:
    """A scripted ``bohnanza play``: the person types the toll command in the first turn,
    then picks a menu entry and quits."""
    game, a, _ = _game_with_two_alike()
    assert game.active == 0
    hand = list(game.hands[0])
    field = next(f for f in range(2) if toll(a, f) in game.legal_actions(0))
    lines = [f"toll {hand.index(a) + 1} {field + 1}", "1", "1", "q"]
    result = CliRunner().invoke(
        main,
        ["play", "-r", RULES, "-p", "3", "--seed", str(game.seed), "-b", "random,heuristic"],
        input="\n".join(lines) + "\n",
    )
    assert "Traceback" not in result.output, result.output[-3000:]
    out = " ".join(result.output.split())
    assert f"You pay the toll and plant {game.config.describe(a)} on field {field + 1}" in out


def test_a_terminal_game_with_the_menu_plays_to_the_end() -> None:
    """The person picks the menu's first entry at every decision (the toll among them,
    as the menu lists it) and the game ends with its scores."""
    from bohnanza.agents import make_agent
    from bohnanza.terminal import TerminalGame

    game, _, _ = _game_with_two_alike()
    out: list[str] = []
    chosen: list[str] = []

    def read(prompt: str) -> str:
        assert len(out) < 200_000, "the game does not end"
        if prompt.endswith("(y/N)"):
            return "y"
        menu = term.menu
        pick = next((k for k, e in enumerate(menu, 1) if getattr(e, "type", None) is TOLL), 1)
        chosen.append(term.describe(menu[pick - 1], game.view(0)))
        return str(pick)

    others = {s: make_agent("random", s) for s in (1, 2)}
    term = TerminalGame(game, 0, others, read=read, write=out.append)
    assert term.play() and game.over
    assert any(c.startswith("pay the toll and plant") for c in chosen)
    assert "Final scores" in "\n".join(out)


@pytest.mark.parametrize(("seed", "agents"), [(0, "random"), (1, "random"), (2, "heuristic")])
def test_bots_play_whole_checked_games(seed: int, agents: str) -> None:
    stats = check_game(RULES, 3 + seed % 3, seed, agents=agents, checks=CHEAP)
    assert stats.actions > 0 and stats.scores


def test_random_and_heuristic_bots_pay_the_toll() -> None:
    """Bots that know nothing of the module play its action from the legal list (the
    random bot) or by what its shape says it does (autarky: it plants a card), and the
    record replays."""
    from bohnanza.agents import make_agent
    from bohnanza.driver import play

    for name in ("random", "autarky"):
        used = 0
        for seed in range(3):
            game = Game.new(RULES, 3, seed=seed)
            log = play(game, [make_agent(name, s) for s in range(3)])
            assert game.over
            used += sum(1 for _, a in log.actions if a.type is TOLL)
        assert used > 0, name


@pytest.mark.parametrize("seed", [0, 1])
def test_the_rl_environment_offers_and_masks_it(seed: int) -> None:
    """The RL encoding lays the action out from its shape (a hand position x a field):
    over a seeded random rollout every masked-in index decodes to an action the engine
    accepts, and every legal toll action has an index that decodes back to it."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("pettingzoo")
    from bohnanza.rl import bohnanza_v0
    from bohnanza.rl.encoding import ACTION_HAND_SLOTS, FIELDS

    env = bohnanza_v0.raw_env(rules=RULES, players=3)
    enc = env.encoding
    start, size = enc.segments["toll"]
    assert size == ACTION_HAND_SLOTS * FIELDS
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    offered = taken = 0
    for _ in range(1500):
        game = env.game
        if game is None or game.over:
            break
        view = env.view()
        mask = env.action_mask()
        for i in np.flatnonzero(mask):
            action = enc.decode(view, int(i))
            if action is not None:
                assert game.is_legal(env.seat, action), (enc.describe(int(i)), action)
        tolls = [a for a in env.legal_actions() if a.type is TOLL]
        for action in tolls:
            i = enc.index_of(view, action)
            assert i is not None and start <= i < start + size, action
            assert mask[i] == 1 and enc.decode(view, i) == action
        on = [int(i) for i in np.flatnonzero(mask)]
        in_toll = [i for i in on if start <= i < start + size]
        assert len(in_toll) == len(tolls)
        offered += bool(in_toll)
        # Favour the toll when it is offered, so that it is played and its results seen.
        if in_toll and rng.random() < 0.5:
            choice = in_toll[int(rng.integers(len(in_toll)))]
            taken += 1
        else:
            choice = on[int(rng.integers(len(on)))]
        env.step(choice)
    assert offered > 0 and taken > 0
