"""What every phone of a class is sent (classroom/phone.py): the teacher's run at the teacher's tick, in full
(a switch flipped during a tour step included), and while a question waits nothing from after its tick:
no later frame, no later tick's sentence, no key moments, no verdict."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from html import unescape

from app.render.diagram import run_of
from app.state import ReaderState
from app.tour import steps
from classroom.phone import held_at, question_tick, shared_link, split_link, view, view_bytes
from classroom.store import ClassState


def state(link: str, question=None, round_=None, open_=False, revealed=False, **more) -> ClassState:
    return ClassState("ABCDE", 0.0, link, "follow", 0, question, round_, open_, revealed, 3, 1, **more)


def test_a_switch_flipped_during_a_tour_step_is_in_what_phones_follow():
    """In the tour the page's own link names only the step; the phones' link names every switch."""
    reader = ReaderState()
    reader.go_to_step(2)  # fencing off in its chapter
    reader.set_switch("fencing=on")
    link = shared_link(reader.values(), reader.schedule_overrides(), reader.tick, reader.tour)
    run, tick, step = split_link(link)
    assert "fencing" not in run or "fencing=on" in run  # on is the default: not written
    follower = ReaderState()
    follower.apply_query(run)
    assert follower.values() == reader.values() and (tick, step) == (reader.tick, 2)


def _later_words(frame: dict, trace: dict, tick: int) -> list[str]:
    """Every later tick's sentence found in the frame's markup."""
    run = run_of(trace)
    text = unescape(frame["figure"])
    return [t for t in range(tick + 1, len(trace["ticks"])) if run.caption(t) in text]


def test_while_a_question_waits_no_phone_is_sent_anything_from_after_its_tick():
    """Step 1 asks about t5 at t4: even with the teacher's page at t9, the phones get t4, none of the
    later sentences, no verdict and no right answer; revealed, they get the teacher's tick and both."""
    step = steps()[0]
    held = question_tick(1)
    asked = state("?tick=9&step=1", 1, 1, open_=True)
    assert held_at(asked) == held
    seen = view(asked)
    assert seen["frame"]["tick"] == held and seen["last"] == held
    trace = ReaderState().trace
    assert _later_words(seen["frame"], trace, held) == []
    assert "right" not in seen["question"] and "verdicts" not in seen["question"]
    assert "moment-mark" not in json.dumps(seen)  # no key moments: they would name the ticks to come
    closed = replace(asked, open=False)
    assert view(closed)["frame"]["tick"] == held  # discussion: still held
    shown = view(replace(asked, open=False, revealed=True))
    assert shown["frame"]["tick"] == 9 and shown["last"] is None
    assert shown["question"]["right"] == [1] and set(shown["question"]["verdicts"]) == {"", "0", "1", "2"}
    verdicts = shown["question"]["verdicts"]
    assert "Right." in verdicts["1"] and "Not quite." in verdicts["0"] and step.number == 1


def test_once_the_teacher_moves_to_another_step_the_old_question_holds_nobody():
    asked = state("?tick=9&step=2", 1, 1, open_=True)  # the question is step 1's, the page step 2's
    assert held_at(asked) is None and view(asked)["frame"]["tick"] == 9


def test_a_paused_class_sends_no_frame_and_every_phone_the_same_bytes():
    paused = state("?tick=3", paused=True)
    assert view(paused)["frame"] is None and view(paused)["class"]["paused"]
    assert view_bytes(state("?tick=3")) == view_bytes(state("?tick=3"))


def test_what_the_teacher_changed_is_said_in_words():
    before, after = state("?tick=3"), state("?fencing=off&tick=3")
    said = view(after, before)["changed"]
    assert re.search(r"changed fencing from on to off", said), said
    assert view(replace(after, link="?fencing=off&tick=4"), after)["changed"] == ""  # a step is no change
