"""How fast the schedule explorer runs, the graph walk and the exhaustive rerun side by side.

    python3 benchmarks/explore_bench.py [--site DIR] [--sample] [--whole] [--split]

Prints figures; asserts nothing (speed is not a test here). By default, issue 64's figures side by side
in one run: the whole default space on every core (wall and CPU), the graph walk's CPU against the
exhaustive rerun's for a sample of three settings (all on, a middle one, all weakest), the reader's wider
search (the main trace's protections against the widest ranges the page offers, 33,696 schedules) in
CPython and, with ``--site`` naming a built site, in Pyodide under Node (``wider_bench.py``'s way), and
the peak memory of one setting's walk of a space ten times the default (53,280 schedules), in a process of
its own.

``--sample`` prints, for the sample of settings, each mode's CPU time per setting and runs per second per
core, and for a pure graph walk (no world playing its last few schedules alone) the distinct states it
played, its transitions (ticks played, replays after a fork included) and its forks, against the ticks
the exhaustive rerun plays; with a wider space too (silences up to 10 ticks, corrections up to t20).
``--whole`` also times the whole default space in both modes with 1 worker and with every core, wall
and CPU side by side (several minutes), and checks that all four give the same bytes. ``--split`` says
where a walk's time goes (reading states, resuming worlds, playing ticks, the rest) and what one update
of a state costs by how the state is held.
"""

from __future__ import annotations

import gc
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.wider_bench import RANGES, THE_ARTICLES, pyodide  # noqa: E402
from model.explore import (  # noqa: E402
    SPACE,
    explore,
    explore_setting,
    graph_space,
    local_mapper,
    protection_settings,
    schedule_list,
    space_with,
)
from model.graph import ALONE, Walk, walk  # noqa: E402
from model.simulation import collector_paused, run  # noqa: E402
from model.switches import Switches  # noqa: E402
from model.trace import dumps  # noqa: E402
from tests.conftest import cpu_seconds, descendants_of  # noqa: E402

WIDER = dict(SPACE) | {"silent_for": (*range(1, 11), None), "correction_at": (None, *range(2, 21, 2))}
MODES = {"graph": False, "exhaustive": True}


def sample(space: dict, name: str) -> None:
    settings = protection_settings()
    chosen = [settings[0], settings[len(settings) // 2], settings[-1]]  # all on, a middle one, all weakest
    n = len(schedule_list(space))
    print(f"{name} space: {n:,} schedules, {len(chosen)} settings")
    for mode, exhaustive in MODES.items():
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            for protections in chosen:
                explore_setting(protections, space=space, exhaustive=exhaustive)
            best = min(best, time.process_time() - start)
        print(
            f"  {mode:<10} {best / len(chosen):6.3f} s CPU per setting"
            f" = {len(chosen) * n / best:8,.0f} runs/s per core"
        )
    states = transitions = forks = ticks = 0
    for protections in chosen:
        switches = Switches(**protections)
        with collector_paused():  # a pure walk: no world plays its few schedules alone at the end
            found = Walk()
            for _ in walk(switches, graph_space(space), alone=0, found=found):
                pass
        states, transitions, forks = (
            states + found.states,
            transitions + found.transitions,
            forks + found.forks,
        )
        ticks += sum(run(switches, recording=False, schedule=s).end_tick + 1 for s in schedule_list(space))
    print(
        f"  a pure walk: {states / len(chosen):,.0f} distinct states,"
        f" {transitions / len(chosen):,.0f} transitions, {forks / len(chosen):,.0f} forks per setting;"
        " the exhaustive rerun plays"
        f" {ticks / len(chosen):,.0f} ticks ({ticks / transitions:.1f}x the transitions)"
    )


def whole() -> None:
    answers, walls = {}, {}
    for mode, exhaustive in MODES.items():
        for workers in sorted({1, os.cpu_count() or 1}):
            mapper, close = local_mapper(workers)
            wall, cpu = time.perf_counter(), _cpu()
            try:
                result = explore(mapper=mapper, exhaustive=exhaustive)
                wall, cpu = time.perf_counter() - wall, _cpu() - cpu  # before the workers end
            finally:
                close()
            answers[mode, workers] = dumps(result)
            walls[mode, workers] = wall
            runs = result["runs"]
            print(
                f"whole space, {mode:<10} {workers} worker(s): {runs:,} runs in {wall:6.1f} s wall,"
                f" {cpu:6.1f} s CPU = {runs / cpu:7,.0f} runs/s per core  (aim: <= 10 s wall on 2 cores)"
            )
            gc.collect()
    for workers in sorted({1, os.cpu_count() or 1}):
        ratio = walls["exhaustive", workers] / walls["graph", workers]
        print(f"the walk against the rerun, {workers} worker(s): {ratio:.2f}x as fast")
    print(f"same bytes from both modes and every number of workers: {len(set(answers.values())) == 1}")


def split() -> None:
    """Where a walk's CPU goes, by wrapping with clocks (their own cost, about 0.1 µs a call, is counted
    in) what reads a working world's state, what resumes a world from a state, and the tick protocol,
    for the weakest protection setting. The rest is the walk's own: answering for sets of schedules,
    hashing and merging states, the leaves' outcomes."""
    from model import graph, simulation
    from model.state import State

    protections = protection_settings()[-1]
    switches, space = Switches(**protections), graph_space(SPACE)
    spent: dict[str, float] = {}

    def timed(name, fn):
        def wrapper(*args):
            start = time.process_time()
            try:
                return fn(*args)
            finally:
                spent[name] += time.process_time() - start

        return wrapper

    read, resume, tick = State.__dict__["of"], State.resume, simulation.play_tick  # "of" as declared
    names = ("State.of", "State.resume", "play_tick")
    print(f"where a walk's time goes (weakest setting, {len(space.schedules):,} schedules):")
    try:
        State.of = staticmethod(timed("State.of", State.of))
        State.resume = timed("State.resume", resume)
        # The walk plays a tick itself, and each run alone through the protocol's own loop.
        simulation.play_tick = graph.play_tick = timed("play_tick", tick)
        for alone in (0, ALONE):
            spent.update(dict.fromkeys(names, 0.0))
            start = time.process_time()
            with collector_paused():
                for _ in walk(switches, space, alone=alone):
                    pass
            total = time.process_time() - start
            parts = ", ".join(f"{name} {spent[name] / total:4.0%}" for name in names)
            rest = 1 - sum(spent.values()) / total
            print(f"  alone={alone}: {total:5.2f} s CPU: {parts}, the rest {rest:4.0%}")
    finally:
        State.of, State.resume, simulation.play_tick, graph.play_tick = read, resume, tick, tick
    _update_costs()


def _update_costs() -> None:
    """One attempt-sized update (18 fields, 4 changed) by how the state is held, and a state's hash."""
    from collections import namedtuple
    from dataclasses import dataclass, make_dataclass, replace
    from timeit import timeit

    fields = [f"f{i}" for i in range(18)]
    values = tuple(range(18))
    Frozen = make_dataclass("Frozen", fields, frozen=True, slots=True)
    Named = namedtuple("Named", fields)
    frozen, named = Frozen(*values), Named(*values)

    @dataclass
    class Mutable:
        f0: int = 0
        f1: int = 0
        f2: int = 0
        f3: int = 0

    mutable = Mutable()

    def set_attributes():
        mutable.f0, mutable.f1, mutable.f2, mutable.f3 = 1, 2, 3, 4

    world = tuple(range(31))
    cases = {
        "dataclasses.replace (frozen, slots)": lambda: replace(frozen, f0=1, f1=2, f2=3, f3=4),
        "NamedTuple._replace": lambda: named._replace(f0=1, f1=2, f2=3, f3=4),
        "NamedTuple built positionally": lambda: Named(1, 2, 3, 4, *named[4:]),
        "attributes set on a mutable object": set_attributes,
        "a 31-field tuple rebuilt, 3 changed": lambda: (*world[:5], 1, *world[6:20], 2, *world[21:30], 3),
        "hash of that tuple": lambda: hash(world),
    }
    print("one update of an attempt-sized record (18 fields, 4 changed), and a world-sized tuple:")
    for name, fn in cases.items():
        n = 20000
        best = min(timeit(fn, number=n) for _ in range(5)) / n
        print(f"  {name:<40} {best * 1e6:5.2f} µs")


def _cpu() -> float:
    """CPU seconds of this process, of the children it has waited for, and of every process under it
    that is still running. A pool's workers are the forkserver's children, not this process's, and end
    only when the pool closes: asked before ``close``, this counts their work."""
    me, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    running = cpu_seconds(descendants_of(os.getpid()))
    return me.ru_utime + me.ru_stime + reaped.ru_utime + reaped.ru_stime + running


def figures(site: str | None) -> None:
    """The issue's figures in one run (see the module's docstring)."""
    settings = protection_settings()
    chosen = [settings[0], settings[len(settings) // 2], settings[-1]]
    print("the explorer's figures (aims of issue 64 in brackets):", flush=True)  # before workers fork
    mapper, close = local_mapper()
    wall, cpu = time.perf_counter(), _cpu()
    try:
        result = explore(mapper=mapper)
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu  # before the workers end with the pool
    finally:
        close()
    print(
        f"  whole default space, {result['runs']:,} runs on {os.cpu_count()} core(s):"
        f" {wall:5.1f} s wall, {cpu:5.1f} s CPU  [<= 10 s wall on two idle cores]"
    )
    graph, exhaustive = (
        _best(lambda mode=mode: [explore_setting(p, exhaustive=mode) for p in chosen], 3) / len(chosen)
        for mode in MODES.values()
    )
    print(
        f"  one setting: graph walk {graph:5.2f} s CPU, exhaustive rerun {exhaustive:5.2f} s:"
        f" the walk takes {graph / exhaustive:4.2f} of the rerun's time  [<= 0.15]"
    )
    request = {"protections": THE_ARTICLES, "ranges": RANGES["widest"]}
    widest = space_with(request["ranges"])
    search = _best(lambda: explore_setting(THE_ARTICLES, space=widest), 2)
    n = len(schedule_list(widest))
    said = f"  the reader's wider search, {n:,} schedules: CPython {search:5.2f} s CPU"
    if site is not None:
        in_pyodide = pyodide(Path(site), request, 2)
        said += "" if in_pyodide is None else f", Pyodide {in_pyodide:5.2f} s"
    print(said + "  [<= 1.5 s in Pyodide]")
    peak = subprocess.run(
        [sys.executable, __file__, "--memory"], capture_output=True, text=True, check=True
    ).stdout.split()
    n, kilobytes = map(int, peak)
    print(f"  one setting's walk of {n:,} schedules: {kilobytes / 1024:5.0f} MB at most  [< 200 MB]")


def memory() -> None:
    """In a process of its own: the schedules and peak resident memory (kB) of one setting's walk of a space
    ten times the default (silences up to 20 ticks, corrections up to t20), the weakest setting."""
    space = dict(SPACE) | {"silent_for": (*range(1, 21), None), "correction_at": (None, *range(2, 21))}
    explore_setting(protection_settings()[-1], space=space)
    print(len(schedule_list(space)), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _cpu_seconds(fn) -> float:
    """The CPU time of one call of ``fn``."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def _best(fn, times: int) -> float:
    """The least CPU time of ``times`` calls of ``fn`` (the machine may be busy: the least is the cost)."""
    return min(_cpu_seconds(fn) for _ in range(times))


def main(argv: list[str]) -> None:
    if "--memory" in argv:
        memory()
        return
    if "--split" in argv:
        split()
        return
    if "--sample" in argv:
        sample(SPACE, "default")
        sample(WIDER, "wider")
    if "--whole" in argv:
        whole()
    if not {"--sample", "--whole"} & set(argv):
        figures(argv[argv.index("--site") + 1] if "--site" in argv else None)


if __name__ == "__main__":
    main(sys.argv[1:])
