"""Past the article's edge (RULES.md §8): an assumption of its model made a switch, off by default, outside
the 864. Each is replayed on the smallest schedule the explorer finds that breaks an invariant with the
switch on, and shown to hold there with the remedy."""

from __future__ import annotations

import pytest

from model import Switches, run, trace_dict
from model.explore import explore_setting
from model.feed import Feed
from model.schedule import Schedule
from model.switches import all_switches

ARTICLE = {
    "fencing": "on",
    "checkpoints": "every-step",
    "pins": "on",
    "newsletter": "current-accepted",
    "post_key": "per-operation",
}


def smallest(setting: dict, invariant: str) -> Schedule:
    found = explore_setting(ARTICLE | setting)["smallest"][invariant]
    return Schedule().with_values(found["schedule"])


def replayed(setting: dict, invariant: str, remedy: dict) -> tuple[list[str], list[str]]:
    """The explorer's smallest schedule breaking ``invariant`` under the article's protections and
    ``setting``, replayed with ``setting`` and with ``remedy``: the invariants each run breaks."""
    schedule = smallest(setting, invariant)
    return tuple(
        run(Switches(**ARTICLE, **chosen), schedule=schedule).outcome().invariants_broken
        for chosen in (setting, remedy)
    )


def test_the_864_know_nothing_of_the_new_switches():
    """Their traces name only the settings they had before; their runs are what they were."""
    for switches in list(all_switches())[::97]:
        assert "feed_keys" not in trace_dict(run(switches))["switches"]
        assert not switches.beyond_article()
    assert Switches(feed_keys="2-ticks").beyond_article()


def test_a_feed_forgets_a_key_kept_for_its_ticks_and_no_other():
    feed = Feed()
    feed.receive("a", ("d1",), 2, tick=10)
    feed.receive("b", ("d1",), 3, tick=11)
    assert feed.forget(tick=11, kept_for=2) == []
    assert [r.key for r in feed.forget(tick=12, kept_for=2)] == ["a"]
    again = feed.receive("a", ("d1",), 3, tick=12)
    assert again.status == "applied" and again.forgotten  # a new request now, and the feed says why
    assert feed.receive("b", ("d1",), 3, tick=12).status == "repeat"
    assert not feed.receive("c", ("d1",), 3, tick=12).forgotten  # a key it never had is simply new


def test_the_post_applied_again_says_its_key_was_forgotten():
    """The event carries why the feed applied a keyed post anew, so a caption need not search the past."""
    posts = [
        (frame["tick"], e["reason"])
        for frame in trace_dict(run(Switches(feed_keys="2-ticks")))["ticks"]
        for e in frame["events"]
        if e["kind"] == "post-applied"
    ]
    assert [reason for _, reason in posts] == [{}, {"code": "key-forgotten"}], posts


def test_a_key_protects_only_as_long_as_the_feed_keeps_it():
    """The main schedule: #3's resend comes three ticks after #2's post. Kept two ticks, the key is gone
    and the post is applied again; kept eight (or the whole run), the feed answers from memory."""
    assert run(Switches(feed_keys="2-ticks")).outcome().invariants_broken == ["duplicate-effect"]
    for kept in ("8-ticks", "whole-run"):
        assert run(Switches(feed_keys=kept)).outcome().invariants_broken == []
    schedule = smallest({"feed_keys": "2-ticks"}, "duplicate-effect")
    assert (
        "duplicate-effect"
        in run(Switches(feed_keys="2-ticks"), schedule=schedule).outcome().invariants_broken
    )
    assert run(Switches(feed_keys="whole-run"), schedule=schedule).outcome().invariants_broken == []


def test_the_trace_shows_the_feeds_keys_as_they_are_at_each_tick():
    """Forgotten at t13, remembered again for the second post at t14: each frame holds the feed's keys of
    its tick (a store's records only grow; the feed's keys need not)."""
    frames = trace_dict(run(Switches(feed_keys="2-ticks")))["ticks"]
    assert [r["post"] for r in frames[12]["records"]["feed_keys"]] == [1]
    assert frames[13]["records"]["feed_keys"] == []
    assert [r["post"] for r in frames[14]["records"]["feed_keys"]] == [2]
    assert [e["kind"] for e in frames[13]["events"] if e["actor"] == "feed"] == ["key-forgotten"]


# --- §8.2: a step reads an undeclared input --------------------------------------------------------


def _first(switches: Switches) -> dict:
    return run(switches, recording=False).world.checker.first


def test_the_sixth_check_sees_what_the_five_cannot():
    """Main schedule: #2 restores s1 by a key that names s1 alone, though s1 also read s2 of v1; the digest
    accepted for v2 quotes v1's figure. None of the article's five breaks; the sixth does, at the
    acceptance. Declared, the key changes with s2, s1 is redone, and the digest quotes v2's figure."""
    undeclared = run(Switches(s1_reads="s2-undeclared"))
    outcome = undeclared.outcome()
    assert outcome.invariants_broken == ["rebuild-differs"]
    accepted_at = outcome.first_accepted_current_at
    assert undeclared.world.checker.first["rebuild-differs"].tick == accepted_at
    report_figure = trace_dict(undeclared)["ticks"][-1]["report_figure"]
    assert outcome.newsletter_quote != report_figure  # the old figure, in a digest accepted for the new text
    declared = run(Switches(s1_reads="s2-declared")).outcome()
    assert declared.invariants_broken == [] and declared.newsletter_quote == report_figure
    assert declared.steps_restored == outcome.steps_restored - 1  # s1 is redone, not restored


def test_the_smallest_undeclared_run_holds_once_the_input_is_declared():
    broken, held = replayed({"s1_reads": "s2-undeclared"}, "rebuild-differs", {"s1_reads": "s2-declared"})
    assert broken == ["rebuild-differs"]
    assert held == []


def test_over_the_864_the_sixth_breaks_where_superseded_accepted_does_and_beyond_only_where_undeclared():
    """Judged in every run (shown only past the article): with no step reading past its section, or with
    the extra input declared, it breaks in exactly the runs where *Nothing superseded accepted* breaks;
    undeclared, in those and in more."""
    more = 0
    for switches in all_switches():
        for reads in ("own-section", "s2-declared", "s2-undeclared"):
            first = _first(switches.replace(s1_reads=reads))
            sixth, superseded = "rebuild-differs" in first, "superseded-accepted" in first
            if reads == "s2-undeclared":
                assert sixth or not superseded, switches
                more += sixth and not superseded
            else:
                assert sixth == superseded, (switches, reads)
    assert more > 0


def test_the_sixth_is_shown_only_where_a_step_reads_past_its_section():
    ids = [i["id"] for i in trace_dict(run(Switches()))["invariants"]]
    assert "rebuild-differs" not in ids and len(ids) == 5
    for reads in ("s2-undeclared", "s2-declared"):
        trace = trace_dict(run(Switches(s1_reads=reads)))
        assert [i["id"] for i in trace["invariants"]][-1] == "rebuild-differs"
        assert "rebuild-differs" in trace["ticks"][0]["invariants"]
    # A superseded acceptance in the 864 breaks the sixth too, but the 864's outcomes do not list it.
    assert run(Switches(pins="off")).outcome().invariants_broken == [
        "dependant-misled",
        "superseded-accepted",
    ]


def test_a_call_and_a_restore_say_what_they_read_past_the_key():
    events = [
        (frame["tick"], e["kind"], e)
        for frame in trace_dict(run(Switches(s1_reads="s2-undeclared")))["ticks"]
        for e in frame["events"]
        if e.get("step") == "s1" and e["kind"] in ("model-call", "restore")
    ]
    (_, _, call), (_, _, restore) = events
    assert call["also"] == [{"step": "s2", "versions": ["v1"]}] and call["carries"]["in_key"] == "no"
    # #2 restores at t5, when the report is v2: the result read s2 as v1 said it.
    assert restore["also"] == [{"step": "s2", "versions": ["v1"]}]
    assert restore["carries"]["by"] == "input hash"
    declared = trace_dict(run(Switches(s1_reads="s2-declared")))
    calls = [
        e
        for f in declared["ticks"]
        for e in f["events"]
        if e.get("step") == "s1" and e["kind"] == "model-call"
    ]
    assert [c["carries"]["in_key"] for c in calls] == ["yes", "yes"]  # #1's, and #2's redone


# --- §8.3: the controller restarts -----------------------------------------------------------------


def test_a_controller_that_forgets_its_epoch_gives_out_a_token_twice_and_fencing_lets_the_old_owner_write():
    """Main schedule, in memory: the restart at t4 publishes the first token again and #2 gets the token #1
    holds; #1's writes from t8 land although fencing is on. Durable: nothing breaks, one tick is lost."""
    forgetful = run(Switches(controller_restart="at-t4-in-memory"))
    assert forgetful.switches.fencing.value == "on"
    assert forgetful.outcome().invariants_broken == ["stale-write"]
    first, second = forgetful.world.attempts[:2]
    assert first.token == second.token
    breach = forgetful.world.checker.first["stale-write"]
    assert breach.actor == f"attempt #{first.number}" and "no longer owns the work" in breach.detail
    durable = run(Switches(controller_restart="at-t4-durable"))
    assert durable.outcome().invariants_broken == []
    assert durable.end_tick == run(Switches()).end_tick + 1  # suspicion rebuilt from the restart: a tick lost
    assert len({a.token for a in durable.world.attempts}) == len(durable.world.attempts)


def test_the_smallest_forgetful_restart_holds_with_a_durable_epoch():
    forgetful, durable = replayed(
        {"controller_restart": "at-t4-in-memory"}, "stale-write", {"controller_restart": "at-t4-durable"}
    )
    assert "stale-write" in forgetful
    assert durable == []


def test_the_restart_is_said_and_the_reissued_token_is_named():
    frames = trace_dict(run(Switches(controller_restart="at-t4-in-memory")))["ticks"]
    restarted = [e for e in frames[4]["events"] if e["kind"] == "controller-restarted"]
    assert [e["reason"] for e in restarted] == [{"code": "in-memory"}]
    admitted = [e["carries"]["token"] for e in frames[4]["events"] if e["kind"] == "admission"]
    assert admitted == [str(frames[0]["epoch"])] == [str(frames[4]["epoch"])]  # #1's token, not raised
    stale = [e for e in frames[8]["events"] if e["kind"] == "stale-write-applied"]
    assert stale and all(e["reason"] == {"code": "token-reissued", "owner": "#2"} for e in stale)


# --- §8.4: records are lost ------------------------------------------------------------------------


def test_a_lost_journal_costs_calls_and_lost_acceptances_cost_a_second_digest():
    """Main schedule: the journal lost at t4 makes #2 redo every step, nothing breaks; lost at t12 it costs
    nothing; lost with the acceptance log and the effect records at t12, #3 builds and announces a second
    digest for v2."""
    main = run(Switches()).outcome()
    early = run(Switches(records_lost="journal-at-t4")).outcome()
    assert early.invariants_broken == [] and early.steps_restored == 0
    assert early.model_calls == main.model_calls + main.steps_restored  # what was restored is redone
    late = run(Switches(records_lost="journal-at-t12")).outcome()
    assert late.invariants_broken == [] and late.model_calls == main.model_calls
    everything = run(Switches(records_lost="all-at-t12"))
    outcome = everything.outcome()
    assert outcome.invariants_broken == ["double-acceptance"]
    assert outcome.announcements == 2 and outcome.duplicate_posts == 0  # two digests, each posted once
    assert run(Switches(records_lost="all-at-t12", post_key="per-work")).outcome().posts_applied == 1


def test_the_smallest_run_that_loses_everything_holds_when_only_the_journal_is_lost():
    lost, kept = replayed(
        {"records_lost": "all-at-t12"}, "double-acceptance", {"records_lost": "journal-at-t12"}
    )
    assert "double-acceptance" in lost
    assert kept == []


def test_the_loss_is_said_and_the_stores_start_again():
    frames = trace_dict(run(Switches(records_lost="all-at-t12")))["ticks"]
    (lost,) = [e for e in frames[12]["events"] if e["kind"] == "records-lost"]
    assert lost["lane"] == "stores" and lost["reason"] == {"code": "all"}
    assert lost["carries"]["lost"] == "5 journal records, 1 acceptance, 1 effect record"
    assert len(frames[11]["records"]["journal"]) == 5
    assert frames[12]["records"]["journal"] == frames[12]["records"]["acceptances"] == []
    assert len(frames[12]["records"]["candidates"]) == len(frames[11]["records"]["candidates"])  # kept
    assert [p["number"] for p in frames[12]["records"]["feed_posts"]] == [1]  # the feed is outside


UNBROKEN = {"silent_at": "none", "correction_at": "never", "poster_death": "none"}


@pytest.mark.parametrize("lost", ["journal-at-t4", "journal-at-t12", "all-at-t12"])
@pytest.mark.parametrize("schedule", [{}, UNBROKEN], ids=["main schedule", "nothing goes wrong"])
def test_an_outcome_says_when_the_work_was_accepted_and_confirmed_whatever_storage_lost_since(lost, schedule):
    """The outcome's ticks are what happened, read here off the trace's own events: all-at-t12 said the
    digest was first accepted for v2 at t19 though one was at t10 (the acceptance t19 doubles), and where
    nothing goes wrong it said "accepted never, confirmed never" after t6 and t7. Whether it *finished* is
    still the records' word at the end."""
    done = run(Switches.from_mapping({"records_lost": lost}), schedule=Schedule().with_values(schedule))
    trace, outcome = trace_dict(done), done.outcome()
    final = trace["ticks"][-1]["report"]

    def first(kind: str, **carries: str) -> int | None:
        return next(
            (f["tick"] for f in trace["ticks"] for e in f["events"]
             if e["kind"] == kind and carries.items() <= e["carries"].items()),
            None,
        )  # fmt: skip

    assert outcome.first_accepted_current_at == first("accepted", report=final) is not None
    assert outcome.announcement_confirmed_at == first("confirmed") is not None
    assert outcome.finished == (trace["ticks"][-1]["records"]["effects"] != [])


def test_an_accepted_digest_a_fresh_build_would_not_make_is_a_wrong_digest_accepted():
    """With section 1 reading section 2 outside its key, the digest accepted for v2 carries v1's figure
    (*Same as a fresh build* breaks): the outcome said wrong_digest_accepted false (issue 45)."""
    undeclared = run(Switches.from_mapping({"s1_reads": "s2-undeclared"})).outcome()
    assert "rebuild-differs" in undeclared.invariants_broken and undeclared.wrong_digest_accepted
    declared = run(Switches.from_mapping({"s1_reads": "s2-declared"})).outcome()
    assert not declared.invariants_broken and not declared.wrong_digest_accepted


def test_a_successor_s_plan_says_why_each_step_is_computed_again():
    """The plan names each step to redo with the model's reason, so a picture need not work it out: on the
    main schedule #2 (pinned v2) finds s2's record computed from v1, and no record of s3 or s4; with s1
    declaring that it reads s2 (§8.2), s1's record read v2's text of s1 but under a key v2 no longer has."""

    def plan_at_t5(**switches):
        frame = trace_dict(run(Switches(**switches)))["ticks"][5]
        (plan,) = [e for e in frame["events"] if e["kind"] == "plan"]
        return {r["step"]: r["why"] for r in plan["redo"]}

    assert plan_at_t5() == {"s2": "other-version", "s3": "no-record", "s4": "no-record"}
    assert plan_at_t5(s1_reads="s2-declared")["s1"] == "key-differs"
    assert plan_at_t5(pins="off") == {"s3": "no-record", "s4": "no-record"}  # by name: s1, s2 restored


def test_a_newsletter_on_a_digest_whose_acceptance_was_lost_is_judged_by_what_happened():
    """All records lost at t12, the newsletter taking the latest finished candidate: it starts at t12 on #2's
    digest, accepted for v2 at t10 and lost since. *Dependant not misled* said "it was never accepted" while
    the outcome said accepted at t10 (issue 63); an invariant reads history (RULES.md §7), so it holds, and
    the frame says when the digest was accepted although the log no longer does."""
    done = run(Switches(records_lost="all-at-t12", newsletter="latest-finished"))
    trace, outcome = trace_dict(done), done.outcome()
    start = trace["ticks"][12]["newsletter"]
    assert (start["started_at"], start["accepted_at"], start["ever_accepted_at"]) == (12, None, 10)
    assert start["ever_accepted_for"] == "v2" and outcome.first_accepted_current_at == 10
    (accepted,) = [e for e in trace["ticks"][10]["events"] if e["kind"] == "accepted"]
    assert accepted["carries"]["digest"] == start["digest"]  # the very digest it took
    assert "dependant-misled" not in outcome.invariants_broken and not outcome.newsletter_used_wrong
    # Misled for a reason that history bears out: with pins off the digest accepted at t9 holds v1's s2.
    stale = trace_dict(run(Switches(records_lost="all-at-t12", newsletter="latest-finished", pins="off")))
    (misled,) = [i["breach"] for i in stale["invariants"] if i["id"] == "dependant-misled"]
    assert misled["tick"] == 12 and "never accepted" not in misled["detail"]
    assert misled["detail"].endswith("its s2 was not computed from v2")
    # A digest the run never accepted is still misleading: the same, the records never lost.
    never = trace_dict(run(Switches(newsletter="latest-finished", fencing="off")))
    (misled,) = [i["breach"] for i in never["invariants"] if i["id"] == "dependant-misled"]
    assert misled["detail"].endswith("it was never accepted")  # #1's stale candidate, at t12


def test_a_newsletter_quoting_what_a_fresh_build_would_not_is_used_wrong():
    """With section 1 reading section 2 outside its key, the newsletter quotes v1's 4.1 million against the
    report's 4.7: the outcome said newsletter_used_wrong false (issue 63). Declared, it quotes 4.7."""
    undeclared = run(Switches.from_mapping({"s1_reads": "s2-undeclared"}))
    start = undeclared.world.newsletter.start
    assert start.quote != start.report_figure and undeclared.outcome().newsletter_used_wrong
    assert "dependant-misled" not in undeclared.outcome().invariants_broken  # the five cannot see it
    declared = run(Switches.from_mapping({"s1_reads": "s2-declared"}))
    assert declared.world.newsletter.start.quote == declared.world.newsletter.start.report_figure
    assert not declared.outcome().newsletter_used_wrong
