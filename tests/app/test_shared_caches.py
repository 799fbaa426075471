"""The caches every session shares stay bounded, whatever links strangers send."""

from __future__ import annotations

import itertools

from app import shared
from app.state import ReaderState
from app.views.compare import CompareView
from model import Switches
from model.explore import schedules

BOUNDED = (shared.trace_for, shared.outcome_for, shared.from_scratch, shared.explore_row)


def test_a_thousand_distinct_links_leave_every_cache_at_its_bound():
    for cached in BOUNDED:
        cached.cache_clear()
    switches = Switches(fencing="off")
    for schedule in itertools.islice(schedules(), 1000):
        shared.trace_for(switches, schedule)
        shared.outcome_for(switches, schedule)
        shared.from_scratch(switches, schedule)
    assert shared.trace_for.cache_info().currsize == shared.TRACE_CACHE
    assert shared.outcome_for.cache_info().currsize == shared.from_scratch.cache_info().currsize == 1000
    for schedule in itertools.islice(schedules(), 1000, 1100):
        shared.outcome_for(switches, schedule)
    assert shared.outcome_for.cache_info().currsize == shared.SMALL_CACHE
    for cached in BOUNDED:
        assert cached.cache_info().maxsize is not None


def test_the_compare_view_goes_through_the_bounded_caches():
    shared.trace_for.cache_clear()
    state = ReaderState()
    state.apply_query("?fencing=off&silent_at=accept")
    CompareView(state=state)
    assert shared.trace_for.cache_info().currsize == 1
