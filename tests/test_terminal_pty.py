"""``bohnanza play`` in a real pseudo-terminal at 40, 50, 80 and 120 columns (issue 54).

The other terminal tests drive :class:`~bohnanza.terminal.TerminalGame` with a fixed
width; here the game runs as a user starts it, in its own process, on a pty whose window
size is set with ``TIOCSWINSZ``: the width is the one the program reads from the terminal
(``COLUMNS`` is removed), the output is coloured as on a terminal, and every answer is
typed after its prompt and echoed by the terminal, as a person's would be. A whole game
is played against heuristic bots (help, the board, the ready-made offers' grid, the final
scores) and what the window shows is checked: no line wider than the window, no word
split or cut short, the board's seats laid out rather than wrapped by the screen, every
name and coin count whole in the final scores.

POSIX only (``pty``, ``termios``).
"""

from __future__ import annotations

import json
import os
import re
import select
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.cells import cell_len

from bohnanza.terminal import _count
from test_terminal import assert_laid_out_once, assert_seats_laid_out, flat

pty = pytest.importorskip("pty")
termios = pytest.importorskip("termios")
fcntl = pytest.importorskip("fcntl")

# One worker runs them all (pytest-xdist): the five games are played once, in the
# module's fixture, not once per worker that draws one of the tests.
pytestmark = pytest.mark.xdist_group("terminal_pty")

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
PROMPT = re.compile(r"\)> ")  # "Your choice (1-4, ? help, q quit)> ", "(y/N)> "
SEED = 54
WIDE = 1000

Answer = Callable[[str], str]


def run_in_pty(columns: int, answer: Answer, record: Path, timeout: float = 120.0) -> str:
    """Play ``bohnanza play`` on a pty ``columns`` wide, typing ``answer(the end of the
    screen so far)`` at every prompt; the screen's text (colour codes removed, ``\\r\\n``
    as ``\\n``). The record is saved as ``record`` (its name alone on the screen)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    env["TERM"] = "xterm-256color"
    args = ["play", "--seed", str(SEED), "--bots", "heuristic", "--record", record.name]
    proc = subprocess.Popen(
        [sys.executable, "-m", "bohnanza", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=record.parent,
        close_fds=True,
        start_new_session=True,
    )
    os.close(slave)
    raw = bytearray()
    deadline = time.monotonic() + timeout
    answered = 0  # the screen's length when the last answer was typed
    try:
        while True:
            assert time.monotonic() < deadline, "the game did not end in time"
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the program has ended and closed the terminal
                    break
                if not chunk:
                    break
                raw += chunk
            elif proc.poll() is not None:
                break
            if len(raw) > answered and raw.endswith(b"> "):  # a new prompt waits
                answered = len(raw)
                os.write(master, answer(screen_text(raw[-20_000:])).encode() + b"\n")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        os.close(master)
    assert proc.returncode == 0, screen_text(raw)[-3000:]
    return screen_text(raw)


def screen_text(raw: bytes | bytearray) -> str:
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "")
    return ANSI.sub("", text)


def last_menu(screen: str) -> list[str]:
    """The lines of the menu shown last (from its heading to the prompt)."""
    lines = screen.split("\n")
    start = max(
        i
        for i, line in enumerate(lines)
        if line.startswith(("Your decision", "Ready-made", "Offer "))
    )
    return lines[start:]


class Person:
    """Help, the board, then in the person's first trading the ready-made offers: "more…",
    a group (the grid of partners), back twice; otherwise the first choice."""

    def __init__(self) -> None:
        self.steps = ["?", "b"]
        self.offers = "not yet"

    def __call__(self, screen: str) -> str:
        if self.steps:
            return self.steps.pop(0)
        menu = last_menu(screen)
        if self.offers == "not yet" and menu[0].startswith("Your decision (phase 2"):
            more = [m for line in menu if (m := re.match(r"^ *(\d+)\. more…", line))]
            if more and "you are the active player" in flat("\n".join(menu[:3])):
                self.offers = "groups"
                return more[0].group(1)
        if self.offers == "groups":
            self.offers = "grid"
            return "1"
        if self.offers == "grid":
            self.offers = "back"
            return "0"
        if self.offers == "back":
            self.offers = "done"
            return "0"
        return "1"


class _Sessions(dict[int, tuple[str, dict[str, object]]]):
    """Each width's session played when a test first asks for it (the long mode's widths
    are not played outside it)."""

    def __init__(self, tmp: pytest.TempPathFactory) -> None:
        super().__init__()
        self.tmp = tmp

    def __missing__(self, columns: int) -> tuple[str, dict[str, object]]:
        record = self.tmp.mktemp("pty") / "game.json"
        screen = run_in_pty(columns, Person(), record)
        self[columns] = got = (screen, json.loads(record.read_text()))
        return got


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[str, dict[str, object]]]:
    """The same game (seed and answers) on a pty at each width and on a very wide one:
    the screen and the record."""
    return _Sessions(tmp_path_factory)


def help_lines(screen: str) -> list[str]:
    """What ``?`` printed: from "How to play" to the next prompt."""
    lines = screen.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("How to play"))
    end = next(i for i in range(start, len(lines)) if PROMPT.search(lines[i]))
    return lines[start:end]


def words(screen: str) -> set[str]:
    """The words shown (without the brackets and punctuation around them: "(hand 1):"
    on a wide window, "(hand" / "1)" on a narrow one), but for typed lines (prompts) and
    the board's rules."""
    lines = [x for x in screen.split("\n") if not PROMPT.search(x) and set(x) != {"─"}]
    return {w.strip("()[],.:;") for line in lines for w in line.split()}


@pytest.mark.parametrize(
    "columns",
    [
        40,
        pytest.param(50, marks=pytest.mark.long),
        pytest.param(80, marks=pytest.mark.long),
        pytest.param(120, marks=pytest.mark.long),
    ],
)
def test_a_whole_game_fits_a_pty_of_each_width(
    sessions: dict[int, tuple[str, dict[str, object]]], columns: int
) -> None:
    screen, record = sessions[columns]
    wide, wide_record = sessions[WIDE]
    assert record["actions"] == wide_record["actions"]  # the same game was played
    lines = screen.split("\n")
    # Everything was shown: help, board, a group of ready-made offers (a grid of partners,
    # or a list where the grid is too wide), the final scores.
    assert "How to play" in flat(screen) and "Final scores" in flat(screen)
    assert re.search(r"\bto seat 1\b", screen)
    # Nothing is wider than the window, the prompts with the typed answer included.
    assert all(cell_len(line) <= columns for line in lines), [
        line for line in lines if cell_len(line) > columns
    ]
    # No word was split or cut short: every word shown is one the wide window shows (the
    # narrow layouts' own labels aside; prompts are typed lines, checked above).
    allowed = words(wide) | {"Fields"}  # the board's narrow layouts
    split = sorted(words(screen) - allowed)
    assert not split, split[:10]
    # The help is laid out for the window once, not wrapped again by the screen.
    assert_laid_out_once(help_lines(screen), help_lines(wide), columns)
    # Every board's seats are laid out, not wrapped again by the screen.
    boards = screen.split("\n== Turn")[1:]
    assert boards
    for board in boards:
        assert_seats_laid_out(board, columns)
    # The final scores: every seat's name and coins whole, nothing cut short.
    scores = flat(screen).split("Final scores")[1]
    assert "…" not in scores
    result = record["result"]
    assert isinstance(result, dict)
    seats = record["seats"]
    assert isinstance(seats, list)
    for s, score in enumerate(result["scores"]):
        name = "you" if seats[s] == {"agent": "human"} else "heuristic"
        assert re.search(rf"seat {s} {name} {_count(score, 'coin')} \d+ cards? in hand", scores)
