"""The views a reader can open, in order: one registry feeds the state's ``tab`` param, the tab bar and
the URL's ``tab=`` value. A new view is one line here and a ``Viewer`` under ``app/views``."""

from __future__ import annotations

from dataclasses import dataclass

from app.views.compare import CompareView
from app.views.explore import ExploreView
from app.views.reading import EnginesView, GlossaryView, TextView
from app.views.sweep import SweepView
from app.views.trace import TraceView


@dataclass(frozen=True)
class Tab:
    id: str  # in the URL: ?tab=<id>
    title: str  # on the tab
    view: type  # a Viewer taking the reader's state: view(state=...)


TABS: tuple[Tab, ...] = (
    Tab("trace", "Trace", TraceView),
    Tab("compare", "Compare", CompareView),
    Tab("sweep", "All 864", SweepView),
    Tab("explore", "Explore", ExploreView),
    Tab("engines", "Real engines", EnginesView),
    Tab("text", "Text view", TextView),
    Tab("glossary", "Glossary", GlossaryView),
)
TAB_IDS: tuple[str, ...] = tuple(t.id for t in TABS)
