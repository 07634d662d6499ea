"""The TextArena adapter under TextArena's own wrappers (skipped without the
``textarena`` extra)."""

from __future__ import annotations

import random

import pytest

ta = pytest.importorskip(
    "textarena", reason="textarena is not installed (pip install 'bohnanza[textarena]')"
)

from bohnanza.text import render_action  # noqa: E402
from bohnanza.textarena import register  # noqa: E402

#: The most characters an observation may hold at any point of a game under the default
#: wrappers: the system prompt and the latest question (table, moves, recent events).
MAX_OBSERVATION = 12_000


def _first_listed_move(observation: str, rng: random.Random) -> str:
    """A text-only player: the first legal move of the latest prompt (often a harvest,
    an accept or 'end'), sometimes a malformed answer."""
    if rng.random() < 0.05:
        return "plant the beans, please"
    section = observation.rsplit("Legal moves now:\n", 1)[1].split("\n\n")[0]
    moves = [x for x in section.split("\n") if x and not x.startswith((" ", "pass"))]
    moves = [x for x in moves if not x[0].isdigit()]
    return moves[0] if moves else "pass"


@pytest.mark.parametrize(
    ("env_id", "rules", "players"),
    [("Bohnanza-v0", "classic", 3), ("Bohnanza-v0-fasolki+duel", "fasolki+duel", 2)],
)
def test_full_game_under_the_default_wrappers_stays_bounded(
    env_id: str, rules: str, players: int
) -> None:
    ids = register()
    assert env_id in ids and f"{env_id}-raw" in ids and f"{env_id}-train" in ids
    assert f"Bohnanza-{rules}-v0" in ids and len(ids) == 7 * 4
    env = ta.make(env_id)
    assert isinstance(env, ta.wrappers.ActionFormattingWrapper)
    assert isinstance(env.env, ta.wrappers.GameBoardObservationWrapper)
    env.reset(num_players=players, seed=4)
    rng = random.Random(1)
    done, steps, invalid, longest = False, 0, 0, 0
    while not done:
        pid, observation = env.get_observation()
        longest = max(longest, len(observation))
        assert f"You are seat {pid + 1}." in observation  # seats counted from 1
        action = _first_listed_move(observation, rng)
        bad = action.startswith("plant the")
        invalid += bad
        done, info = env.step(action=action)
        if not done:
            assert info["invalid_move"] == bad and info["seat"] == pid
            if bad:
                assert env.get_observation()[1].count("Error: ") == 1
            else:
                assert info["legal_moves"] and info["fallback"] is False
        steps += 1
        assert steps < 20_000
    assert longest < MAX_OBSERVATION
    rewards, game_info = env.close()
    game = env.game  # the wrappers pass attributes through
    assert game.over
    assert {p for p, r in rewards.items() if r == 1} == set(game.winners)
    assert all(r == -1 for p, r in rewards.items() if p not in game.winners)
    assert [game_info[p]["coins"] for p in range(players)] == list(game.scores)
    assert invalid > 0 and sum(game_info[p]["invalid_moves"] for p in range(players)) == invalid
    assert sum(game_info[p]["fallbacks"] for p in range(players)) == 0


def test_a_fallback_clears_invalid_move_and_says_so() -> None:
    register()
    env = ta.make("Bohnanza-v0")
    env.reset(num_players=3, seed=2)
    pid, _observation = env.get_observation()
    # The legal moves of this first question, as the step before it would report them.
    view = env.game.view(pid)
    info_before = {"legal_moves": [render_action(a, view, base=1) for a in env.legal]}
    for _ in range(2):  # error_allowance: asked again twice
        done, info = env.step(action="nonsense")
        assert info["invalid_move"] and env.get_observation()[0] == pid
    done, info = env.step(action="nonsense")  # the heuristic moves for the seat
    assert not done and info["fallback"] and not info["invalid_move"]
    assert info["seat"] == pid and info["action"] in info_before["legal_moves"]
    assert env.state.game_info[pid]["fallbacks"] == 1
    assert env.state.game_info[pid]["invalid_move"] is False
    assert pid not in env.state.elimination_order


def test_unseeded_resets_deal_different_games() -> None:
    register()
    env = ta.make("Bohnanza-v0")
    hands = []
    for _ in range(3):
        env.reset(num_players=4)
        hands.append([tuple(h) for h in env.game.hands])
        _pid, _obs = env.get_observation()
        _done, info = env.step(action="plant 1")
        assert isinstance(info["seed"], int)
    assert len(set(map(tuple, hands))) == 3
    env.reset(num_players=4, seed=9)
    first = [tuple(h) for h in env.game.hands]
    env.reset(num_players=4, seed=9)
    assert [tuple(h) for h in env.game.hands] == first


def test_raw_and_train_ids() -> None:
    register()
    raw = ta.make("Bohnanza-v0-raw")
    assert not isinstance(raw, ta.Wrapper)
    raw.reset(num_players=3, seed=1)
    _pid, messages = raw.get_observation()
    assert isinstance(messages, list) and any("Legal moves now:" in m[1] for m in messages)
    train = ta.make("Bohnanza-v0-fasolki-train")
    assert isinstance(train.env, ta.wrappers.GameMessagesAndCurrentBoardObservationWrapper)
    train.reset(num_players=3, seed=1)
    assert "Legal moves now:" in train.get_observation()[1]
