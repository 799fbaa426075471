"""Class mode's records (classroom/store.py): a class, its members, rounds and answers, on SQLite and (marked
``server``) on a throwaway PostgreSQL. An answer is recorded once however often it is sent; a check and
the write it guards are one transaction, so two connections cannot slip a move between them; a class
past its hours is gone, with all it recorded; every acknowledged answer outlives a server killed with
SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from classroom import store as stores
from classroom.store import (
    CODE_LENGTH,
    CODE_LETTERS,
    MIN_SECONDS_BETWEEN_CHANGES,
    ClassError,
    ClassStore,
    canonical_choice,
)
from tests.conftest import ROOT

STUDENTS = [f"student-{n:04d}" for n in range(6)]
T = time.time()  # the tests' clock starts now: a class that expires in hours is alive while they run


class Clock:
    """A clock the test moves: a class can be aged by hours in no time."""

    def __init__(self, now: float = T) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def postgres():
    from engines.postgres import Postgres

    with Postgres() as server:
        yield server


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.server)])
def url(request, tmp_path):
    """Where the classes are kept: a SQLite file of the test's own, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "classes.sqlite3")
    import psycopg

    server = request.getfixturevalue("postgres")
    name = f"classes_{os.getpid()}_{time.monotonic_ns()}"
    with psycopg.connect(server.url("postgres"), autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return server.url(name)


@pytest.fixture
def store(url):
    made = ClassStore(url)
    yield made
    made.close()


def refused(code: str, call, *args, **kwargs) -> None:
    with pytest.raises(ClassError) as caught:
        call(*args, **kwargs)
    assert caught.value.code == code, caught.value


def test_a_class_has_a_code_to_type_and_a_teacher_s_secret_kept_only_as_a_hash(tmp_path):
    store = ClassStore(str(tmp_path / "classes.sqlite3"))
    code, secret = store.create(now=T)
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_LETTERS)
    assert store.is_teacher(code, secret) and not store.is_teacher(code, secret + "x")
    store.close()
    assert secret.encode() not in (tmp_path / "classes.sqlite3").read_bytes()


def test_a_code_typed_on_a_phone_finds_its_class(store):
    code, _ = store.create(now=T)
    state = store.state(f" {code.lower()[:2]} {code.lower()[2:]} ", now=T + 1)
    found = (state.code, state.joined, state.question, state.pacing, state.paused)
    assert found == (code, 0, None, "follow", False)


def test_a_class_aged_past_its_hours_is_gone_with_all_it_recorded_and_says_so_truly(url):
    """Twelve hours and a second later the class is deleted when anyone asks (and by the server's sweep
    when nobody does), and what a page says ("no longer kept") is true of the database."""
    clock = Clock()
    store = ClassStore(url, clock=clock)
    code, secret = store.create(hours=12)
    store.join(code, STUDENTS[0])
    store.open_round(code, secret, 2)
    store.answer(code, STUDENTS[0], 2, 1, "1", 3)
    clock.now += 12 * 3600 - 1
    assert store.state(code).joined == 1  # a second before its end: all there
    clock.now += 2
    with pytest.raises(ClassError) as caught:
        store.state(code)
    assert caught.value.code == "expired" and "no longer kept" in str(caught.value)
    refused("unknown", store.state, code)  # it was deleted when it was found ended
    assert store.all_counts(code) == {} and store.my_answer(code, STUDENTS[0], 2, 1) is None
    other, _ = store.create(hours=1)  # the sweep: nobody asks for it again
    clock.now += 3601
    assert store.forget_expired() == 1
    refused("unknown", store.state, other)
    store.close()


def test_a_phone_joining_again_is_counted_once_and_an_odd_id_is_refused(store):
    code, _ = store.create(now=T)
    for student in [*STUDENTS[:3], STUDENTS[0], STUDENTS[0]]:
        store.join(code, student, now=T + 1)
    assert store.state(code, now=T + 2).joined == 3
    for odd in ("", "short", "x" * 65, "has space in it", "ünïcode-ünïcode", 12345678, None):
        refused("bad-student", store.join, code, odd, now=T + 1)


def test_one_address_cannot_fill_a_class(store, monkeypatch):
    monkeypatch.setenv("CLASS_PER_ADDRESS", "3")
    code, _ = store.create(now=T)
    for student in STUDENTS[:3]:
        store.join(code, student, now=T + 1, address="203.0.113.9")
    store.join(code, STUDENTS[0], now=T + 1, address="203.0.113.9")  # one already in: still in
    refused("too-many-here", store.join, code, STUDENTS[3], now=T + 1, address="203.0.113.9")
    store.join(code, STUDENTS[3], now=T + 1, address="198.51.100.7")  # another network
    assert store.state(code, now=T + 2).joined == 4


def test_only_the_teacher_s_secret_drives_the_class(store):
    code, secret = store.create(now=T)
    for move, args in (
        (store.follow, ("?preset=main&tick=3",)),
        (store.pace, ("free",)),
        (store.recall_all, ()),
        (store.pause, (True,)),
        (store.open_round, (2,)),
        (store.close_round, ()),
        (store.reveal, ()),
        (store.owns, ()),
    ):
        refused("not-teacher", move, code, "a student's guess", *args)
    assert store.state(code).version == 0  # nothing changed
    store.follow(code, secret, "?preset=main&tick=3")
    store.pace(code, secret, "free")
    refused("bad-pacing", store.pace, code, secret, "sideways")
    store.pause(code, secret, True)
    assert store.state(code).paused
    store.recall_all(code, secret)
    state = store.state(code)
    found = (state.link, state.pacing, state.recall, state.paused)
    assert found == ("?preset=main&tick=3", "follow", 1, True)


def _class_with_round(store, step=2):
    code, secret = store.create(now=T)
    for student in STUDENTS:
        store.join(code, student, now=T + 1)
    round_ = store.open_round(code, secret, step, now=T + 2)
    return code, secret, round_


def test_an_answer_sent_again_is_one_answer_and_a_change_moves_it(store):
    code, _, round_ = _class_with_round(store)
    for _ in range(3):  # a double tap, a resend after a reconnect
        assert store.answer(code, STUDENTS[0], 2, round_, "1", choices=3, now=T + 10) == "1"
    store.answer(code, STUDENTS[1], 2, round_, "1", choices=3, now=T + 10)
    store.answer(code, STUDENTS[2], 2, round_, "0", choices=3, now=T + 10)
    assert store.counts(code, 2) == {1: {"1": 2, "0": 1}}
    store.answer(code, STUDENTS[0], 2, round_, "2", choices=3, now=T + 11)  # changed its mind
    assert store.counts(code, 2) == {1: {"1": 1, "0": 1, "2": 1}}
    assert store.my_answer(code, STUDENTS[0], 2, round_) == "2"


def test_an_answer_is_kept_in_one_form_so_the_bars_and_the_total_agree(store):
    """ "01", "1" and 1 are one answer (counted in its bar, once per student); "00" is "0"."""
    code, _, round_ = _class_with_round(store)
    assert store.answer(code, STUDENTS[0], 2, round_, "01", choices=3, now=T + 10) == "1"
    assert store.answer(code, STUDENTS[1], 2, round_, 1, choices=3, now=T + 10) == "1"
    assert store.answer(code, STUDENTS[2], 2, round_, "00", choices=3, now=T + 10) == "0"
    assert store.answer(code, STUDENTS[0], 2, round_, "1", choices=3, now=T + 11) == "1"  # the same answer
    assert store.counts(code, 2) == {1: {"1": 2, "0": 1}}
    assert [canonical_choice(c, 4) for c in ("3", "003", 0)] == ["3", "3", "0"]
    for odd in ("4", "-1", "1.0", " 1", "١", "", "0x1", True, None, 1.0, "9" * 400):
        refused("bad-choice", canonical_choice, odd, 4)


def test_an_answer_outside_the_open_round_or_its_choices_is_refused_and_changes_nothing(store):
    code, secret, round_ = _class_with_round(store)
    refused("bad-choice", store.answer, code, STUDENTS[0], 2, round_, "3", choices=3, now=T + 10)
    refused("not-open", store.answer, code, STUDENTS[0], 5, round_, "0", choices=3, now=T + 10)
    refused("not-open", store.answer, code, STUDENTS[0], 2, round_ + 1, "0", choices=3, now=T + 10)
    refused("not-joined", store.answer, code, "student-9999", 2, round_, "0", choices=3, now=T + 10)
    store.answer(code, STUDENTS[0], 2, round_, "0", choices=3, now=T + 10)
    refused("too-fast", store.answer, code, STUDENTS[0], 2, round_, "1", choices=3,
            now=T + 10 + MIN_SECONDS_BETWEEN_CHANGES / 2)  # fmt: skip
    store.close_round(code, secret, now=T + 20)
    refused("not-open", store.answer, code, STUDENTS[1], 2, round_, "0", choices=3, now=T + 21)
    assert store.counts(code, 2) == {1: {"0": 1}}


def test_each_question_counts_its_own_rounds_and_reveal_closes_the_round_on_show(store):
    """Two questions in one class: the second's first round is its round 1, whatever the first had."""
    code, secret, first = _class_with_round(store, step=2)
    store.answer(code, STUDENTS[0], 2, first, "0", choices=3, now=T + 10)
    store.answer(code, STUDENTS[1], 2, first, "1", choices=3, now=T + 10)
    second = store.open_round(code, secret, 2, now=T + 30)  # after discussion: the first closes
    assert (first, second) == (1, 2) and not store.state(code).revealed
    refused("not-open", store.answer, code, STUDENTS[2], 2, first, "0", choices=3, now=T + 31)
    store.answer(code, STUDENTS[0], 2, second, "1", choices=3, now=T + 31)
    store.answer(code, STUDENTS[1], 2, second, "1", choices=3, now=T + 31)
    revealed = store.reveal(code, secret, now=T + 40)
    assert (revealed.question, revealed.round, revealed.open, revealed.revealed) == (2, second, False, True)
    assert store.counts(code, 2) == {1: {"0": 1, "1": 1}, 2: {"1": 2}}
    assert store.moves(code, 2, 1, 2) == {("0", "1"): 1, ("1", "1"): 1}  # one moved, one stayed
    assert store.open_round(code, secret, 5, now=T + 50) == 1  # the next question starts at round 1
    state = store.state(code)
    assert (state.question, state.round, state.open, state.revealed) == (5, 1, True, False)


# --- two connections at once ----------------------------------------------------------------------------

# Each race is a move on one connection paused inside its transaction (after its check, before its
# write), while a second connection makes a move on the same class. The second must wait for the first to
# end; before the moves were single transactions it slipped in, and the first wrote what its check no
# longer allowed.
PAUSE = 0.6  # seconds the first move holds its transaction open


class Paused:
    """Pause the thread ``paused_in`` for ``PAUSE`` seconds after its transaction's ``nth`` read."""

    def __init__(self, monkeypatch, nth: int) -> None:
        self.thread: threading.Thread | None = None
        self.reached = threading.Event()
        reads = {"n": 0}
        rows = stores._Transaction.rows

        def slow_rows(tx, sql, values=()):
            found = rows(tx, sql, values)
            if threading.current_thread() is self.thread:
                reads["n"] += 1
                if reads["n"] == nth:
                    self.reached.set()
                    time.sleep(PAUSE)
            return found

        monkeypatch.setattr(stores._Transaction, "rows", slow_rows)

    def race(self, first, second) -> tuple:
        """``first()`` in its own thread, paused; ``second()`` once the pause begins: their results (or
        errors), and whether the second ended while the first was still paused."""
        results: dict = {}

        def run(name, call):
            try:
                results[name] = call()
            except ClassError as error:
                results[name] = error

        self.thread = threading.Thread(target=run, args=("first", first))
        self.thread.start()
        assert self.reached.wait(10)
        began = time.monotonic()
        run("second", second)
        slipped_in = time.monotonic() - began < PAUSE * 0.8
        self.thread.join(10)
        return results["first"], results["second"], slipped_in


def test_an_answer_cannot_land_after_the_round_is_revealed(url, monkeypatch):
    teacher, phone = ClassStore(url), ClassStore(url)
    code, secret, round_ = _class_with_round(teacher)
    pause = Paused(monkeypatch, nth=3)  # the answer has read the class, its round and the member
    answer, revealed, slipped = pause.race(
        lambda: phone.answer(code, STUDENTS[0], 2, round_, "1", 3),
        lambda: (teacher.reveal(code, secret), teacher.counts(code, 2)),
    )
    assert not slipped
    assert answer == "1" and revealed[1] == {1: {"1": 1}}  # recorded before the reveal, and counted in it
    assert teacher.counts(code, 2) == revealed[1]  # nothing landed after it
    teacher.close(), phone.close()


def test_two_asks_at_once_are_two_rounds_not_an_error(url, monkeypatch):
    one, two = ClassStore(url), ClassStore(url)
    code, secret = one.create()
    pause = Paused(monkeypatch, nth=3)  # the first ask has found the last round
    first, second, slipped = pause.race(
        lambda: one.open_round(code, secret, 2), lambda: two.open_round(code, secret, 2)
    )
    assert not slipped and sorted([first, second]) == [1, 2]
    one.close(), two.close()


def test_a_reveal_reveals_the_round_it_closes_when_a_new_round_is_asked_meanwhile(url, monkeypatch):
    one, two = ClassStore(url), ClassStore(url)
    code, secret, _ = _class_with_round(one)
    pause = Paused(monkeypatch, nth=2)  # the reveal has read the class and its round
    revealed, asked, slipped = pause.race(
        lambda: one.reveal(code, secret), lambda: two.open_round(code, secret, 2)
    )
    assert not slipped and revealed.revealed and revealed.round == 1
    state = two.state(code)
    assert (state.round, state.open, state.revealed) == (2, True, False) and asked == 2
    one.close(), two.close()


def test_the_last_place_in_a_class_goes_to_one_of_two_phones(url, monkeypatch):
    monkeypatch.setattr(stores, "MAX_MEMBERS", 3)
    one, two = ClassStore(url), ClassStore(url)
    code, _ = one.create()
    for student in STUDENTS[:2]:
        one.join(code, student)
    pause = Paused(monkeypatch, nth=2)  # the join has read the class and that the student is new
    first, second, slipped = pause.race(
        lambda: one.join(code, STUDENTS[2]), lambda: two.join(code, STUDENTS[3])
    )
    assert not slipped
    assert first.joined == 3 and isinstance(second, ClassError) and second.code == "full"
    assert one.state(code).joined == 3
    one.close(), two.close()


def test_a_database_error_in_a_move_is_a_word_to_the_page_not_an_escaped_exception(tmp_path):
    """A SQLite file locked by another process for longer than a move waits is "unreachable"."""
    import sqlite3

    path = tmp_path / "classes.sqlite3"
    store = ClassStore(str(path))
    code, secret = store.create()
    store._sqlite.execute("PRAGMA busy_timeout = 200")
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        refused("unreachable", store.open_round, code, secret, 2)
    finally:
        blocker.execute("ROLLBACK")
    assert store.open_round(code, secret, 2) == 1
    store.close()


# --- SIGKILL mid-round ---------------------------------------------------------------------------

WRITER = """
import sys
from classroom.store import ClassStore
store = ClassStore(sys.argv[1])
code, secret = sys.argv[2], sys.argv[3]
n = 0
while True:  # students join and answer, each told "in" only once the answer is recorded
    student = f"student-{n:06d}"
    store.join(code, student)
    store.answer(code, student, 2, 1, str(n % 3), choices=3)
    store.answer(code, student, 2, 1, str(n % 3), choices=3)  # the phone's resend
    print(student, n % 3, flush=True)
    n += 1
"""


def test_no_acknowledged_answer_is_lost_or_doubled_when_the_writer_is_killed(url):
    store = ClassStore(url)
    code, secret = store.create()
    store.open_round(code, secret, 2)
    store.close()
    writer = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(WRITER), url, code, secret],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    acknowledged = []
    while len(acknowledged) < 40:  # each line is an answer acknowledged; a dead writer ends the test
        line = writer.stdout.readline()
        assert line, "the writer stopped before answering 40 times"
        acknowledged.append(line.split())
    writer.send_signal(signal.SIGKILL)  # mid-round, between any two statements
    writer.wait()
    again = ClassStore(url)
    try:
        state = again.state(code)
        assert (state.question, state.round, state.open) == (2, 1, True)  # the round is still open
        for student, choice in acknowledged:
            assert again.my_answer(code, student, 2, 1) == choice
        students = (f"student-{n:06d}" for n in range(state.joined))
        recorded = {s for s in students if again.my_answer(code, s, 2, 1)}
        # Every acknowledged answer once: what else is recorded (the writer went on answering while the
        # test read) is each a student's one answer too.
        assert {s for s, _ in acknowledged} <= recorded
        assert sum(again.counts(code, 2)[1].values()) == len(recorded) <= state.joined
    finally:
        again.close()
