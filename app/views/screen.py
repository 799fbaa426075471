"""The reader's first screen as one browser component: the header, the player, the diagram, the badges,
the outcome and the tab bar, each a part its view draws (an ``ActionHTML`` that is never shown itself),
with the tour's card and the open tab's view as Panel's own children.

Why one component: each Panel component costs the server a model to build and the browser one to load,
lay out and style in a shadow root of its own. With eight, the page became interactive 1.4 times as late
as a one-widget Panel page; with one, about 1.2 times (``benchmarks/app_bench.py``). The views are
unchanged: they set their part's HTML and get its actions as before, and the other layouts (the embed,
the presenter, a figure, a phone) still show the parts one by one.
"""

from __future__ import annotations

import panel as pn
import param
from panel.custom import Child

from app.views.action_html import ActionHTML, PlainModule, composed

PARTS = ("header", "player", "diagram", "badges", "outcome", "tabs")


class Screen(PlainModule):
    header = param.String(default="", doc="The header's HTML (app.views.controls.Header).")
    player = param.String(default="", doc="The player's HTML (app.views.controls.Player).")
    diagram = param.String(default="", doc="The lead and the diagram (app.views.trace.TraceView).")
    badges = param.String(default="", doc="The badges (app.views.badges.Badges).")
    outcome = param.String(default="", doc="The outcome (app.views.badges.OutcomeView).")
    tabs = param.String(default="", doc="The tab bar.")
    classes = param.Dict(default={}, constant=True, doc="Each part's CSS classes, as its view gave them.")
    tour = Child(doc="Beside the diagram, over the badges: the tour's card or a class's (a Column).")
    below = Child(doc="Under the tab bar: the open tab's view (a Column).")

    _esm = composed("screen.js")

    def __init__(self, parts: dict[str, ActionHTML], tour: pn.viewable.Viewable, below: pn.viewable.Viewable):
        if sorted(parts) != sorted(PARTS):
            raise ValueError(f"a screen's parts are {', '.join(PARTS)}; given {', '.join(parts)}")
        super().__init__(
            **{name: p.html for name, p in parts.items()},
            classes={name: " ".join(p.css_classes) for name, p in parts.items()},
            tour=tour,
            below=below,
            sizing_mode="stretch_width",
            margin=0,
        )
        self._parts = parts
        for name, p in parts.items():
            p.param.watch(lambda event, name=name: setattr(self, name, event.new), "html")

    def _handle_msg(self, msg) -> None:
        # As a part's own component would: the part's receiver checks the action against what it allows.
        if isinstance(msg, dict) and isinstance(msg.get("part"), str) and msg["part"] in self._parts:
            self._parts[msg["part"]]._handle_msg(msg)
