"""Time per step and observation size of the TextArena environment (bohnanza.textarena):
raw, with our default (bounded) wrappers, and with TextArena's ``LLMObservationWrapper``
(which resends every earlier message); the player's own thinking is not timed.

    PYTHONPATH=src:/path/to/textarena python benchmarks/textarena_speed.py [GAMES]
"""

from __future__ import annotations

import sys
import time

import textarena as ta

from bohnanza.textarena import make_env_class, register


def first_move(observation: str) -> str:
    section = observation.rsplit("Legal moves now:\n", 1)[1].split("\n\n")[0]
    moves = [x for x in section.split("\n") if x and not x.startswith((" ", "pass"))]
    moves = [x for x in moves if not x[0].isdigit()]
    return moves[0] if moves else "pass"


def run(env: object, games: int, players: int) -> tuple[int, float, int, int]:
    """Steps, seconds, the longest observation and all observations' characters."""
    steps, spent, longest, chars = 0, 0.0, 0, 0
    for seed in range(games):
        start = time.perf_counter()
        env.reset(num_players=players, seed=seed)  # type: ignore[attr-defined]
        done = False
        while not done:
            _pid, obs = env.get_observation()  # type: ignore[attr-defined]
            spent += time.perf_counter() - start
            text = obs if isinstance(obs, str) else "\n".join(m for _p, m, _t in obs)
            longest, chars = max(longest, len(text)), chars + len(text)
            action = first_move(text)
            start = time.perf_counter()
            done, _ = env.step(action=action)  # type: ignore[attr-defined]
            steps += 1
        env.close()  # type: ignore[attr-defined]
        spent += time.perf_counter() - start
    return steps, spent, longest, chars


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    register()
    cls = make_env_class()
    for name, env in (
        ("raw", cls(rules="classic")),
        ("default wrappers", ta.make("Bohnanza-v0")),
        (
            "LLMObservationWrapper",
            ta.wrappers.ActionFormattingWrapper(ta.wrappers.LLMObservationWrapper(cls())),
        ),
    ):
        steps, spent, longest, chars = run(env, games, 4)
        print(
            f"classic, 4 players, {games} games, {name}: {steps} steps, "
            f"{spent / steps * 1e6:.0f} µs per step, longest observation {longest} "
            f"characters, {chars / games:.0f} per game"
        )


if __name__ == "__main__":
    main()
