"""What the commands share: the options of ``simulate`` and ``tournament`` (what a run
does when a bot fails, the warning for a short agent list repeated over the seats), and
the one error line (``fail``) and ``--option KEY=VALUE`` parsing of ``cli`` and
``train_command``. One definition, so that the commands cannot drift apart; and the
lowest module of the command line, so that the commands import it, not each other."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn

import click


def fail(message: str) -> NoReturn:
    """Exit 2 with one line on standard error: a bad argument."""
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def parse_options(items: Sequence[str]) -> dict[str, str]:
    """``--option KEY=VALUE`` items as a dict; a malformed one fails."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            fail(f"--option takes KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


#: ``--llm-fallback``: a language model's endpoint failing too often in a row (docs/llm.md).
llm_fallback_option = click.option(
    "--llm-fallback",
    type=click.Choice(["stop", "heuristic"]),
    default="stop",
    show_default=True,
    help="When a language model's endpoint fails too often in a row (docs/llm.md): stop "
    "with an error, or let the heuristic play the rest of that game (a warning, counted).",
)

#: ``--fail-fast``: a bot that raises or answers illegally (docs/bots.md, "Tournaments").
fail_fast_option = click.option(
    "--fail-fast",
    is_flag=True,
    help="Stop (exit 2) at the first game a bot fails in (an exception or an illegal "
    "action), instead of recording it as that seat's forfeit and going on.",
)


def cycled_warning(given: Sequence[str], players: int) -> str | None:
    """The warning for a short agent list repeated over the seats (``-a llm:M@URL,heuristic``
    for 4 players seats the model twice), or None. Why: such a run measures something
    other than it seems to (two seats of the model in every game, whose results are not
    independent), and nothing else says so. One agent for every seat is plain intent."""
    names = [n for n in given if n]
    if not 1 < len(names) < players:
        return None
    seats = [names[k % len(names)] for k in range(players)]
    shown = ", ".join(f"{k + 1}: {name}" for k, name in enumerate(seats))
    return (
        f"warning: {len(names)} agents for {players} seats: the list is repeated to fill "
        f"them (seats {shown}); give one agent per seat to choose the line-up (a model "
        f"against {players - 1} bots: llm:MODEL@URL" + ",heuristic" * (players - 1) + ")"
    )
