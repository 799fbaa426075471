"""The Bokeh timeline (served app) and the SVG timeline (static pages) draw the same cells."""

from __future__ import annotations

import re
from html import unescape

import pytest

from app.render.timeline import timeline_svg
from app.state import PRESETS
from app.views.timeline_plot import TimelinePlot
from model import Switches, run, trace_dict

CELL = re.compile(r'<g class="cell" data-tick="(\d+)" data-lane="([^"]+)">(.*?)</g>', re.S)
LABEL = re.compile(r'<text class="label"[^>]*>([^<]*)</text>')
MARK = re.compile(r'<text class="mark"[^>]*>([^<]*)</text>')


def svg_cells(svg: str) -> list[tuple[int, str, str, str]]:
    return [
        (
            int(t),
            unescape(lane),
            "".join(MARK.findall(body)),
            "\n".join(unescape(x) for x in LABEL.findall(body)),
        )
        for t, lane, body in CELL.findall(svg)
    ]


def bokeh_cells(plot: TimelinePlot) -> list[tuple[int, str, str, str]]:
    d = plot.cells.data
    return list(zip(d["tick"], d["lane"], d["symbol"], d["label"], strict=True))


@pytest.mark.parametrize("preset", PRESETS)
def test_both_timelines_draw_the_same_cells_at_every_tick(preset):
    trace = trace_dict(run(Switches(**PRESETS[preset])))
    plot = TimelinePlot()
    plot.set_trace(trace)
    for tick in range(trace["end_tick"] + 1):
        plot.set_tick(tick)
        drawn = bokeh_cells(plot)
        assert drawn, "every tick has something to draw"
        assert svg_cells(timeline_svg(trace, tick)) == drawn
        assert plot.figure.y_range.factors == list(reversed(_lanes(timeline_svg(trace, tick))))


def _lanes(svg: str) -> list[str]:
    return [unescape(x) for x in re.findall(r'<text class="lane"[^>]*>([^<]*)</text>', svg)]


def test_writes_and_posts_are_messages_to_where_they_are_answered():
    from app.render.timeline import arrows_of, cells_of

    trace = trace_dict(run(Switches()))
    drawn = arrows_of(trace)
    arrows = set(zip(drawn["tick"], drawn["source"], drawn["target"], strict=True))
    assert (8, "attempt #1", "records") in arrows  # the woken #1's write, refused at the records
    assert (11, "attempt #2", "feed") in arrows and (14, "attempt #3", "feed") in arrows  # post, resend
    cells = cells_of(trace)
    at = {
        (t, lane): symbol
        for t, lane, symbol in zip(cells["tick"], cells["lane"], cells["symbol"], strict=True)
    }
    assert at[(8, "records")] == "✖"  # the refusal is drawn at the store, not at the writer
    svg = timeline_svg(trace, trace["end_tick"])
    assert svg.count('class="message"') == len(arrows)
    plot = TimelinePlot()
    plot.set_trace(trace)
    plot.set_tick(trace["end_tick"])
    assert plot.arrows.data == drawn
