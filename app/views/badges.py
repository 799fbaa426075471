"""The invariant badges (activating one explains it and jumps to where it broke) and the outcome."""

from __future__ import annotations

from html import escape

import panel as pn
import param

from app.content import caption_html, heading, markdown_html, text, title_and_body
from app.render.outcome import badges_html, finished_text, outcome_html
from app.views.action_html import ActionHTML


class Badges(pn.viewable.Viewer):
    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")

    def __init__(self, **params):
        super().__init__(**params)
        self.html = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["badges-view"])
        self.explanation = ""  # what the last badge activated says; cleared when the run changes
        self.state.param.watch(self._forget, ["trace"])
        self.state.param.watch(self._redraw, ["trace", "tick"])
        self._redraw()

    def _forget(self, *events) -> None:
        self.explanation = ""

    def _redraw(self, *events) -> None:
        s = self.state
        self.html.html = (
            f"<h2>{escape(heading('invariants'))}</h2>"
            + badges_html(s.trace, s.tick, s.outcome, interactive=True)
            + f'<div class="explanation">{self.explanation}</div>'
        )

    def _act(self, action: str, value: str) -> None:
        if action == "explain" and value in {*(i["id"] for i in self.state.trace["invariants"]), "finished"}:
            self.explain(value)

    def explain(self, badge: str) -> None:
        """Say what the badge means and where it broke, and go to that tick."""
        s = self.state
        title, body = title_and_body(text("invariants", badge))
        if badge == "finished":
            s.go(s.end_tick)
            state = finished_text(s.outcome, s.trace, s.tick)
            detail = f"At the end of this run: {'finished' if s.outcome['finished'] else 'not finished'}."
            if s.outcome.get("stopped_at_limit") is not None:
                detail += f" The run was stopped at t{s.outcome['stopped_at_limit']}, the limit of a run."
        else:
            breach = next(i["breach"] for i in s.trace["invariants"] if i["id"] == badge)
            state = "broken" if breach else "held"
            detail = (
                f"Broken at t{breach['tick']} by {breach['actor']}: {breach['detail']}."
                if breach
                else "Held for the whole run."
            )
            if breach:
                s.go(breach["tick"])
        self.explanation = (
            f'<div class="explain" role="status"><h3>{escape(title)} — {state}</h3>{markdown_html(body)}'
            f"<p><strong>{escape(detail)}</strong></p></div>"
        )
        self._redraw()

    def __panel__(self):
        return self.html


class OutcomeView(pn.viewable.Viewer):
    """What the run has cost so far; how it ends only at the last tick or when the reader asks, so a class
    can predict before it steps."""

    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")
    revealed = param.Boolean(default=False, doc="Whether the reader asked to see the ending before the end.")
    compact = param.Boolean(default=False, doc="No heading or caption (the embed's layout).")

    def __init__(self, **params):
        super().__init__(**params)
        self.pane = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["outcome-view"])
        self.state.param.watch(self._forget, ["trace"])
        self.state.param.watch(self._redraw, ["outcome", "trace", "tick"])
        self.param.watch(self._redraw, ["revealed", "compact"])
        self._redraw()

    def _forget(self, *events) -> None:
        self.revealed = False

    def _redraw(self, *events) -> None:
        s = self.state
        ending = self.revealed or s.tick >= s.end_tick
        lead = "" if self.compact else caption_html("outcome", "outcome")
        self.pane.html = lead + outcome_html(s.outcome, s.trace, s.tick, reveal=ending, offer=True)

    def _act(self, action: str, value: str) -> None:
        if action == "reveal":
            self.revealed = True

    def __panel__(self):
        return self.pane
