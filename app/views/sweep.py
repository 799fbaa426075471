"""All 864: the counts, a matrix of every combination and a list of those the filter keeps, each run a
button that loads it into the player (``app.render.sweep`` draws both)."""

from __future__ import annotations

from html import escape

import panel as pn
import param

from app import shared
from app.content import caption_html, titles
from app.render.sweep import list_html, matrix_html
from app.views.action_html import ActionHTML
from app.views.trace import caption
from model.invariants import INVARIANT_IDS


def counts_html(summary: dict) -> str:
    names = titles("invariants")
    items = "".join(f"<li>{escape(names[i])}: broken in {n}</li>" for i, n in summary["breaks"].items())
    return (
        f"<p>{summary['runs']} combinations: {summary['no_invariant_broken']} break nothing, "
        f'{summary["finished"]} finish.</p><ul class="sweep-counts">{items}</ul>'
    )


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
        self.matrix = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["sweep-matrix"])
        self.list = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["sweep-runs"])
        self.filter.param.watch(lambda e: self.refresh(), "value")
        self.refresh()
        self._layout = pn.Column(
            pn.pane.HTML(
                caption_html("sweep") + counts_html(shared.sweep_summary()),
                sizing_mode="stretch_width",
            ),
            self.filter,
            caption("matrix"),
            self.matrix,
            self.list,
            sizing_mode="stretch_width",
        )

    def refresh(self) -> None:
        rows = shared.sweep_rows()
        self.matrix.html = matrix_html(rows, self.filter.value)
        self.list.html = list_html(rows, self.filter.value)

    def _act(self, action: str, value: str) -> None:
        """A square of the matrix or a line of the list: load that run (anything else is ignored)."""
        if action == "load" and value.isdigit() and int(value) < len(shared.sweep_rows()):
            self.load(int(value))

    def load(self, n: int) -> None:
        """Put combination ``n`` into the player, from its first tick."""
        switches = {**self.state.values(), **shared.sweep_rows()[n]["switches"]}
        self.state.param.update(**switches, tab="trace", playing=False)
        self.state.go(0)

    def __panel__(self):
        return self._layout
