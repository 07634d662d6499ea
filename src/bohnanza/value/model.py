"""The value model: a seat's coins still to come, from its features (:mod:`.features`).

Two kinds, both plain numpy (no torch: the search calls the model at every roll-out's
end, thousands of times a second, and a tiny network is cheaper in numpy than any
framework's call overhead):

* ``ridge``: a linear model on the standardised features and their products with the
  turns left (the same feature matters differently early and late), solved in closed
  form: the baseline that the network must beat.
* ``mlp``: one hidden layer of ``tanh`` units on the standardised features, trained by
  Adam on minibatches with weight decay and early stopping on a validation share of
  the training games.

The target is the coins the seat still gains (final coins less coins now): its spread
is smaller than the final coins', and a prediction of final coins is ``coins + model``.
A model file (``.npz``) holds the weights, the standardisation, and a ``meta`` entry
(JSON) naming the features, the training data (its files, their seeds and commits),
the commit it was trained at, and its held-out errors.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .features import FEATURES

Array = npt.NDArray[np.float64]

#: The index of ``turns_left`` among the features: the ridge model's interactions.
_TURNS = FEATURES.index("turns_left")


def _expand(x: Array) -> Array:
    """The ridge model's inputs: the features, and each times the turns left."""
    return np.concatenate([x, x * x[:, _TURNS : _TURNS + 1]], axis=1)


@dataclass
class ValueModel:
    """A trained model: ``kind`` (``ridge`` or ``mlp``), standardisation and weights."""

    kind: str
    mean: Array
    scale: Array
    weights: dict[str, Array]
    meta: dict[str, Any] = field(default_factory=dict)

    def predict(self, x: Array) -> Array:
        """Coins still to come for each row of ``x`` (rows: feature vectors)."""
        z = (np.asarray(x, dtype=np.float64) - self.mean) / self.scale
        w = self.weights
        if self.kind == "ridge":
            return _expand(z) @ w["w"] + w["b"]
        h = np.tanh(z @ w["w1"] + w["b1"])
        out: Array = h @ w["w2"] + w["b2"]
        return out

    def save(self, path: str | Path) -> Path:
        """Write the model to ``path`` (``.npz``)."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, Any] = {f"w_{k}": v for k, v in self.weights.items()}
        meta = dict(self.meta, kind=self.kind, features=list(FEATURES))
        with p.open("wb") as fh:
            np.savez(
                fh, mean=self.mean, scale=self.scale, meta=np.array(json.dumps(meta)), **arrays
            )
        return p

    @classmethod
    def load(cls, path: str | Path) -> ValueModel:
        """Read a model written by :meth:`save`; one made for other features is refused
        (ValueError), since its weights would be read against the wrong inputs."""
        with np.load(Path(path), allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            if tuple(meta.get("features", ())) != FEATURES:
                raise ValueError(f"{path}: made for other features than this version's")
            weights = {k[2:]: np.array(z[k]) for k in z.files if k.startswith("w_")}
            return cls(meta["kind"], np.array(z["mean"]), np.array(z["scale"]), weights, meta)


def _standardise(x: Array) -> tuple[Array, Array]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    return mean, scale


def fit_ridge(x: Array, y: Array, alpha: float = 1.0) -> ValueModel:
    """Least squares with an L2 penalty ``alpha`` on the standardised, expanded inputs."""
    mean, scale = _standardise(x)
    a = _expand((x - mean) / scale)
    ym = float(y.mean())
    gram = a.T @ a + alpha * np.eye(a.shape[1])
    w: Array = np.linalg.solve(gram, a.T @ (y - ym)).astype(np.float64)
    return ValueModel("ridge", mean, scale, {"w": w, "b": np.array(ym)})


def fit_mlp(
    x: Array,
    y: Array,
    *,
    hidden: int = 32,
    epochs: int = 60,
    batch: int = 256,
    lr: float = 3e-3,
    decay: float = 1e-4,
    seed: int = 0,
    groups: npt.NDArray[np.int64] | None = None,
    patience: int = 8,
) -> ValueModel:
    """One hidden layer of ``hidden`` tanh units, Adam on the mean squared error.

    A tenth of the rows (of the games, when ``groups`` names each row's game: rows of
    one game are not independent) is kept back for early stopping: training stops after
    ``patience`` epochs without a better validation error, and the best epoch's weights
    are kept. The result depends on ``seed`` only (numpy's generator)."""
    rng = np.random.default_rng(seed)
    n = len(y)
    if groups is not None:
        ids = np.unique(groups)
        held = set(rng.choice(ids, size=max(1, len(ids) // 10), replace=False).tolist())
        val = np.array([g in held for g in groups.tolist()])
    else:
        val = rng.random(n) < 0.1
    if val.all() or not val.any():
        val = np.zeros(n, dtype=bool)
        val[: max(1, n // 10)] = True
    mean, scale = _standardise(x[~val])
    z = (x - mean) / scale
    ym = float(y[~val].mean())
    ys = float(y[~val].std()) or 1.0
    t = (y - ym) / ys
    zt, tt, zv, tv = z[~val], t[~val], z[val], t[val]
    d = z.shape[1]
    params = {
        "w1": rng.normal(0.0, 1.0 / np.sqrt(d), (d, hidden)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0.0, 1.0 / np.sqrt(hidden), hidden),
        "b2": np.zeros(()),
    }
    m1 = {k: np.zeros_like(v) for k, v in params.items()}
    m2 = {k: np.zeros_like(v) for k, v in params.items()}
    b1, b2, eps = 0.9, 0.999, 1e-8
    step = 0

    def loss(zz: Array, tt_: Array) -> float:
        h = np.tanh(zz @ params["w1"] + params["b1"])
        return float(np.mean((h @ params["w2"] + params["b2"] - tt_) ** 2))

    best = loss(zv, tv)
    best_params = {k: v.copy() for k, v in params.items()}
    since = 0
    for _epoch in range(epochs):
        order = rng.permutation(len(tt))
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            zb, tb = zt[idx], tt[idx]
            h = np.tanh(zb @ params["w1"] + params["b1"])
            err = (h @ params["w2"] + params["b2"] - tb) * (2.0 / len(idx))
            dh = np.outer(err, params["w2"]) * (1.0 - h * h)
            grads = {
                "w1": zb.T @ dh + decay * params["w1"],
                "b1": dh.sum(axis=0),
                "w2": h.T @ err + decay * params["w2"],
                "b2": np.array(err.sum()),
            }
            step += 1
            for k, g in grads.items():
                m1[k] = b1 * m1[k] + (1 - b1) * g
                m2[k] = b2 * m2[k] + (1 - b2) * g * g
                mh = m1[k] / (1 - b1**step)
                vh = m2[k] / (1 - b2**step)
                params[k] = params[k] - lr * mh / (np.sqrt(vh) + eps)
        current = loss(zv, tv)
        if current < best - 1e-6:
            best, since = current, 0
            best_params = {k: v.copy() for k, v in params.items()}
        else:
            since += 1
            if since >= patience:
                break
    # Fold the target's standardisation into the output layer.
    weights = {
        "w1": best_params["w1"],
        "b1": best_params["b1"],
        "w2": best_params["w2"] * ys,
        "b2": np.array(float(best_params["b2"]) * ys + ym),
    }
    return ValueModel("mlp", mean, scale, weights)


def errors(pred: Array, y: Array) -> dict[str, float]:
    """Mean absolute and root mean squared error, and the share of variance explained."""
    diff = pred - y
    var = float(np.var(y)) or 1.0
    return {
        "mae": float(np.mean(np.abs(diff))),
        "rmse": float(np.sqrt(np.mean(diff**2))),
        "r2": 1.0 - float(np.mean(diff**2)) / var,
    }


__all__ = ["ValueModel", "errors", "fit_mlp", "fit_ridge"]
