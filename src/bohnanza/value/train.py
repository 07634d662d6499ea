"""Training a value model from data files, with held-out errors and a calibration plot.

The games of the data are split by seed, never by row (a game's rows are not
independent): games whose seed is divisible by ``HOLD_EVERY`` are held out, the model
learns from the rest. Three predictors are scored on the held-out rows: a constant (the
training rows' mean gain; the floor any model must clear), ``ridge`` and ``mlp``; the
one asked for is written, trained on the training games only, so that its held-out
figures are its own. The calibration plot bins the held-out rows by predicted final
coins and shows the mean actual final coins of each bin (a calibrated model lies on the
diagonal).
"""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .data import commit, load
from .model import ValueModel, errors, fit_mlp, fit_ridge

#: Games whose seed is divisible by this are held out (a fifth of them).
HOLD_EVERY = 5


def split(game: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """True for the held-out rows: those of games whose seed is divisible by
    :data:`HOLD_EVERY`."""
    held: np.ndarray[Any, Any] = (game % HOLD_EVERY) == 0
    return held


def calibration(
    pred_final: np.ndarray[Any, Any], final: np.ndarray[Any, Any], bins: int = 12
) -> list[dict[str, float]]:
    """Held-out rows binned by predicted final coins (equal counts): each bin's mean
    prediction, mean outcome and the outcome's standard error."""
    order = np.argsort(pred_final)
    out: list[dict[str, float]] = []
    for part in np.array_split(order, bins):
        if len(part) < 2:
            continue
        y = final[part]
        out.append(
            {
                "predicted": float(pred_final[part].mean()),
                "actual": float(y.mean()),
                "se": float(y.std(ddof=1) / np.sqrt(len(part))),
                "rows": len(part),
            }
        )
    return out


def plot_calibration(rows: list[dict[str, float]], path: str | Path, title: str) -> Path:
    """The calibration plot: mean actual final coins against mean predicted, by bin,
    with 95% error bars, and the diagonal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    xs = [r["predicted"] for r in rows]
    ys = [r["actual"] for r in rows]
    es = [1.96 * r["se"] for r in rows]
    lo = min(xs + ys) - 1
    hi = max(xs + ys) + 1
    ax.plot([lo, hi], [lo, hi], color="grey", linewidth=1, label="calibrated")
    ax.errorbar(xs, ys, yerr=es, fmt="o", label="held-out rows, by bin")
    ax.set_xlabel("predicted final coins")
    ax.set_ylabel("actual final coins (mean, 95% interval)")
    ax.set_title(title, fontsize=9)
    ax.legend()
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=100)
    plt.close(fig)
    return p


def train_value(
    data: Sequence[str | Path],
    out: str | Path,
    *,
    kind: str = "mlp",
    hidden: int = 32,
    epochs: int = 60,
    seed: int = 0,
    plot: str | Path | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Fit the model ``kind`` (``mlp`` or ``ridge``) on the training games of ``data``,
    score it and the others on the held-out games, write it to ``out`` and (with
    ``plot``) its calibration plot; returns the model's meta."""
    if kind not in ("mlp", "ridge"):
        raise ValueError(f"kind must be mlp or ridge, not {kind!r}")
    started = time.process_time()
    cols, metas = load(data)
    held = split(cols["game"])
    if held.all() or not held.any():
        raise ValueError("the data needs games on both sides of the split (seeds % 5)")
    x, gain, coins = cols["x"], cols["gain"], cols["final"] - cols["gain"]
    tr = ~held
    ridge = fit_ridge(x[tr], gain[tr])
    mlp = fit_mlp(x[tr], gain[tr], hidden=hidden, epochs=epochs, seed=seed, groups=cols["game"][tr])
    const = float(gain[tr].mean())
    scores = {
        "constant": errors(np.full(int(held.sum()), const), gain[held]),
        "ridge": errors(ridge.predict(x[held]), gain[held]),
        "mlp": errors(mlp.predict(x[held]), gain[held]),
    }
    model: ValueModel = mlp if kind == "mlp" else ridge
    pred_final = coins[held] + model.predict(x[held])
    calib = calibration(pred_final, cols["final"][held])
    meta: dict[str, Any] = {
        "target": "coins still to come (final coins less coins now)",
        "hidden": hidden if kind == "mlp" else None,
        "seed": seed,
        "commit": commit(),
        "command": command or " ".join(shlex.quote(a) for a in sys.argv),
        "data": [
            {
                k: m.get(k)
                for k in (
                    "file",
                    "rules",
                    "players",
                    "first_seed",
                    "last_seed",
                    "games",
                    "rows",
                    "commit",
                    "pool",
                    "cpu_s",
                )
            }
            for m in metas
        ],
        "split": f"held out: games whose seed % {HOLD_EVERY} == 0",
        "train_rows": int(tr.sum()),
        "heldout_rows": int(held.sum()),
        "heldout_games": len(np.unique(cols["game"][held])),
        "heldout": scores,
        "calibration": calib,
        "train_cpu_s": round(time.process_time() - started, 1),
    }
    model.meta = meta
    model.save(out)
    if plot is not None:
        r2 = scores[kind]["r2"]
        plot_calibration(
            calib,
            plot,
            f"value model ({kind}), {meta['heldout_games']} held-out games, "
            f"R² of coins to come {r2:.3f}",
        )
    return meta


__all__ = ["HOLD_EVERY", "calibration", "plot_calibration", "split", "train_value"]
