"""Past the article's edge (RULES.md §8): an assumption of its model made a switch, off by default, outside
the 864. Each is replayed on the smallest schedule the explorer finds that breaks an invariant with the
switch on, and shown to hold there with the remedy."""

from __future__ import annotations

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
