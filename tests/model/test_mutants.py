"""Runs that pin behaviour a mutation pass found unguarded: each test fails if the named bug comes back.

Each replay is the explorer's own smallest case for the bug (the command line is in the docstring)."""

from __future__ import annotations

from model import lifecycles as lc
from model.explore import SPACE, schedules
from model.schedule import ARTICLE, SILENT_POINTS, PosterDeath
from model.simulation import run
from model.switches import Switches


def test_a_token_one_epoch_old_is_fenced_at_the_acceptance_transition():
    """``trace --silent-at accept --silent-for 1 --threshold 1 --correction-at 2``: #1 wakes at t7 with
    token 41 under epoch 42. The transition refuses its write (fenced), before the assessor can refuse
    its stale pin; a check of ``token < epoch - 1`` would let it through to the assessor."""
    schedule = ARTICLE.replace(silent_at="accept", silent_for=1, threshold=1, correction_at=2)
    result = run(Switches(), schedule=schedule)
    assert result.world.lifecycles.state("attempt", "#1") is lc.AttemptState.FENCED
    (rejected,) = [e for f in result.frames for e in f["events"] if e["kind"] == "write-rejected"]
    assert rejected["actor"] == "acceptances" and "token 41 < epoch 42" in rejected["text"]
    assert result.outcome().stale_writes_rejected == 1 and result.outcome().finished


def test_a_newsletter_on_a_candidate_never_accepted_is_misled():
    """``trace --checkpoints none --newsletter latest-finished --silent-at accept --silent-for 1
    --threshold 1 --correction-at never --successor-stall 2``: the newsletter takes #1's candidate, built
    from the current version but never accepted. Only the "never accepted" half of the check catches it."""
    schedule = ARTICLE.replace(
        silent_at="accept", silent_for=1, threshold=1, correction_at=None, successor_stall=2
    )
    result = run(Switches(checkpoints="none", newsletter="latest-finished"), schedule=schedule)
    breach = result.world.checker.first["dependant-misled"]
    assert breach.tick == 12 and breach.detail.endswith("but it was never accepted")
    assert result.outcome().invariants_broken == ["dependant-misled"]


def test_the_space_holds_every_value_it_lists_crashes_included():
    """5,184 schedules: 8 silent points (7 with a silence, each of 5 lengths, never among them, and one
    without), 3 thresholds, 8 corrections, 3 deaths, 2 stalls. Dropping the crashes would leave 4,176."""
    all_ = list(schedules())
    with_silence = len(SILENT_POINTS) - 1
    per_silence = 3 * len(SPACE["correction_at"]) * len(PosterDeath) * len(SPACE["successor_stall"])
    assert len(all_) == (with_silence * len(SPACE["silent_for"]) + 1) * per_silence == 5184
    crashed = [s for s in all_ if s.silent_for is None and s.silent_at != "none"]
    assert len(crashed) == with_silence * per_silence


#: A sample of the explorer's work small enough for the fast lane: 12 protection settings against 360
#: schedules, with silences, crashes, stalls, corrections and deaths, so ties and orderings occur.
SAMPLE_FIXED = {"fencing": "off", "pins": "off", "newsletter": "any-accepted"}
SAMPLE_SPACE = {
    **SPACE,
    "silent_at": ("s1", "s3", "post", "none"),
    "silent_for": (1, 5, None),
    "threshold": (1, 2),
    "correction_at": (None, 4, 12),
}


def test_the_explorers_table_over_a_sample_is_golden(golden):
    """Every count, every smallest case and its order, as the command prints them (a change in how cases
    are ordered, or in which schedules the space holds, changes these bytes)."""
    from model.cli import format_explore
    from model.explore import explore

    result = explore(SAMPLE_FIXED, space=SAMPLE_SPACE)
    assert result["schedules"] == 360
    golden("explore-sample.txt", format_explore(result) + "\n")
