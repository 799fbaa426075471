"""How often one client may do a thing: a token bucket per (what, who), kept in memory.

A bucket holds ``burst`` tokens and gains ``per_second`` of them back; each try takes one, and a try
with none left is refused. The buckets of a process forget the least recently used key past
``KEPT`` keys, so a flood of addresses cannot grow them without bound (a forgotten key starts full).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

KEPT = 20_000


@dataclass(frozen=True)
class Rate:
    burst: float
    per_second: float


#: What each limit allows one client. A lecture hall's phones each join once and answer a few times a
#: round; these are far above that and far below a flood.
JOIN = Rate(burst=300, per_second=20)  # new phones from one address (a hall behind one NAT joins at once)
GUESS = Rate(burst=10, per_second=0.2)  # codes tried from one address that name no class
MESSAGE = Rate(burst=30, per_second=5)  # messages on one phone's connection
CLASS_MADE = Rate(burst=5, per_second=5 / 3600)  # classes one address makes: five, then one every 12 min
CLASS_JOINS = Rate(burst=2500, per_second=200)  # joins into one class, from everywhere


class Limits:
    """The buckets of one process."""

    def __init__(self, clock=time.monotonic) -> None:
        self._clock = clock
        self._buckets: OrderedDict[tuple, tuple[float, float]] = OrderedDict()

    def allow(self, rate: Rate, *key: object) -> bool:
        """Take a token from ``key``'s bucket of ``rate``; whether there was one."""
        now = self._clock()
        bucket = (rate, *key)
        tokens, then = self._buckets.pop(bucket, (rate.burst, now))
        tokens = min(rate.burst, tokens + (now - then) * rate.per_second)
        allowed = tokens >= 1
        self._buckets[bucket] = (tokens - 1 if allowed else tokens, now)
        if len(self._buckets) > KEPT:
            self._buckets.popitem(last=False)
        return allowed


_LIMITS: list[Limits] = []


def limits() -> Limits:
    """The process's buckets."""
    if not _LIMITS:
        _LIMITS.append(Limits())
    return _LIMITS[0]
