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

import itertools
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .data import commit, load
from .features import FEATURES
from .model import ValueModel, errors, fit_mlp, fit_ridge

#: Games whose seed is divisible by this are held out (a fifth of them).
HOLD_EVERY = 5
#: What a model can be trained to predict (``--target``), by the data's column name.
TARGETS = {
    "gain": "coins still to come (final coins less coins now)",
    "win": "share of the win (1 for a win, 1/k for a win shared by k seats, else 0)",
}


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


def plot_calibration(
    rows: list[dict[str, float]], path: str | Path, title: str, what: str = "final coins"
) -> Path:
    """The calibration plot: mean actual ``what`` (final coins, or the share of the win)
    against mean predicted, by bin, with 95% error bars, and the diagonal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    xs = [r["predicted"] for r in rows]
    ys = [r["actual"] for r in rows]
    es = [1.96 * r["se"] for r in rows]
    pad = 1.0 if what == "final coins" else 0.05
    lo = min(xs + ys) - pad
    hi = max(xs + ys) + pad
    ax.plot([lo, hi], [lo, hi], color="grey", linewidth=1, label="calibrated")
    ax.errorbar(xs, ys, yerr=es, fmt="o", label="held-out rows, by bin")
    ax.set_xlabel(f"predicted {what}")
    ax.set_ylabel(f"actual {what} (mean, 95% interval)")
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
    target: str = "gain",
) -> dict[str, Any]:
    """Fit the model ``kind`` (``mlp`` or ``ridge``) to ``target`` (:data:`TARGETS`) on
    the training games of ``data``, score it and the others on the held-out games,
    write it to ``out`` and (with ``plot``) its calibration plot; returns the model's
    meta.

    ``gain`` is what the search's leaf adds to each seat's coins; ``win`` is the share of
    the win itself, what a game's result pays (:func:`~bohnanza.agents.search.utility`):
    coins predicted close together say little about who wins a tie on hand cards, or
    how likely a seat two coins behind is to catch up."""
    if kind not in ("mlp", "ridge"):
        raise ValueError(f"kind must be mlp or ridge, not {kind!r}")
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, not {target!r}")
    started = time.process_time()
    cols, metas = load(data)
    held = split(cols["game"])
    if held.all() or not held.any():
        raise ValueError("the data needs games on both sides of the split (seeds % 5)")
    x, y = cols["x"], cols[target]
    tr = ~held
    ridge = fit_ridge(x[tr], y[tr])
    mlp = fit_mlp(x[tr], y[tr], hidden=hidden, epochs=epochs, seed=seed, groups=cols["game"][tr])
    const = float(y[tr].mean())
    scores = {
        "constant": errors(np.full(int(held.sum()), const), y[held]),
        "ridge": errors(ridge.predict(x[held]), y[held]),
        "mlp": errors(mlp.predict(x[held]), y[held]),
    }
    model: ValueModel = mlp if kind == "mlp" else ridge
    if target == "gain":  # calibrated as final coins: coins now plus the prediction
        coins = cols["final"] - cols["gain"]
        calib = calibration(coins[held] + model.predict(x[held]), cols["final"][held])
    else:
        calib = calibration(model.predict(x[held]), y[held])
        scores["picks_winner"] = {
            k: picks_winner(m.predict(x[held]), y[held], _positions(cols, held))
            for k, m in (("ridge", ridge), ("mlp", mlp))
        }
    meta: dict[str, Any] = {
        "target": TARGETS[target],
        "predicts": target,
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
            + (f"R² of coins to come {r2:.3f}" if target == "gain" else f"R² of the win {r2:.3f}"),
            "final coins" if target == "gain" else "share of the win",
        )
    return meta


def _positions(cols: dict[str, np.ndarray[Any, Any]], rows: np.ndarray[Any, Any]) -> Any:
    """An id per recorded position (game, turn, before or after the trading) of ``rows``:
    the rows of one position are its seats."""
    after = cols["x"][rows, FEATURES.index("after_trading")]
    return cols["game"][rows] * 100_000 + cols["turn"][rows] * 2 + (after > 0.5)


def picks_winner(pred: np.ndarray[Any, Any], win: np.ndarray[Any, Any], pos: Any) -> float:
    """The share of positions whose seat with the highest prediction won (a shared win
    in part): what a win model is for, in a number a player reads."""
    order = np.argsort(pos, kind="stable")
    ids = np.unique(pos)
    bounds = [*np.searchsorted(pos[order], ids).tolist(), len(order)]
    got = 0.0
    for b, e in itertools.pairwise(bounds):
        part = order[b:e]
        got += float(win[part[int(np.argmax(pred[part]))]])
    return got / max(1, len(ids))


__all__ = [
    "HOLD_EVERY",
    "TARGETS",
    "calibration",
    "picks_winner",
    "plot_calibration",
    "split",
    "train_value",
]
