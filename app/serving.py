"""Run by ``panel serve --setup app/serving.py`` before the server starts: what the server sends besides
the page.

Every response carries ``Content-Security-Policy: frame-ancestors 'self' …``, so only this server's own
pages and the hosts named in the environment variable ``EXPLAINER_FRAME_ANCESTORS`` (space-separated
origins, e.g. the article's ``https://example.org``) may put the explainer in a frame. A page elsewhere
that frames it gets nothing.

When readers' sessions end, the server collects their garbage and hands freed memory back to the system,
once for a burst of them (``release_memory``), so a class of thirty leaves the server about as small as it
found it. That works fully when the server runs with ``PYTHONMALLOC=malloc`` (as ``./dev serve`` does):
CPython's own small-object allocator keeps partly used arenas, and measured here a class left it 37 % above
idle; with the system allocator and ``malloc_trim`` the server returns to within 7 %
(benchmarks/class_bench.py).

A request whose address is longer than ``MAX_LINK`` gets 414 and a sentence, not a closed connection.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
import os
import re
import signal
import sys
import traceback

from tornado.httpserver import HTTPServer
from tornado.web import Application, RequestHandler
from tornado.websocket import WebSocketClosedError, WebSocketHandler

ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:\d{1,5})?")


def frame_ancestors(setting: str | None) -> str:
    """The CSP directive for ``setting``; a value that is not a list of origins is refused, not guessed."""
    origins = (setting or "").split()
    bad = [o for o in origins if not ORIGIN.fullmatch(o)]
    if bad:
        example = "https://example.org"
        raise SystemExit(f"EXPLAINER_FRAME_ANCESTORS takes origins like {example}; got {bad[0][:60]!r}")
    return " ".join(["frame-ancestors", "'self'", *origins])


POLICY = frame_ancestors(os.environ.get("EXPLAINER_FRAME_ANCESTORS"))

# Panel turns every all-digit query value into an int while it builds pn.state.location, before any of our
# code sees the query; past Python's 4,300-digit limit that raised inside page creation and the page stayed
# blank. A link longer than MAX_LINK is refused before that (below), so the limit is raised to MAX_LINK
# digits, a few milliseconds to convert, and no further: with no limit at all, one websocket message holding
# an integer of millions of digits (Bokeh parses a message as JSON before it checks it) held the process,
# and every reader's page, for seconds to minutes. The app's own parsing never converts such a value
# (app.state), and load_trace bounds its own.
MAX_LINK = 32 * 1024  # characters of path and query; the explainer's own links are under 1,000
sys.set_int_max_str_digits(max(MAX_LINK, sys.get_int_max_str_digits()))
_set_default_headers = RequestHandler.set_default_headers


def _with_policy(self: RequestHandler) -> None:
    _set_default_headers(self)
    self.set_header("Content-Security-Policy", POLICY)


RequestHandler.set_default_headers = _with_policy

# A link far longer than any the explainer writes gets a 414 that says so. Tornado reads at most 64 KB of
# request line and headers and, past that, closes the connection without a word; it is allowed more here
# (HEADER_ROOM) so that the request is read and refused in words instead.
HEADER_ROOM = 256 * 1024
TOO_LONG = (
    "This link is too long for the explainer ({length:,} characters; at most {limit:,}). "
    "Open the explainer without it and choose the switches on the page."
)


class _LinkTooLong(RequestHandler):
    def prepare(self) -> None:
        self.set_status(414)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(TOO_LONG.format(length=len(self.request.uri or ""), limit=MAX_LINK))


_find_handler = Application.find_handler


class _ToThePhonesPage(RequestHandler):
    """A student's link to the explainer (``/explainer?join=CODE``, as class mode wrote it before the
    phones had a page of their own): the phones' page, without starting a Panel session for it."""

    def prepare(self) -> None:
        code = "".join(c for c in self.get_query_argument("join", "") if c.isalnum())[:16]
        self.redirect(f"/join/{code}" if code else "/join", permanent=False)


def _refusing_long_links(self: Application, request, **kwargs):
    if len(request.uri or "") > MAX_LINK:
        return self.get_handler_delegate(request, _LinkTooLong)
    if request.path.rstrip("/").endswith("/explainer") and "join=" in (request.query or ""):
        return self.get_handler_delegate(request, _ToThePhonesPage)
    return _find_handler(self, request, **kwargs)


Application.find_handler = _refusing_long_links
_initialize = HTTPServer.initialize


def _with_header_room(self: HTTPServer, *args, max_header_size: int | None = None, **kwargs) -> None:
    _initialize(self, *args, max_header_size=max_header_size or HEADER_ROOM, **kwargs)


HTTPServer.initialize = _with_header_room


# A message written to a connection that has just closed fails. Panel queues its writes and awaits them on
# the next tick, which never comes when the session ends first (a reader closing the tab mid-play); asyncio
# then logged "Task exception was never retrieved ... WebSocketClosedError" for each, at error level, for
# what is an ordinary goodbye. A write that failed because the connection closed is marked seen (whoever
# awaits it still gets the error); any other failure is reported as asyncio would.
_write_message = WebSocketHandler.write_message


def seen_if_closed(written) -> None:
    """A finished websocket write's done-callback: its exception retrieved if the connection had closed."""
    if written.cancelled():
        return
    error = written.exception()  # retrieved: asyncio no longer reports it when the write is dropped
    if error is not None and not isinstance(error, WebSocketClosedError):
        context = {"message": "a websocket write failed", "exception": error, "future": written}
        written.get_loop().call_exception_handler(context)


def _write_message_seen(self: WebSocketHandler, message, binary: bool = False):
    written = _write_message(self, message, binary=binary)
    written.add_done_callback(seen_if_closed)
    return written


WebSocketHandler.write_message = _write_message_seen


# No client can fill the log: a line is at most LOG_LINE characters, whatever a websocket sent (Bokeh logs
# a message it cannot read whole: a 19 MB frame made a 19 MB line, and twelve connections 228 MB in 20 s),
# and each line of a traceback too. A page that leaves while a message is on its way is an ordinary
# goodbye, not a warning.
LOG_LINE = 300
GOODBYES = ("Failed sending message as connection was closed",)
_make_record = logging.getLogRecordFactory()


def _short(line: str) -> str:
    return line if len(line) <= LOG_LINE else f"{line[:LOG_LINE]}… ({len(line):,} characters)"


def short_record(*args, **kwargs) -> logging.LogRecord:
    """A log record whose message and traceback lines are at most ``LOG_LINE`` characters each."""
    record = _make_record(*args, **kwargs)
    try:
        said = record.getMessage()
    except Exception:  # a record whose arguments do not fit its format: logging reports that itself
        return record
    if len(said) > LOG_LINE:
        record.msg, record.args = _short(said), ()
    if record.exc_info and record.exc_info[0] is not None:
        lines = [line for text in traceback.format_exception(*record.exc_info) for line in text.splitlines()]
        record.exc_text = "\n".join(_short(line) for line in lines)
        record.exc_info = None
    return record


class _NoGoodbyes(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno == logging.WARNING and record.getMessage() in GOODBYES)


logging.setLogRecordFactory(short_record)
logging.getLogger("bokeh.server.views.ws").addFilter(_NoGoodbyes())


def follow_the_parent() -> bool:
    """Under ``--num-procs N`` each server process is a child tornado forked; a SIGTERM to the parent
    (how a supervisor or a plain ``kill`` stops a server) ended only the parent, and the children went on
    serving the port, orphaned. A child asks Linux to send it SIGTERM when its parent ends (and ends at
    once if that has already happened). A server of one process is left alone: its parent is the shell,
    which may well end first (``nohup``). Returns whether the rule was set."""
    from tornado.process import task_id

    if task_id() is None or not sys.platform.startswith("linux"):
        return False
    parent = os.getppid()
    prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)
    if prctl is None or prctl(1, signal.SIGTERM, 0, 0, 0) != 0:  # 1: PR_SET_PDEATHSIG
        return False
    if os.getppid() != parent:  # the parent ended before the rule was set
        os.kill(os.getpid(), signal.SIGTERM)
    return True


follow_the_parent()


def forget_views(document) -> int:
    """Drop what Panel's global view registry (``state._views``) still holds for a finished session's
    document, and say how many entries went.

    Panel registers every page's notification area there (``pn.extension(notifications=True)``, which the
    disconnect notice needs) and does not remove it when the session ends; the entry keeps the whole
    session alive (its document, every model, about 0.7 MB), so the server grew by that much per reader,
    found with ``benchmarks/session_memory.py``."""
    from panel.io.state import state

    views = getattr(state, "_views", None)
    if not isinstance(views, dict) or document is None:
        return 0
    stale = [
        ref
        for ref, view in views.items()
        if isinstance(view, tuple) and len(view) > 2 and view[2] is document
    ]
    for ref in stale:
        del views[ref]
    return len(stale)


# A full collection walks every live session's objects: with 300 phones in a class it took about a second,
# in which the server answered nobody. Made at each session's end, a phone's reload stalled every other
# phone's step, and a class leaving at once held the server for minutes; one collection a few seconds after
# the first end serves every session that ends meanwhile.
COLLECT_AFTER = 5.0  # seconds
_collection: list = []  # the collection planned, if one is


def release_memory(session_context) -> None:
    """Forget the session's views now; collect garbage and return freed heap pages to the system
    (``collect``) once, ``COLLECT_AFTER`` seconds after the first session to end since the last collection
    (at once without a running event loop: a script or a test)."""
    forget_views(getattr(session_context, "_document", None))
    if _collection:
        return
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        collect()
        return
    _collection.append(loop.call_later(COLLECT_AFTER, collect))


def collect() -> None:
    """Collect garbage and return freed heap pages to the system (glibc only; elsewhere, just collect).
    Without the last step CPython's allocator keeps the pages of thirty finished sessions."""
    _collection.clear()
    gc.collect()
    libc = ctypes.util.find_library("c")
    if libc:
        trim = getattr(ctypes.CDLL(libc), "malloc_trim", None)
        if trim is not None:
            trim(0)
