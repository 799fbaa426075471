"""The 864 outcomes as a golden, one combination a line: a change to any outcome of any combination
shows in the diff as the lines it changed (a duplicate post appearing in six runs, say)."""

from __future__ import annotations

from model import dumps
from model.analyses import sweep


def sweep_lines() -> str:
    return "".join(dumps(row) + "\n" for row in sweep())


def test_the_864_outcomes_are_the_golden_ones(golden):
    golden("sweep.jsonl", sweep_lines())
