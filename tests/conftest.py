"""Test-wide settings: the tests that only the pure-Python engine can run, the tests that
must not share the machine with each other under pytest-xdist, and a quiet start."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import bohnanza

_COMPILED = bohnanza.compiled_core()


def _uses_ray(item: pytest.Item) -> bool:
    return item.path.name == "test_rl_ray.py" or "ray" in item.name.split("[")[0].split("_")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``patches_engine`` replace an engine method at run time (to show that a
    check can fail); compiled code calls its own methods directly, so under the compiled
    core (``BOHNANZA_COMPILE=1``) such a patch would not take and the test says nothing.

    Tests that start a local Ray cluster run one after the other on one xdist worker
    (``--dist loadgroup``): two clusters at once on a 2-core machine starve each other
    past their start-up timeouts."""
    for item in items:
        if _uses_ray(item):
            item.add_marker(pytest.mark.xdist_group("ray"))
    if not _COMPILED:
        return
    skip = pytest.mark.skip(reason="patches an engine method: plain-Python engine only")
    for item in items:
        if item.get_closest_marker("patches_engine"):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _pure_core_notice_already_given(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The long-running commands say once per process that the pure core runs
    (``bohnanza.notice_pure_core``); in a test run "once" would fall on whichever test
    came first and add a line to its stderr. Tests of the notice set it back to False."""
    monkeypatch.setattr(bohnanza, "_notice_given", True)
    yield
