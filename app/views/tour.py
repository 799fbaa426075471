"""The guided tour's panel: the tour's card (``app.tour.TourCard``: what to watch, a question asked
before the answer is shown, and the verdict read from the model's trace), drawn by one ActionHTML. The
answers are real radio buttons in a fieldset, the rest are buttons, so the keyboard reaches everything
and long answers wrap in a narrow column."""

from __future__ import annotations

import panel as pn
import param

from app.tour import TourCard
from app.views.action_html import ActionHTML


class TourPanel(pn.viewable.Viewer):
    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")

    def __init__(self, **params):
        super().__init__(**params)
        self.card = TourCard(self.state)
        self.html = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["tour"])
        self.state.param.watch(self._new_step, ["tour"])
        self._redraw()

    @property
    def chosen(self) -> int | None:
        return self.card.chosen

    @property
    def verdict(self) -> str:
        return self.card.verdict

    def _new_step(self, *events) -> None:
        self.card.new_step()
        self._redraw()

    def _redraw(self) -> None:
        self.html.html = self.card.html()

    def _act(self, action: str, value: str) -> None:
        self.card.act(action, value)
        self._redraw()

    def reveal(self) -> None:
        self.card.reveal()
        self._redraw()

    def __panel__(self):
        return self.html
