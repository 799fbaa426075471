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
    for n, schedule in enumerate(itertools.islice(schedules(), 1000)):
        if n < shared.TRACE_CACHE + 36:  # a recorded run is the dear one: past its bound is enough
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


def test_wider_searches_are_kept_to_their_bound_and_answered_again_without_a_search(monkeypatch):
    searched = []

    def search(protections, space, progress=None):
        searched.append(protections["fencing"])
        return {"fencing": protections["fencing"]}

    monkeypatch.setattr(shared, "explore_setting", search)
    monkeypatch.setattr(shared, "_WIDER", type(shared._WIDER)())
    space = (("threshold", (1, 2)),)
    asked = [(("fencing", f"v{n}"),) for n in range(shared.WIDER_KEPT + 5)]
    for protections in asked:
        assert shared.explore_wider(protections, space) == {"fencing": protections[0][1]}
    assert len(shared._WIDER) == shared.WIDER_KEPT
    shared.explore_wider(asked[-1], space)  # kept: answered from the cache
    shared.explore_wider(asked[0], space)  # the oldest, gone: searched again
    assert searched == [p[0][1] for p in asked] + [asked[0][0][1]]


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


def test_the_server_converts_a_links_digits_but_refuses_a_message_of_millions():
    """Serving lifts Python's 4,300-digit limit so that Panel can read a link's long all-digit value,
    but only as far as the longest link the server reads (issue 48: with no limit, one websocket message
    holding an integer of 8 MB of digits stalled every page load for 26.7 s)."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    script = (
        "import json, sys\n"
        "import app.serving as s\n"
        "assert int('9' * (s.MAX_LINK - 100)) > 0\n"
        "try:\n"
        "    json.loads('{\"id\": ' + '7' * 2_000_000 + '}')\n"
        "except ValueError as e:\n"
        "    print('refused:', str(e)[:40])\n"
    )
    command = [sys.executable, "-c", script]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused:"), done.stdout  # before converting a digit


def test_a_write_to_a_closed_connection_that_nobody_awaits_is_not_reported():
    """Closing a served page mid-play left Panel's queued writes unawaited, and asyncio logged each as
    "Task exception was never retrieved ... WebSocketClosedError" (issue 48). Serving marks such a write's
    error seen; a write that fails otherwise is still reported."""
    import asyncio
    import gc

    from tornado.websocket import WebSocketClosedError, WebSocketHandler

    import app.serving  # noqa: F401  (serving patches the server's websocket writes)

    class Connection:
        """A websocket connection whose stream breaks under the write (the reader's tab is gone)."""

        def __init__(self, error: Exception):
            self.error = error

        def is_closing(self) -> bool:
            return False

        def write_message(self, message, binary=False):
            async def write():
                raise self.error

            return asyncio.ensure_future(write())

    def reported(error: Exception) -> list[str]:
        seen = []

        async def main():
            asyncio.get_running_loop().set_exception_handler(lambda loop, context: seen.append(context))
            handler = object.__new__(WebSocketHandler)
            handler.ws_connection = Connection(error)
            WebSocketHandler.write_message(handler, "PATCH-DOC")  # dropped, as Panel's when the session ends
            await asyncio.sleep(0.01)
            gc.collect()

        asyncio.run(main())
        return [type(c.get("exception")).__name__ for c in seen]

    assert reported(WebSocketClosedError()) == []
    assert reported(RuntimeError("disk full")) == ["RuntimeError"]


def test_sessions_ending_together_are_collected_once_after_the_first_and_not_at_each_end(monkeypatch):
    """A full collection walks every live session (about a second with 300 phones, the server answering
    nobody meanwhile): a burst of sessions ending is collected once, after the first of them, and a
    session ending later gets a collection of its own."""
    import asyncio
    import gc

    from app import serving

    collections = []
    monkeypatch.setattr(gc, "collect", lambda *a: collections.append(1))
    monkeypatch.setattr(serving, "COLLECT_AFTER", 0.05)
    ending = type("Session", (), {"_document": None})()

    async def a_class_leaves() -> list[int]:
        seen = []
        for _ in range(30):
            serving.release_memory(ending)
        seen.append(len(collections))  # nothing yet: the server goes on answering
        await asyncio.sleep(0.2)
        seen.append(len(collections))
        serving.release_memory(ending)  # one more, later
        await asyncio.sleep(0.2)
        seen.append(len(collections))
        return seen

    assert asyncio.run(a_class_leaves()) == [0, 1, 2]
    serving.release_memory(ending)  # no event loop (a script): at once
    assert len(collections) == 3
