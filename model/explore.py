"""The schedule explorer: every protection setting against every schedule of a finite space.

The 864 runs fix one schedule. Here the schedule varies too: ``SPACE`` lists the values each schedule
field takes, ``schedules()`` enumerates them (a schedule without a silence has no silence length, so it
is counted once), and every protection setting (``protection_settings()``: fencing, checkpoints, pins,
newsletter rule and post key, with the values beyond the article) is run against each of them. The
events of the 864 (``silent``, ``change``, ``poster``) are schedule values here, so the switches keep
their main-trace events and the schedule replaces them.

For each protection setting and each invariant the explorer counts the schedules that break it and keeps
the smallest counterexample: the fewest ticks (the run's length), then the fewest faults
(``Schedule.faults``), then the earliest breach, then the fewest values changed from the article's
schedule (the case nearest the story), then the first in enumeration order (so the answer is the same on
any number of workers). Each comes with the command line and the page link that replay it.

How: by default, every schedule of a setting in one graph walk (``model.graph``): the runs move
together, fork where their schedules disagree and merge where their worlds meet again; ``exhaustive``
runs each schedule from t0 instead, and gives the same bytes.

Work is split by protection setting (``explore_setting`` is a pure function of plain data), so it runs
the same in one process, on every core through ``concurrent.futures``, or on a Dask cluster; results are
put back in setting order, so the output is identical whichever ran it.

A larger space (longer silences, another attempt silent, more thresholds) is a ``space`` argument, or
``--range`` on the command line (``parse_range``: ``--range silent_for=1-20,never``, once per field);
settings spread over a cluster's workers as they do over local cores (``python3 -m model explore
--scheduler tcp://host:8786``, this package installed on every worker). The walk's memory grows faster
than the space: a node's set of schedules is a bitmask as long as the space, and more of the schedules
end apart (each leaf is handed to the tally as it is found, so the leaves are not held). Measured: one
setting of the default space (5,184 schedules) walks in about 0.7 s against 1.1 s rerun, in tens of MB
(``benchmarks/explore_bench.py``); with 53,280 schedules (silences up to 20 ticks, corrections up to t20)
the command line's run for one held setting took 23 s in 150 MB walked and 30 s in 31 MB rerun. So on
a cluster with a space far larger still, ``--exhaustive`` trades a little speed for memory that stays
flat.
"""

from __future__ import annotations

import ast
import hashlib
import io
import itertools
import os
import tokenize
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache, partial
from pathlib import Path

from .graph import Leaf, Space, walk
from .invariants import INVARIANT_IDS, shown_invariants
from .schedule import (
    ARTICLE,
    FIELD_BY_ID,
    FIELDS,
    SILENT_POINTS,
    PosterDeath,
    Schedule,
    ScheduleError,
    parse,
    text_of,
)
from .simulation import collector_paused, run
from .switches import MAIN_TRACE, SETTING_BY_ID, Role, SwitchError, Switches, ids_of, parse_value, quoted

#: The values each schedule field takes in the exhaustive space. The article's own values are among them;
#: the unbounded search (tests/model/test_explore.py) draws from the full ranges instead.
SPACE: dict[str, tuple] = {
    "silent_attempt": (1,),
    "silent_at": SILENT_POINTS,
    "silent_for": (1, 2, 3, 5, None),
    "threshold": (1, 2, 3),
    "correction_at": (None, 2, 3, 4, 6, 8, 10, 12),
    "poster_death": tuple(PosterDeath),
    "successor_stall": (0, 2),
}
#: Wider ranges a reader can search on demand (the Explore view), each field's choices in words; the
#: first is the default space's. The widest combination is six and a half times the default space, some
#: seconds for one setting (the Explore view says how many schedules before it starts).
WIDER: dict[str, dict[str, tuple]] = {
    "silent_for": {
        "1, 2, 3 or 5 ticks, or never": SPACE["silent_for"],
        "1 to 10 ticks, or never": (*range(1, 11), None),
    },
    "correction_at": {
        "never, or t2 to t12": SPACE["correction_at"],
        "never, or t2 to t20": (None, 2, 3, 4, *range(6, 21, 2)),
    },
    "silent_attempt": {
        "#1": SPACE["silent_attempt"],
        "#1 or #2": (1, 2),
    },
}


def space_with(choices: Mapping[str, str]) -> dict[str, tuple]:
    """The default space with some fields' ranges widened: ``{"silent_for": "1 to 10 ticks, or never"}``
    (``WIDER`` lists the choices). Anything else raises SwitchError naming what is allowed."""
    space = dict(SPACE)
    for field_id, choice in choices.items():
        if field_id not in WIDER:
            widened = ", ".join(WIDER)
            raise SwitchError(f"the ranges that can be widened are {widened}; got {quoted(field_id)}")
        if choice not in WIDER[field_id]:
            allowed = "; ".join(WIDER[field_id])
            raise SwitchError(f"{field_id} ranges are: {allowed}; got {quoted(choice)}")
        space[field_id] = WIDER[field_id][choice]
    return space


def parse_range(text: str) -> tuple[str, tuple]:
    """``"silent_for=1-10,never"`` to ``("silent_for", (1, 2, …, 10, None))``: the values a schedule field
    takes in a space, as the command line's ``--range`` gives them (whole numbers, spans ``low-high``,
    ``never``, the named points; each value as ``trace``'s schedule flags take it, repeats dropped), or
    ScheduleError naming the allowed ids or values."""
    field_id, sep, values = text.partition("=")
    field_id = field_id.strip().replace("-", "_")
    if not sep or field_id not in FIELD_BY_ID:
        raise ScheduleError(
            f"a range is id=value,... with id one of {', '.join(FIELD_BY_ID)}; got {quoted(text)}"
        )
    found: list = []
    for item in filter(None, (value.strip() for value in values.split(","))):
        low, dash, high = item.partition("-")
        if dash and low.isdigit() and high.isdigit():  # a span (a point's name may hold a dash too)
            first, last = parse(field_id, low), parse(field_id, high)
            if first > last:
                raise ScheduleError(f"{field_id}: a span runs from low to high; got {quoted(item)}")
            span: Iterable = range(first, last + 1)
        else:
            span = (parse(field_id, item),)
        found.extend(value for value in span if value not in found)
    if not found:
        raise ScheduleError(f"{field_id} needs at least one value: {FIELD_BY_ID[field_id].allowed()}")
    return field_id, tuple(found)


PROTECTIONS: tuple[str, ...] = ids_of(Role.PROTECTION)
ADVANCED: tuple[str, ...] = ids_of(Role.ADVANCED)  # held at a value with --protections, never varied

#: Not an invariant (nothing unsafe happened) but worth a counterexample too: the run ends without a
#: digest of the final report accepted and announced. Its "breach tick" is the run's last tick.
UNFINISHED = "unfinished"
UNFINISHED_MEANING = (
    "the run ended without a digest of the final report accepted and its announcement confirmed"
)

#: The headline's protections: the article's four (the checkpoint mode may be anything).
ALL_FOUR_ON = {"fencing": "on", "pins": "on", "post_key": "per-operation", "newsletter": "current-accepted"}


def schedules(space: Mapping[str, tuple] = SPACE) -> Iterator[Schedule]:
    """Every schedule of the space, in a fixed order (fields in declared order, values as listed)."""
    values = [space[f.id] for f in FIELDS]
    for combination in itertools.product(*values):
        fields = dict(zip((f.id for f in FIELDS), combination, strict=True))
        if fields["silent_at"] == "none" and fields["silent_for"] != _length_without_silence(space):
            continue  # without a silence its length means nothing: count such a schedule once
        yield Schedule(**fields)


def schedule_list(space: Mapping[str, tuple] = SPACE) -> tuple[Schedule, ...]:
    """``schedules(space)`` as a tuple, made once per process and space (a worker explores many settings,
    and a space arrives in each worker as a copy, so it is known by its content)."""
    return _schedule_list(_frozen(space))


def _frozen(space: Mapping[str, tuple]) -> tuple[tuple[str, tuple], ...]:
    """A space as a hashable value, for the caches below (a space arrives in each worker as a copy, so it is
    known by its content)."""
    return tuple((k, tuple(v)) for k, v in space.items())


@cache
def _schedule_list(space: tuple[tuple[str, tuple], ...]) -> tuple[Schedule, ...]:
    return tuple(schedules(dict(space)))


def _changes(schedule: Schedule) -> int:
    """How many values differ from the article's schedule (fewer: a case nearer the story, easier to read)."""
    return len(schedule.differences(ARTICLE))


def _length_without_silence(space: Mapping[str, tuple]) -> int | None:
    """The one silence length a schedule without a silence is counted with: the article's, if listed."""
    lengths = space["silent_for"]
    return ARTICLE.silent_for if ARTICLE.silent_for in lengths else lengths[0]


def parse_protections(text: str) -> dict[str, str]:
    """``"fencing=on,pins=off"`` to ``{"fencing": "on", "pins": "off"}``, or SwitchError naming the
    allowed protections and values."""
    fixed: dict[str, str] = {}
    allowed = (*PROTECTIONS, *ADVANCED)
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or key not in allowed:
            raise SwitchError(
                f"each protection is id=value with id one of {', '.join(allowed)}; got {quoted(item)}"
            )
        if key in fixed:
            raise SwitchError(f"{key} is given more than once; give each protection once")
        fixed[key] = parse_value(key, value.strip()).value
    return fixed


def protection_settings(fixed: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """Every protection setting (every value, beyond the article's too), with ``fixed`` ones held."""
    fixed = dict(fixed or {})
    axes = [
        (fixed[k],) if k in fixed else tuple(m.value for m in SETTING_BY_ID[k].values) for k in PROTECTIONS
    ]
    extra = {k: fixed[k] for k in ADVANCED if k in fixed}
    return [dict(zip(PROTECTIONS, values, strict=True)) | extra for values in itertools.product(*axes)]


def replay(protections: Mapping[str, str], schedule: Schedule) -> dict:
    """How to see a run again: the command line's flags and the page's query string."""
    values = {k: v for k, v in protections.items() if getattr(MAIN_TRACE, k).value != v}
    values |= schedule.differences(ARTICLE)
    flags = [f"--{k.replace('_', '-')} {v}" for k, v in values.items()]
    return {
        "command": " ".join(["python3 -m model trace", *flags]),
        "query": "?" + "&".join(f"{k}={v}" for k, v in values.items()),
    }


#: How often a search says how far it has come: each time another this many parts of its schedules ended.
PROGRESS_STEPS = 50

#: Told how far a search has come: (schedules whose runs have ended, schedules in all).
Progress = Callable[[int, int], None]


def explore_setting(
    protections: Mapping[str, str],
    space: Mapping[str, tuple] = SPACE,
    exhaustive: bool = False,
    progress: Progress | None = None,
) -> dict:
    """Run one protection setting against every schedule of the space. Plain data in and out.

    By default the schedules move together through one graph walk (``model.graph``); ``exhaustive``
    runs each schedule from t0 instead. Both give the same endings per schedule, so the same row.
    ``progress``, if given, is told the schedules ended so far about ``PROGRESS_STEPS`` times, the
    last time with all of them: a reader waiting on a wide search sees it move."""
    switches = Switches(**protections)
    if exhaustive:
        return _tally(protections, _one_by_one(switches, schedule_list(space)), space, progress)
    with collector_paused():  # a walk keeps every world it froze: nothing for the collector to find
        return _tally(protections, walk(switches, graph_space(space)), space, progress)


def graph_space(space: Mapping[str, tuple] = SPACE) -> Space:
    """The space's schedules as bits (``model.graph``), made once per process and space."""
    return _graph_space(_frozen(space))


@cache
def _graph_space(space: tuple[tuple[str, tuple], ...]) -> Space:
    return Space(_schedule_list(space))


def _one_by_one(switches: Switches, schedules: Iterable[Schedule]) -> Iterator[Leaf]:
    """Each schedule's run from t0, as an ending of its own."""
    for number, schedule in enumerate(schedules):
        result = run(switches, recording=False, schedule=schedule)
        yield Leaf.of(1 << number, result.world)


def _tally(
    protections: Mapping[str, str],
    endings: Iterable[Leaf],
    space: Mapping[str, tuple],
    progress: Progress | None = None,
) -> dict:
    """Count, per invariant (and for not finishing), the schedules whose runs broke it, and keep the
    smallest case by the module's measure; tell ``progress`` how far it has come."""
    shown = shown_invariants(Switches(**protections))  # the sixth only where a step can break it alone
    broken = {i: 0 for i in (*shown, UNFINISHED)}
    smallest: dict[str, tuple] = {}
    runs = 0
    schedule_of, nearest = schedule_list(space), _nearest(space)
    total = len(schedule_of)
    told = 0  # the steps of PROGRESS_STEPS told so far

    def keep(what: str, count: int, key: tuple, detail: str) -> None:
        broken[what] += count
        if what not in smallest or key < smallest[what][0]:
            smallest[what] = (key, schedule_of[key[-1]], detail)

    for ending in endings:
        count = ending.schedules.bit_count()
        runs += count
        ticks = ending.end_tick + 1
        faults, changes, number = nearest(ending.schedules)
        for invariant, breach in ending.first.items():
            if invariant in broken:
                keep(invariant, count, (ticks, faults, breach.tick, changes, number), breach.detail)
        if not ending.finished:
            keep(UNFINISHED, count, (ticks, faults, ending.end_tick, changes, number), UNFINISHED_MEANING)
        if progress is not None and runs * PROGRESS_STEPS // total > told:
            told = runs * PROGRESS_STEPS // total
            progress(runs, total)
    cases = {}
    for what, ((ticks, faults, tick, *_), schedule, detail) in smallest.items():
        cases[what] = {
            "ticks": ticks,
            "faults": faults,
            "breach_tick": tick,
            "breach": detail,
            "schedule": schedule.to_dict(),
            "schedule_words": schedule.words(),
            **replay(protections, schedule),
        }
    return {
        "protections": dict(protections),
        "runs": runs,
        "finished": runs - broken[UNFINISHED],
        "broken": broken,
        "smallest": {i: cases[i] for i in broken if i in cases},
    }


def _nearest(space: Mapping[str, tuple]) -> Callable[[int], tuple[int, int, int]]:
    """For a set of the space's schedules (a mask), the one the measure prefers when their runs ended
    alike: the fewest faults, then the fewest changes from the article's schedule, then the first; as
    ``(faults, changes, number)``."""
    return _nearest_in(_frozen(space))


@cache
def _nearest_in(space: tuple[tuple[str, tuple], ...]) -> Callable[[int], tuple[int, int, int]]:
    classes: dict[tuple[int, int], int] = {}
    for number, schedule in enumerate(_schedule_list(space)):
        measure = (schedule.faults(), _changes(schedule))
        classes[measure] = classes.get(measure, 0) | 1 << number
    ordered = sorted(classes.items())

    def nearest(schedules: int) -> tuple[int, int, int]:
        for (faults, changes), members in ordered:
            if found := schedules & members:
                return faults, changes, (found & -found).bit_length() - 1
        raise ValueError("an empty set of schedules has no nearest one")

    return nearest


# --- running it --------------------------------------------------------------------------------------

Mapper = Callable[[Callable, list], Iterable]


#: Worker processes per core at most: more only queue for the same cores, each holding tens of MB.
WORKERS_PER_CORE = 4


def worker_count(asked: int | None, tasks: int, cores: int | None = None) -> tuple[int, str | None]:
    """How many worker processes to start for ``tasks`` settings when ``asked`` for (None: one a core),
    and a notice when the ceiling of ``WORKERS_PER_CORE`` a core cut the number asked for. Never more
    workers than tasks: an idle worker is only memory."""
    cores = cores or os.cpu_count() or 1
    ceiling = WORKERS_PER_CORE * cores
    wanted = asked or cores
    notice = None
    if wanted > ceiling:
        notice = (
            f"using {ceiling} worker processes, not {wanted}: at most {WORKERS_PER_CORE} a core"
            f" on this machine's {cores}"
        )
        wanted = ceiling
    return max(1, min(wanted, tasks)), notice


def local_mapper(workers: int | None = None) -> tuple[Mapper, Callable[[], None]]:
    """Map over every core with a process pool (one process: no pool at all). Each worker ends when its
    parent does, killed or not; closing cancels what has not started, so an interrupted run stops after
    the settings in hand instead of playing the rest. The workers start from a forkserver, which runs
    the calling script's top level again in each: a script that calls this keeps its own work under
    ``if __name__ == "__main__":``, as Python asks of every start method but fork."""
    workers = workers or os.cpu_count() or 1
    if workers == 1:
        return (lambda fn, items: map(fn, items)), (lambda: None)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Workers come from a forkserver, a small single-threaded process started afresh, never by forking
    # this one: a command or a test run may hold threads (a pool's own, a server's), and a fork copies
    # whatever lock another thread held at that moment. The server imports the model once, so each
    # worker starts with it loaded, as a fork would.
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    _quiet_resource_tracker()
    # Each worker holds the reading end of a pipe only this process writes to: when this process ends,
    # however it ends, the worker reads the end of the pipe and ends too.
    lifeline, held = context.Pipe(duplex=False)
    pool = ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_end_with_parent, initargs=(lifeline,)
    )

    def close() -> None:
        pool.shutdown(cancel_futures=True)
        lifeline.close()
        held.close()

    return (lambda fn, items: pool.map(fn, items, chunksize=1)), close


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker, which removes the pool's named semaphores once nobody
    holds them, without its warning that it did. The command ends at once on SIGTERM (``model.cli``),
    before the pool can remove them itself; the tracker still does, and its warning would be a second
    line after the one the command prints. Its warnings filters are read from this process's options
    when it starts, once for the life of the process."""
    import sys
    from multiprocessing import resource_tracker

    quiet = "ignore:resource_tracker:UserWarning"
    sys.warnoptions.append(quiet)
    try:
        resource_tracker.ensure_running()
    finally:
        sys.warnoptions.remove(quiet)


def _end_with_parent(lifeline) -> None:
    """In a worker: end the moment the process that made the pool is gone. A killed parent cannot shut
    its pool down, and an orphaned worker would sleep on for ever holding the parent's output pipes
    open (so whatever reads that output to the end would hang). Its parent id cannot tell: a worker's
    parent is the forkserver, which lives as long as any worker holds it open. A pipe's end can."""
    import signal
    import threading

    # Ctrl-C reaches the whole process group: the parent stops the run and closes the pool, so a worker
    # need not die mid-task printing a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # So does SIGTERM (`timeout` signals the whole group). Were a worker to keep a handler that raises, as
    # the command line's does to unwind the parent, raised in a worker it could land inside the pool's queue
    # code holding the queue's lock, and the explorer then waited for good on the worker blocked behind
    # it. Ended instead, a worker breaks the pool under the parent's shutdown, which then raises in the
    # pool's own thread. The parent, signalled, closes the pool; a parent killed outright, the watch below.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def watch() -> None:
        try:
            lifeline.recv_bytes()  # nothing is ever sent: this returns only at the end of the pipe
        except EOFError:
            pass
        os._exit(1)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def dask_mapper(
    address: str, on_wait: Callable[[], None] = lambda: None
) -> tuple[Mapper, Callable[[], None]]:
    """Map on a Dask cluster (``dask.distributed``) at ``address``; its workers need this package. A
    cluster with no worker yet is waited for, after ``on_wait`` says so."""
    from distributed import Client

    client = Client(address, timeout="10s")  # long enough to connect, short enough to say it failed
    if not client.scheduler_info().get("workers"):
        on_wait()
        client.wait_for_workers(1)

    def mapper(fn, items):
        futures = client.map(fn, items, pure=False)
        return client.gather(futures)

    return mapper, client.close


def explore(
    fixed: Mapping[str, str] | None = None,
    space: Mapping[str, tuple] = SPACE,
    mapper: Mapper | None = None,
    exhaustive: bool = False,
    progress: Progress | None = None,
) -> dict:
    """Explore every protection setting (``fixed`` ones held) against the space; results in setting
    order, with the space's size and the headline. ``exhaustive`` runs every schedule from t0 rather
    than walking the graph; the result is the same. ``progress``, if given, is told the settings done
    and in all as each one's row arrives."""
    settings = protection_settings(fixed)
    mapper = mapper or (lambda fn, items: map(fn, items))
    one_setting = partial(explore_setting, space=space, exhaustive=exhaustive)
    rows = []
    for row in mapper(one_setting, settings):
        rows.append(row)
        if progress is not None:
            progress(len(rows), len(settings))
    result = {
        "model": source_digest(),
        "space": {k: [text_of(v) for v in values] for k, values in space.items()},
        "schedules": len(schedule_list(space)),
        "settings": len(settings),
        "runs": sum(r["runs"] for r in rows),
        "headline": headline(rows),
        "rows": rows,
    }
    # What the completed controller rules are for: the headline's settings again, under the rules as
    # first written (unless the reader holds the rules, or the headline's protections, at other values).
    literal = [s | {"controller": "literal"} for s in settings if _headline_setting(s)]
    if literal and "controller" not in (fixed or {}):
        result["literal_rules"] = headline(list(mapper(one_setting, literal)))
    return result


def _headline_setting(protections: Mapping[str, str]) -> bool:
    return all(protections.get(k) == v for k, v in ALL_FOUR_ON.items())


def source_digest() -> str:
    """A digest of what the model's source files do: precomputed results are valid only for the model
    that computed them (the app checks this before it shows a file the build wrote). Comments and
    docstrings are left out (``code_of``), so rewording them keeps results valid; any change to code,
    down to its layout, does not."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        code = code_of(path.read_text(encoding="utf-8"))
        digest.update(path.name.encode() + b"\0" + code.encode())
    return digest.hexdigest()[:16]


def code_of(source: str) -> str:
    """Python source without its comments, its docstrings and its blank lines.

    A docstring is left out only where it stands on lines of its own; one that shares a line with code
    is kept, which can only make the digest stricter. Read with ``tokenize`` and ``ast``, whose positions
    are the same on every Python this model supports, so the digest is too."""
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, column = token.start
            lines[row - 1] = lines[row - 1][:column]
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body or not isinstance(body[0], ast.Expr):
            continue
        first = body[0]
        said = first.value
        if not (isinstance(said, ast.Constant) and isinstance(said.value, str)):
            continue
        # ast's columns count UTF-8 bytes
        opening, closing = lines[first.lineno - 1].encode(), lines[first.end_lineno - 1].encode()
        if not opening[: first.col_offset].strip() and not closing[first.end_col_offset :].strip():
            docstrings.update(range(first.lineno - 1, first.end_lineno))
    kept = (line.rstrip() for number, line in enumerate(lines) if number not in docstrings)
    return "\n".join(line for line in kept if line)


def smallest_overall(rows: list[dict]) -> dict[str, dict]:
    """Per invariant (and for not finishing), the smallest case over every setting, by the same measure
    as within one (ticks, faults, breach tick; the first setting wins a tie)."""
    best: dict[str, dict] = {}
    for row in rows:
        for what, case in row["smallest"].items():
            key = (case["ticks"], case["faults"], case["breach_tick"])
            if what not in best or key < (
                best[what]["ticks"],
                best[what]["faults"],
                best[what]["breach_tick"],
            ):
                best[what] = case
    return best


def headline(rows: list[dict]) -> dict:
    """With the article's four protections on, does any invariant break under any schedule explored?"""
    on = [r for r in rows if _headline_setting(r["protections"])]
    # The invariants the rows count: the article's five, and the sixth where a step reads past its section.
    shown = [i for i in on[0]["broken"] if i != UNFINISHED] if on else INVARIANT_IDS
    broken = {i: sum(r["broken"][i] for r in on) for i in shown}
    return {
        "protections": ALL_FOUR_ON,
        "settings": len(on),
        "runs": sum(r["runs"] for r in on),
        "broken": broken,
        "holds": bool(on) and not any(broken.values()),
        "unfinished": sum(r["broken"][UNFINISHED] for r in on),
        # The four protections hold the fifth (checkpoints) open: what each of its values breaks.
        "by_checkpoints": {r["protections"]["checkpoints"]: r["broken"] for r in on},
    }
