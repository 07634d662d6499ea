"""The import layers (docs/design.md, "Layers"): imports point down, and above the engine
no modules import each other in a circle.

The graph is read from the source, not from ``sys.modules``: every ``import`` and
``from ... import`` of a ``bohnanza`` module, relative ones resolved, inside functions
too (a deferred import is still a dependency), except under ``if TYPE_CHECKING:`` (an
annotation's import, which never runs). ``from pkg import name`` is an edge to
``pkg.name`` where that is a module, else to ``pkg``.

The layers are written once, here (``LAYERS``); the table in docs/design.md says the same
in words. The circles inside the engine (the core: game, actions, views, determinise,
modules) are left to the engine's own check: this file asserts only that the engine
imports nothing above it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "bohnanza"

#: The layers, top first: a module may import its own layer and the ones below it.
#: A pattern ``name`` is that module, ``name.*`` the modules below it too; a module
#: belongs to the layer of its most specific pattern (the longest, an exact name before
#: a ``.*`` of the same name).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "command line",
        (
            "bohnanza.__main__",
            "bohnanza.cli",
            "bohnanza.run_options",
            "bohnanza.train_command",
            "bohnanza.tournament.command",
            "bohnanza.tournament.balance_command",
            "bohnanza.tournament.benchmark_command",
            "bohnanza.web",  # the package itself: it exports ``serve``
            "bohnanza.web.__main__",
            "bohnanza.web.command",
            "bohnanza.web.load",
        ),
    ),
    ("web", ("bohnanza.web.*",)),
    (
        "front ends",
        (
            "bohnanza.bench",
            "bohnanza.rl.*",
            "bohnanza.simulate",
            "bohnanza.terminal",
            "bohnanza.textarena",
            "bohnanza.tournament.*",
        ),
    ),
    ("engine", ("bohnanza.*",)),
)

ENGINE = "engine"


def module_files() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    out = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        elif isinstance(child, ast.If) and _type_checking(child):
            for other in child.orelse:
                yield from _imports(ast.Module(body=[other], type_ignores=[]))
        else:
            yield from _imports(child)


def import_graph() -> dict[str, set[str]]:
    """Each module and the package modules it imports (itself left out)."""
    files = module_files()

    def known(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str | None] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets.update(known(a.name) for a in node.names if a.name.split(".")[0] == PACKAGE)
                continue
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            if base.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                targets.add(full if full in files else known(base))
        graph[name] = {t for t in targets if t is not None and t != name}
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components, iteratively (no recursion limit to meet)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                found.append(sorted(component))
    return found


def _specificity(pattern: str, module: str) -> tuple[int, int] | None:
    if pattern.endswith(".*"):
        stem = pattern[:-2]
        if module == stem or module.startswith(stem + "."):
            return (len(stem), 0)
        return None
    return (len(pattern), 1) if module == pattern else None


def layer_of(module: str) -> int:
    """The index in ``LAYERS`` (0: the top) of the module's layer."""
    best: tuple[tuple[int, int], int] | None = None
    for number, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            score = _specificity(pattern, module)
            if score is not None and (best is None or score > best[0]):
                best = (score, number)
    assert best is not None, f"{module} is in no layer"
    return best[1]


GRAPH = import_graph()
NAMES = [name for name, _ in LAYERS]


def test_the_graph_is_read() -> None:
    """Known edges of each kind are found: absolute, relative, inside a function, and
    ``from package import module``; an import under TYPE_CHECKING is not one."""
    assert "bohnanza.rules" in GRAPH["bohnanza.cli"]  # from .rules import ...
    assert "bohnanza.web.app" in GRAPH["bohnanza.web.command"]  # inside serve()
    assert "bohnanza.web.store" in GRAPH["bohnanza.web.app"]
    assert "bohnanza.actions" not in GRAPH["bohnanza.cli"]  # only under TYPE_CHECKING
    assert len(GRAPH) > 100


def test_every_pattern_names_modules() -> None:
    """A renamed or deleted file does not quietly leave its layer."""
    for _, patterns in LAYERS:
        for pattern in patterns:
            assert any(_specificity(pattern, m) for m in GRAPH), f"{pattern} matches no module"


@pytest.mark.parametrize("layer", [n for n in NAMES if n != ENGINE])
def test_no_circles_above_the_engine(layer: str) -> None:
    """Above the engine, no modules import each other in a circle (the web: a lower module
    holds what two modules share, such as ``waiting.your_turn``)."""
    number = NAMES.index(layer)
    circles = [
        c for c in strongly_connected(GRAPH) if len(c) > 1 and any(layer_of(m) == number for m in c)
    ]
    assert not circles, f"import circles in the {layer} layer: {circles}"


def test_imports_point_down() -> None:
    """No module imports one of a layer above its own: the engine never imports the front
    ends, the web or the command line, the web never the command line."""
    upward = sorted(
        f"{source} ({NAMES[layer_of(source)]}) imports {target} ({NAMES[layer_of(target)]})"
        for source, targets in GRAPH.items()
        for target in targets
        if layer_of(target) < layer_of(source)
    )
    assert not upward, "\n".join(upward)
