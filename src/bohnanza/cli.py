"""The ``bohnanza`` command line. Bad arguments exit non-zero with one clear line."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from . import notice_pure_core
from .agents import DEFAULT_BOT, DESCRIPTIONS, agent_names, describe_agents
from .errors import BohnanzaError
from .rules import all_rulesets, make_config
from .run_options import (
    cycled_warning,
    fail,
    fail_fast_option,
    llm_fallback_option,
    parse_options,
)

if TYPE_CHECKING:
    from .actions import Action
    from .events import Event

#: Every bot with its one-line description, for the options that take bot names.
_BOTS_HELP = "; ".join(f"{name}: {text}" for name, text in DESCRIPTIONS.items()) + "."

F = TypeVar("F", bound=Callable[..., Any])


def game_options(f: F) -> F:
    f = click.option(
        "--option",
        "options",
        multiple=True,
        metavar="KEY=VALUE",
        help="Rule-set option, e.g. remove=glutton (fasolki+new-varieties, 4-5 players).",
    )(f)
    f = click.option(
        "--players", "-p", type=int, default=4, show_default=True, help="Number of players."
    )(f)
    f = click.option(
        "--rules",
        "-r",
        default="classic",
        show_default=True,
        help="Rule set, e.g. classic, first-edition, fasolki, fasolki+duel.",
    )(f)
    return f


class OneLineErrors(click.Group):
    """Usage errors (a bad number, an unknown flag) as one ``error:`` line, like ours."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            return super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else "bohnanza --help")
            sys.exit(0)
        except click.exceptions.UsageError as exc:
            fail(exc.format_message().replace("\n", " "))
        except click.exceptions.Abort:
            click.echo("\nbye", err=True)
            sys.exit(130)
        except click.exceptions.ClickException as exc:
            fail(exc.format_message())


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bohnanza")
def main() -> None:
    """Bohnanza and Fasolki: rules engine, bots, simulations, replays and a terminal game."""


@main.command("rules")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rules_cmd(as_json: bool) -> None:
    """List rule sets, modules and allowed player counts."""
    data = all_rulesets()
    if as_json:
        click.echo(json.dumps({"rulesets": data, "agents": describe_agents()}, indent=2))
        return
    for r in data:
        opts = "".join(
            f"  option {k}={'|'.join(v['values'])} (required for {v['required_for_players']} players)"
            for k, v in r["options"].items()
        )
        click.echo(f"{r['rules']:<24} {r['min_players']}-{r['max_players']} players{opts}")


@main.command("agents")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def agents_cmd(as_json: bool) -> None:
    """List the agents a spec can name: built-in and published by installed packages
    (entry-point group bohnanza.agents). Any MODULE:CLASS works too."""
    data = describe_agents()
    if as_json:
        click.echo(json.dumps({"agents": data}, indent=2))
        return
    for a in data:
        where = "" if a["source"] == "builtin" else f"  [{a.get('package') or a['target']}]"
        text = a.get("error") or a["description"]
        click.echo(f"{a['name']:<16} {text}{where}")


START_METHODS = click.Choice(["fork", "spawn", "forkserver"])
AGENT_SPECS = (
    "Each is a built-in name (bohnanza agents), search:0.2 style parameters, an installed "
    "package's agent, or MODULE:CLASS[:KEY=VALUE...] for your own (docs/bots.md)."
)


@main.command()
@game_options
@click.option("--games", "-n", type=int, default=100, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the first game.")
@click.option(
    "--agents",
    "-a",
    default="random",
    show_default=True,
    help="Comma-separated agents, repeated to fill the seats. Bots: "
    + _BOTS_HELP
    + " "
    + AGENT_SPECS,
)
@click.option("--workers", "-w", type=int, default=1, show_default=True, help="Worker processes.")
@click.option(
    "--start-method", type=START_METHODS, default=None, help="How worker processes start."
)
@click.option(
    "--records",
    type=click.Path(file_okay=False),
    default=None,
    help="Write one record file per game into this folder.",
)
@llm_fallback_option
@fail_fast_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON summary.")
def simulate(
    rules: str,
    players: int,
    options: tuple[str, ...],
    games: int,
    seed: int,
    agents: str,
    workers: int,
    start_method: str | None,
    records: str | None,
    llm_fallback: str,
    fail_fast: bool,
    as_json: bool,
) -> None:
    """Play many seeded games between bots and summarise them."""
    from .agents.llm import llm_line
    from .agents.specs import check_agent, import_paths
    from .forfeits import summary_lines
    from .simulate import GameSpec, options_tuple
    from .simulate import simulate as run

    if games < 1:
        fail("--games must be at least 1")
    if workers < 1:
        fail("--workers must be at least 1")
    try:
        config = make_config(rules, players, parse_options(options))
        names = agent_names(agents, players)
        for name in dict.fromkeys(names):
            check_agent(name)  # a bad spec is one error line, before any warning
    except BohnanzaError as exc:
        fail(str(exc))
    cycled = cycled_warning([n.strip() for n in agents.split(",")], players)
    if cycled:
        click.echo(cycled, err=True)
    spec = GameSpec(
        config.rules,
        players,
        options_tuple(config.options),
        tuple(names),
        records,
        import_paths(names),
        llm_fallback,
        fail_fast,
    )
    notice_pure_core()
    show = sys.stderr.isatty() and not as_json
    try:
        if show:
            with click.progressbar(
                length=games, label=f"{config.rules} x{games}", file=sys.stderr, show_eta=True
            ) as bar:
                summary = run(spec, games, seed, workers, bar.update, start_method)
        else:
            summary = run(spec, games, seed, workers, start_method=start_method)
    except BohnanzaError as exc:
        fail(str(exc))
    if as_json:
        click.echo(json.dumps(summary))
        return
    click.echo(
        f"{summary['games']} games of {summary['rules']} with {players} players "
        f"({', '.join(names)}), seeds {seed}..{seed + games - 1}"
    )
    click.echo(
        f"mean turns {summary['mean_turns']:.1f}, {summary['games_per_second']} games/s, "
        f"{summary['actions_per_second']} actions/s"
    )
    for k in range(players):
        # Seats counted from 1, as the prompts and the errors count them.
        click.echo(
            f"  seat {k + 1} {names[k]:<10} wins {summary['seat_wins'][k]:>8}  "
            f"mean coins {summary['seat_mean_coins'][k]:.2f}"
        )
        if str(k + 1) in summary.get("llm", {}):
            click.echo(f"    {llm_line(summary['llm'][str(k + 1)])}")
    for line in summary_lines(summary["forfeited"]):
        click.echo(line)


@main.command()
@click.argument("record", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--log", "show_log", is_flag=True, help="Print every event.")
def replay(record: str, as_json: bool, show_log: bool) -> None:
    """Replay a game record, check it, and print the result."""
    from .records import load
    from .records import replay as run

    log: list[str] = []

    def keep(_index: int, _seat: int, _action: Action, events: list[Event]) -> None:
        log.extend(map(str, events))

    try:
        data = load(record)
        game = run(data, on_action=keep if show_log else None)
    except BohnanzaError as exc:
        fail(str(exc))
    if show_log:
        for line in log:
            click.echo(line)
    if not game.over:
        out: dict[str, Any] = {
            "over": False,
            "turns": game.turn,
            "actions": len(data.get("actions", [])),
        }
    else:
        out = {"over": True, **game.result(), "actions": len(data.get("actions", []))}
    if as_json:
        click.echo(json.dumps(out))
    elif game.over:
        click.echo(
            f"{data['rules']}, {data['players']} players, {out['turns']} turns: "
            f"scores {out['scores']}, winner(s) {out['winners']}"
        )
    else:
        click.echo(f"unfinished game after {out['actions']} actions (turn {out['turns']})")


@main.command()
@game_options
@click.option(
    "--bots",
    "-b",
    default=DEFAULT_BOT,
    show_default=True,
    help="Comma-separated bots for the other seats. Bots: " + _BOTS_HELP + " " + AGENT_SPECS,
)
@click.option("--seat", type=int, default=0, show_default=True, help="Your seat (0 starts).")
@click.option(
    "--seed", type=int, default=None, help="Seed (default: 128 random bits, shown at the end)."
)
@click.option(
    "--record",
    "record_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Save the game record here when the game ends.",
)
def play(
    rules: str,
    players: int,
    options: tuple[str, ...],
    bots: str,
    seat: int,
    seed: int | None,
    record_path: str | None,
) -> None:
    """Play in the terminal against bots."""
    from .shuffle import fresh_seed
    from .terminal import run_terminal_game

    try:
        make_config(rules, players, parse_options(options))
    except BohnanzaError as exc:
        fail(str(exc))
    try:
        names = agent_names(bots, players - 1)
    except BohnanzaError as exc:
        fail(f"--bots: {exc} (bots play the {players - 1} other seat(s))")
    if not 0 <= seat < players:
        fail(f"--seat must be between 0 and {players - 1}")
    if seed is None:
        seed = fresh_seed()
    try:
        run_terminal_game(rules, players, parse_options(options), names, seat, seed, record_path)
    except (EOFError, KeyboardInterrupt):
        click.echo("\nbye")
        sys.exit(130)


@main.command()
@click.option(
    "--games",
    "-n",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Autarky games per round (random games: 1/20 of it; clones: 100x; RL steps: 10x).",
)
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Interleaved rounds; every measurement runs once per round.",
)
@click.option(
    "--workers",
    "-w",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Also measure autarky games/s (wall clock) with this many worker processes.",
)
@click.option("--no-rl", is_flag=True, help="Skip the RL environment steps.")
@click.option(
    "--baseline",
    type=click.Path(file_okay=False, exists=True),
    default=None,
    help="An older source tree (or its src): time its engine's autarky games in the same "
    "rounds (child processes, CPU time) and print new/old.",
)
@click.option(
    "--write-doc",
    "--write-readme",
    "readme",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Rewrite this build's <!-- bench --> block of this page (docs/performance.md) with "
    "the figures (--write-readme: the same, its old name).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def bench(
    games: int,
    rounds: int,
    workers: int,
    no_rl: bool,
    baseline: str | None,
    readme: str | None,
    as_json: bool,
) -> None:
    """How fast the engine is next to a bare loop of the same games (4-player classic,
    autarky, CPU time, interleaved in one process), plus random games/s, clone() time and
    RL environment steps/s. The ratio engine/bare is printed every time, also without the
    shuffling both do; with --baseline, the gain over an older engine, measured beside."""
    from pathlib import Path

    from .bench import parallel_autarky, readme_block, run_bench, text_lines, write_readme

    show = sys.stderr.isatty() and not as_json
    try:
        result = run_bench(
            games,
            rounds,
            rl=not no_rl,
            baseline=baseline,
            progress=(lambda m: click.echo(m, err=True)) if show else None,
        )
    except BohnanzaError as exc:
        fail(str(exc))
    if workers > 1:
        result["parallel"] = [parallel_autarky(games * rounds, workers)]
    if readme:
        command = f"bohnanza bench --games {games} --rounds {rounds}"
        command += f" --workers {workers}" if workers > 1 else ""
        command += " --baseline OLD/src" if baseline else ""
        try:
            write_readme(Path(readme), readme_block(result, command), result["compiled"])
        except ValueError as exc:
            fail(str(exc))
    if as_json:
        click.echo(json.dumps(result))
        return
    for line in text_lines(result):
        click.echo(line)
    if readme:
        click.echo(f"wrote the figures into {readme}")


def _register_optional_commands() -> None:
    # Commands whose heavy imports happen only when they run (their modules import click).
    from .tournament.balance_command import balance
    from .tournament.benchmark_command import benchmark
    from .tournament.command import tournament
    from .train_command import train
    from .web.command import serve
    from .web.load import load

    main.add_command(serve)
    main.add_command(load)
    main.add_command(tournament)
    main.add_command(benchmark)
    main.add_command(balance)
    main.add_command(train)


_register_optional_commands()


if __name__ == "__main__":
    main()
