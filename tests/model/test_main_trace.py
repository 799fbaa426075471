"""The reference main trace of SPEC.md section 5, tick by tick, and as golden files."""

from __future__ import annotations

import pytest

from model import Switches, dumps, run, trace_dict
from model.cli import format_trace


@pytest.fixture(scope="module")
def main():
    return run(Switches())


def kinds(frame, actor=None):
    return [e["kind"] for e in frame["events"] if actor is None or e["actor"] == actor]


def test_t0_admission_is_written_before_dispatch(main):
    frame = main.frames[0]
    assert kinds(frame, "controller") == ["admission", "dispatch"]
    (admission,) = frame["records"]["admissions"]
    assert (admission["attempt"], admission["pin"], admission["token"]) == (1, "v1", 41)
    assert admission["work"] == "digest/q3-report"


@pytest.mark.parametrize("tick,step,call", [(1, "s1", 1), (2, "s2", 2)])
def test_attempt_1_computes_and_journals(main, tick, step, call):
    frame = main.frames[tick]
    (event,) = [e for e in frame["events"] if e["kind"] == "model-call"]
    assert (event["actor"], event["attempt"], event["call"], event["step"]) == ("attempt #1", 1, call, step)
    assert frame["records"]["journal"][-1]["step"] == step
    assert frame["records"]["journal"][-1]["token"] == 41


def test_t3_call_3_is_made_and_attempt_1_goes_silent(main):
    frame = main.frames[3]
    (event,) = [e for e in frame["events"] if e["kind"] == "call-started"]
    assert (event["call"], event["step"], event["attempt"]) == (3, "s3", 1)
    assert frame["attempts"][0]["silent"] is True
    assert len(frame["records"]["journal"]) == 2


def test_t4_report_corrected_and_first_missed_heartbeat(main):
    frame = main.frames[4]
    assert frame["report"] == "v2" and main.frames[3]["report"] == "v1"
    assert "heartbeat-missed" in kinds(frame, "controller")
    assert frame["lifecycles"]["attempt"]["#1"] == "running"


def test_t5_unknown_epoch_42_successor_pinned_v2_restores_s1(main):
    frame = main.frames[5]
    assert kinds(frame, "controller")[:3] == ["unknown", "epoch", "admission"]
    assert frame["epoch"] == 42
    assert frame["lifecycles"]["attempt"] == {"#1": "UNKNOWN", "#2": "running"}
    admission = frame["records"]["admissions"][-1]
    assert (admission["attempt"], admission["pin"], admission["token"]) == (2, "v2", 42)
    restores = [e for e in frame["events"] if e["kind"] == "restore"]
    assert [(e["attempt"], e["step"]) for e in restores] == [(2, "s1")]
    assert frame["attempts"][1]["restored"] == 1


def test_t6_to_t8_attempt_2_computes_calls_4_to_6_and_1_is_fenced(main):
    calls = [
        (f["tick"], e["call"], e["step"])
        for f in main.frames[6:9]
        for e in f["events"]
        if e["kind"] == "model-call"
    ]
    assert calls == [(6, 4, "s2"), (7, 5, "s3"), (8, 6, "s4")]
    t8 = main.frames[8]
    assert kinds(t8, "attempt #1")[:2] == ["woke", "call-finished"]
    assert "write-rejected" in kinds(t8, "journal")
    assert t8["lifecycles"]["attempt"]["#1"] == "fenced"
    assert t8["attempts"][0]["alive"] is True  # fenced, and still alive
    assert all(r["token"] != 41 or r["step"] in ("s1", "s2") for r in t8["records"]["journal"])


def test_t9_assemble_t10_accepted_for_v2(main):
    assert "assemble" in kinds(main.frames[9], "attempt #2")
    t10 = main.frames[10]
    (acceptance,) = t10["records"]["acceptances"]
    assert acceptance["version"] == "v2" and acceptance["tick"] == 10
    assert set(t10["lifecycles"]["artifact"].values()) == {"accepted"}


def test_t11_post_applied_and_poster_dies_before_ack(main):
    t11 = main.frames[11]
    assert kinds(t11, "attempt #2") == ["intent", "died"]
    assert kinds(t11, "feed") == ["post-applied"]
    assert t11["records"]["feed_posts"][0]["key"] is not None
    assert list(t11["lifecycles"]["effect"].values()) == ["unconfirmed"]


def test_t12_newsletter_starts_on_v2_digest(main):
    t12 = main.frames[12]
    assert kinds(t12, "newsletter") == ["newsletter-start"]
    assert t12["newsletter"]["quote"] == "4.7 million"
    assert t12["newsletter"]["digest"] == t12["records"]["acceptances"][0]["digest"]


def test_t13_three_lifecycles_say_different_true_things(main):
    t13 = main.frames[13]
    assert t13["lifecycles"]["attempt"]["#2"] == "UNKNOWN"
    assert set(t13["lifecycles"]["artifact"].values()) == {"accepted"}
    assert list(t13["lifecycles"]["effect"].values()) == ["unconfirmed"]
    assert t13["newsletter"]["started_at"] == 12
    assert t13["epoch"] == 43 and t13["records"]["admissions"][-1]["purpose"] == "finish-effect"


def test_t14_resend_gets_stored_answer_and_is_confirmed(main):
    t14 = main.frames[14]
    assert kinds(t14, "feed") == ["post-repeat"]
    assert len(t14["records"]["feed_posts"]) == 1
    assert list(t14["lifecycles"]["effect"].values()) == ["confirmed"]
    assert t14["lifecycles"]["attempt"]["#3"] == "done"
    assert main.end_tick == 14


def test_outcome_is_the_spec_outcome(main):
    assert main.outcome().to_dict() == {
        "model_calls": 6,
        "calls_by_attempt": {"1": 3, "2": 3, "3": 0},
        "steps_restored": 1,
        "stale_writes_rejected": 1,
        "stale_writes_applied": 0,
        "posts_applied": 1,
        "duplicate_posts": 0,
        "announcements": 1,
        "first_accepted_current_at": 10,
        "newsletter_started_at": 12,
        "newsletter_quote": "4.7 million",
        "announcement_confirmed_at": 14,
        "invariants_broken": [],
        "finished": True,
        "wrong_digest_accepted": False,
        "newsletter_used_wrong": False,
    }


def test_main_trace_table_is_golden(main, golden):
    golden("main-trace.txt", format_trace(main) + "\n")


def test_main_trace_json_is_golden(main, golden):
    golden("main-trace.json", dumps(trace_dict(main), indent=1) + "\n")
