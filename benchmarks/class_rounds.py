"""Class mode's figures (issue 46), printed beside their aims; nothing is asserted.

    .venv/bin/python benchmarks/class_rounds.py [--students 100] [--phones 300] [--postgres] [--repeat 5]

One server process's Python work, in one thread as Bokeh runs it: every phone and the teacher are the
served page's own ``ClassPanel``s, each polling the class every 500 ms (their phases spread as real
phones' are), over the class's database (SQLite in a temporary folder; ``--postgres``: a throwaway
PostgreSQL, and the students split between two processes). The websocket and the browsers' drawing are
not in these figures (tests/browser/test_class_mode.py drives real pages); what is: the database, the
polls, a phone taking the teacher's tick.

1. ``--students`` answer within 5 s: how long after the last answer the teacher's counts are complete
   (aim: within 1 s at the 95th percentile), and how many answers were lost or doubled (aim: 0).
2. ``--phones`` joined: the teacher steps a tick; how long until every phone shows it (aim: 2 s).
3. With ``--postgres``, the students split between two processes: the teacher's counts against one
   process's.
"""

from __future__ import annotations

import argparse
import heapq
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

POLL = 0.5


class Phone:
    """A served page's state without its drawing: what a ClassPanel needs of its app."""

    def __init__(self) -> None:
        from app.state import ReaderState

        self.state = ReaderState()

    def apply_url(self, search: str) -> None:
        self.state.apply_query(search)


def steps():
    from app.tour import steps as tour_steps

    return tour_steps()


def panel(link):
    from app.views.classroom import ClassPanel

    return ClassPanel(Phone(), link)


def run_until(events: list, stop, limit: float = 60) -> None:
    """Run (time, n, call) events in time order, in real time, until ``stop()`` (or ``limit`` seconds)."""
    start = time.perf_counter()
    while events and not stop() and time.perf_counter() - start < limit:
        due, _, call = heapq.heappop(events)
        wait = start + due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        again = call()
        if again is not None:
            heapq.heappush(events, (due + again, id(call) + random.random(), call))


def answers_round(students: int, seed: int, window: float = 5.0) -> tuple[float, int, int]:
    """Students answer within ``window`` seconds; seconds from the last answer to complete counts, and
    how many answers were lost and doubled."""
    from app.views.classroom import ClassLink

    rng = random.Random(seed)
    teacher = panel(ClassLink("teacher", "new"))
    teacher.app.state.go_to_step(2)
    phones = [panel(ClassLink("student", teacher.code)) for _ in range(students)]
    for n, phone in enumerate(phones):
        phone._hello(f"bench-{seed}-{n:06d}")
    teacher._act("open", "2")
    for phone in phones:
        phone.poll()
    sent = {}
    events = []
    choices = len(steps()[1].answers)
    for n, phone in enumerate(phones):
        choice = str(rng.randrange(choices))

        def send(phone=phone, choice=choice, n=n):
            phone._act("answer", choice)
            sent[n] = time.perf_counter()

        heapq.heappush(events, (rng.uniform(0, window), n, send))
    complete = {}

    def teacher_poll():
        teacher.poll()
        counted = sum(teacher.store.counts(teacher.code, 2).get(1, {}).values())
        if counted == students and "at" not in complete:
            complete["at"] = time.perf_counter()
        return POLL

    heapq.heappush(events, (rng.uniform(0, POLL), -1, teacher_poll))
    run_until(events, lambda: "at" in complete, limit=window + 30)
    counted = sum(teacher.store.counts(teacher.code, 2).get(1, {}).values())
    lost = max(0, len(sent) - counted)
    doubled = max(0, counted - len(sent))
    return complete.get("at", float("inf")) - max(sent.values()), lost, doubled


def follow_tick(phones_n: int, seed: int) -> float:
    """Seconds from the teacher's step until every phone shows the new tick."""
    from app.views.classroom import ClassLink

    rng = random.Random(seed)
    teacher = panel(ClassLink("teacher", "new"))
    phones = [panel(ClassLink("student", teacher.code)) for _ in range(phones_n)]
    for n, phone in enumerate(phones):
        phone._hello(f"follow-{seed}-{n:06d}")
    for phone in phones:
        phone.poll()
    target = teacher.app.state.tick + 1
    started = time.perf_counter()
    teacher.app.state.go(target)  # published as the teacher's page moves
    behind = set(range(phones_n))
    events = []
    for n, phone in enumerate(phones):

        def poll(phone=phone, n=n):
            phone.poll()
            if phone.app.state.tick == target:
                behind.discard(n)
                return None
            return POLL

        heapq.heappush(events, (rng.uniform(0, POLL), n, poll))
    run_until(events, lambda: not behind)
    return time.perf_counter() - started


def _half(args) -> int:
    """One process's half of a class (PostgreSQL): its students join and answer; returns how many."""
    url, code, first, count = args
    os.environ["CLASS_DB"] = url
    from app.views.classroom import ClassLink

    phones = [panel(ClassLink("student", code)) for _ in range(count)]
    for n, phone in enumerate(phones):
        phone._hello(f"split-{first + n:06d}")
        phone.poll()
        phone._act("answer", str((first + n) % len(steps()[1].answers)))
    return count


def two_processes(url: str, students: int) -> tuple[dict, dict]:
    """The students split between two processes and all in one: the teacher's counts of each."""
    from app.views.classroom import ClassLink

    counts = []
    for split in (True, False):
        teacher = panel(ClassLink("teacher", "new"))
        teacher.app.state.go_to_step(2)
        teacher._act("open", "2")
        halves = [
            (url, teacher.code, 0, students // 2),
            (url, teacher.code, students // 2, students - students // 2),
        ]
        if split:
            with multiprocessing.get_context("spawn").Pool(2) as pool:
                pool.map(_half, halves)
        else:
            for half in halves:
                _half(half)
        counts.append(teacher.store.counts(teacher.code, 2)[1])
    return counts[0], counts[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=100, choices=range(1, 1001), metavar="1..1000")
    parser.add_argument("--phones", type=int, default=300, choices=range(1, 1001), metavar="1..1000")
    parser.add_argument("--repeat", type=int, default=5, choices=range(1, 51), metavar="1..50")
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL, two processes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if args.postgres:
            from engines.postgres import Postgres

            server = Postgres().__enter__()
            os.environ["CLASS_DB"] = server.url("postgres")
        else:
            server = None
            os.environ["CLASS_DB"] = str(Path(folder) / "classes.sqlite3")
        try:
            report(args)
        finally:
            if server is not None:
                server.__exit__(None, None, None)


def report(args) -> None:
    where = "PostgreSQL" if args.postgres else "SQLite (WAL)"
    print(f"class mode on {where}, one server process's Python work, {args.repeat} runs")
    delays, lost, doubled = [], 0, 0
    for n in range(args.repeat):
        delay, lost_now, doubled_now = answers_round(args.students, n)
        delays.append(delay)
        lost, doubled = lost + lost_now, doubled + doubled_now
    p95 = sorted(delays)[max(0, round(0.95 * len(delays)) - 1)]
    print(
        f"{args.students} answers within 5 s: counts complete {statistics.median(delays):.2f} s after the "
        f"last answer (median), {p95:.2f} s (p95; aim 1 s); lost {lost}, doubled {doubled} (aim 0)"
    )
    follows = [follow_tick(args.phones, n) for n in range(args.repeat)]
    print(
        f"{args.phones} phones: every one shows the teacher's next tick in "
        f"{statistics.median(follows):.2f} s (median), {max(follows):.2f} s (slowest; aim 2 s)"
    )
    if args.postgres:
        split, one = two_processes(os.environ["CLASS_DB"], args.students)
        print(
            f"{args.students} answers from two processes: {dict(sorted(split.items()))}; from one: "
            f"{dict(sorted(one.items()))} ({'the same' if split == one else 'DIFFERENT'})"
        )


if __name__ == "__main__":
    main()
