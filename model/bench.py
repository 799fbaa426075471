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
