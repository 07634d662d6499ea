"""setuptools' entry point: compiles the core when the build backend decided so (a wheel
where a C compiler works, or ``BOHNANZA_COMPILE=1``; an editable install never: see
buildtools/bohnanza_build.py); every other setting is in pyproject.toml."""

from __future__ import annotations

import os
import sys
import tempfile
import tomllib
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).parent / "buildtools"))
from bohnanza_build import compile_requested

if compile_requested():
    from mypyc.build import mypycify

    with open(Path(__file__).parent / "pyproject.toml", "rb") as f:
        modules = tomllib.load(f)["tool"]["bohnanza"]["compile"]["modules"]
    # A fresh build folder each time: setuptools packs whatever lies in build/lib, so a
    # module compiled by an earlier build with another list would ship again, stale.
    base = tempfile.mkdtemp(prefix="bohnanza-compile-")
    setup(
        ext_modules=mypycify(
            [f"src/{m}" for m in modules], opt_level="3", target_dir=os.path.join(base, "c")
        ),
        options={"build": {"build_base": base}},
    )
else:
    setup()
