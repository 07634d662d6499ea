"""The value model (issue 56): data with its seeds and commit, a model that beats a
constant on held-out games, the ``valuesearch`` bot playing legal games of every rule
set, and the agent listing's forms (numpy only: no torch)."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bohnanza.agents import AGENTS, describe_agents, lobby_agents, make_agent
from bohnanza.agents.valuesearch import (
    DEFAULT_MODEL,
    DEFAULT_WIN_MODEL,
    PRUNE_Z,
    ValueSearchAgent,
    predicted_finals,
    predicted_wins,
    seat_features,
    valuesearch_parameters,
)
from bohnanza.driver import play
from bohnanza.errors import ConfigError
from bohnanza.game import Game
from bohnanza.rules import all_rulesets
from bohnanza.seeding import agent_seed
from bohnanza.value.data import generate, load, play_recorded
from bohnanza.value.features import FEATURES, features
from bohnanza.value.model import ValueModel, fit_ridge
from bohnanza.value.train import picks_winner, split, train_value

#: Quick bots only: the tests' games take a fraction of a second each.
QUICK = (("heuristic", 2.0), ("heuristic-v1", 1.0), ("autarky", 1.0))
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """Twelve 3- and 4-player games, seeds 1-12 (5 and 10 held out)."""
    path = tmp_path_factory.mktemp("value") / "d.npz"
    meta = generate(path, games=12, seed=1, players=(3, 4), pool=QUICK)
    return path, meta


@pytest.fixture(scope="module")
def model(data: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("model") / "m.npz"
    train_value([data[0]], path, kind="mlp", hidden=8, epochs=15, plot=path.with_suffix(".png"))
    return path


def test_data_file_names_its_seeds_commit_and_rows(data: tuple[Path, dict[str, Any]]) -> None:
    path, meta = data
    cols, metas = load([path])
    assert metas[0]["first_seed"] == 1 and metas[0]["last_seed"] == 12
    assert metas[0]["commit"] and metas[0]["commit"] == meta["commit"]
    assert set(cols["game"].tolist()) == set(range(1, 13))
    assert cols["x"].shape == (meta["rows"], len(FEATURES))
    # A seat's gain is its final coins less its coins then, never negative.
    assert (cols["gain"] >= 0).all() and (cols["final"] >= cols["gain"]).all()
    # Every game has rows at the turns' starts and after their trading.
    after = cols["x"][:, FEATURES.index("after_trading")]
    assert 0 < after.mean() < 1
    # Each game's win shares add up to one per recorded position.
    one = (cols["game"] == 1) & (cols["turn"] == 0)
    assert cols["win"][one].sum() == pytest.approx(cols["win"][one].sum() // 1)


def test_a_game_records_the_same_rows_again() -> None:
    a = play_recorded("classic", 3, 7, QUICK)
    b = play_recorded("classic", 3, 7, QUICK)
    assert a.x == b.x and a.gain == b.gain and a.agents == b.agents


@pytest.fixture(scope="module")
def win_model(data: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("win") / "w.npz"
    train_value([data[0]], path, kind="mlp", hidden=8, epochs=15, target="win")
    return path


def test_model_beats_a_constant_on_held_out_games(
    data: tuple[Path, dict[str, Any]], model: Path
) -> None:
    m = ValueModel.load(model)
    held = m.meta["heldout"]
    assert m.meta["heldout_games"] == 2  # seeds 5 and 10
    for kind in ("ridge", "mlp"):
        assert held[kind]["rmse"] < 0.8 * held["constant"]["rmse"], (kind, held)
    assert model.with_suffix(".png").stat().st_size > 1000
    # The file's meta names its data's seeds and commit.
    assert m.meta["data"][0]["first_seed"] == 1 and m.meta["commit"]
    # Saved and read back, it predicts the same.
    cols, _ = load([data[0]])
    again = ValueModel.load(model)
    assert np.allclose(m.predict(cols["x"][:50]), again.predict(cols["x"][:50]))


def test_win_model_predicts_the_share_of_the_win(
    data: tuple[Path, dict[str, Any]], win_model: Path, model: Path
) -> None:
    m = ValueModel.load(win_model)
    assert m.meta["predicts"] == "win" and "share of the win" in m.meta["target"]
    assert ValueModel.load(model).meta["predicts"] == "gain"
    held = m.meta["heldout"]
    assert held["mlp"]["rmse"] < held["constant"]["rmse"], held
    # The seat it rates highest wins more often than a seat picked blindly would.
    players = 3.5  # the data's 3- and 4-player games
    assert held["picks_winner"]["mlp"] > 1.0 / players, held
    # Its calibration bins are shares of the win.
    assert all(0.0 <= r["actual"] <= 1.0 for r in m.meta["calibration"])
    with pytest.raises(ValueError, match="target must be"):
        train_value([data[0]], win_model.with_name("x.npz"), target="coins")


def test_shipped_models_name_their_target_data_and_figures() -> None:
    """The two shipped models say what they predict, which games they learned from and
    how they did on the held-out ones (docs/value.md quotes these figures)."""
    gain, win = ValueModel.load(DEFAULT_MODEL), ValueModel.load(DEFAULT_WIN_MODEL)
    assert gain.meta.get("predicts", "gain") == "gain" and win.meta["predicts"] == "win"
    for m in (gain, win):
        data = m.meta["data"][0]
        assert (data["first_seed"], data["last_seed"]) == (300_001, 300_700)
        assert m.meta["commit"] and m.meta["heldout_games"] == 140
        assert m.meta["heldout"]["mlp"]["rmse"] < m.meta["heldout"]["constant"]["rmse"]
    assert win.meta["heldout"]["picks_winner"]["mlp"] > 0.5
    # The win leaf plays with the shipped model by name.
    assert make_agent("valuesearch:win:6ro", 1).win_model is not None


def test_picks_winner_reads_each_position_apart() -> None:
    pos = np.array([7, 7, 7, 3, 3, 3])
    win = np.array([0.0, 1.0, 0.0, 0.5, 0.5, 0.0])
    assert picks_winner(np.array([0.1, 0.8, 0.1, 0.9, 0.0, 0.1]), win, pos) == 0.75
    assert picks_winner(np.array([0.9, 0.0, 0.1, 0.0, 0.0, 0.9]), win, pos) == 0.0


def test_split_is_by_game_and_a_model_of_other_features_is_refused(tmp_path: Path) -> None:
    games = np.array([1, 1, 5, 5, 10, 11])
    assert split(games).tolist() == [False, False, True, True, True, False]
    x = np.random.default_rng(0).random((40, len(FEATURES)))
    m = fit_ridge(x, x[:, 0] * 3)
    p = m.save(tmp_path / "r.npz")
    with np.load(p) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["features"] = [*FEATURES, "more"]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "other.npz", **arrays)
    with pytest.raises(ValueError, match="other features"):
        ValueModel.load(tmp_path / "other.npz")


def test_features_are_a_seats_own_view() -> None:
    g = Game.new("classic", 4, seed=3, events=False)
    x = features(g.view(1))
    assert len(x) == len(FEATURES)
    with pytest.raises(ValueError):
        features(g.view(None))
    # Another seat's hidden hand does not change seat 1's features.
    g2 = g.clone()
    g2.hands[2].reverse()
    g2.invalidate_views()
    assert features(g2.view(1)) == x


@pytest.mark.parametrize(
    "rules",
    [
        pytest.param(r["rules"], marks=[] if r["rules"] == "classic" else [pytest.mark.long])
        for r in all_rulesets()
    ],
)
def test_valuesearch_plays_legal_games_of_every_rule_set(rules: str, model: Path) -> None:
    info = next(r for r in all_rulesets() if r["rules"] == rules)
    n = info["min_players"]
    g = Game.new(rules, n, seed=21, events=False)
    bot = ValueSearchAgent(agent_seed(21, 0), model=model, rollouts=6, max_candidates=3)
    agents = [bot] + [make_agent("heuristic", agent_seed(21, k)) for k in range(1, n)]
    play(g, agents, contain=True)  # an illegal answer would raise AgentFailed
    assert g.over
    if n > 2:  # a duel has no trading phase to search
        assert bot.stats()["searched"] > 0 and bot.stats()["leaves"] > 0


def test_leaf_value_is_the_predicted_margin(model: Path) -> None:
    g = Game.new("classic", 3, seed=4, events=False)
    bot = ValueSearchAgent(0, model=model, rollouts=6)
    finals = predicted_finals(bot.model, g)
    assert len(finals) == 3
    assert bot.leaf_value(g, 0) == pytest.approx(0.2 * (finals[0] - max(finals[1:])))


def test_win_leaf_adds_the_predicted_share_of_the_win(model: Path, win_model: Path) -> None:
    """R-END-4: a game is won, not its margin; the ``win`` leaf is in the units of a
    finished game's result (its share of the win plus the scaled margin)."""
    g = Game.new("classic", 3, seed=4, events=False)
    bot = ValueSearchAgent(0, model=model, win_model=win_model, rollouts=6)
    x = seat_features(g)
    finals = predicted_finals(bot.model, g, x)
    assert bot.win_model is not None
    wins = predicted_wins(bot.win_model, g, x)
    assert sum(wins) == pytest.approx(1.0) and all(0.0 <= w <= 1.0 for w in wins)
    margin = 0.2 * (finals[0] - max(finals[1:]))
    assert bot.leaf_value(g, 0) == pytest.approx(margin + wins[0])
    # A gain model is not read as a win model, nor the other way round.
    with pytest.raises(ConfigError, match="predicts gain, not win"):
        ValueSearchAgent(0, model=model, win_model=model)
    with pytest.raises(ConfigError, match="predicts win, not gain"):
        ValueSearchAgent(0, model=win_model)
    kw = valuesearch_parameters(f"win:wm={win_model}")
    assert kw == {"win": True, "win_model": str(win_model)}
    assert valuesearch_parameters("nowin") == {"win": False}
    bot2 = make_agent(f"valuesearch:20ro:m={model}:wm={win_model}", 1)
    assert isinstance(bot2, ValueSearchAgent) and bot2.win_model is not None
    assert make_agent(f"valuesearch:m={model}", 1).win_model is None  # off by default


def test_opponent_model_learns_from_refusals(model: Path) -> None:
    bot = ValueSearchAgent(0, model=model, rollouts=6)
    assert bot.opponent_keeps(1) == 0.0  # nothing seen: played as the heuristic
    bot.heuristic._refused[1] = 3.0
    bot.heuristic._accepted[2] = 2.0
    assert 0.0 < bot.opponent_keeps(1) <= 0.2 and bot.opponent_keeps(2) == 0.0
    assert ValueSearchAgent(0, model=model, adapt=False).opponent_keeps(1) == 0.0


def test_valuesearch_spec_parameters(model: Path) -> None:
    kw = valuesearch_parameters(f"turncut:noadapt:c5:40ro:z1.5:m={model}")
    assert kw == {
        "cut": "turn",
        "adapt": False,
        "max_candidates": 5,
        "rollouts": 40,
        "seconds": None,
        "z": 1.5,
        "model": str(model),
    }
    bot = make_agent(f"valuesearch:40ro:m={model}", 1)
    assert isinstance(bot, ValueSearchAgent) and bot.rollout_budget == 40
    assert bot.prune == PRUNE_Z  # pruning is the default
    assert valuesearch_parameters("noprune") == {"prune": None}
    assert make_agent(f"valuesearch:noprune:m={model}", 1).prune is None
    with pytest.raises(ConfigError, match="tcut"):
        valuesearch_parameters("nonsense")
    with pytest.raises(ConfigError, match="no value model"):
        ValueSearchAgent(0, model="/nonexistent/model.npz")


class _Enough(Exception):
    pass


class _Twin(ValueSearchAgent):
    """Samples every searched decision twice from the same random state: as ``search``
    does (every alternative every sample) and pruned, and checks what pruning changed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.checked = 0
        self.full_rollouts = 0
        self.pruned_rollouts = 0

    def _sample(
        self, det: Any, me: int, cands: Any, limit: int, deadline: float, depth: Any
    ) -> Any:
        state = self.rng.getstate()
        before = self.rollouts
        self.prune = None
        full = super()._sample(det, me, cands, limit, math.inf, depth)
        self.full_rollouts += self.rollouts - before
        self.rng.setstate(state)
        self.prune = PRUNE_Z
        before = self.rollouts
        got = super()._sample(det, me, cands, limit, math.inf, depth)
        self.pruned_rollouts += self.rollouts - before
        n = len(got[0])
        assert self.rollouts - before == sum(len(d) for d in got)
        assert got[0] == full[0][:n]  # the first candidate plays until none is left
        for k in range(1, len(cands)):
            # the same sampled states and seeds: what was played is what search played
            assert got[k] == full[k][: len(got[k])]
            if len(got[k]) < len(full[k]):  # dropped: it could no longer overrule
                assert self._hopeless(got[k]) and len(got[k]) >= 3
        if n < len(full[0]):  # stopped early: every alternative had been dropped
            assert all(self._hopeless(d) for d in got[1:])
        self.checked += 1
        if self.checked >= 12:
            raise _Enough
        return got


def test_pruning_drops_only_alternatives_that_cannot_overrule(model: Path) -> None:
    """``valuesearch``'s pruning plays the same paired samples as ``search``'s sampling
    and stops an alternative only once it is hopeless (mean more than PRUNE_Z standard
    errors below the heuristic's choice, or no difference at all)."""
    g = Game.new("classic", 3, seed=33, events=False)
    bot = _Twin(agent_seed(33, 0), model=model, rollouts=30, max_candidates=4)
    agents = [bot] + [make_agent("heuristic", agent_seed(33, k)) for k in (1, 2)]
    with pytest.raises(_Enough):
        play(g, agents)
    assert bot.checked == 12
    assert bot.pruned_rollouts < bot.full_rollouts


def test_hopeless_alternatives() -> None:
    bot = ValueSearchAgent.__new__(ValueSearchAgent)
    bot.prune = 1.0
    assert bot._hopeless([0.0, 0.0, 0.0])  # changed nothing
    assert bot._hopeless([-0.3, -0.2, -0.25])
    assert not bot._hopeless([0.3, 0.2, 0.25])
    assert not bot._hopeless([-0.5, 0.4, 0.0])  # too noisy to drop
    assert not bot._hopeless([-1.0])  # one sample has no spread to judge by


def test_registered_listed_and_offered() -> None:
    assert "valuesearch" in AGENTS and "valuesearch" in lobby_agents()
    listed = {a["name"]: a for a in describe_agents()}
    for form in ("valuesearch", "rl:PATH", "openspiel-ismcts:SIMS", "MODULE:CLASS[:KEY=VALUE...]"):
        assert listed[form]["description"], form
    assert listed["search"]["form"] == "search[:PARAMS]"


def test_shipped_policy_names_its_commit() -> None:
    folder = ROOT / "src" / "bohnanza" / "data" / "policies"
    for js in folder.glob("*.json"):
        card = json.loads(js.read_text(encoding="utf-8"))
        with np.load(folder / card["policy"]) as z:
            meta = json.loads(str(z["meta"]))
        assert meta["commit"] == card["commit"] != "unknown"


def test_the_examples_policy_plays_as_rl_path(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("train_rl", ROOT / "examples" / "train_rl.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["train_rl"] = mod  # its dataclasses look their module up
    try:
        spec.loader.exec_module(mod)
    finally:
        del sys.modules["train_rl"]
    from bohnanza.rl import SingleAgentEnv

    env = SingleAgentEnv("classic", 3, seat=0, opponents="random", seed=0)
    params = mod.init_params(env.aec.obs_size, env.aec.n_actions, 8, np.random.default_rng(0))
    args = type(
        "A",
        (),
        {
            "action_mode": "flat",
            "memory": False,
            "rules": "classic",
            "players": 3,
            "opponents": "random",
        },
    )()
    path = mod.save_example_policy(tmp_path, params, args)
    g = Game.new("classic", 3, seed=2, events=False)
    play(g, [make_agent(f"rl:{path}", 1), make_agent("random", 2), make_agent("random", 3)])
    assert g.over


def test_train_value_command(data: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    from click.testing import CliRunner

    from bohnanza.cli import main

    out = tmp_path / "m.npz"
    args = ["train", "value", str(data[0]), "--out", str(out), "--kind", "ridge"]
    got = CliRunner().invoke(main, [*args, "--plot", str(tmp_path / "c.png")])
    assert got.exit_code == 0, got.output
    shown = json.loads(got.output)
    assert shown["heldout"]["ridge"]["rmse"] < shown["heldout"]["constant"]["rmse"]
    assert ValueModel.load(out).kind == "ridge" and (tmp_path / "c.png").is_file()
    win = tmp_path / "w.npz"
    got = CliRunner().invoke(
        main, ["train", "value", str(data[0]), "--out", str(win), "--target", "win"]
    )
    assert got.exit_code == 0, got.output
    assert "picks_winner" in json.loads(got.output)["heldout"]
    assert ValueModel.load(win).meta["predicts"] == "win"


def test_worker_processes_write_the_same_rows(tmp_path: Path) -> None:
    quick = (("heuristic-v1", 1.0), ("autarky", 1.0))
    generate(tmp_path / "one.npz", games=4, seed=11, pool=quick, workers=1)
    generate(tmp_path / "two.npz", games=4, seed=11, pool=quick, workers=2)
    one, _ = load([tmp_path / "one.npz"])
    two, _ = load([tmp_path / "two.npz"])
    assert all(np.array_equal(one[k], two[k]) for k in one)


def test_value_data_command_takes_a_pool_and_refuses_a_bad_one(tmp_path: Path) -> None:
    """A second round of data is drawn from the bots that use the model (``--pool``); a
    misspelt entry is refused before any game is played, and no file is written."""
    from click.testing import CliRunner

    from bohnanza.cli import main
    from bohnanza.value.data import parse_pool

    assert parse_pool(["heuristic:hc0.1=2", "autarky=0.5", "rl=1"]) == (
        ("heuristic:hc0.1", 2.0),
        ("autarky", 0.5),
        ("rl", 1.0),
    )
    out = tmp_path / "d.npz"
    base = ["train", "value-data", "--out", str(out), "--games", "2", "--players", "3"]
    for bad, words in [
        ("heuristic", "SPEC=WEIGHT"),
        ("=2", "SPEC=WEIGHT"),
        ("heuristic=x", "not a number"),
        ("heuristic=0", "positive"),
        ("heuristic=nan", "positive"),
        ("nosuchbot=1", "unknown agent"),
    ]:
        got = CliRunner().invoke(main, [*base, "--pool", bad])
        assert got.exit_code != 0 and words in got.output, (bad, got.output)
        assert not out.exists()
    pool = ["--pool", "heuristic-v1=1", "--pool", "autarky=3"]
    got = CliRunner().invoke(main, [*base, *pool])
    assert got.exit_code == 0, got.output
    meta = json.loads(got.output)
    assert meta["pool"] == [["heuristic-v1", 1.0], ["autarky", 3.0]]
    _, stored = load([out])
    seats = {s for specs in stored[0]["seats"].values() for s in specs}
    assert seats <= {"heuristic-v1", "autarky"} and seats


def test_heldout_errors_by_seat_bot(data: tuple[Path, dict[str, Any]], model: Path) -> None:
    """``benchmarks/value_heldout.py``: each model's error on the held-out rows, all of
    them and each bot's seats apart, the rows counted once."""
    from scripts import load_script

    module = load_script("benchmarks/value_heldout.py")
    result = module.heldout_errors([data[0]], [model, DEFAULT_MODEL])
    cols, _ = load([data[0]])
    held = split(cols["game"])
    assert result["rows"]["all"] == int(held.sum()) > 0
    bots = {k for k in result["rows"] if k != "all"}
    assert bots and bots <= {spec for spec, _ in QUICK}
    assert sum(result["rows"][b] for b in bots) == result["rows"]["all"]
    mine = ValueModel.load(model).predict(cols["x"][held])
    assert math.isclose(
        result["models"][str(model)]["all"]["mae"],
        float(np.mean(np.abs(mine - cols["gain"][held]))),
    )
    assert set(result["models"]) == {str(model), str(DEFAULT_MODEL)}
