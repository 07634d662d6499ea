"""Test-wide settings: the tests that only the pure-Python engine can run, the tests that
must not share the machine with each other under pytest-xdist, the long mode (tests
marked ``long`` run only with ``BOHNANZA_LONG=1``, so that the README's command stays
short; CI runs them), and a quiet start."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

import bohnanza
from long_mode import LONG  # the long mode's switch (docs/testing.md, "The long modes")

_COMPILED = bohnanza.compiled_core()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores. A fifth of the suite's time is spent
    waiting (browsers, servers, subprocesses, sleeps): with one worker a core the two cores
    of a CI machine idled 21% of the run (1,807 CPU-s in 1,145 s)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1


def _uses_ray(item: pytest.Item) -> bool:
    return item.path.name == "test_rl_ray.py" or "ray" in item.name.split("[")[0].split("_")


#: Long-mode tests named here rather than marked in their files: parameters of a fixture
#: shared with default-mode tests (the PostgreSQL side of the database outage run, whose
#: SQLite side stays in the default mode; both sides of the kill -9 under load), and
#: single tests of a file whose others stay.
LONG_IDS = {
    "tests/web/test_kill_under_load.py::test_kill_9_under_load_loses_no_acknowledged_action[postgresql]",
    # Its SQLite side too: the README command's costliest test (22-28 s); kill -9 mid-game
    # and mid-harvest on SQLite stay there (test_restart.py, test_faults.py).
    "tests/web/test_kill_under_load.py::test_kill_9_under_load_loses_no_acknowledged_action[sqlite]",
    "tests/web/test_faults.py::test_database_outage[postgresql]",
    # The README command's costliest tests whose ground a cheaper test also covers there:
    # a whole browser game (the evening, friends and module-shape games stay), the search
    # bot's memory over a whole game, the web coach's review of a whole game, a module's
    # every-check game (its cheap-check games stay), ISMCTS in a tournament, the builder
    # observation check and the last search variant outside the long mode.
    "tests/web/test_browser.py::test_a_person_plays_a_whole_game_against_bots",
    "tests/test_bots.py::test_a_counting_search_shares_its_memory_with_its_own_play",
    "tests/web/test_coach.py::test_the_review_marks_the_persons_costliest_decisions_once",
    "tests/modules/test_new_module_seams.py::test_checker_every_check_once",
    "tests/test_rl_openspiel.py::test_ismcts_in_a_tournament_plays_without_a_forfeit",
    "tests/test_rl_agent_modes.py::test_agent_observation_equals_the_environments[builder]",
    "tests/test_bots.py::test_search_variants_games_pass_the_invariant_checker"
    "[search:1it:eager:z0-fasolki+fasolufka-3-4]",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``patches_engine`` replace an engine method at run time (to show that a
    check can fail); compiled code calls its own methods directly, so under the compiled
    core (``BOHNANZA_COMPILE=1``) such a patch would not take and the test says nothing.

    Tests that start a local Ray cluster run one after the other on one xdist worker
    (``--dist loadgroup``): two clusters at once on a 2-core machine starve each other
    past their start-up timeouts. They, and the tests of ``LONG_IDS``, run in the long
    mode."""
    for item in items:
        if _uses_ray(item):
            item.add_marker(pytest.mark.xdist_group("ray"))
            # A local Ray cluster takes 10-30 s to start, and its tests run one after the
            # other on one worker: in the default mode they were the run's longest tail.
            item.add_marker(pytest.mark.long)
        if item.nodeid in LONG_IDS:
            item.add_marker(pytest.mark.long)
    if not LONG:
        later = pytest.mark.skip(reason="long mode: BOHNANZA_LONG=1 runs it (docs/testing.md)")
        for item in items:
            if item.get_closest_marker("long"):
                item.add_marker(later)
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
