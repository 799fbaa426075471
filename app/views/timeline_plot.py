"""The swimlane timeline as a Bokeh plot: one row per actor, one column per tick.

Each cell (lane, tick) gathers that tick's events in that lane: a marker whose shape says the most
telling kind of event, the events' short labels as text, and their full sentences on hover. Only ticks
up to the current one are drawn; the current tick is outlined; a broken invariant is marked where it
broke. Everything drawn comes from the trace.
"""

from __future__ import annotations

from bokeh.models import BoxAnnotation, ColumnDataSource, CustomJS, FactorRange, HoverTool, NoOverlap, Range1d
from bokeh.plotting import figure

from app.palette import PALETTE
from app.render.timeline import ARROW_COLUMNS, CELL_COLUMNS, arrows_of, breaches_of, cells_of, lanes_of, upto

#: Below this many pixels between neighbouring ticks, the words under the marks collide (measured: the
#: six chapters read cleanly at 24 px a tick on a desktop and collide at 20 on a phone).
MIN_PX_PER_TICK_FOR_LABELS = 23


class TimelinePlot:
    """Holds one Bokeh figure and redraws it in place for a new trace or a new tick."""

    def __init__(self, compact: bool = False, large: bool = False) -> None:
        # Pixels per lane: labels above it (even ticks), below it (odd ticks), then up to two lines of
        # breach marks, as the static SVG timeline places them. The compact plot (the embed) is shorter
        # and leaves the breach marks to its badge line.
        self.compact = compact
        self.row_height = (46 if large else 40) if compact else 80
        self.label_shift = (17 if large else 14) if compact else 16  # px above or below the lane (down is +)
        self.cells = ColumnDataSource({k: [] for k in (*CELL_COLUMNS, "dy")})
        self.arrows = ColumnDataSource({k: [] for k in ARROW_COLUMNS})  # writes to records, posts to feed
        self.breaches = ColumnDataSource({k: [] for k in ("tick", "lane", "label", "detail", "line", "dy")})
        self._all_cells: dict[str, list] = {}
        self._all_breaches: dict[str, list] = {}
        self._all_arrows: dict[str, list] = {}
        fig = figure(
            height=430,
            sizing_mode="stretch_width",
            y_range=FactorRange(factors=["newsletter"]),
            x_range=Range1d(-0.6, 14.6),
            toolbar_location=None,
            tools="",
            title=None,
            output_backend="svg",  # text the browser can measure (tests check no two labels overlap)
        )
        fig.segment(
            "x",
            "source",
            "x",
            "target",
            source=self.arrows,
            line_color=PALETTE["muted"],
            line_dash="dotted",
        )
        marks = fig.scatter(
            "tick", "lane", source=self.cells, marker="marker", color="colour", size=13, line_width=2
        )
        labels = _labels(fig, self.cells, "13px" if large else "10px", "normal", PALETTE["ink"])
        breach_labels = _labels(fig, self.breaches, "13px" if large else "11px", "bold", PALETTE["bad"])
        # On a narrow screen (a phone) the ticks are too close for words under the marks: show the marks
        # alone, and leave the words to the list above the plot and the badges. Decided in the browser,
        # which alone knows the plot's width; tick labels that would touch are dropped the same way.
        hide = CustomJS(
            args={"fig": fig, "renderers": [labels, breach_labels], "min_px": MIN_PX_PER_TICK_FOR_LABELS},
            code="""
            const span = fig.x_range.end - fig.x_range.start;
            const show = fig.inner_width <= 0 || fig.inner_width / span >= min_px;
            for (const r of renderers) if (r.visible !== show) r.visible = show;
            """,
        )
        fig.js_on_change("inner_width", hide)
        fig.x_range.js_on_change("end", hide)
        fig.xaxis.major_label_policy = NoOverlap()
        if large:  # presenter mode: axis words a room can read
            fig.yaxis.major_label_text_font_size = fig.xaxis.major_label_text_font_size = "14px"
        fig.add_tools(HoverTool(renderers=[labels, marks], tooltips="<div>@detail{safe}</div>"))
        self.now = BoxAnnotation(
            left=-0.5,
            right=0.5,
            fill_alpha=0.08,
            fill_color=PALETTE["accent"],
            line_color=PALETTE["accent"],
            line_width=2,
        )
        fig.add_layout(self.now)
        fig.xaxis.axis_label = "tick"
        fig.xgrid.grid_line_alpha = 0.3
        fig.ygrid.grid_line_alpha = 0.5
        fig.outline_line_color = None
        self.figure = fig

    def set_trace(self, trace: dict) -> None:
        lanes = lanes_of(trace)
        self.figure.y_range.factors = list(reversed(lanes))
        self.figure.height = 60 + self.row_height * len(lanes)
        end = trace["end_tick"]
        # Room on both sides for labels centred on the first and last ticks.
        self.figure.x_range.start, self.figure.x_range.end = -1.1, end + 1.6
        self.figure.xaxis.ticker = list(range(end + 1))
        self.figure.xaxis.major_label_overrides = {t: f"t{t}" for t in range(end + 1)}
        self._all_cells = cells_of(trace)
        self._all_arrows = arrows_of(trace)
        shift = self.label_shift
        self._all_cells["dy"] = [-shift if above else shift for above in self._all_cells["above"]]
        self._all_breaches = breaches_of(trace)
        self._all_breaches["dy"] = [32 + 13 * line for line in self._all_breaches["line"]]

    def set_tick(self, tick: int) -> None:
        self.cells.data = upto(self._all_cells, tick)
        self.arrows.data = upto(self._all_arrows, tick)
        # A compact plot (the embed) has no room under its lanes for breach marks; its badge line says them.
        self.breaches.data = upto(self._all_breaches, -1 if self.compact else tick)
        self.now.left, self.now.right = tick - 0.5, tick + 0.5


def _labels(fig, source: ColumnDataSource, size: str, weight: str, colour: str):
    """Text centred on each row's tick and lane, moved up or down by its ``dy`` column (in pixels)."""
    return fig.text(
        "tick", "lane", text="label", source=source, y_offset="dy", text_align="center",
        text_baseline="middle", text_font_size=size, text_font_style=weight, text_color=colour,
    )  # fmt: skip
