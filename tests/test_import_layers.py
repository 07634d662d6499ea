"""The import layers (docs/design.md, "Layers"): imports point down, and above the engine
no modules import each other in a circle.

The graph is read from the source, not from ``sys.modules`` (``tests/import_graph.py``:
imports inside functions count, those under ``if TYPE_CHECKING:`` do not).

The layers are written once, here (``LAYERS``); the table in docs/design.md says the same
in words. The circles inside the engine (the core: game, actions, views, determinise,
modules) are left to the engine's own check: this file asserts only that the engine
imports nothing above it.
"""

from __future__ import annotations

import pytest

from import_graph import import_graph, strongly_connected

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
