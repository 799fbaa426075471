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


#: What an event carries that is a credential, not what it did: a protection's inputs (an owner token, the
#: epoch, a pin, an operation key). Where a check meets them the run does something else (a write refused, a
#: post applied), and that is what differs.
CREDENTIALS = ("token", "epoch", "pin", "key")
#: What an event carries that says where it sits in a count, not what it did (the post whose stored answer
#: the feed returns); like an event's ``call`` and ``records``, any earlier difference shifts it.
POSITIONS = ("post",)


def did(event: dict) -> str:
    """What an event did, as comparable data: every field of the event but its words (``text``,
    ``label``), where it sits in a count or a store (``call``, ``records``, ``POSITIONS``), the credentials
    it carried (``CREDENTIALS``) and why it happened (``reason``, and the ``why`` of each step a plan
    redoes). Each fact the words state is a field (a test checks that the words are a function of the
    fields), so two events that did the same have equal ``did``."""
    skipped = {"text", "label", "call", "records", "reason", "carries", "redo"}
    return dumps(
        [
            {k: v for k, v in event.items() if k not in skipped},
            {k: v for k, v in event["carries"].items() if k not in CREDENTIALS + POSITIONS},
            [r["step"] for r in event["redo"]],
        ]
    )


def told(event: dict) -> str:
    """How an event is told besides what it did: its credentials and its reasons (``did`` leaves them
    out). Two events that did the same and are told the same say the same, but for a count or a place."""
    return dumps([event["carries"], event["reason"], event["redo"], did(event)])


def first_divergence(a: dict, b: dict) -> int | None:
    """The first tick at which two traces (``trace_dict`` data) part: an event happens in one and not the
    other, or one did something else (``did``), or one run has ended. None when they do the same tick for
    tick.

    Wording, credentials and reasons are not compared: with pins off, t0's admission records no pin, but
    the same thing happens; the runs really part at t5, when #2 restores by step name alone. With section 1
    also reading section 2 (beyond the article), they part at t1, where that call reads more than its key
    says."""
    return next(iter(ticks_that_differ(a, b)), None)


def ticks_that_differ(a: dict, b: dict, judge=did) -> list[int]:
    """Every tick at which two traces do different things (as ``first_divergence`` judges a tick), up to
    the longer run's end; with ``judge=told``, every tick at which they also tell what they did otherwise."""
    ticks_a, ticks_b = a["ticks"], b["ticks"]

    def happenings(ticks: list, tick: int) -> list | None:
        return [judge(e) for e in ticks[tick]["events"]] if tick < len(ticks) else None

    return [
        tick
        for tick in range(max(len(ticks_a), len(ticks_b)))
        if happenings(ticks_a, tick) != happenings(ticks_b, tick)
    ]


def compare_runs(before: dict, after: dict) -> dict:
    """What changing the switches did to a run, from the two traces (``trace_dict`` data): which settings
    differ; every tick at which the runs do different things (the first is where they part) and, where they
    do not, the ticks at which only a credential or a reason is told otherwise (``explained``); each
    invariant both runs judge whose breach moved (its tick before and after, None for held), and each that
    only one of them judges (the sixth, RULES.md §8.2), with that run's verdict; the newsletter's start in
    each run where it differs (when, on which digest, quoting what); each run's last tick; and the counts
    that differ at the end. The explainer draws this when a reader flips a switch, so the run that was
    stays in view."""
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
    both = [i for i in breach["before"] if i in breach["after"]]
    counts = {name: trace["ticks"][-1]["counts"] for name, trace in (("before", before), ("after", after))}
    started = {name: _newsletter(trace) for name, trace in (("before", before), ("after", after))}
    return {
        "switched": switched,
        "schedule_changed": before.get("schedule") != after.get("schedule"),
        "first": differs[0] if differs else None,
        "differs": differs,
        "explained": [t for t in ticks_that_differ(before, after, judge=told) if t not in differs],
        "invariants": [
            {"id": i, "before": breach["before"][i], "after": breach["after"][i]}
            for i in both
            if breach["before"][i] != breach["after"][i]
        ],
        # Judged in one run only: what that run found, and nothing said of the other (RULES.md §8.2).
        "judged_once": [
            {"id": i, "run": name, "tick": breach[name][i]}
            for name, other in (("before", "after"), ("after", "before"))
            for i in breach[name]
            if i not in breach[other]
        ],
        "newsletter": started if started["before"] != started["after"] else None,
        "ends": {"before": before["end_tick"], "after": after["end_tick"]},
        "counts": {
            k: {"before": v, "after": counts["after"].get(k)}
            for k, v in counts["before"].items()
            if counts["after"].get(k) != v
        },
    }


def _newsletter(trace: dict) -> dict | None:
    """When the newsletter started in a run, on which digest and quoting what; None if it never did."""
    newsletter = trace["ticks"][-1]["newsletter"]
    if newsletter["started_at"] is None:
        return None
    return {"tick": newsletter["started_at"], "digest": newsletter["digest"], "quote": newsletter["quote"]}
