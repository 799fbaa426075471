"""One server process's part in its classes: the phones connected to it, what each class shows them now,
and the one thread that talks to the database.

A class's phones all see the same thing (the teacher's run at the teacher's tick, the question and its
round), so the process draws it once a change (``Room.view``, bytes) and writes those same bytes to every
phone: a phone costs the server a websocket write a step, not a page of its own. Only an answer's
acknowledgement is a phone's own.

A change reaches a process in one of three ways: its own teacher's page or phone wrote it (``changed``);
PostgreSQL told it (``NOTIFY`` on the ``classes`` channel, heard by a thread of its own, which reconnects
by itself); or, as a safety net for what a notification missed (a database that restarted, SQLite shared
by two processes), the version of every class it serves, read every ``CHECK_EVERY`` seconds in one query.

The database is never asked on the event loop: every call runs in a small pool of threads, and a call
that has no answer within ``WAIT`` seconds is answered "unreachable" (``ClassError``) while the thread
waits on; one that waited in the queue past its time is not started at all (a stalled database must not
replay old clicks when it comes back).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from classroom.store import CHANNEL, ClassError, ClassState, ClassStore, unreachable

log = logging.getLogger("classroom")

WAIT = 4.0  # seconds a page waits for the database before it says the class cannot be reached
# Seconds between the safety net's reads of every served class's version (CLASS_CHECK_EVERY: a test
# turns it off, to see that notifications alone carry a class between processes).
CHECK_EVERY = float(os.environ.get("CLASS_CHECK_EVERY", "2") or 2)
FORGET_EVERY = 600.0  # seconds between sweeps of expired classes
CHUNK = 250  # phones written to before the loop may serve anything else
BEAT = 10.0  # seconds between the beats every phone hears (classroom/phone.js waits three)


class Room:
    """One class as this process serves it: its phones, the teacher cards listening, the state last read
    and the message every phone of it was last sent."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.phones: set = set()  # channel.PhoneSocket
        self.listeners: set[Callable[[str], None]] = set()  # a teacher card's "the room moved"
        self.state: ClassState | None = None
        self.view: bytes = b""
        self.shown: tuple | None = None  # ``state.on_phones`` the view was drawn for

    @property
    def empty(self) -> bool:
        return not self.phones and not self.listeners


class Hub:
    """The rooms of this process, the database's threads, and the listening for other processes."""

    def __init__(self, store_factory: Callable[[], ClassStore] | None = None) -> None:
        self._factory = store_factory or ClassStore
        self._store: ClassStore | None = None
        self._made = threading.Lock()
        self._threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="classes")
        self.rooms: dict[str, Room] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list = []
        self._listening: threading.Thread | None = None
        self._stopped = threading.Event()
        self.drawer: Callable[[ClassState], bytes] | None = None  # classroom.phone.view_bytes, once set
        # In a server, the hub keeps its own time (the beat, the sweep, the safety net, the listening);
        # a script or a test that only calls it does not.
        self.serving = SERVING[0]

    # --- the database, off the loop ---------------------------------------------------------------

    def store(self) -> ClassStore:
        """The process's one store, made on first use (after a server forked its processes)."""
        with self._made:
            if self._store is None:
                self._store = self._factory()
            return self._store

    async def call(self, method: str, *args, **kwargs):
        """``store().method(*args, **kwargs)`` in a database thread; ClassError("unreachable") when it
        has not answered within ``WAIT`` seconds."""
        deadline = time.monotonic() + WAIT

        def run():
            if time.monotonic() > deadline:  # waited in the queue past its time: not done late
                raise unreachable()
            return getattr(self.store(), method)(*args, **kwargs)

        loop = asyncio.get_running_loop()
        self._start(loop)
        try:
            return await asyncio.wait_for(loop.run_in_executor(self._threads, run), WAIT)
        except TimeoutError:
            raise unreachable() from None
        except ClassError:
            raise
        except Exception as error:  # a database's own error: said in words, logged in one line
            log.warning("class database: %s", str(error)[:200])
            raise unreachable() from error

    # --- rooms ------------------------------------------------------------------------------------

    def room(self, code: str) -> Room:
        if code not in self.rooms:
            self.rooms[code] = Room(code)
        return self.rooms[code]

    def leave(self, code: str, phone=None, listener=None) -> None:
        room = self.rooms.get(code)
        if room is None:
            return
        room.phones.discard(phone)
        room.listeners.discard(listener)
        if room.empty:
            del self.rooms[code]

    def listen(self, code: str, listener: Callable[[str], None]) -> None:
        """``listener(what)`` whenever class ``code`` moves ("state", "joined", "answered …")."""
        self.room(code).listeners.add(listener)

    # --- changes ------------------------------------------------------------------------------------

    def changed(self, code: str, what: str = "state", state: ClassState | None = None) -> None:
        """Something this process wrote (``state``: the class as the write left it, if known): its phones
        and its teacher cards hear of it now; other processes through the database."""
        room = self.rooms.get(code)
        if room is None:
            return
        for listener in list(room.listeners):
            listener(what)
        if what == "state":
            if state is not None:
                self.show(room, state)
            else:
                self._soon(self.refresh(code))

    def heard(self, payload: str) -> None:
        """A notification from PostgreSQL: "<code> <what>", on the loop."""
        code, _, what = payload.partition(" ")
        room = self.rooms.get(code)
        if room is None:
            return
        if what.startswith("answered "):
            self.tell_student(room, what)
        for listener in list(room.listeners):
            listener(what)
        if what == "state":
            self._soon(self.refresh(code))

    def tell_student(self, room: Room, what: str) -> None:
        """An answer recorded elsewhere (another process, another tab): the same student's phones here
        are told it is in, so the tabs of one student agree."""
        parts = what.split()
        if len(parts) != 5:
            return
        _, student, step, round_, choice = parts
        for phone in list(room.phones):
            if phone.student == student:
                phone.acknowledge(int(step), int(round_), choice)

    async def refresh(self, code: str) -> None:
        """Read class ``code`` and show it to this process's phones if it moved."""
        room = self.rooms.get(code)
        if room is None:
            return
        try:
            state = await self.call("state", code)
        except ClassError as error:
            if error.code in ("unknown", "expired"):
                for phone in list(room.phones):
                    phone.refused(error)
            return
        self.show(room, state)

    def show(self, room: Room, state: ClassState) -> None:
        """Draw what the class's phones show now, once, and send it to each of them, if it moved."""
        if room.state is not None and state.version < room.state.version:
            return  # an older read, overtaken
        before, room.state = room.state, state
        if room.shown == state.on_phones and room.view:
            return
        room.view, room.shown = self._draw(state, before), state.on_phones
        self._soon(self.send(room, room.view))

    def welcome(self, room: Room, state: ClassState) -> bytes:
        """What a phone that has just joined is sent: the room's view, drawn now if it is the first."""
        if room.state is None or state.version > room.state.version or not room.view:
            room.state, room.view, room.shown = state, self._draw(state, None), state.on_phones
        return room.view

    def _draw(self, state: ClassState, before: ClassState | None) -> bytes:
        if self.drawer is None:
            from classroom.phone import view_bytes

            self.drawer = view_bytes
        return self.drawer(state, before)

    async def send(self, room: Room, message: bytes) -> None:
        """The same bytes to every phone of the room, a chunk at a time (a big room never holds the loop
        for long: the teacher's page is served by the same loop)."""
        phones = list(room.phones)
        for start in range(0, len(phones), CHUNK):
            for phone in phones[start : start + CHUNK]:
                if room.view is message:  # a newer view began sending: that one goes instead
                    phone.send(message)
            await asyncio.sleep(0)

    # --- the loop's own work --------------------------------------------------------------------------

    def _soon(self, coroutine) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.append(task)
        task.add_done_callback(self._tasks.remove)

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Once a process, in a server (``serving``): the safety net, the expiry sweep, the phones' beat
        and (PostgreSQL) the listening thread."""
        if self.loop is not None or not self.serving:
            return
        self.loop = loop
        self._soon(self._check())
        self._soon(self._forget())
        self._soon(self._beat())
        if self.store().postgres:
            self._listening = threading.Thread(target=self._listen, name="classes-listen", daemon=True)
            self._listening.start()

    async def _check(self) -> None:
        while not self._stopped.is_set():
            await asyncio.sleep(CHECK_EVERY)
            if not self.rooms:
                continue
            try:
                versions = await self.call("versions", list(self.rooms))
            except ClassError:
                continue
            for code, room in list(self.rooms.items()):
                if room.state is None or versions.get(code) != room.state.version:
                    self._soon(self.refresh(code))

    async def _beat(self) -> None:
        """A few bytes to every phone every ``BEAT`` seconds: a phone that hears nothing for three beats
        knows its server has gone (a network that dropped it says nothing) and connects again."""
        while not self._stopped.is_set():
            await asyncio.sleep(BEAT)
            for room in list(self.rooms.values()):
                for phone in list(room.phones):
                    phone.send(b'{"t":"beat"}')
                await asyncio.sleep(0)

    async def _forget(self) -> None:
        """Classes past their end are deleted with all they recorded, whether or not anyone comes back."""
        while not self._stopped.is_set():
            try:
                await self.call("forget_expired")
            except ClassError:
                pass
            await asyncio.sleep(FORGET_EVERY)

    def _listen(self) -> None:
        """PostgreSQL's notifications, in a thread of their own, handed to the loop; reconnects by itself
        when the database goes away, and then reads every class again (what it missed meanwhile)."""
        import psycopg

        url = self.store().url
        while not self._stopped.is_set():
            try:
                with psycopg.connect(url, autocommit=True, connect_timeout=3) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    self.loop.call_soon_threadsafe(self._caught_up)
                    while not self._stopped.is_set():
                        for note in connection.notifies(timeout=1.0):
                            self.loop.call_soon_threadsafe(self.heard, note.payload)
            except Exception as error:  # the database went away: try again shortly
                log.info("class notifications: %s; listening again", str(error)[:200])
                self._stopped.wait(1.0)

    def _caught_up(self) -> None:
        for code in list(self.rooms):
            self._soon(self.refresh(code))

    def stop(self) -> None:
        self._stopped.set()
        for task in list(self._tasks):
            task.cancel()
        self._threads.shutdown(wait=False, cancel_futures=True)


_HUB: list[Hub] = []
SERVING = [False]  # classroom.channel, loaded by the server (--plugins), says so


def hub() -> Hub:
    """The process's one hub."""
    if not _HUB:
        _HUB.append(Hub())
    return _HUB[0]
