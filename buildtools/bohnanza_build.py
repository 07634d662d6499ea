"""The package's build backend: setuptools, plus an optional compiled engine core.

``BOHNANZA_COMPILE=1 pip install .`` compiles the engine's hot modules (listed once, in
``pyproject.toml`` under ``[tool.bohnanza.compile]``) with mypyc, from the same typed
sources: the games are the same, only faster (docs/design.md, "A compiled core"). Without
the variable the package is pure Python, as before.

Why a backend of its own: mypyc is needed only when compiling, so it is asked for only
then (``get_requires_for_build_wheel``), and an *editable* install refuses to compile,
because a compiled module next to its source would keep running the old code after every
edit of that source.
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 (the rest of the PEP 517 hooks as they are)

#: What the compiled RL modules (bohnanza.rl) are type-checked against; the same as the
#: ``rl`` extra's libraries.
_RL_TYPES = ["numpy>=1.24", "gymnasium>=1.0", "pettingzoo>=1.24"]

#: The environment variable that asks for the compiled core.
COMPILE_VARIABLE = "BOHNANZA_COMPILE"


def compile_requested() -> bool:
    value = os.environ.get(COMPILE_VARIABLE, "").strip().lower()
    if value in ("", "0", "no", "false"):
        return False
    if value in ("1", "yes", "true"):
        return True
    raise SystemExit(f"{COMPILE_VARIABLE} must be 1 or 0, not {value!r}")


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    if compile_requested():
        # setuptools would run setup.py to find its own needs, which imports mypyc: the
        # list is known here (setup.py asks for nothing else).
        # mypyc type-checks what it compiles: the RL modules need their libraries' types.
        return ["mypy>=1.10", "mypy_extensions>=1.0", *_RL_TYPES]
    return list(_setuptools.get_requires_for_build_wheel(config_settings))


def _refuse_editable() -> None:
    if compile_requested():
        raise SystemExit(
            f"{COMPILE_VARIABLE}=1 builds a compiled core, which an editable install cannot "
            "keep in step with its sources: install without -e "
            f"({COMPILE_VARIABLE}=1 pip install .)"
        )


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    _refuse_editable()
    return list(_setuptools.get_requires_for_build_editable(config_settings))


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    _refuse_editable()
    return str(_setuptools.build_editable(wheel_directory, config_settings, metadata_directory))
