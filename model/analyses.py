"""Analyses over many runs: the sweep of all 864, one change at a time, and fail-open against fail-closed.

Every figure here is computed by running the model; none is written in.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .invariants import INVARIANT_IDS
from .schedule import Schedule
from .simulation import run
from .switches import (
    MAIN_TRACE,
    Checkpoints,
    Fencing,
    NewsletterRule,
    Pins,
    PostKey,
    Switches,
    Unversioned,
    all_switches,
    event_combinations,
)
from .trace import dumps, trace_dict

#: "One change at a time": each row weakens exactly one thing against every protection on (the main
#: trace's protections: fencing, pins, a per-operation key, the strict rule, per-step checkpoints).
ONE_CHANGE_ROWS: tuple[tuple[str, dict], ...] = (
    ("all protections on", {}),
    ("fencing off", {"fencing": Fencing.OFF}),
    ("version pins off", {"pins": Pins.OFF}),
    ("post key per attempt", {"post_key": PostKey.PER_ATTEMPT}),
    ("no post key", {"post_key": PostKey.NONE}),
    ("newsletter takes any accepted", {"newsletter": NewsletterRule.ANY_ACCEPTED}),
    ("newsletter takes latest finished", {"newsletter": NewsletterRule.LATEST_FINISHED}),
    ("end-only checkpoints", {"checkpoints": Checkpoints.END_ONLY}),
)


def sweep(unversioned: Unversioned | str = Unversioned.FAIL_OPEN) -> list[dict]:
    """The outcome of every combination, in the documented order of ``all_switches``."""
    return [
        {"switches": s.to_dict(), "outcome": run(s, recording=False).outcome().to_dict()}
        for s in all_switches(unversioned)
    ]


def digest(data) -> str:
    """The sha256 of JSON-able data as ``dumps`` writes it, to compare runs across interpreters."""
    return hashlib.sha256(dumps(data).encode("ascii")).hexdigest()


def fingerprint(rows: list[dict] | None = None) -> dict:
    """What two interpreters must agree on, byte for byte: the outcomes of all 864 and the full main
    trace. The static build, the in-browser self-check and the parity tests all compare this. ``rows``
    is a ``sweep()`` already run, so a caller that also wants the sweep runs the 864 once."""
    rows = sweep() if rows is None else rows
    return {
        "runs": len(rows),
        "sweep_digest": digest(rows),
        "main_trace_digest": digest(trace_dict(run(MAIN_TRACE))),
    }


def from_scratch(switches: Switches, schedule: Schedule | None = None) -> dict:
    """The article's counterfactual: the same run if no successor restored anything from the journal.

    Returns the model calls of every attempt with restoring (as the run is) and without, and the calls
    restoring saved, so a view can say e.g. "the rebuild cost 1 call; rebuilding everything would have
    cost 4"."""
    restored = run(switches, recording=False, schedule=schedule).outcome()
    scratch = run(switches, recording=False, restore=False, schedule=schedule).outcome()
    return {
        "calls_by_attempt": restored.calls_by_attempt,
        "from_scratch_by_attempt": scratch.calls_by_attempt,
        "model_calls": restored.model_calls,
        "from_scratch_calls": scratch.model_calls,
        "calls_saved": scratch.model_calls - restored.model_calls,
    }


@dataclass(frozen=True)
class Row:
    name: str
    changed: dict[str, str]
    runs: int
    breaks: dict[str, int]  # invariant id -> runs in which it broke
    finished: int
    calls_min: int
    calls_mean: float
    calls_max: int

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "changed": self.changed,
            "runs": self.runs,
            "breaks": self.breaks,
            "finished": self.finished,
            "calls_min": self.calls_min,
            "calls_mean": self.calls_mean,
            "calls_max": self.calls_max,
        }


def summarise(name: str, changed: dict[str, str], outcomes: list[dict]) -> Row:
    calls = [o["model_calls"] for o in outcomes]
    return Row(
        name=name,
        changed=changed,
        runs=len(outcomes),
        breaks={i: sum(i in o["invariants_broken"] for o in outcomes) for i in INVARIANT_IDS},
        finished=sum(o["finished"] for o in outcomes),
        calls_min=min(calls),
        calls_mean=round(sum(calls) / len(calls), 2),
        calls_max=max(calls),
    )


def one_change_at_a_time() -> list[Row]:
    """Each row over the 12 event combinations (silent x change x poster)."""
    rows = []
    for name, change in ONE_CHANGE_ROWS:
        base = MAIN_TRACE.replace(**change)
        outcomes = [run(s, recording=False).outcome().to_dict() for s in event_combinations(base)]
        rows.append(summarise(name, {k: v.value for k, v in change.items()}, outcomes))
    return rows


def unversioned_comparison() -> list[dict]:
    """Pins off with the strict newsletter rule: what failing open and failing closed each do."""
    result = []
    for setting in Unversioned:
        outcomes = [
            run(s, recording=False).outcome().to_dict()
            for s in all_switches(setting)
            if s.pins is Pins.OFF and s.newsletter is NewsletterRule.CURRENT_ACCEPTED
        ]
        result.append(
            {
                "unversioned": setting.value,
                "runs": len(outcomes),
                "newsletter_used_wrong": sum(o["newsletter_used_wrong"] for o in outcomes),
                "newsletter_never_started": sum(o["newsletter_started_at"] is None for o in outcomes),
                "wrong_digest_accepted": sum(o["wrong_digest_accepted"] for o in outcomes),
            }
        )
    return result


def sweep_summary(outcomes: list[dict]) -> dict:
    """Counts over a sweep: runs breaking each invariant, runs breaking none, runs that finish."""
    return {
        "runs": len(outcomes),
        "breaks": {i: sum(i in r["outcome"]["invariants_broken"] for r in outcomes) for i in INVARIANT_IDS},
        "no_invariant_broken": sum(not r["outcome"]["invariants_broken"] for r in outcomes),
        "finished": sum(r["outcome"]["finished"] for r in outcomes),
    }


#: The fields of an event's ``carries`` that say what it did: what a call read (and whether its key named
#: it), which record was written and how a restore found it, what was posted, lost or forgotten (the parts
#: a record or a restore holds, what else a call read and what a plan redoes are fields of their own). Not the
#: credentials it carried (an owner token, a pin, an operation key, the epoch): they are a protection's
#: inputs, and where a check meets them the run does something else (a write refused, a post applied).
WHAT_IT_DID = ("reads", "in_key", "by", "record", "announcement", "report", "lost", "kept")


def first_divergence(a: dict, b: dict) -> int | None:
    """The first tick at which two traces (``trace_dict`` data) part: in some lane an event of another
    kind happens, or one that did something else (``WHAT_IT_DID``), or one run has ended. None when they
    are the same tick for tick.

    Wording and credentials are not compared: with pins off, t0's admission records no pin, but the same
    thing happens; the runs really part at t5, when #2 restores by step name alone. With section 1 also
    reading section 2 (beyond the article), they part at t1, where that call reads more than its key says."""
    return next(iter(ticks_that_differ(a, b)), None)


def ticks_that_differ(a: dict, b: dict) -> list[int]:
    """Every tick at which two traces do different things (as ``first_divergence`` judges a tick), up to
    the longer run's end."""
    ticks_a, ticks_b = a["ticks"], b["ticks"]

    def did(e: dict) -> tuple:
        fields = tuple((k, e["carries"][k]) for k in WHAT_IT_DID if k in e["carries"])
        return (
            e["lane"],
            e["kind"],
            e.get("attempt"),
            e.get("step"),
            fields,
            dumps([e["parts"], e["also"], e["redo"]]),  # what it read, holds or must redo
            (e.get("reason") or {}).get("code"),
        )

    def happenings(ticks: list, tick: int) -> list | None:
        return [did(e) for e in ticks[tick]["events"]] if tick < len(ticks) else None

    return [
        tick
        for tick in range(max(len(ticks_a), len(ticks_b)))
        if happenings(ticks_a, tick) != happenings(ticks_b, tick)
    ]


def compare_runs(before: dict, after: dict) -> dict:
    """What changing the switches did to a run, from the two traces (``trace_dict`` data): which settings
    differ, every tick at which the runs do different things (the first is where they part), each
    invariant whose breach moved (its tick before and after, None for held), each run's last tick, and the
    counts that differ at the end. The explainer draws this when a reader flips a switch, so the run that
    was stays in view."""
    differs = ticks_that_differ(before, after)
    # Every setting, the advanced ones too: a trace leaves out an assumption of the article it keeps, so a
    # setting one trace names and the other does not has its default there.
    defaults = Switches().to_dict(advanced=True)
    settings = {**defaults, **before["switches"], **after["switches"]}
    switched = [
        {"switch": k, "before": was, "after": now}
        for k in settings
        if (was := before["switches"].get(k, defaults.get(k)))
        != (now := after["switches"].get(k, defaults.get(k)))
    ]
    breach = {
        name: {i["id"]: i["breach"]["tick"] if i["breach"] else None for i in trace["invariants"]}
        for name, trace in (("before", before), ("after", after))
    }
    judged = [*INVARIANT_IDS, *(i for i in {**breach["before"], **breach["after"]} if i not in INVARIANT_IDS)]
    counts = {name: trace["ticks"][-1]["counts"] for name, trace in (("before", before), ("after", after))}
    return {
        "switched": switched,
        "schedule_changed": before.get("schedule") != after.get("schedule"),
        "first": differs[0] if differs else None,
        "differs": differs,
        "invariants": [
            {"id": i, "before": breach["before"].get(i), "after": breach["after"].get(i)}
            for i in judged  # the sixth too, where either run judges it (RULES.md §8.2)
            if breach["before"].get(i) != breach["after"].get(i)
        ],
        "ends": {"before": before["end_tick"], "after": after["end_tick"]},
        "counts": {
            k: {"before": v, "after": counts["after"].get(k)}
            for k, v in counts["before"].items()
            if counts["after"].get(k) != v
        },
    }
