"""All 864 combinations at a glance: a Bokeh matrix of 72 protection settings by 12 event combinations.

Each cell is one run from the model's sweep. It shows how many invariants that run breaks as a digit
(colour only repeats it), the hover names them, and clicking a cell loads the run into the player. The
filter of the "All 864" view dims the cells it leaves out. The keyboard path is the list below it.
"""

from __future__ import annotations

from bokeh.models import ColumnDataSource, FactorRange, HoverTool, TapTool
from bokeh.plotting import figure

from app.palette import PALETTE
from model.switches import Role, ids_of

EVENTS = ids_of(Role.EVENT)  # the columns
PROTECTIONS = ids_of(Role.PROTECTION)  # the rows
SHORT = {
    "during-outage": "outage",
    "after-acceptance": "after acc.",
    "every-step": "every step",
    "end-only": "end only",
    "current-accepted": "current",
    "any-accepted": "any acc.",
    "latest-finished": "latest",
    "per-operation": "per op.",
    "per-attempt": "per att.",
}
# Light to dark with the number of invariants broken; the digit in the cell carries the same fact.
SHADES = ("#e8f3e8", "#fde2d6", "#f7b7a0", "#ee8a6c", "#d9573c", "#b3261e")


def _words(values: dict, ids) -> str:
    return " · ".join(SHORT.get(values[k], values[k]) for k in ids)


def matches(outcome: dict, wanted: str) -> bool:
    broken = outcome["invariants_broken"]
    return (
        wanted == "all"
        or (wanted == "none" and not broken)
        or (wanted == "any" and bool(broken))
        or (wanted == "unfinished" and not outcome["finished"])
        or wanted in broken
    )


class SweepMatrix:
    def __init__(self, rows, on_choose) -> None:
        self.rows = rows
        data = _cells(rows)
        self.source = ColumnDataSource(data)
        self.figure = _figure(self.source, list(dict.fromkeys(data["x"])), list(dict.fromkeys(data["y"])))
        self._on_choose = on_choose
        self.source.selected.on_change("indices", self._chosen)

    def _chosen(self, attr, old, new) -> None:
        if new:
            self._on_choose(self.source.data["index"][new[0]])

    def set_filter(self, wanted: str) -> None:
        self.source.data["alpha"] = [1.0 if matches(r["outcome"], wanted) else 0.15 for r in self.rows]
        self.source.data = dict(self.source.data)


def _cells(rows) -> dict[str, list]:
    """One cell per run: where it sits (events across, protections down), its count of broken invariants
    (a dot when it did not finish), its shade and its detail."""
    data: dict[str, list] = {k: [] for k in ("x", "y", "count", "shade", "detail", "index", "alpha")}
    for n, row in enumerate(rows):
        switches, outcome = row["switches"], row["outcome"]
        broken = outcome["invariants_broken"]
        data["x"].append(_words(switches, EVENTS))
        data["y"].append(_words(switches, PROTECTIONS))
        data["count"].append(str(len(broken)) + ("" if outcome["finished"] else "·"))
        data["shade"].append(SHADES[len(broken)])
        data["detail"].append(
            f"{n + 1}. "
            + ", ".join(f"{k} {v}" for k, v in switches.items())
            + f"<br><b>breaks:</b> {', '.join(broken) or 'nothing'}"
            + f"<br><b>finished:</b> {'yes' if outcome['finished'] else 'no'}"
            + f" · model calls {outcome['model_calls']}"
        )
        data["index"].append(n)
        data["alpha"].append(1.0)
    return data


def _figure(source: ColumnDataSource, xs: list[str], ys: list[str]):
    """The matrix: a shaded rect and its count per cell, a tap chooses the run."""
    fig = figure(
        x_range=FactorRange(*xs),
        y_range=FactorRange(*reversed(ys)),
        height=24 + 13 * len(ys) + 120,
        sizing_mode="stretch_width",
        min_width=560,
        toolbar_location=None,
        tools="",
        x_axis_location="above",
    )
    fig.rect(
        "x", "y", 0.96, 0.9, source=source, fill_color="shade", fill_alpha="alpha",
        line_color=PALETTE["line"], line_alpha="alpha", selection_line_color=PALETTE["accent"],
        selection_line_width=3, nonselection_fill_alpha="alpha", nonselection_line_alpha="alpha",
    )  # fmt: skip
    fig.text(
        "x", "y", text="count", source=source, text_align="center", text_baseline="middle",
        text_font_size="9px", text_alpha="alpha",
    )  # fmt: skip
    fig.add_tools(HoverTool(tooltips="<div style='max-width:420px'>@detail{safe}</div>"), TapTool())
    fig.xaxis.major_label_orientation = 0.9
    fig.xaxis.major_label_text_font_size = "9px"
    fig.yaxis.major_label_text_font_size = "8px"
    fig.grid.visible = False
    fig.outline_line_color = None
    fig.axis.axis_line_color = None
    fig.axis.major_tick_line_color = None
    return fig
