"""``heuristic-v1`` is a frozen baseline: its choices on fixed-deck games are pinned.

The fingerprints in tests/data/heuristic_v1_pin.json were computed from the code of the
heuristic as it stood before issue 12 (``python tests/heuristic_v1_pin.py heuristic`` at
that commit gave the same digests as ``heuristic-v1`` does now). A change to any choice
of the baseline, in any pinned rule set, changes a digest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heuristic_v1_pin import PINNED, fingerprint

PIN = json.loads((Path(__file__).parent / "data" / "heuristic_v1_pin.json").read_text())


@pytest.mark.parametrize(("rules", "players", "options", "games"), PINNED)
def test_baseline_choices_are_bit_identical(
    rules: str, players: int, options: dict[str, str], games: int
) -> None:
    digest, n = fingerprint("heuristic-v1", rules, players, options, games)
    assert [digest, n] == PIN[f"{rules}/{players}"]


def test_pin_tells_the_baseline_from_another_bot() -> None:
    # The fingerprint is sensitive: another bot on the same deals gives another digest.
    rules, players, options, games = PINNED[1]
    assert fingerprint("autarky", rules, players, options, games)[0] != PIN[f"{rules}/{players}"][0]
