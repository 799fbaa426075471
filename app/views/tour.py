"""The guided tour's panel: the tour's card (``app.tour.TourCard``, held by the page model: what to watch,
a question asked before the answer is shown, and the verdict read from the model's trace), drawn by one
ActionHTML. The answers are real radio buttons in a fieldset, the rest are buttons, so the keyboard
reaches everything and long answers wrap in a narrow column."""

from __future__ import annotations

from app.views.action_html import ActionHTML
from app.views.part import PageView


class TourPanel(PageView):
    def __init__(self, **params):
        super().__init__(**params)
        self.card = self.page.tour
        self.html = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["tour"])
        self.state.param.watch(self._redraw, ["tour"])  # after the page has begun the new step
        self._redraw()

    @property
    def chosen(self) -> int | None:
        return self.card.chosen

    @property
    def verdict(self) -> str:
        return self.card.verdict

    def _redraw(self, *events) -> None:
        self.html.html = self.page.tour_html()

    def _act(self, action: str, value: str) -> None:
        self.page.act(action, value, "tour")
        self._redraw()

    def reveal(self) -> None:
        self.card.reveal()
        self._redraw()

    def __panel__(self):
        return self.html
