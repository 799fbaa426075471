"""What a review found inconsistent in the model, each pinned by a test that fails if it comes back."""

from __future__ import annotations

from model import Switches, run, trace_dict
from model.analyses import first_divergence, from_scratch
from model.records import PROTECTED_STORES
from model.switches import MAIN_TRACE, Role, ids_of, protected_counterpart


def events(trace: dict, kind: str) -> list[tuple[int, dict]]:
    return [(f["tick"], e) for f in trace["ticks"] for e in f["events"] if e["kind"] == kind]


def test_stale_writes_applied_counts_writes_like_the_trace_says():
    # fencing off + end-only: the woken #1 journals its batch and writes its candidate, both stale.
    result = run(Switches(fencing="off", checkpoints="end-only"))
    trace = trace_dict(result)
    applied = events(trace, "stale-write-applied")
    assert result.outcome().stale_writes_applied == len(applied) == 2
    assert trace["ticks"][-1]["counts"]["stale_writes_applied"] == len(applied)


def test_every_switch_combination_counts_stale_writes_by_events():
    for switches in (
        Switches(fencing="off", silent=s, checkpoints=c)
        for s in ("paused", "crashed")
        for c in ("every-step", "end-only")
    ):
        result = run(switches)
        trace = trace_dict(result)
        assert result.outcome().stale_writes_applied == len(events(trace, "stale-write-applied")), switches
        assert result.outcome().stale_writes_rejected == len(events(trace, "write-rejected")), switches


def test_end_only_journal_records_carry_the_tick_they_were_written():
    trace = trace_dict(run(Switches(checkpoints="end-only")))
    journal = trace["ticks"][-1]["records"]["journal"]
    assert journal, "end-only still journals, at assembly"
    for record in journal:
        # Written together at assembly: one write tick for the batch, each part computed earlier.
        assert record["tick"] >= record["part"]["tick"]
    by_attempt: dict[int, set[int]] = {}
    for record in journal:
        by_attempt.setdefault(record["attempt"], set()).add(record["tick"])
    assert all(len(ticks) == 1 for ticks in by_attempt.values())
    assert any(r["tick"] > r["part"]["tick"] for r in journal)


def test_a_protected_store_is_the_actor_of_its_answer():
    for switches in (MAIN_TRACE, Switches(fencing="off")):
        trace = trace_dict(run(switches))
        for kind in ("write-rejected", "stale-write-applied", "write"):
            for _, event in events(trace, kind):
                assert event["actor"] in PROTECTED_STORES, event
                assert event["lane"].startswith("attempt #"), event
                assert not event["text"].startswith("attempt"), event


def test_runs_part_where_something_different_happens_not_where_words_differ():
    main = trace_dict(run(MAIN_TRACE))
    assert first_divergence(main, trace_dict(run(Switches(pins="off")))) == 5
    assert first_divergence(main, main) is None
    assert first_divergence(main, trace_dict(run(Switches(change="never")))) == 4


def test_rebuilding_from_scratch_is_computed_not_written_in():
    superseded = from_scratch(Switches(change="after-acceptance"))
    assert superseded["calls_by_attempt"]["4"] == 1  # only section 2 changed
    assert superseded["from_scratch_by_attempt"]["4"] == 4  # "rebuilding everything would have cost 4"
    main = from_scratch(MAIN_TRACE)
    assert main["from_scratch_calls"] > main["model_calls"]


def test_roles_are_declared_once_and_derive_the_groups():
    assert ids_of(Role.EVENT) == ("silent", "change", "poster")
    assert ids_of(Role.PROTECTION) == ("fencing", "checkpoints", "pins", "newsletter", "post_key")
    assert ids_of(Role.ADVANCED) == (
        "unversioned",
        "controller",
        "feed_keys",
        "controller_restart",
        "records_lost",
        "s1_reads",
    )
    weakest = Switches(
        fencing="off",
        pins="off",
        post_key="none",
        newsletter="latest-finished",
        checkpoints="end-only",
        unversioned="fail-closed",
        change="never",
        poster="survives",
    )
    protected = protected_counterpart(weakest)
    assert protected == Switches(change="never", poster="survives")


def test_a_fingerprint_of_a_sweep_already_run_is_the_fingerprint():
    """The self-check runs the 864 once and hands them to fingerprint(); a stale or partial list is not
    the same fingerprint."""
    from model.analyses import fingerprint, sweep

    rows = sweep()
    assert fingerprint(rows) == fingerprint()
    assert fingerprint(rows[:-1]) != fingerprint()
