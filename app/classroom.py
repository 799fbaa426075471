"""Class mode's records: the classes, who joined, the rounds of each question and every answer.

The article's own rule applies to a class: a student's answer is an effect that must be recorded once,
however often the phone sends it, and must outlive the server. So an answer is committed before the
phone is told it is in, under one key (class, student, question, round): a resend, a double tap or a
retry after a reconnect writes the same row again, never a second one. Everything a page of the class
shows is read back from here, so several server processes (``panel serve --num-procs``), or machines,
share one class when they share the database, and a server killed mid-round starts again where it was.

Two databases, one set of statements: SQLite in WAL mode (the default, a file in ``.classroom/``), or
PostgreSQL given its URL (``CLASS_DB=postgresql://…``). Nothing here knows a page; the page asks.

Bad input changes nothing and says why (``ClassError``): an unknown or expired code, an answer to a
question that is not open or with a choice it does not have, a teacher's move without the teacher's key,
a class that is full.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

#: Codes are read aloud and typed on phones: no 0/O, 1/I/L.
CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
DEFAULT_HOURS = 12.0  # a class expires this long after it was made (CLASS_HOURS)
MAX_MEMBERS = 400  # a class is a room, not the internet
MAX_CLASSES_PER_HOUR = 200  # per database: a flood of "new class" clicks cannot fill the disk
MIN_SECONDS_BETWEEN_CHANGES = 0.25  # one student's answer changes, at most (a flood is refused)
PACING = ("follow", "free")
DEFAULT_PATH = Path(".classroom") / "classes.sqlite3"

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS classes (
        code TEXT PRIMARY KEY,
        teacher TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL,
        expires DOUBLE PRECISION NOT NULL,
        link TEXT NOT NULL DEFAULT '',
        pacing TEXT NOT NULL DEFAULT 'follow',
        recall INTEGER NOT NULL DEFAULT 0,
        question INTEGER,
        round INTEGER,
        version INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS members (
        code TEXT NOT NULL, student TEXT NOT NULL, joined DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (code, student)
    )""",
    """CREATE TABLE IF NOT EXISTS rounds (
        code TEXT NOT NULL, step INTEGER NOT NULL, round INTEGER NOT NULL,
        opened DOUBLE PRECISION NOT NULL, closed DOUBLE PRECISION, revealed INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (code, step, round)
    )""",
    """CREATE TABLE IF NOT EXISTS answers (
        code TEXT NOT NULL, student TEXT NOT NULL, step INTEGER NOT NULL, round INTEGER NOT NULL,
        choice TEXT NOT NULL, at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (code, student, step, round)
    )""",
)


class ClassError(ValueError):
    """What a page says when a class move is refused; ``code`` names the case for the page's words."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ClassState:
    """A class as every page of it reads it: the teacher's page (``link``, its query), whether phones
    follow it, the question asked (a tour step) and its round, whether that round is still open and
    whether its answer is revealed, how many have joined, and a version that changes with any of it."""

    code: str
    expires: float
    link: str
    pacing: str
    recall: int
    question: int | None
    round: int | None
    open: bool
    revealed: bool
    joined: int
    version: int

    @property
    def on_phones(self) -> tuple:
        """What a student's page shows of the class: all of it but how many have joined (and the answers
        counted, which are not here), which only the teacher's card shows."""
        return (self.code, self.expires, self.link, self.pacing, self.recall, self.question, self.round,
                self.open, self.revealed)  # fmt: skip


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def database_url() -> str:
    """Where the classes are kept: ``CLASS_DB`` (a PostgreSQL URL, or a SQLite file's path), else
    ``.classroom/classes.sqlite3`` in the folder the server runs in."""
    return os.environ.get("CLASS_DB", "").strip() or str(DEFAULT_PATH)


def class_hours() -> float:
    """How long a class lasts (``CLASS_HOURS``, between a minute and a week; else the default)."""
    try:
        hours = float(os.environ.get("CLASS_HOURS", DEFAULT_HOURS))
    except ValueError:
        return DEFAULT_HOURS
    return hours if 1 / 60 <= hours <= 24 * 7 else DEFAULT_HOURS


class ClassStore:
    """The classes in one database. Safe to share between the sessions of one server process (a lock
    around each statement); processes share it through the database itself."""

    def __init__(self, url: str | None = None):
        self.url = url or database_url()
        self._lock = threading.Lock()
        if self.url.startswith(("postgresql://", "postgres://")):
            import psycopg  # only a server given PostgreSQL needs it

            self._connection = psycopg.connect(self.url)
            self._mark = "%s"
        else:
            path = Path(self.url)
            path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(path, check_same_thread=False, timeout=10)
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("PRAGMA synchronous=FULL")  # committed is on disk, power cut or not
            self._mark = "?"
        for statement in SCHEMA:
            self._run(statement)

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def _run(self, sql: str, values: tuple = (), fetch: bool = False) -> list[tuple]:
        """One statement in a transaction of its own, committed before this returns."""
        with self._lock:
            cursor = self._connection.cursor()
            try:
                cursor.execute(sql.replace("?", self._mark), values)
                rows = cursor.fetchall() if fetch else []
                self._connection.commit()
                return rows
            except Exception:
                self._connection.rollback()
                raise
            finally:
                cursor.close()

    def _rows(self, sql: str, values: tuple = ()) -> list[tuple]:
        return self._run(sql, values, fetch=True)

    # --- a class ------------------------------------------------------------------------------------

    def create(self, now: float | None = None, hours: float | None = None) -> tuple[str, str]:
        """A new class: its code (for the students) and the teacher's secret (only the teacher's link
        holds it; the database keeps its hash)."""
        now = time.time() if now is None else now
        self.forget_expired(now)  # a class ends with all it recorded: nothing is kept past its hours
        (made,) = self._rows("SELECT COUNT(*) FROM classes WHERE created > ?", (now - 3600,))[0]
        if made >= MAX_CLASSES_PER_HOUR:
            raise ClassError("busy", "Too many classes were made in the last hour; try again later.")
        secret = secrets.token_urlsafe(18)
        expires = now + 3600 * (class_hours() if hours is None else hours)
        for _ in range(20):
            code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
            if not self._rows("SELECT 1 FROM classes WHERE code = ?", (code,)):
                self._run(
                    "INSERT INTO classes (code, teacher, created, expires) VALUES (?, ?, ?, ?)",
                    (code, _digest(secret), now, expires),
                )
                return code, secret
        raise ClassError("busy", "No free class code was found; try again.")

    def state(self, code: str, now: float | None = None) -> ClassState:
        """The class as it is now, or ClassError("unknown" or "expired")."""
        now = time.time() if now is None else now
        code = normal_code(code)
        found = self._rows(
            "SELECT expires, link, pacing, recall, question, round, version FROM classes WHERE code = ?",
            (code,),
        )
        if not found:
            raise ClassError("unknown", f"There is no class {code!r}: check the code on the board.")
        expires, link, pacing, recall, question, round_, version = found[0]
        if expires <= now:
            raise ClassError("expired", f"Class {code} has ended: its answers are no longer kept.")
        open_, revealed = False, False
        if question is not None:
            (closed, shown) = self._rows(
                "SELECT closed, revealed FROM rounds WHERE code = ? AND step = ? AND round = ?",
                (code, question, round_),
            )[0]
            open_, revealed = closed is None, bool(shown)
        (joined,) = self._rows("SELECT COUNT(*) FROM members WHERE code = ?", (code,))[0]
        return ClassState(code, expires, link, pacing, recall, question, round_, open_,
                          revealed, joined, version)  # fmt: skip

    def version(self, code: str) -> int | None:
        """What changes whenever the class does: a page polls this, cheaply, and reads the rest only then."""
        found = self._rows("SELECT version FROM classes WHERE code = ?", (code,))
        return found[0][0] if found else None

    def is_teacher(self, code: str, secret: str) -> bool:
        found = self._rows("SELECT teacher FROM classes WHERE code = ?", (code,))
        return bool(found) and hmac.compare_digest(found[0][0], _digest(secret))

    def _teacher(self, code: str, secret: str, now: float | None = None) -> ClassState:
        """The class, if ``secret`` is its teacher's; else ClassError (unknown, expired, not-teacher)."""
        state = self.state(code, now)
        if not self.is_teacher(state.code, secret):
            raise ClassError("not-teacher", "Only the teacher's link can do that.")
        return state

    def _change(self, code: str, sql: str = "", values: tuple = ()) -> None:
        """Change the class's row (``sql`` sets what changes); its version moves with it, so every page
        of it reads it again."""
        sets = f"{sql}, " if sql else ""
        self._run(f"UPDATE classes SET {sets}version = version + 1 WHERE code = ?", (*values, code))

    def follow(self, code: str, secret: str, link: str) -> None:
        """The teacher's page moved (a chapter, a switch, a tick): following phones show ``link``."""
        state = self._teacher(code, secret)
        if link[:2000] != state.link:
            self._change(state.code, "link = ?", (link[:2000],))

    def pace(self, code: str, secret: str, pacing: str) -> None:
        if pacing not in PACING:
            raise ClassError("bad-pacing", f"Pacing is one of {', '.join(PACING)}, not {pacing!r}.")
        self._change(self._teacher(code, secret).code, "pacing = ?", (pacing,))

    def recall_all(self, code: str, secret: str) -> None:
        """Bring every phone back to the teacher's page (and have them follow it again)."""
        self._change(self._teacher(code, secret).code, "pacing = 'follow', recall = recall + 1")

    # --- students ------------------------------------------------------------------------------------

    def join(self, code: str, student: str, now: float | None = None) -> ClassState:
        """A phone joins (again: the same student is counted once)."""
        now = time.time() if now is None else now
        state = self.state(code, now)
        code, student = state.code, normal_student(student)
        if not self._rows("SELECT 1 FROM members WHERE code = ? AND student = ?", (code, student)):
            if state.joined >= MAX_MEMBERS:
                raise ClassError("full", f"Class {code} is full ({MAX_MEMBERS} have joined).")
            self._run(
                "INSERT INTO members (code, student, joined) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (code, student, now),
            )
            self._change(code)
        return self.state(code, now)

    # --- questions -------------------------------------------------------------------------------------

    def open_round(self, code: str, secret: str, step: int, now: float | None = None) -> int:
        """Ask tour step ``step``'s question: a new round of it (the first, or one after discussion);
        any round still open is closed. Returns the round's number."""
        now = time.time() if now is None else now
        code = self._teacher(code, secret, now).code  # the key is checked before anything is written
        self._run("UPDATE rounds SET closed = ? WHERE code = ? AND closed IS NULL", (now, code))
        (last,) = self._rows("SELECT COALESCE(MAX(round), 0) FROM rounds WHERE code = ? AND step = ?",
                             (code, step))[0]  # fmt: skip
        number = last + 1
        self._run(
            "INSERT INTO rounds (code, step, round, opened) VALUES (?, ?, ?, ?)", (code, step, number, now)
        )
        self._change(code, "question = ?, round = ?", (step, number))
        return number

    def close_round(self, code: str, secret: str, now: float | None = None) -> None:
        """No more answers to the round asked now (they can be discussed, revealed or asked again)."""
        now = time.time() if now is None else now
        state = self._teacher(code, secret, now)
        self._run(
            "UPDATE rounds SET closed = ? WHERE code = ? AND step = ? AND round = ? AND closed IS NULL",
            (now, state.code, state.question, state.round),
        )
        self._change(state.code)

    def reveal(self, code: str, secret: str, now: float | None = None) -> None:
        """Show which answer is right, and why, on every phone; the round closes first."""
        state = self._teacher(code, secret, now)
        if state.question is None:
            raise ClassError("no-question", "No question has been asked yet.")
        self.close_round(code, secret, now)
        self._run(
            "UPDATE rounds SET revealed = 1 WHERE code = ? AND step = ? AND round = ?",
            (state.code, state.question, state.round),
        )
        self._change(state.code)

    def answer(self, code: str, student: str, step: int, round_: int, choice: str, choices: int,
               now: float | None = None) -> str:  # fmt: skip
        """A student's answer to the round asked now, written before this returns (the phone is told it
        is in only then). Sent again, it is the same row; changed while the round is open, the row says
        the new choice. ``choices``: how many answers the question has. Returns the choice recorded."""
        now = time.time() if now is None else now
        state = self.state(code, now)
        code, student = state.code, normal_student(student)
        if not self._rows("SELECT 1 FROM members WHERE code = ? AND student = ?", (code, student)):
            raise ClassError("not-joined", "Join the class before answering.")
        if (state.question, state.round) != (step, round_) or not state.open:
            raise ClassError("not-open", "That question is not open now: its round has closed.")
        if not (choice.isascii() and choice.isdigit() and len(choice) <= 2 and int(choice) < choices):
            raise ClassError("bad-choice", f"The answer must be one of the question's {choices} choices.")
        before = self._rows(
            "SELECT choice, at FROM answers WHERE code = ? AND student = ? AND step = ? AND round = ?",
            (code, student, step, round_),
        )
        if before and before[0][0] != choice and now - before[0][1] < MIN_SECONDS_BETWEEN_CHANGES:
            raise ClassError("too-fast", "Answers are changing too fast; wait a moment.")
        if before and before[0][0] == choice:
            return choice  # a resend: already in, nothing to write
        self._run(
            "INSERT INTO answers (code, student, step, round, choice, at) VALUES (?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (code, student, step, round) "
            "DO UPDATE SET choice = excluded.choice, at = excluded.at",
            (code, student, step, round_, choice, now),
        )
        self._change(code)
        return choice

    def my_answer(self, code: str, student: str, step: int, round_: int) -> str | None:
        found = self._rows(
            "SELECT choice FROM answers WHERE code = ? AND student = ? AND step = ? AND round = ?",
            (code, normal_student(student), step, round_),
        )
        return found[0][0] if found else None

    def counts(self, code: str, step: int) -> dict[int, dict[str, int]]:
        """How many chose each answer of tour step ``step``, round by round (every round opened, even
        one nobody answered)."""
        rounds = self._rows(
            "SELECT round FROM rounds WHERE code = ? AND step = ? ORDER BY round", (code, step)
        )
        found: dict[int, dict[str, int]] = {r: {} for (r,) in rounds}
        for round_, choice, n in self._rows(
            "SELECT round, choice, COUNT(*) FROM answers WHERE code = ? AND step = ? GROUP BY round, choice",
            (code, step),
        ):
            found.setdefault(round_, {})[choice] = n
        return found

    def export_csv(self, code: str, secret: str) -> str:
        """The counts per question and round, as CSV: no student, no time, nothing personal."""
        code = self._teacher(code, secret).code
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["question", "round", "answer", "count"])
        for step, round_, choice, n in self._rows(
            "SELECT step, round, choice, COUNT(*) FROM answers WHERE code = ? "
            "GROUP BY step, round, choice ORDER BY step, round, choice",
            (code,),
        ):
            writer.writerow([step, round_, int(choice) + 1, n])
        return out.getvalue()

    def forget_expired(self, now: float | None = None) -> int:
        """Delete every class that has expired, with all it recorded. Returns how many went."""
        now = time.time() if now is None else now
        gone = [code for (code,) in self._rows("SELECT code FROM classes WHERE expires <= ?", (now,))]
        for code in gone:
            for table in ("answers", "rounds", "members", "classes"):
                self._run(f"DELETE FROM {table} WHERE code = ?", (code,))
        return len(gone)


def normal_code(code: str) -> str:
    """A code as typed on a phone: any case, spaces ignored."""
    return "".join(code.split()).upper()[:16]


def normal_student(student: str) -> str:
    """A phone's random id (made in its browser), refused if it could be anything else."""
    if not (8 <= len(student) <= 64 and student.isascii() and student.replace("-", "").isalnum()):
        raise ClassError("bad-student", "This browser's class id is not one the page made.")
    return student
