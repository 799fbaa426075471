"""The trace view: the diagram, what happens at this tick in words, the three lifecycles and the records."""

from __future__ import annotations

from html import escape

import panel as pn
import param

from app.content import caption_html
from app.render.diagram import how_to_read_html, tick_lines
from app.views.action_html import ActionHTML
from app.views.part import PageView


def now_html(trace: dict, tick: int) -> str:
    """The current tick's events in words, each after its row (read out when the tick changes)."""
    lines = (
        "".join(f"<li>{escape(line)}</li>" for line in tick_lines(trace, tick)) or "<li>nothing happens</li>"
    )
    return f'<div aria-live="polite"><h3>At t{tick}</h3><ul>{lines}</ul></div>'


def caption(name: str, title: str | None = None) -> pn.pane.HTML:
    return pn.pane.HTML(caption_html(name, title), sizing_mode="stretch_width")


class TraceView(PageView):
    """The worked example at the current tick. ``compact``: the lead and the diagram (the first screen
    of every layout); ``lifecycles_only`` the lifecycles (a figure embed); otherwise what is one click
    under the diagram, the "trace" tab: how to read it, the tick's events in words, the three lifecycles
    and the records. Each pane carries its own heading and caption: fewer components."""

    compact = param.Boolean(default=False, doc="The lead and the diagram (every layout's first screen).")
    lifecycles_only = param.Boolean(default=False, doc="Only the three lifecycles (a figure embed).")
    large = param.Boolean(default=False, doc="A larger diagram (presenter mode).")
    lead = param.Boolean(default=True, doc="The lead sentence over the diagram (not in a figure).")

    def __init__(self, **params):
        super().__init__(**params)
        self._shown: tuple[int, int] | None = None  # (trace id, tick) of the lifecycles last drawn
        if self.lifecycles_only:
            panes = [self._bound(lambda trace, tick: self._lifecycles(trace, tick), "lifecycles")]
        elif self.compact:
            # The diagram draws itself through a small browser component, which keeps the current tick in view
            # when the strip scrolls sideways (a phone) and sends a click on a row's name (a switch) or on
            # one of the lead's buttons.
            self.diagram = ActionHTML(self._on_diagram, sizing_mode="stretch_width")
            self.state.param.watch(self._redraw_diagram, ["trace", "tick", "before", "tour"])
            self.page.param.watch(self._redraw_diagram, ["waiting"])  # the lead says less while it waits
            self._redraw_diagram()
            panes = [self.diagram]
        else:
            lifecycles_lead, records_lead = (
                caption_html("lifecycles", "lifecycles"),
                caption_html("records", "records"),
            )
            panes = [
                pn.pane.HTML(how_to_read_html(), sizing_mode="stretch_width", margin=0),
                self._bound(now_html, "now"),
                self._bound(lambda t, tick: lifecycles_lead + self._lifecycles(t, tick), "lifecycles"),
                self._bound(lambda trace, tick: records_lead + self.page.records_html(), "records-view"),
            ]
        self._layout = pn.Column(*panes, sizing_mode="stretch_width")

    def _lifecycles(self, trace: dict, tick: int) -> str:
        """The lifecycles, with each move just taken animated only on a step forward (a step back, a
        scrub or another run jumps)."""
        forward = self._shown == (id(trace), tick - 1)
        self._shown = (id(trace), tick)
        return self.page.lifecycles_html(animate=forward)

    def _bound(self, draw, css: str) -> pn.pane.HTML:
        """An HTML pane redrawn from the trace and the tick."""
        s = self.state
        return pn.pane.HTML(
            pn.bind(draw, s.param.trace, s.param.tick), sizing_mode="stretch_width", css_classes=[css]
        )

    def _on_diagram(self, action: str, value: str) -> None:
        """A row's name is a switch, and the lead has buttons: the page model does what they ask."""
        self.page.act(action, value, "figure")

    def _redraw_diagram(self, *events) -> None:
        lead = self.page.lead_html(changes_only=self.large) if self.lead else ""
        self.diagram.html = lead + self.page.diagram_html(large=self.large)

    def __panel__(self):
        return self._layout
