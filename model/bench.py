"""How long the model takes: figures printed, nothing asserted (speed is not a test here)."""

from __future__ import annotations

import time

from .simulation import collector_paused, run
from .switches import all_switches
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
    print(f"864 outcomes                 {outcomes:.3f} s  (aim <= 0.1 s)")
    print(f"864 full traces              {traces:.3f} s  (aim <= 0.5 s)")
    print(f"  the same, collector paused {traces_paused:.3f} s")
    print(f"864 full traces as JSON      {as_json:.3f} s")
    print(f"one full trace (main)        {one * 1000:.2f} ms")
    spent = phases(min(repeat, 3))
    ticks = spent.pop("ticks")
    whole = spent.pop("all, with the clocks")
    print(
        f"where the 864 outcomes' {ticks:,} ticks go ({whole * 1e6 / ticks:.1f} µs a tick, clocks included):"
    )
    for name, seconds in spent.items():
        print(f"  {name:<28} {seconds * 1e6 / ticks:5.1f} µs a tick  {seconds / whole:4.0%}")
