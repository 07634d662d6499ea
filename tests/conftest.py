"""Test-wide settings: the tests that only the pure-Python engine can run."""

from __future__ import annotations

import pytest

import bohnanza

_COMPILED = bohnanza.compiled_core()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``patches_engine`` replace an engine method at run time (to show that a
    check can fail); compiled code calls its own methods directly, so under the compiled
    core (``BOHNANZA_COMPILE=1``) such a patch would not take and the test says nothing."""
    if not _COMPILED:
        return
    skip = pytest.mark.skip(reason="patches an engine method: plain-Python engine only")
    for item in items:
        if item.get_closest_marker("patches_engine"):
            item.add_marker(skip)
