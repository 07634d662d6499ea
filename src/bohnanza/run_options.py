"""The command-line options that ``simulate`` and ``tournament`` share: what a run does
when a bot fails. One definition, so that the two commands cannot drift apart."""

from __future__ import annotations

import click

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
