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


def test_a_finished_session_leaves_nothing_in_panels_view_registry(monkeypatch):
    """Panel keeps every page's notification area in ``state._views`` after the session ends; the server
    drops the entries of the session's document (and only those) when it ends."""
    from panel.io.state import state

    from app.serving import forget_views

    ended, live = object(), object()
    views = {
        "p1": ("area", "root", ended, None),
        "p2": ("area", "root", live, None),
        "p3": ("x", "y", ended, None),
    }
    monkeypatch.setattr(state, "_views", views)
    assert forget_views(ended) == 2
    assert list(state._views) == ["p2"]
    assert forget_views(None) == 0 and list(state._views) == ["p2"]
