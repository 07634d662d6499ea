"""Issue 53, item 3: a bot's fingerprint follows the code it really runs - the engine's
modules it reaches through imports at any depth, by their source, whichever build is
installed - so that a resume refuses games of another version and accepts a rebuild of
the same source."""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from bohnanza.agents.specs import resolve_agent
from bohnanza.tournament.fingerprint import (
    ENGINE,
    code_files,
    digest,
    factory_modules,
    module_file,
)

ROOT = Path(__file__).resolve().parent.parent
BOTS = ("autarky", "heuristic", "search", "heuristic-v1")
#: Files whose edit must change a bot's fingerprint (the issue's examples).
ENGINE_FILES = ("game.py", "driver.py", "schedule.py", "rules.py", "cards.py")

FINGERPRINTS = """
import json, sys
from pathlib import Path
from bohnanza.tournament.fingerprint import fingerprint

bots, files = json.loads(sys.argv[1]), json.loads(sys.argv[2])
package = Path(sys.argv[3])
seen = {"before": {b: fingerprint(b) for b in bots}}
for name in files:
    with open(package / name, "a", encoding="utf-8") as f:
        f.write("\\n# an edit that changes nothing but the file\\n")
    seen[name] = {b: fingerprint(b) for b in bots}
print(json.dumps(seen))
"""


def copy_package(tmp_path: Path, name: str = "src") -> Path:
    """The package's sources, copied: the checkout's own are never edited (others work
    in it at the same time)."""
    target = tmp_path / name / "bohnanza"
    shutil.copytree(
        ROOT / "src" / "bohnanza",
        target,
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "static"),
    )
    return target


def roots_of(spec: str) -> list[str]:
    return factory_modules(resolve_agent(spec).factory)


def at(folder: Path) -> Callable[[str], Sequence[Path]]:
    """A locator that finds the ``bohnanza`` package in ``folder`` only."""

    def locate(top: str) -> Sequence[Path]:
        return [folder] if top == "bohnanza" else []

    return locate


def test_editing_an_engine_module_changes_the_fingerprints(tmp_path: Path) -> None:
    """``fingerprint()`` itself, in a process that imports a copy of the package: each
    edit of a module the bots reach only through others' imports (game.py under views.py
    and the driver; the driver inside a search function) changes every bot's fingerprint.
    Before issue 53 only the modules one import away counted: editing game.py changed
    neither heuristic's nor autarky's."""
    package = copy_package(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(package.parent)}
    proc = subprocess.run(
        [sys.executable, "-c", FINGERPRINTS, json.dumps(BOTS), json.dumps(ENGINE_FILES),
         str(package)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    previous = seen["before"]
    for name in ENGINE_FILES:
        now = seen[name]
        assert all(now[b] != previous[b] for b in BOTS), (name, previous, now)
        previous = now


def test_search_and_the_heuristics_cover_the_engine() -> None:
    for spec in BOTS:
        files = code_files([*roots_of(spec), *ENGINE])
        for module in ("game", "driver", "schedule", "rules", "cards", "views", "actions"):
            assert f"bohnanza.{module}" in files, (spec, module)
        # The hooks of every rule module, loaded by a computed name.
        assert "bohnanza.modules.new_varieties" in files
        # Nothing that does not play: another bot's edit does not refuse this one's resume.
        assert not any(n.startswith(("bohnanza.web", "bohnanza.tournament")) for n in files)
        assert "bohnanza.agents.llm" not in files
    assert "bohnanza.determinise" in code_files(roots_of("search"))


def fake_build(package: Path, modules: list[str], build: str) -> None:
    """What ``BOHNANZA_COMPILE=1`` installs next to each compiled module's source: an
    extension stub naming the build's random folder, and the shared library."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    for module in modules:
        source = package.parent / module
        stub = source.with_name(source.stem + suffix)
        stub.write_bytes(b"\x7fELF stub built in /tmp/bohnanza-compile-" + build.encode() * 300)
    shared = package.parent / f"{build[:20]}__mypyc{suffix}"
    shared.write_bytes(b"\x7fELF " + build.encode() * 1000)


def test_a_compiled_install_is_fingerprinted_by_its_sources(tmp_path: Path) -> None:
    """A simulated compiled install (the extension next to each compiled module's source,
    as the wheel installs them) gives the pure install's fingerprints, and so does a
    rebuild of the same source in another random build folder; an edit of the source
    changes them. Before issue 53 the stub's bytes were hashed: a rebuild changed
    ``heuristic``'s fingerprint and the resume was refused."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    modules = config["tool"]["bohnanza"]["compile"]["modules"]
    pure = copy_package(tmp_path, "pure")
    built = copy_package(tmp_path, "built")
    fake_build(built, modules, "first-build-k3j2h1")
    # Where a module has both, its source is what counts.
    found = module_file("bohnanza.game", at(built))
    assert found is not None and found[0].name == "game.py"

    def prints(package: Path) -> dict[str, str]:
        return {b: digest(resolve_agent(b).kwargs, roots_of(b), at(package)) for b in BOTS}

    first = prints(built)
    assert first == prints(pure)
    fake_build(built, modules, "second-build-x9y8z7")
    assert prints(built) == first
    game = built / "game.py"
    game.write_text(game.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    edited = prints(built)
    assert all(edited[b] != first[b] for b in BOTS)


def test_a_module_shipped_without_its_source_counts_by_its_extension(tmp_path: Path) -> None:
    package = tmp_path / "bohnanza"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (package / f"secret{suffix}").write_bytes(b"binary only")
    found = module_file("bohnanza.secret", at(package))
    assert found is not None and found[0].name == f"secret{suffix}"
    assert module_file("bohnanza.nowhere", at(package)) is None


def test_imports_are_followed_at_any_depth_and_place(tmp_path: Path) -> None:
    """Relative and absolute imports, at the top or inside a function, within the
    package; other packages are not followed."""
    package = tmp_path / "bohnanza"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "bot.py": "import json\nfrom .sub import helper\n",
        "sub/__init__.py": "",
        "sub/helper.py": "def f():\n    from ..deep import x\n    return x\n",
        "deep.py": "import bohnanza.deeper\n",
        "deeper.py": "from . import leaf as _leaf\n",
        "leaf.py": "",
        "unused.py": "",
    }
    for name, text in files.items():
        (package / name).write_text(text, encoding="utf-8")
    found = code_files(["bohnanza.bot"], at(package))
    assert set(found) == {
        "bohnanza",
        "bohnanza.bot",
        "bohnanza.sub",
        "bohnanza.sub.helper",
        "bohnanza.deep",
        "bohnanza.deeper",
        "bohnanza.leaf",
    }


@pytest.mark.parametrize("spec", ["heuristic:hc0.1", "search:40ro"])
def test_parameters_still_count(spec: str) -> None:
    from bohnanza.tournament.fingerprint import fingerprint

    assert fingerprint(spec) != fingerprint(spec.partition(":")[0])
