"""The terminal game (``bohnanza play``): whole games driven by piped or scripted input."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.cells import cell_len

from bohnanza.actions import Action, ActionType, Offer
from bohnanza.agents import AutarkyAgent, agent_names, make_agent
from bohnanza.cli import main
from bohnanza.driver import play
from bohnanza.game import TRADE, Game
from bohnanza.records import load, replay
from bohnanza.schedule import MAX_TRADE_ROUNDS
from bohnanza.seeding import agent_seed
from bohnanza.terminal import PASS, Submenu, TerminalGame, _count

Chooser = Callable[[TerminalGame, str], str]


class Session:
    """A TerminalGame whose input comes from ``choose(session, prompt)``."""

    def __init__(
        self,
        game: Game,
        seat: int,
        bots: str,
        choose: Chooser,
        max_prompts: int = 20_000,
        *,
        confirm: bool = True,
        width: int = 80,
        max_trade_rounds: int = MAX_TRADE_ROUNDS,
    ):
        others = [s for s in range(game.players) if s != seat]
        names = agent_names(bots, game.players - 1)
        agents = {
            s: make_agent(n, agent_seed(game.seed, s)) for s, n in zip(others, names, strict=True)
        }
        self.lines: list[str] = []
        self.prompts = 0
        self.max_prompts = max_prompts
        self.choose = choose
        self.confirm = confirm  # answer "y" to "... (y/N)" questions (a 0-coin harvest)
        self.term = TerminalGame(
            game,
            seat,
            agents,
            read=self._read,
            write=self._write,
            width=width,
            max_trade_rounds=max_trade_rounds,
        )

    def _write(self, text: str) -> None:
        self.lines.extend(text.split("\n"))

    def _read(self, prompt: str) -> str:
        self.prompts += 1
        assert self.prompts <= self.max_prompts, "the game does not end"
        self.lines.append(prompt + "> ")
        if self.confirm and prompt.endswith("(y/N)"):
            return "y"
        return self.choose(self.term, prompt)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    @property
    def flat(self) -> str:
        """The output with every run of spaces and line breaks as one space: wrapped
        lines read as one."""
        return flat(self.text)


def flat(text: str) -> str:
    return " ".join(text.split())


def first_option(term: TerminalGame, prompt: str) -> str:
    return "1"


def hand_line(term: TerminalGame) -> str:
    """The hand as printed, spaces folded (a long hand wraps under itself)."""
    hand = term.game.hands[term.human]
    cfg = term.game.config
    if not hand:
        return "Your hand: empty"
    cards = " ".join(
        f"{i + 1} {cfg.describe(c)}{'*' if i == 0 else ''}" for i, c in enumerate(hand)
    )
    return f"Your hand: {cards} (* front card, planted next)"


def last_hand(lines: list[str]) -> str:
    """The last "Your hand:" line printed with its continuation lines, spaces folded."""
    i = next(i for i in range(len(lines) - 1, -1, -1) if lines[i].startswith("Your hand:"))
    more = itertools.takewhile(lambda x: x.startswith("   "), lines[i + 1 :])
    return flat(" ".join([lines[i], *more]))


# ---------------------------------------------------------------------- whole games via the CLI


def test_whole_game_piped_through_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    result = CliRunner().invoke(
        main, ["play", "--seed", "3", "--record", str(path)], input="1\n" * 5000
    )
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert "Final scores" in result.output
    assert re.search(r"You win!|You share the win!|Winners?: seat", result.output)
    record = load(path)
    assert record["seats"] == [{"agent": "human"}] + [{"agent": "heuristic"}] * 3  # the default
    game = replay(record)
    assert game.over and record["result"] == game.result()
    # One aligned row per seat: no padding inside brackets ("(you    )", issue 31).
    for s, score in enumerate(game.result()["scores"]):
        who = "you" if s == 0 else "heuristic"
        assert re.search(rf"^  seat {s}  {who} +{_count(score, 'coin')}  ", result.output, re.M)
    assert not re.search(r"\(you +\)", result.output)
    assert "\x1b[" not in result.output  # not a terminal: plain text
    # The seed gives away the deck: shown only once the game is over.
    before, _, after = result.output.partition("Final scores")
    assert "--seed 3" in after and "seed 3" not in before.lower()


def test_whole_game_with_trading_bots_at_another_seat(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    args = ["play", "--seed", "11", "--seat", "2", "--bots", "random", "--record", str(path)]
    result = CliRunner().invoke(main, args, input="1\n" * 20000)
    assert result.exit_code == 0, result.output
    assert "Final scores" in result.output
    # Random bots trade: offers to the person show up, and "pass" is option 1 in their turns.
    assert "to you" in result.output
    assert "1. pass (do nothing this round)" in result.output
    # Other seats' draws are counted, never named; one's own are named.
    draws = [line for line in result.output.splitlines() if " draws " in line or "You draw" in line]
    assert draws and all(
        re.fullmatch(r"Seat [013] draws [1-3] cards?", line) or line.startswith("You draw ")
        for line in draws
    )
    assert any(line.startswith("You draw ") for line in draws)
    record = load(path)
    assert record["seats"][2] == {"agent": "human"}
    assert replay(record).result() == record["result"]


def test_quit_saves_an_unfinished_record(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    result = CliRunner().invoke(
        main, ["play", "--seed", "3", "--record", str(path)], input="1\n1\nq\n"
    )
    assert result.exit_code == 0, result.output
    assert "You left the game" in result.output
    record = load(path)
    assert record["result"] is None and len(record["actions"]) == 2
    assert not replay(record).over


def test_end_of_input_exits_cleanly() -> None:
    result = CliRunner().invoke(main, ["play", "--seed", "3"], input="1\n")
    assert result.exit_code == 130
    assert "bye" in result.output and "Traceback" not in result.output


def test_bad_input_reprompts_with_a_message() -> None:
    inputs = ["hello", "0", "99", "", "pass", "offer 1 give 1", "?", "b", "1", "q"]
    result = CliRunner().invoke(main, ["play", "--seed", "3"], input="\n".join(inputs) + "\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Unknown input 'hello'" in out
    assert "There is no action 0" in out and "There is no action 99" in out
    assert "You cannot pass now" in out
    assert "Offers can be made only in phase 2" in out
    assert "offer [SEAT] give POSITIONS" in out  # the help
    assert "You plant" in out and "Traceback" not in out


@pytest.mark.parametrize(
    ("rules", "players", "options"),
    [
        ("classic", 3, {}),
        ("classic", 4, {}),
        ("classic", 6, {}),
        ("first-edition", 4, {}),
        ("fasolki", 5, {}),
        ("fasolki+new-varieties", 4, {"remove": "farmer"}),
        ("fasolki+fasolkopajaki", 3, {}),
        ("fasolki+fasolufka", 4, {}),
        ("fasolki+duel", 2, {}),
    ],
)
def test_every_rule_set_plays_to_the_end(rules: str, players: int, options: dict[str, str]) -> None:
    game = Game.new(rules, players, options=options, seed=5)
    session = Session(
        game, players - 1, "random,autarky" if players > 2 else "random", first_option
    )
    assert session.term.play()
    assert game.over
    assert "Final scores" in session.text
    assert replay(session.term.record()).result() == game.result()


# ---------------------------------------------------------------------- what the person sees


def test_the_printed_hand_is_always_the_persons_own() -> None:
    rng = random.Random(1)

    def choose(term: TerminalGame, prompt: str) -> str:
        assert last_hand(session.lines) == hand_line(term)
        return str(rng.randint(1, len(term.menu)))

    game = Game.new("classic", 4, seed=8)
    session = Session(game, 1, "random", choose)
    assert session.term.play()


def test_other_hands_are_never_shown() -> None:
    # R-INFO-2, R-INFO-3: a hand's contents are its owner's alone.
    # Seat 0 (the person) holds no Garden or Cocoa; every Garden and Cocoa card of the deck
    # is in the hands of seats 1 and 2. Autarky bots never offer cards, so until seat 1
    # plants in turn 2 nothing the person may see is a Garden or a Cocoa.
    deck = ["blue", "chili", "wax", "soy", "red"] + ["garden"] * 5 + ["cocoa"] * 4 + ["garden"]
    game = Game.new("classic", 4, seed=2, deck=deck)
    assert sorted(game.config.variety_of(c) for c in game.hands[1] + game.hands[2]) == (
        ["cocoa"] * 4 + ["garden"] * 6
    )

    def choose(term: TerminalGame, prompt: str) -> str:
        if term.game.turn > 1:
            return "q"
        return "1"

    session = Session(game, 0, "autarky", choose)
    session.term.play()
    seen = session.text
    assert "Your hand: 1 Blue* 2 Chili 3 Wax 4 Soy 5 Red" in flat(seen)
    assert "Turn 2: seat 1" in seen
    before = seen.split("Turn 2: seat 1")[0]
    assert "Garden" not in before and "Cocoa" not in before
    # The bots' draws are told without their cards.
    assert "Seat 1 draws 3 cards" in seen


def test_illegal_custom_offer_is_refused_and_changes_nothing() -> None:
    snapshots: list[dict[str, object]] = []

    def choose(term: TerminalGame, prompt: str) -> str:
        g = term.game
        if g.phase == TRADE and g.active == term.human:
            if not snapshots:
                snapshots.append(g.to_dict())
                return "offer 1 give 1 want wax:13"  # too many cards: the engine refuses it
            assert g.to_dict() == snapshots[0]
            return "q"
        return "1"

    game = Game.new("classic", 4, seed=3)
    session = Session(game, 0, "autarky", choose)
    session.term.play()
    # Worded from the refusing rule's reason code and its numbers (bohnanza.refusals).
    assert "Not allowed: at most 12 cards on each side of an offer" in session.flat
    assert len(snapshots) == 1


def test_custom_offers_are_parsed() -> None:
    game = Game.new("classic", 4, seed=3, deck=["blue", "chili", "wax", "soy", "black-eyed"])
    session = Session(game, 0, "autarky", first_option)
    term = session.term
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    view = game.view(0)
    hand, drawn = game.hands[0], game.drawn
    act = term.parse_offer("offer 2 give 1,3 want wax:2, SOY", view)
    assert act.offer is not None
    assert act.offer.to == 2
    assert act.offer.give == (hand[0], hand[2])
    assert act.offer.want == (("wax", 2), ("soy", 1))
    gift = term.parse_offer("offer 3 give d2", view).offer
    assert gift is not None and gift.give == (drawn[1],) and gift.want == ()
    ask = term.parse_offer("offer 1 want bla:1", view).offer
    assert ask is not None and ask.give == () and ask.want == (("black-eyed", 1),)
    for bad, message in [
        ("offer give 1", "Say which seat"),
        ("offer 1 give 9", "no card 9"),
        ("offer 1 give d3", "no drawn card d3"),
        ("offer 1 give x", "not a card position"),
        ("offer 1 give 1 want bl", "could be Blue, Black-eyed"),
        ("offer 1 give 1 want coffee", "No variety 'coffee'"),
        ("offer 1 give 1 want wax:two", "Bad count"),
        ("offer 1", "gives nothing and asks for nothing"),
        ("offer 1 blue", "Cannot read the offer"),
    ]:
        with pytest.raises(ValueError, match=message):
            term.parse_offer(bad, view)
    # Not active: the partner defaults to the active seat, and drawn cards are not one's own
    # (R-TRADE-2).
    other = Session(game, 1, "autarky", first_option).term
    v1 = game.view(1)
    offer = other.parse_offer("offer give 2 want blue", v1).offer
    assert offer is not None and offer.to == 0 and offer.give == (game.hands[1][1],)
    with pytest.raises(ValueError, match="Only the active player"):
        other.parse_offer("offer give d1", v1)


def test_bots_answer_the_persons_offer_at_once() -> None:
    offered: list[bool] = []

    def choose(term: TerminalGame, prompt: str) -> str:
        g = term.game
        if g.phase == TRADE and g.active == term.human:
            if not offered:
                offered.append(True)
                return "offer 2 give 1"
            return "1"  # end trading
        if g.turn > 1:
            return "q"
        return "1"

    game = Game.new("classic", 4, seed=3)
    session = Session(game, 0, "autarky", choose)
    session.term.play()
    lines = session.lines
    k = next(i for i, line in enumerate(lines) if line.startswith("You offer seat 2"))
    assert lines[k + 1] == "Seat 2 declines offer #1 from you"
    assert "You end trading" in session.text


def test_board_shows_the_public_information() -> None:
    # R-INFO-1: fields, coins, hand sizes, pile sizes, the discard top, drawn cards, trade
    # areas and run-outs are public; the person's own hand is shown in order (R-SETUP-3).
    game = Game.new("classic", 4, seed=3, deck=["blue", "chili", "wax", "soy", "black-eyed"])
    term = Session(game, 0, "autarky", first_option).term
    game.apply(0, Action.plant(0))
    game.apply(0, Action.harvest(0))
    game.apply(0, Action.plant(1))
    view = game.view(0)
    board = term.board(view)
    d1, d2 = (game.config.describe(c) for c in game.drawn)
    assert f"Draw pile {len(game.draw)} · discard pile 1 (top: Blue) · run-outs 0 of 3" in board
    # A table: a row per seat (* the active one), a column per field.
    assert re.search(r"^ +Seat +Coins +Hand +Field 1 +Field 2$", board, re.M)
    assert re.search(r"^\* +0 you +0 +3 +empty +Chili x1 pays 0$", board, re.M)
    assert len(re.findall(r"^ +[123] autarky +0 +5 +empty +empty$", board, re.M)) == 3
    assert f"Drawn cards: d1 {d1} d2 {d2}" in flat(board)
    assert "Your hand: 1 Wax* 2 Soy 3 Black-eyed" in flat(board)
    game.apply(0, Action.end_trading())
    board = term.board(game.view(0))
    assert re.search(r"Field 2 +Trade area$", board, re.M) and "phase 3" in board
    assert re.search(rf"Chili x1 pays 0 +{d1}, {d2}$", board, re.M)


def test_menu_describes_actions_in_words() -> None:
    game = Game.new("classic", 4, seed=3, deck=["blue", "chili", "wax", "soy", "black-eyed"])
    term = Session(game, 0, "autarky", first_option).term
    view = game.view(0)
    # Fields are numbered from 1, as in the commands (bohnanza.text).
    assert term.describe(Action.plant(1), view) == "plant Blue (front card) on field 2 (empty)"
    game.apply(0, Action.plant(0))
    view = game.view(0)
    assert term.describe(Action.harvest(0), view) == "harvest field 1 (Blue x1 → 0 coins)"
    assert term.describe(PASS, view) == "pass (do nothing this round)"
    assert term.describe(Action.stop_planting(), view).startswith("stop planting (Chili stays")


# ---------------------------------------------------------------------- the flow is the driver's


@pytest.mark.parametrize(
    ("bots", "seat", "seed"), [("autarky", 0, 4), ("random", 1, 6), ("random", 3, 7)]
)
def test_flow_matches_the_driver(bots: str, seat: int, seed: int) -> None:
    """A person who plays exactly like the autarky bot produces the driver's game."""
    mimic = AutarkyAgent()

    def choose(term: TerminalGame, prompt: str) -> str:
        g = term.game
        legal = g.legal_actions(term.human)
        choice = mimic.act(g.view(term.human), legal, PASS not in term.menu)
        if choice is None:
            return "p"
        return str(term.menu.index(choice) + 1)

    game = Game.new("classic", 4, seed=seed)
    session = Session(game, seat, bots, choose)
    assert session.term.play()

    ref = Game.new("classic", 4, seed=seed)
    names = agent_names(bots, 3)
    agents = []
    for s in range(4):
        agents.append(
            AutarkyAgent() if s == seat else make_agent(names[s - (s > seat)], agent_seed(seed, s))
        )
    log = play(ref, agents)
    assert session.term.log == log.actions
    assert game.result() == ref.result()


def test_pass_is_offered_only_in_other_players_trading() -> None:
    kinds: set[tuple[bool, bool]] = set()

    def choose(term: TerminalGame, prompt: str) -> str:
        g = term.game
        passing = PASS in term.menu
        kinds.add((g.phase == TRADE and g.active != term.human, passing))
        if passing:
            assert term.menu[0] is PASS
        if g.phase == TRADE and g.active == term.human:
            assert isinstance(term.menu[0], Action) and term.menu[0].type is ActionType.END_TRADING
        return "1"

    game = Game.new("classic", 4, seed=12)
    assert Session(game, 2, "random", choose).term.play()
    assert kinds == {(True, True), (False, False)}


def test_typed_commands_use_the_shared_grammar() -> None:
    """Besides menu numbers, the person may type the commands of bohnanza.text (the
    language the language-model players answer in); a bad one gets the parser's message
    and changes nothing."""
    typed = iter(["harvest 5", "plant 2", "stop", "q"])
    seen: list[str] = []

    def choose(term: TerminalGame, prompt: str) -> str:
        line = next(typed)
        seen.append(line)
        return line

    game = Game.new("classic", 4, seed=3, deck=["blue", "chili", "wax", "soy", "black-eyed"])
    session = Session(game, 0, "autarky", choose)
    session.term.play()
    assert "'5' is not a field; your fields are numbered 1 to 2." in session.flat
    assert [f[0] for f in game.fields[0] if f] and game.fields[0][1] and not game.fields[0][0]
    assert seen == ["harvest 5", "plant 2", "stop", "q"]
    assert game.phase == TRADE


def test_fasolufka_buyer_picks_the_coins_in_order_r_lady_10() -> None:
    # R-LADY-10: the person sees their own coins, picks three of them in discard order (a
    # bad pick is explained and asked again); the others' coins stay counts.
    game = Game.new("fasolki+fasolufka", 3, seed=4)
    for seat, n in ((0, 5), (1, 3)):
        game.treasury[seat] += game.draw[:n]
        del game.draw[:n]
    coins = list(game.treasury[0])
    answers = iter(["1,1,2", "7,1,2", "1,2", "c"])
    state = {"bought": False, "cancelled": False}

    def choose(term: TerminalGame, prompt: str) -> str:
        if prompt.startswith("Coins to pay"):
            answer = next(answers, "3,1,5")
            state["cancelled"] = state["cancelled"] or answer == "c"
            state["bought"] = answer == "3,1,5"
            return answer
        if state["bought"]:
            return "q"
        buy = Action.buy_field()
        return str(term.menu.index(buy) + 1) if buy in term.menu else "1"

    session = Session(game, 0, "autarky", choose)
    session.term.play()
    text = session.flat
    describe = game.config.describe
    assert "Your coins: " + ", ".join(describe(c) for c in coins) in text
    assert "Your coins: 1 " + describe(coins[0]) in text
    assert "Each coin can pay only once." in text
    assert "There is no coin 7; you have 5." in text
    assert "Pick exactly 3 coins, not 2." in text
    assert state["cancelled"]
    paid = [coins[2], coins[0], coins[4]]
    assert game.discard[-3:] == paid
    assert game.treasury[0] == [coins[1], coins[3]]
    assert "discarding " + ", ".join(describe(c) for c in paid) in text
    # Seat 1's coins are never named on the person's screen before they are paid.
    assert all(f"Your coins: {describe(c)}" not in text for c in game.treasury[1])
    # The record holds the choice (the staged coins are not part of the setup, so it is
    # checked here without a replay; tests/modules/test_fasolufka_coins.py replays).
    assert session.term.record()["actions"][0] == {"seat": 0, "type": "buy_field", "cards": paid}


# ---------------------------------------------------------------------- issue 13 slips


def test_menus_fit_80_columns_list_each_choice_once_and_count_coins_right() -> None:
    # Random choices through whole games (5 players: many offer partners; fasolki with a
    # module), checking every menu printed on the way.
    rng = random.Random(13)

    def pick(term: TerminalGame, prompt: str) -> str:
        if prompt.startswith("Coins to pay"):
            return ""  # the suggested coins (fasolufka)
        return str(rng.randint(1, max(1, len(term.menu))))

    for rules, players in (("classic", 5), ("fasolki+fasolufka", 4)):
        game = Game.new(rules, players, seed=21)
        session = Session(game, 1, "random", pick)
        assert session.term.play()
        menu: list[str] = []
        for line in [*session.lines, "end"]:
            if re.match(r"^  +\d+\. ", line):
                menu.append(line.split(". ", 1)[1])
            elif menu and re.match(r"^ {5,}\S", line):  # a long entry wraps under itself
                menu[-1] += " " + line.strip()
            elif menu:
                assert len(menu) == len(set(menu)), menu  # no repeated choices (phase 3)
                menu = []
        assert all(len(line) <= 80 for line in session.lines)
        # The board is shown again within one turn and phase only when someone else acted
        # (phase 3: the person's own plantings show just their side).
        last: tuple[str, int] | None = None
        for i, line in enumerate(session.lines):
            if line.startswith("== Turn"):
                if last is not None and last[0] == line:
                    between = session.lines[last[1] : i]
                    assert any(x.startswith(("Seat ", "──── ")) for x in between), between
                last = (line, i)
        assert not re.search(r"\b1 coins\b", session.text)
        assert re.search(r"\b\d+ coins?\b", session.text)


def test_bench_refuses_zero_games() -> None:
    result = CliRunner().invoke(main, ["bench", "--games", "0"])
    assert result.exit_code == 2 and "0 is not in the range" in result.output


# ---------------------------------------------------------------------- issue 31: the terminal


def scripted(width: int, seat: int = 0) -> Session:
    """A few turns of a 5-player game against heuristic bots (long names), typed as a
    person would: help, the board, plantings, the "more…" offers (into a group, back,
    another group, an offer), answers to bots' offers, then quit in turn 4."""
    steps = iter(["?", "b"])
    visited: list[str] = []

    def choose(term: TerminalGame, prompt: str) -> str:
        g = term.game
        if g.turn >= 4:
            return "q"
        step = next(steps, None)
        if step is not None:
            return step
        if g.phase == TRADE and g.active == term.human and "offer" not in visited:
            if not term.submenus:
                more = next(e for e in term.menu if isinstance(e, Submenu))
                return str(term.menu.index(more) + 1)
            if len(visited) < 3 and any(isinstance(e, Submenu) for e in term.menu):
                visited.append("group")
                return "1" if len(visited) != 2 else "0"
            if len(visited) == 2:
                visited.append("back")
                return "0"
            visited.append("offer")
            return "1"
        return "1"

    game = Game.new("classic", 5, seed=31)
    session = Session(game, seat, "heuristic", choose, width=width)
    session.term.play()
    return session


def test_scripted_session_wraps_at_word_boundaries_at_80_and_100_columns() -> None:
    # Issue 31: at 80 and 100 columns lines broke mid-word ("heuri/stic"). The same game
    # on a very wide screen prints every word whole: at 80 and 100 columns every line fits
    # and holds only those words (a split word would be a new one), in the same order.
    wide = scripted(10_000)
    words = set(wide.text.split())
    words |= {"Fields", "1:", "2:", "3:"}  # the board's narrow layout (fields stacked)
    assert max(len(line) for line in wide.lines) > 100  # there is something to wrap
    assert "Ready-made offers" in wide.text and "to seat 4" in wide.text  # the grid
    for width in (80, 100):
        narrow = scripted(width)
        assert narrow.term.log == wide.term.log  # the same game
        assert all(len(line) <= width for line in narrow.lines), width
        split = [(line, w) for line in narrow.lines for w in line.split() if w not in words]
        assert not split, split[:5]
        assert len(narrow.lines) > len(wide.lines)  # it did wrap
        assert " heuristic," in narrow.text and "heuri\n" not in narrow.text


def test_ready_made_offers_sit_behind_more_grouped_by_the_cards_given() -> None:
    # Issue 31: up to 40 ready-made offers were listed in one menu. Now one "more…" entry
    # opens a menu per cards given (0 goes back), and each of those a grid of terms by
    # partner; together they hold every ready-made offer, each once.
    shown: dict[str, object] = {}

    def choose(term: TerminalGame, prompt: str) -> str:
        g = term.game
        if "offer" in shown:
            return "q"
        if g.phase != TRADE or g.active != term.human:
            return "1"
        if "top" not in shown:
            shown["top"] = list(term.menu)
            shown["legal"] = [a for a in g.legal_actions(term.human) if a.offer]
            shown["at"] = len(session.lines)
            return str(len(term.menu))  # "more…" is the last entry
        if "groups" not in shown:
            shown["groups"] = list(term.menu)
            return "3"
        if "grid" not in shown:
            shown["grid"] = list(term.menu)
            return "0"
        if "back" not in shown:
            shown["back"] = list(term.menu)
            return "3"
        shown["offer"] = term.menu[4]
        return "5"

    game = Game.new("classic", 4, seed=3)
    session = Session(game, 0, "autarky", choose)
    session.term.play()
    top = shown["top"]
    assert isinstance(top, list) and len(top) <= 6
    more = top[-1]
    legal = shown["legal"]
    assert isinstance(more, Submenu) and isinstance(legal, list) and len(legal) > 20
    assert more.label == f"more… {len(legal)} ready-made offers, by the cards you give"
    groups = shown["groups"]
    assert isinstance(groups, list) and all(isinstance(e, Submenu) for e in groups)
    inside = [a for grp in groups for a in grp.entries]
    assert sorted(map(repr, inside)) == sorted(map(repr, legal))
    assert all(len({a.offer.give for a in grp.entries}) == 1 for grp in groups)
    assert shown["grid"] == list(groups[2].entries)
    assert shown["back"] == groups  # 0 went back one level
    text = "\n".join(session.lines[shown["at"] :])  # type: ignore[misc]
    assert re.search(r"^ +\d+\. more… \d+ ready-made offers", text, re.M)
    assert "  0. back" in text
    assert re.search(r"^ +to seat 1 +to seat 2 +to seat 3$", text, re.M)  # the grid's head
    assert re.search(r"^ +as a gift +1\. +2\. +3\.$", text, re.M)
    # The fifth offer of the group was made, to the partner its grid column names.
    offer = shown["offer"]
    assert isinstance(offer, Action) and offer.offer is not None
    made = [e for s, e in session.term.log if e.type is ActionType.PROPOSE]
    assert made == [offer] and offer.offer.to == 2


def test_a_zero_coin_harvest_asks_first_and_no_changes_nothing() -> None:
    # Issue 31: a 0-coin harvest was one keystroke. Now it is explained and asked (y/N);
    # anything but yes leaves the game as it was. A harvest that pays is not asked.
    answers = iter(["n", "y"])
    states: list[dict[str, object]] = []  # before "n", at the next prompt

    def choose(term: TerminalGame, prompt: str) -> str:
        g = term.game
        if prompt == "Harvest it anyway? (y/N)":
            answer = next(answers)
            if answer == "n":
                states.append(g.to_dict())
            return answer
        if len(states) == 1:
            states.append(g.to_dict())
        elif states and g.to_dict() != states[0]:
            return "q"
        harvest = Action.harvest(0)
        if g.phase == "plant" and harvest in term.menu and len(g.fields[0][0]) == 1:
            return str(term.menu.index(harvest) + 1)
        return "1"

    game = Game.new("classic", 4, seed=3, deck=["blue", "chili", "wax", "soy", "black-eyed"])
    session = Session(game, 0, "autarky", choose, confirm=False)
    session.term.play()
    text = session.flat
    assert (
        "Field 1 (Blue x1) pays 0 coins: harvesting it now sends its beans to the discard "
        "pile for nothing." in text
    )
    assert "Nothing harvested: choose again." in text
    assert text.count("Harvest it anyway? (y/N)>") == 2
    assert "You harvest field 1: Blue x1 → 0 coins" in text
    assert states[0] == states[1]  # "n" changed nothing
    assert [game.config.variety_of(c) for c in game.discard] == ["blue"]
    log = session.term.log
    assert [a for _, a in log][:2] == [Action.plant(0), Action.harvest(0)]


def test_two_farmers_harvested_for_a_third_field_are_not_questioned_r_farm_1() -> None:
    # R-FARM-1: two Farmers pay no coins but give a free third field: not a wasted harvest.
    game = Game.new(
        "fasolki+new-varieties",
        4,
        options={"remove": "glutton"},
        seed=3,
        deck=["farmer", "farmer", "cowboy", "fatty", "hippie"],
    )

    def choose(term: TerminalGame, prompt: str) -> str:
        assert not prompt.endswith("(y/N)")
        g = term.game
        if len(g.fields[0]) == 3:
            return "q"
        if g.phase == TRADE:
            return str(term.menu.index(Action.harvest(0)) + 1)
        plant = Action.plant(0)
        return str(term.menu.index(plant) + 1) if plant in term.menu else "1"

    session = Session(game, 0, "autarky", choose, confirm=False)
    session.term.play()
    assert "You harvest field 1: Farmer x2 → 0 coins and a free third field" in session.flat
    assert len(game.fields[0]) == 3


def test_colour_only_when_forced_and_no_clock_words() -> None:
    # Piped output is plain text; FORCE_COLOR brings colour. The terminal has no clock:
    # a bot's trading ends after a quiet round or the round limit, and says so.
    plain = CliRunner().invoke(main, ["play", "--seed", "3"], input="1\n" * 40 + "q\n")
    coloured = CliRunner().invoke(
        main, ["play", "--seed", "3"], input="1\n" * 40 + "q\n", env={"FORCE_COLOR": "1"}
    )
    assert plain.exit_code == coloured.exit_code == 0, plain.output
    assert "\x1b[" not in plain.output and "\x1b[" in coloured.output
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured.output) == plain.output
    assert "time is up" not in plain.output.lower()
    assert "Nobody traded for a whole round, so trading ends (R-TRADE-6)." in flat(plain.output)


# ---------------------------------------------------------------------- issue 54: the evening


def take(game: Game, variety: str) -> int:
    """A card of ``variety`` out of the draw pile (to stage a position by hand)."""
    card = next(c for c in game.draw if game.config.variety_of(c) == variety)
    game.draw.remove(card)
    return card


def test_a_protected_harvest_is_refused_at_once_with_its_rule_r_harv_3() -> None:
    # Issue 54 (9): "harvest 1" on a protected field (one bean, while field 2 holds two)
    # asked "Harvest it anyway? (y/N)" and then refused it anyway. The refusal comes at
    # once, with the rule, and nothing changes.
    game = Game.new("classic", 4, seed=3, deck=["blue", "chili", "wax", "soy", "red"])
    game.fields[0][0] = [take(game, "blue")]
    game.fields[0][1] = [take(game, "cocoa"), take(game, "cocoa")]
    before = game.to_dict()
    typed = iter(["harvest 1", "q"])
    session = Session(game, 0, "autarky", lambda term, prompt: next(typed, "q"), confirm=False)
    session.term.play()
    assert not any(line.endswith("(y/N)> ") for line in session.lines)
    assert "pays 0 coins" not in session.text
    assert (
        "Not allowed: field 1 holds a single bean and is protected while field 2 holds 2 "
        "(R-HARV-3)" in session.flat
    )
    assert game.to_dict() == before


def staged_offer(hand: list[str], reds: int = 1) -> tuple[Game, TerminalGame]:
    """Seat 1 (the person, holding ``hand``) is asked by the active seat 0 for ``reds``
    Reds, in exchange for a drawn card."""
    rest = ["garden"] * 5 + ["cocoa"] * 4 + ["wax"]  # seats 2 and 3
    game = Game.new(
        "classic", 4, seed=3, deck=["blue", "chili", "wax", "soy", "stink", *hand, *rest]
    )
    assert [game.config.variety_of(c) for c in game.hands[1]] == hand
    term = Session(game, 1, "autarky", first_option).term
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    offer = Offer(to=1, give=(game.drawn[0],), want=(("red", reds),))
    game.apply(0, Action.propose(offer))
    return game, term


def menu_lines(term: TerminalGame, game: Game) -> list[str]:
    """Every choice of the person's menu and of its "more…" sub-menus, in words."""
    view = game.view(term.human)
    out: list[str] = []

    def walk(entries: Sequence[object]) -> None:
        for e in entries:
            if isinstance(e, Submenu):
                out.append(e.label)
                walk(e.entries)
            else:
                out.append(term.describe(e, view))  # type: ignore[arg-type]

    walk(term._menu(view, game.legal_actions(term.human), False))
    return out


def test_identical_hand_cards_are_one_choice_unless_the_hand_order_differs() -> None:
    # Issue 54 (9): "give Red (hand 2)" and "give Red (hand 3)" were two choices. Giving
    # either of two neighbouring Reds leaves the same hand (R-TRADE-3: the rest keeps its
    # order), so they are one choice; the Red at 5 leaves another order: a choice of its own.
    game, term = staged_offer(["blue", "red", "red", "chili", "red"])
    lines = menu_lines(term, game)
    accepts = [line for line in lines if line.startswith("accept offer")]
    assert accepts == [
        "accept offer #1 from seat 0: you get "
        f"{game.config.describe(game.drawn[0])}, you give Red (hand 2)",
        "accept offer #1 from seat 0: you get "
        f"{game.config.describe(game.drawn[0])}, you give Red (hand 5)",
    ]
    # Nor do the ready-made offers give the Red at 3 (the engine makes them of one card
    # of each variety in the hand: the first).
    reds = {m for line in lines for m in re.findall(r"^Red \(hand (\d)\):", line)}
    assert reds == {"2"}
    assert not any("(hand 3)" in line for line in lines)
    # Each choice is still offered once: the menu has no two equal lines.
    assert len(lines) == len(set(lines))
    # Two Reds: 2 and 3 leave Blue, Chili, Red; 2 and 5 or 3 and 5 leave Blue, Red, Chili.
    game, term = staged_offer(["blue", "red", "red", "chili", "red"], reds=2)
    gives = [line.split("you give ")[1] for line in menu_lines(term, game) if "you give R" in line]
    assert gives == ["Red (hand 2), Red (hand 3)", "Red (hand 2), Red (hand 5)"]


def test_the_drawn_cards_go_and_the_drawn_card_goes() -> None:
    # Issue 54 (9): "the drawn Soy go". One card goes, two go; two of a kind are "both
    # drawn Chili cards" (bean names have no plural of their own: "Black-eyed").
    deck = ["blue", "chili", "wax", "soy", "red", *["wax"] * 15, "stink", "green"]
    game = Game.new("classic", 4, seed=3, deck=deck)
    term = Session(game, 0, "autarky", first_option).term
    game.apply(0, Action.plant(0))
    game.apply(0, Action.stop_planting())
    end = Action.end_trading()
    assert term.describe(end, game.view(0)) == (
        "end trading (the drawn Stink and Green go to your trade area)"
    )
    game.apply(0, Action.propose(Offer(to=1, give=(game.drawn[0],))))
    game.apply(1, Action.accept(game.view(0).offers[-1].offer_id))
    assert term.describe(end, game.view(0)) == (
        "end trading (the drawn Green goes to your trade area)"
    )
    twins = Game.new("classic", 4, seed=3, deck=[*deck[:20], "chili", "chili"])
    term = Session(twins, 0, "autarky", first_option).term
    twins.apply(0, Action.plant(0))
    twins.apply(0, Action.stop_planting())
    assert term.describe(end, twins.view(0)) == (
        "end trading (both drawn Chili cards go to your trade area)"
    )


def test_the_round_limit_is_said_to_be_this_programs_not_r_trade_6() -> None:
    # Issue 54 (9): the limit on a bot's trading rounds was cited as R-TRADE-6, which
    # lets the active player end trading when they like (or a table's timer) and counts
    # no rounds. The limit is this program's own, and the terminal says so.
    def choose(term: TerminalGame, prompt: str) -> str:
        return "q" if term.game.turn > 4 else ("p" if PASS in term.menu else "1")

    game = Game.new("classic", 4, seed=3)
    session = Session(game, 0, "random", choose, max_trade_rounds=2)
    session.term.play()
    told = [line for line in session.lines if line.startswith("Trading ends after")]
    assert told, "the limit was never reached"
    text = session.flat
    assert (
        "Trading ends after 2 rounds: this program's limit on a bot's turn, not a rule of "
        "the game." in text
    )
    assert "rounds, the most a bot's turn trades here (R-TRADE-6)" not in text


WIDTHS = (40, 50, 80, 120)


def help_at(width: int) -> list[str]:
    """The lines ``?`` prints at ``width`` columns."""
    typed = iter(["?", "q"])
    game = Game.new("classic", 4, seed=3)
    session = Session(game, 0, "autarky", lambda term, prompt: next(typed), width=width)
    session.term.play()
    lines = session.lines
    first = next(i for i, line in enumerate(lines) if line.endswith("> ")) + 1
    last = next(i for i in range(first, len(lines)) if lines[i].endswith("> "))
    return lines[first:last]


@pytest.mark.parametrize("width", WIDTHS)
def test_help_is_laid_out_once_for_the_window(width: int) -> None:
    # Issue 54 (5): at 80 columns the help, written for about 90, was wrapped again by the
    # screen: "...when you are" / "the" / "...leave out" / "give". Now it is flowed to the
    # window once: every line fits, no word is lost or split (the words in order are those
    # of a very wide window), and a line at the left margin only ever starts a paragraph
    # that starts there on a wide window too (a line wrapped again by the screen starts at
    # the margin).
    lines = help_at(width)
    assert_laid_out_once(lines, help_at(10_000), width)
    assert "R-HARV-3" in flat("\n".join(lines))


def assert_laid_out_once(lines: list[str], wide: list[str], width: int) -> None:
    """``lines`` (at ``width``) fit, say what ``wide`` (the same on a very wide window)
    says, word for word, and start a line at the margin only where ``wide`` does: text
    the screen wrapped again would go on at the margin."""
    assert all(cell_len(line) <= width for line in lines), width
    assert flat("\n".join(lines)).split() == flat("\n".join(wide)).split()
    margin = [line for line in lines if line[:1].strip()]
    starts = [line for line in wide if line[:1].strip()]
    assert len(margin) == len(starts), [
        m for m in margin if not any(s.startswith(m) for s in starts)
    ]
    assert all(s.startswith(m) for m, s in zip(margin, starts, strict=True))


def phase_three_board() -> Game:
    """Phase 3 of turn 1: two cards in the person's trade area (a Wax got for the drawn
    Black-eyed, the drawn Green), two in seat 2's (the Black-eyed and a gift), and a bean
    on each of the person's fields."""
    deck = ["blue", "chili", "wax", "soy", "red"]
    game = Game.new("classic", 4, seed=3, deck=[*deck, *["wax"] * 15, "black-eyed", "green"])
    game.apply(0, Action.plant(0))
    game.apply(0, Action.plant(1))
    drawn = list(game.drawn)
    game.apply(0, Action.propose(Offer(to=2, give=(drawn[0],), want=(("wax", 1),))))
    wax = next(c for c in game.hands[2] if game.config.variety_of(c) == "wax")
    game.apply(2, Action.accept(game.view(2).offers[-1].offer_id, (wax,)))
    game.apply(0, Action.propose(Offer(to=2, give=(game.hands[0][0],))))
    game.apply(2, Action.accept(game.view(2).offers[-1].offer_id))
    game.apply(0, Action.end_trading())
    return game


def seat_section(board: str) -> list[str]:
    """The board's seats, as printed: after the pile line, up to the person's cards."""
    lines = board.split("\n")
    pile = next(i for i, line in enumerate(lines) if line.startswith("Draw pile"))
    start = next(i for i in range(pile, len(lines)) if re.search(r"coins?\)$", lines[i])) + 1
    end = next(
        i for i in range(start, len(lines)) if lines[i].startswith(("Drawn cards:", "Your hand:"))
    )
    return lines[start:end]


def assert_seats_laid_out(board: str, width: int) -> None:
    """Every line of the seats fits and belongs to the layout: a row or block starts
    with the active mark or a space, the header's rule is one line no wider than the
    window; a line the screen wrapped again would start at the margin with a word."""
    seats = seat_section(board)
    assert seats
    for i, line in enumerate(seats):
        assert cell_len(line) <= width, line
        if set(line) == {"─"}:
            assert set(seats[i - 1]) != {"─"}, "the rule was wrapped"
        else:
            assert line[:1] in ("*", " "), (line, board)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_board_with_trade_areas_fits_the_window(width: int) -> None:
    # Issue 54 (5): at 50 columns the board broke once a trade-area column appeared (the
    # screen wrapped its rows: "Trade area", "Black-ey" / "ed" at the margin). Narrow
    # windows get a compact form, a block per seat.
    game = phase_three_board()
    term = Session(game, 0, "heuristic", first_option, width=width).term
    view = game.view(0)
    board = term.board(view)
    assert_seats_laid_out(board, width)
    text = flat(board)
    cfg = game.config
    for s in range(4):
        area = ", ".join(cfg.describe(c) for c in game.trade[s])
        if area:
            assert area in text, (area, board)
        assert f"{s} {term.names[s]}" in text
    if width >= 80:
        assert re.search(r"Trade area$", seat_section(board)[0]), board
    else:  # the compact form: a line per field, the trade area under them
        mine = ", ".join(cfg.describe(c) for c in game.trade[0])
        assert f"Trade area: {mine}" in text
        assert "Field 1: Blue x1 pays 0" in text
    own = term._own_side(view)
    assert all(cell_len(line) <= width for line in own.split("\n"))


@pytest.mark.parametrize("width", WIDTHS)
def test_final_scores_show_every_name_and_coin_count_whole(width: int) -> None:
    # Issue 54 (5): at 50 columns the scores were cut: "seat…  heurist…  17 coi…".
    game = Game.new("classic", 4, seed=9)
    names = ["you", "heuristic", "search:60ro:turn:trade:full", "autarky"]
    agents = [AutarkyAgent(), *(make_agent("autarky", agent_seed(9, s)) for s in (1, 2, 3))]
    play(game, agents)
    assert game.over
    lines: list[str] = []
    bots = {s: make_agent("autarky", agent_seed(9, s)) for s in (1, 2, 3)}
    term = TerminalGame(
        game,
        0,
        bots,
        read=lambda prompt: "q",
        write=lambda text: lines.extend(text.split("\n")),
        names={s: names[s] for s in (1, 2, 3)},
        width=width,
    )
    term._show_result()
    assert all(cell_len(line) <= width for line in lines), lines
    scores = flat("\n".join(lines)).split("Final scores")[1]
    assert "…" not in scores
    res = game.result()
    for s in range(4):
        hand = f"{_count(len(game.hands[s]), 'card')} in hand"
        assert f"seat {s} {names[s]} {_count(res['scores'][s], 'coin')} {hand}" in scores
