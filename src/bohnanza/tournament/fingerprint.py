"""A fingerprint of an agent's code and parameters, so that a resumed tournament never
mixes games played by an older version of a bot with new ones (issues 36 and 53).

**Which code.** The modules that define the agent (its factory's class and that class's
bases, or its factory function), the engine that plays every game (:data:`ENGINE`: the
driver, and through it the game, its rules and modules) and everything those modules
import, transitively, within their own top-level packages: the imports are read from the
source (``import x``, ``from .x import y``, at the top or inside a function, where the
search imports the driver), so a module counts whether or not this process has imported
it yet. A module that imports its own package's modules by a computed name
(``import_module(f"{__name__}.{file}")``, as :mod:`bohnanza.modules` loads the rule
modules' hooks) counts every module of its package. Not followed: imports of other
top-level packages (numpy, the standard library), and packages around a module (importing
``bohnanza.agents.base`` runs ``bohnanza/agents/__init__.py``, whose other agents do not
play). The rules' data file (:data:`DATA`) counts as well.

**Which bytes.** Each module's ``.py`` source, by content, whichever build is installed.
A compiled install (mypyc, ``BOHNANZA_COMPILE=1``) keeps the ``.py`` next to each
extension module, and the games are the same as the pure build's: the source is what
decides them. Its extension modules are no witness: each is a small stub that names the
random folder it was built in, so rebuilding the same source changed the old fingerprint
(it hashed the stub, issue 53). Only a module shipped without its source is hashed by its
extension's bytes.

**Which parameters.** The keyword arguments its spec gives; a text argument naming an
existing file (``rl:runs/policy.npz``) also counts by the file's content.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import importlib.util
import inspect
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..agents.specs import resolve_agent

#: The modules that play every game, whatever the agents: the driver (and through its
#: imports the game, views, schedule, rules and cards) and the seeding formulas.
ENGINE = ("bohnanza.driver", "bohnanza.seeding")
#: Package data that decides games: the rule sets, cards and modules (relative to the
#: ``bohnanza`` package's folder).
DATA = ("data/cards.toml",)

#: Where a top-level package's (or module's) files are: folders of a package, or the one
#: file of a top-level module. Tests give their own, to fingerprint a tree on disk.
Locator = Callable[[str], Sequence[Path]]


def installed(top: str) -> list[Path]:
    """The folders of the top-level package ``top`` as this process would import it (or
    the file of a top-level module), without importing anything beneath it."""
    module = sys.modules.get(top)
    spec = getattr(module, "__spec__", None) if module is not None else None
    if spec is None:
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return [Path(p) for p in spec.submodule_search_locations]
    return [Path(spec.origin)] if spec.origin and spec.has_location else []


def _candidates(name: str, locate: Locator) -> Iterator[tuple[Path, bool]]:
    """Files that could hold module ``name``: (path, whether it is a package's
    ``__init__``), source files first."""
    top, _, rest = name.partition(".")
    parts = rest.split(".") if rest else []
    for base in locate(top):
        if base.is_file():  # a top-level module: only the module itself
            if not parts:
                yield base, False
            continue
        folder = base.joinpath(*parts)
        yield folder / "__init__.py", True
        if parts:
            yield folder.with_name(folder.name + ".py"), False
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            yield folder / f"__init__{suffix}", True
            if parts:
                yield folder.with_name(folder.name + suffix), False


def module_file(name: str, locate: Locator = installed) -> tuple[Path, bool] | None:
    """The file whose content stands for module ``name`` - its ``.py`` source where there
    is one, else its compiled extension - and whether it is a package; None when the
    module is not found (a built-in or namespace module: nothing of its own to hash)."""
    found = [(p, pkg) for p, pkg in _candidates(name, locate) if p.is_file()]
    for path, package in found:
        if path.suffix == ".py":
            return path, package
    return found[0] if found else None


def _imports(source: str, name: str, package: bool) -> tuple[set[str], bool]:
    """The absolute names ``source`` (module ``name``) imports, each as the module or, for
    ``from M import x``, both ``M`` and ``M.x`` (x may be a module; the caller keeps the
    names it finds on disk); and whether it imports modules by a computed name."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # not ours to judge: the file's bytes still count
        return set(), False
    here = name if package else name.rpartition(".")[0]
    found: set[str] = set()
    dynamic = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = here.split(".")
                if node.level > 1:
                    base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(p for p in [*base_parts, node.module or ""] if p)
            else:
                base = node.module or ""
            if base:
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__") and not (
                node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                dynamic = True
            elif called in ("import_module", "__import__") and node.args:
                value = node.args[0]
                assert isinstance(value, ast.Constant)
                found.add(str(value.value))
    return found, dynamic


#: Parsed imports by (module, whether a package, the source's SHA-256): a suite's every
#: tournament fingerprints its line-up, and parsing the engine's sources each time cost
#: a quarter of a second; the bytes are still read (and hashed) every time.
_PARSED: dict[tuple[str, bool, bytes], tuple[frozenset[str], bool]] = {}


def _read_imports(path: Path, name: str, package: bool) -> tuple[set[str], bool]:
    data = path.read_bytes()
    key = (name, package, hashlib.sha256(data).digest())
    hit = _PARSED.get(key)
    if hit is None:
        found, dynamic = _imports(data.decode("utf-8", errors="replace"), name, package)
        hit = _PARSED[key] = (frozenset(found), dynamic)
    return set(hit[0]), hit[1]


def _package_modules(package: str, folder: Path) -> Iterator[str]:
    """Every module directly in a package's folder (``.py`` files and subpackages)."""
    for path in sorted(folder.iterdir()):
        if path.name.startswith(("_", ".")) and path.name != "__init__.py":
            continue
        if path.suffix == ".py" and path.name != "__init__.py":
            yield f"{package}.{path.stem}"
        elif path.is_dir() and (path / "__init__.py").is_file():
            yield f"{package}.{path.name}"


def code_files(roots: Iterable[str], locate: Locator = installed) -> dict[str, Path]:
    """Module name → the file hashed for it, for ``roots`` and every module they import,
    transitively, within their own top-level packages (see the module's docstring)."""
    todo = list(dict.fromkeys(roots))
    packages = {name.partition(".")[0] for name in todo}
    files: dict[str, Path] = {}
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name.partition(".")[0] not in packages:
            continue
        found = module_file(name, locate)
        if found is None:
            continue
        path, package = found
        files[name] = path
        if path.suffix != ".py":
            continue  # compiled without its source: its imports cannot be read
        imported, dynamic = _read_imports(path, name, package)
        todo.extend(sorted(imported - seen))
        if dynamic and package:
            todo.extend(_package_modules(name, path.parent))
        elif dynamic:
            parent = name.rpartition(".")[0]
            if parent:
                todo.extend(_package_modules(parent, path.parent))
    return {n: files[n] for n in sorted(files)}


def factory_modules(factory: object) -> list[str]:
    """The modules defining an agent's factory: its class and that class's bases, or the
    factory function itself."""
    classes = inspect.getmro(factory) if inspect.isclass(factory) else (factory,)
    names: list[str] = []
    for c in classes:
        if c is object:
            continue
        module = getattr(c, "__module__", None)
        if isinstance(module, str) and module not in names and module != "builtins":
            names.append(module)
    return names


def data_files(locate: Locator = installed) -> dict[str, Path]:
    """The engine's data files (:data:`DATA`) as found in the ``bohnanza`` package."""
    out: dict[str, Path] = {}
    for base in locate("bohnanza"):
        for rel in DATA:
            if (base / rel).is_file() and f"bohnanza/{rel}" not in out:
                out[f"bohnanza/{rel}"] = base / rel
    return out


def digest(kwargs: Mapping[str, Any], roots: Iterable[str], locate: Locator = installed) -> str:
    """16 hex digits over ``kwargs`` and the code of ``roots`` (with :data:`ENGINE` and
    :data:`DATA`): the same while they stay the same, in any build."""
    h = hashlib.sha256()
    h.update(json.dumps(dict(kwargs), sort_keys=True, default=repr).encode())
    for value in kwargs.values():
        if isinstance(value, str) and value and Path(value).is_file():
            h.update(b"file\0" + Path(value).read_bytes())
    files = {**code_files([*roots, *ENGINE], locate), **data_files(locate)}
    for name, path in files.items():
        h.update(name.encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def fingerprint(spec: str) -> str:
    """16 hex digits: the same while the agent's code (see the module's docstring) and
    parameters stay the same."""
    resolved = resolve_agent(spec)
    return digest(resolved.kwargs, factory_modules(resolved.factory))


__all__ = [
    "DATA",
    "ENGINE",
    "code_files",
    "data_files",
    "digest",
    "factory_modules",
    "fingerprint",
    "installed",
    "module_file",
]
