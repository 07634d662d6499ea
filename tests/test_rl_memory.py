"""The memory part of the RL observation (``memory=True``, bohnanza.rl.memory,
docs/rl.md) and the text observation: no hidden card leaks into it (R-INFO-1…3), it
changes when two other seats trade, and it is built from public records only."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from bohnanza import Action, Game, Offer  # noqa: E402
from bohnanza.rl import bohnanza_v0  # noqa: E402
from bohnanza.rules import make_config  # noqa: E402
from test_rl import swapped_hand  # noqa: E402  (the leak tests' twin state)

Config = tuple[str, int, dict[str, str]]


def make_env(config: Config, **kwargs: Any) -> bohnanza_v0.raw_env:
    rules, players, options = config
    return bohnanza_v0.raw_env(rules=rules, players=players, options=options, memory=True, **kwargs)


@pytest.mark.parametrize(
    "config",
    [("classic", 4, {}), ("fasolki+fasolufka", 3, {}), ("fasolki+fasolkopajaki", 3, {})],
    ids=["classic", "fasolufka", "spiders"],
)
@pytest.mark.parametrize("mode", ["flat", "builder"])
def test_memory_does_not_depend_on_hidden_cards(config: Config, mode: str) -> None:
    """R-INFO-1/3: at points of a random game, the game is continued in two
    environments with the same memory, one with a hidden hand card swapped; played on with the
    same action indices until the swapped seat acts (its moves may show the card), every
    other seat's observation is the same in both copies at every step."""
    lead = make_env(config, action_mode=mode)
    rng = np.random.default_rng(3)
    lead.reset(seed=9)
    checked = 0
    for start in range(500):
        game = lead.game
        assert game is not None
        if game.over:
            break
        if start % 25 == 20:
            hidden = (lead.seat + 1) % game.players
            twin = swapped_hand(game, hidden)
            if twin is not None:
                left, right = make_env(config, action_mode=mode), make_env(config, action_mode=mode)
                left.set_game(Game.from_dict(game.to_dict()))
                right.set_game(twin)
                for env in (left, right):
                    assert env.memory is not None and lead.memory is not None
                    env.memory.copy_from(lead.memory)
                for _ in range(40):
                    if left.game is None or left.game.over or left.seat == hidden:
                        break
                    assert right.seat == left.seat
                    for agent in left.possible_agents:
                        if agent != f"player_{hidden}":
                            a, b = left.observe(agent), right.observe(agent)
                            assert np.array_equal(a["observation"], b["observation"]), agent
                            assert np.array_equal(a["action_mask"], b["action_mask"]), agent
                            checked += 1
                    i = int(rng.choice(np.flatnonzero(left.action_mask())))
                    left.step(i)
                    right.step(i)
        lead.step(int(rng.choice(np.flatnonzero(lead.action_mask()))))
    assert checked >= 30


def test_an_offer_between_two_other_seats_is_observed_and_remembered() -> None:
    # Seat 0 (active) offers seat 1 a card: seat 2's observation changes in the
    # others' offers part, and seat 0's proposal is counted in seat 2's trading part.
    env = make_env(("classic", 3, {}))
    env.reset(seed=4)
    game = env.game
    assert game is not None
    mem = env.memory
    assert mem is not None
    while game.phase != "trade":
        env.step_action(game.legal_actions(env.seat, False)[0])
    s2 = env.observe("player_2")["observation"].copy()
    assert env.seat == 0 and game.active == 0
    base = env.encoding.obs_size
    want = next(v for v in game.config.varieties if v != game.config.variety_of(game.drawn[0]))
    env.step_action(Action.propose(Offer(1, (game.drawn[0],), ((want, 2),))))
    after = env.observe("player_2")["observation"]
    s, size = mem.parts["others_offers"]
    assert not s2[base + s : base + s + size].any()
    assert after[base + s] == 1.0  # present
    t, _ = mem.parts["trading"]
    # seat 0 is the first seat after seat 2: the first block; "proposed" this turn,
    # and the wanted variety (two cards: a half)
    proposed = t + 2 * mem.v
    assert after[base + proposed] == pytest.approx(0.25)
    assert s2[base + proposed] == 0.0
    wanted = t + mem.v + game.config.varieties.index(want)
    assert after[base + wanted] == pytest.approx(0.5)


def test_unseen_counts_start_from_the_deck_less_what_the_seat_sees() -> None:
    env = make_env(("classic", 3, {}))
    env.reset(seed=2)
    mem = env.memory
    assert mem is not None and env.game is not None
    cfg = env.config
    obs = env.observe("player_1")["observation"][env.encoding.obs_size :]
    s, v = mem.parts["unseen"]
    view = env.game.view(1)
    seen = view.visible_cards()
    for i in range(v):
        total = sum(1 for c in range(cfg.deck_size) if cfg.card_variety[c] == i)
        expect = total - sum(1 for c in seen if cfg.card_variety[c] == i)
        assert obs[s + i] == pytest.approx(expect / total)


def test_unseen_counts_fall_as_cards_are_harvested() -> None:
    env = make_env(("fasolki", 3, {}))
    rng = np.random.default_rng(1)
    env.reset(seed=1)
    mem = env.memory
    assert mem is not None
    s, v = mem.parts["unseen"]
    first = env.observe("player_0")["observation"][env.encoding.obs_size + s :][:v].sum()
    for _ in range(600):
        if env.game is None or env.game.over:
            break
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    assert env.game is not None
    later = env.observe("player_0")["observation"][env.encoding.obs_size + s :][:v].sum()
    assert mem.out.sum() > 0 and later < first


def test_text_observation_in_infos() -> None:
    env = bohnanza_v0.env(rules="classic", players=3, text_observation=True)
    env.reset(seed=1)
    _, _, _, _, info = env.last()
    assert ("text" in info and "Seat" in info["text"]) or "seat" in info["text"]
    cfg = make_config("classic", 3)
    hand = env.unwrapped.game.hands[0]
    assert cfg.describe(hand[0]).split()[0].lower() in info["text"].lower()


def test_memory_observation_fits_its_space() -> None:
    env = make_env(("fasolki+new-varieties", 4, {"remove": "glutton"}), action_mode="builder")
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    for _ in range(300):
        for agent in env.possible_agents:
            assert env.observation_space(agent).contains(env.observe(agent))
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
