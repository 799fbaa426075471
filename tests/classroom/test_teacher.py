"""The teacher's side of a class (classroom/teacher.py) on the served app's page, without a browser: Peer
Instruction's sequence from the card's buttons (ask, close, discuss, ask again, reveal) with what the
projector and the phones show after each move, a class made only by a click, and the record of a class."""

from __future__ import annotations

import csv
import io

import pytest

from app.explainer import create_app
from app.tour import steps
from classroom import limits as rates
from classroom.hub import hub
from classroom.phone import question_tick, view
from classroom.record import csv_text
from classroom.teacher import ClassLink, split_class_link

STUDENTS = [f"student-{n:04d}" for n in range(5)]


def teacher(search="?class=new&present=1&tour=2"):
    app = create_app(search).explainer
    card = app.classroom
    card._act("start", "")  # the teacher's click: a link alone makes no class
    return app, card


def phones(card, state=None):
    """What every phone is sent now."""
    return view(state or hub().store().state(card.code))


def test_a_link_says_what_it_asks_of_class_mode():
    teaching = ("?tour=2&present=1", ClassLink("teacher", "new", ""))
    assert split_class_link("?tour=2&class=new&present=1") == teaching
    assert split_class_link("?join=abcde&tick=3")[1] == ClassLink("student", "abcde")
    assert split_class_link("?tick=3") == ("?tick=3", None)


def test_opening_the_teacher_s_link_makes_no_class_until_the_teacher_starts_one(fresh_classes):
    app = create_app("?class=new&present=1&tour=2").explainer
    assert app.classroom.making and "class-start" in app.classroom.card.html
    store = hub().store()
    with store._transaction() as tx:
        assert tx.rows("SELECT COUNT(*) FROM classes")[0][0] == 0
    app.classroom._act("start", "")
    assert not app.classroom.making and len(app.classroom.code) == 5
    assert app.classroom.query() == f"class={app.classroom.code}&teach={app.classroom.secret}"


def test_one_address_starts_a_few_classes_and_is_then_told_so(fresh_classes):
    rates._LIMITS[:] = [rates.Limits()]
    made = []
    for _ in range(int(rates.CLASS_MADE.burst) + 1):
        app = create_app("?class=new").explainer
        app.classroom._act("start", "")
        made.append(app.classroom)
    assert all(not card.making for card in made[:-1])
    assert made[-1].making and "several classes" in made[-1].card.html


def test_the_code_with_a_wrong_key_shows_the_class_and_cannot_lead_it(fresh_classes):
    _, card = teacher()
    stranger = create_app(f"?class={card.code}&teach=guess").explainer.classroom
    stranger.start()
    assert stranger.state is None and "not lead it" in stranger.card.html


def test_peer_instruction_from_ask_to_reveal(fresh_classes):
    """Step 2 asks about t8 at t7. After each move: where the projector is, what the phones see, and
    what the card offers; the second vote is taken back at the question's tick, the spread shown only
    once a round closes, the verdict and the shift once revealed."""
    app, card = teacher()
    store = hub().store()
    for student in STUDENTS:
        store.join(card.code, student)
    held = question_tick(2)
    app.state.go(9)  # the teacher looks ahead before asking: nothing waits yet
    assert phones(card)["frame"]["tick"] == 9
    card._act("open", "2")  # ask: round 1, back at the question's tick
    assert app.state.tick == held and phones(card)["frame"]["tick"] == held
    assert "class-close" in card.card.html and "class-bar" not in card.card.html  # they vote alone
    for student, choice in zip(STUDENTS, "00011", strict=True):
        store.answer(card.code, student, 2, 1, choice, 2)
    app.state.go(held + 2)  # the projector cannot give the answer away while the room answers
    assert app.state.tick == held
    card._act("close", "")  # the spread, without the answer
    card._count_soon()
    assert "class-bar" in card.card.html and "✓ right" not in card.card.html
    assert "Ask again: round 2" in card.card.html and phones(card)["question"]["phase"] == "closed"
    app.state.go(held + 1)
    assert app.state.tick == held  # discussion: still held
    card._act("open", "2")  # ask again
    state = store.state(card.code)
    assert (state.round, state.open) == (2, True) and app.state.tick == held
    for student in STUDENTS:
        store.answer(card.code, student, 2, 2, "1", 2)
    card._act("reveal", "")
    card._count_soon()
    step = steps()[1]
    assert app.state.tick == step.ask and phones(card)["frame"]["tick"] == step.ask
    html = card.card.html
    assert "✓ right" in html and "3 moved to the right answer (3 from A)" in html
    assert phones(card)["question"]["right"] == [1]


def test_a_switch_flipped_during_a_tour_step_reaches_the_phones(fresh_classes):
    app, card = teacher("?class=new&present=1&tour=2")  # fencing off in its chapter
    app.page.act("set", "fencing=on", "figure")
    seen = phones(card)
    assert "fencing" not in seen["frame"]["run"]  # the run is the default's: fencing on
    app.page.act("set", "fencing=off", "figure")
    assert "fencing=off" in phones(card)["frame"]["run"]


def test_pausing_blanks_every_phone_and_brings_them_back(fresh_classes):
    _, card = teacher()
    card._act("pause", "on")
    assert phones(card)["frame"] is None and phones(card)["class"]["paused"]
    assert "Bring the phones back" in card.card.html
    card._act("pause", "off")
    assert phones(card)["frame"] is not None


def test_the_record_names_questions_answers_and_the_right_one_and_nobody(fresh_classes):
    _, card = teacher()
    store = hub().store()
    for student in STUDENTS[:3]:
        store.join(card.code, student)
    card._act("open", "2")
    store.answer(card.code, STUDENTS[0], 2, 1, "0", 2)
    store.answer(card.code, STUDENTS[1], 2, 1, "1", 2)
    card._act("open", "2")
    store.answer(card.code, STUDENTS[0], 2, 2, "1", 2)
    rows = list(csv.DictReader(io.StringIO(csv_text(store.all_counts(card.code)))))
    step = steps()[1]
    assert [(r["round"], r["answer"], r["right"], r["count"]) for r in rows] == [
        ("1", "A", "no", "1"),
        ("1", "B", "yes", "1"),
        ("2", "A", "no", "0"),
        ("2", "B", "yes", "1"),
    ]
    assert {r["question"] for r in rows} == {step.question} and rows[1]["answer text"] == step.answers[1].text
    assert not any(s in csv_text(store.all_counts(card.code)) for s in STUDENTS)


@pytest.mark.parametrize("host", ["x" * 1400 + ".example", "evil.example/<svg>", "a b"])
def test_the_join_link_is_the_server_s_own_and_a_forged_host_draws_no_big_code(fresh_classes, host):
    from classroom.teacher import join_base

    class Request:
        headers = {"Host": host}
        protocol = "http"

    assert join_base(Request()) == "http://localhost:5006"
    Request.headers = {"Host": "192.168.1.20:5006"}
    assert join_base(Request()) == "http://192.168.1.20:5006"
