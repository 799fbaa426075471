"""The exercises' answers, as their check lines state them, hold in the run their link opens."""

from __future__ import annotations

import pytest

from app.content import sections
from app.state import ReaderState

EXERCISES = sections("exercises")


def _checks(body: str) -> tuple[str, list[str]]:
    (link,) = [line.removeprefix("link: ") for line in body.splitlines() if line.startswith("link: ")]
    return link, [line.removeprefix("check: ") for line in body.splitlines() if line.startswith("check: ")]


def _holds(check: str, trace: dict, outcome: dict) -> bool:
    words = check.split()
    if words[0] == "outcome" and words[2] == "=":
        value, wanted = outcome[words[1]], " ".join(words[3:])
        if isinstance(value, dict):
            return " ".join(f"{k}:{v}" for k, v in value.items()) == wanted
        return str(value) == wanted
    if words[0] == "broken" and words[2] == "at":
        (report,) = [i for i in trace["invariants"] if i["id"] == words[1]]
        return report["breach"] is not None and report["breach"]["tick"] == int(words[3])
    raise ValueError(f"unknown check {check!r}")


def test_there_are_five_exercises_each_with_a_link_question_and_answer():
    assert len(EXERCISES) == 5
    for body in EXERCISES.values():
        link, checks = _checks(body)
        assert link.startswith("?") and checks
        assert "**Question.**" in body and "**Answer.**" in body


@pytest.mark.parametrize("title", list(EXERCISES))
def test_each_answer_holds_in_the_run_its_link_opens(title):
    link, checks = _checks(EXERCISES[title])
    state = ReaderState()
    assert state.apply_query(link) == []
    for check in checks:
        assert _holds(check, state.trace, state.outcome), check
    # Every invariant the answer names as broken is broken, and no other.
    named = {c.split()[1] for c in checks if c.startswith("broken")}
    if named:
        assert set(state.outcome["invariants_broken"]) == named
