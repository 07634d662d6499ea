"""The engine's files import downward only (issue 55): the static import graph of
``src/bohnanza/*.py`` and ``src/bohnanza/modules/*.py`` has no cycle. Imports made inside
functions count (they tie the files as much as any other); imports under
``if TYPE_CHECKING:`` do not (they exist for the type checker only)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "bohnanza"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``path`` imports (relative imports resolved; a
    ``from package import name`` of a submodule counts as importing the submodule)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                _add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            # ``from package import submodule`` imports the submodule (the package is
            # imported on the way, as it is for every module inside it); any other name
            # comes from the module ``target`` itself.
            subs = [f"{target}.{alias.name}" for alias in node.names]
            if all(sub in known for sub in subs):
                for sub in subs:
                    _add(sub)
            else:
                _add(target)
                for sub in subs:
                    _add(sub, only_module=True)
        for child in ast.iter_child_nodes(node):
            visit(child)

    def _add(target: str, only_module: bool = False) -> None:
        if target in known:
            out.add(target)
        elif not only_module:
            # ``import bohnanza.x.y`` of a module outside the engine: its nearest known
            # package counts (importing a subpackage runs its __init__).
            while "." in target:
                target = target.rpartition(".")[0]
                if target in known:
                    out.add(target)
                    break

    visit(tree)
    out.discard(name)
    return out


def engine_graph() -> dict[str, set[str]]:
    files = sorted(PACKAGE.glob("*.py")) + sorted((PACKAGE / "modules").glob("*.py"))
    known = {_module_name(p) for p in files}
    return {_module_name(p): _imports(p, known) for p in files}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_the_graph_sees_the_engine() -> None:
    graph = engine_graph()
    assert "bohnanza.state" in graph["bohnanza.modules.base"]
    assert "bohnanza.shapes" in graph["bohnanza.actions"]
    assert "bohnanza.game" in graph["bohnanza.modules.fasolufka"]
    # a function-level import counts; one under TYPE_CHECKING does not
    assert "bohnanza.modules" in graph["bohnanza.game"]  # Game.__init__: hooks_for
    assert "bohnanza.game" not in graph["bohnanza.modules.base"]  # types only


def test_the_engine_imports_downward_only() -> None:
    graph = engine_graph()
    cycles = _cycles(graph)
    detail = "\n".join(
        " <-> ".join(c) + "\n  " + "; ".join(f"{m} -> {sorted(graph[m] & set(c))}" for m in c)
        for c in cycles
    )
    assert not cycles, f"import cycles among the engine's files:\n{detail}"


def test_a_cycle_is_found() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
