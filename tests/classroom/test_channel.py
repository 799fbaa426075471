"""The phones' channel (classroom/channel.py) served in this process, with phones speaking its protocol
over real websockets: a phone is told the class, its answer once it is recorded (its other tabs too), the
teacher's moves; a connection is one student; what one client may send is bounded, and a client that
sends too much, too big or garbage is dropped with a log line of a few hundred bytes at most."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import socket

import pytest
from tornado.httpserver import HTTPServer
from tornado.web import Application
from tornado.websocket import websocket_connect

from classroom import channel
from classroom import hub as hubs
from classroom import limits as rates
from classroom.store import MIN_SECONDS_BETWEEN_CHANGES, ClassStore

TIMEOUT = 20.0  # seconds: far more than any message takes, so a loaded machine does not fail the test


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Room:
    """The channel on a port of its own, over a class database of the test's own."""

    def __init__(self, path) -> None:
        self.path = str(path)
        self.store = ClassStore(self.path)
        self.code, self.secret = self.store.create()

    async def __aenter__(self):
        self.hub = hubs.Hub(lambda: ClassStore(self.path))
        self.hub.serving = False  # its own time (beat, sweep) is not what these tests are about
        hubs._HUB[:] = [self.hub]
        rates._LIMITS[:] = [rates.Limits()]
        self.port = free_port()
        self.server = HTTPServer(Application(channel.ROUTES))
        self.server.listen(self.port, "127.0.0.1")
        return self

    async def __aexit__(self, *exc) -> None:
        self.server.stop()
        self.hub.stop()
        hubs._HUB.clear()
        self.store.close()

    async def phone(self, student: str | None = "student-0001", code: str | None = None, pending=None):
        """A phone connected (and, given a ``student``, joined): its connection and the view it got."""
        connection = await websocket_connect(f"ws://127.0.0.1:{self.port}/class/socket/{code or self.code}")
        if student is None:
            return connection, None
        await send(connection, {"hello": student, "pending": pending})
        return connection, await expect(connection, "view")

    def teacher_moves(self, **change) -> None:
        """What the teacher's page does after a move: write it, and tell this process's phones."""
        for name, args in change.items():
            getattr(self.store, name)(self.code, self.secret, *args)
        self.hub.changed(self.code, "state", self.store.state(self.code))


async def send(connection, message) -> None:
    await connection.write_message(message if isinstance(message, str | bytes) else json.dumps(message))


async def expect(connection, kind: str) -> dict:
    """The next message of ``kind`` (others, such as a beat, are passed over)."""
    while True:
        raw = await asyncio.wait_for(connection.read_message(), TIMEOUT)
        assert raw is not None, f"the connection closed while waiting for {kind!r}"
        message = json.loads(raw)
        if message["t"] == kind:
            return message


async def closed(connection) -> int | None:
    """Read until the server closes the connection; its close code."""
    while await asyncio.wait_for(connection.read_message(), TIMEOUT) is not None:
        pass
    return connection.close_code


def run(scenario, tmp_path):
    """The scenario in a loop of its own, in a thread of its own: in a whole-suite run Playwright's sync
    API keeps an event loop running in this thread, where ``asyncio.run`` refuses to start another."""

    async def main():
        async with Room(tmp_path / "classes.sqlite3") as room:
            await scenario(room)

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, main()).result()


def test_phones_get_the_same_view_and_each_its_own_answer_once_recorded(tmp_path):
    async def scenario(room):
        one, seen = await room.phone("student-0001")
        two, seen_too = await room.phone("student-0002")
        assert seen == seen_too and seen["frame"]["tick"] == 0 and seen["question"] is None
        room.teacher_moves(follow=("?tick=4&step=1",), open_round=(1,))
        asked = await expect(one, "view")
        assert asked["question"]["phase"] == "open" and asked["frame"]["tick"] == 4
        assert await expect(two, "view") == asked
        await send(one, {"answer": {"step": 1, "round": 1, "choice": "01"}})
        told = await expect(one, "you")
        # Told only once it is on disk, in its one form.
        assert told == {"t": "you", "step": 1, "round": 1, "choice": "1"}
        assert room.store.my_answer(room.code, "student-0001", 1, 1) == "1"
        tab, _ = await room.phone("student-0001")  # the same student in another tab
        assert (await expect(tab, "you"))["choice"] == "1"
        await asyncio.sleep(MIN_SECONDS_BETWEEN_CHANGES)  # a change sooner is refused as a flood
        await send(tab, {"answer": {"step": 1, "round": 1, "choice": "2"}})
        assert (await expect(one, "you"))["choice"] == "2"  # the first tab agrees
        assert room.store.counts(room.code, 1) == {1: {"2": 1}}

    run(scenario, tmp_path)


def test_a_connection_is_one_student(tmp_path):
    async def scenario(room):
        phone, _ = await room.phone("student-0001")
        await send(phone, {"hello": "student-0002"})
        error = await expect(phone, "error")
        assert error["code"] == "one-student"
        assert await closed(phone) is not None
        assert room.store.state(room.code).joined == 1

    run(scenario, tmp_path)


def test_the_last_tap_made_while_the_server_was_away_is_sent_when_it_is_back(tmp_path):
    """A phone whose "B" was recorded taps "C" while the server is away: on reconnecting it says so, and
    "C" is recorded, changed as it is; a tap for a round that has closed meanwhile is not."""

    async def scenario(room):
        room.teacher_moves(follow=("?tick=4&step=1",), open_round=(1,))
        phone, _ = await room.phone("student-0001")
        await send(phone, {"answer": {"step": 1, "round": 1, "choice": "1"}})
        await expect(phone, "you")
        phone.close()
        await asyncio.sleep(MIN_SECONDS_BETWEEN_CHANGES)
        again, _ = await room.phone("student-0001", pending={"asked": "1:1", "choice": "2"})
        assert (await expect(again, "you"))["choice"] == "2"
        assert room.store.my_answer(room.code, "student-0001", 1, 1) == "2"
        room.teacher_moves(close_round=())
        late, _ = await room.phone("student-0001", pending={"asked": "1:1", "choice": "0"})
        assert (await expect(late, "you"))["choice"] == "2"  # the recorded one: the round had closed

    run(scenario, tmp_path)


def test_a_phone_exploring_cannot_step_past_the_question_s_tick(tmp_path):
    async def scenario(room):
        room.teacher_moves(follow=("?tick=4&step=1",), open_round=(1,), pace=("free",))
        phone, seen = await room.phone()
        assert seen["last"] == 4
        await send(phone, {"see": 6})
        assert (await expect(phone, "frame"))["frame"]["tick"] == 4
        await send(phone, {"see": 2})
        assert (await expect(phone, "frame"))["frame"]["tick"] == 2
        room.teacher_moves(pace=("follow",))
        await expect(phone, "view")
        await send(phone, {"see": 1})  # following: a phone does not step by itself
        await send(phone, {"answer": {"step": 1, "round": 1, "choice": "0"}})
        assert (await expect(phone, "you"))["choice"] == "0"  # the next thing it hears is its answer

    run(scenario, tmp_path)


@pytest.mark.parametrize(
    "message, code",
    [("x" * 5000, 1009), ("not json {", 4400), (json.dumps([1, 2, 3]), 4400)],
    ids=["too big", "not json", "not an object"],
)
def test_a_phone_sending_garbage_is_dropped_with_one_short_line_in_the_log(tmp_path, caplog, message, code):
    async def scenario(room):
        phone, _ = await room.phone()
        other, _ = await room.phone("student-0002")
        await send(phone, message)
        assert await closed(phone) == code
        room.teacher_moves(follow=("?tick=2",))
        assert (await expect(other, "view"))["frame"]["tick"] == 2  # the others are served on

    with caplog.at_level(logging.INFO):
        run(scenario, tmp_path)
    assert all(len(record.getMessage()) < 300 for record in caplog.records)


def test_one_connection_cannot_flood_the_class(tmp_path):
    async def scenario(room):
        phone, _ = await room.phone()
        for _ in range(rates.MESSAGE.burst + 5):
            await send(phone, {"see": 0})
        error = await expect(phone, "error")
        assert error["code"] == "too-fast"
        assert await closed(phone) is not None

    run(scenario, tmp_path)


def test_codes_tried_from_one_address_are_limited(tmp_path):
    async def scenario(room):
        refused = []
        for n in range(int(rates.GUESS.burst) + 2):
            phone, _ = await room.phone(None, code=f"ZZZ{n:02d}"[:5].replace("0", "Q").replace("1", "R"))
            await send(phone, {"hello": "student-0001"})
            refused.append((await expect(phone, "error"))["code"])
        assert refused[0] == "unknown" and refused[-1] == "too-many"
        phone, _ = await room.phone("student-0002")  # the right code from the same address still works

    run(scenario, tmp_path)


def test_joins_from_one_address_are_limited_with_words_saying_why(tmp_path, monkeypatch):
    monkeypatch.setattr(rates, "JOIN", rates.Rate(burst=3, per_second=0.001))

    async def scenario(room):
        for n in range(3):
            await room.phone(f"student-000{n}")
        phone, _ = await room.phone(None)
        await send(phone, {"hello": "student-0009"})
        error = await expect(phone, "error")
        assert error["code"] == "too-many" and "from here" in error["words"]
        assert room.store.state(room.code).joined == 3

    run(scenario, tmp_path)
