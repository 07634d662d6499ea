"""Reinforcement learning: a PettingZoo AEC environment with action masks
(:mod:`bohnanza.rl.bohnanza_v0`), its action/observation encoding
(:mod:`bohnanza.rl.encoding`) and a Gymnasium single-agent wrapper
(:class:`SingleAgentEnv`). See ``docs/rl.md``.

Needs the optional extra ``rl``: ``pip install -e '.[rl]'``.
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # type: ignore[import-untyped]  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"bohnanza.rl needs the optional extra 'rl' ({exc.name} is missing): pip install -e '.[rl]'"
    ) from exc

from . import bohnanza_v0
from .encoding import Encoding
from .single_agent import SingleAgentEnv

__all__ = ["Encoding", "SingleAgentEnv", "bohnanza_v0"]
