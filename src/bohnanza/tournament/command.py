"""``bohnanza tournament``: the click command (registered by :mod:`bohnanza.cli`)."""

from __future__ import annotations

import json
import shlex
import sys
import time
from collections.abc import Callable
from typing import Any, NoReturn

import click

from .. import notice_pure_core
from ..agents import DESCRIPTIONS
from ..agents.llm import is_llm_spec, leaderboard_line, llm_line
from ..agents.specs import check_agent
from ..errors import BohnanzaError
from ..rules import make_config, player_range
from ..run_options import cycled_warning, fail_fast_option, llm_fallback_option
from .hosting import DEFAULT_MOVE_TIMEOUT


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


class _Lines:
    """Progress as plain lines (when stderr is not a terminal): every 5% with the ETA."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.start = time.perf_counter()
        self.first: int | None = None
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        if self.first is None:
            self.first = done
            return
        step = max(1, total // 20)
        if done // step == self.shown and done < total:
            return
        self.shown = done // step
        rate = (done - self.first) / max(1e-9, time.perf_counter() - self.start)
        eta = (total - done) / rate if rate > 0 else float("inf")
        click.echo(f"{done}/{total} games ({100 * done / total:.0f}%), ETA {_clock(eta)}", err=True)


def _clock(seconds: float) -> str:
    if seconds == float("inf"):
        return "?"
    s = int(seconds)
    return f"{s // 3600:d}:{s % 3600 // 60:02d}:{s % 60:02d}"


@click.command("tournament")
@click.option(
    "--agents",
    "-a",
    required=True,
    help="Comma-separated line-up, one agent per seat (repeated to fill the seats). "
    "search:0.2 gives the search 0.2 s per decision, search:50it 50 samples (reproducible), "
    "search:0.2:d8 roll-outs of 8 turns; an installed package's agent (bohnanza agents) or "
    "your own as MODULE:CLASS[:KEY=VALUE...]. Bots: "
    + "; ".join(f"{n}: {t}" for n, t in DESCRIPTIONS.items())
    + ".",
)
@click.option(
    "--rules", "-r", default="classic", show_default=True, help="Rule set, e.g. fasolki+duel."
)
@click.option(
    "--players",
    "-p",
    type=int,
    default=None,
    help="Players (default: as many as agents given, at least the rule set's minimum).",
)
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="Rule-set option.")
@click.option("--games", "-n", type=int, default=100, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the first game.")
@click.option(
    "--workers", "-w", type=int, default=None, help="Worker processes (default: every core)."
)
@click.option(
    "--backend",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="local: a process pool; ray: tasks on a Ray cluster (RAY_ADDRESS or --ray-address).",
)
@click.option("--ray-address", default=None, help="Address of a running Ray cluster.")
@click.option(
    "--start-method",
    type=click.Choice(["fork", "spawn", "forkserver"]),
    default=None,
    help="How the local backend's worker processes start (default: Python's).",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False),
    default="tournament",
    show_default=True,
    help="Folder for games.sqlite, the plots and the report; a rerun resumes there.",
)
@click.option(
    "--batch",
    type=int,
    default=None,
    help="Games per task (default: about 0.3 s of play each, from a measured game).",
)
@click.option("--no-rotate", is_flag=True, help="Keep the line-up's seats in every game.")
@click.option("--no-plots", is_flag=True, help="Skip the plots (the report has tables only).")
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress with ETA on stderr (default: when stderr is a terminal).",
)
@click.option(
    "--records",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write each game's record (a language model's transcript included) here.",
)
@llm_fallback_option
@fail_fast_option
@click.option(
    "--move-timeout",
    type=float,
    default=DEFAULT_MOVE_TIMEOUT,
    show_default=True,
    metavar="SECONDS",
    help="Seconds a bot that is not built in (MODULE:CLASS, an entry point) has for each "
    "decision, to be made and for its counters: it plays from a process of its own, killed "
    "when it takes longer, and forfeits that game (as when it exits or crashes). 0: no limit.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def tournament(
    agents: str,
    rules: str,
    players: int | None,
    options: tuple[str, ...],
    games: int,
    seed: int,
    workers: int | None,
    backend: str,
    ray_address: str | None,
    start_method: str | None,
    out: str,
    batch: int | None,
    no_rotate: bool,
    no_plots: bool,
    progress: bool | None,
    records: str | None,
    llm_fallback: str,
    fail_fast: bool,
    move_timeout: float,
    as_json: bool,
) -> None:
    """Play a tournament between bots: ratings, win rates, plots and a report."""
    from ..forfeits import summary_lines
    from .plots import make_plots
    from .report import write_report
    from .runner import TournamentSpec, default_workers, run_tournament

    opts: dict[str, str] = {}
    for item in options:
        key, sep, value = item.partition("=")
        if not sep or not key:
            _fail(f"--option takes KEY=VALUE, got {item!r}")
        opts[key.strip()] = value.strip()
    names = [n.strip() for n in agents.split(",") if n.strip()]
    if not names:
        _fail("--agents: no agents given")
    if games < 1:
        _fail("--games must be at least 1")
    if workers is not None and workers < 1:
        _fail("--workers must be at least 1")
    if batch is not None and batch < 1:
        _fail("--batch must be at least 1")
    if not move_timeout >= 0:
        _fail("--move-timeout must be 0 (no limit) or a positive number of seconds")
    try:
        lo, hi = player_range(rules)
        if players is None:
            players = min(max(len(names), lo), hi) if len(names) > 1 else max(lo, min(4, hi))
        config = make_config(rules, players, opts)
        if len(names) > players:
            _fail(f"--agents: {len(names)} agents given for {players} players")
        lineup = tuple(names[k % len(names)] for k in range(players))
        for name in dict.fromkeys(lineup):
            check_agent(name)  # a bad spec is one error line, before any warning
        cycled = cycled_warning(names, players)
        if cycled:
            click.echo(cycled, err=True)
        spec = TournamentSpec(
            config.rules,
            players,
            lineup,
            tuple(sorted(config.options.items())),
            seed,
            not no_rotate,
            llm_fallback,
            records,
            fail_fast,
            move_timeout=move_timeout or None,
        )
    except BohnanzaError as exc:
        _fail(str(exc))
    notice_pure_core()
    show = progress if progress is not None else (sys.stderr.isatty() and not as_json)
    run: Callable[..., Any] = run_tournament
    kwargs: dict[str, Any] = {
        "workers": workers or default_workers(),
        "backend": backend,
        "batch": batch,
        "ray_address": ray_address,
        "start_method": start_method,
    }
    try:
        if show and sys.stderr.isatty():
            with click.progressbar(
                length=games,
                label=f"{spec.rules} x{games}",
                file=sys.stderr,
                show_eta=True,
                show_pos=True,
            ) as bar:
                last = [0]

                def tick(done: int, total: int) -> None:
                    bar.update(done - last[0])
                    last[0] = done

                outcome = run(spec, games, out, progress=tick, **kwargs)
        else:
            outcome = run(spec, games, out, progress=_Lines(games) if show else None, **kwargs)
    except BohnanzaError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        from .storage import Store

        with Store(out) as store:
            kept = len(store.seeds())
        click.echo(
            f"\ninterrupted: {kept} finished games are stored in {out}; "
            "run the same command again to play only the missing ones",
            err=True,
        )
        sys.exit(130)
    summary = outcome.summary
    plots: dict[str, str] = {}
    if not no_plots:
        try:
            plots = make_plots(outcome.counted, summary, out)
        except ImportError as exc:
            click.echo(
                f"warning: no plots ({exc.name} is missing: pip install 'bohnanza[tournament]')",
                err=True,
            )
    command = " ".join(
        [
            "bohnanza tournament",
            f"--agents {shlex.quote(','.join(spec.lineup))}",
            f"--rules {shlex.quote(spec.rules)} --players {players}",
            *(f"--option {shlex.quote(f'{k}={v}')}" for k, v in spec.options),
            f"--games {games} --seed {seed}",
            *(["--no-rotate"] if no_rotate else []),
            f"--out {shlex.quote(out)}",
        ]
    )
    report = write_report(summary, plots, out, command)
    summary = {
        **summary,
        "played": outcome.played,
        "resumed": outcome.skipped,
        "out": str(outcome.out),
        "database": str(outcome.out / "games.sqlite"),
        "report": str(report),
        "plots": sorted(plots.values()),
    }
    if as_json:
        click.echo(json.dumps(summary))
        return
    click.echo(
        f"{summary['games']} games of {summary['rules']} with {players} players "
        f"({outcome.played} played now, {outcome.skipped} already in {out})"
    )
    for name, a in summary["agents"].items():
        lo, hi = a["win_rate_ci95"]
        r = a["rating"]
        rating = f"rating {r['mu']:.2f} ± {r['sigma']:.2f}" if r else "no rating (openskill?)"
        result = (
            f"win rate {100 * a['win_rate']:5.1f}% "
            f"[{100 * lo:.1f}–{100 * hi:.1f}]  mean coins {a['mean_coins']:.2f}  {rating}"
        )
        if is_llm_spec(name):
            # A model seat's results are ranked only when the model took its decisions
            # (--llm-fallback heuristic may have let the heuristic take most of them).
            click.echo(f"  {leaderboard_line(name, a['stats'], result.strip())}")
            click.echo(f"    {llm_line(a['stats'])}")
        else:
            click.echo(f"  {name:<14} {result}")
    gl = summary["game_length"]
    click.echo(f"  mean length {gl['mean_turns']:.1f} turns; report: {report}")
    for line in summary_lines(summary["forfeited"]):
        click.echo(line)


__all__ = ["tournament"]
