"""The phones' way into a class: their page and their channel, served by the same process as the
teacher's Panel page (``panel serve --plugins classroom.channel`` registers ``ROUTES``).

- ``GET /join/CODE`` (and ``/join`` to type a code): the student's page, one response with its styles
  and browser code inline (``phone.js``), the same bytes for every phone and every code;
- ``/class/socket/CODE``: the phone's websocket. The phone says who it is once (``hello``: a random id
  its browser keeps), answers, and, when the teacher lets the room explore, asks for a tick. Everything
  else it is sent: the class as every phone sees it (``classroom.phone.view``, drawn once a change for
  all of them), its own answer once it is recorded, and a beat every few seconds so a phone whose
  server went away notices and connects again by itself.

A connection is one student: the first id it says is the only one it may use. What a phone may send is
small and counted (``classroom.limits``): joins and codes tried per address, messages per connection;
a message that is too big or not what the page sends closes the connection without a word in the log
longer than one short line.
"""

from __future__ import annotations

import gzip
import json
import logging
from functools import cache
from html import escape
from pathlib import Path

from tornado.web import RequestHandler
from tornado.websocket import WebSocketHandler

from app.palette import css_variables
from classroom import hub as hubs
from classroom import limits as rates
from classroom.hub import Room, hub
from classroom.phone import frame_bytes, held_at, page_words, split_link, step_of
from classroom.store import ClassError, canonical_choice, normal_code

hubs.SERVING[0] = True  # loaded by a server: its hub keeps its own time
HERE = Path(__file__).parent
APP = HERE.parent / "app"
log = logging.getLogger("classroom")
MESSAGE_BYTES = 2048  # the largest message a phone's page sends is well under this
CODE_CHARACTERS = frozenset("ABCDEFGHJKMNPQRSTUVWXYZ23456789")


def _short(text: object, limit: int = 120) -> str:
    """What a log line may quote of a client's words: one short line."""
    said = repr(text)
    return said if len(said) <= limit else said[:limit] + f"… ({len(said)} characters)"


# --- the page ----------------------------------------------------------------------------------------


@cache
def page_bytes() -> tuple[bytes, bytes]:
    """The student's page, and the same gzipped: made once a process."""
    css = css_variables() + "".join(
        (path).read_text(encoding="utf-8")
        for path in (APP / "diagrams.css", APP / "explainer.css", HERE / "phone.css")
    )
    words = json.dumps(page_words()).replace("</", "<\\/")
    script = (HERE / "phone.js").read_text(encoding="utf-8")
    html = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(page_words()["phone title"])}</title>
<style>{css}</style>
</head>
<body>
<main id="phone" class="explainer phone" aria-busy="true">
<header class="phone-head"><p class="phone-class" id="phone-class"></p>
<p class="phone-status" id="phone-status" role="status" aria-live="polite"></p></header>
<form id="phone-code" class="phone-code" hidden><label for="phone-code-input"></label>
<input id="phone-code-input" name="code" autocomplete="off" autocapitalize="characters" maxlength="8"
 required>
<button type="submit"></button></form>
<div id="phone-paused" class="phone-paused" hidden role="status"></div>
<section id="phone-question" class="class-card phone-question" aria-label="Question" hidden></section>
<p id="phone-changed" class="phone-changed" role="status" aria-live="polite"></p>
<nav id="phone-player" class="phone-player" aria-label="Ticks" hidden>
<button type="button" data-see="back" aria-label="Back a tick">◀</button>
<span class="tick-now" id="phone-tick"></span>
<button type="button" data-see="forward" aria-label="Forward a tick">▶</button></nav>
<div id="phone-figure" class="phone-figure"></div>
<div id="phone-badges" class="phone-badges"></div>
</main>
<script type="application/json" id="phone-words">{words}</script>
<script type="module">{script}</script>
</body>
</html>
"""
    raw = html.encode("utf-8")
    return raw, gzip.compress(raw, compresslevel=9, mtime=0)


class JoinPage(RequestHandler):
    """The student's page: static, so a code tried costs the server nothing but the bytes."""

    def get(self, code: str = "") -> None:
        raw, packed = page_bytes()
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("Referrer-Policy", "no-referrer")
        if "gzip" in self.request.headers.get("Accept-Encoding", ""):
            self.set_header("Content-Encoding", "gzip")
            self.set_header("Vary", "Accept-Encoding")
            self.finish(packed)
        else:
            self.finish(raw)


# --- the channel -------------------------------------------------------------------------------------


def _message(kind: str, **fields: object) -> bytes:
    return json.dumps({"t": kind, **fields}, separators=(",", ":")).encode("utf-8")


class PhoneSocket(WebSocketHandler):
    """One phone's connection to its class."""

    @property
    def max_message_size(self) -> int:  # tornado closes a connection sending more (code 1009)
        return MESSAGE_BYTES

    @property
    def ping_interval(self) -> float:  # a phone that vanished (no TCP goodbye) is let go
        return 30.0

    @property
    def ping_timeout(self) -> float:
        return 30.0

    def initialize(self) -> None:
        self.code = ""
        self.student = ""
        self.address = ""
        self.room: Room | None = None

    def open(self, code: str) -> None:
        self.address = self.request.remote_ip or ""
        code = normal_code(code)
        if not (len(code) == 5 and set(code) <= CODE_CHARACTERS):
            self.refused(ClassError("unknown", f"There is no class {code!r}: check the code on the board."))
            return
        self.code = code
        self.set_nodelay(True)

    def send(self, message: bytes) -> None:
        """Write ``message`` (a text frame's bytes) unless the connection has gone."""
        if self.ws_connection is None or self.ws_connection.is_closing():
            return
        self.write_message(message)

    def refused(self, error: ClassError, close: bool = True) -> None:
        self.send(_message("error", code=error.code, words=str(error)))
        if close:
            self.close(4000 + min(len(error.code), 99), error.code)

    def acknowledge(self, step: int, round_: int, choice: str) -> None:
        self.send(_message("you", step=step, round=round_, choice=choice))

    async def on_message(self, message: str | bytes) -> None:
        if not rates.limits().allow(rates.MESSAGE, id(self)):
            self.refused(ClassError("too-fast", "This page is sending too much; reload it."))
            return
        try:
            asked = json.loads(message)
        except ValueError:
            asked = None
        if not isinstance(asked, dict) or not self.code:
            log.info(
                "class channel: not a message of the page from %s: %s", self.address, _short(message, 60)
            )
            self.close(4400, "not understood")
            return
        try:
            if "hello" in asked:
                await self._hello(asked.get("hello"), asked.get("pending"))
            elif "answer" in asked:
                await self._answer(asked.get("answer"))
            elif "see" in asked:
                self._see(asked.get("see"))
        except ClassError as error:
            self.refused(error, close=error.code in ("unknown", "expired", "one-student", "too-many"))

    async def _hello(self, student: object, pending: object) -> None:
        """The phone names itself (again, after a reconnect), and sends again the last answer it tapped
        while the server was away, if its round is still the one open."""
        if self.student:
            if student != self.student:
                raise ClassError(
                    "one-student", "This connection belongs to another student; reload the page."
                )
            return
        if not rates.limits().allow(rates.JOIN, self.address) or not rates.limits().allow(
            rates.CLASS_JOINS, self.code
        ):
            raise ClassError(
                "too-many", "Too many phones are joining from here at once; try again in a minute."
            )
        the_hub = hub()
        try:
            state = await the_hub.call("join", self.code, student, address=self.address)
        except ClassError as error:
            if error.code == "unknown" and not rates.limits().allow(rates.GUESS, self.address):
                raise ClassError(
                    "too-many", "Too many codes were tried from here; ask the teacher for theirs."
                ) from None
            raise
        self.student = state_student = str(student)
        self.room = the_hub.room(state.code)
        self.room.phones.add(self)
        the_hub.changed(state.code, "joined")
        self.send(the_hub.welcome(self.room, state))
        if state.question is not None:
            mine = await the_hub.call("my_answer", state.code, state_student, state.question, state.round)
            if (
                isinstance(pending, dict)
                and state.open
                and pending.get("asked") == f"{state.question}:{state.round}"
            ):
                step = step_of(state.question)
                try:
                    choice = canonical_choice(pending.get("choice"), len(step.answers) if step else 0)
                except ClassError:
                    choice = mine
                if choice != mine:
                    await self._answer({"step": state.question, "round": state.round, "choice": choice})
                    return
            if mine is not None:
                self.acknowledge(state.question, state.round, mine)

    async def _answer(self, asked: object) -> None:
        if not self.student or self.room is None:
            raise ClassError("not-joined", "Join the class before answering.")
        if not isinstance(asked, dict) or not all(isinstance(asked.get(k), int) for k in ("step", "round")):
            raise ClassError("bad-choice", "That answer is not one the page sends.")
        step = step_of(asked["step"])
        choices = len(step.answers) if step else 0
        the_hub = hub()
        choice = await the_hub.call(
            "answer", self.code, self.student, asked["step"], asked["round"], asked.get("choice"), choices
        )
        said = f"answered {self.student} {asked['step']} {asked['round']} {choice}"
        the_hub.tell_student(self.room, said)  # this phone, and any other tab of the same student here
        the_hub.changed(self.code, said)

    def _see(self, tick: object) -> None:
        """A tick, asked by a phone the teacher lets explore: never past the question's while it waits."""
        state = self.room.state if self.room else None
        if state is None or state.pacing != "free" or state.paused or not isinstance(tick, int):
            return
        run, teacher_tick, _ = split_link(state.link)
        held = held_at(state)
        last = min(teacher_tick, held) if held is not None else 10**6
        self.send(frame_bytes(run, max(0, min(tick, last)), held is not None))

    def on_close(self) -> None:
        if self.room is not None:
            hub().leave(self.room.code, phone=self)

    def on_ping(self, data: bytes) -> None:
        pass


class Export(RequestHandler):
    """The record of a class, for its teacher's key only: ``classroom.record.csv_text``."""

    async def get(self, code: str) -> None:
        from classroom.record import csv_text

        secret = self.get_query_argument("teach", "")[:64]
        self.set_header("Cache-Control", "no-store")
        try:
            code = await hub().call("owns", code, secret)
            counts = await hub().call("all_counts", code)
        except ClassError as error:
            self.set_status(
                403 if error.code == "not-teacher" else 404 if error.code != "unreachable" else 503
            )
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.finish(str(error))
            return
        self.set_header("Content-Type", "text/csv; charset=utf-8")
        self.set_header("Content-Disposition", f'attachment; filename="class-{code}.csv"')
        self.finish(csv_text(counts))


ROUTES = [
    (r"/join/?", JoinPage),
    (r"/join/([A-Za-z0-9 ]{1,16})/?", JoinPage),
    (r"/class/socket/([A-Za-z0-9 ]{1,16})", PhoneSocket),
    (r"/class/export/([A-Za-z0-9 ]{1,16})", Export),
]
