"""All 864: the counts, a matrix of every combination, and a filtered list for the keyboard."""

from __future__ import annotations

from html import escape

import panel as pn
import param
from panel.io.document import unlocked

from app import shared
from app.content import caption_html, titles
from app.views.sweep_matrix import SweepMatrix, matches
from app.views.trace import caption
from model.invariants import INVARIANT_IDS


def counts_html(summary: dict) -> str:
    names = titles("invariants")
    items = "".join(f"<li>{escape(names[i])}: broken in {n}</li>" for i, n in summary["breaks"].items())
    return (
        f"<p>{summary['runs']} combinations: {summary['no_invariant_broken']} break nothing, "
        f'{summary["finished"]} finish.</p><ul class="sweep-counts">{items}</ul>'
    )


def row_words(n: int, row: dict) -> str:
    values = " · ".join(f"{k} {v}" for k, v in row["switches"].items())
    names = titles("invariants")
    breaks = ", ".join(names[i] for i in row["outcome"]["invariants_broken"]) or "nothing broken"
    return f"{n + 1:>3}. {values} — {breaks}"


class SweepView(pn.viewable.Viewer):
    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")

    def __init__(self, **params):
        super().__init__(**params)
        names = titles("invariants")
        filters = {
            "every combination": "all",
            "breaks nothing": "none",
            "breaks something": "any",
            "does not finish": "unfinished",
            **{f"breaks: {names[i]}": i for i in INVARIANT_IDS},
        }
        self.filter = pn.widgets.Select(
            label="Show the combinations that…", options=filters, value="all", css_classes=["sweep-filter"]
        )
        self.list = pn.widgets.Select(
            label="Combinations (choose one, then load it)",
            options={},
            size=12,
            sizing_mode="stretch_width",
            css_classes=["sweep-list"],
        )
        load = pn.widgets.Button(label="Load into the player", color="primary", css_classes=["sweep-load"])
        load.on_click(lambda event: self.list.value is not None and self.load(self.list.value))
        self.matrix = SweepMatrix(shared.sweep_rows(), self.load)
        self.filter.param.watch(lambda e: self.refresh(), "value")
        self.refresh()
        self._layout = pn.Column(
            pn.pane.HTML(
                caption_html("sweep") + counts_html(shared.sweep_summary()),
                sizing_mode="stretch_width",
            ),
            self.filter,
            caption("matrix"),
            pn.pane.Bokeh(self.matrix.figure, sizing_mode="stretch_width", css_classes=["sweep-matrix"]),
            self.list,
            load,
            sizing_mode="stretch_width",
        )

    def refresh(self) -> None:
        wanted = self.filter.value
        with unlocked():
            self.matrix.set_filter(wanted)
        rows = shared.sweep_rows()
        self.list.options = {
            row_words(n, row): n for n, row in enumerate(rows) if matches(row["outcome"], wanted)
        }
        self.list.value = next(iter(self.list.options.values()), None)

    def load(self, n: int) -> None:
        """Put combination ``n`` into the player, from its first tick."""
        switches = {**self.state.values(), **shared.sweep_rows()[n]["switches"]}
        self.state.param.update(**switches, tab="trace", playing=False)
        self.state.go(0)

    def __panel__(self):
        return self._layout
