"""Views for reading: the real engines' record, the trace as a text table, and the glossary."""

from __future__ import annotations

import panel as pn
import param

from app.content import caption_html, engine_results, glossary_html
from app.render.engines import engines_html
from app.render.text import events_table_html


class EnginesView(pn.viewable.Viewer):
    state = param.Parameter(doc="The reader's state (unused: the record does not change with the switches).")

    def __panel__(self):
        results = engine_results()
        return pn.pane.HTML(
            caption_html("engines")
            + (engines_html(results) if results else "<p>No engine results are recorded.</p>"),
            sizing_mode="stretch_width",
            css_classes=["engines-view"],
        )


class TextView(pn.viewable.Viewer):
    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")

    def __init__(self, **params):
        super().__init__(**params)
        s = self.state
        self.pane = pn.pane.HTML(
            pn.bind(events_table_html, s.param.trace, s.param.tick),
            sizing_mode="stretch_width",
            css_classes=["text-view"],
        )

    def __panel__(self):
        return pn.Column(
            pn.pane.HTML(caption_html("text")),
            self.pane,
            sizing_mode="stretch_width",
        )


class GlossaryView(pn.viewable.Viewer):
    state = param.Parameter(doc="The reader's state (unused: the glossary is the same for every run).")

    def __panel__(self):
        return pn.pane.HTML(glossary_html(), sizing_mode="stretch_width", css_classes=["glossary-view"])
