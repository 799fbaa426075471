"""The page's helpers in the browser, which draw nothing: keyboard shortcuts, the back button, page
visibility, the host frame, the group, and the print handout. One component for all of them (each
component is a model, a module and a shadow root a page load pays for).

It listens on the document for Space (play / pause), ← / → (step), Home / End (first / last tick), for the
browser's back and forward buttons (popstate), and for the page being hidden (so playback pauses and burns
no CPU nobody watches), and sends each to Python as a message.

With ``?group=NAME`` it also keeps the frames of one host page on one tick: it announces each tick this
page moves to on a BroadcastChannel of that name, and moves to the ticks the others announce (the channel
reaches only pages of the same origin, which every frame of one site is).

And it keeps the handout (``app.render.handout``) in a plain element at the top of the document, where a
print stylesheet can show it alone (rules cannot reach into the components' shadow roots, so they hide the
page's top-level elements instead). Its content sits in a closed shadow root with its own styles: on screen
it is not there for anyone, readers, assistive technology or scripts looking for the page's controls.
"""

from __future__ import annotations

from pathlib import Path

import param

from app.url import browser_table
from app.views.action_html import PlainModule, composed

JS = Path(__file__).with_name("js")  # the components' browser code, where a linter sees it


class Helpers(PlainModule):
    tick = param.Integer(default=0, doc="The tick on show, announced to the page's group (if any).")
    group = param.String(default="", doc="The group's name (?group=NAME), or none.")
    table = param.Dict(default=browser_table(), constant=True, doc="The keys and the tick's pattern.")
    html = param.String(default="", doc="The print handout for the run on show.")
    css = param.String(default="", doc="The styles the handout needs (it has its own shadow root).")

    _esm = composed("helpers.js")

    def __init__(self, on_action, **params):
        super().__init__(**params)
        self._on_action = on_action
        self._told = False  # handling a tick another frame of the group told
        self.param.watch(self.announce, ["tick"])

    def _handle_msg(self, msg) -> None:
        if isinstance(msg, dict) and isinstance(msg.get("action"), str):
            self._told = msg.get("told") is True
            try:
                self._on_action(msg["action"], msg)
            finally:
                self._told = False

    def announce(self, event) -> None:
        """Tell the group a move of the tick, unless a told tick caused it (clamped or not): its echo
        would pull back the frame that is playing. The move happens while the told message is handled, so
        this knows, however late the answer reaches the browser."""
        if self.group and not self._told:
            self._send_msg({"tick": event.new})


class Presenter(PlainModule):
    """Presenter mode's page-wide settings, which styles inside the components' shadow roots cannot set:
    type that grows with the screen (every size in the page's CSS is in rem) and higher contrast (the
    palette's variables are inherited into every shadow root)."""

    _esm = JS / "presenter.js"
