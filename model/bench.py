"""How long the model takes: figures printed, nothing asserted (speed is not a test here)."""

from __future__ import annotations

import time

from .simulation import collector_paused, run
from .switches import Switches, all_switches
from .trace import dumps, trace_dict


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def phases(repeat: int = 3) -> dict[str, float]:
    """Where a tick's time goes, over the 864 runs without a trace: seconds per phase of the tick protocol
    (``simulation.play_tick``'s four phases and the invariants' check) and the end test, best of
    ``repeat``. Each phase's function is wrapped with a clock while this runs, so the figures carry the
    clock's own cost (about 0.1 µs a call) and their sum is a little more than the plain run's."""
    from . import simulation
    from .attempt import Attempt
    from .controller import Controller
    from .invariants import Checker
    from .newsletter import Newsletter

    clock = time.perf_counter
    spent: dict[str, float] = {}
    places = {
        "world (correction, waking)": (simulation, "world_phase"),
        "newsletter": (Newsletter, "act"),
        "attempts' steps": (Attempt, "act"),
        "controller": (Controller, "act"),
        "invariants' check": (Checker, "check"),
        "the end test": (simulation, "quiescent"),
    }
    originals = {name: getattr(owner, attribute) for name, (owner, attribute) in places.items()}

    def timed(name, fn):
        def wrapper(*args):
            start = clock()
            try:
                return fn(*args)
            finally:
                spent[name] += clock() - start

        return wrapper

    best: dict[str, float] = {}
    combos = list(all_switches())
    try:
        for name, (owner, attribute) in places.items():
            setattr(owner, attribute, timed(name, originals[name]))
        for _ in range(repeat):
            spent.clear()
            spent.update(dict.fromkeys(places, 0.0))
            start = clock()
            ticks = sum(run(s, recording=False).end_tick + 1 for s in combos)
            spent["all, with the clocks"] = clock() - start
            if not best or spent["all, with the clocks"] < best["all, with the clocks"]:
                best = spent.copy()
    finally:
        for name, (owner, attribute) in places.items():
            setattr(owner, attribute, originals[name])
    best["ticks"] = ticks
    return best


def main(repeat: int = 5) -> None:
    combos = list(all_switches())
    outcomes = _best(lambda: [run(s, recording=False).outcome() for s in combos], repeat)
    traces = _best(lambda: [run(s) for s in combos], repeat)

    def paused(batch):
        with collector_paused():
            return batch()

    traces_paused = _best(lambda: paused(lambda: [run(s) for s in combos]), repeat)
    as_json = _best(lambda: [dumps(trace_dict(run(s))) for s in combos], repeat)
    one = _best(lambda: run(combos[0]), repeat * 20)
    print(f"864 outcomes                 {outcomes:.3f} s  (aim <= 0.05 s)")
    print(f"864 full traces              {traces:.3f} s  (aim <= 0.3 s)")
    print(f"  the same, collector paused {traces_paused:.3f} s")
    print(f"864 full traces as JSON      {as_json:.3f} s")
    print(f"one full trace (main)        {one * 1000:.2f} ms")
    _steps(repeat)
    spent = phases(min(repeat, 3))
    ticks = spent.pop("ticks")
    whole = spent.pop("all, with the clocks")
    print(
        f"where the 864 outcomes' {ticks:,} ticks go ({whole * 1e6 / ticks:.1f} µs a tick, clocks included):"
    )
    for name, seconds in spent.items():
        print(f"  {name:<28} {seconds * 1e6 / ticks:5.1f} µs a tick  {seconds / whole:4.0%}")


def _steps(repeat: int) -> None:
    """What the transition system's parts cost, from the main trace's state after t8: a pure ``step``
    (a working world resumed from the state, the tick, the state read back), and its parts."""
    from .schedule import Schedule
    from .simulation import play_tick
    from .state import State, step

    schedule, state = Schedule(), State.initial(Switches())
    while state.tick < 8:
        state, _ = step(state, schedule)
    n = 2000

    def each(fn) -> float:
        def many() -> None:
            for _ in range(n):
                fn()

        return _best(many, repeat) / n

    def tick() -> None:
        world = state.resume(schedule)
        world.tick += 1
        play_tick(world)

    world = state.resume(schedule)
    whole, resume, ticked = (
        each(lambda: step(state, schedule)),
        each(lambda: state.resume(schedule)),
        each(tick),
    )
    read, fingerprint = each(lambda: State.of(world)), each(lambda: hash(state))
    print(
        f"one step (t9 of the main trace) {whole * 1e6:5.1f} µs: resuming a world {resume * 1e6:4.1f},"
        f" the tick {(ticked - resume) * 1e6:4.1f}, reading the state {read * 1e6:4.1f}"
        f" (hashing it: {fingerprint * 1e6:.1f})"
    )
