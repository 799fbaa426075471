"""Every other figure SPEC.md section 6 states, computed from the model."""

from __future__ import annotations

from model import Switches, run
from model.analyses import one_change_at_a_time, unversioned_comparison
from model.switches import event_combinations


def outcome(**switches):
    return run(Switches(**switches), recording=False).outcome().to_dict()


def test_end_only_redoes_all_four_and_woken_attempt_spends_one_more_call():
    o = outcome(checkpoints="end-only")
    assert o["calls_by_attempt"]["2"] == 4 and o["steps_restored"] == 0
    assert o["calls_by_attempt"]["1"] == 4  # three before going silent, one more after waking
    assert o["first_accepted_current_at"] == 11
    r = run(Switches(checkpoints="end-only"))
    fenced_at = [f["tick"] for f in r.frames if f["lifecycles"]["attempt"].get("#1") == "fenced"][0]
    assembling = [e for e in r.frames[fenced_at]["events"] if e["kind"] == "write-rejected"]
    assert "journal s1 s2 s3 s4" in assembling[0]["text"]  # its first write: the batch at assembly


def test_accepted_then_superseded():
    o = outcome(change="after-acceptance")
    assert o["model_calls"] == 6
    assert o["calls_by_attempt"] == {"1": 3, "2": 2, "3": 0, "4": 1}
    assert o["announcements"] == 2 and o["duplicate_posts"] == 0
    assert o["newsletter_started_at"] == 17
    assert o["invariants_broken"] == []
    r = run(Switches(change="after-acceptance"))
    waits = [f["tick"] for f in r.frames if any(e["kind"] == "newsletter-wait" for e in f["events"])]
    assert waits == list(range(12, 17))


def test_accepted_then_superseded_with_relaxed_rules_quotes_old_figure():
    for rule in ("any-accepted", "latest-finished"):
        r = run(Switches(change="after-acceptance", newsletter=rule))
        o = r.outcome().to_dict()
        assert o["newsletter_started_at"] == 12 and o["newsletter_quote"] == "4.1 million"
        assert r.frames[12]["report"] == "v2"  # while the report says 4.7 million
        assert "dependant-misled" in o["invariants_broken"]


def test_version_checks_off_is_cheaper_faster_and_wrong():
    main, off = outcome(), outcome(pins="off")
    assert off["model_calls"] < main["model_calls"]
    accepted_at = run(Switches(pins="off")).world.records.acceptances.records[0].tick
    assert accepted_at < main["first_accepted_current_at"]
    assert off["invariants_broken"] == ["dependant-misled", "superseded-accepted"]


def test_version_checks_off_fail_closed_waits_but_wrong_digest_still_accepted():
    o = outcome(pins="off", unversioned="fail-closed")
    assert o["newsletter_started_at"] is None
    assert o["invariants_broken"] == ["superseded-accepted"]


def test_fencing_and_pins_guard_different_things():
    for s in event_combinations(Switches(fencing="off")):
        o = run(s, recording=False).outcome().to_dict()
        assert not o["wrong_digest_accepted"], s
    polluted = [
        run(s, recording=False).outcome().to_dict()["stale_writes_applied"]
        for s in event_combinations(Switches(fencing="off"))
    ]
    assert any(polluted)
    for s in event_combinations(Switches(pins="off")):
        assert run(s, recording=False).outcome().to_dict()["stale_writes_applied"] == 0, s
    assert outcome(pins="off")["wrong_digest_accepted"]


def test_all_protections_every_event_both_checkpoint_modes_hold_and_finish():
    runs = 0
    for checkpoints in ("every-step", "end-only"):
        for s in event_combinations(Switches(checkpoints=checkpoints)):
            o = run(s, recording=False).outcome().to_dict()
            assert o["invariants_broken"] == [] and o["finished"], s
            runs += 1
    assert runs == 24


def test_one_change_at_a_time_each_protection_is_necessary():
    rows = {r.name: r for r in one_change_at_a_time()}
    assert sum(rows["all protections on"].breaks.values()) == 0
    assert rows["fencing off"].breaks["stale-write"] > 0
    assert rows["version pins off"].breaks["superseded-accepted"] > 0
    assert rows["no post key"].breaks["duplicate-effect"] > 0
    assert rows["post key per attempt"].breaks["duplicate-effect"] > 0
    assert rows["newsletter takes any accepted"].breaks["dependant-misled"] > 0
    assert sum(rows["end-only checkpoints"].breaks.values()) == 0
    assert rows["end-only checkpoints"].calls_mean > rows["all protections on"].calls_mean


def test_fail_closed_prevents_every_misled_newsletter_but_never_admits_it():
    opened, closed = unversioned_comparison()
    assert opened["runs"] == closed["runs"] == 144
    assert opened["newsletter_used_wrong"] > 0 and closed["newsletter_used_wrong"] == 0
    assert closed["newsletter_never_started"] == closed["runs"]
    assert opened["wrong_digest_accepted"] == closed["wrong_digest_accepted"] > 0


def test_issue_badge_scenarios():
    assert outcome(fencing="off", change="never")["invariants_broken"] == ["double-acceptance", "stale-write"]
    assert outcome(post_key="none")["invariants_broken"] == ["duplicate-effect"]


def test_first_divergence_between_traces():
    from model import trace_dict
    from model.analyses import first_divergence

    main = trace_dict(run(Switches()))
    assert first_divergence(main, main) is None
    assert first_divergence(main, trace_dict(run(Switches(silent="crashed")))) == 8  # no wake
    assert first_divergence(main, trace_dict(run(Switches(change="never")))) == 4
