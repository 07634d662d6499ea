"""Issue 52, items 6–8: a language-model benchmark measures what it says. The recipe is
one model against three heuristic bots (docs/llm.md, run here against the fake server:
no real model is reachable from the machines these tests run on), a short agent list
repeated over the seats is warned about, intervals count games rather than seats, the
heuristic's decisions are reported apart from the model's, and seats are counted from 1
everywhere people read them."""

from __future__ import annotations

import pytest
from click.testing import CliRunner, Result

from bohnanza.cli import main


@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_a_short_agent_list_repeated_over_the_seats_is_warned_about(
    command: str, tmp_path: object
) -> None:
    """``--agents llm:MODEL@URL,heuristic`` for 4 players seats the model twice (seats 1
    and 3): nothing said so, and the docs' recipe did exactly that."""

    def run(agents: str, out: str) -> Result:
        args = [command, "-a", agents, "-p", "4", "-n", "1", "--json"]
        if command == "tournament":
            args += ["-w", "1", "--no-plots", "--out", f"{tmp_path}/{out}"]
        return CliRunner().invoke(main, args)

    result = run("random,heuristic", "short")
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stderr.splitlines() if "agents for" in x]
    assert line.startswith("warning: 2 agents for 4 seats: the list is repeated")
    assert "1: random, 2: heuristic, 3: random, 4: heuristic" in line
    assert "llm:MODEL@URL,heuristic,heuristic,heuristic" in line
    for agents in ("random,heuristic,heuristic,heuristic", "random"):
        full = run(agents, agents.replace(",", "-"))
        assert full.exit_code == 0 and "agents for" not in full.stderr
