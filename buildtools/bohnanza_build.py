"""The package's build backend: setuptools, plus the compiled engine core where it can be.

A wheel (``pip install .``, ``python -m build``) compiles the engine's hot modules (listed
once, in ``pyproject.toml`` under ``[tool.bohnanza.compile]``) with mypyc, from the same
typed sources, whenever a C compiler that can build Python extensions is present: the games
are the same, only 2-3 times faster (docs/design.md, "A compiled core"). Where none is, or
the compilation fails, the wheel is pure Python and the build says so in one line on
stderr (pip shows it with ``-v``; ``bohnanza simulate`` says it again at run time).

``BOHNANZA_COMPILE`` decides instead of the probe: ``1`` compiles or fails (CI, wheel
builders: a silent fallback there would ship a slow wheel), ``0`` never compiles.

Why a backend of its own: mypyc is needed only when compiling, so it is asked for only
then (``get_requires_for_build_wheel``); and an *editable* install is always pure, since
a compiled module next to its source would keep running the old code after every edit of
that source (``BOHNANZA_COMPILE=1`` with ``-e`` is refused).
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any, Literal

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 (the rest of the PEP 517 hooks as they are)

#: What the compiled RL modules (bohnanza.rl) are type-checked against; the same as the
#: ``rl`` extra's libraries.
_RL_TYPES = ["numpy>=1.24", "gymnasium>=1.0", "pettingzoo>=1.24"]

#: The environment variable that decides the build: 1 compiled, 0 pure, unset: compiled
#: where a C compiler works.
COMPILE_VARIABLE = "BOHNANZA_COMPILE"

#: The value setup.py reads while this backend builds (``1`` or ``0``): the decision is
#: made here, once, and setup.py only follows it.
_DECIDED = "_BOHNANZA_COMPILE_DECIDED"

Mode = Literal["auto", "on", "off"]


def compile_mode() -> Mode:
    """What ``BOHNANZA_COMPILE`` asks for: ``on`` (1), ``off`` (0) or ``auto`` (unset)."""
    value = os.environ.get(COMPILE_VARIABLE, "").strip().lower()
    if value == "":
        return "auto"
    if value in ("0", "no", "false"):
        return "off"
    if value in ("1", "yes", "true"):
        return "on"
    raise SystemExit(
        f"{COMPILE_VARIABLE} must be 1 or 0 (or unset: compile where possible), not {value!r}"
    )


def compile_requested() -> bool:
    """Whether setup.py compiles: what this backend decided for the build under way, else
    the explicit switch (setup.py run by hand)."""
    decided = os.environ.get(_DECIDED)
    if decided is not None:
        return decided == "1"
    return compile_mode() == "on"


def compiler_problem() -> str | None:
    """Why no extension module could be compiled here, or None when one can.

    Compiles (not links) a file that includes ``Python.h`` with the compiler setuptools
    would use (``CC`` and ``CFLAGS`` honoured): that catches a missing compiler and
    missing Python headers in a fraction of a second, before mypyc spends a minute
    type-checking."""
    try:
        from setuptools._distutils import ccompiler, sysconfig
    except ImportError:  # pragma: no cover - setuptools without its own distutils
        return "setuptools has no C compiler support"
    with tempfile.TemporaryDirectory(prefix="bohnanza-cc-") as tmp:
        source = os.path.join(tmp, "probe.c")
        with open(source, "w", encoding="ascii") as f:
            f.write("#include <Python.h>\nint bohnanza_probe(void) { return PY_MAJOR_VERSION; }\n")
        name = "the C compiler"
        try:
            compiler = ccompiler.new_compiler()
            sysconfig.customize_compiler(compiler)
            command = getattr(compiler, "compiler_so", None)
            if command:
                name = f"the C compiler {str(command[0])!r}"
            compiler.compile([source], output_dir=tmp, include_dirs=[sysconfig.get_python_inc()])
        # Any failure means no compiled core (which distutils' error classes are raised
        # depends on how setuptools' copy of distutils was imported, so not named here).
        except Exception as exc:
            missing = isinstance(exc, FileNotFoundError) or "No such file" in str(exc)
            return f"{name} {'is missing' if missing else 'cannot build Python extensions'}"
    return None


def _say(line: str) -> None:
    print(f"bohnanza build: {line}", file=sys.stderr, flush=True)


def _fallback(reason: str) -> None:
    _say(
        f"no compiled core ({reason}); building pure Python, 2-3x slower, same games "
        f"(docs/performance.md)"
    )


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    mode = compile_mode()
    if mode == "on" or (mode == "auto" and compiler_problem() is None):
        # setuptools would run setup.py to find its own needs, which imports mypyc: the
        # list is known here (setup.py asks for nothing else).
        # mypyc type-checks what it compiles: the RL modules need their libraries' types.
        return ["mypy>=1.10", "mypy_extensions>=1.0", *_RL_TYPES]
    return list(_setuptools.get_requires_for_build_wheel(config_settings))


def _build_with(decided: bool, build: Any, *args: Any) -> str:
    previous = os.environ.get(_DECIDED)
    os.environ[_DECIDED] = "1" if decided else "0"
    try:
        return str(build(*args))
    finally:
        if previous is None:
            del os.environ[_DECIDED]
        else:
            os.environ[_DECIDED] = previous


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """A compiled wheel where possible (see the module's docstring), else a pure one."""
    args = (wheel_directory, config_settings, metadata_directory)
    mode = compile_mode()
    if mode != "auto":
        return _build_with(mode == "on", _setuptools.build_wheel, *args)
    problem = compiler_problem()
    if problem is None:
        try:
            import mypyc.build  # noqa: F401 (present: get_requires_for_build_wheel asked)
        except ImportError:
            problem = "mypyc is not installed in the build environment"
    if problem is None:
        try:
            return _build_with(True, _setuptools.build_wheel, *args)
        except (Exception, SystemExit) as exc:  # distutils reports a failed compile as SystemExit
            # The compiler's own messages are above; one short line says what it means.
            problem = "the compilation failed; the compiler's messages are above"
            if not isinstance(exc, SystemExit):  # not distutils' report of a failed command
                problem += f" ({type(exc).__name__}: {str(exc).strip()[:120]})"
    _fallback(problem)
    return _build_with(False, _setuptools.build_wheel, *args)


def _refuse_editable() -> None:
    if compile_mode() == "on":
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
    """Always pure Python: see the module's docstring."""
    _refuse_editable()
    return _build_with(
        False, _setuptools.build_editable, wheel_directory, config_settings, metadata_directory
    )
