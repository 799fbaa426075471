"""The guided tour: every step is well posed, its right answer comes from the model's trace, and the
panel says so; the step lives in the URL, and leaving keeps the switches."""

from __future__ import annotations

import pytest

from app.state import ReaderState
from app.tour import TourError, holds, right_answers, steps, what_happened
from app.views.tour import TourPanel

STEPS = steps()


def test_the_tour_has_about_eight_steps_each_with_two_to_four_answers():
    assert 6 <= len(STEPS) <= 10
    for step in STEPS:
        assert 2 <= len(step.answers) <= 4 and step.question.endswith("?")


@pytest.mark.parametrize("step", STEPS, ids=lambda s: f"step{s.number}")
def test_exactly_one_answer_is_borne_out_by_the_trace(step):
    state = ReaderState()
    assert state.apply_query(f"?tour={step.number}") == []
    assert state.tick < step.ask <= state.end_tick, "the question is asked before the tick it is about"
    right = right_answers(step, state.trace)
    assert len(right) == 1, [a.text for a in step.answers]
    # The verdict quotes what the trace says happened at that tick.
    assert what_happened(state.trace, step.ask)


@pytest.mark.parametrize("step", STEPS, ids=lambda s: f"step{s.number}")
def test_each_wrong_answer_says_why_not_and_the_trace_bears_it_out(step):
    state = ReaderState()
    state.apply_query(f"?tour={step.number}")
    right = right_answers(step, state.trace)
    for n, answer in enumerate(step.answers):
        if n in right:
            continue
        assert answer.why.endswith(".") and len(answer.why.split()) >= 8, answer.text
        assert holds(answer.why_claim, state.trace, step.ask), (answer.why, answer.why_claim)


def test_the_article_s_claims_are_the_answers_the_model_gives():
    """Cross-check a few steps against the article (not against the tour's own claims)."""
    by_title = {s.title: s for s in STEPS}

    def right_text(title: str) -> str:
        step = by_title[title]
        state = ReaderState()
        state.apply_query(f"?tour={step.number}")
        (n,) = right_answers(step, state.trace)
        return step.answers[n].text

    assert "applies" in right_text("The worker was only paused")  # fencing off: a stale write lands
    assert "refuses" in right_text("The same wake-up, fenced")
    assert "waits" in right_text("The input changes after acceptance").lower()
    assert "twice" in right_text("The effect window without a key")


def test_claims_are_checked_and_unknown_ones_refused():
    trace = ReaderState().trace
    assert holds("event epoch", trace, 5) and holds("no event epoch", trace, 4)
    assert holds("never post-rejected", trace, 0)
    with pytest.raises(TourError, match="event KIND"):
        holds("sometimes epoch", trace, 5)


def test_the_panel_says_right_or_not_quite_and_steps_to_the_tick():
    state = ReaderState()
    state.go_to_step(2)
    panel = TourPanel(state=state)
    step = STEPS[1]
    (right,) = right_answers(step, state.trace)
    panel._act("answer", str(right))
    panel._act("check", "")
    assert state.tick == step.ask and "Right." in panel.verdict
    assert (
        "Right." in panel.html.html
        and f'data-value="{right}" data-key="answer-{right}" checked' in panel.html.html
    )
    panel._act("answer", str(1 - right))
    panel._act("check", "")
    assert "Not quite." in panel.verdict and step.answers[right].text in panel.verdict
    assert step.answers[1 - right].why.replace("'", "&#x27;") in panel.verdict  # why that answer is not it
    panel._act("answer", "99")  # not an answer of this step: ignored
    assert panel.chosen == 1 - right


def test_next_back_and_leave():
    state = ReaderState()
    state.apply_query("?tour=1&present=1")
    panel = TourPanel(state=state)
    assert 'data-action="back" data-key="tour-back" disabled' in panel.html.html
    panel._act("back", "")
    assert state.tour == 1
    panel._act("next", "")
    assert state.tour == 2 and state.present and "tour=2" in state.to_query()
    assert panel.chosen is None and panel.verdict == ""  # a new step asks afresh
    switches = state.switches()
    panel._act("leave", "")
    assert state.tour == 0 and state.switches() == switches and "tour" not in state.to_query()
    state.go_to_step(len(STEPS))
    assert 'data-action="next" data-key="tour-next" disabled' in panel.html.html


def test_a_bad_step_is_a_notice_naming_the_allowed_ones():
    state = ReaderState()
    (notice,) = state.apply_query("?tour=0")
    assert f"from 1 to {len(STEPS)}" in notice and state.tour == 0


def test_the_scrubber_hides_later_moments_until_the_question_is_answered():
    """While a step's question waits, the player's marks stop at the tick on show; the answer shows them
    all, and the served player is told to redraw (``waiting`` changes) even when the tick does not."""
    from app.page import PageModel

    page = PageModel()
    page.state.apply_query("?tour=2")
    tick = page.state.tick
    assert page.waiting and page.moments() and max(t for t, *_ in page.moments()) <= tick
    seen = []
    page.param.watch(lambda event: seen.append(event.new), ["waiting"])
    page.act("answer", "0", "tour")
    page.act("check", "", "tour")
    assert seen == [False] and not page.waiting
    assert max(t for t, *_ in page.moments()) > page.state.tick
    page.act("next", "", "tour")
    assert page.waiting and max(t for t, *_ in page.moments()) <= page.state.tick


def test_presenter_mode_shows_the_badges_once_in_and_out_of_the_tour():
    """On a projector the badges are in the side column, or, when the tour's question (or a class's
    card) takes that column, on the player's line: not in both (they were shown twice)."""
    from app.explainer import create_app

    app = create_app("?present=1&tour=2").explainer
    assert app.player.badges_always and not app.badges.html.visible
    app.state.tour = 0
    assert not app.player.badges_always and app.badges.html.visible
    app.state.tour = 3
    assert app.player.badges_always and not app.badges.html.visible


def finish_admissions():
    """Every tick at which a successor is admitted only to finish an announcement: over the 864, and at
    each tour step's question."""
    from model import run, trace_dict
    from model.switches import all_switches

    traces = [trace_dict(run(s)) for s in all_switches()]
    for step in STEPS:
        state = ReaderState()
        state.apply_query(f"?tour={step.number}")
        traces.append(state.trace)
    for trace in traces:
        for frame in trace["ticks"]:
            for event in frame["events"]:
                if event["kind"] == "admission" and event["carries"]["purpose"] == "finish-effect":
                    yield trace, frame, event


def test_a_successor_sent_to_finish_a_post_is_told_what_the_records_hold():
    """Tour step 9's t8 said #1's post "stays unconfirmed, each in a record of its own" when #1 had sent
    nothing, not even an intent; step 8's t12 said a successor with no pin "keeps the pin of the accepted
    digest" (issue 63). Each caption is checked against the records of its tick."""
    from app.render.diagram import tick_caption

    seen = set()
    for trace, frame, event in finish_admissions():
        caption = tick_caption(trace, frame["tick"])
        if "but that is only its attempt's lifecycle" not in caption:
            continue  # the tick's sentence is about something else (a breach)
        digest = event["carries"]["announcement"]
        effects = [r["kind"] for r in frame["records"]["effects"] if r["announcement"] == digest]
        (admitted,) = [r for r in frame["records"]["admissions"] if r["attempt"] == event["about"]]
        unconfirmed = "its post stays unconfirmed" in caption
        assert unconfirmed == (effects == ["intent"]), (caption, effects)
        assert ("nothing has been sent for it yet" in caption) == (effects == []), (caption, effects)
        assert ("keeps the pin of the accepted digest" in caption) == (admitted["pin"] is not None), caption
        seen.add((unconfirmed, admitted["pin"] is None))
    assert seen == {(True, True), (True, False), (False, False)}  # each sentence the tour and the 864 show
    step9 = STEPS[8]
    state = ReaderState()
    state.apply_query(f"?tour={step9.number}")
    assert "nothing has been sent for it yet, not even an intent" in tick_caption(state.trace, step9.ask)
