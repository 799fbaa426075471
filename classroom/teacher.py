"""The teacher's side of a class, in the served Panel app: the card beside the projected diagram, the
join screen, and what the teacher's page tells the class whenever it moves.

- ``?class=new`` offers to start a class: one click makes it (a link, a crawler or a prefetch makes
  none), and the page's link then names it (``?class=CODE&teach=KEY``: only a link with the key leads);
- the card runs Peer Instruction's sequence for the tour step on show: ask (round 1), close (the
  spread, without the answer), discuss, ask again (round 2, back at the question's tick), reveal (the
  verdict and why, the step's asked tick shown, both rounds side by side with the shift);
- whatever the teacher shows (chapter, switch, schedule, tick, tour step) is written to the class at
  once, in order, the latest winning, and this process's phones are sent it without waiting for the
  database to tell them.

Nothing here waits on the database on the event loop: every call is ``classroom.hub.Hub.call`` in a
coroutine the session runs, and a database that does not answer is said in words on the card.
"""

from __future__ import annotations

import asyncio
import os
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import lru_cache
from html import escape
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import panel as pn
import param
from panel.io.state import set_curdoc

from app.tour import steps
from app.url import CLASS_KEYS
from app.views.action_html import ActionHTML, PlainModule
from classroom import limits as rates
from classroom.hub import hub
from classroom.phone import held_at, question_tick, right, shared_link, split_link, step_of, words
from classroom.render import join_html, shift_html, start_html, teacher_html
from classroom.store import ClassError, ClassState, normal_code

COUNTS_EVERY = 0.25  # seconds: the card's counts are read at most this often while answers come in
RETRY_SECONDS = 2.0  # a database that could not answer is asked again this much later
HOST = re.compile(r"[A-Za-z0-9.-]{1,253}(:\d{1,5})?|\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?")


@dataclass(frozen=True)
class ClassLink:
    """What a link asks of class mode: ``role`` teacher (``code`` and its key ``secret``; ``code`` "new"
    offers to make one) or student (``code``)."""

    role: str
    code: str
    secret: str = ""


def split_class_link(search: str) -> tuple[str, ClassLink | None]:
    """The page's own link, and what it asks of class mode (None: not a class page)."""
    pairs = parse_qsl(search.lstrip("?"), keep_blank_values=True, max_num_fields=100)
    asked = {k: v for k, v in reversed(pairs) if k in CLASS_KEYS}  # the first of each, as the link reads
    rest = [(k, v) for k, v in pairs if k not in CLASS_KEYS]
    page = ("?" + urlencode(rest)) if rest else ""
    if "class" in asked:
        return page, ClassLink("teacher", asked["class"][:16], asked.get("teach", "")[:64])
    if "join" in asked:
        return page, ClassLink("student", asked["join"][:16])
    return page, None


def join_base(request) -> str:
    """Where phones reach this server: ``CLASS_BASE_URL`` if set (``./dev serve --lan`` sets it), else
    the address the teacher's page was served at, as the server saw it. A host that is not a plain
    host name and port is not taken (a forged one must not make a huge code to draw)."""
    base = os.environ.get("CLASS_BASE_URL", "").strip().rstrip("/")
    if base:
        return base
    host = str((getattr(request, "headers", None) or {}).get("Host", "")) if request is not None else ""
    scheme = getattr(request, "protocol", "http") if request is not None else "http"
    if not HOST.fullmatch(host):
        host = "localhost:5006"
    return f"{'https' if scheme == 'https' else 'http'}://{host}"


@lru_cache(maxsize=16)
def qr_svg(url: str) -> str:
    """The join link's QR code as inline SVG (segno), drawn to fill the box it is shown in."""
    import segno

    return segno.make(url[:200], error="m").svg_inline(scale=4, dark="#000", light="#fff", omitsize=True)


class Reconnect(PlainModule):
    """The teacher's page, once its server has gone: one line while it waits, then the page again."""

    reconnecting = param.String(default="", constant=True, doc="What the page says while it reconnects.")

    _esm = Path(__file__).with_name("teacher.js")


class TeacherCard(pn.viewable.Viewer):
    """One teacher's page in its class: ``card`` (the class card), ``join`` (how to join, or the join
    screen) and the page's link's part (``query``)."""

    def __init__(self, app, code: str, secret: str) -> None:
        super().__init__()
        self.app = app
        self.code, self.secret = normal_code(code), secret
        self.making = self.code == "NEW"
        self.state: ClassState | None = None
        self.counts: dict[int, dict[int, dict[str, int]]] = {}
        self.moves: dict = {}
        self.message = ""
        self.join_screen = False
        self.base = join_base(self._request())
        self.card = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["class"])
        self.join = ActionHTML(
            self._act, sizing_mode="stretch_width", css_classes=["class", "class-join-pane"]
        )
        self._wanted = ""  # the link the class should show (the latest the teacher's page moved to)
        self._written = ""
        self._writing = False
        self._counting: asyncio.TimerHandle | None = None
        self._doc = pn.state.curdoc
        self._pending: list = []  # what a click started, where nothing is served (``_unserved``)
        self._draining = False  # a click is being done where nothing is served
        self._unreachable = False  # the last read failed for want of the database: said, and read again
        app.state.param.watch(self._moved, ["tour", "tick", "trace"])
        self.draw()

    def start(self) -> None:
        """Find the class (once the browser has the page: its own address would overwrite the link)."""
        if not self.making:
            self._soon(self._begin())

    # --- where this runs -----------------------------------------------------------------------------

    def _request(self):
        doc = pn.state.curdoc
        context = getattr(doc, "session_context", None) if doc is not None else None
        return getattr(context, "request", None) if context is not None else None

    def _soon(self, coroutine) -> None:
        """Run ``coroutine`` in the page's session (its document held, as a click's own callback is), or
        on a loop of its own where nothing is served (a test)."""
        doc = self._doc
        if doc is None or doc.session_context is None:
            self._unserved(coroutine)
            return

        async def in_session():
            with set_curdoc(doc):  # Bokeh names the document only while it starts this
                await coroutine

        doc.add_next_tick_callback(in_session)

    def _unserved(self, coroutine) -> None:
        """Where nothing is served (a script, a test): run ``coroutine`` to its end, with whatever it
        starts meanwhile, so each click is done when it returns. Where this thread already has a loop
        running (Playwright's sync API keeps one while a whole suite runs), in a thread of its own."""
        if self._draining:  # started by a click being done: done before that click returns
            self._pending.append(asyncio.ensure_future(coroutine))
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self._drained(coroutine))
            return
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, self._drained(coroutine)).result()

    async def _drained(self, coroutine) -> None:
        self._draining = True
        try:
            await coroutine
            while self._pending:
                await self._pending.pop(0)
        finally:
            self._draining = False

    @property
    def address(self) -> str:
        request = self._request()
        return str(getattr(request, "remote_ip", "") or "")

    def query(self) -> str:
        """What the page's own address keeps besides the reader's state: the class and its key."""
        if self.making or self.state is None:
            return "class=new"
        return f"class={self.code}&teach={self.secret}"

    @property
    def join_url(self) -> str:
        return f"{self.base}/join/{self.code}"

    # --- the class -----------------------------------------------------------------------------------

    async def _begin(self) -> None:
        the_hub = hub()
        try:
            if not await the_hub.call("is_teacher", self.code, self.secret):
                await the_hub.call("state", self.code)  # an unknown or expired code says so first
                self.message = words("not the teacher")
                self.draw()
                return
            self.state = await the_hub.call("state", self.code)
        except ClassError as error:
            self._said(error)
            self.draw()
            return
        self.message, self._unreachable = "", False
        the_hub.listen(self.code, self._heard)
        if self._doc is not None:
            self._doc.on_session_destroyed(lambda _context: hub().leave(self.code, listener=self._heard))
        self.app.class_named()
        await self._count()
        self._moved()

    async def _make(self) -> None:
        if not rates.limits().allow(rates.CLASS_MADE, self.address):
            self.message = words("too many classes")
            self.draw()
            return
        try:
            self.code, self.secret = await hub().call("create")
        except ClassError as error:
            self.message = str(error)
            self.draw()
            return
        self.making, self.message = False, ""
        await self._begin()

    def shown(self) -> str:
        """What this page shows, as the phones follow it."""
        s = self.app.state
        return shared_link(s.values(), s.schedule_overrides(), s.tick, s.tour)

    def _moved(self, *events) -> None:
        """The teacher's page moved: while a question waits for its reveal the page stays at the
        question's tick (the next would give the answer away), and the class is told where it is."""
        if self.state is None:
            return
        held = held_at(replace(self.state, link=self.shown()))
        s = self.app.state
        if held is not None and s.tick > held:
            s.playing = False
            s.go(held)  # watched: this runs again with the held tick
            return
        self._wanted = self.shown()
        if not self._writing:
            self._soon(self._write())

    async def _write(self) -> None:
        """Write the latest link the page moved to, then any newer one, in order (one writer a page)."""
        if self._writing:
            return
        self._writing = True
        try:
            while self._wanted != self._written and self.state is not None:
                link = self._wanted
                try:
                    self.state = await hub().call("follow", self.code, self.secret, link)
                except ClassError as error:
                    self._said(error)
                    self.draw()
                    return
                self._written = link
                hub().changed(self.code, "state", self.state)
                self.draw()  # the card names the run the phones follow
        finally:
            self._writing = False

    def _heard(self, what: str) -> None:
        """The class moved (a join, an answer, another page of the teacher's): its counts are read again
        soon, once for a burst."""
        if self._counting is not None or self.state is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # nothing is served: counted at once
            self._count_soon()
            return
        self._counting = loop.call_later(COUNTS_EVERY, self._count_soon)

    def _count_soon(self) -> None:
        self._counting = None
        self._soon(self._count())

    def _said(self, error: ClassError) -> None:
        """Say why a move did not happen; if the database could not answer, read the class again shortly
        (the card clears the words once it can)."""
        self.message = str(error)
        if error.code == "unreachable" and self._doc is not None:
            self._unreachable = True
            again = self._begin if self.state is None else self._count
            asyncio.get_running_loop().call_later(RETRY_SECONDS, lambda: self._soon(again()))

    async def _count(self) -> None:
        the_hub = hub()
        try:
            self.state = await the_hub.call("state", self.code)
            self.counts = await the_hub.call("all_counts", self.code)
            step = step_of(self.app.state.tour)
            rounds = sorted(self.counts.get(step.number, {})) if step else []
            self.moves = (
                await the_hub.call("moves", self.code, step.number, rounds[-2], rounds[-1])
                if step and len(rounds) >= 2
                else {}
            )
            if self._unreachable:  # back: what the page showed meanwhile is written now
                self.message, self._unreachable = "", False
                self._moved()
        except ClassError as error:
            self._said(error)
        self.draw()

    # --- what the card's buttons do ------------------------------------------------------------------

    def _act(self, action: str, value: str) -> None:
        if action == "start" and self.making:
            self._soon(self._make())
        elif action == "join-screen":
            self.join_screen = value == "on"
            self.draw()
        elif self.state is not None:
            self._soon(self._do(action, value))

    async def _do(self, action: str, value: str) -> None:
        the_hub, s = hub(), self.app.state
        call = the_hub.call
        try:
            if action == "open" and value.isdigit() and step_of(int(value)):
                number = int(value)
                if s.tour != number:
                    s.go_to_step(number)
                s.playing = False
                await call("open_round", self.code, self.secret, number)
                self.state = await call("state", self.code)
                self.app.page.tour.new_step()  # the projector waits for the answer again
                self.app.page.waiting = self.app.page.question_waits
                s.go(question_tick(number))  # ask again: back at the question's tick, everyone
            elif action == "close":
                await call("close_round", self.code, self.secret)
            elif action == "reveal":
                await call("reveal", self.code, self.secret)
                self.state = await call("state", self.code)
                if step_of(self.state.question) and self.state.question == s.tour:
                    # As the tour's own check does: the asked tick and the verdict, now for everyone.
                    self.app.page.act("check", "", "tour")
            elif action == "pause":
                await call("pause", self.code, self.secret, value == "on")
            elif action == "pace" and value in ("follow", "free"):
                await call("pace", self.code, self.secret, value)
            elif action == "recall":
                await call("recall_all", self.code, self.secret)
            elif action in ("step", "step-back", "step-next") and value.isdigit() and step_of(int(value)):
                if self.state.open:
                    await call("close_round", self.code, self.secret)  # the room answers what is on screen
                s.go_to_step(int(value))
            self.message = ""
        except ClassError as error:
            self._said(error)
        try:
            self.state = await call("state", self.code)
        except ClassError as error:
            self._said(error)
        the_hub.changed(self.code, "state", self.state)
        self._moved()
        await self._count()

    # --- drawing -------------------------------------------------------------------------------------

    def draw(self) -> None:
        if self.making or self.state is None:
            self.card.html = start_html(self.message) if self.making else self._message_only()
            self.join.html = ""
            return
        step = step_of(self.app.state.tour)
        counts = self.counts.get(step.number, {}) if step else {}
        right_ones = list(right(step.number)) if step else []
        rounds = sorted(counts)
        shift = shift_html(self.moves, right_ones, rounds[-2], rounds[-1]) if len(rounds) >= 2 else ""
        card = teacher_html(
            self.state, step, counts, right_ones, message=self.message, total=len(steps()), shift=shift,
        )  # fmt: skip
        export = f"/class/export/{self.code}?teach={self.secret}"
        # The run the phones follow, on the card (what the room's phones draw, as a link's query).
        card = card.replace(
            '<section class="class-card"',
            f'<section data-run="{escape(self._written_run())}" class="class-card"',
            1,
        )
        self.card.html = card.replace(
            "</section>",
            f'<p class="class-export"><a href="{export}" download="class-{self.code}.csv">'
            f"{words('export')}</a></p></section>",
        )
        code = qr_svg(self.join_url) if self.join_screen else ""  # drawn for the join screen only
        self.join.html = join_html(self.state, self.join_url, code, large=self.join_screen)

    def _written_run(self) -> str:
        return split_link(self.state.link)[0] if self.state is not None else ""

    def _message_only(self) -> str:
        said = self.message or words("connecting")
        return (
            '<section class="class-card" aria-label="Class">'
            f'<p class="class-message" role="alert">{escape(said)}</p></section>'
        )

    def __panel__(self):
        back = Reconnect(reconnecting=words("reconnecting"), margin=0)
        return pn.Column(back, self.join, self.card, sizing_mode="stretch_width")
