"""``bohnanza balance``: the variant-balance report (:mod:`.balance`) from one command."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import NoReturn

import click

from ..errors import BohnanzaError


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


@click.command("balance")
@click.option("--bot", "-b", default="heuristic", show_default=True, help="Bot in every seat.")
@click.option(
    "--games", "-n", type=int, default=200, show_default=True, help="Games per configuration."
)
@click.option(
    "--rules",
    "-r",
    "rules",
    multiple=True,
    help="Only this rule set (repeatable; default: every rule set and module).",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the first game.")
@click.option("--workers", "-w", type=int, default=None, help="Worker processes (default: all).")
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False),
    default="balance",
    show_default=True,
    help="Folder for the tournaments (a rerun resumes), balance.json, report.md and plots.",
)
@click.option("--no-plots", is_flag=True, help="Tables only.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def balance(
    bot: str,
    games: int,
    rules: tuple[str, ...],
    seed: int,
    workers: int | None,
    out: str,
    no_plots: bool,
    as_json: bool,
) -> None:
    """Variant balance: self-play of one bot over every rule set, module and player count;
    the first seat's win share (95% intervals), game length and coin spread, with plots."""
    from .balance import make_plots, markdown, run_balance
    from .runner import parse_agent

    if games < 1:
        _fail("--games must be at least 1")
    if workers is not None and workers < 1:
        _fail("--workers must be at least 1")
    say = None if as_json else (lambda line: click.echo(line, err=True))
    try:
        parse_agent(bot)
        results = run_balance(
            bot, out, games=games, seed=seed, rules=rules, workers=workers, progress=say
        )
    except (BohnanzaError, ValueError) as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        click.echo("\ninterrupted: finished games are kept; rerun to resume", err=True)
        sys.exit(130)
    parts = ["bohnanza balance", f"--bot {shlex.quote(bot)}", f"--games {games}"]
    parts += [f"--rules {shlex.quote(r)}" for r in rules]
    parts += [f"--seed {seed}", f"--out {shlex.quote(out)}"]
    command = " ".join(parts)
    folder = Path(out)
    files = {} if no_plots else make_plots(results, folder)
    rel = {k: os.path.relpath(v, folder) for k, v in files.items()}
    (folder / "balance.json").write_text(json.dumps(results, indent=1))
    (folder / "report.md").write_text("# Variant balance\n\n" + markdown(results, command, rel))
    if as_json:
        click.echo(json.dumps(results))
        return
    click.echo(markdown(results, command, rel))


__all__ = ["balance"]
