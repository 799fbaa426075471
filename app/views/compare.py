"""Compare: the reader's run beside the same events with every protection on, and one change at a time."""

from __future__ import annotations

import panel as pn
import param

from app import shared
from app.render.compare import compare_html, one_change_html
from app.views.trace import caption
from model.analyses import first_divergence
from model.switches import protected_counterpart


class CompareView(pn.viewable.Viewer):
    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")
    parts_at = param.Integer(default=None, allow_None=True, doc="The first tick at which the two runs part.")

    def __init__(self, **params):
        super().__init__(**params)
        self.body = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["compare-view"])
        self.jump = pn.widgets.Button(
            label="Go to the first difference", color="default", css_classes=["compare-jump"]
        )
        self.jump.on_click(lambda event: self.jump_to_divergence())
        self.state.param.watch(self._redraw, ["trace"])
        self._redraw()
        self._layout = pn.Column(
            caption("compare"),
            self.body,
            self.jump,
            pn.pane.HTML(one_change_html(shared.one_change_rows()), sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
        )

    def _redraw(self, *events) -> None:
        s = self.state
        mine, schedule = s.switches(), s.schedule()
        # The same events, and the same schedule, with every protection on.
        protected = protected_counterpart(mine)
        protected_trace = shared.trace_for(protected, schedule)
        self.parts_at = first_divergence(s.trace, protected_trace)
        self.body.object = compare_html(
            s.outcome,
            shared.outcome_for(protected, schedule),
            s.trace,
            protected_trace,
            mine.differences(protected),
            self.parts_at,
            shared.from_scratch(mine, schedule),
        )
        self.jump.visible = self.parts_at is not None

    def jump_to_divergence(self) -> None:
        if self.parts_at is not None:
            self.state.tab = "trace"
            self.state.go(self.parts_at)

    def __panel__(self):
        return self._layout
