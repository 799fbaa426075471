"""The space-time diagram on a narrow screen (a phone, a narrow column): every tick of the run at once in a
strip of marks (``overview_svg``), and under it the current tick in full (``detail_svg``): the wide
drawing's rows and words, its one column alone. ``app.render.diagram.diagram_html`` puts this beside the
wide drawing, and the stylesheet shows the one that fits the figure's width (diagrams.css)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from html import escape

from app.render.diagram import SYMBOL, TOP, _current, _rows, _svg, lane_name, layout_of, past_marks, run_of

#: The overview: a column a tick (every tick of the run at once), a row a line, marks only.
PAST, ROW, NAME_CHAR = 18, 17, 7.4
_TALLEST: dict[tuple, float] = {}


class _Strip:
    """Where the overview's rows and columns are at one tick."""

    def __init__(self, trace: dict, tick: int) -> None:
        run = run_of(trace)
        frame = trace["ticks"][tick]
        admitted = {a["attempt"] for a in frame["attempts"]}
        shown = [lane for lane in run.lanes if lane not in run.attempts or run.attempts[lane] in admitted]
        self.lanes = shown
        self.names = [lane_name(lane, frame, run.attempts)[0] for lane in self.lanes]
        self.name_width = math.ceil(NAME_CHAR * max(map(len, self.names))) + 10
        self.end, self.top = trace["end_tick"], 4
        self.width = self.name_width + PAST * (self.end + 1) + 4
        self.bottom = self.top + ROW * len(self.lanes)
        self.y = {lane: self.top + ROW * n for n, lane in enumerate(self.lanes)}
        self.attempts = run.attempts

    def x(self, t: int) -> float:
        """Tick ``t``'s column's left edge."""
        return self.name_width + PAST * t


def overview_svg(trace: dict, tick: int, before: dict | None = None, parts_at: int | None = None) -> str:
    """Every tick of the run in one strip: a row per actor (the wide drawing's rows at this tick), a
    column per tick, each cell's most telling mark up to the current tick (its words in its tooltip), the
    current tick's column framed, the ticks to come empty. After a switch, each cell where the run
    ``before`` differs is outlined with a dashed line and the tick where they part is marked on the axis,
    as in the wide drawing. The current tick in full is the drawing under it (``detail_svg``)."""
    at = _Strip(trace, tick)
    if before is not None:  # as wide as either run's strip, for the reason detail_svg says
        at.width = max(at.width, at.name_width + PAST * (before["end_tick"] + 1) + 4)
    label = f"Every tick, t0 to t{at.end}: marks up to t{tick}, the ticks after it still to come"
    bands = "".join(
        f'<rect class="band" x="0" y="{at.y[lane]:.1f}" width="{at.width:.0f}" height="{ROW}"/>'
        for n, lane in enumerate(at.lanes)
        if n % 2
    )
    names = "".join(
        f'<text class="row-name lane" x="{at.name_width - 6}" y="{at.y[lane] + 12.5:.1f}" '
        f'text-anchor="end">{escape(name)}</text>'
        for lane, name in zip(at.lanes, at.names, strict=True)
    )
    return (
        _svg(0, at.width, at.bottom + 16, "diagram diagram-overview", f'role="img" aria-label="{label}"')
        + bands
        + f'<rect class="now-column" x="{at.x(tick):.1f}" y="{at.top - 2}" width="{PAST}" '
        f'height="{at.bottom - at.top + 4:.1f}"/>'
        + names
        + _marks(at, trace, tick)
        + (_changed(at, trace, before, tick) if before is not None else "")
        + _ticks(at, tick, parts_at)
        + "</svg>"
    )


def _marks(at: _Strip, trace: dict, tick: int) -> str:
    out = []
    for (t, lane), (mark, lines) in past_marks(trace, tick + 1).items():
        if lane not in at.y:
            continue
        symbol, css = SYMBOL[mark]
        said = f"t{t}, {lane_name(lane, trace['ticks'][t], at.attempts)[0]}: {'; '.join(lines)}"
        out.append(
            f'<text class="mark {css}" x="{at.x(t) + PAST / 2:.1f}" y="{at.y[lane] + 12.5:.1f}" '
            f'text-anchor="middle"><title>{escape(said)}</title>{symbol}</text>'
        )
    return "".join(out)


def _changed(at: _Strip, trace: dict, before: dict, tick: int) -> str:
    """The cells up to the tick where the run before the reader's switch did something else."""
    now, was = past_marks(trace, tick + 1), past_marks(before, min(tick, before["end_tick"]) + 1)
    out = []
    for t, lane in sorted(set(now) | set(was)):
        if lane not in at.y or t > tick or now.get((t, lane), ("", []))[1] == was.get((t, lane), ("", []))[1]:
            continue
        said = "; ".join(was.get((t, lane), ("", []))[1]) or "nothing"
        out.append(
            f'<rect class="changed-cell" x="{at.x(t) + 1:.1f}" y="{at.y[lane] + 1:.1f}" width="{PAST - 2}" '
            f'height="{ROW - 2}"><title>{escape(f"t{t}, before your change: {said}")}</title></rect>'
        )
    return "".join(out)


def _ticks(at: _Strip, tick: int, parts_at: int | None) -> str:
    """The ticks' names: every other one where a run is long (and always the current tick and the one
    where two runs part, which has its dashed line too)."""
    out = []
    for t in range(at.end + 1):
        css = "tick now-tick" if t == tick else ("tick later" if t > tick else "tick")
        name = f"t{t}"
        if t == parts_at:
            css, name = css + " parts", name + "≠"
            out.append(
                f'<line class="parts-line" x1="{at.x(t):.1f}" x2="{at.x(t):.1f}" y1="{at.top - 2}" '
                f'y2="{at.bottom + 2:.1f}"/>'
            )
        if t in (tick, parts_at) or (t % 2 == 0 and abs(t - tick) > 1) or at.end < 12:
            out.append(
                f'<text class="{css}" x="{at.x(t) + PAST / 2:.1f}" y="{at.bottom + 12:.1f}" '
                f'text-anchor="middle">{name}</text>'
            )
    return "".join(out)


def detail_svg(trace: dict, tick: int, switches: dict[str, str] | None, beside: dict | None = None) -> str:
    """The current tick in full: the rows' names (switches, unless ``switches`` is None) with what each
    holds, and what each row does at this tick, its messages as arrows; the wide drawing's current
    column alone."""
    at = replace(layout_of(trace, tick, beside), past=0.0)
    at = replace(at, width=_detail_width(at))
    # A phone scales the drawing to its width: after a switch it is as wide as either run's, so flipping
    # the switch back and forth scales it alike and its rows stay under the finger.
    width = at.width
    if beside is not None:
        width = max(width, _detail_width(layout_of(beside, min(tick, len(beside["ticks"]) - 1), trace)))
    # Top-aligned in its room (kept as tall as the run's tallest tick): centred, its rows would move
    # with every change of the tick's height.
    label = f'role="img" aria-label="t{tick} in full: what each row does and holds"'
    label += ' preserveAspectRatio="xMidYMin meet"'
    return "".join([
        _svg(0, width, at.bottom + 6, "diagram diagram-detail", label),
        '<defs><marker id="narrow-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="arrow-head"/></marker></defs>',
        *_rows(at, trace["ticks"][tick], switches, key="narrow-row"),
        f'<rect class="now-column" x="{at.name_width:.1f}" y="{TOP - 6}" width="{at.wide:.1f}" '
        f'height="{at.bottom - TOP + 6:.1f}"/>',
        *_current(at, tick, "narrow"),
        "</svg>",
    ])  # fmt: skip


def _detail_width(at) -> float:
    """The width of the tick in full drawn from a layout: the names and the one column."""
    return at.name_width + at.wide + 6


def narrow_html(
    trace: dict,
    tick: int,
    switches: dict[str, str] | None,
    beside: dict | None = None,
    parts_at: int | None = None,
) -> str:
    """A narrow screen's diagram: every tick at once above (with the run ``beside`` as its faint layer),
    the current tick in full below."""
    return (
        f'<div class="diagram-narrow">{overview_svg(trace, tick, beside, parts_at)}'
        f"{detail_svg(trace, tick, switches, beside)}</div>"
    )


def overview_height(trace: dict) -> float:
    """The overview's height with every row the run ever has, and the gap below it (diagrams.css)."""
    return 4 + ROW * len(run_of(trace).lanes) + 16 + 8


def tallest_narrow(trace: dict) -> float:
    """The room a narrow screen's drawing needs at the run's tallest tick: the overview and the detail."""
    made = json.dumps([trace.get("switches"), trace.get("schedule")], sort_keys=True)
    key = (made, len(trace["ticks"]))
    if key not in _TALLEST:
        if len(_TALLEST) >= 64:
            _TALLEST.pop(next(iter(_TALLEST)))
        detail = max(layout_of(trace, t).bottom for t in range(len(trace["ticks"]))) + 6
        _TALLEST[key] = overview_height(trace) + detail
    return _TALLEST[key]
