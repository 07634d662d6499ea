"""Held-out errors of value models on the positions of a data file, by the bot in the seat.

A model is fitted to the positions of the bots that made its data; the search scores the
positions its own roll-outs reach. This reads the held-out games of one or more data
files (seed % 5 == 0, as ``bohnanza train value`` holds them out) and gives each model's
error on every row and on the rows of each bot's seats, so that a model trained on a
second round of data (``bohnanza train value-data --pool``) can be compared with the
shipped one where it matters: the searching seats' positions.

    python benchmarks/value_heldout.py DATA.npz... --model OLD.npz --model NEW.npz [--json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from bohnanza.value.data import load
from bohnanza.value.model import ValueModel, errors
from bohnanza.value.train import split


def seat_agents(cols: dict[str, Any], metas: list[dict[str, Any]]) -> np.ndarray[Any, Any]:
    """The spec of the bot in each row's seat, from the files' ``seats`` tables (a
    policy file's path shortened to ``rl``)."""
    seats: dict[int, list[str]] = {}
    for meta in metas:
        seats.update({int(k): v for k, v in meta["seats"].items()})
    names = [seats[int(g)][int(s)] for g, s in zip(cols["game"], cols["seat"], strict=True)]
    return np.array(["rl" if n.startswith("rl:") else n for n in names])


def heldout_errors(data: list[Path], models: list[Path]) -> dict[str, Any]:
    cols, metas = load(data)
    held = split(cols["game"])
    agents = seat_agents(cols, metas)[held]
    x, y = cols["x"][held], cols["gain"][held]
    groups: dict[str, np.ndarray[Any, Any]] = {"all": np.ones(len(y), dtype=bool)}
    for name in sorted(set(agents.tolist())):
        groups[name] = agents == name
    out: dict[str, Any] = {
        "data": [str(p) for p in data],
        "heldout_games": len(np.unique(cols["game"][held])),
        "rows": {g: int(mask.sum()) for g, mask in groups.items()},
        "models": {},
    }
    for path in models:
        pred = ValueModel.load(path).predict(x)
        out["models"][str(path)] = {
            g: errors(pred[mask], y[mask]) for g, mask in groups.items() if mask.any()
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+", type=Path)
    ap.add_argument("--model", action="append", type=Path, required=True)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = heldout_errors(args.data, args.model)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"held-out games: {result['heldout_games']}")
    for path, by_group in result["models"].items():
        print(path)
        for group, e in by_group.items():
            print(
                f"  {group:40} rows {result['rows'][group]:7}  mae {e['mae']:.3f}"
                f"  rmse {e['rmse']:.3f}  r2 {e['r2']:.3f}"
            )


if __name__ == "__main__":
    main()
