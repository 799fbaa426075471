"""Class mode's records (app/classroom.py): a class, its members, rounds and answers, on SQLite, and
(marked ``server``) on a throwaway PostgreSQL. An answer is recorded once however often it is sent, and
every acknowledged answer outlives a server killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from app.classroom import CODE_LENGTH, CODE_LETTERS, MIN_SECONDS_BETWEEN_CHANGES, ClassError, ClassStore
from tests.conftest import ROOT

STUDENTS = [f"student-{n:04d}" for n in range(6)]
T = time.time()  # the tests' clock starts now: a class that expires in hours is alive while they run


@pytest.fixture
def store(tmp_path):
    made = ClassStore(str(tmp_path / "classes.sqlite3"))
    yield made
    made.close()


def refused(code: str, call, *args, **kwargs) -> None:
    with pytest.raises(ClassError) as caught:
        call(*args, **kwargs)
    assert caught.value.code == code, caught.value


def test_a_class_has_a_code_to_type_and_a_teacher_s_secret_kept_only_as_a_hash(store, tmp_path):
    code, secret = store.create(now=T)
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_LETTERS)
    assert store.is_teacher(code, secret) and not store.is_teacher(code, secret + "x")
    assert secret.encode() not in (tmp_path / "classes.sqlite3").read_bytes()
    state = store.state(code.lower(), now=T + 1)  # typed on a phone: any case
    assert (state.code, state.joined, state.question, state.pacing) == (code, 0, None, "follow")


def test_an_unknown_or_expired_code_is_said_as_such(store):
    code, _ = store.create(now=T, hours=1)
    refused("unknown", store.state, "ZZZZZ", now=T + 1)
    refused("expired", store.state, code, now=T + 3600)
    refused("expired", store.join, code, STUDENTS[0], now=T + 3601)
    assert store.forget_expired(now=T + 3600) == 1
    refused("unknown", store.state, code, now=T)


def test_a_phone_joining_again_is_counted_once_and_an_odd_id_is_refused(store):
    code, _ = store.create(now=T)
    for student in [*STUDENTS[:3], STUDENTS[0], STUDENTS[0]]:
        store.join(code, student, now=T + 1)
    assert store.state(code, now=T + 2).joined == 3
    for odd in ("", "short", "x" * 65, "has space in it", "ünïcode-ünïcode"):
        refused("bad-student", store.join, code, odd, now=T + 1)


def test_only_the_teacher_s_secret_drives_the_class(store):
    code, secret = store.create(now=T)
    for move, args in (
        (store.follow, ("?preset=main&tick=3",)),
        (store.pace, ("free",)),
        (store.recall_all, ()),
        (store.open_round, (2,)),
        (store.reveal, ()),
        (store.export_csv, ()),
    ):
        refused("not-teacher", move, code, "a student's guess", *args)
    assert store.state(code).version == 0  # nothing changed
    store.follow(code, secret, "?preset=main&tick=3")
    store.pace(code, secret, "free")
    refused("bad-pacing", store.pace, code, secret, "sideways")
    store.recall_all(code, secret)
    state = store.state(code)
    assert (state.link, state.pacing, state.recall) == ("?preset=main&tick=3", "follow", 1)


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


def test_an_answer_outside_the_open_round_or_its_choices_is_refused_and_changes_nothing(store):
    code, secret, round_ = _class_with_round(store)
    refused("bad-choice", store.answer, code, STUDENTS[0], 2, round_, "3", choices=3, now=T + 10)
    refused("bad-choice", store.answer, code, STUDENTS[0], 2, round_, "-1", choices=3, now=T + 10)
    refused("bad-choice", store.answer, code, STUDENTS[0], 2, round_, "١", choices=3, now=T + 10)
    refused("not-open", store.answer, code, STUDENTS[0], 5, round_, "0", choices=3, now=T + 10)
    refused("not-open", store.answer, code, STUDENTS[0], 2, round_ + 1, "0", choices=3, now=T + 10)
    refused("not-joined", store.answer, code, "student-9999", 2, round_, "0", choices=3, now=T + 10)
    store.answer(code, STUDENTS[0], 2, round_, "0", choices=3, now=T + 10)
    refused("too-fast", store.answer, code, STUDENTS[0], 2, round_, "1", choices=3,
            now=T + 10 + MIN_SECONDS_BETWEEN_CHANGES / 2)  # fmt: skip
    store.close_round(code, secret, now=T + 20)
    refused("not-open", store.answer, code, STUDENTS[1], 2, round_, "0", choices=3, now=T + 21)
    assert store.counts(code, 2) == {1: {"0": 1}}


def test_a_second_round_is_counted_beside_the_first_and_reveal_closes_it(store):
    code, secret, first = _class_with_round(store)
    store.answer(code, STUDENTS[0], 2, first, "0", choices=3, now=T + 10)
    store.answer(code, STUDENTS[1], 2, first, "1", choices=3, now=T + 10)
    second = store.open_round(code, secret, 2, now=T + 30)  # after discussion: the first closes
    assert second == first + 1 and not store.state(code).revealed
    refused("not-open", store.answer, code, STUDENTS[2], 2, first, "0", choices=3, now=T + 31)
    store.answer(code, STUDENTS[0], 2, second, "1", choices=3, now=T + 31)
    store.answer(code, STUDENTS[1], 2, second, "1", choices=3, now=T + 31)
    store.reveal(code, secret, now=T + 40)
    state = store.state(code)
    assert (state.question, state.round, state.open, state.revealed) == (2, second, False, True)
    assert store.counts(code, 2) == {1: {"0": 1, "1": 1}, 2: {"1": 2}}
    export = store.export_csv(code, secret)
    assert export.splitlines() == ["question,round,answer,count", "2,1,1,1", "2,1,2,1", "2,2,2,2"]
    assert "student" not in export  # no one is named, nor when they answered


# --- SIGKILL mid-round ---------------------------------------------------------------------------

WRITER = """
import sys
from app.classroom import ClassStore
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


def acknowledged_answers_outlive_sigkill(url: str) -> None:
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
    deadline = time.monotonic() + 60
    while len(acknowledged) < 40 and time.monotonic() < deadline:
        acknowledged.append(writer.stdout.readline().split())
    writer.send_signal(signal.SIGKILL)  # mid-round, between any two statements
    writer.wait()
    assert len(acknowledged) == 40, "the writer did not answer in time"
    again = ClassStore(url)
    try:
        state = again.state(code)
        assert (state.question, state.round, state.open) == (2, 1, True)  # the round is still open
        for student, choice in acknowledged:
            assert again.my_answer(code, student, 2, 1) == choice
        counted = sum(again.counts(code, 2)[1].values())
        # Every acknowledged answer once; at most one more, recorded just before the kill and not yet told.
        assert len(acknowledged) <= counted <= len(acknowledged) + 1
        assert counted <= state.joined
    finally:
        again.close()


def test_no_acknowledged_answer_is_lost_or_doubled_when_the_server_is_killed(tmp_path):
    acknowledged_answers_outlive_sigkill(str(tmp_path / "classes.sqlite3"))


@pytest.mark.server
def test_on_postgresql_too_no_acknowledged_answer_is_lost_or_doubled():
    from engines.postgres import Postgres

    with Postgres() as server:
        acknowledged_answers_outlive_sigkill(server.url("postgres"))
