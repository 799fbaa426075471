"""The reader's controls: the presets, the switches and the player, each one ActionHTML drawn by a
renderer in ``app.render.controls``. What the browser sends is checked here against what is allowed."""

from __future__ import annotations

from html import escape

import panel as pn
import param

from app.content import heading, markdown_html, text
from app.render.controls import header_html, player_html, switches_html
from app.render.outcome import badge_strip_html
from app.state import PRESETS, SPEEDS
from app.views.action_html import ActionHTML
from model.schedule import FIELD_BY_ID, SCHEDULE_IDS
from model.switches import ALL_SETTINGS


class SwitchPanel(pn.viewable.Viewer):
    """Every setting the model declares, grouped by role."""

    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")
    advanced_open = param.Boolean(default=False, doc="Whether the advanced settings are shown.")

    def __init__(self, **params):
        super().__init__(**params)
        self.html = ActionHTML(self._act, css_classes=["controls"], sizing_mode="stretch_width")
        self.state.param.watch(self._redraw, [*ALL_SETTINGS, *SCHEDULE_IDS])
        self.param.watch(self._redraw, ["advanced_open"])
        self._redraw()

    def _redraw(self, *events) -> None:
        replaced = frozenset(FIELD_BY_ID[k].switch for k in self.state.schedule_changes()) - {None}
        self.html.html = switches_html(self.state.values(), self.advanced_open, replaced)

    def _act(self, action: str, value: str) -> None:
        if action == "advanced":
            self.advanced_open = value == "open"
        elif action == "set":
            self.state.set_switch(value)

    def __panel__(self):
        return self.html


class Header(pn.viewable.Viewer):
    """The page's title (and, unless compact, its introduction), what was wrong with the link, the chapters
    of the story, and the words of the chapter on show."""

    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")
    compact = param.Boolean(default=False, doc="A short title and no introduction (the embed's layout).")
    chapters = param.Boolean(default=True, doc="The chapters' buttons even when compact (presenter mode).")

    def __init__(self, **params):
        super().__init__(**params)
        self.html = ActionHTML(self._act, sizing_mode="stretch_width", css_classes=["header"])
        self.state.param.watch(self._redraw, [*ALL_SETTINGS, *SCHEDULE_IDS, "notices", "tour"])
        self.param.watch(self._redraw, ["compact", "chapters"])
        self._redraw()

    def _redraw(self, *events) -> None:
        s = self.state
        if self.compact:
            title = f'<h1 class="compact">{escape(heading("page-title"))}</h1>'
        else:
            intro = markdown_html(text("captions", "intro"))
            title = f'<h1>{escape(heading("title"))}</h1><div class="intro">{intro}</div>'
        # The embed shows its own chapter; presenter mode keeps the buttons to move between chapters.
        chapters = list(PRESETS) if not self.compact or self.chapters else []
        # A run on another schedule says so where every reader looks (a link from the explorer lands here).
        schedule = s.schedule().words() if s.schedule_changes() else None
        self.html.html = header_html(title, s.notices, chapters, s.preset_name(), bool(s.tour), schedule)

    def _act(self, action: str, value: str) -> None:
        if action == "preset" and value in PRESETS:
            self.state.apply_preset(value)
        elif action == "article-schedule":
            self.state.reset_schedule()
        elif action == "edit-schedule":
            self.state.tab = "explore"

    def __panel__(self):
        return self.html


class Player(pn.viewable.Viewer):
    """First, back, play or pause, forward, last; the scrubber; the speed. Playback is a periodic
    callback that steps one tick (no threads: Pyodide has none), stopped whenever playing stops."""

    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")
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
        self.state.param.watch(self._redraw, ["tick", "trace", "playing", "speed"])
        self.state.param.watch(self._pace, ["playing", "speed"])
        self._redraw()

    def _redraw(self, *events) -> None:
        s = self.state
        # On a phone the badges sit far below; a strip of them right under the player shows what each step
        # does to them (the CSS shows it only on narrow screens).
        if self.figure:
            self.html.html = player_html(s.tick, s.end_tick, s.playing, s.speed, [], keys=False)
            return
        strip = badge_strip_html(s.trace, s.tick, s.outcome, always=self.badges_always)
        keys = self.keys and not self.badges_always  # the embed and presenter keep their height down
        self.html.html = player_html(s.tick, s.end_tick, s.playing, s.speed, list(SPEEDS), keys) + strip

    def act(self, action: str, value: str = "") -> None:
        """Do what a button, a key or the scrubber asked for."""
        self.state.player_action(action, value)

    def _pace(self, *events) -> None:
        """Start, stop or re-time the timer that advances one tick while the player plays."""
        s = self.state
        if self._callback is None and s.playing:
            self._callback = pn.state.add_periodic_callback(s.advance, period=SPEEDS[s.speed], start=False)
        if self._callback is not None:
            self._callback.period = SPEEDS[s.speed]
            if s.playing and not self._callback.running:
                self._callback.start()
            elif not s.playing and self._callback.running:
                self._callback.stop()

    def __panel__(self):
        return self.html
