"""The ``heuristic`` bot's decisions are pinned (issue 34: a cheaper bot, the same play).

tests/heuristic_pin.py plays seeded full games on every rule set, with the bot's
parameters and subclasses, and hashes their action logs; tests/data/heuristic_digest.json
holds the digests made from the code before the speed-up. Regenerate them only for a
change that means to alter play (see tests/heuristic_pin.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heuristic_pin import PINNED, game_digest, table_digest, table_key

PIN = json.loads((Path(__file__).parent / "data" / "heuristic_digest.json").read_text())


def test_every_pinned_table_is_recorded() -> None:
    assert sorted(PIN) == sorted(table_key(r, p, a) for r, p, _o, a, _g in PINNED)


@pytest.mark.parametrize(("rules", "players", "options", "agents", "games"), PINNED)
def test_heuristic_plays_the_pinned_games(
    rules: str, players: int, options: dict[str, str], agents: tuple[str, ...], games: int
) -> None:
    got = table_digest(rules, players, options, agents, games)
    assert got == PIN[table_key(rules, players, agents)]


@pytest.mark.parametrize("memo", [True, False])
def test_both_ways_of_planning_play_the_same(memo: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # Plain Python memoises placements in dicts, the compiled bot computes them
    # (heuristic.MEMO): both must play the pinned games (plain Python tries both).
    import bohnanza.agents.heuristic as heuristic
    from bohnanza import compiled_core

    if compiled_core():
        if memo != heuristic.MEMO:
            pytest.skip("a compiled module's constant cannot be switched")
    else:
        monkeypatch.setattr(heuristic, "MEMO", memo)
    for rules, players, options, agents, games in (PINNED[0], PINNED[4]):
        got = table_digest(rules, players, options, agents, games)
        assert got == PIN[table_key(rules, players, agents)]


def test_digest_tells_other_play_apart() -> None:
    # The digest is sensitive: another bot on the same deal, or another deal, differs.
    mine = game_digest("classic", 4, {}, ("heuristic",) * 4, 1)
    other_bot = game_digest("classic", 4, {}, ("heuristic", "heuristic", "heuristic", "autarky"), 1)
    other_seed = game_digest("classic", 4, {}, ("heuristic",) * 4, 2)
    assert mine != other_bot
    assert mine != other_seed
    assert game_digest("classic", 4, {}, ("heuristic",) * 4, 1) == mine
