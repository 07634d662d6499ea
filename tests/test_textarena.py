"""The TextArena adapter under TextArena's own wrappers (skipped without the
``textarena`` extra)."""

from __future__ import annotations

import random
import re

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


def _messages(observation: object) -> str:
    """An observation as text: a string (wrapped ids) or the ``-raw`` list of messages."""
    if isinstance(observation, str):
        return observation
    assert isinstance(observation, list)
    return "\n".join(str(m[1]) for m in observation)


@pytest.mark.parametrize("env_id", ["Bohnanza-v0", "Bohnanza-v0-raw"])
def test_the_environment_reads_answers_as_the_agent_does(env_id: str) -> None:
    """Issue 52, item 5: the environment read the whole answer as one command and refused
    what the agent accepts (reasoning, a label, TextArena's own brackets followed by a
    reason); one reader (bohnanza.answers) now serves both, ambiguity included."""
    register()
    env = ta.make(env_id)
    env.reset(num_players=3, seed=1)
    pid, _observation = env.get_observation()
    view = env.game.view(pid)
    moves = [render_action(a, view, base=1) for a in env.legal]
    assert len(moves) >= 2
    move, other = moves[0], moves[1]
    answers = [
        f"<think>Maybe {other}? No.</think>\n{move}",
        f"My move: {move}",
        f"[{move}] because {other} would break a field",
        f"Options:\n- {other}\nFinal answer: {move}",
    ]
    for answer in answers:
        env.reset(num_players=3, seed=1)
        assert env.get_observation()[0] == pid
        done, info = env.step(action=answer)
        assert not done and info["invalid_move"] is False, (answer, info)
        assert info["seat"] == pid and info["action"] == move
    env.reset(num_players=3, seed=1)
    env.get_observation()
    done, info = env.step(action=f"{move}\n{other}")
    assert info["invalid_move"] is True and "ambiguous" in info["reason"]
    assert env.state.game_info[pid]["invalid_moves"] == 1


@pytest.mark.parametrize("env_id", ["Bohnanza-v0", "Bohnanza-v0-raw", "Bohnanza-v0-train"])
def test_private_reasoning_never_reaches_another_seat(env_id: str) -> None:
    """Issue 52, item 5: ``-raw`` sent each raw answer (reasoning included) to every
    player. A whole game in which every seat reasons about its hand before answering: no
    seat ever sees another seat's reasoning, under any id."""
    register()
    env = ta.make(env_id)
    players = 3
    env.reset(num_players=players, seed=3)
    seen: dict[int, list[str]] = {p: [] for p in range(players)}
    rng = random.Random(2)
    done, steps = False, 0
    while not done:
        pid, observation = env.get_observation()
        text = _messages(observation)
        seen[pid].append(text)
        move = _first_listed_move(text, rng) if "Legal moves now:\n" in text else "pass"
        if move.startswith("plant the"):
            move = "pass"
        done, _info = env.step(action=f"<think>SECRET-{pid}: my hand is private</think>\n{move}")
        steps += 1
        assert steps < 20_000
    for p, pending in env.state.observations.items():
        seen[p].append(_messages(list(pending)))
    for p in range(players):
        everything = "\n".join(seen[p])
        for other in range(players):
            if other != p:
                assert f"SECRET-{other}" not in everything, (env_id, p, other)


def test_an_answer_to_several_offers_is_played_line_by_line() -> None:
    """The question invites one command per offer addressed to the seat; the environment
    plays the first now and the others when the seat's turn to act comes again (as the
    agent does), instead of refusing the answer as one unreadable command."""
    from bohnanza.agents.heuristic import HeuristicAgent

    register()
    env = ta.make("Bohnanza-v0")
    env.reset(num_players=4, seed=1)
    bots = {p: HeuristicAgent(p) for p in range(4)}
    answered: tuple[int, int, int] | None = None
    while env.game.turn == 1:
        pid, observation = env.get_observation()
        found = re.search(r"Offers #(\d+), #(\d+) are addressed to you", observation)
        if found and answered is None:
            first, second = int(found.group(1)), int(found.group(2))
            answer = f"Both are poor for me.\nFinal answer:\ndecline {first}\ndecline {second}"
            _done, info = env.step(action=answer)
            assert info["invalid_move"] is False and info["action"] == f"decline {first}"
            answered = (pid, first, second)
            continue
        view = env.game.view(pid)
        choice = bots[pid].act(view, env.legal, env.decision[1])
        env.step(action=render_action(choice, view, base=1) if choice else "pass")
    assert answered is not None
    seat, first, second = answered
    declined = [
        e.data["offer_id"]
        for e in env.game.record_events()
        if e.type == "decline" and e.seat == seat
    ]
    assert declined == [first, second]
