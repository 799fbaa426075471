"""Class mode's pages without a browser (app/views/classroom.py over app/classroom.py): the teacher's and
the students' pages of one class, driven as their clicks and the twice-a-second poll drive them."""

from __future__ import annotations

import asyncio
import inspect

from app.explainer import create_app
from app.url import read_query
from app.views import classroom

PHONES = ["0123456789abcdef", "fedcba9876543210"]


def _teacher(search="?class=new&present=1&tour=2"):
    return create_app(search).explainer


def _student(code, phone=PHONES[0]):
    app = create_app(f"?join={code.lower()}").explainer
    app.classroom._hello(phone)
    return app


def test_a_link_says_who_a_page_is_in_its_class():
    assert classroom.split_class_link("?tour=2&class=new&present=1") == (
        "?tour=2&present=1",
        classroom.ClassLink("teacher", "new", ""),
    )
    assert classroom.split_class_link("?join=abcde&tick=3")[1] == classroom.ClassLink("student", "abcde")
    assert classroom.split_class_link("?tick=3") == ("?tick=3", None)
    # The phones follow the teacher's run, not its projector layout.
    assert classroom.shared_link("?tour=2&present=1&embed=1", 4) == "?tour=2&tick=4"
    assert classroom.split_tick("?fencing=off&tick=4") == ("?fencing=off", 4)


def test_the_teacher_s_link_keeps_its_key_and_a_student_s_only_the_code(fresh_classes):
    teacher = _teacher()
    panel = teacher.classroom
    assert panel.teacher and len(panel.code) == 5
    assert panel.query() == f"class={panel.code}&teach={panel.secret}"
    student = _student(panel.code)
    assert student.classroom.query() == f"join={panel.code}" and not student.classroom.teacher
    # The code with a wrong key (or none) shows the class and cannot lead it.
    stranger = create_app(f"?class={panel.code}&teach=guess").explainer.classroom
    assert not stranger.teacher and "not lead it" in stranger.message


def test_phones_follow_the_teacher_until_let_go_and_come_back_when_recalled(fresh_classes):
    teacher = _teacher()
    student = _student(teacher.classroom.code)
    assert student.state.tour == 2  # took the teacher's page on joining
    teacher.state.go(6)
    student.classroom.poll()
    assert student.state.tick == 6
    teacher.classroom._act("pace", "free")
    student.classroom.poll()
    student.state.go(1)  # exploring
    teacher.state.go(7)
    student.classroom.poll()
    assert student.state.tick == 1
    teacher.classroom._act("recall", "")
    student.classroom.poll()
    assert student.state.tick == 7
    assert student.views == {}  # a phone shows no tabs: none is built to redraw at each of its steps


def test_a_round_from_question_to_verdict(fresh_classes):
    teacher = _teacher()
    code = teacher.classroom.code
    phones = [_student(code, phone) for phone in PHONES]
    teacher.classroom.poll()
    assert "2 joined" in teacher.classroom.join.object
    teacher.classroom._act("open", "2")
    for n, phone in enumerate(phones):
        phone.classroom.poll()
        assert 'data-key="class-answer-0"' in phone.classroom.card.html
        phone.classroom._act("answer", str(n))
        assert f"Your answer {'AB'[n]} is in" in phone.classroom.card.html
    phones[0].classroom._act("answer", "7")  # not a choice: refused, and said
    assert "must be one of" in phones[0].classroom.card.html
    teacher.classroom.poll()
    assert "2 answered" in teacher.classroom.card.html and "✓ right" not in teacher.classroom.card.html
    teacher.classroom._act("reveal", "")
    assert "✓ right" in teacher.classroom.card.html
    assert teacher.state.tick == 8  # the asked tick, as the tour's check shows it
    for phone in phones:
        phone.classroom.poll()
        assert "The model's answer" in phone.classroom.card.html
    assert teacher.classroom.store.export_csv(code, teacher.classroom.secret).count("\n") == 3


def test_the_static_page_says_class_mode_needs_the_server():
    notices = read_query("?join=ABCDE&class=new").notices
    assert notices == [
        "Class mode needs the served explainer (./dev serve): this static page cannot keep a class's answers."
    ]


def test_the_teacher_moves_through_the_tour_from_the_class_card(fresh_classes):
    """The class card takes the tour card's place, so it carries the tour's steps: back, next, and a
    start where the page is not in the tour."""
    teacher = _teacher("?class=new&present=1")
    assert 'data-action="step" data-value="1"' in teacher.classroom.card.html  # start the tour
    # Beside the diagram on the projector, as the tour's card is, and the chapters' menu stays.
    assert teacher._present_main.styles["flex"] == "1 1 560px" and teacher._present_menu.chapters
    teacher.classroom._act("step", "1")
    teacher.classroom._act("step", "2")
    assert teacher.state.tour == 2 and "Step 2." in teacher.classroom.card.html
    teacher.classroom._act("step", "99")  # no such step: nothing moves
    assert teacher.state.tour == 2


def test_a_phone_does_not_show_the_asked_tick_before_the_reveal(fresh_classes):
    """Step 2 asks what happens at t8: while its round waits for the reveal, a following phone stops at
    t7 even if the teacher's screen goes on; the reveal takes it to the teacher's tick."""
    teacher = _teacher()
    student = _student(teacher.classroom.code)
    teacher.classroom._act("open", "2")
    teacher.state.go(9)
    student.classroom.poll()
    assert student.state.tick == 7
    teacher.classroom._act("reveal", "")  # the teacher's page steps to t8, the asked tick
    student.classroom.poll()
    assert student.state.tick == 8


def test_an_answer_tapped_but_never_acknowledged_is_sent_again_when_the_phone_is_back(fresh_classes):
    """A phone reloading after a restart names the answer it tapped and never saw acknowledged: it is
    recorded if its round is still the open one and the phone has none there; a stale one is dropped."""
    teacher = _teacher()
    code = teacher.classroom.code
    teacher.classroom._act("open", "2")
    back = create_app(f"?join={code}").explainer.classroom
    back._hello(PHONES[0], {"asked": "2:1", "choice": "1"})
    assert "Your answer B is in" in back.card.html and back.client.acknowledged == "2:1:1"
    late = create_app(f"?join={code}").explainer.classroom
    late._hello(PHONES[1], {"asked": "2:0", "choice": "1"})  # a round that is no longer the open one
    assert late.store.my_answer(code, PHONES[1], 2, 1) is None and late.client.asked == "2:1"
    again = create_app(f"?join={code}").explainer.classroom
    again._hello(PHONES[0], {"asked": "2:1", "choice": "0"})  # already has an answer: left as it was
    assert again.store.my_answer(code, PHONES[0], 2, 1) == "1"


class _Session:
    """What ``Watch`` needs of a served page's document: callbacks queued for its session, and its end."""

    session_context = None  # Panel asks it of the document its callbacks run in

    def __init__(self):
        self.queued, self.ended = [], []

    def add_next_tick_callback(self, call):
        self.queued.append(call)

    def on_session_destroyed(self, call):
        self.ended.append(call)

    def run(self):
        while self.queued:
            done = self.queued.pop(0)()
            if inspect.isawaitable(done):  # a coroutine: Bokeh awaits it on the server's loop
                asyncio.run(done)

    def end(self):
        for call in self.ended:
            call(None)


def test_one_process_reads_a_class_once_per_poll_however_many_of_its_pages_it_serves(fresh_classes):
    started, stopped = [], []
    watch = classroom.Watch(every=lambda call, ms: started.append((call, ms)) or (lambda: stopped.append(1)))
    teacher = _teacher()
    code = teacher.classroom.code
    phones = [_student(code, f"phone-{n:04d}") for n in range(12)]
    other = _teacher()  # a second class in the same process
    pages = [(page, _Session()) for page in [teacher, *phones, other]]
    for page, session in pages:
        watch.add(page.classroom, session)
    assert started == [(watch.check, classroom.POLL_MS)]  # one periodic call for the process
    store = teacher.classroom.store
    asked = []

    def counting(name):
        real = getattr(store, name)

        def counted(code, *rest):
            asked.append(name)
            return real(code, *rest)

        return counted

    store.version, store.state = counting("version"), counting("state")
    watch.check()  # each page takes its class as it is now
    for _, session in pages:
        session.run()
    teacher.state.go(6)
    asked.clear()
    watch.check()
    # One version per class, and the moved class read once: not once per page.
    assert sorted(asked) == ["state", "version", "version"]
    assert not pages[-1][1].queued  # the other class did not move: its page is left alone
    asked.clear()
    for _, session in pages[:-1]:
        session.run()
    assert not asked  # the pages took the state the watch read
    assert [phone.state.tick for phone in phones] == [6] * 12
    watch.check()
    assert asked == ["version", "version"] and not any(s.queued for _, s in pages)  # nothing moved
    # A join moves the class: the teacher's card redraws (one more joined), no phone does (it shows nothing
    # of it), though each phone holds the class as it now is.
    _student(code, "phone-late")
    watch.check()
    assert [bool(s.queued) for _, s in pages] == [True] + [False] * 13
    assert {phone.classroom.version() for phone in phones} == {teacher.classroom.store.version(code)}
    pages[0][1].run()
    assert f"{len(phones) + 1} joined" in teacher.classroom.join.object
    teacher.state.go(7)  # and a step reaches every phone again
    watch.check()
    assert [bool(s.queued) for _, s in pages] == [True] * 13 + [False]
    for _, session in pages:
        session.end()
    assert watch.pages == {} and stopped == [1]  # the last page gone, the periodic call stops


def test_the_join_link_keeps_the_address_the_teacher_s_browser_said(fresh_classes, monkeypatch):
    """A redraw the class's watch asks for may run where the session's location is not known: the link
    keeps its host all the same (it lost it for a moment, and a test reading it then failed)."""
    from types import SimpleNamespace

    import panel as pn

    teacher = _teacher()
    said = SimpleNamespace(href="http://10.0.0.5:5006/explainer?class=X&teach=Y")
    monkeypatch.setattr(type(pn.state), "location", property(lambda self: said))
    teacher.classroom.redraw()
    link = f"http://10.0.0.5:5006/explainer?join={teacher.classroom.code}"
    assert link in teacher.classroom.join.object
    monkeypatch.setattr(type(pn.state), "location", property(lambda self: None))
    teacher.state.go(3)  # the teacher's step, drawn where no location is known
    teacher.classroom.redraw()
    assert link in teacher.classroom.join.object
