"""The views a reader can open, in order: one registry feeds the state's ``tab`` param, the tab bar and
the URL's ``tab=`` value. A new view is one line here and a ``Viewer`` under ``app/views``.

A view is named, not imported: the state (and the light explainer, which has no Panel) reads the ids
without loading any view."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module


@dataclass(frozen=True)
class Tab:
    id: str  # in the URL: ?tab=<id>
    title: str  # on the tab
    where: str  # "module:Class" of a Viewer taking the reader's state

    @property
    def view(self) -> type:
        module, name = self.where.split(":")
        return getattr(import_module(module), name)


TABS: tuple[Tab, ...] = (
    Tab("trace", "Lifecycles and records", "app.views.trace:TraceView"),
    Tab("switches", "Switches", "app.views.controls:SwitchPanel"),
    Tab("compare", "Compare", "app.views.compare:CompareView"),
    Tab("sweep", "All 864", "app.views.sweep:SweepView"),
    Tab("explore", "Explore", "app.views.explore:ExploreView"),
    Tab("engines", "Real engines", "app.views.reading:EnginesView"),
    Tab("text", "Text view", "app.views.reading:TextView"),
    Tab("glossary", "Glossary", "app.views.reading:GlossaryView"),
)
TAB_IDS: tuple[str, ...] = tuple(t.id for t in TABS)
