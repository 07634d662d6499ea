"""Issue 56 (3): learned policies in the real action space. The ``rl:PATH`` agent plays
builder-mode policies and policies with memory (it drives the builder's steps itself and
keeps the memory from the views it is shown), its observations and masks equal the
environment's for the same seat in the same seeded game, a teacher's choices decompose
into builder steps that rebuild the same engine action, and behaviour-cloning data in
builder mode names every offer the flat templates could not. Needs numpy and the rl
extra; the policies have random weights."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from bohnanza.actions import Action  # noqa: E402
from bohnanza.agents import make_agent  # noqa: E402
from bohnanza.driver import play  # noqa: E402
from bohnanza.game import Game  # noqa: E402
from bohnanza.rl import bohnanza_v0  # noqa: E402
from bohnanza.rl.policy import PolicyAgent  # noqa: E402
from bohnanza.rl.train import bot_decisions  # noqa: E402
from bohnanza.rules import make_config  # noqa: E402
from test_rl_policy import random_policy as policy_file  # noqa: E402


def random_policy(path: Path, mode: str, memory: bool, seed: int = 0) -> str:
    """A 3-player classic policy file of random weights in ``mode`` (with ``memory``)."""
    return policy_file(path, ("classic", 3, {}), seed, hidden=16, mode=mode, memory=memory, depth=1)


class Recorder:
    """Wraps a policy: every (observation, mask, index) the agent chose with."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.log: list[tuple[Any, Any, int]] = []

    def choose(self, obs: Any, mask: Any, *args: Any, **kw: Any) -> int:
        i = int(self.inner.choose(obs, mask, *args, **kw))
        self.log.append((obs.copy(), mask.copy(), i))
        return i

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def drive(path: str, mode: str, memory: bool, seed: int) -> list[tuple[int, int, Any, Any]]:
    """Play a seeded game in the environment, each seat's index chosen by its own
    ``rl:PATH`` agent (sampling, seeded) from the view the driver would hand it; per step:
    (turn, seat, the environment's observation and mask, the agent's)."""
    env = bohnanza_v0.raw_env("classic", 3, action_mode=mode, memory=memory)
    env.reset(options={"game_seed": seed})
    agents = [PolicyAgent(seed=s, path=path, temperature=1.0) for s in range(3)]
    recorders = [Recorder(a.policy) for a in agents]
    for a, r in zip(agents, recorders, strict=True):
        a.policy = r  # type: ignore[assignment]
    g = env.game
    assert g is not None
    out: list[tuple[int, int, Any, Any]] = []
    for seat, legal, choice in bot_decisions(env, agents):
        log = list(recorders[seat].log)  # the indices this one choice took
        recorders[seat].log.clear()
        if not log:
            env.step_action(choice, legal)
            continue
        for obs, mask, i in log:
            o = env.observe(env.possible_agents[seat])
            out.append((g.turn, seat, (o["observation"], o["action_mask"]), (obs, mask)))
            env.step(i)
    return out


@pytest.mark.parametrize("mode", ["flat", "builder"])
def test_agent_observation_equals_the_environments(tmp_path: Path, mode: str) -> None:
    """Without memory the agent sees exactly what the environment shows that seat, at
    every step of every decision (builder steps included), but for the trading-round
    count: a seat the driver skips (nothing legal) does not count that round (docs/rl.md).
    """
    path = random_policy(tmp_path / "p.npz", mode, False)
    enc = bohnanza_v0.raw_env("classic", 3).encoding
    tr = enc.obs_parts["trade_round"][0]
    steps = rounds_off = 0
    for seed in (3, 4):
        for _, _, (e_obs, e_mask), (a_obs, a_mask) in drive(path, mode, False, seed):
            steps += 1
            assert np.array_equal(e_mask, a_mask)
            rounds_off += int(e_obs[tr] != a_obs[tr])
            e_obs[tr] = a_obs[tr]
            assert np.array_equal(e_obs, a_obs)
    assert steps > 500
    assert rounds_off < steps * 0.02


def test_agent_memory_follows_the_environments(tmp_path: Path) -> None:
    """With memory (builder mode): the parts before the memory are the environment's; the
    memory part is the environment's for the first seat through the first turn (it has
    seen every action so far), the offers between other seats always, and the trading
    counts nearly always; the unseen-cards part may lag where the seat did not see what
    happened between two of its questions (docs/rl.md, ViewMemory)."""
    path = random_policy(tmp_path / "p.npz", "builder", True)
    env = bohnanza_v0.raw_env("classic", 3, action_mode="builder", memory=True)
    assert env.memory is not None and env.builder is not None
    start = env.encoding.obs_size + env.builder.draft_size
    tr = env.encoding.obs_parts["trade_round"][0]
    t0, t_size = env.memory.parts["trading"]
    o0, o_size = env.memory.parts["others_offers"]
    same = total = first = 0
    for turn, seat, (e_obs, e_mask), (a_obs, a_mask) in drive(path, "builder", True, 5):
        assert np.array_equal(e_mask, a_mask)
        e_obs[tr] = a_obs[tr]
        assert np.array_equal(e_obs[:start], a_obs[:start])
        e_mem, a_mem = e_obs[start:], a_obs[start:]
        if turn <= 1 and seat == 0:
            first += 1
            assert np.array_equal(e_mem, a_mem)
        assert np.array_equal(e_mem[o0 : o0 + o_size], a_mem[o0 : o0 + o_size])
        total += t_size
        same += int((e_mem[t0 : t0 + t_size] == a_mem[t0 : t0 + t_size]).sum())
    assert first > 0
    assert same > total * 0.95


@pytest.mark.parametrize(
    ("mode", "memory"), [("builder", False), ("builder", True), ("flat", True)]
)
def test_builder_and_memory_policies_play_legal_games(
    tmp_path: Path, mode: str, memory: bool
) -> None:
    """The driver plays them (the engine checks every answer), greedy and sampling."""
    path = random_policy(tmp_path / "p.npz", mode, memory)
    config = make_config("classic", 3, {}, ())
    for seed in range(2):
        g = Game(config, seed=seed)
        agents = [make_agent(f"rl:{path}", seed), make_agent("heuristic", 1)]
        agents.append(make_agent(f"rl:{path}:sample", 2))
        play(g, agents)
        assert g.over and g.scores is not None


def test_teacher_choices_decompose_into_builder_steps() -> None:
    """Every choice of a heuristic teacher, over seeded games, decomposes into builder
    steps that the masks allow and that rebuild the same engine action."""
    env = bohnanza_v0.raw_env("classic", 3, action_mode="builder")
    builder = env.builder
    assert builder is not None
    offers = payments = 0
    for seed in range(2):
        env.reset(options={"game_seed": seed})
        bots = [make_agent("heuristic", seed * 3 + k) for k in range(3)]
        for _seat, _legal, choice in bot_decisions(env, bots):
            steps = builder.steps_of(env.view(), choice)
            assert steps is not None, choice
            view = env.view()
            draft = None
            for k, i in enumerate(steps):
                assert env.action_mask()[i], (choice, k)
                step, draft = builder.step(view, i, draft)
                assert step.done == (k == len(steps) - 1)
                if not step.done:
                    env.step(i)  # the draft's next mask
            assert step.action == canonical(choice), (step.action, choice)
            offers += choice is not None and choice.offer is not None
            payments += choice is not None and bool(choice.cards)
            env.step(steps[-1])
    assert offers > 50 and payments > 5


def canonical(action: Action | None) -> Action | None:
    """The builder writes wants in variety order and no declarations where none is made."""
    if action is None or action.offer is None:
        return action
    o = action.offer
    return Action.propose(o._replace(declared=o.declared if any(o.declared) else ()))


def test_builder_mode_records_every_offer_the_flat_mode_skips() -> None:
    """Flat templates cannot name a good share of heuristic's offers (``unmapped``);
    builder mode names them all, one sample per step."""
    from bohnanza.rl.train import record_decisions

    flat = record_decisions("classic", 3, None, ["heuristic"], 2, seed=1)
    built = record_decisions("classic", 3, None, ["heuristic"], 2, seed=1, action_mode="builder")
    assert int(flat["unmapped_offers"]) > 0.2 * int(flat["offers"])
    assert int(built["unmapped"]) == 0
    assert int(built["decisions"]) == int(flat["decisions"])
    assert len(built["action"]) > len(flat["action"])
    n = int(built["n_actions"])
    masks = np.unpackbits(built["mask"], axis=1, count=n).astype(bool)
    assert masks[np.arange(len(built["action"])), built["action"]].all()


def test_only_an_unknown_action_mode_is_refused(tmp_path: Path) -> None:
    """The old refusal (flat policies without memory only) is gone: builder and memory
    policies load as agents; a mode the environment does not have is refused."""
    from bohnanza.errors import ConfigError
    from bohnanza.rl.policy import NumpyPolicy

    for mode, memory in (("builder", True), ("flat", True)):
        agent = make_agent(f"rl:{random_policy(tmp_path / f'{mode}.npz', mode, memory)}", 0)
        assert isinstance(agent, PolicyAgent) and agent.uses_memory
    path = random_policy(tmp_path / "odd.npz", "flat", False)
    p = NumpyPolicy.load(path)
    p.meta["action_mode"] = "tree"
    p.save(tmp_path / "odd2.npz")
    with pytest.raises(ConfigError, match="action mode 'tree'"):
        PolicyAgent(0, str(tmp_path / "odd2.npz"))
