"""The invariant badges (activating one explains it and jumps to where it broke) and the outcome: parts of
the page model (``app.page.PageModel``), which keeps the explanation and the reveal rule."""

from __future__ import annotations

import param

from app.views.action_html import ActionHTML
from app.views.part import PageView


class Badges(PageView):
    def __init__(self, **params):
        super().__init__(**params)
        self.html = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["badges-view"])
        self.state.param.watch(self._redraw, ["trace", "tick"])
        self.page.param.watch(self._redraw, ["explanation"])
        self._redraw()

    @property
    def explanation(self) -> str:
        return self.page.explanation

    def _redraw(self, *events) -> None:
        self.html.html = self.page.badges_html(interactive=True)

    def _act(self, action: str, value: str) -> None:
        self.page.act(action, value, "badges")

    def explain(self, badge: str) -> None:
        """Say what the badge means and where it broke, and go to that tick."""
        self.page.explain(badge)

    def __panel__(self):
        return self.html


class OutcomeView(PageView):
    """What the run has cost so far; how it ends only at the last tick or when the reader asks, so a class
    can predict before it steps."""

    compact = param.Boolean(default=False, doc="No heading or caption (the embed's layout).")

    def __init__(self, **params):
        super().__init__(**params)
        self.pane = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["outcome-view"])
        self.state.param.watch(self._redraw, ["outcome", "trace", "tick"])
        self.page.param.watch(self._redraw, ["revealed"])
        self.param.watch(self._redraw, ["compact"])
        self._redraw()

    @property
    def revealed(self) -> bool:
        return self.page.revealed

    def _redraw(self, *events) -> None:
        self.pane.html = self.page.outcome_html(lead=not self.compact)

    def _act(self, action: str, value: str) -> None:
        self.page.act(action, value, "outcome")

    def __panel__(self):
        return self.pane
