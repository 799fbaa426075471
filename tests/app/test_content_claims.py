"""Sentences of content/ that state a fact of the model, each checked against the model.

A sentence that names a number, a version or who did what is tested here, so rewording the model and
forgetting the words fails a test rather than misleading a reader."""

from __future__ import annotations

import re

import pytest

from app.content import text
from app.state import ReaderState
from model.explore import SPACE, schedules
from model.invariants import built_from
from model.report import V1, V2
from model.schedule import ARTICLE, PosterDeath
from model.simulation import run
from model.switches import Switches


def _words(name: str, section: str) -> str:
    return " ".join(text(name, section).split())


def test_the_explore_caption_names_the_spaces_silences_and_its_size():
    caption = _words("captions", "explore")
    # The space holds the article's own schedule, so its size is not a count of "other" ones (issue 63).
    assert ARTICLE in list(schedules()) and PosterDeath.NONE in SPACE["poster_death"]
    assert f"{len(list(schedules())):,} schedules, the article's among them" in caption
    assert "or not at all. For" in caption  # the poster that does not die
    lengths = [str(n) for n in SPACE["silent_for"] if n is not None]
    assert f"for {', '.join(lengths[:-1])} or {lengths[-1]} ticks or for good" in caption
    assert SPACE["silent_attempt"] == (1,) and "#1 going quiet" in caption


def test_the_all_off_chapter_accepts_a_digest_of_v1_through_and_through():
    state = ReaderState()
    state.apply_preset("all-off")
    world = run(state.switches(), recording=False).world
    first = world.records.acceptances.records[0]
    candidate = world.candidate_of(first)
    assert first.attempt == 1 and built_from(candidate, V1) and not built_from(candidate, V2)
    assert "v1 through and through" in _words("presets", "all-off")


def test_the_no_key_chapter_posts_without_a_key_both_times():
    state = ReaderState()
    state.apply_preset("no-key")
    posts = [e for frame in state.trace["ticks"] for e in frame["events"] if e["kind"] == "post-applied"]
    assert [p["carries"]["key"] for p in posts] == ["none", "none"]
    assert "with no operation key" in _words("tour", "7 The effect window without a key")


def test_the_stranded_run_is_refused_by_the_version_check_not_the_assessor():
    stranded = ARTICLE.replace(silent_at="none", poster_death=PosterDeath.NONE)
    literal = run(Switches(controller="literal"), schedule=stranded)
    (refusal,) = [e for f in literal.frames for e in f["events"] if e["kind"] == "refused"]
    assert refusal["reason"] == {"code": "stale-pin", "pin": "v1", "report": "v2"}
    assert "mechanical version check" in _words("explore", "findings")


def test_a_content_file_with_a_section_twice_is_refused_by_name(tmp_path, monkeypatch):
    """A section written twice (an edit appended again) would have its later copy silently win."""
    import app.content as content

    (tmp_path / "presets.md").write_text("# x\n\n## main\none\n\n## main\ntwo\n", encoding="utf-8")
    monkeypatch.setattr(content, "content_dir", lambda: tmp_path)
    content.sections.cache_clear()
    try:
        with pytest.raises(ValueError, match="more than one section 'main'"):
            content.sections("presets")
    finally:
        content.sections.cache_clear()


def test_the_switches_say_when_the_worker_goes_quiet_and_what_no_checkpoint_costs():
    """The silent worker went quiet "halfway into section 3", but it stops as it starts the call and
    finishes it when it wakes; with no checkpoints "every successor starts from scratch", but one sent only
    to finish a post computes nothing (issue 63)."""
    from model import trace_dict

    silent = _words("switches", "silent")
    quiet = re.search(r"goes quiet at t(\d+), as it starts section (\d)\. \*Paused\*: it wakes at t(\d+), "
                      r"finishes that section", silent)  # fmt: skip
    frames = trace_dict(run(Switches()))["ticks"]
    started = [(f["tick"], e["step"]) for f in frames for e in f["events"] if e["kind"] == "call-started"]
    finished = [(f["tick"], e["step"]) for f in frames for e in f["events"] if e["kind"] == "call-finished"]
    tick, section, woke = quiet.groups()
    assert started == [(int(tick), f"s{section}")] and finished == [(int(woke), f"s{section}")]
    checkpoints = _words("switches", "checkpoints")
    assert "a successor sent to build has nothing to restore and computes every section again" in checkpoints
    assert "one sent only to finish a post builds nothing" in checkpoints
    purposes = set()
    for silent_how in ("paused", "crashed"):
        world = run(Switches(checkpoints="none", silent=silent_how), recording=False).world
        for attempt in world.attempts[1:]:
            purposes.add(attempt.purpose)
            expected = 0 if attempt.purpose == "finish-effect" else 4
            assert (attempt.restored, attempt.calls) == (0, expected), (attempt.name, attempt.purpose)
    assert purposes == {"build", "finish-effect"}
