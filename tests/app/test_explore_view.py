"""The Explore tab: the reader's protections against every schedule, and loading a smallest case."""

from __future__ import annotations

import asyncio

import panel as pn
import pytest

from app import shared
from app.render.explore import names
from app.state import ReaderState
from app.views.explore import ExploreView
from model.explore import explore_setting, schedule_list, space_with


def _buttons(view: ExploreView) -> list[pn.widgets.Button]:
    return [o for o in view.results.objects if isinstance(o, pn.widgets.Button)]


def test_each_result_says_held_or_broken_with_the_models_counts():
    state = ReaderState()
    view = ExploreView(state=state)
    row = shared.explore_row(view.protections())
    html = " ".join(o.object for o in view.results.objects if isinstance(o, pn.pane.HTML))
    for what, name in names().items():
        if row["broken"][what]:
            assert f"under {row['broken'][what]} of {row['runs']} schedules" in html
        else:
            assert f"{name}</b>: " in html and f"under all {row['runs']} schedules" in html
    assert len(_buttons(view)) == sum(1 for k in row["broken"].values() if k)


def test_loading_a_smallest_case_replays_it_at_the_tick_it_breaks():
    state = ReaderState(fencing="off")
    view = ExploreView(state=state)
    row = shared.explore_row(view.protections())
    broken = [w for w in names() if row["broken"][w]]
    assert _buttons(view), "with fencing off the search finds something to show"
    for what, button in zip(broken, _buttons(view), strict=True):
        state.apply_preset("main")
        state.fencing = "off"
        case = row["smallest"][what]
        button.clicks += 1
        assert state.tab == "trace" and state.tick == case["breach_tick"]
        assert len(state.trace["ticks"]) == case["ticks"]
        if what in {i["id"] for i in state.trace["invariants"]}:
            (report,) = [i for i in state.trace["invariants"] if i["id"] == what]
            assert report["breach"]["tick"] == case["breach_tick"]
        else:
            assert not state.outcome["finished"]


def test_the_schedule_editor_changes_the_run_and_the_reset_restores_the_article():
    state = ReaderState()
    view = ExploreView(state=state)
    before = state.outcome
    state.silent_at = "none"
    assert state.outcome != before and "no attempt goes silent" in view.schedule_words.object
    assert "silent_at=none" in state.to_query()
    buttons = [o for o in view._layout.objects if isinstance(o, pn.widgets.Button)]
    reset = next(b for b in buttons if b.label == "Back to the article's schedule")
    reset.clicks += 1
    assert state.outcome == before and state.to_query() == ""


def test_compare_sets_the_protected_run_on_the_readers_schedule():
    """With no silence, fencing has nothing to fence: the protected run under the same schedule never
    parts from the reader's (under the article's schedule it would, at t3)."""
    from app.views.compare import CompareView

    state = ReaderState()
    state.apply_query("?fencing=off&silent_at=none&change=never")
    assert CompareView(state=state).parts_at is None
    state.apply_query("?fencing=off&change=never")
    assert CompareView(state=state).parts_at is not None


def test_a_run_on_another_schedule_says_so_in_the_header_with_the_way_back():
    from app.views.controls import Header

    state = ReaderState()
    header = Header(state=state)
    assert "schedule-note" not in header.html.html
    state.apply_query("?silent_at=accept&threshold=1")
    assert state.schedule().words() in header.html.html.replace("&#x27;", "'")
    header._act("edit-schedule", "")
    assert state.tab == "explore"
    header._act("article-schedule", "")
    assert state.schedule_overrides() == {} and "schedule-note" not in header.html.html


def test_an_event_switch_whose_timing_the_schedule_replaces_says_so():
    from app.views.controls import SwitchPanel

    state = ReaderState()
    panel = SwitchPanel(state=state)
    assert "switch-replaced" not in panel.html.html
    state.apply_query("?correction_at=7&threshold=1")  # replaces `change`; the threshold replaces nothing
    assert panel.html.html.count("switch-replaced") == 1
    change = panel.html.html.split('aria-labelledby="label-change"')[1].split('class="switch"')[0]
    assert "replaced by the schedule" in change


@pytest.mark.slow
def test_a_wider_search_is_the_models_row_for_the_readers_protections_on_the_wider_space():
    state = ReaderState(fencing="off")
    view = ExploreView(state=state)
    assert view.wider.objects == []
    view.ranges["silent_for"].value = "1 to 10 ticks, or never"
    asyncio.run(view.search())
    space = space_with({"silent_for": "1 to 10 ticks, or never"})
    row = explore_setting(dict(view.protections()), space=space)
    html = " ".join(o.object for o in view.wider.objects if isinstance(o, pn.pane.HTML))
    assert f"against {len(schedule_list(space))} schedules" in html
    for what in names():
        if row["broken"][what]:
            assert f"under {row['broken'][what]} of {row['runs']} schedules" in html
    buttons = [o for o in view.wider.objects if isinstance(o, pn.widgets.Button)]
    assert len(buttons) == sum(1 for k in row["broken"].values() if k) > 0
    buttons[0].clicks += 1  # loads the first broken invariant's smallest case into the player
    first = next(iter(row["smallest"].values()))
    assert state.schedule().to_dict() == first["schedule"] and state.tick == first["breach_tick"]
    state.fencing = "on"
    assert view.wider.objects == [], "a wider search's answer is for the protections it ran with"


def test_a_wider_search_shows_how_far_it_has_come_while_it_works(monkeypatch):
    """The bar under "Searching" moves as the model says how far it is, and gives way to the answer."""
    import threading
    import time

    from app.views import explore as explore_view

    steps = threading.Semaphore(0)

    def search(protections, space, progress=None):
        for done in (1000, 2000):
            steps.acquire()  # the test lets each step happen once it has seen the one before
            progress(done, 3000)
        steps.acquire()
        return row

    monkeypatch.setattr(shared, "explore_wider", search)
    monkeypatch.setattr(explore_view, "PROGRESS_EVERY", 0.01)
    view = ExploreView(state=ReaderState())
    row = shared.explore_row(view.protections())
    seen = []

    async def watch():
        searching = asyncio.ensure_future(view.search())
        for done in ("1,000", "2,000"):
            steps.release()
            deadline = time.monotonic() + 10
            while not any(
                f"{done} of 3,000 schedules searched" in str(getattr(o, "object", ""))
                for o in view.wider.objects
            ):
                assert time.monotonic() < deadline and not searching.done(), f"never showed {done}"
                await asyncio.sleep(0.01)
            seen.append(done)
        steps.release()
        await searching

    asyncio.run(watch())
    assert seen == ["1,000", "2,000"]
    html = " ".join(str(getattr(o, "object", "")) for o in view.wider.objects)
    assert "schedules searched" not in html and f"against {row['runs']} schedules" in html
