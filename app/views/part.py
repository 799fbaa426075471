"""What every view of a part of the page shares: the page model it draws (``app.page.PageModel``)."""

from __future__ import annotations

import panel as pn
import param

from app.page import PageModel


class PageView(pn.viewable.Viewer):
    """A view of one part of the page. Give it the page (the app does, so that every part shares one);
    given only a state, it makes a page of its own (a view on its own, in a test)."""

    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")
    page = param.Parameter(default=None, doc="The page model (app.page.PageModel) this view is a part of.")

    def __init__(self, **params):
        super().__init__(**params)
        if self.page is None:
            self.page = PageModel(self.state)
        self.state = self.page.state
