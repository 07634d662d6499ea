"""Play a whole game in the terminal against bots (``bohnanza play``).

The turn flow is the driver's (:class:`bohnanza.schedule.TradeScheduler`): whoever the
game waits for decides, and phase 2 runs in rounds (the active seat first, then every other seat once, each taking
one action or passing; a quiet round or ``max_trade_rounds`` rounds end trading). When the
person is the active player they trade for as long as they like and end trading
themselves; after each of their actions every bot is asked once, in seat order, so that
bots answer offers at once.

The person sees only their own :class:`~bohnanza.views.View` and events as
:meth:`~bohnanza.events.Event.for_seat` shows them to their seat (R-INFO-3): no other
seat's hand is ever printed. All text goes through two callables (``read`` and ``write``)
so that tests can drive a game without a terminal.

Output is laid out by Rich (:class:`Screen`): tables for the board and the scores, lines
wrapped at word boundaries to the terminal's width, colour only on a terminal (or when
``FORCE_COLOR`` asks for it), so that piped output stays plain text. Everything is laid
out for the window before Rich prints it (a table too wide for a narrow window becomes a
block per seat or a line per score, the help is flowed to the width), so that the screen
never wraps a laid-out line a second time. Long menus are
grouped: the ready-made offers sit behind one "more…" entry, by the cards given.
"""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import click
from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from . import coach, text
from .actions import Action, ActionType, Offer, shape_of
from .agents import make_agent
from .agents.base import Agent
from .cards import varieties
from .coins import choose_coins
from .driver import AgentError
from .errors import ConfigError, IllegalAction
from .game import OVER, PLANT, PLANT_TRADED, TRADE, Game, Pending
from .modules import module_info, module_names
from .records import make_record, save
from .refusals import explain, render
from .schedule import MAX_TRADE_ROUNDS, AskLoop, TradeScheduler
from .shapes import BASE_SHAPES, ParamKind
from .simulate import agent_seed, seat_record
from .text import event_note as module_event_note
from .text import event_text as module_event_text
from .views import OfferView, SeatView, View

_T = ActionType

#: The help (``?``): entries of a command and what it does, each laid out for the window
#: when it is shown (:meth:`TerminalGame.help_text`), so that the screen never wraps it a
#: second time. A body is paragraphs; a paragraph that is a tuple is a pair of examples'
#: columns (what to type, what it does).
HELP: tuple[tuple[str, tuple[str | tuple[str, str], ...]], ...] = (
    (
        "NUMBER",
        (
            'pick an action from the list; "more…" opens a shorter list (the ready-made '
            "offers, by the cards you give), 0 goes back from it",
        ),
    ),
    (
        "offer [SEAT] give POSITIONS [want VARIETY[:COUNT],...] [declare CLAIM,...]",
        (
            "propose a trade in phase 2, for example:",
            ("offer 2 give 1,3 want chili:1", "your cards 1 and 3 to seat 2 for 1 Chili"),
            ("offer 1 give d1", "a gift: drawn card d1 to seat 1"),
            ("offer want wax:2", "ask the active player for 2 Wax"),
            "POSITIONS are places in your hand (1 = front card) and, when you are the active "
            'player, the drawn cards d1, d2. Leave out "want" for a gift, leave out "give" to '
            "ask for cards only. SEAT may be left out when you are not the active player: then "
            "you can trade only with the active player (R-TRADE-2).",
            'VARIETY is a bean name as printed (prefixes work: "bl" is ambiguous, "blu" is '
            'Blue). "declare" names what you claim about each given card, where a module '
            "allows it (Fasolkopajaki colours).",
        ),
    ),
    (
        "accept 7 with 2,4 · decline 7 · withdraw 7 · end · plant 1 · stop · plant t1 2 · "
        "harvest 2 · buy",
        (
            "the other commands (bohnanza.text, the same language the language-model players "
            "use): fields are numbered from 1 as on the board, t1.. is your trade area; a "
            "number alone still picks from the list",
        ),
    ),
    ("p, pass", ("do nothing this round (phase 2, when you are not the active player)",)),
    ("hint", ("the search's three best actions, with the coins it expects of each",)),
    ("b", ("show the table again",)),
    ("?", ("this help",)),
    ("q", ("quit the game",)),
)

#: The help's paragraphs around the commands.
_HELP_HEAD = "How to play (type one of these at the prompt):"
_HELP_BEANS = "Beans in this game (beans on one field for 1, 2, 3, 4 coins):"
_HELP_TURN = (
    "A turn:",
    "(1) plant the front card of your hand (marked *), then optionally the next one; (2) two "
    "cards are turned over; the active player trades them and hand cards, the others trade "
    "hand cards with the active player only; received cards go to the trade area; (3) "
    "everybody plants their trade area; (4) the active player draws. A harvest pays the "
    "coins shown beside each field; a field with one bean is protected while you have a "
    "field with more (R-HARV-3). The game ends when the draw pile runs out for the last time.",
)

_PHASES: dict[str, str] = {
    PLANT: "phase 1: planting from the hand",
    TRADE: "phase 2: trading",
    PLANT_TRADED: "phase 3: planting traded cards",
    OVER: "game over",
}


def _phase_label(phase: str) -> str:
    """A phase in words: the base phases above, a module's from its ModuleInfo; other
    names are shown as they are."""
    label = _PHASES.get(phase)
    if label is not None:
        return label
    for name in module_names():
        labels = module_info(name).phase_labels
        if phase in labels:
            return labels[phase][0]
    return phase


def _source_label(source: str, default: str) -> str:
    """The words after a planted card for a module's pile (ModuleInfo.source_labels)."""
    for name in module_names():
        labels = module_info(name).source_labels
        if source in labels:
            return " " + labels[source][0]
    return default


# Menu order in phase 2: what most decisions are about first, ready-made offers last.
_TRADE_ORDER = {
    _T.END_TRADING: 0,
    _T.ACCEPT: 1,
    _T.DECLINE: 2,
    _T.WITHDRAW: 3,
    _T.HARVEST: 5,
    _T.BUY_FIELD: 6,
}


class _Quit(Exception):
    """The person typed ``q``."""


class _Pass:
    """The menu entry "do nothing this round"."""

    def __repr__(self) -> str:
        return "PASS"


class _Back:
    """The entry "0. back" of a sub-menu."""

    def __repr__(self) -> str:
        return "BACK"


PASS = _Pass()
BACK = _Back()


@dataclass(frozen=True)
class Submenu:
    """A menu entry that opens a menu of its own ("more…"): long lists of ready-made
    offers are grouped so that no menu shows dozens of lines at once."""

    label: str  #: the entry in the parent menu
    title: str  #: the heading of the sub-menu
    entries: tuple[Action | Submenu, ...]


MenuEntry = Action | _Pass | _Back | Submenu

#: Styles (shown only when colour is on).
_STYLE = {
    "turn": "bold cyan",
    "board": "bold",
    "me": "bold",
    "active": "bold yellow",
    "number": "bold cyan",
    "error": "red",
    "note": "yellow",
    "you": "green",
    "winner": "bold green",
    "dim": "dim",
}


class Screen:
    """Renders text and tables with Rich into strings for ``write``.

    Rich wraps at word boundaries (a word is split only when it alone is wider than the
    screen), lays tables out to the width, and emits escape codes only when ``colour``
    is on, so that tests and pipes read plain text. ``width=None`` follows the terminal
    (read again for every output, so that a resized window is used at once).
    """

    def __init__(self, write: Callable[[str], None], width: int | None, colour: bool) -> None:
        self.write = write
        self.fixed_width = width
        self.colour = colour
        self.console = Console(
            file=io.StringIO(),
            width=width or 80,
            force_terminal=colour,
            color_system="auto" if colour else None,
            highlight=False,
            markup=False,  # card kinds in brackets ("[lady,-]") are text, not markup
            emoji=False,
            soft_wrap=False,
        )

    @property
    def width(self) -> int:
        if self.fixed_width is not None:
            return self.fixed_width
        return max(40, shutil.get_terminal_size((80, 24)).columns)

    def render(self, *items: RenderableType) -> str:
        """``items`` one below the other, as the screen shows them (no final newline)."""
        width = self.width
        out: list[str] = []
        for item in items:
            if isinstance(item, Text) and not self.colour and _fits(item.plain, width):
                out.append(item.plain)  # what Rich prints for it, without the detour
                continue
            console = self.console
            console.width = width
            with console.capture() as capture:
                console.print(item)
            out.append(capture.get().rstrip("\n"))
        return "\n".join(line.rstrip() for line in "\n".join(out).split("\n"))

    def show(self, *items: RenderableType) -> None:
        self.write(self.render(*items))

    def wrap(self, text: str, width: int) -> list[str]:
        """``text`` in lines of at most ``width`` cells, broken at word boundaries."""
        if _fits(text, width):
            return text.split("\n")
        lines = Text(text).wrap(self.console, max(1, width))
        return [line.plain.rstrip() for line in lines]

    def hang(self, head: str, body: str, style: str = "") -> Text:
        """``head`` then ``body``; a body too long for one line wraps under itself
        (menus: "  12. ...", labels: "Your hand: ...")."""
        lines = [
            x for part in body.split("\n") for x in self.wrap(part, self.width - cell_len(head))
        ]
        pad = " " * cell_len(head)
        text = Text(head + lines[0] + "".join(f"\n{pad}{line}" for line in lines[1:]))
        if style:
            text.stylize(_STYLE.get(style, style), len(head))
        return text

    def fits(self, table: Table) -> bool:
        """``table`` fits the screen with no cell cut short: Rich would shorten a
        ``no_wrap`` cell ("heurist…") or wrap a cell to make a table fit."""
        options = self.console.options.update_width(10_000)
        return self.console.measure(table, options=options).maximum <= self.width

    def paragraph(self, text: str, indent: int) -> Text:
        """``text`` from the margin, its further lines indented by ``indent``: a line of the
        screen that starts at the margin always starts a paragraph."""
        lines = self.wrap(text, self.width)
        if len(lines) > 1:
            rest = self.wrap(" ".join(lines[1:]), self.width - indent)
            lines[1:] = [" " * indent + line for line in rest]
        return Text("\n".join(lines))

    def pack(self, head: str, items: Sequence[str], sep: str = "  ", style: str = "") -> Text:
        """``head`` then ``items`` (cards), as many to a line as fit, so that a card's name
        ("Fatty (man)") stays on one line; further lines go under the first item."""
        room = self.width - cell_len(head)
        lines: list[str] = []
        for item in items:
            if lines and cell_len(lines[-1] + sep + item) <= room:
                lines[-1] += sep + item
            else:
                lines += self.wrap(item.lstrip(), room)  # wider than the room: by words
        return self.hang(head, "\n".join(lines), style)

    def grid_width(
        self,
        header: Sequence[str],
        rows: Sequence[tuple[Sequence[str], str]],
        wrap: int | None = None,
    ) -> int:
        """The fewest columns :meth:`grid` needs for this table: every cell as wide as its
        longest line, but for column ``wrap`` (None: none), whose cells may be wrapped down
        to their longest word (never below its heading)."""
        table = [list(header), *(list(cells) for cells, _ in rows)]
        ncols = len(header)
        w = [
            max(cell_len(line) for row in table for line in row[j].split("\n"))
            for j in range(ncols)
        ]
        if wrap is not None:
            j = wrap % ncols
            words = [cell_len(x) for cells, _ in rows for x in cells[j].split()]
            w[j] = max([cell_len(header[j]), *words])
        return sum(w) + 2 * (ncols - 1)

    def grid(
        self,
        header: Sequence[str] | None,
        rows: Sequence[tuple[Sequence[str], str]],
        right: frozenset[int] = frozenset(),
        wrap: int = -1,
    ) -> Text:
        """Rows of cells in aligned columns (two spaces apart; ``right``: right-aligned
        columns), a rule under the ``header``; each row with its style. A cell may hold
        several lines. When the screen is too narrow, the cells of column ``wrap`` are
        wrapped at word boundaries to the room left. Laid out by hand, not by
        ``rich.table``: the board is shown for every decision, and a Rich table costs
        milliseconds each time (whole games in the tests)."""
        table = [list(header)] if header is not None else []
        table += [list(cells) for cells, _ in rows]
        ncols = len(table[0])
        wrap %= ncols

        def widths() -> list[int]:
            return [
                max(cell_len(line) for row in table for line in row[j].split("\n"))
                for j in range(ncols)
            ]

        w = widths()
        room = self.width - (sum(w) - w[wrap] + 2 * (ncols - 1))
        if w[wrap] > room:
            for row in table[1 if header is not None else 0 :]:
                row[wrap] = "\n".join(self.wrap(row[wrap], max(room, 8)))
            w = widths()
        out = Text()
        for i, row in enumerate(table):
            cells = [c.split("\n") for c in row]
            height = max(len(c) for c in cells)
            style = ""
            if i or header is None:
                style = rows[i - 1 if header is not None else i][1]
            for k in range(height):
                parts = []
                for j, c in enumerate(cells):
                    line = c[k] if k < len(c) else ""
                    pad = " " * (w[j] - cell_len(line))
                    parts.append(pad + line if j in right else line + pad)
                if out:
                    out.append("\n")
                out.append("  ".join(parts).rstrip(), style=_STYLE.get(style, style))
            if i == 0 and header is not None:
                out.append("\n" + "─" * (sum(w) + 2 * (ncols - 1)), style=_STYLE["dim"])
        return out

    def text(self, line: str, style: str = "") -> Text:
        return Text(line, style=_STYLE.get(style, style))


class BadInput(ValueError):
    """Input that cannot be understood; its message is shown and the prompt repeats."""


def run_terminal_game(
    rules: str,
    players: int,
    options: Mapping[str, str],
    bot_names: Sequence[str],
    seat: int,
    seed: int,
    record_path: str | None,
    *,
    max_trade_rounds: int = MAX_TRADE_ROUNDS,
) -> Game:
    """Play one game in the terminal: the person at ``seat``, bots (``bot_names``, in seat
    order) at the other seats. Input comes from stdin, output goes to stdout via click.
    The record is saved to ``record_path`` when the game ends (or the person quits)."""
    game = Game.new(rules, players, options=dict(options), seed=seed)
    others = [s for s in range(players) if s != seat]
    if len(bot_names) != len(others):
        raise ConfigError(f"{len(bot_names)} bots given for {len(others)} other seats")
    bots = {
        s: make_agent(name, agent_seed(seed, s)) for s, name in zip(others, bot_names, strict=True)
    }
    # Colour and the width come from the real terminal; Rich reads FORCE_COLOR, NO_COLOR
    # and TERM, so that a pipe gets plain text unless colour is forced.
    colour = Console().is_terminal
    session = TerminalGame(
        game,
        seat,
        bots,
        read=_click_read,
        write=lambda line: click.echo(line, color=colour),
        width=None,
        colour=colour,
        # "llm:MODEL@URL" is shown as "llm:MODEL" (the record keeps the whole spec).
        names={k: n.split("@")[0] for k, n in zip(others, bot_names, strict=True)},
        max_trade_rounds=max_trade_rounds,
    )
    try:
        session.play()
    except AgentError as exc:
        raise click.ClickException(f"a bot broke the rules: {exc}") from None
    finally:  # also when the person quits, input ends or a bot fails: the record so far
        if record_path:
            session.save_record(record_path)
    return game


def _click_read(prompt: str) -> str:
    try:
        return str(click.prompt(prompt, default="", show_default=False, prompt_suffix="> "))
    except click.Abort:
        raise EOFError from None


class TerminalGame:
    """One person against bots, with text in and out."""

    def __init__(
        self,
        game: Game,
        human: int,
        bots: Mapping[int, Agent],
        *,
        read: Callable[[str], str],
        write: Callable[[str], None],
        names: Mapping[int, str] | None = None,
        max_trade_rounds: int = MAX_TRADE_ROUNDS,
        width: int | None = 80,
        colour: bool = False,
    ) -> None:
        if set(bots) != set(range(game.players)) - {human}:
            raise ConfigError(f"need one bot for every seat but {human}")
        self.game = game
        self.human = human
        self.bots = dict(bots)
        #: Seat -> what the person and the record call it ("you" / the bot's agent name).
        self.names = {s: (names or {}).get(s, a.name) for s, a in self.bots.items()}
        self.names[human] = "you"
        self.read = read
        self.write = write
        self.screen = Screen(write, width, colour)
        self.max_trade_rounds = max_trade_rounds
        self.config = game.config
        self.log: list[tuple[int, Action]] = []
        self.menu: list[MenuEntry] = []
        #: The open sub-menus ("more…"), outermost first; empty: the decision's own menu.
        self.submenus: list[Submenu] = []
        self._top_menu: list[MenuEntry] = []
        self._board_stale = True
        self._board_key: tuple[int, str] | None = None  # (turn, phase) of the last board
        self._others_acted = False  # anybody but the person acted since then

    # ------------------------------------------------------------------ the game loop

    def play(self) -> bool:
        """Play until the game ends (True) or the person quits (False)."""
        g = self.game
        names = ", ".join(f"seat {s} {self.names[s]}" for s in sorted(self.bots))
        self.say(
            f"Bohnanza: {self.config.rules}, {g.players} players. "
            f"You are seat {self.human}; bots: {names}. Type ? for help."
        )
        if not g.over:
            self.say(self._turn_header(g.active, g.turn), "turn")
        # The person ends their own trading (asked every round, required). There is no
        # clock: a bot's trading ends when the bot (the active player, R-TRADE-6) ends it,
        # after a quiet round, or after ``max_trade_rounds`` rounds (this program's limit,
        # not a rule's).
        loop = AskLoop(g, TradeScheduler(self.max_trade_rounds, self_ending={self.human}))
        try:
            for ask in loop:
                forced = ask.forced
                if forced is not None:
                    self.say(self._trading_stops(loop.scheduler.rounds), "dim")
                    self._apply(ask.seat, forced)
                    continue
                loop.answered(self._decide(ask.seat, ask.required))
        except _Quit:
            self.say(f"You left the game in turn {g.turn}.")
            return False
        self._show_result()
        return True

    def say(self, line: str, style: str = "") -> None:
        """One line (or several) of text, wrapped at word boundaries."""
        self.screen.show(self.screen.text(line, style))

    def _trading_stops(self, rounds: int) -> str:
        """Why a bot's trading ends: the terminal has no clock, only rounds (the
        scheduler's quiet round or its round limit)."""
        if rounds >= self.max_trade_rounds:
            # No rule counts rounds (R-TRADE-6 leaves the end to the active player, or to a
            # table's timer): the limit is this program's, and is not given a rule's ID.
            return (
                f"Trading ends after {_count(self.max_trade_rounds, 'round')}: this program's "
                "limit on a bot's turn, not a rule of the game."
            )
        return "Nobody traded for a whole round, so trading ends (R-TRADE-6)."

    def _decide(self, seat: int, required: bool) -> bool:
        """Ask ``seat`` for one decision; False when it passes."""
        if seat == self.human:
            return self._human_decides(required)
        g = self.game
        bot = self.bots[seat]
        legal = g.legal_actions(seat, bot.wants_offers(g.turn))  # as the driver asks
        if not legal and not required:
            return False
        choice = bot.act(g.view(seat), legal, required)
        if choice is None:
            if required:
                raise AgentError(f"bot {bot!r} at seat {seat} must act but passed", seat=seat)
            return False
        try:
            self._apply(seat, choice)
        except IllegalAction as exc:
            raise AgentError(f"bot at seat {seat} chose {choice!r}: {exc}", seat=seat) from None
        return True

    def _apply(self, seat: int, action: Action) -> None:
        events = self.game.apply(seat, action)
        self.log.append((seat, action))
        self._board_stale = True
        if seat != self.human:
            self._others_acted = True
        for line in self._event_lines([e.for_seat(self.human) for e in events]):
            if line.startswith("\n──── Turn"):
                self.say(line, "turn")
            else:
                self.say(line, "you" if line.startswith("You ") else "")

    # ------------------------------------------------------------------ the person's decisions

    def _human_decides(self, required: bool) -> bool:
        g = self.game
        legal = g.legal_actions(self.human)
        if not legal and not required:
            return False
        if not legal:
            raise AgentError(f"seat {self.human} must act but has no legal action in {g!r}")
        view: View = g.view(self.human)
        if self._board_stale:
            # Several decisions of one phase in a row (phase 3 plants card after card):
            # the board is shown once; after the person's own moves only their side.
            key = (view.turn, view.phase)
            if key == self._board_key and not self._others_acted:
                self.write(self._own_side(view))
            else:
                self.write(self.board(view))
            self._board_key = key
            self._others_acted = False
            self._board_stale = False
        self.menu = self._top_menu = self._menu(view, legal, required)
        self.submenus = []
        self.write(self._menu_text(view))
        while True:
            back = ", 0 back" if self.submenus else ""
            line = self._ask(
                f"Your choice (1-{len(self.menu)}{back}, ? help, q quit)",
                f"Choice (1-{len(self.menu)}{back}, ?, q)",
            ).strip()
            try:
                entry = self._parse(line, view)
            except BadInput as exc:
                self.say(str(exc), "note")
                continue
            if entry is None:
                continue
            if isinstance(entry, (Submenu, _Back)):
                self._open(entry)
                self.write(self._menu_text(view))
                continue
            if isinstance(entry, _Pass):
                self.say("You pass.", "you")
                return False
            if entry.type is _T.BUY_FIELD and not entry.cards and view.treasury is not None:
                entry = self._ask_coins(view)
                if entry is None:
                    self.write(self._menu_text(view))
                    continue
            if not self._confirmed(entry, view, legal):
                self.say("Nothing harvested: choose again.", "note")
                continue
            try:
                self._apply(self.human, entry)
            except IllegalAction as exc:
                self.say(f"Not allowed: {self._refusal(entry, exc)}", "error")
                continue
            return True

    def _ask(self, prompt: str, short: str) -> str:
        """Read a line after ``prompt``, or after ``short`` where the prompt, its "> " and a
        short answer would not fit on one line of the window (a prompt is not wrapped)."""
        fits = cell_len(prompt) + len("> ") + 4 <= self.screen.width
        return self.read(prompt if fits else short)

    def _open(self, entry: Submenu | _Back) -> None:
        """Into a sub-menu, or back out of one."""
        if isinstance(entry, Submenu):
            self.submenus.append(entry)
        elif self.submenus:
            self.submenus.pop()
        self.menu = list(self.submenus[-1].entries) if self.submenus else self._top_menu

    def _confirmed(self, action: Action, view: View, legal: Sequence[Action]) -> bool:
        """A harvest that pays nothing throws the beans away: asked again (y/N) unless a
        harvest is all the person can do (R-PLANT-1: the front card needs a field). A
        harvest the rules forbid (a protected field, R-HARV-3) is not asked about: the
        engine refuses it at once, with its rule."""
        if action.type is not _T.HARVEST or action.field is None or action not in legal:
            return True  # not a harvest, or one the engine refuses with its rule (R-HARV-3)
        me = view.me()
        if not 0 <= action.field < len(me.fields) or me.payouts[action.field] > 0:
            return True  # the engine refuses a bad field with its own words
        if all(a.type is _T.HARVEST for a in legal) or self._gains_field(view, action):
            return True
        cards = self._field(me.fields[action.field])
        self.say(
            f"Field {action.field + 1} ({cards}) pays 0 coins: harvesting it now sends its "
            "beans to the discard pile for nothing.",
            "note",
        )
        answer = self.read("Harvest it anyway? (y/N)")  # a prompt is not wrapped: short
        return answer.strip().lower() in ("y", "yes")

    def _gains_field(self, view: View, action: Action) -> bool:
        """Whether the harvest brings a field instead of coins (R-FARM-1: exactly two
        Farmers give a free third field to a player without one, while the supply
        lasts): tried on a copy of the game, so the terminal need not know the rule."""
        seat = view.seat
        if seat is None:
            return False
        game = self.game.clone()
        before = len(game.fields[seat])
        try:
            game.apply(seat, action)
        except IllegalAction:
            return False
        return len(game.fields[seat]) > before

    def _ask_coins(self, view: View) -> Action | None:
        """Fasolufka (R-LADY-10): which three treasury coins pay for the field, in the order
        they go onto the discard pile. ``None``: the person changed their mind."""
        coins = view.treasury or ()
        price = self.config.field_price
        suggestion = choose_coins(view)
        self.say(
            "Your coins: "
            + "  ".join(f"{i + 1} {self._card(c)}" for i, c in enumerate(coins))
            + f"\nPick {price} of them, in the order they go onto the discard pile (the last "
            "ends on top, where the others see it), e.g. "
            + ",".join(str(i + 1) for i in range(price))
            + "."
        )
        hint = ",".join(str(coins.index(c) + 1) for c in suggestion)
        while True:
            line = (
                self._ask(f"Coins to pay (Enter: {hint}, c cancel)", f"Coins (Enter: {hint}, c)")
                .strip()
                .lower()
            )
            if line in ("c", "cancel"):
                return None
            if line in ("q", "quit", "exit"):
                raise _Quit
            if not line:
                return Action.buy_field(suggestion)
            try:
                return Action.buy_field(self._coins_at(line, coins, price))
            except BadInput as exc:
                self.say(str(exc), "note")

    @staticmethod
    def _coins_at(line: str, coins: Sequence[int], price: int) -> tuple[int, ...]:
        parts = line.replace(",", " ").split()
        if not all(p.isdigit() for p in parts):
            raise BadInput(f"Write {price} coin numbers, e.g. 1,2,3.")
        picks = [int(p) for p in parts]
        if len(picks) != price:
            raise BadInput(f"Pick exactly {price} coins, not {len(picks)}.")
        if len(set(picks)) != len(picks):
            raise BadInput("Each coin can pay only once.")
        bad = [k for k in picks if not 1 <= k <= len(coins)]
        if bad:
            raise BadInput(f"There is no coin {bad[0]}; you have {len(coins)}.")
        return tuple(coins[k - 1] for k in picks)

    def _parse(self, line: str, view: View) -> MenuEntry | None:
        """What the person typed: a menu entry, or None for "nothing to do, ask again"."""
        word = line.lower()
        if not word:
            return None
        if word in ("q", "quit", "exit"):
            raise _Quit
        if word in ("?", "h", "help"):
            self.write(self.help_text())
            return None
        if word == "hint":  # coach mode (issue 36): the search's three best, bohnanza.coach
            self.say("\n".join(coach.hint_lines(self.game, self.human, seed=self.game.turn)))
            return None
        if word in ("b", "board"):
            self.write(self.board(view))
            self.write(self._menu_text(view))
            return None
        if word in ("p", "pass"):
            if PASS in self.menu:
                return PASS
            raise BadInput("You cannot pass now: pick one of the numbered actions.")
        if word.split()[0] == "offer":
            return self.parse_offer(line, view)
        if text.is_command(word.split()[0]):
            try:
                action = text.parse_command(line, view)
            except text.CommandError as exc:
                raise BadInput(str(exc)) from None
            if action is None:  # "pass" was handled above
                raise BadInput("You cannot pass now: pick one of the numbered actions.")
            return action
        if word.isdigit():
            k = int(word)
            if 1 <= k <= len(self.menu):
                return self.menu[k - 1]
            if k == 0 and self.submenus:
                return BACK
            back = " (0: back)" if self.submenus else ""
            raise BadInput(
                f"There is no action {k}: type a number from 1 to {len(self.menu)}{back}."
            )
        raise BadInput(
            f"Unknown input {line!r}: type a number from 1 to {len(self.menu)}, "
            "an offer (see ?), ? for help or q to quit."
        )

    def parse_offer(self, line: str, view: View) -> Action:
        """``offer [SEAT] give 1,3 want chili:1 [declare red]`` → a propose action, read
        by the project's one command parser (:func:`bohnanza.text.parse_offer`)."""
        try:
            return Action.propose(text.parse_offer(line, view))
        except text.CommandError as exc:
            raise BadInput(str(exc)) from None

    # ------------------------------------------------------------------ the menu

    def _menu(self, view: View, legal: Sequence[Action], required: bool) -> list[MenuEntry]:
        entries: list[MenuEntry] = [] if required else [PASS]
        if view.phase == TRADE:
            legal = self._distinct(legal, view)
            main = [a for a in legal if a.type is not _T.PROPOSE]
            main.sort(key=lambda a: _TRADE_ORDER.get(a.type, 4))
            entries += main
            offers = [a for a in legal if a.type is _T.PROPOSE]
            if offers:
                entries.append(self._offers_menu(offers, view))
        else:
            # Equal choices (two received Chilis onto the same field, say) read the same:
            # one line each, the first of them stands for all.
            seen: set[str] = set()
            for a in legal:
                text = self.describe(a, view)
                if text not in seen:
                    seen.add(text)
                    entries.append(a)
        return entries

    def _distinct(self, legal: Sequence[Action], view: View) -> list[Action]:
        """``legal`` with every choice once: giving either of two equal cards (the same
        variety and kind) is one choice when it leaves the same hand behind, in the same
        order (R-TRADE-3: the rest of the hand keeps its order); the first stands for
        all. Equal cards whose giving leaves another order stay apart ("Red (hand 2)"
        and "Red (hand 5)" in Blue, Red, Red, Chili, Red), as that order is what gets
        planted next."""
        cfg = self.config
        hand = view.hand or ()

        def card(c: int) -> tuple[int, str]:
            return cfg.card_variety[c], cfg.card_kind[c]

        seen: set[tuple[Any, ...]] = set()
        out: list[Action] = []
        for a in legal:
            given = a.offer.give if a.offer is not None else a.cards
            if a.type not in (_T.PROPOSE, _T.ACCEPT) or not given:
                out.append(a)
                continue
            left = tuple(card(c) for c in hand if c not in given)
            drawn = tuple(sorted(card(c) for c in view.drawn if c not in given))
            bare = a._replace(cards=(), offer=a.offer._replace(give=()) if a.offer else None)
            key = (bare, tuple(card(c) for c in given), left, drawn)
            if key not in seen:
                seen.add(key)
                out.append(a)
        return out

    def _offers_menu(self, offers: Sequence[Action], view: View) -> Submenu:
        """The ready-made offers behind one "more…" entry: a sub-menu per cards given
        (skipped when there is only one), in it the terms and partners."""
        groups: dict[tuple[Any, ...], list[Action]] = {}
        for a in offers:
            assert a.offer is not None
            groups.setdefault((a.offer.give, a.offer.declared), []).append(a)
        partners = sorted({a.offer.to for a in offers if a.offer is not None})
        to = f" to {self._seat(partners[0])}" if len(partners) == 1 else ""
        subs = tuple(self._offer_group(group, view) for group in groups.values())
        label = f"more… {_count(len(offers), 'ready-made offer')}{to}, by the cards you give"
        title = f"Ready-made offers{to} (or type your own; ? shows how):"
        if len(subs) == 1:
            return Submenu(label, subs[0].title, subs[0].entries)
        return Submenu(label, title, subs)

    def _offer_group(self, offers: Sequence[Action], view: View) -> Submenu:
        """Offers of the same cards: by terms, then partner (the grid's reading order)."""
        terms: dict[str, int] = {}
        for a in offers:
            assert a.offer is not None
            terms.setdefault(self._terms(a.offer), len(terms))
        ordered = sorted(
            offers, key=lambda a: (terms[self._terms(a.offer)], a.offer.to) if a.offer else (0, 0)
        )
        first = ordered[0].offer
        assert first is not None
        give = self._give(first, view)
        partners = sorted({a.offer.to for a in offers if a.offer is not None})
        seats = f" (to seats {', '.join(str(p) for p in partners)})" if len(partners) > 1 else ""
        label = f"{give or 'ask for cards'}: {', '.join(terms)}{seats}"
        title = f"Offer {give}:" if give else "Ask for cards, giving nothing:"
        return Submenu(label, title, tuple(ordered))

    def _menu_text(self, view: View) -> str:
        """The current menu (the decision's own, or the open sub-menu) as it is shown."""
        scr = self.screen
        if self.submenus:
            head = self.submenus[-1].title
        else:
            you = (
                "you are the active player"
                if view.active == self.human
                else f"seat {view.active} is the active player"
            )
            head = f"Your decision ({_phase_label(view.phase)}; {you}):"
        number = _STYLE["number"] if scr.colour else ""
        grid = self._offer_grid(view)
        rows: list[tuple[str, str]] = []
        if grid is None:
            rows = [(f"{k}.", self.describe(e, view)) for k, e in enumerate(self.menu, start=1)]
        if self.submenus:
            rows.append(("0.", "back"))
        items: list[RenderableType] = [scr.text(head, "board")]
        if grid is not None:
            items.append(grid)
        # Indented by two spaces, the numbers right-aligned: "   1. ...", "  12. ...".
        width = max((len(k) for k, _ in rows), default=0)
        for k, words in rows:
            line = scr.hang(f"{' ' * (2 + width - len(k))}{k} ", words)
            line.stylize(number, 0, 3 + width)
            items.append(line)
        return scr.render(*items)

    def _offer_grid(self, view: View) -> Table | None:
        """An open group of ready-made offers to several partners, as a table: a row per
        terms, a column per partner, the menu numbers in the cells."""
        offers = [e.offer for e in self.menu if isinstance(e, Action) and e.offer is not None]
        if not self.submenus or len(offers) != len(self.menu):
            return None
        partners = sorted({o.to for o in offers})
        if len(partners) < 2:
            return None
        number = _STYLE["number"] if self.screen.colour else ""
        table = Table(box=None, padding=(0, 1), show_edge=False, header_style="")
        table.add_column("")
        for p in partners:
            table.add_column(f"to {self._seat(p)}", justify="right", no_wrap=True)
        cells: dict[str, dict[int, str]] = {}
        for k, o in enumerate(offers, start=1):
            cells.setdefault(self._terms(o), {})[o.to] = f"{k}."
        for terms, picks in cells.items():
            table.add_row("  " + terms, *(Text(picks.get(p, ""), style=number) for p in partners))
        if not self.screen.fits(table):
            return None  # too narrow for a column per partner: the offers as a list
        return table

    def describe(self, entry: MenuEntry, view: View) -> str:
        """One action in words, as seen by the person (only from their view)."""
        if isinstance(entry, _Pass):
            return "pass (do nothing this round)"
        if isinstance(entry, _Back):
            return "back"
        if isinstance(entry, Submenu):
            return entry.label
        a = entry
        t = a.type
        me = view.me()
        if t is _T.PLANT:
            assert view.hand and a.field is not None
            return (
                f"plant {self._card(view.hand[0])} (front card) on field {a.field + 1}"
                + self._onto(view, a.field)
            )
        if t is _T.STOP_PLANTING:
            nxt = f" ({self._card(view.hand[0])} stays in your hand)" if view.hand else ""
            return f"stop planting{nxt}: turn over the drawn cards"
        if t is _T.HARVEST:
            assert a.field is not None
            cards = me.fields[a.field]
            coins = me.payouts[a.field]
            return f"harvest field {a.field + 1} ({self._field(cards)} → {_count(coins, 'coin')})"
        if t is _T.BUY_FIELD:
            text = (
                f"buy a third field for {_count(self.config.field_price, 'coin')} "
                f"(you have {me.coins})"
            )
            if a.cards:
                paid = ", ".join(self._card(c) for c in a.cards)
                return f"{text}, paying {paid} (the last on top of the discard pile)"
            if view.treasury is not None:
                return f"{text}; you choose which"
            return text
        if t is _T.END_TRADING:
            if view.drawn:
                return f"end trading ({self._drawn_go(view.drawn)} to your trade area)"
            return "end trading"
        if t is _T.PROPOSE:
            assert a.offer is not None
            return f"offer {self._offer_terms(a.offer, view)} to {self._seat(a.offer.to)}"
        if t in (_T.ACCEPT, _T.DECLINE, _T.WITHDRAW):
            o = next((o for o in view.offers if o.offer_id == a.offer_id), None)
            if o is None:
                return f"{t.value} offer #{a.offer_id}"
            if t is _T.WITHDRAW:
                return (
                    f"withdraw your offer #{o.offer_id} to {self._seat(o.to)}: "
                    + self._offer_view_terms(o, mine=True)
                )
            get = self._given(o)
            if t is _T.DECLINE:
                kind = "gift" if o.is_gift and o.give else "offer"
                return f"decline {kind} #{o.offer_id} from seat {o.proposer} ({self._offer_view_terms(o)})"
            if o.is_gift:
                return f"accept gift #{o.offer_id} from seat {o.proposer}: you get {get}"
            gave = ", ".join(self._card(c, view) for c in a.cards)
            if not o.give:
                return f"accept request #{o.offer_id} from seat {o.proposer}: you give {gave}"
            return (
                f"accept offer #{o.offer_id} from seat {o.proposer}: you get {get}, you give {gave}"
            )
        if t is _T.PLANT_TRADED:
            assert a.card is not None and a.field is not None
            return (
                f"plant {self._card(a.card)} from your trade area on field {a.field + 1}"
                + self._onto(view, a.field)
            )
        if t.value not in BASE_SHAPES:  # a module's own action: told from its shape
            return self._shaped(a, view)
        return repr(a)

    def _drawn_go(self, drawn: Sequence[int]) -> str:
        """The drawn cards and the verb that agrees with them: "the drawn Soy goes", "the
        drawn Soy and Wax go", "both drawn Chili cards go" (a bean's name has no plural of
        its own: "Black-eyed")."""
        names = [self._card(c) for c in drawn]
        if len(names) == 1:
            return f"the drawn {names[0]} goes"
        if len(set(names)) == 1:
            many = "both" if len(names) == 2 else f"all {len(names)}"
            return f"{many} drawn {names[0]} cards go"
        return f"the drawn {', '.join(names[:-1])} and {names[-1]} go"

    def _shaped(self, a: Action, view: View) -> str:
        """A module's action in words, from its shape: its label, then every argument
        (a card by name, and by place where the place tells equal cards apart; a field
        with what it holds), so that two different choices never read the same."""
        shape = shape_of(a.type)
        own = module_info(view.config.module).action_labels.get(a.type.value)
        words = [own[0] if own else shape.label[0]]  # a ModuleInfo label wins
        me = view.me()
        for p in shape.params:
            value = getattr(a, p.fills)
            kind = p.kind
            if value is None:
                if p.optional:
                    words = (
                        [p.none_label[0]] if len(shape.params) == 1 else [*words, p.none_label[0]]
                    )
                continue
            if kind is ParamKind.FIELD:
                words.append(f"on field {value + 1}{self._onto(view, value)}")
            elif kind is ParamKind.FIELD_CARD:
                where = next(((i, f) for i, f in enumerate(me.fields) if value in f), None)
                text = self._card(value)
                if where is not None:
                    i, f = where
                    text += (
                        f" (card {f.index(value) + 1} of {len(f)} on field {i + 1}, counted "
                        "from the bottom)"
                    )
                words.append(text)
            elif kind in (ParamKind.HAND_CARD, ParamKind.CARD):
                words.append(self._card(value, view))
            elif kind in (ParamKind.PILE_CARD, ParamKind.TRADE_CARD, ParamKind.PENDING_CARD):
                words.append(self._card(value))
            elif kind is ParamKind.SEAT:
                words.append(self._seat(value))
            elif kind is ParamKind.OFFER_ID:
                words.append(f"offer #{value}")
            elif kind in (ParamKind.COINS, ParamKind.PAYMENT) and value:
                words.append("paying " + ", ".join(self._card(c) for c in value))
        if len(words) > 1 and words[0] == (own[0] if own else shape.label[0]):
            return f"{words[0]}: {' '.join(words[1:])}"
        return " ".join(words)

    def _shaped_event(
        self, t: str, e: Mapping[str, Any], seat: int | None, who: Callable[[int | None, str], str]
    ) -> str | None:
        """An event named after a module's own action, told from the action's shape:
        "Seat 2 discards Chili from the offer". None for other events."""
        try:
            shape = shape_of(t)
        except KeyError:
            return None
        card = e.get("card")
        label = shape.label[0]
        optional = next((p for p in shape.params if p.optional), None)
        if card is None and optional is not None:
            label = optional.none_label[0]
        verb, _, rest = label.partition(" ")
        out = who(seat, verb) + (f" {rest}" if rest else "")
        if isinstance(card, int):
            out += f" {self._card(card)}"
        field = e.get("field")
        if isinstance(field, int) and shape.param("field") is not None:
            out += f" on field {field + 1}"
        source = e.get("source")
        if isinstance(source, str) and source != "hand":
            out += _source_label(source, f" from the {source.replace('_', ' ')}")
        return out

    def _onto(self, view: View, field: int) -> str:
        cards = view.me().fields[field]
        return f" (now {self._field(cards)})" if cards else " (empty)"

    # ------------------------------------------------------------------ words for things

    def _refusal(self, action: Action, exc: IllegalAction) -> str:
        """Why the engine refused the person's ``action``: the refusing rule's reason
        (its code and numbers, :mod:`bohnanza.refusals`), worded as the board words
        seats, varieties and phases."""
        reason = explain(action, exc)
        words = {k: self._name(k) for k in self.config.varieties}
        return render(reason, "en", seat_name=self._seat, words=words)

    def _seat(self, seat: int, capital: bool = False) -> str:
        if seat == self.human:
            return "You" if capital else "you"
        return f"{'Seat' if capital else 'seat'} {seat}"

    def _verb(self, seat: int | None, verb: str) -> str:
        """``"Seat 2 plants"`` / ``"You plant"``."""
        if seat is None:
            return verb
        if seat == self.human:
            return f"You {verb}"
        if verb.endswith(("s", "sh", "ch", "x")):
            return f"Seat {seat} {verb}es"
        if verb.endswith("y") and verb[-2:] not in ("ay", "ey", "oy", "uy"):
            return f"Seat {seat} {verb[:-1]}ies"
        return f"Seat {seat} {verb}s"

    def _name(self, key: str) -> str:
        v = varieties().get(key)
        return v.name if v is not None else key

    def _card(self, card: int, view: View | None = None) -> str:
        """A card's name; with ``view``, its place in the person's hand or the drawn cards."""
        text = self.config.describe(card)
        if view is not None:
            hand = view.hand or ()
            if card in hand:
                return f"{text} (hand {hand.index(card) + 1})"
            if card in view.drawn:
                return f"{text} (d{view.drawn.index(card) + 1})"
        return text

    def _shown(self, card: int | None, shown: Mapping[str, Any]) -> str:
        """A card of an offer: by id when visible, else by what its owner shows of it."""
        text = (
            self.config.describe(card)
            if card is not None
            else self._name(str(shown.get("variety", "?")))
        )
        if card is None and shown.get("kind"):
            text += f" ({shown['kind']})"
        if shown.get("declared"):
            text += f" (declared {shown['declared']})"
        return text

    def _field(self, cards: Sequence[int]) -> str:
        if not cards:
            return "empty"
        text = f"{self.config.describe(cards[-1]).split(' (')[0]} x{len(cards)}"
        kinds = [self.config.card_kind[c] for c in cards]
        if any(kinds):
            text += " [" + ",".join(k or "-" for k in kinds) + "]"
        return text

    def _want(self, want: Sequence[Sequence[Any]]) -> str:
        return ", ".join(f"{n} {self._name(str(v))}" for v, n in want)

    def _give(self, offer: Offer, view: View) -> str:
        """The cards an offer gives, by their places in the hand or the drawn cards."""
        decl = offer.declared or (None,) * len(offer.give)
        return ", ".join(
            self._card(c, view) + (f" declared {d}" if d else "")
            for c, d in zip(offer.give, decl, strict=True)
        )

    def _terms(self, offer: Offer) -> str:
        """What an offer asks in return: "as a gift" or "for 1 Chili"."""
        return f"for {self._want(offer.want)}" if offer.want else "as a gift"

    def _offer_terms(self, offer: Offer, view: View) -> str:
        give = self._give(offer, view)
        if not give:
            return f"a request for {self._want(offer.want)}"
        return f"{give} {self._terms(offer)}"

    def _given(self, o: OfferView) -> str:
        return (
            ", ".join(self._shown(c, s) for c, s in zip(o.give, o.shown, strict=True)) or "nothing"
        )

    def _offer_view_terms(self, o: OfferView, mine: bool = False) -> str:
        you, they = ("you give", "you want") if mine else ("you get", "you give")
        parts = []
        if o.give:
            parts.append(f"{you} {self._given(o)}")
        if o.want:
            parts.append(f"{they} {self._want(o.want)}")
        return ", ".join(parts) + (" (a gift)" if o.is_gift else "")

    def _turn_header(self, seat: int, turn: int) -> str:
        whose = "your turn" if seat == self.human else f"seat {seat} ({self.names[seat]})"
        return f"\n──── Turn {turn}: {whose} ────"

    # ------------------------------------------------------------------ the table

    def _seats_table(self, view: View, seats: Sequence[int]) -> Text:
        """The public side of ``seats`` (R-INFO-1), a row each: a column per field when
        that fits the screen, else the fields one below the other in one column (so that
        a field never wraps in the middle); a long trade area wraps at word boundaries.
        When even that is too wide (a trade area beside the fields needs about 60
        columns), a block per seat (:meth:`_seat_blocks`): a table that does not fit is
        wrapped by the screen into pieces at the margin."""
        shown = [view.seats[s] for s in seats]
        fields = max(len(s.fields) for s in shown)
        trade = any(s.trade_area for s in shown)
        header = ["", "Seat", "Coins", "Hand"]
        rows: list[tuple[list[str], str]] = []
        for s in shown:
            cells = [
                "*" if s.seat == view.active else "",
                f"{s.seat} {self.names[s.seat]}",
                str(s.coins),
                str(s.hand_size),
            ]
            texts = [
                f"{self._field(f)} pays {p}" if f else "empty"
                for f, p in zip(s.fields, s.payouts, strict=True)
            ]
            cells += texts + [""] * (fields - len(texts))  # "": no third field (yet)
            if trade:
                cells.append(", ".join(self._card(c) for c in s.trade_area))
            rows.append((cells, "me" if s.seat == self.human else ""))
        header += [f"Field {i + 1}" for i in range(fields)] + (["Trade area"] if trade else [])
        scr = self.screen
        if scr.grid_width(header, rows) > scr.width:
            header[4 : 4 + fields] = ["Fields"]
            for cells, _ in rows:
                cells[4 : 4 + fields] = [
                    "\n".join(f"{i + 1}: {t}" for i, t in enumerate(cells[4 : 4 + fields]) if t)
                ]
            if scr.grid_width(header, rows, wrap=-1) > scr.width:
                return self._seat_blocks(view, shown)
        return scr.grid(header, rows, right=frozenset({2, 3}))

    def _seat_blocks(self, view: View, shown: Sequence[SeatView]) -> Text:
        """The seats for a narrow window: a line per seat (the active one marked *, as in
        the table), under it a line per field and the trade area, wrapped under their
        labels; a name or a count is never cut short."""
        scr = self.screen
        out = Text()
        for s in shown:
            mark = "*" if s.seat == view.active else " "
            about = [f"{s.seat} {self.names[s.seat]}", _count(s.coins, "coin")]
            lines = [scr.pack(f"{mark}  ", [*about, f"{_count(s.hand_size, 'card')} in hand"])]
            for i, (f, p) in enumerate(zip(s.fields, s.payouts, strict=True)):
                what = f"{self._field(f)} pays {p}" if f else "empty"
                lines.append(scr.hang(f"     Field {i + 1}: ", what))
            if s.trade_area:
                cards = [self._card(c) for c in s.trade_area]
                commas = [f"{c}," for c in cards[:-1]] + cards[-1:]
                lines.append(scr.pack("     Trade area: ", commas, " "))
            block = Text("\n").join(lines)
            if s.seat == self.human:
                block.stylize(_STYLE["me"])
            if out:
                out.append("\n")
            out.append_text(block)
        return out

    def _own_side(self, view: View) -> str:
        """The person's own side (after their own move; b shows the whole board)."""
        return self.screen.render(
            Text(""), self._seats_table(view, [self.human]), *self._cards_lines(view)
        )

    def _cards_lines(self, view: View) -> list[Text]:
        """The drawn cards and the person's hand, each after its label (a long hand wraps
        under itself)."""
        rows: list[tuple[str, list[str]]] = []
        if view.drawn:
            rows.append(
                ("Drawn cards: ", [f"d{i + 1} {self._card(c)}" for i, c in enumerate(view.drawn)])
            )
        hand = view.hand or ()
        if hand:
            cards = [f"{i + 1} {self._card(c)}{'*' if i == 0 else ''}" for i, c in enumerate(hand)]
            rows.append(("Your hand: ", [*cards, " (* front card, planted next)"]))
        else:
            rows.append(("Your hand: ", ["empty"]))
        if view.treasury:  # fasolufka: one's own coins are known (R-LADY-10)
            coins = [self._card(c) for c in view.treasury]
            rows.append(("Your coins: ", [f"{c}," for c in coins[:-1]] + coins[-1:]))
        return [
            self.screen.pack(label, cards, " " if label == "Your coins: " else "  ", "me")
            for label, cards in rows
        ]

    def board(self, view: View) -> str:
        """The table as the person may see it (R-INFO-1/2)."""
        cfg = self.config
        scr = self.screen
        whose = "your turn" if view.active == self.human else f"seat {view.active} is active"
        items: list[RenderableType] = [
            scr.text(f"\n== Turn {view.turn} · {whose} · {_phase_label(view.phase)} ==", "board")
        ]
        top = f" (top: {self._card(view.discard_top)})" if view.discard_top is not None else ""
        runouts = f"run-outs {view.runouts} of {cfg.runouts_to_end}"
        if view.final_runout:
            runouts += " (final: the game ends this turn)"
        items.append(
            scr.text(
                f"Draw pile {view.draw_size} · discard pile {view.discard_size}{top} · "
                f"{runouts} · third fields left {view.third_fields_left} "
                f"({_count(cfg.field_price, 'coin')})"
            )
        )
        items.append(self._seats_table(view, [s.seat for s in view.seats]))
        items += self._cards_lines(view)
        lines = []
        if view.offers:
            lines.append("Open offers:")
            for o in view.offers:
                if o.proposer == self.human:
                    lines.append(
                        f"  #{o.offer_id} yours to {self._seat(o.to)}: "
                        + self._offer_view_terms(o, mine=True)
                    )
                elif o.to == self.human:
                    lines.append(
                        f"  #{o.offer_id} from seat {o.proposer} to you: "
                        + self._offer_view_terms(o)
                    )
                else:
                    wants = f", wants {self._want(o.want)}" if o.want else " (a gift)"
                    lines.append(
                        f"  #{o.offer_id} seat {o.proposer} to seat {o.to}: gives "
                        f"{self._given(o)}{wants}"
                    )
        if view.pending is not None:
            lines.append(self._pending(view.pending, view))
        for key, value in view.public.items():
            if isinstance(value, list) and all(isinstance(c, int) for c in value):
                value = ", ".join(self._card(c) for c in value) or "none"
            lines.append(f"{key.replace('_', ' ').capitalize()}: {value}")
        items += [scr.text(line) for line in lines]
        return scr.render(*items)

    def _pending(self, pending: Pending, view: View) -> str:
        """An indivisible decision the game waits for, in the words of the text
        interface (:func:`bohnanza.text.pending_text`: the answering action's help)."""
        return f"Waiting for {self._seat(pending.seat)} to {text.pending_text(view, pending)}"

    def help_text(self) -> str:
        """The help (``?``) laid out for the window once: commands in a column, what they
        do beside them on a wide window and under them on a narrow one, the examples'
        columns side by side where they fit; only a paragraph's first line starts at the
        margin. (Written out for about 90 columns, the help used to be wrapped a second
        time by an 80-column screen: "…when you are" / "the".)"""
        scr = self.screen
        width = scr.width
        col = 14 if width >= 60 else 6  # where what a command does starts
        examples = [p for _, body in HELP for p in body if isinstance(p, tuple)]
        cmd = max(cell_len(c) for c, _ in examples)
        items: list[Text] = [scr.paragraph(_HELP_HEAD, 2)]
        for term, body in HELP:
            paragraphs = list(body)
            if cell_len(term) + 4 <= col:  # "  NUMBER      pick an action…"
                first = paragraphs.pop(0)
                assert isinstance(first, str)
                items.append(scr.hang(f"  {term}".ljust(col), first))
            else:
                items.append(Text(self._help_term(term, width)))
            for p in paragraphs:
                if isinstance(p, str):
                    items.append(scr.hang(" " * col, p))
                elif col + 2 + cmd + 2 + 16 <= width:  # the example, then what it does
                    items.append(scr.hang(" " * (col + 2) + p[0].ljust(cmd + 2), p[1]))
                else:  # what it does under it
                    items.append(scr.hang(" " * (col + 2), p[0]))
                    items.append(scr.hang(" " * (col + 4), p[1]))
        items.append(scr.hang(_HELP_TURN[0] + " ", _HELP_TURN[1]))
        items.append(scr.paragraph(_HELP_BEANS, 2))
        for k in self.config.varieties:
            v = varieties()[k]
            steps = "/".join(str(b) if b else "-" for b in v.beanometer)
            items.append(Text(f"  {v.name:<14} {steps}"))
        return scr.render(*items)

    def _help_term(self, term: str, width: int) -> str:
        """A command of the help too long for its column, on lines of its own: commands
        (" · " between them) kept whole where they fit, continued lines indented."""
        room = width - 6  # indented by 4 at most, ending in " ·"
        lines: list[str] = []
        for item in term.split(" · "):
            if lines and cell_len(lines[-1] + " · " + item) <= room:
                lines[-1] += " · " + item
            elif lines:
                lines[-1] += " ·"
                lines += self.screen.wrap(item, room)
            else:
                lines += self.screen.wrap(item, room)
        return "\n".join(("  " if i == 0 else "    ") + line for i, line in enumerate(lines))

    # ------------------------------------------------------------------ events

    def _event_lines(self, events: Sequence[dict[str, Any]]) -> list[str]:
        """Events (already filtered for the person's seat) in words. A run of draws by one
        seat, or of offers cancelled for one reason, is told in one line."""

        def key(item: tuple[int, dict[str, Any]]) -> tuple[Any, ...]:
            i, e = item
            if e["type"] == "draw":
                return ("draw", e.get("seat"))
            if e["type"] == "offer_cancelled":
                return ("offer_cancelled", e.get("reason"))
            return ("one", i)

        out: list[str] = []
        for (kind, what), group in groupby(enumerate(events), key):
            batch = [e for _, e in group]
            if kind == "draw":
                seat = int(what)
                if seat == self.human:
                    names = (self._card(int(e["card"])) if "card" in e else "a card" for e in batch)
                    out.append("You draw " + ", ".join(names))
                else:
                    out.append(f"Seat {seat} draws {_count(len(batch), 'card')}")
            elif kind == "offer_cancelled":
                ids = ", ".join(f"#{e['offer_id']}" for e in batch)
                which = "Offer" if len(batch) == 1 else "Offers"
                out.append(f"{which} {ids} {'is' if len(batch) == 1 else 'are'} cancelled ({what})")
            else:
                text = self.event_text(batch[0])
                if text:
                    out.append(text)
        return out

    def event_text(self, e: Mapping[str, Any]) -> str | None:
        """One event as the person reads it (``e`` as :meth:`Event.for_seat` gives it)."""
        t = str(e["type"])
        seat: int | None = e.get("seat")
        who = self._verb
        if t == "turn":
            return self._turn_header(int(e["seat"]), int(e["turn"]))
        if t == "plant":
            src = " from the trade area" if e.get("traded") else ""
            src = _source_label(str(e.get("source")), src)
            return f"{who(seat, 'plant')} {self._card(int(e['card']))}{src} on field {int(e['field']) + 1}"
        if t == "stop_planting":
            return f"{who(seat, 'stop')} planting"
        if t == "turn_over":
            return f"{who(seat, 'turn')} over {self._card(int(e['card']))}"
        if t == "harvest":
            cards = [int(c) for c in e["cards"]]
            coins = int(e["coins"])
            final = " (final harvest)" if e.get("final") else ""
            # What the module adds (a free third field, R-FARM-1): ModuleInfo.event_notes.
            note = module_event_note(
                self.config,
                e,
                who=self._seat(seat, True) if seat is not None else None,
                card=self._card,
                you=seat is not None and seat == self.human,
            )
            extra = f" {note}" if note else ""
            return (
                f"{who(seat, 'harvest')} field {int(e['field']) + 1}{final}: {self._field(cards)} → "
                + _count(coins, "coin")
                + extra
            )
        if t == "buy_field":
            text = f"{who(seat, 'buy')} a third field for {_count(int(e['price']), 'coin')}"
            if e.get("cards"):  # fasolufka: the chosen coins, now face up (R-LADY-10)
                paid = ", ".join(self._card(int(c)) for c in e["cards"])
                text += f", discarding {paid} (the last on top)"
            return text
        if t == "offer":
            give = [self._shown(g.get("card"), g) for g in e.get("give", [])]
            if "give_cards" in e:  # one's own offer: the cards are known
                give = [self._card(int(c)) for c in e["give_cards"]]
            want = self._want(e.get("want", []))
            to = self._seat(int(e["to"]))
            if not give:
                terms = f"{to} for {want}"
            elif not want:
                terms = f"{to} {', '.join(give)} as a gift"
            else:
                terms = f"{to} {', '.join(give)} for {want}"
            verb = "ask" if not give else "offer"
            return f"{who(seat, verb)} {terms} (offer #{e['offer_id']})"
        if t == "trade":
            assert seat is not None
            p = int(e["proposer"])
            gave = ", ".join(self._card(int(c)) for c in e.get("gave", [])) or "nothing"
            got = ", ".join(self._card(int(c)) for c in e.get("got", [])) or "nothing"
            return (
                f"{who(seat, 'accept')} offer #{e['offer_id']} from {self._seat(p)}: "
                f"{self._seat(seat)} {'get' if seat == self.human else 'gets'} {gave}, "
                f"{self._seat(p)} {'get' if p == self.human else 'gets'} {got}"
            )
        if t == "decline":
            return f"{who(seat, 'decline')} offer #{e['offer_id']} from {self._seat(int(e['proposer']))}"
        if t == "withdraw":
            return f"{who(seat, 'withdraw')} offer #{e['offer_id']}"
        if t == "offer_cancelled":
            return f"Offer #{e['offer_id']} is cancelled ({e.get('reason', '')})"
        if t == "end_trading":
            return f"{who(seat, 'end')} trading"
        if t == "keep_drawn":
            kept = ", ".join(self._card(int(c)) for c in e["cards"])
            return f"{who(seat, 'keep')} the drawn {kept} (to the trade area)"
        if t == "reshuffle":
            return f"The discard pile is shuffled into a new draw pile of {e['cards']} cards"
        if t == "runout":
            text = f"The draw pile runs out (run-out {e['count']} of {self.config.runouts_to_end})"
            if e.get("final"):
                text += ": the final run-out, the game is ending"
            return text
        if t == "discard_unplanted":
            gone = ", ".join(self._card(int(c)) for c in e["cards"])
            return f"Unplanted cards are discarded: {gone}"
        if t == "game_over":
            return None  # the result is printed in full afterwards
        # A module's own event, worded by its module (ModuleInfo.event_labels).
        told = module_event_text(
            self.config,
            e,
            who=self._seat(seat, True) if seat is not None else None,
            card=self._card,
            you=seat is not None and seat == self.human,
        )
        if told is not None:
            return told
        if t not in BASE_SHAPES:
            told = self._shaped_event(t, e, seat, who)
            if told is not None:
                return told
        bits = []
        for k, v in e.items():
            if k in ("type", "seat"):
                continue
            if k == "card" and isinstance(v, int):
                v = self._card(v)
            elif k == "cards" and isinstance(v, list):
                v = ", ".join(self._card(int(c)) for c in v)
            bits.append(f"{k}={v}")
        head = f"{self._seat(seat, True)}: " if seat is not None else ""
        return f"{head}{t.replace('_', ' ')} {' '.join(bits)}".strip()

    # ------------------------------------------------------------------ the end

    def _show_result(self) -> None:
        g = self.game
        res = g.result()
        scr = self.screen
        order = sorted(range(g.players), key=lambda s: (-res["scores"][s], -len(g.hands[s]), s))
        rows = [
            (
                f"  seat {s}",
                self.names[s],
                _count(res["scores"][s], "coin"),
                f"{_count(len(g.hands[s]), 'card')} in hand",
                "winner" if s in res["winners"] else "",
            )
            for s in order
        ]
        table = Table.grid(padding=(0, 2))
        table.add_column(no_wrap=True)  # "  seat 0"
        table.add_column(no_wrap=True)  # who
        table.add_column(justify="right", no_wrap=True)  # coins
        table.add_column(no_wrap=True)  # cards in hand
        table.add_column(no_wrap=True, style=_STYLE["winner"] if scr.colour else "")
        for s, row in zip(order, rows, strict=True):
            me = s == self.human and scr.colour
            table.add_row(*row, style=_STYLE["me"] if me else "")
        scores: RenderableType = table
        if not scr.fits(table):
            # Too narrow for the table (Rich would cut "heuristic" to "heurist…"): a seat
            # per line, its name and counts kept whole, wrapped under the seat.
            scores = Text("\n").join(
                scr.pack(
                    row[0] + "  ", [x for x in row[1:] if x], style="me" if s == self.human else ""
                )
                for s, row in zip(order, rows, strict=True)
            )
        scr.show(
            scr.text(f"\n==== Game over after {res['turns']} turns. Final scores ====", "turn"),
            scores,
        )
        winners = res["winners"]
        if self.human in winners:
            self.say("You win!" if len(winners) == 1 else "You share the win!", "winner")
        else:
            self.say(
                "Winner"
                + ("s" if len(winners) > 1 else "")
                + ": "
                + ", ".join(f"seat {s} ({self.names[s]})" for s in winners)
            )
        # Only now: the seed gives away the whole deck.
        self.say(f"Seed {g.seed} (play this deal again with --seed {g.seed}).")

    def record(self) -> dict[str, Any]:
        seats = [
            {"agent": "human"} if s == self.human else seat_record(self.names[s], self.bots[s])
            for s in range(self.game.players)
        ]
        return make_record(self.game, self.log, seats)

    def save_record(self, path: str) -> None:
        try:
            save(self.record(), path)
        except OSError as exc:
            raise click.ClickException(f"cannot save the record to {path}: {exc}") from None
        what = "Record" if self.game.over else "Record of the unfinished game"
        self.write(f"{what} saved to {path}")  # unwrapped: a path is copied whole


def _fits(text: str, width: int) -> bool:
    """Every line of ``text`` fits in ``width`` cells (and holds no tab to expand)."""
    return "\t" not in text and all(cell_len(line) <= width for line in text.split("\n"))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


__all__ = [
    "BACK",
    "HELP",
    "PASS",
    "BadInput",
    "Screen",
    "Submenu",
    "TerminalGame",
    "run_terminal_game",
]
