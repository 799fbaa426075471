"""Class mode on the served explainer: the teacher's card beside the projected diagram and each student's
card on a phone, over the class's records (``app.classroom``).

- ``?class=new`` makes a class and gives its teacher's link (``?class=CODE&teach=KEY``: only it leads);
- ``?join=CODE`` is a student's link (the join link, its QR code and the code are on the teacher's card).

Each server process reads every class it serves back from the database twice a second (its version
number first, the rest only when it moved: ``Watch``), so the pages of one class may be served by several
processes, and a page whose server was killed comes back by itself (``class_client.js``) to the class as
the database kept it.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import panel as pn
import param
from panel.io.document import unlocked
from panel.io.state import set_curdoc

from app.classroom import ClassError, ClassState, ClassStore, normal_code
from app.content import sections
from app.render.classroom import join_html, pacing_html, student_html, teacher_html
from app.state import ReaderState
from app.tour import Step, TourCard, right_answers, steps
from app.url import CLASS_KEYS, LAYOUT_FLAGS
from app.views.action_html import ActionHTML, PlainModule

JS = Path(__file__).with_name("js")
POLL_MS = 500


@dataclass(frozen=True)
class ClassLink:
    """What a link asks of class mode: ``role`` teacher (``code`` and its key ``secret``; ``code`` "new"
    makes one) or student (``code``)."""

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


def shared_link(query: str, tick: int) -> str:
    """The teacher's page as the phones follow it: its run and its tick (a tour step's own link leaves
    the tick out: the step sets it), without the teacher's layout (presenter mode)."""
    pairs = [(k, v) for k, v in parse_qsl(query.lstrip("?")) if k not in (*LAYOUT_FLAGS, "tick")]
    return "?" + urlencode([*pairs, ("tick", str(tick))])


def split_tick(link: str) -> tuple[str, int]:
    """A shared link's run and its tick."""
    pairs = parse_qsl(link.lstrip("?"))
    ticks = [v for k, v in pairs if k == "tick" and v.isdigit() and len(v) <= 6]
    rest = [(k, v) for k, v in pairs if k != "tick"]
    return ("?" + urlencode(rest)) if rest else "", int(ticks[0]) if ticks else 0


_STORE: list[ClassStore] = []


def store() -> ClassStore:
    """The process's one connection to the classes' database (``CLASS_DB``)."""
    if not _STORE:
        _STORE.append(ClassStore())
    return _STORE[0]


class Watch:
    """The process's one reader of the classes its pages show. Twice a second it asks the database for each
    class's version: one query per class, however many of its pages this process serves (a page polling
    for itself made 600 queries a second for 300 phones, and they took most of a core). When a version
    moved it reads the class once and hands it to each of its pages, in that page's own session."""

    def __init__(self, every=None) -> None:
        self.pages: dict[str, dict[ClassPanel, object]] = {}  # code -> {page: its session's document}
        self.every = every or _every  # starts a periodic call, returns what stops it
        self.stop = None

    def add(self, page: ClassPanel, doc) -> None:
        self.pages.setdefault(page.code, {})[page] = doc
        doc.on_session_destroyed(lambda _context: self.remove(page))
        if self.stop is None:
            self.stop = self.every(self.check, POLL_MS)

    def remove(self, page: ClassPanel) -> None:
        pages = self.pages.get(page.code, {})
        pages.pop(page, None)
        if not pages:
            self.pages.pop(page.code, None)
        if not self.pages and self.stop is not None:
            self.stop()
            self.stop = None

    def check(self) -> None:
        for code, pages in list(self.pages.items()):
            classes = next(iter(pages)).store  # the process's one connection (store())
            version = classes.version(code)
            behind = [(page, doc) for page, doc in pages.items() if page.version() != version]
            if not behind:
                continue
            try:
                state = classes.state(code)
            except ClassError:
                state = None  # gone (expired): each page reads it itself, and says so
            for page, doc in behind:
                if state is not None and not page.shows_change(state):
                    page.class_state = state  # a join or an answer: only the teacher's card shows it
                else:
                    doc.add_next_tick_callback(partial(page.poll_on_loop, doc, state))


def _every(call, milliseconds: int):
    """``call`` every ``milliseconds`` on the server's loop, outside any session; what stops it."""
    from tornado.ioloop import PeriodicCallback

    callback = PeriodicCallback(call, milliseconds)
    callback.start()
    return callback.stop


_WATCH: list[Watch] = []


def watch() -> Watch:
    if not _WATCH:
        _WATCH.append(Watch())
    return _WATCH[0]


def _step(number: int | None) -> Step | None:
    return steps()[number - 1] if number and 0 < number <= len(steps()) else None


def _card_at(number: int) -> TourCard:
    """The tour's own card at step ``number``, on a page of its own: the judge of its answers."""
    state = ReaderState()
    state.go_to_step(number)
    return TourCard(state)


@cache
def _verdict(number: int, chosen: str | None) -> str:
    """What the tour's own check says to a student who chose ``chosen`` (None: no answer)."""
    card = _card_at(number)
    card.chosen = int(chosen) if chosen is not None else None
    card.reveal()
    return card.verdict


@cache
def _right(number: int) -> tuple[int, ...]:
    card = _card_at(number)
    return tuple(right_answers(card.step(), card.state.trace))


class ClassClient(PlainModule):
    """The browser's half of a class page: this browser's random id, coming back after a restart, and an
    answer tapped but never acknowledged (the server died first), sent again when the page is back."""

    reconnecting = param.String(default="", constant=True, doc="What the page says while it reconnects.")
    asked = param.String(default="", doc="The round a phone answers now, as 'question:round'.")
    acknowledged = param.String(default="", doc="The answer recorded, as 'question:round:choice'.")

    _esm = JS / "class_client.js"

    def __init__(self, on_hello, **params):
        super().__init__(**params)
        self._on_hello = on_hello

    def _handle_msg(self, msg) -> None:
        if not isinstance(msg, dict):
            return
        if msg.get("ping"):
            self._send_msg({"pong": True})
        elif isinstance(msg.get("hello"), str):
            pending = msg.get("pending")
            self._on_hello(msg["hello"][:64], pending if isinstance(pending, dict) else None)


class ClassPanel(pn.viewable.Viewer):
    """One page's part in a class: the teacher's card (and join block) or a student's card."""

    def __init__(self, app, link: ClassLink, classes: ClassStore | None = None):
        super().__init__()
        self.app, self.link, self.store = app, link, classes or store()
        self.code, self.secret, self.student = normal_code(link.code), link.secret, ""
        self.class_state: ClassState | None = None
        self.message = ""
        self.followed = ("", -1)  # the teacher's link and recall count this phone last took
        self.address = ""  # where the teacher's browser opened the page, once it has said (join_url)
        self.card = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["class"])
        self.join = pn.pane.HTML("", sizing_mode="stretch_width", margin=0)
        words = " ".join(sections("classroom")["not the teacher"].split())
        self.client = ClassClient(self._hello, reconnecting=sections("classroom")["reconnecting"])
        self.download = pn.widgets.FileDownload(
            callback=self._export, filename="class-answers.csv", label="Download the answers (CSV)",
            embed=False, visible=False, sizing_mode="stretch_width",
        )  # fmt: skip
        self.teacher = link.role == "teacher"
        if self.teacher:
            self._start_teaching(words)
        else:
            self._read()
        self.app.state.param.watch(self._teacher_moved, ["tour", "tick", "trace", "playing"])
        self.redraw()
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            watch().add(self, pn.state.curdoc)

    # --- the link ------------------------------------------------------------------------------------

    def query(self) -> str:
        """What the page's own address keeps besides the reader's state."""
        if self.teacher and self.secret and self.class_state is not None:
            return urlencode({"class": self.code, "teach": self.secret})
        return urlencode({"join": self.code}) if not self.teacher else ""

    def _start_teaching(self, not_teacher: str) -> None:
        try:
            if self.code == "NEW":
                self.code, self.secret = self.store.create()
            elif not self.store.is_teacher(self.code, self.secret):
                self.store.state(self.code)  # an unknown or expired code says so first
                self.message, self.teacher = not_teacher, False
                return
            self._read()
            self.store.follow(self.code, self.secret, self.shown())
        except ClassError as error:
            self.message = str(error)

    def shown(self) -> str:
        """What this (teacher's) page shows, as the phones follow it."""
        return shared_link(self.app.state.to_query(), self.app.state.tick)

    def join_url(self) -> str:
        """The students' link, on the address the teacher's page was opened at (or CLASS_BASE_URL). The
        address is kept once the browser has said it: a redraw the class's watch asks for may run where
        the session's location is not known, and drew the link without its host for a moment."""
        base = os.environ.get("CLASS_BASE_URL", "").rstrip("/")
        location = pn.state.location
        if not base and location is not None and location.href:
            self.address = location.href.split("?")[0].rsplit("/", 1)[0]
        return f"{base or self.address}/explainer?join={self.code}"

    # --- reading and following the class ------------------------------------------------------------

    def _read(self) -> None:
        try:
            self.class_state = self.store.state(self.code)
        except ClassError as error:
            self.class_state, self.message = None, str(error)

    def version(self) -> int | None:
        """The version of the class this page shows."""
        return self.class_state.version if self.class_state else None

    def shows_change(self, state: ClassState) -> bool:
        """Whether this page shows what moved between the class it shows and ``state``: always on the
        teacher's card (who joined, the answers counted); on a phone, only what phones show. Every join and
        every answer moves the class's version, and 300 phones redrawing for each of 300 joins held the
        server for most of a minute."""
        shown = self.class_state
        return self.teacher or shown is None or not self.student or shown.on_phones != state.on_phones

    async def poll_on_loop(self, doc, state: ClassState | None = None) -> None:
        """``poll``, as the process's ``Watch`` schedules it in the page's session: a coroutine, which
        Bokeh runs on the server's loop (still holding the session's lock) rather than in a worker
        thread, where Panel may write to the websocket itself: so what a step redraws (the player and
        the diagram, the card) reaches the phone as one message, rather than one a part handed to
        Bokeh. With 300 phones on one process, a step reached them all in 1.8-2.1 s; now in about 1 s."""
        # Bokeh names the session's document only while it calls this, not while the coroutine runs.
        with set_curdoc(doc), unlocked():
            self.poll(state)

    def poll(self, state: ClassState | None = None) -> None:
        """Has the class changed (``state``: as the process's ``Watch`` just read it)? Only then is it
        read, and a following phone moved."""
        if state is not None:
            if state.version == self.version():
                return
            self.class_state = state
        elif self.store.version(self.code) == self.version():
            return
        else:
            self._read()
        if not self.teacher and self.class_state is not None and self.student:
            self._follow()
        self.redraw()

    def _follow(self) -> None:
        """Take the teacher's page while the class follows it (or when the teacher recalls everyone):
        the run only when it changed (a new story resets what the reader compared), then the tick."""
        state = self.class_state
        wanted = (state.link, state.recall)
        recalled = state.recall != self.followed[1] and self.followed[1] >= 0
        if (state.pacing == "follow" or recalled) and (wanted != self.followed or state.revealed):
            run, tick = split_tick(state.link)
            if recalled or run != split_tick(self.followed[0])[0] or self.followed[1] < 0:
                self.app.apply_url(run)
            self.app.state.playing = False
            self.app.state.go(min(tick, self._held_below(state)))
        self.followed = wanted

    def _held_below(self, state: ClassState) -> int:
        """The last tick a phone may show while the question it is asked waits for its reveal: the one
        before the asked tick, whatever the teacher's screen shows (the asked tick gives the answer)."""
        step = _step(state.question)
        if step is None or state.revealed or self.app.state.tour != step.number:
            return 10**6
        return step.ask - 1

    def _hello(self, student: str, pending: dict | None = None) -> None:
        """A phone names itself (again, after a reload); ``pending``: an answer it tapped that was never
        acknowledged, sent again if its round is still the open one and nothing is recorded for it."""
        if self.teacher or self.class_state is None:
            return
        try:
            self.class_state = state = self.store.join(self.code, student)
            self.student = student
            self._follow()
            asked = f"{state.question}:{state.round}"
            if (
                pending
                and pending.get("asked") == asked
                and state.open
                and isinstance(pending.get("choice"), str)
            ):
                if self.store.my_answer(self.code, student, state.question, state.round) is None:
                    self._do("answer", pending["choice"])
                    self._read()
        except ClassError as error:
            self.message = str(error)
        self.redraw()

    def _teacher_moved(self, *events) -> None:
        if self.teacher and self.class_state is not None:
            try:
                self.store.follow(self.code, self.secret, self.shown())
            except ClassError as error:
                self.message = str(error)
            self.redraw()

    # --- what the cards do ---------------------------------------------------------------------------

    def _act(self, action: str, value: str) -> None:
        try:
            self._do(action, value)
            self.message = ""
        except ClassError as error:
            self.message = str(error)
        self._read()
        self.redraw()

    def _do(self, action: str, value: str) -> None:
        if self.teacher:
            if action == "open" and value.isdigit() and _step(int(value)):
                self.store.open_round(self.code, self.secret, int(value))
            elif action == "close":
                self.store.close_round(self.code, self.secret)
            elif action == "reveal":  # as the tour's check does: the page steps to the asked tick
                self.store.reveal(self.code, self.secret)
                if step := _step(self.app.state.tour):
                    self.app.state.playing = False
                    self.app.state.go(step.ask)
            elif action == "pace" and value in ("follow", "free"):
                self.store.pace(self.code, self.secret, value)
            elif action == "recall":
                self.store.recall_all(self.code, self.secret)
            elif action == "step" and value.isdigit() and _step(int(value)):
                self.app.state.go_to_step(int(value))
        elif action == "answer" and self.class_state is not None and self.student:
            state = self.class_state
            step = _step(state.question)
            choices = len(step.answers) if step else 0
            self.store.answer(self.code, self.student, state.question or 0, state.round or 0, value, choices)

    def _export(self):
        return io.StringIO(self.store.export_csv(self.code, self.secret))

    def redraw(self) -> None:
        state = self.class_state
        if self.teacher and state is not None:
            step = _step(self.app.state.tour)
            counts = self.store.counts(self.code, step.number) if step else {}
            right = list(_right(step.number)) if step else []
            card = teacher_html(state, step, counts, right, self.message, total=len(steps()))
            self.card.html = card + pacing_html(state)
            self.join.object = join_html(state, self.join_url(), _qr(self.join_url()))
            self.download.visible = True
            return
        mine, step = None, None
        if state is not None and state.question is not None and self.student:
            step = _step(state.question)
            mine = self.store.my_answer(self.code, self.student, state.question, state.round)
        verdict = _verdict(state.question, mine) if step and state.revealed else ""
        if state is not None and state.open and step is not None:
            self.client.asked = f"{state.question}:{state.round}"
        self.client.acknowledged = f"{state.question}:{state.round}:{mine}" if mine is not None else ""
        self.card.html = student_html(state if self.student else None, step, mine, verdict, self.message)

    def __panel__(self):
        return pn.Column(self.client, self.join, self.card, self.download, sizing_mode="stretch_width")


@cache
def _qr(url: str) -> str:
    """The join link's QR code as inline SVG (segno: no image file, scales with the screen)."""
    import segno

    return segno.make(url, error="m").svg_inline(scale=3, dark="#000", light="#fff", omitsize=False)
