"""How fast the schedule explorer runs: runs per second per core, and the whole default space's wall time.

    python3 benchmarks/explore_bench.py [--whole]

Prints figures; asserts nothing (speed is not a test here). The aim is at least 5,000 outcome-only runs per
second per core. ``--whole`` also times the whole default space on every core (a minute or two).
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from model.explore import explore, explore_setting, local_mapper, protection_settings, schedules  # noqa: E402

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
        cores = os.cpu_count() or 1
        mapper, close = local_mapper()
        start = time.perf_counter()
        try:
            result = explore(mapper=mapper)
        finally:
            close()
        wall = time.perf_counter() - start
        print(
            f"whole space: {result['runs']:,} runs on {cores} cores in {wall:.1f} s"
            f" = {result['runs'] / wall / cores:,.0f} runs/s per core"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
