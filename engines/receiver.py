"""The feed, for real: a local HTTP endpoint over SQLite that follows the article's receive recipe.

Every request gets an HTTP answer with a JSON body, whatever it holds: values SQLite or UTF-8 cannot hold,
repeated JSON keys, methods other than POST, Python's own request-line errors. At most
``MAX_CONNECTIONS`` requests are served at once (one more gets 503 at once), and a client has
``REQUEST_DEADLINE`` seconds at most to send its whole request, however slowly it sends it.

For one key, the lookup, the parameter check, the post and the remembering of its answer happen in one
SQLite transaction (BEGIN IMMEDIATE, so two requests for a key cannot both miss the lookup). A repeat gets
the stored answer; the same key with other parameters is rejected; a request with no key always posts.
Parameters are compared as canonical JSON with their types kept (``true``, ``1`` and ``1.0`` differ);
NaN and infinities are refused. When SQLite's write lock stays taken past ``LOCK_TIMEOUT``, the answer
is 503 with ``Retry-After`` and nothing has been done.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from model.schema import RepeatedKey, unique_keys

SCHEMA = """
CREATE TABLE IF NOT EXISTS posts (number INTEGER PRIMARY KEY, digest TEXT, key TEXT, attempt INTEGER);
CREATE TABLE IF NOT EXISTS remembered (key TEXT PRIMARY KEY, params TEXT, post INTEGER);
"""


LOCK_TIMEOUT = 10  # seconds a post waits for SQLite's write lock before it is answered 503


def canonical(params: dict) -> str:
    """The parameters as one text that keeps JSON's types: ``true``, ``1`` and ``1.0`` stay three values
    (Python's ``==`` would call them equal) and the order of an object's keys does not count."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"), allow_nan=False)


def receive(
    db: Path, key: str | None, params: dict, attempt: int, lock_timeout: float = LOCK_TIMEOUT
) -> dict:
    """The receive recipe; ``sqlite3.OperationalError`` when the write lock stayed taken (the caller
    answers 503: nothing was done, so the client may send the same request again)."""
    connection = sqlite3.connect(db, isolation_level=None, timeout=lock_timeout)
    try:
        connection.executescript(SCHEMA)
        connection.execute("BEGIN IMMEDIATE")
        if key is not None:
            saved = connection.execute("SELECT params, post FROM remembered WHERE key = ?", (key,)).fetchone()
            if saved is not None:
                connection.execute("COMMIT")
                if canonical(json.loads(saved[0])) != canonical(params):
                    return {"status": "rejected", "post": None}
                return {"status": "repeat", "post": saved[1]}
        cursor = connection.execute(
            "INSERT INTO posts (digest, key, attempt) VALUES (?, ?, ?)", (params["digest"], key, attempt)
        )
        number = cursor.lastrowid
        if key is not None:
            connection.execute("INSERT INTO remembered VALUES (?, ?, ?)", (key, canonical(params), number))
        connection.execute("COMMIT")
        return {"status": "applied", "post": number}
    finally:
        connection.close()


def posts(db: Path) -> list[dict]:
    if not db.exists():
        return []
    connection = sqlite3.connect(db)
    try:
        connection.executescript(SCHEMA)
        rows = connection.execute("SELECT number, digest, key, attempt FROM posts ORDER BY number").fetchall()
    finally:
        connection.close()
    return [{"number": n, "digest": d, "key": k, "attempt": a} for n, d, k, a in rows]


MAX_BODY = 64 * 1024  # bytes: a post is a few hundred; anything larger is refused with 413
CLIENT_TIMEOUT = 10  # seconds a client may wait between two reads before the connection is dropped
REQUEST_DEADLINE = 15  # seconds a client may take to send a whole request, however it dribbles it in
BACKLOG = 128  # connections the listening socket holds while the threads catch up
MAX_CONNECTIONS = 128  # requests served at once; one more gets 503 at once instead of a thread
MAX_ATTEMPT = 2**31 - 1  # attempt numbers are small; SQLite's INTEGER would overflow past 2**63
LENGTH_DIGITS = 20  # a Content-Length longer than this is no body size (the only integer header read)
RETRY_AFTER = 1  # seconds, said with a 503 for a write lock that stayed taken
_BUSY_BODY = json.dumps({"error": "too many requests at once"}).encode()
BUSY = (
    b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
    + b"Content-Length: %d\r\n\r\n" % len(_BUSY_BODY)
    + _BUSY_BODY
)


class BadRequest(ValueError):
    """A request the receiver will not act on; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status, self.reason = status, reason


def _whole_number(digits: str) -> int:
    if len(digits.lstrip("-")) > 100:  # an attempt number, not a 5,000-digit integer
        raise ValueError("an integer too long to be an attempt number")
    return int(digits)


class NotANumber(ValueError):
    """NaN, Infinity or a number too large for a double: not standard JSON, and never equal to itself."""


def _refuse_constant(name: str):
    raise NotANumber(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # 1e999 parses to infinity
        raise NotANumber(f"{text[:20]} is too large a number")
    return value


def parse_post(headers, rfile) -> tuple[str | None, dict, int]:
    """``(key, params, attempt)`` from a request, or BadRequest saying what is wrong.

    Keys are strings or absent (null): a number is not a key, so ``7`` and ``"7"`` can never be taken for
    one another. ``params`` is an object with a string ``digest``; ``attempt`` a whole number."""
    length = headers.get("Content-Length")
    if length is None or not length.isascii() or not length.isdigit():
        raise BadRequest(411, "a Content-Length header with the body's size in bytes is required")
    if len(length) > LENGTH_DIGITS:  # never handed to int(): past 4,300 digits it raises
        raise BadRequest(
            400, f"Content-Length has {len(length)} digits; a body's size has at most {LENGTH_DIGITS}"
        )
    if int(length) > MAX_BODY:
        raise BadRequest(413, f"the body is larger than {MAX_BODY} bytes")
    try:
        body = json.loads(
            rfile.read(int(length)),
            parse_int=_whole_number,
            parse_float=_finite,
            parse_constant=_refuse_constant,
            object_pairs_hook=unique_keys,
        )
    except (RepeatedKey, NotANumber) as refused:
        raise BadRequest(400, str(refused)) from None
    except (ValueError, RecursionError):
        raise BadRequest(400, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest(400, "the body must be a JSON object")
    key, params, attempt = body.get("key"), body.get("params"), body.get("attempt", 0)
    if key is not None and not isinstance(key, str):
        raise BadRequest(400, "key must be a string or null")
    if not isinstance(params, dict) or not isinstance(params.get("digest"), str):
        raise BadRequest(400, "params must be an object with a string digest")
    if isinstance(attempt, bool) or not isinstance(attempt, int) or not 0 <= attempt <= MAX_ATTEMPT:
        raise BadRequest(400, f"attempt must be a whole number from 0 to {MAX_ATTEMPT}")
    if not all(_utf8(text) for text in (key or "", params["digest"])):
        raise BadRequest(400, "key and digest must be text that UTF-8 can hold (no lone surrogates)")
    return key, params, attempt


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Server(ThreadingHTTPServer):
    request_queue_size = BACKLOG
    daemon_threads = True

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request, client_address) -> None:
        if not self._slots.acquire(blocking=False):  # full: answer at once, hold no thread
            try:
                request.sendall(BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return  # the client went away, or was cut off at its deadline: nothing to report
        super().handle_error(request, client_address)

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class Receiver:
    """Serves receive() on 127.0.0.1 from a thread of the orchestrating process. Every request gets an
    HTTP answer with a JSON body: 200 with the feed's answer, or a 4xx with ``{"error": reason}``."""

    def __init__(self, db: Path, client_timeout: float = CLIENT_TIMEOUT, lock_timeout: float = LOCK_TIMEOUT):
        self.db = db
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            timeout = client_timeout

            def setup(self):
                super().setup()
                # The socket timeout bounds each read; this bounds reading the whole request. Answering is
                # not bounded by it: a post waits its turn for SQLite's lock however long a burst takes.
                self._deadline = threading.Timer(min(REQUEST_DEADLINE, 3 * client_timeout), self._cut)
                self._deadline.daemon = True
                self._deadline.start()

            def _cut(self):
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

            def finish(self):
                self._deadline.cancel()
                try:
                    super().finish()
                except OSError:
                    pass

            def do_POST(self):
                try:
                    key, params, attempt = parse_post(self.headers, self.rfile)
                except BadRequest as bad:
                    self._answer(bad.status, {"error": bad.reason})
                    return
                self._deadline.cancel()  # the request is in; the rest is the receiver's own work
                try:
                    answer = receive(receiver.db, key, params, attempt, lock_timeout)
                except sqlite3.OperationalError as error:  # the lock stayed taken: nothing was done
                    reason = f"the feed's database is busy ({error}); send the same request again"
                    self._answer(503, {"error": reason}, {"Retry-After": str(RETRY_AFTER)})
                    return
                self._answer(200, answer)

            def do_GET(self):
                self._answer(405, {"error": "only POST is answered here"})

            do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_HEAD = do_GET  # _answer sends HEAD no body

            def send_error(self, code, message=None, explain=None):
                # Python's own errors (a bad request line, an unknown method) in JSON too, not its HTML.
                self.close_connection = True
                self._answer(code, {"error": message or self.responses.get(code, ("error",))[0]})

            def _answer(self, status: int, answer: dict, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                if status >= 400:
                    self.send_header("Connection", "close")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/post"

    def __enter__(self) -> Receiver:
        # A short poll: shutdown() waits for the loop to look, 0.5 s by default for every receiver stopped.
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
