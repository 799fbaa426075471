"""Class mode's records: the classes, who joined, the rounds of each question and every answer.

The article's own rule applies to a class: a student's answer is an effect that must be recorded once,
however often the phone sends it, and must outlive the server. So an answer is committed before the
phone is told it is in, under one key (class, student, question, round): a resend, a double tap or a
retry after a reconnect writes the same row again, never a second one. Everything a page of the class
shows is read back from here, so several server processes, or machines, share one class when they share
the database, and a server killed mid-round starts again where it was.

Every move is one transaction that first takes the class's row (``FOR UPDATE`` on PostgreSQL; SQLite's
``BEGIN IMMEDIATE`` takes the whole file), so what it checks is still true when it writes: an answer
cannot land after the round it answers was closed, two "ask" clicks cannot number the same round, a
reveal reveals the round it closes, and a class cannot pass its size in a race.

Two databases, one set of statements: SQLite in WAL mode (the default, a file in ``.classroom/``), or
PostgreSQL given its URL (``CLASS_DB=postgresql://…``), through a small pool that drops a connection
the server broke (a restarted database) and opens another. With PostgreSQL every change also says so on
the ``classes`` channel (``NOTIFY``), which ``classroom.hub`` listens to in every process.

Nothing here knows a page; the page asks. Bad input changes nothing and says why (``ClassError``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

#: Codes are read aloud and typed on phones: no 0/O, 1/I/L.
CODE_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 5
DEFAULT_HOURS = 12.0  # a class expires this long after it was made (CLASS_HOURS)
#: A lecture hall: what one server process serves (benchmarks/class_bench.py --phones 1000 measures it).
MAX_MEMBERS = 2000
#: Members one network address may add to a class (CLASS_PER_ADDRESS): one client cannot fill a class.
#: A hall whose phones all reach the server through one address (a NAT) raises it.
DEFAULT_PER_ADDRESS = 250
MAX_CLASSES_PER_HOUR = 200  # per database: a flood cannot fill the disk
MIN_SECONDS_BETWEEN_CHANGES = 0.25  # one student's answer changes, at most (a flood is refused)
PACING = ("follow", "free")
DEFAULT_PATH = Path(".classroom") / "classes.sqlite3"
CHANNEL = "classes"  # PostgreSQL's notification channel: "<code> <what>"

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
#: Columns added since the first schema, each with its definition: a database made by an older server
#: gains them (a class in it goes on).
ADDED = (
    ("classes", "paused", "INTEGER NOT NULL DEFAULT 0"),
    ("members", "address", "TEXT NOT NULL DEFAULT ''"),
)


class ClassError(ValueError):
    """What a page says when a class move is refused; ``code`` names the case for the page's words."""

    def __init__(self, code: str, message: str, keep: bool = False):
        super().__init__(message)
        self.code = code
        self.keep = keep  # what the transaction did before saying this is committed all the same


def unreachable() -> ClassError:
    return ClassError("unreachable", "The class's records cannot be reached just now; the page keeps trying.")


@dataclass(frozen=True)
class ClassState:
    """A class as every page of it reads it: the teacher's page (``link``, its query), whether phones
    follow it or are paused, the question asked (a tour step) and its round, whether that round is still
    open and whether its answer is revealed, how many have joined, and a version that changes with any
    of it but the joins."""

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
    paused: bool = False

    @property
    def on_phones(self) -> tuple:
        """What a student's page shows of the class: all of it but how many have joined."""
        return (self.code, self.expires, self.link, self.pacing, self.recall, self.question, self.round,
                self.open, self.revealed, self.paused)  # fmt: skip


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def database_url() -> str:
    """Where the classes are kept: ``CLASS_DB`` (a PostgreSQL URL, or a SQLite file's path), else
    ``.classroom/classes.sqlite3`` in the folder the server runs in."""
    return os.environ.get("CLASS_DB", "").strip() or str(DEFAULT_PATH)


def _setting(name: str, default: float, low: float, high: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if low <= value <= high else default


def class_hours() -> float:
    """How long a class lasts (``CLASS_HOURS``, between a minute and a week; else the default)."""
    return _setting("CLASS_HOURS", DEFAULT_HOURS, 1 / 60, 24 * 7)


def per_address() -> int:
    """How many members one address may add to a class (``CLASS_PER_ADDRESS``, 1 to ``MAX_MEMBERS``)."""
    return int(_setting("CLASS_PER_ADDRESS", DEFAULT_PER_ADDRESS, 1, MAX_MEMBERS))


def canonical_choice(choice: object, choices: int) -> str:
    """An answer as it is kept: the index of one of the question's ``choices`` answers, written without
    sign or leading zeros ("01" is "1"); anything else is refused."""
    if isinstance(choice, bool) or not isinstance(choice, (int, str)):
        choice = None
    elif isinstance(choice, str):
        choice = int(choice) if choice.isascii() and choice.isdigit() and len(choice) <= 3 else None
    if choice is None or not 0 <= choice < choices:
        raise ClassError("bad-choice", f"The answer must be one of the question's {choices} choices.")
    return str(choice)


class _Transaction:
    """The statements of one transaction: ``rows`` and ``run`` take ``?`` marks whatever the database,
    and ``{lock}`` where a read takes the row it reads for the rest of the transaction."""

    def __init__(self, cursor, mark: str, lock: str) -> None:
        self._cursor, self._mark, self._lock = cursor, mark, lock

    def run(self, sql: str, values: tuple = ()) -> int:
        self._cursor.execute(sql.replace("?", self._mark).replace("{lock}", self._lock), values)
        return self._cursor.rowcount

    def rows(self, sql: str, values: tuple = ()) -> list[tuple]:
        self.run(sql, values)
        return self._cursor.fetchall()


class ClassStore:
    """The classes in one database. Safe to share between the threads of one server process; processes
    share it through the database itself. ``clock`` is where "now" comes from (a test ages a class by
    hours with a clock of its own)."""

    def __init__(self, url: str | None = None, clock=time.time):
        self.url = url or database_url()
        self.clock = clock
        self.postgres = self.url.startswith(("postgresql://", "postgres://"))
        self._lock = threading.Lock()  # SQLite's one connection, one thread at a time
        if self.postgres:
            from psycopg_pool import ConnectionPool  # only a server given PostgreSQL needs it

            # Broken connections (the database restarted) are checked for and replaced when taken;
            # connecting gives up after a few seconds rather than holding a thread while the server is away.
            self._pool = ConnectionPool(
                self.url,
                min_size=1,
                max_size=4,
                timeout=4,
                kwargs={"connect_timeout": 3},
                check=ConnectionPool.check_connection,
                open=False,
                name="classes",
            )
            self._pool.open(wait=False)
            self._mark, self._locking = "%s", " FOR UPDATE"
        else:
            path = Path(self.url)
            path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit at the driver: each transaction here is begun and ended in so many words.
            self._sqlite = sqlite3.connect(path, check_same_thread=False, timeout=10, isolation_level=None)
            self._sqlite.execute("PRAGMA journal_mode=WAL")
            self._sqlite.execute("PRAGMA synchronous=FULL")  # committed is on disk, power cut or not
            self._mark, self._locking = "?", ""
        with self._transaction() as tx:
            for statement in SCHEMA:
                tx.run(statement)
            for table, column, definition in ADDED:
                if not self._has_column(tx, table, column):
                    tx.run(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")

    def _has_column(self, tx: _Transaction, table: str, column: str) -> bool:
        if self.postgres:
            return bool(tx.rows(
                "SELECT 1 FROM information_schema.columns WHERE table_name = ? AND column_name = ?",
                (table, column),
            ))  # fmt: skip
        return any(row[1] == column for row in tx.rows(f"PRAGMA table_info({table})"))

    def close(self) -> None:
        if self.postgres:
            self._pool.close()
        else:
            with self._lock:
                self._sqlite.close()

    @contextmanager
    def _transaction(self) -> Iterator[_Transaction]:
        """One transaction, committed when the block ends and rolled back if it raises. On SQLite it holds
        the file's write lock from its start (``BEGIN IMMEDIATE``), so a check and the write it guards
        cannot be split by another connection; on PostgreSQL a read with ``{lock}`` does that per class."""
        if self.postgres:
            import psycopg
            from psycopg_pool import PoolTimeout

            try:
                with self._pool.connection() as connection, connection.cursor() as cursor:
                    try:
                        yield _Transaction(cursor, self._mark, self._locking)
                    except ClassError as error:
                        if error.keep:
                            connection.commit()
                        raise
            except (PoolTimeout, psycopg.OperationalError) as error:
                raise unreachable() from error
            return
        with self._lock:
            cursor = self._sqlite.cursor()
            try:
                cursor.execute("BEGIN IMMEDIATE")
                yield _Transaction(cursor, self._mark, self._locking)
                cursor.execute("COMMIT")
            except ClassError as error:
                cursor.execute("COMMIT" if error.keep else "ROLLBACK")
                raise
            except sqlite3.OperationalError as error:  # the file locked for long by another process
                self._sqlite.rollback()
                raise unreachable() from error
            except BaseException:
                self._sqlite.rollback()
                raise
            finally:
                cursor.close()

    def _notify(self, tx: _Transaction, code: str, what: str) -> None:
        """Say on PostgreSQL's channel that ``code`` changed (``what``: state, joined or answered),
        delivered when the transaction commits; one process alone (SQLite) needs no word."""
        if self.postgres:
            tx.run("SELECT pg_notify(?, ?)", (CHANNEL, f"{code} {what}"))

    # --- a class ------------------------------------------------------------------------------------

    def create(self, now: float | None = None, hours: float | None = None) -> tuple[str, str]:
        """A new class: its code (for the students) and the teacher's secret (only the teacher's link
        holds it; the database keeps its hash). Each client's own limit is the page's to keep."""
        now = self.clock() if now is None else now
        self.forget_expired(now)  # a class ends with all it recorded: nothing is kept past its hours
        secret = secrets.token_urlsafe(18)
        expires = now + 3600 * (class_hours() if hours is None else hours)
        with self._transaction() as tx:
            (made,) = tx.rows("SELECT COUNT(*) FROM classes WHERE created > ?", (now - 3600,))[0]
            if made >= MAX_CLASSES_PER_HOUR:
                raise ClassError("busy", "Too many classes were made in the last hour; try again later.")
            for _ in range(20):
                code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
                if not tx.rows("SELECT 1 FROM classes WHERE code = ?", (code,)):
                    tx.run(
                        "INSERT INTO classes (code, teacher, created, expires) VALUES (?, ?, ?, ?)",
                        (code, _digest(secret), now, expires),
                    )
                    return code, secret
        raise ClassError("busy", "No free class code was found; try again.")

    def _read(self, tx: _Transaction, code: str, now: float, lock: bool = False) -> ClassState:
        """The class in ``tx`` (taking its row for the transaction if ``lock``), or ClassError. A class
        found past its end is deleted there and then, so "its answers are no longer kept" is true."""
        code = normal_code(code)
        found = tx.rows(
            "SELECT expires, link, pacing, recall, question, round, version, paused FROM classes "
            f"WHERE code = ?{' {lock}' if lock else ''}",
            (code,),
        )
        if not found:
            raise ClassError("unknown", f"There is no class {code!r}: check the code on the board.")
        expires, link, pacing, recall, question, round_, version, paused = found[0]
        if expires <= now:
            self._delete(tx, code)
            raise ClassError(
                "expired", f"Class {code} has ended, and its answers are no longer kept.", keep=True
            )
        open_, revealed = False, False
        if question is not None:
            closed, shown = tx.rows(
                "SELECT closed, revealed FROM rounds WHERE code = ? AND step = ? AND round = ?",
                (code, question, round_),
            )[0]
            open_, revealed = closed is None, bool(shown)
        (joined,) = tx.rows("SELECT COUNT(*) FROM members WHERE code = ?", (code,))[0]
        return ClassState(code, expires, link, pacing, recall, question, round_, open_,
                          revealed, joined, version, bool(paused))  # fmt: skip

    def state(self, code: str, now: float | None = None) -> ClassState:
        """The class as it is now, or ClassError("unknown" or "expired")."""
        with self._transaction() as tx:
            return self._read(tx, code, self.clock() if now is None else now)

    def versions(self, codes: list[str]) -> dict[str, int]:
        """Each class's version, in one query (a class that is gone is missing): what a process asks for
        every class it serves, to catch a change it was not told of."""
        if not codes:
            return {}
        marks = ", ".join("?" * len(codes))
        with self._transaction() as tx:
            return dict(tx.rows(f"SELECT code, version FROM classes WHERE code IN ({marks})", tuple(codes)))

    def version(self, code: str) -> int | None:
        return self.versions([normal_code(code)]).get(normal_code(code))

    def is_teacher(self, code: str, secret: str) -> bool:
        with self._transaction() as tx:
            found = tx.rows("SELECT teacher FROM classes WHERE code = ?", (normal_code(code),))
        return bool(found) and hmac.compare_digest(found[0][0], _digest(secret))

    def _teacher(self, tx: _Transaction, code: str, secret: str, now: float | None) -> ClassState:
        """The class, its row taken, if ``secret`` is its teacher's; else ClassError."""
        state = self._read(tx, code, self.clock() if now is None else now, lock=True)
        (teacher,) = tx.rows("SELECT teacher FROM classes WHERE code = ?", (state.code,))[0]
        if not hmac.compare_digest(teacher, _digest(secret)):
            raise ClassError("not-teacher", "Only the teacher's link can do that.")
        return state

    def _change(self, tx: _Transaction, code: str, sql: str = "", values: tuple = ()) -> None:
        """Change the class's row (``sql`` sets what changes); its version moves with it, so every page
        of it reads it again."""
        sets = f"{sql}, " if sql else ""
        tx.run(f"UPDATE classes SET {sets}version = version + 1 WHERE code = ?", (*values, code))
        self._notify(tx, code, "state")

    def _teach(self, code: str, secret: str, sql: str = "", values: tuple = (), now=None) -> ClassState:
        with self._transaction() as tx:
            state = self._teacher(tx, code, secret, now)
            self._change(tx, state.code, sql, values)
            return self._read(tx, state.code, self.clock() if now is None else now)

    def follow(self, code: str, secret: str, link: str) -> ClassState:
        """The teacher's page moved (a chapter, a switch, a tick): following phones show ``link``."""
        with self._transaction() as tx:
            state = self._teacher(tx, code, secret, None)
            if link[:2000] != state.link:
                self._change(tx, state.code, "link = ?", (link[:2000],))
                state = self._read(tx, state.code, self.clock())
            return state

    def pace(self, code: str, secret: str, pacing: str) -> ClassState:
        if pacing not in PACING:
            raise ClassError("bad-pacing", f"Pacing is one of {', '.join(PACING)}, not {pacing!r}.")
        return self._teach(code, secret, "pacing = ?", (pacing,))

    def recall_all(self, code: str, secret: str) -> ClassState:
        """Bring every phone back to the teacher's page (and have them follow it again)."""
        return self._teach(code, secret, "pacing = 'follow', recall = recall + 1")

    def pause(self, code: str, secret: str, paused: bool) -> ClassState:
        """Blank every phone ("eyes on the screen"), or bring them back."""
        return self._teach(code, secret, "paused = ?", (int(bool(paused)),))

    # --- students ------------------------------------------------------------------------------------

    def join(self, code: str, student: str, now: float | None = None, address: str = "") -> ClassState:
        """A phone joins (again: the same student is counted once). ``address``: where it came from, so
        that one client cannot fill the class (``per_address``); it is kept only to count."""
        now = self.clock() if now is None else now
        student = normal_student(student)
        with self._transaction() as tx:
            state = self._read(tx, code, now, lock=True)
            if tx.rows("SELECT 1 FROM members WHERE code = ? AND student = ?", (state.code, student)):
                return state
            if state.joined >= MAX_MEMBERS:
                raise ClassError("full", f"Class {state.code} is full ({MAX_MEMBERS} have joined).")
            (same,) = tx.rows(
                "SELECT COUNT(*) FROM members WHERE code = ? AND address = ?", (state.code, address)
            )[0]
            if address and same >= per_address():
                raise ClassError(
                    "too-many-here",
                    f"{same} phones have joined class {state.code} from this network already; ask the "
                    "teacher to let more in (CLASS_PER_ADDRESS).",
                )
            tx.run(
                "INSERT INTO members (code, student, joined, address) VALUES (?, ?, ?, ?)",
                (state.code, student, now, address),
            )
            self._notify(tx, state.code, "joined")
            return replace(state, joined=state.joined + 1)

    # --- questions -------------------------------------------------------------------------------------

    def open_round(self, code: str, secret: str, step: int, now: float | None = None) -> int:
        """Ask tour step ``step``'s question: a new round of it (the first, or one after discussion);
        any round still open is closed. Returns the round's number (each question counts its own)."""
        now = self.clock() if now is None else now
        with self._transaction() as tx:
            code = self._teacher(tx, code, secret, now).code  # the key is checked before anything is written
            tx.run("UPDATE rounds SET closed = ? WHERE code = ? AND closed IS NULL", (now, code))
            (last,) = tx.rows(
                "SELECT COALESCE(MAX(round), 0) FROM rounds WHERE code = ? AND step = ?", (code, step)
            )[0]
            number = last + 1
            tx.run(
                "INSERT INTO rounds (code, step, round, opened) VALUES (?, ?, ?, ?)",
                (code, step, number, now),
            )
            self._change(tx, code, "question = ?, round = ?", (step, number))
            return number

    def close_round(self, code: str, secret: str, now: float | None = None) -> ClassState:
        """No more answers to the round asked now (they can be discussed, revealed or asked again)."""
        now = self.clock() if now is None else now
        with self._transaction() as tx:
            state = self._teacher(tx, code, secret, now)
            self._close(tx, state, now)
            return self._read(tx, state.code, now)

    def _close(self, tx: _Transaction, state: ClassState, now: float) -> None:
        tx.run(
            "UPDATE rounds SET closed = ? WHERE code = ? AND step = ? AND round = ? AND closed IS NULL",
            (now, state.code, state.question, state.round),
        )
        self._change(tx, state.code)

    def reveal(self, code: str, secret: str, now: float | None = None) -> ClassState:
        """Show which answer is right, and why, on every phone: the round asked now closes first, and
        that same round is the one revealed."""
        now = self.clock() if now is None else now
        with self._transaction() as tx:
            state = self._teacher(tx, code, secret, now)
            if state.question is None:
                raise ClassError("no-question", "No question has been asked yet.")
            self._close(tx, state, now)
            tx.run(
                "UPDATE rounds SET revealed = 1 WHERE code = ? AND step = ? AND round = ?",
                (state.code, state.question, state.round),
            )
            return self._read(tx, state.code, now)

    def answer(self, code: str, student: str, step: int, round_: int, choice: object, choices: int,
               now: float | None = None) -> str:  # fmt: skip
        """A student's answer to the round asked now, committed before this returns (the phone is told it
        is in only then). Sent again, it is the same row; changed while the round is open, the row says
        the new choice. ``choices``: how many answers the question has. Returns the choice recorded, in
        its one form (``canonical_choice``)."""
        now = self.clock() if now is None else now
        student = normal_student(student)
        choice = canonical_choice(choice, choices)
        with self._transaction() as tx:
            state = self._read(tx, code, now, lock=True)  # a close waits for this, or this for it
            code = state.code
            if not tx.rows("SELECT 1 FROM members WHERE code = ? AND student = ?", (code, student)):
                raise ClassError("not-joined", "Join the class before answering.")
            if (state.question, state.round) != (step, round_) or not state.open:
                raise ClassError("not-open", "That question is not open now: its round has closed.")
            before = tx.rows(
                "SELECT choice, at FROM answers WHERE code = ? AND student = ? AND step = ? AND round = ?",
                (code, student, step, round_),
            )
            if before and before[0][0] == choice:
                return choice  # a resend: already in, nothing to write
            if before and now - before[0][1] < MIN_SECONDS_BETWEEN_CHANGES:
                raise ClassError("too-fast", "Answers are changing too fast; wait a moment.")
            tx.run(
                "INSERT INTO answers (code, student, step, round, choice, at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (code, student, step, round) "
                "DO UPDATE SET choice = excluded.choice, at = excluded.at",
                (code, student, step, round_, choice, now),
            )
            self._notify(tx, code, f"answered {student} {step} {round_} {choice}")
            return choice

    def my_answer(self, code: str, student: str, step: int, round_: int) -> str | None:
        with self._transaction() as tx:
            found = tx.rows(
                "SELECT choice FROM answers WHERE code = ? AND student = ? AND step = ? AND round = ?",
                (normal_code(code), normal_student(student), step, round_),
            )
        return found[0][0] if found else None

    def counts(self, code: str, step: int) -> dict[int, dict[str, int]]:
        """How many chose each answer of tour step ``step``, round by round (every round opened, even
        one nobody answered)."""
        return self.all_counts(code).get(step, {})

    def all_counts(self, code: str) -> dict[int, dict[int, dict[str, int]]]:
        """``counts`` of every question asked, by step, in one transaction."""
        code = normal_code(code)
        with self._transaction() as tx:
            rounds = tx.rows("SELECT step, round FROM rounds WHERE code = ? ORDER BY step, round", (code,))
            answered = tx.rows(
                "SELECT step, round, choice, COUNT(*) FROM answers WHERE code = ? "
                "GROUP BY step, round, choice",
                (code,),
            )
        found: dict[int, dict[int, dict[str, int]]] = {}
        for step, round_ in rounds:
            found.setdefault(step, {})[round_] = {}
        for step, round_, choice, n in answered:
            found.setdefault(step, {}).setdefault(round_, {})[choice] = n
        return found

    def moves(
        self, code: str, step: int, before: int, after: int
    ) -> dict[tuple[str | None, str | None], int]:
        """How the room's answers moved between two rounds of ``step``: (choice before, choice after) →
        how many students, ``None`` where one did not answer that round. Peer Instruction's measure."""
        code = normal_code(code)
        with self._transaction() as tx:
            rows = tx.rows(
                "SELECT student, round, choice FROM answers WHERE code = ? AND step = ? AND round IN (?, ?)",
                (code, step, before, after),
            )
        chosen: dict[str, dict[int, str]] = {}
        for student, round_, choice in rows:
            chosen.setdefault(student, {})[round_] = choice
        found: dict[tuple[str | None, str | None], int] = {}
        for rounds in chosen.values():
            pair = (rounds.get(before), rounds.get(after))
            found[pair] = found.get(pair, 0) + 1
        return found

    def owns(self, code: str, secret: str) -> str:
        """The class's code if ``secret`` is its teacher's (what an export checks), else ClassError."""
        with self._transaction() as tx:
            return self._teacher(tx, code, secret, None).code

    def forget_expired(self, now: float | None = None) -> int:
        """Delete every class that has expired, with all it recorded. Returns how many went."""
        now = self.clock() if now is None else now
        with self._transaction() as tx:
            gone = [code for (code,) in tx.rows("SELECT code FROM classes WHERE expires <= ?", (now,))]
            for code in gone:
                self._delete(tx, code)
        return len(gone)

    def _delete(self, tx: _Transaction, code: str) -> None:
        for table in ("answers", "rounds", "members", "classes"):
            tx.run(f"DELETE FROM {table} WHERE code = ?", (code,))
        self._notify(tx, code, "state")


def normal_code(code: str) -> str:
    """A code as typed on a phone: any case, spaces ignored."""
    return "".join(str(code).split()).upper()[:16]


def normal_student(student: object) -> str:
    """A phone's random id (made in its browser), refused if it could be anything else."""
    if not (
        isinstance(student, str)
        and 8 <= len(student) <= 64
        and student.isascii()
        and student.replace("-", "").isalnum()
    ):
        raise ClassError("bad-student", "This browser's class id is not one the page made.")
    return student
