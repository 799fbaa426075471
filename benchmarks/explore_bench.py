"""How fast the schedule explorer runs: runs per second per core, and the whole default space's wall time.

    python3 benchmarks/explore_bench.py [--whole]

Prints figures; asserts nothing (speed is not a test here). The aim is at least 5,000 outcome-only runs per
second per core. ``--whole`` also times the whole default space with 1 worker and with every core, wall and
CPU time side by side (a few minutes), and checks that both give the same bytes.
"""

from __future__ import annotations

import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from model.explore import explore, explore_setting, local_mapper, protection_settings, schedules  # noqa: E402
from model.trace import dumps  # noqa: E402

AIM = 5000


def main(argv: list[str]) -> None:
    settings = protection_settings()
    sample = [settings[0], settings[len(settings) // 2], settings[-1]]  # all on, a middle one, all weakest
    n = sum(1 for _ in schedules())
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for protections in sample:
            explore_setting(protections)
        best = min(best, time.perf_counter() - start)
    rate = len(sample) * n / best
    print(
        f"one core: {rate:,.0f} runs/s  ({len(sample)} settings x {n} schedules"
        f" in {best:.2f} s; aim >= {AIM:,})"
    )
    if "--whole" in argv:
        answers = {}
        for workers in sorted({1, os.cpu_count() or 1}):
            mapper, close = local_mapper(workers)
            wall, cpu = time.perf_counter(), _cpu()
            try:
                result = explore(mapper=mapper)
            finally:
                close()
            wall, cpu = time.perf_counter() - wall, _cpu() - cpu
            answers[workers] = dumps(result)
            runs = result["runs"]
            print(
                f"whole space, {workers} worker(s): {runs:,} runs in {wall:.1f} s wall, {cpu:.1f} s CPU"
                f" = {runs / cpu:,.0f} runs/s per core  (aim: <= 10 s wall on 2 cores)"
            )
        print(f"same bytes from every number of workers: {len(set(answers.values())) == 1}")


def _cpu() -> float:
    """CPU seconds of this process and of the workers it has waited for."""
    me, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + workers.ru_utime + workers.ru_stime


if __name__ == "__main__":
    main(sys.argv[1:])
