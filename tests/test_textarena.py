"""The TextArena adapter under TextArena's own default wrappers (skipped without the
``textarena`` extra)."""

from __future__ import annotations

import random

import pytest

ta = pytest.importorskip(
    "textarena", reason="textarena is not installed (pip install 'bohnanza[textarena]')"
)

from bohnanza.textarena import register  # noqa: E402


def _first_listed_move(observation: str, rng: random.Random) -> str:
    """A text-only player: the first legal move of the latest prompt (often a harvest,
    an accept or 'end'), sometimes a malformed answer."""
    if rng.random() < 0.05:
        return "plant the beans, please"
    section = observation.rsplit("Legal moves now:\n", 1)[1].split("\n\n")[0]
    moves = [x for x in section.split("\n") if x and not x.startswith((" ", "pass"))]
    moves = [x for x in moves if not x[0].isdigit()]
    return moves[0] if moves else "pass"


@pytest.mark.parametrize(("rules", "players"), [("classic", 3), ("fasolki+duel", 2)])
def test_full_game_under_textarena_wrappers(rules: str, players: int) -> None:
    ids = register()
    assert f"Bohnanza-{rules}-v0" in ids and len(ids) == 7
    env = ta.make(f"Bohnanza-{rules}-v0")
    assert isinstance(env, ta.wrappers.ActionFormattingWrapper)  # the default wrappers
    env.reset(num_players=players, seed=4)
    rng = random.Random(1)
    done, steps, invalid = False, 0, 0
    while not done:
        pid, observation = env.get_observation()
        assert f"You are seat {pid}." in observation
        action = _first_listed_move(observation, rng)
        invalid += action.startswith("plant the")
        done, _info = env.step(action=action)
        steps += 1
        assert steps < 20_000
    rewards, game_info = env.close()
    game = env.game  # the wrappers pass attributes through
    assert game.over
    assert {p for p, r in rewards.items() if r == 1} == set(game.winners)
    assert all(r == -1 for p, r in rewards.items() if p not in game.winners)
    assert [game_info[p]["coins"] for p in range(players)] == list(game.scores)
    assert invalid > 0 and sum(game_info[p]["fallbacks"] for p in range(players)) == 0
