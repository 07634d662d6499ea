"""Issue 36, an honest suite: a store remembers the agents' code and parameters, so that a
resume never mixes games of two versions of a bot; the league's seats are balanced."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bohnanza.agents import specs
from bohnanza.errors import ConfigError
from bohnanza.tournament import TournamentSpec, run_tournament
from bohnanza.tournament.fingerprint import fingerprint

BOT = '''
from bohnanza.agents import AutarkyAgent


class Mine(AutarkyAgent):
    """Plays like autarky. {note}"""
'''


def write_bot(folder: Path, note: str) -> None:
    (folder / "fp_mine.py").write_text(BOT.format(note=note), encoding="utf-8")
    sys.modules.pop("fp_mine", None)
    specs._CACHE.clear()


def test_a_resume_after_the_bots_code_changed_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    write_bot(tmp_path, "first version")
    spec = TournamentSpec("classic", 3, ("fp_mine:Mine", "autarky", "autarky"))
    out = tmp_path / "t"
    assert run_tournament(spec, 2, out, workers=1).played == 2
    assert run_tournament(spec, 3, out, workers=1).played == 1  # same code: it resumes
    before = fingerprint("fp_mine:Mine")
    write_bot(tmp_path, "second version")
    assert fingerprint("fp_mine:Mine") != before
    spec = TournamentSpec("classic", 3, ("fp_mine:Mine", "autarky", "autarky"))
    with pytest.raises(ConfigError, match=r"another version of 'fp_mine:Mine'.*--out"):
        run_tournament(spec, 4, out, workers=1)
    sys.modules.pop("fp_mine", None)
    specs._CACHE.clear()


def test_parameters_are_part_of_the_fingerprint() -> None:
    assert fingerprint("heuristic") == fingerprint("heuristic")
    assert fingerprint("heuristic:hc0.1") != fingerprint("heuristic")
    assert fingerprint("heuristic-v1") != fingerprint("heuristic")
