"""``bohnanza.rl.train`` (needs torch and sb3-contrib, the ``train`` extra): a short run
writes checkpoints and a learning curve and resumes; behaviour-cloning data round-trips
and trains; the export plays the same logits as the torch policy."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from bohnanza.errors import ConfigError  # noqa: E402
from bohnanza.rl import train as t  # noqa: E402
from bohnanza.rl.policy import NumpyPolicy  # noqa: E402


def small(**kw: object) -> t.RunConfig:
    base: dict[str, object] = {
        "players": 3,
        "backend": "dummy",
        "pool": ["autarky", "random"],
        "hidden": [32, 32],
        "n_steps": 64,
        "batch_size": 32,
        "n_epochs": 1,
        "total_steps": 128,
        "checkpoint_every": 64,
        "eval_every": 128,
        "eval_games": 2,
        "eval_opponents": ["autarky"],
        "snapshot_every": 64,
    }
    base.update(kw)
    return t.RunConfig(**base)  # type: ignore[arg-type]


def test_short_run_checkpoints_resumes_and_exports(tmp_path: Path) -> None:
    run = tmp_path / "run"
    out = t.train(small(), str(run), log=lambda s: None)
    assert out["steps"] >= 128
    cks = sorted((run / "checkpoints").glob("ppo_*.zip"))
    assert cks and (run / "checkpoints" / f"ppo_{out['steps']}.json").is_file()
    rows = list(csv.DictReader((run / "learning_curve.csv").open()))
    assert {r["steps"] for r in rows} == {"0", str(out["steps"])}
    assert all(
        0 <= float(r["ci_low"]) <= float(r["win_rate"]) <= float(r["ci_high"]) <= 1 for r in rows
    )
    assert {r["grouped"] for r in rows} == {"False"}  # the plain argmax unless asked
    assert (run / "final.npz").is_file() and (run / "best.npz").is_file()
    assert list((run / "league").glob("snap_*.npz"))
    # A curve begun before the "grouped" column existed keeps its header on resume.
    old = [{k: v for k, v in r.items() if k != "grouped"} for r in rows]
    with (run / "learning_curve.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, [k for k in t.CURVE_FIELDS if k != "grouped"])
        w.writeheader()
        w.writerows(old)
    # A second run into the same folder is refused; --resume continues it.
    with pytest.raises(ConfigError, match="resume"):
        t.train(small(), str(run), log=lambda s: None)
    again = t.train(t.RunConfig(total_steps=256), str(run), resume=True, log=lambda s: None)
    assert again["steps"] >= 256
    assert json.loads((run / "config.json").read_text())["hidden"] == [32, 32]
    assert (run / "checkpoints" / f"ppo_{again['steps']}.zip").is_file()
    assert again["train_cpu_s"] >= out["train_cpu_s"]
    resumed = list(csv.DictReader((run / "learning_curve.csv").open()))
    assert len(resumed) > len(rows) and all(None not in r for r in resumed)
    # The export of the last checkpoint gives the torch policy's logits.
    from sb3_contrib import MaskablePPO

    ck = run / "checkpoints" / f"ppo_{again['steps']}.zip"
    meta = t.export_checkpoint(str(ck), str(tmp_path / "p.npz"))
    assert meta["steps"] == again["steps"] and meta["rules"] == "classic"
    model = MaskablePPO.load(str(ck), device="cpu")
    p = NumpyPolicy.load(tmp_path / "p.npz")
    x = np.random.default_rng(0).random((4, p.obs_size), dtype=np.float32)
    with torch.no_grad():
        feats = model.policy.extract_features(
            torch.as_tensor(x), model.policy.pi_features_extractor
        )
        ref = model.policy.action_net(model.policy.mlp_extractor.forward_actor(feats)).numpy()
    assert np.allclose(p.logits(x), ref, atol=1e-4)


def test_the_curve_can_play_the_grouped_choice(tmp_path: Path) -> None:
    """``eval_grouped`` (``--eval-grouped``) evaluates ``rl:PATH:grouped`` and says so."""
    run = tmp_path / "g"
    t.train(small(eval_grouped=True, total_steps=64, eval_every=64), str(run), log=lambda s: None)
    rows = list(csv.DictReader((run / "learning_curve.csv").open()))
    assert rows and {r["grouped"] for r in rows} == {"True"}


def test_subproc_backend_spawns(tmp_path: Path) -> None:
    out = t.train(
        small(backend="subproc", eval_every=10**9, total_steps=64),
        str(tmp_path / "r"),
        log=lambda s: None,
    )
    assert out["steps"] >= 64


def test_bc_data_round_trips_and_trains(tmp_path: Path) -> None:
    data = t.record_decisions("classic", 3, None, ["heuristic"], 3, seed=1)
    n = len(data["action"])
    assert n > 100 and data["obs"].shape[0] == n
    masks = t.dataset_masks(data)
    assert masks[np.arange(n), data["action"]].all()  # every label is a legal index
    assert (masks.sum(1) > 1).all()
    assert set(np.unique(data["outcome"])) <= {-1.0, 0.0, 1.0}
    t.save_dataset(tmp_path / "d.npz", data)
    back = t.load_dataset(tmp_path / "d.npz")
    assert set(back) == set(data)
    for k in data:
        assert np.array_equal(back[k], data[k]), k
    assert np.array_equal(t.dataset_masks(back), masks)
    cfg = small()
    summary = t.behaviour_clone(cfg, back, str(tmp_path / "bc"), epochs=3, log=lambda s: None)
    # Better than picking a legal index at random (about 1/50 of the mask here).
    chance = float(np.mean(1 / masks.sum(1)))
    assert summary["heldout_accuracy"] > chance * 3
    assert (tmp_path / "bc" / "bc_policy.pt").is_file()
    # PPO starts from it.
    out = t.train(
        small(init=str(tmp_path / "bc" / "bc_policy.pt"), total_steps=64, eval_every=10**9),
        str(tmp_path / "r"),
        log=lambda s: None,
    )
    assert out["steps"] >= 64
    with pytest.raises(ConfigError, match="does not fit"):
        t.train(
            small(init=str(tmp_path / "bc" / "bc_policy.pt"), hidden=[16]),
            str(tmp_path / "r2"),
            log=lambda s: None,
        )


def test_bc_keeps_the_best_epoch_and_stops_on_patience(tmp_path: Path) -> None:
    """The cloned network is the epoch's with the best held-out accuracy (a high
    learning rate makes later epochs worse), and ``patience`` stops the epochs early."""
    data = t.record_decisions("classic", 3, None, ["heuristic"], 4, seed=2)
    summary = t.behaviour_clone(
        small(), data, str(tmp_path / "bc"), epochs=6, lr=0.05, log=lambda s: None, patience=2
    )
    accs = [e["heldout_accuracy"] for e in summary["epochs"]]
    best = max(range(len(accs)), key=lambda i: (accs[i], -i))
    assert summary["best_epoch"] == best + 1
    assert summary["best_epoch"] < len(accs)  # this seed's clone gets worse: a real restore
    assert summary["heldout_accuracy"] == pytest.approx(accs[best])
    # It stopped two epochs after the best one, or ran them all.
    assert len(accs) == min(6, best + 3)


def test_bad_config_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="backend"):
        t.train(small(backend="mpi"), str(tmp_path / "x"))
    with pytest.raises(ConfigError):
        t.train(small(pool=["no-such-bot"]), str(tmp_path / "y"))
    with pytest.raises(ConfigError, match="nothing to resume"):
        t.train(small(), str(tmp_path / "z"), resume=True)


def test_ray_backend_trains_two_iterations_on_a_local_cluster(tmp_path: Path) -> None:
    """The trainer's Ray path end to end (issue 29): two PPO iterations with the
    environments in two Ray actors of a local cluster, their CPU counted in the run."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        out = t.train(
            small(backend="ray", n_envs=2, envs_per_actor=1, total_steps=256, eval_every=256),
            str(tmp_path / "r"),
            log=lambda s: None,
        )
    finally:
        ray.shutdown()
    assert out["steps"] >= 256
    assert sorted((tmp_path / "r" / "checkpoints").glob("ppo_*.zip"))
    meta = json.loads((tmp_path / "r" / "config.json").read_text())
    assert meta["backend"] == "ray" and meta["envs_per_actor"] == 1


@pytest.mark.long
def test_train_ppo_command_on_ray(tmp_path: Path) -> None:
    """``bohnanza train ppo --backend ray`` as the docs give it, on a local cluster the
    command starts itself: a compiled build once crashed here (RaySystemError: the
    environments' encoding could not cross to the actors)."""
    ray = pytest.importorskip("ray")
    from click.testing import CliRunner

    from bohnanza.cli import main

    run = tmp_path / "ray"
    args = ["train", "ppo", "--out", str(run), "--players", "3", "--hidden", "16,16"]
    args += ["--total-steps", "128", "--n-steps", "64", "--batch-size", "32", "--epochs", "1"]
    args += ["--backend", "ray", "--n-envs", "2", "--opponents", "random", "--eval-every", "128"]
    args += ["--eval-games", "1", "--eval-opponents", "autarky"]
    try:
        res = CliRunner().invoke(main, args)
    finally:  # the command's process would end here; this test's goes on to other tests
        ray.shutdown()
    assert res.exit_code == 0, res.output
    assert json.loads((run / "config.json").read_text())["backend"] == "ray"
    assert sorted((run / "checkpoints").glob("ppo_*.zip"))


def test_train_ppo_command_evaluates_the_grouped_choice(tmp_path: Path) -> None:
    """``bohnanza train ppo --eval-grouped`` end to end: the run config keeps the flag and
    the learning curve says that the grouped choice was played."""
    from click.testing import CliRunner

    from bohnanza.cli import main

    run = tmp_path / "cli"
    args = ["train", "ppo", "--out", str(run), "--players", "3", "--hidden", "16,16"]
    args += ["--total-steps", "64", "--n-steps", "64", "--batch-size", "32", "--epochs", "1"]
    args += ["--backend", "dummy", "--opponents", "random", "--eval-every", "64"]
    args += ["--eval-games", "2", "--eval-opponents", "autarky", "--eval-grouped"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert json.loads((run / "config.json").read_text())["eval_grouped"] is True
    rows = list(csv.DictReader((run / "learning_curve.csv").open()))
    assert rows and {r["grouped"] for r in rows} == {"True"}


def test_league_never_draws_a_pruned_snapshot(tmp_path: Path) -> None:
    """The trainer prunes old snapshots while the environments still hold an older listing
    (a 2-environment run died on ``no policy file …/snap_000053248.npz``): a pruned file is
    never drawn, and the league goes on with the snapshots that remain."""
    import shutil

    shipped = Path(t.__file__).resolve().parent.parent / "data" / "policies"
    league = tmp_path / "league"
    league.mkdir()
    for k in (1, 2, 3):
        shutil.copyfile(shipped / "classic3-bc-ppo.npz", league / f"snap_{k:09d}.npz")
    env = t.LeagueEnv(players=3, pool=["random"], league_dir=str(league), league_share=1.0)
    env.reset(seed=5)  # lists the three
    for k in (1, 2):
        (league / f"snap_{k:09d}.npz").unlink()  # pruned, as the trainer does
    for _ in range(6):
        _, info = env.reset()
        assert info["opponents"] == ["rl:" + str(league / "snap_000000003.npz")] * 2
    (league / "snap_000000003.npz").unlink()  # all gone: the pool stands in
    _, info = env.reset()
    assert info["opponents"] == ["random", "random"]


def test_builder_mode_with_memory_clones_trains_and_exports(tmp_path: Path) -> None:
    """bc and ppo in builder mode with memory: the data set's samples are builder steps
    with the memory part, PPO starts from the clone against heuristic and hc0.1, and the
    export says its mode (the rl: agent plays it: tests/test_rl_agent_modes.py)."""
    data = t.record_decisions(
        "classic", 3, None, ["heuristic"], 2, seed=2, action_mode="builder", memory=True
    )
    assert int(data["unmapped_offers"]) == 0 and int(data["offers"]) > 0
    cfg = small(action_mode="builder", memory=True, pool=["heuristic", "heuristic:hc0.1"])
    cfg.check()
    assert data["obs"].shape[1] == t.policy_meta(cfg, 0)["obs_size"]
    t.behaviour_clone(cfg, data, str(tmp_path / "bc"), epochs=1, log=lambda s: None)
    meta = NumpyPolicy.load(tmp_path / "bc" / "bc.npz").meta
    assert meta["action_mode"] == "builder" and meta["memory"] is True
    cfg.init = str(tmp_path / "bc" / "bc_policy.pt")
    cfg.total_steps, cfg.eval_every = 64, 10**9
    out = t.train(cfg, str(tmp_path / "r"), log=lambda s: None)
    assert out["steps"] >= 64


def test_sigterm_stops_a_background_run_like_ctrl_c(tmp_path: Path) -> None:
    """A run started in the background of a script ignores SIGINT (the shell's doing), so
    SIGTERM stops it as Ctrl-C does: exit 130, the checkpoints kept, the way to resume
    said."""
    import signal
    import subprocess
    import sys
    import time

    run = tmp_path / "run"
    args = [sys.executable, "-m", "bohnanza", "train", "ppo", "--out", str(run)]
    args += ["--players", "3", "--hidden", "16,16", "--opponents", "random", "--backend", "dummy"]
    args += ["--total-steps", "1000000", "--n-steps", "64", "--batch-size", "32", "--epochs", "1"]
    args += ["--checkpoint-every", "64", "--eval-every", "0", "--eval-games", "1"]
    args += ["--eval-opponents", "autarky"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not list((run / "checkpoints").glob("ppo_*.json")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no checkpoint in 120 s"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "stopped: the last checkpoint is" in err and f"--resume {run}" in err
    assert out == ""  # no summary: the run did not finish
    last = t._latest_checkpoint(run)  # a .zip stopped before its .json is not one
    assert (
        last is not None and str(last) in err
    )  # the one --resume starts from (t.train's resume: the test above)
    assert json.loads(last.with_suffix(".json").read_text())["steps"] == int(last.stem[4:])
