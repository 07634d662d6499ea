"""Traceability: every rule ID of RULES.md §6–§9 is cited by a test in this folder."""

from __future__ import annotations

import re
from pathlib import Path

MODULE_RULES = [
    "R-NEW-67",
    "R-NEW-45",
    "R-NEW-3",
    "R-FARM-1",
    "R-FARM-2",
    "R-RACE-1",
    "R-RACE-2",
    "R-BLUFF-1",
    "R-BLUFF-2",
    *(f"R-LADY-{i}" for i in range(1, 10)),
    *(f"R-DUEL-{i}" for i in range(1, 5)),
]


def test_every_module_rule_is_cited_by_a_test():
    here = Path(__file__).parent
    text = "\n".join(
        p.read_text(encoding="utf-8")
        for p in sorted(here.glob("test_*.py"))
        if p.name != Path(__file__).name
    )
    names = " ".join(re.findall(r"def (test_\w+)", text))
    for rule in MODULE_RULES:
        as_name = rule.lower().replace("-", "_")
        cited = re.search(re.escape(rule) + r"(?!\d)", text) or re.search(
            re.escape(as_name) + r"(?!\d)", names
        )
        assert cited, f"{rule} is not cited by any module test"
