"""``bohnanza benchmark bots``: the bot benchmark suite (:mod:`.suite`) from one command."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from ..errors import BohnanzaError
from .ledger import DEFAULT_LEDGER


@click.group()
def benchmark() -> None:
    """Benchmark suites."""


@benchmark.command("bots")
@click.option("--candidate", "-c", default="heuristic", show_default=True, help="Bot measured.")
@click.option(
    "--games", "-n", type=int, default=2000, show_default=True, help="Games of S0-S3 each."
)
@click.option("--s4-games", type=int, default=None, help="Games of S4a and S4b (default: --games).")
@click.option(
    "--league-games",
    type=int,
    default=8,
    show_default=True,
    help="Games per line-up of the S5 league (0: no league).",
)
@click.option(
    "--league",
    default=None,
    help="Comma-separated league bots (default: random, autarky, heuristic-v1, heuristic "
    "and the three probes).",
)
@click.option(
    "--league-players",
    default="3,4,5",
    show_default=True,
    help="Comma-separated player counts of the league.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the first game (default 1; with --held-out, the next unused held-out range). "
    "Every scenario and league line-up plays its own games, one after the other from here.",
)
@click.option(
    "--held-out",
    is_flag=True,
    help="Play on held-out seeds (900001 on; for published figures, never for tuning): the next "
    "range the seed ledger has not recorded, which is then recorded; with --seed, that range "
    "(a resume), refused where a decision was taken on it.",
)
@click.option(
    "--ledger",
    type=click.Path(dir_okay=False),
    default=DEFAULT_LEDGER,
    show_default=True,
    help="The seed ledger --held-out reads and appends to.",
)
@click.option("--workers", "-w", type=int, default=None, help="Worker processes (default: all).")
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False),
    default="benchmark",
    show_default=True,
    help="Folder for the tournaments (a rerun resumes), results.json and report.md.",
)
@click.option(
    "--doc",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write the report into this Markdown file, between its suite markers "
    "(docs/bots.md), with the plots next to it.",
)
@click.option("--no-plots", is_flag=True, help="Tables only.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def bots(
    candidate: str,
    games: int,
    s4_games: int | None,
    league_games: int,
    league: str | None,
    league_players: str,
    seed: int | None,
    held_out: bool,
    ledger: str,
    workers: int | None,
    out: str,
    doc: str | None,
    no_plots: bool,
    as_json: bool,
) -> None:
    """Measure a bot: S0 vs 3 random, S1 vs 3 probe-accept, S2 with heuristic-v1 x2 and
    autarky, S3 vs 3 heuristic-v1, S4 vs itself and the probe bots, S5 a league at 3-5
    players with OpenSkill ratings, S6 vs 3 heuristic. Intervals: bootstrap over games."""
    from ..agents import AGENTS
    from .ledger import HELD_OUT_START, Ledger
    from .runner import parse_agent
    from .suite import LEAGUE, make_plots, markdown, plan_span, run_suite, splice, suite_plan

    def fail(message: str) -> None:
        click.echo(f"error: {message}", err=True)
        sys.exit(2)

    names = [n.strip() for n in league.split(",") if n.strip()] if league else list(LEAGUE)
    try:
        parse_agent(candidate)
        for n in names:
            parse_agent(n)
    except BohnanzaError as exc:
        fail(f"{exc} (known: {', '.join(sorted(AGENTS))})")
    try:
        counts = [int(p) for p in league_players.split(",") if p.strip()]
    except ValueError:
        fail(f"--league-players takes numbers, got {league_players!r}")
        return
    if not counts or not all(2 <= p <= 7 for p in counts):
        fail("--league-players takes player counts from 2 to 7")
    if games < 0 or (s4_games is not None and s4_games < 0) or league_games < 0:
        fail("game counts cannot be negative")
    if workers is not None and workers < 1:
        fail("--workers must be at least 1")
    say = None if as_json else (lambda line: click.echo(line, err=True))
    if held_out:
        try:
            plan = suite_plan(
                candidate,
                seed or HELD_OUT_START,
                games=games,
                s4_games=s4_games,
                league_games=league_games,
                league=names,
                league_players=counts,
            )
            use = f"bohnanza benchmark bots --candidate {candidate} --held-out ({games} games"
            use += f" a scenario, S4 {s4_games if s4_games is not None else games}"
            use += f", league {league_games} a line-up at {','.join(map(str, counts))} players)"
            taken, recorded = Ledger(ledger).claim(plan_span(plan), use, seed)
        except BohnanzaError as exc:
            fail(str(exc))
            return
        seed = taken.first
        click.echo(
            f"held-out seeds {taken.first}-{taken.last}"
            + (f", recorded in {ledger}" if recorded else f" (in {ledger} already: resumed)"),
            err=True,
        )
    elif seed is None:
        seed = 1
    elif seed >= HELD_OUT_START:
        fail(
            f"seeds from {HELD_OUT_START} on are held out: add --held-out, which checks the "
            f"range against the seed ledger ({ledger}) and records it"
        )
    try:
        results = run_suite(
            candidate,
            out,
            games=games,
            s4_games=s4_games,
            league_games=league_games,
            league=names,
            league_players=counts,
            seed=seed,
            workers=workers,
            progress=say,
        )
    except BohnanzaError as exc:
        fail(str(exc))
        return
    except KeyboardInterrupt:
        click.echo("\ninterrupted: finished games are kept; rerun to resume", err=True)
        sys.exit(130)
    parts = ["bohnanza benchmark bots", f"--candidate {shlex.quote(candidate)}"]
    parts.append(f"--games {games}")
    if s4_games is not None:
        parts.append(f"--s4-games {s4_games}")
    parts.append(f"--league-games {league_games}")
    if league:
        parts.append(f"--league {shlex.quote(','.join(names))}")
    if counts != [3, 4, 5]:
        parts.append(f"--league-players {','.join(map(str, counts))}")
    parts += [f"--seed {seed}", *(["--held-out"] if held_out else []), f"--out {shlex.quote(out)}"]
    if doc:
        parts.append(f"--doc {shlex.quote(doc)}")
    command = " ".join(parts)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    plot_dir = Path(doc).parent / "img" if doc else folder
    files = {} if no_plots else make_plots(results, plot_dir)
    (folder / "results.json").write_text(json.dumps(results, indent=1))
    rel = {k: os.path.relpath(v, folder) for k, v in files.items()}
    (folder / "report.md").write_text("# Bot benchmark suite\n\n" + markdown(results, command, rel))
    if doc:
        path = Path(doc)
        text = path.read_text() if path.exists() else ""
        rel_doc = {k: os.path.relpath(v, path.parent) for k, v in files.items()}
        path.write_text(splice(text, markdown(results, command, rel_doc)))
    if as_json:
        click.echo(json.dumps(results))
        return
    click.echo(markdown(results, command, rel))


@benchmark.command("seeds")
@click.option(
    "--ledger",
    type=click.Path(dir_okay=False),
    default=DEFAULT_LEDGER,
    show_default=True,
    help="The seed ledger.",
)
@click.option("--take", type=int, default=None, help="Reserve the next unused range of N seeds.")
@click.option("--use", default=None, help="What the range taken is for (with --take).")
@click.option("--json", "as_json", is_flag=True, help="Print the ledger (and the range) as JSON.")
def seeds(ledger: str, take: int | None, use: str | None, as_json: bool) -> None:
    """The held-out seeds used so far (the seed ledger); --take N --use TEXT reserves the
    next unused range of N seeds for a tournament and records it."""
    from dataclasses import asdict

    from .ledger import Ledger, lines

    try:
        book = Ledger(ledger)
        taken = None
        if take is not None:
            if not use:
                raise BohnanzaError("--take needs --use: what the seeds are for")
            taken, _ = book.claim(take, use)
    except BohnanzaError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if as_json:
        out: dict[str, Any] = {"ranges": [asdict(r) for r in book.ranges]}
        if taken is not None:
            out["taken"] = asdict(taken)
        click.echo(json.dumps(out))
        return
    for line in lines(book.ranges):
        click.echo(line)
    if taken is not None:
        click.echo(f"taken: seeds {taken.first}-{taken.last}: --seed {taken.first}")


__all__ = ["benchmark"]
