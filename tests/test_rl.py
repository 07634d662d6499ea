"""The reinforcement-learning environment (bohnanza.rl, docs/rl.md): PettingZoo's API and
seed tests for every rule set, the action mask against the engine, hidden information,
the agent order of the driver, the Gymnasium wrapper, the example and the benchmark."""

from __future__ import annotations

import collections
import itertools
import runpy
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped]  # noqa: E402

from bohnanza import Action, Game, IllegalAction, Offer  # noqa: E402
from bohnanza.rl import SingleAgentEnv, bohnanza_v0  # noqa: E402
from bohnanza.rl.encoding import PASS, Encoding  # noqa: E402
from bohnanza.rules import all_rulesets, make_config  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

Config = tuple[str, int, dict[str, str]]
CONFIGS: list[Config] = [(r["rules"], r["min_players"], {}) for r in all_rulesets()] + [
    ("classic", 4, {}),
    ("fasolki+new-varieties", 4, {"remove": "glutton"}),
]
IDS = [f"{r}-{p}p" + "".join(f"-{v}" for v in o.values()) for r, p, o in CONFIGS]


def make_env(config: Config, **kwargs: Any) -> bohnanza_v0.raw_env:
    rules, players, options = config
    return bohnanza_v0.raw_env(rules=rules, players=players, options=options, **kwargs)


def pick(enc: Encoding, mask: Any, rng: Any) -> int:
    """A random legal index, uniform over the mask's segments first (so that the 600-odd
    offer templates do not swamp everything else), then inside the segment."""
    by_segment: dict[str, list[int]] = collections.defaultdict(list)
    for i in np.flatnonzero(mask):
        by_segment[enc.segment_of(int(i))[0]].append(int(i))
    names = sorted(by_segment)
    seg = by_segment[names[int(rng.integers(len(names)))]]
    return seg[int(rng.integers(len(seg)))]


def rollout(env: bohnanza_v0.raw_env, seed: int, max_steps: int) -> Iterator[None]:
    """Random masked play from a fresh deal; yields before every step."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(max_steps):
        if env.game is None or env.game.over:
            return
        yield
        env.step(pick(env.encoding, env.action_mask(), rng))


# ---------------------------------------------------------------------- PettingZoo's tests


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_pettingzoo_api_test(config: Config) -> None:
    # A duel ends within 1000 cycles: the test then covers the end and the dead steps.
    cycles = 1000 if config[0] == "fasolki+duel" else 60
    api_test(bohnanza_v0.env(rules=config[0], players=config[1], options=config[2]), cycles)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_pettingzoo_seed_test(config: Config) -> None:
    def build() -> Any:
        return bohnanza_v0.env(rules=config[0], players=config[1], options=config[2])

    seed_test(build, num_cycles=40)


def test_api_test_through_a_whole_game_with_trading() -> None:
    # Complete games of a trading rule set, ends and dead steps included.
    env = bohnanza_v0.env(rules="fasolki", players=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=2000)
    assert env.unwrapped.game is not None


# ---------------------------------------------------------------------- the action mask


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_every_masked_in_action_is_legal(config: Config) -> None:
    env = make_env(config)
    enc = env.encoding
    used: collections.Counter[str] = collections.Counter()
    for seed in (1, 2):
        for _ in rollout(env, seed, 700):
            game = env.game
            assert game is not None
            mask = env.action_mask()
            assert mask.dtype == np.int8 and mask.shape == (enc.n_actions,)
            assert mask.any(), "the agent to act has no action"
            assert env.agent_selection == f"player_{env.seat}"
            view = env.view()
            for i in np.flatnonzero(mask):
                action = enc.decode(view, int(i))
                name = enc.segment_of(int(i))[0]
                used[name] += 1
                # A module action's card, by the place it is named from (o1, r1, h1…).
                words = enc.describe(int(i)).split()
                if name in {s.type for s in enc.shapes} and len(words) > 1:
                    used[f"{name} {words[1].rstrip('0123456789')}"] += 1
                if action is None:
                    assert name == PASS and not env.required
                else:
                    assert game.is_legal(env.seat, action), (enc.describe(int(i)), action)
            # the pass exists exactly where the seat is not required to act
            assert bool(mask[enc.base(PASS)]) == (not env.required)
    assert used["plant"] and used["harvest"]
    if config[0] == "fasolki+duel":
        # Derived from the shapes: a card of the offer or the revealed cards planted, a
        # card of the offer or the hand discarded.
        for name in ("plant_revealed o", "plant_revealed r", "discard o", "discard h"):
            assert used[name], name
    else:
        for name in ("pass", "end_trading", "offer", "accept", "decline", "plant_traded"):
            assert used[name], name


def test_every_engine_action_of_a_required_decision_has_an_index() -> None:
    # Outside trading (where the templates are a chosen sample), the encoding names every
    # action the engine lists, up to the slot bounds.
    env = make_env(("fasolki+duel", 2, {}))
    for _ in rollout(env, 5, 300):
        view = env.view()
        for action in env.legal_actions():
            assert env.encoding.index_of(view, action) is not None, action


def test_decode_of_index_of_is_the_engine_action() -> None:
    env = make_env(("classic", 4, {}))
    for _ in rollout(env, 3, 400):
        view = env.view()
        for action in env.legal_actions():
            i = env.encoding.index_of(view, action)
            if i is None or action.type.value == "accept":
                continue
            assert env.encoding.decode(view, i) == action


def test_segments_tile_the_action_space_and_every_index_has_a_name() -> None:
    for r in all_rulesets():
        cfg = make_config(r["rules"], r["min_players"])
        enc = Encoding(cfg)
        ends = sorted(enc.segments.values())
        assert ends[0][0] == 0
        for (s1, n1), (s2, _) in itertools.pairwise(ends):
            assert s1 + n1 == s2
        assert sum(n for _, n in ends) == enc.n_actions
        for i in range(enc.n_actions):
            assert enc.describe(i)
        if r["rules"] != "fasolki+duel":
            assert enc.offer_index(1, 0, 1, None) == enc.base("offer")


def test_fasolkopajaki_bluff_template_declares_red() -> None:
    cfg = make_config("fasolki+fasolkopajaki", 3)
    black = [c for c in range(cfg.deck_size) if cfg.card_kind[c] == "black"]
    # Seat 0's hand: a Cowboy, then a black Fasolkopajak.
    game = Game(cfg, seed=1, deck=["cowboy", black[0], "cowboy", "cowboy", "cowboy"])
    env = bohnanza_v0.raw_env(rules="fasolki+fasolkopajaki", players=3)
    env.reset(seed=0)
    env.set_game(game)
    enc = env.encoding
    env.step(enc.base("plant"))  # the Cowboy
    env.step(enc.base("stop_planting"))
    assert game.phase == "trade" and env.seat == 0
    bluff = [i for i, gc in enumerate(enc.give_classes) if gc.declared == "red"]
    assert len(bluff) == 1
    assert enc.give_classes[bluff[0]].variety == cfg.varieties.index("fasolkopajak")
    mask = env.action_mask()
    for partner in (1, 2):
        i = enc.offer_index(partner, bluff[0], 1, None)
        assert mask[i]
        action = enc.decode(env.view(), i)
        assert action is not None and action.offer is not None
        assert action.offer.give == (black[0],) and action.offer.declared == ("red",)
        assert game.is_legal(0, action)
    assert not mask[enc.offer_index(1, bluff[0], 2, None)]  # only one black card


def test_fasolufka_child_placement_and_lady_move() -> None:
    cfg = make_config("fasolki+fasolufka", 3)
    base = Game(cfg, seed=3)
    data = base.to_dict()

    def take(kind: str) -> int:
        card = next(
            c for c in data["draw"] if cfg.variety_of(c) == "cowboy" and cfg.card_kind[c] == kind
        )
        data["draw"].remove(card)
        return int(card)

    lady, man, child = take("lady"), take("man"), take("child")
    data["fields"][1][0] = [lady]
    data["fields"][1][1] = [man]
    data["trade"][1] = [child]
    data["phase"] = "trade"
    data["pending"] = [1, "place_child", child]
    env = bohnanza_v0.raw_env(rules="fasolki+fasolufka", players=3)
    env.reset(seed=0)
    env.set_game(Game.from_dict(data))
    enc = env.encoding
    assert env.agent_selection == "player_1" and env.required
    mask = env.action_mask()
    assert list(np.flatnonzero(mask)) == [enc.base("place_child"), enc.base("place_child") + 1]
    env.step(enc.base("place_child"))  # onto the lady's field: she may move
    mask = env.action_mask()
    # The lady is one below the top card (the child) of field 0; the last index: no move.
    start, size = enc.segments["move_lady"]
    assert list(np.flatnonzero(mask)) == [start + 1, start + size - 1]
    assert enc.decode(env.view(), start + size - 1) == Action.of("move_lady", None)
    env.step(start + 1)
    assert env.game is not None and env.game.fields[1][0] == [child, lady]


def test_fasolufka_buy_pays_with_the_canonical_coins_and_sees_only_its_own_r_lady_10() -> None:
    # R-LADY-10: the one buy index pays with the canonical choice (bohnanza.coins); the
    # observation counts the observer's own coins, never another seat's.
    from bohnanza.coins import choose_coins

    def state(swap: bool) -> Game:
        data = Game(make_config("fasolki+fasolufka", 3), seed=3).to_dict()
        data["treasury"][0] = data["draw"][:4]
        data["treasury"][1] = data["draw"][4:6]
        del data["draw"][:6]
        if swap:  # another card, of another variety, in seat 1's treasury
            cfg = make_config("fasolki+fasolufka", 3)
            old = data["treasury"][1][0]
            j = next(
                i for i, c in enumerate(data["draw"]) if cfg.variety_of(c) != cfg.variety_of(old)
            )
            data["treasury"][1][0], data["draw"][j] = data["draw"][j], old
        return Game.from_dict(data)

    env, twin = make_env(("fasolki+fasolufka", 3, {})), make_env(("fasolki+fasolufka", 3, {}))
    env.reset(seed=0)
    twin.reset(seed=0)
    env.set_game(state(False))
    twin.set_game(state(True))
    enc = env.encoding
    game = env.game
    assert game is not None and env.agent_selection == "player_0"
    view = game.view(0)
    buy = enc.base("buy_field")
    assert env.action_mask()[buy] == 1
    coins = choose_coins(view)
    assert len(coins) == 3 and set(coins) <= set(game.treasury[0])
    assert enc.decode(view, buy) == Action.buy_field(coins)
    assert enc.index_of(view, Action.buy_field(tuple(game.treasury[0][:3]))) == buy
    s, size = enc.obs_parts["treasury"]
    obs = env.observe("player_0")["observation"]
    assert obs[s : s + size].sum() > 0
    assert np.array_equal(obs, twin.observe("player_0")["observation"])
    discard = list(game.discard)
    env.step(buy)
    assert game.discard == discard + list(coins)


# ---------------------------------------------------------------------- observations


def swapped_hand(game: Game, seat: int) -> Game | None:
    """The same state, except that one card of ``seat``'s hand (not in an open offer) is
    exchanged with a draw-pile card of another variety."""
    data = game.to_dict()
    offered = {c for _, (_, o) in game.offers.items() for c in o.give}
    for i, card in enumerate(data["hands"][seat]):
        if card in offered:
            continue
        for j, other in enumerate(data["draw"]):
            if game.variety(other) != game.variety(card):
                data["hands"][seat][i], data["draw"][j] = other, card
                return Game.from_dict(data)
    return None


@pytest.mark.parametrize(
    "config", [("classic", 4, {}), ("fasolki+fasolufka", 3, {}), ("fasolki+duel", 2, {})]
)
def test_observation_does_not_depend_on_other_hands(config: Config) -> None:
    env, left, right = make_env(config), make_env(config), make_env(config)
    left.reset(seed=0)
    right.reset(seed=0)
    checked = 0
    for step, _ in enumerate(rollout(env, 11, 600)):
        if step % 7:
            continue
        game = env.game
        assert game is not None
        observer = env.seat
        hidden = (observer + 1) % game.players
        twin = swapped_hand(game, hidden)
        if twin is None:
            continue
        left.set_game(Game.from_dict(game.to_dict()))
        right.set_game(twin)
        agent = f"player_{observer}"
        a, b = left.observe(agent), right.observe(agent)
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])
        checked += 1
    assert checked >= 10


def test_bluffed_colour_is_not_observable() -> None:
    # Seat 1 offers seat 0 a Fasolkopajak declared red: a red one, or a black one (a
    # bluff). The receiver's observations are identical.
    cfg = make_config("fasolki+fasolkopajaki", 3)
    red = next(c for c in range(cfg.deck_size) if cfg.card_kind[c] == "red")
    black = next(c for c in range(cfg.deck_size) if cfg.card_kind[c] == "black")
    obs = []
    for card in (red, black):
        deck = ["cowboy"] * 5 + [card] + ["cowboy"] * 4
        game = Game(cfg, seed=2, deck=deck)
        game.apply(0, Action.plant(0))
        game.apply(0, Action.stop_planting())
        assert game.phase == "trade"
        game.apply(1, Action.propose(Offer(0, (card,), (), ("red",))))
        env = bohnanza_v0.raw_env(rules="fasolki+fasolkopajaki", players=3)
        env.reset(seed=0)
        env.set_game(game)
        obs.append(env.observe("player_0"))
    assert np.array_equal(obs[0]["observation"], obs[1]["observation"])
    assert np.array_equal(obs[0]["action_mask"], obs[1]["action_mask"])


def test_observation_is_in_its_space_and_only_the_agent_to_act_has_a_mask() -> None:
    env = make_env(("fasolki+new-varieties", 4, {"remove": "glutton"}))
    for _ in rollout(env, 4, 200):
        for agent in env.possible_agents:
            obs = env.observe(agent)
            assert env.observation_space(agent).contains(obs)
            assert obs["action_mask"].any() == (agent == env.agent_selection)


def test_render_ansi() -> None:
    env = make_env(("classic", 4, {}), render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str)
    assert "seat 0 (you)" in text and "legal actions" in text and "plant field" in text


# ---------------------------------------------------------------------- the agent order


def test_trading_rounds_follow_the_driver() -> None:
    env = make_env(("classic", 4, {}))
    env.reset(seed=1)
    enc = env.encoding
    game = env.game
    assert game is not None
    while game.phase == "plant":
        assert env.agent_selection == "player_0" and env.required
        env.step(int(np.flatnonzero(env.action_mask())[0]))
    assert game.phase == "trade"
    order = []
    for _ in range(4):  # a quiet round: everybody passes ...
        order.append(env.agent_selection)
        assert not env.required
        env.step(enc.base(PASS))
    assert order == ["player_0", "player_1", "player_2", "player_3"]
    assert game.phase != "trade"  # ... and trading is over


def test_round_cap_ends_trading() -> None:
    env = make_env(("classic", 4, {}), max_trade_rounds=2)
    env.reset(seed=1)
    game = env.game
    assert game is not None
    while game.phase == "plant":
        env.step(int(np.flatnonzero(env.action_mask())[0]))
    start = env.encoding.base("offer")
    for _ in range(2):  # two rounds in which every seat proposes something
        for seat in range(4):
            assert env.seat == seat and game.phase == "trade"
            offers = np.flatnonzero(env.action_mask()[start:])
            assert offers.size
            env.step(start + int(offers[0]))
    assert game.phase != "trade"


def test_rewards_at_the_end() -> None:
    env = bohnanza_v0.env(rules="fasolki+duel", players=2)
    env.reset(seed=3)
    rewards: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            rewards[agent] = reward
            env.step(None)
            continue
        assert reward == 0
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    game = env.unwrapped.game
    assert game is not None and game.over and game.winners is not None
    for seat in range(2):
        expected = (1.0 if len(game.winners) == 1 else 0.0) if seat in game.winners else -1.0
        assert rewards[f"player_{seat}"] == expected


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        bohnanza_v0.raw_env(rules="classic", players=9)
    with pytest.raises(ValueError):
        bohnanza_v0.raw_env(reward="money")
    env = make_env(("classic", 4, {}))
    env.reset(seed=0)
    mask = env.action_mask()
    with pytest.raises(ValueError):
        env.step(int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(IllegalAction):
        env.step_action(None)  # phase 1 is required
    assert bohnanza_v0.raw_env(rules="fasolki+duel").config.players == 2


# ---------------------------------------------------------------------- Gymnasium wrapper


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("dict_obs", [True, False])
def test_gymnasium_check_env(dict_obs: bool) -> None:
    check_env(SingleAgentEnv(rules="classic", players=4, illegal="substitute", dict_obs=dict_obs))
    check_env(SingleAgentEnv(rules="fasolki+duel", players=2, illegal="terminate"))


def test_single_agent_episode_against_mixed_bots() -> None:
    env = SingleAgentEnv(
        rules="classic", players=4, seat=2, opponents=["random", "autarky", "autarky"], seed=5
    )
    obs, info = env.reset()
    rng = np.random.default_rng(0)
    assert np.array_equal(obs["action_mask"], info["action_mask"])
    done = False
    reward = 0.0
    steps = 0
    while not done:
        assert env.aec.seat == 2
        obs, reward, done, truncated, info = env.step(pick(env.encoding, info["action_mask"], rng))
        assert not truncated
        steps += 1
    assert reward in (-1.0, 0.0, 1.0)
    assert "scores" in info and (reward == 1.0) == (info["winners"] == [2])
    # the same seed replays the same game
    obs2, _ = env.reset(seed=7)
    obs3, _ = env.reset(seed=7)
    assert np.array_equal(obs2["observation"], obs3["observation"])


def test_single_agent_illegal_actions() -> None:
    env = SingleAgentEnv(rules="classic", players=3, seed=1)
    _, info = env.reset()
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        env.step(bad)
    env = SingleAgentEnv(rules="classic", players=3, seed=1, illegal="terminate")
    env.reset()
    _, reward, done, _, info = env.step(bad)
    assert reward == -1.0 and done and info["illegal_action"]
    with pytest.raises(ValueError):
        SingleAgentEnv(rules="classic", players=3, opponents=["random"])


# ---------------------------------------------------------------------- example, benchmark


def test_training_example_quick(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    module = runpy.run_path(str(ROOT / "examples" / "train_rl.py"))
    result = module["main"](["--quick", "--workers", "1", "--out", str(tmp_path)])
    assert (tmp_path / "learning_curve.png").stat().st_size > 1000
    assert 0.0 <= result["trained_win_rate"] <= 1.0


def test_benchmark_script_runs(capsys: pytest.CaptureFixture[str]) -> None:
    module = runpy.run_path(str(ROOT / "benchmarks" / "rl_steps.py"))
    result = module["main"](["--games", "1", "--max-steps", "300"])
    assert result["steps_per_second"] > 0
    assert "steps/s" in capsys.readouterr().out


def test_a_template_is_not_offered_twice_while_open() -> None:
    env = make_env(("classic", 4, {}))
    env.reset(seed=1)
    game = env.game
    assert game is not None
    while game.phase == "plant":
        env.step(int(np.flatnonzero(env.action_mask())[0]))
    start = env.encoding.base("offer")
    i = start + int(np.flatnonzero(env.action_mask()[start:])[0])
    env.step(i)
    for _ in range(3):
        env.step(env.encoding.base(PASS))
    assert env.seat == 0 and len(game.offers) == 1 and game.phase == "trade"
    assert not env.action_mask()[i]


def test_docstring_examples_run() -> None:
    import doctest

    from bohnanza.rl import single_agent

    for module in (bohnanza_v0, single_agent):
        result = doctest.testmod(module)
        assert result.attempted >= 3 and result.failed == 0, module.__name__


def test_coin_rewards() -> None:
    env = make_env(("fasolki+duel", 2, {}), reward="coins")
    for _ in rollout(env, 2, 2000):
        pass
    game = env.game
    assert game is not None and game.over and game.scores is not None
    a, b = game.scores
    assert env.rewards == {"player_0": float(a - b), "player_1": float(b - a)}
    assert all(env.terminations.values())
