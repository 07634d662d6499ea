"""The engine's files import downward only (issue 55): the static import graph of
``src/bohnanza/*.py`` and ``src/bohnanza/modules/*.py`` has no cycle. The graph is
``tests/import_graph.py``'s (imports made inside functions count, as they tie the files as
much as any other; imports under ``if TYPE_CHECKING:`` do not), cut down to these files;
``tests/test_import_layers.py`` checks the layers above them with the same graph."""

from __future__ import annotations

from import_graph import PACKAGE, SRC, import_graph, module_files, strongly_connected


def engine_graph() -> dict[str, set[str]]:
    root = SRC / PACKAGE
    names = {n for n, path in module_files().items() if path.parent in (root, root / "modules")}
    graph = import_graph()
    return {name: graph[name] & names for name in names}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module."""
    return sorted(sorted(c) for c in strongly_connected(graph) if len(c) > 1)


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


def test_no_module_of_the_package_is_in_a_circle() -> None:
    """Beyond the core: the agents' registry (``agents/registry.py``) imports every bot and
    no bot imports it (``valuesearch`` reads its parameters from ``agents/params.py``)."""
    graph = import_graph()
    assert _cycles(graph) == []


def test_a_cycle_is_found() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
