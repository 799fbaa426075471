"""The explainer: ``panel serve app/explainer.py`` serves it at /explainer.

The page is composed of views (``app/views``), each drawing one part from the reader's state
(``app.state.Explainer``): the presets on top; the switches on the left; the player, then the tabs of
``app.tabs``; the badges and the outcome on the right. ``?embed=1`` gives a compact layout.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

import panel as pn

from app.content import heading, markdown_html, text
from app.palette import css_variables
from app.state import Explainer
from app.tabs import TAB_IDS, TABS
from app.views.badges import Badges, OutcomeView
from app.views.controls import Notice, Player, Presets, SwitchPanel
from app.views.shortcuts import Shortcuts
from app.views.trace import TraceView

CSS = [css_variables()] + [Path(__file__).with_name(n).read_text(encoding="utf-8") for n in ("explainer.css", "diagrams.css")]
pn.extension(raw_css=CSS, design="native")


class ExplainerApp:
    """One reader's page: the state, the views over it, and the URL kept in step with it."""

    def __init__(self, state: Explainer | None = None):
        self.state = s = state or Explainer()
        self.switches = SwitchPanel(state=s)
        self.presets = Presets(state=s)
        self.player = Player(state=s)
        self.badges = Badges(state=s)
        self.outcome = OutcomeView(state=s)
        self.notice = Notice(state=s)
        self.views = {tab.id: tab.view(state=s) for tab in TABS}
        self.shortcuts = Shortcuts(self._on_key)
        self.tabs = pn.Tabs(
            *((tab.title, self.views[tab.id]) for tab in TABS),
            sizing_mode="stretch_width", dynamic=True,
            # On a narrow screen the tab names wrap instead of widening the page.
            stylesheets=[".bk-headers-wrapper { flex-wrap: wrap !important; }"],
        )
        self.tabs.param.watch(lambda e: setattr(s, "tab", TAB_IDS[e.new]), "active")
        s.param.watch(lambda e: setattr(self.tabs, "active", TAB_IDS.index(e.new)), ["tab"])
        s.param.watch(self._push_url, [*s.values(), "tick", "tab", "embed", "playing"])
        self._last_query: str | None = None
        self._applying_url = False

    def layout(self) -> pn.viewable.Viewable:
        if self.state.embed:
            return self._embed_layout()
        header = pn.pane.HTML(
            f'<h1>{escape(heading("title"))}</h1><div class="intro">{markdown_html(text("captions", "intro"))}</div>',
            sizing_mode="stretch_width",
        )
        main = pn.Column(self.notice, self.player, self.tabs, styles={"flex": "1 1 560px", "min-width": "300px"},
                         css_classes=["main"])
        side = pn.Column(self.badges, self.outcome, width=340, styles={"flex": "0 0 340px"}, css_classes=["side"])
        controls = pn.Column(self.switches, width=330, styles={"flex": "0 0 330px"}, css_classes=["controls-column"])
        return pn.Column(
            self.shortcuts, header, self.presets,
            pn.FlexBox(controls, main, side, flex_wrap="wrap", align_items="flex-start", sizing_mode="stretch_width",
                       css_classes=["columns"]),
            sizing_mode="stretch_width", css_classes=["explainer"],
        )

    def _embed_layout(self) -> pn.viewable.Viewable:
        controls = pn.Card(self.switches, title="Switches", collapsed=True, sizing_mode="stretch_width")
        return pn.Column(
            self.shortcuts, self.notice, self.player, TraceView(state=self.state, compact=True),
            pn.FlexBox(pn.Column(self.badges, width=340), pn.Column(self.outcome, sizing_mode="stretch_width")),
            controls, sizing_mode="stretch_width", css_classes=["explainer", "embed"],
        )

    # --- keys and the URL --------------------------------------------------------------------------

    def _on_key(self, action: str, msg: dict) -> None:
        if action == "hidden":
            self.state.playing = False
        elif action == "url" and isinstance(msg.get("search"), str):
            self.apply_url(msg["search"])
        else:
            self.player.act(action)

    def _push_url(self, *events) -> None:
        if self.state.playing or self._applying_url:
            return  # one history entry per pause, not one per tick; none for a URL being applied
        query = self.state.to_query()
        location = pn.state.location
        if location is not None and query != self._last_query:
            self._last_query = query
            location.search = query

    def apply_url(self, search: str) -> None:
        self._applying_url = True
        try:
            self.state.apply_query(search)
        finally:
            self._applying_url = False
        self._last_query = self.state.to_query()


def create_app(search: str | None = None) -> pn.viewable.Viewable:
    """A fresh page for one reader; ``search`` is the URL query (read from the browser when served)."""
    app = ExplainerApp()
    if search is None and pn.state.location is not None:
        search = pn.state.location.search
    app.apply_url(search or "")
    page = app.layout()
    page.explainer = app  # for tests and the benchmark
    return page


if __name__.startswith("bokeh_app"):  # run by `panel serve app/explainer.py`, not imported
    create_app().servable(title=heading("page-title"))
