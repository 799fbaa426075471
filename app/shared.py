"""The model's answers that do not depend on the reader, computed once per process and shared by every
session: the sweep, the one-change table, and the runs a compare view sets beside the reader's."""

from __future__ import annotations

from functools import cache

from model import Switches, analyses, run, trace_dict


@cache
def sweep_rows() -> tuple[dict, ...]:
    """All 864 outcomes, in the model's documented order."""
    return tuple(analyses.sweep())


@cache
def sweep_summary() -> dict:
    return analyses.sweep_summary(list(sweep_rows()))


@cache
def one_change_rows() -> tuple:
    return tuple(analyses.one_change_at_a_time())


@cache
def trace_for(switches: Switches) -> dict:
    return trace_dict(run(switches))


@cache
def outcome_for(switches: Switches) -> dict:
    return run(switches, recording=False).outcome().to_dict()


@cache
def from_scratch(switches: Switches) -> dict:
    return analyses.from_scratch(switches)
