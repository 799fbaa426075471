"""The reader's controls: the presets, the switches and the player, each one ActionHTML drawing a part of
the page model (``app.page.PageModel``), which also does what the browser sends."""

from __future__ import annotations

import panel as pn
import param

from app.views.action_html import ActionHTML
from app.views.part import PageView
from model.schedule import SCHEDULE_IDS
from model.switches import ALL_SETTINGS


class SwitchPanel(PageView):
    """Every setting the model declares, grouped by role."""

    def __init__(self, **params):
        super().__init__(**params)
        self.html = ActionHTML(self._act, css_classes=["controls"], sizing_mode="stretch_width")
        self.state.param.watch(self._redraw, [*ALL_SETTINGS, *SCHEDULE_IDS])
        self.page.param.watch(self._redraw, ["advanced_open"])
        self._redraw()

    def _redraw(self, *events) -> None:
        self.html.html = self.page.switches_html()

    def _act(self, action: str, value: str) -> None:
        self.page.act(action, value, "switches")

    def __panel__(self):
        return self.html


class Header(PageView):
    """The page's title (and, unless compact, its introduction), what was wrong with the link, the chapters
    of the story, and the words of the chapter on show."""

    compact = param.Boolean(default=False, doc="A short title and no introduction (the embed's layout).")
    chapters = param.Boolean(default=True, doc="The chapters' buttons even when compact (presenter mode).")
    outside = param.Boolean(
        default=True,
        doc="The chapters outside the article too (a projector's screen has no line to spare for them).",
    )
    menu_only = param.Boolean(
        default=False, doc="The chapters' menu and the tour's link alone (presenter mode, under the diagram)."
    )

    def __init__(self, **params):
        super().__init__(**params)
        self.html = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["header"])
        self.state.param.watch(self._redraw, [*ALL_SETTINGS, *SCHEDULE_IDS, "notices", "tour"])
        self.param.watch(self._redraw, ["compact", "chapters", "outside", "menu_only"])
        self._redraw()

    def _redraw(self, *events) -> None:
        self.html.html = self.page.header_html(
            self.compact, self.chapters, outside=self.outside, menu_only=self.menu_only
        )

    def _act(self, action: str, value: str) -> None:
        self.page.act(action, value, "header")

    def __panel__(self):
        return self.html


class Player(PageView):
    """First, back, play or pause, forward, last; the scrubber; the speed. Playback is a periodic
    callback that steps one tick (no threads: Pyodide has none), stopped whenever playing stops."""

    badges_always = param.Boolean(default=False, doc="Show the line of badges on every screen (the embed).")
    keys = param.Boolean(
        default=True, doc="Name the keyboard keys under the player (not in a compact layout)."
    )
    figure = param.Boolean(default=False, doc="Only the buttons and the scrubber (a figure's player).")

    def __init__(self, **params):
        super().__init__(**params)
        self.html = ActionHTML(self.act, sizing_mode="stretch_width")
        self.param.watch(self._redraw, ["badges_always", "keys", "figure"])
        self._callback = None
        self.state.param.watch(self._redraw, ["tick", "trace", "playing", "speed", "before", "pause"])
        self.page.param.watch(self._redraw, ["waiting"])  # the marks after the tick, hidden or shown
        self.state.param.watch(self._pace, ["playing", "speed", "tick", "pause"])
        self._redraw()

    def _redraw(self, *events) -> None:
        self.html.html = self.page.player_html(self.figure, self.badges_always, self.keys)

    def act(self, action: str, value: str = "") -> None:
        """Do what a button, a key or the scrubber asked for."""
        self.page.act(action, value, "player")

    def _pace(self, *events) -> None:
        """Start, stop or re-time the timer that advances one tick while the player plays."""
        s = self.state
        period = self.page.period()  # longer on a key moment
        if self._callback is None and s.playing:
            self._callback = pn.state.add_periodic_callback(s.advance, period=period, start=False)
        if self._callback is not None:
            if self._callback.period != period:
                self._callback.period = period
            if s.playing and not self._callback.running:
                self._callback.start()
            elif not s.playing and self._callback.running:
                self._callback.stop()

    def __panel__(self):
        return self.html
