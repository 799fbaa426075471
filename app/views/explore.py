"""Explore: the reader's protections against every schedule of the explorer's space.

Per invariant (and for runs that do not finish): held under all N schedules, or broken under k of N with
the smallest case, in words, and a button that loads it into the player at the tick it breaks. Below, the
schedule of the run on show, editable (advanced): each value either follows the switches or replaces
them, and the link carries it.
"""

from __future__ import annotations

import asyncio
from html import escape

import panel as pn
import param

from app import shared
from app.content import caption_html, markdown_html, text
from app.render.explore import (
    RANGE_LABELS,
    against_html,
    case_query,
    headline_html,
    names,
    progress_html,
    result_html,
)
from model.explore import PROTECTIONS, WIDER, schedule_list, space_with
from model.schedule import FIELD_BY_ID, SCHEDULE_IDS

#: Seconds between redraws of a search's progress bar.
PROGRESS_EVERY = 0.25

#: Short labels for the schedule's menus (each fits one line of a menu's width).
LABELS = {
    "silent_attempt": "Attempt that goes silent",
    "silent_at": "Goes silent at step",
    "silent_for": "Silent for (ticks)",
    "threshold": "Missed beats to UNKNOWN",
    "correction_at": "Report corrected at tick",
    "poster_death": "First poster dies",
    "successor_stall": "Successor stalls (ticks)",
}


def fields_html() -> str:
    """What each menu means, in words, once."""
    items = "".join(f"<li><b>{LABELS[f]}</b>: {FIELD_BY_ID[f].help}.</li>" for f in SCHEDULE_IDS)
    return f'<ul class="explore-fields">{items}</ul>'


def notes_html() -> str:
    """The scenario notes (what the search found and what it changed), folded under the headline."""
    return (
        '<details class="explore-notes"><summary>Scenario notes: what the search found</summary>'
        f"{markdown_html(text('explore', 'findings'))}</details>"
    )


class ExploreView(pn.viewable.Viewer):
    state = param.Parameter(doc="The reader's state (app.state.ReaderState).")

    def __init__(self, **params):
        super().__init__(**params)
        self.summary = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["explore-summary"])
        self.results = pn.Column(sizing_mode="stretch_width", css_classes=["explore-results"])
        self.schedule_words = pn.pane.HTML("", sizing_mode="stretch_width")
        editors = [self._editor(field_id) for field_id in SCHEDULE_IDS]
        reset = pn.widgets.Button(label="Back to the article's schedule", css_classes=["explore-reset"])
        reset.on_click(lambda event: self.state.reset_schedule())
        self.ranges = {
            field_id: pn.widgets.Select(label=RANGE_LABELS[field_id], options=list(choices), width=260)
            for field_id, choices in WIDER.items()
        }
        self.search_button = pn.widgets.Button(label="Search these ranges", css_classes=["explore-search"])
        self.search_button.on_click(self.search)
        self.wider = pn.Column(sizing_mode="stretch_width", css_classes=["explore-wider"])
        self.state.param.watch(self._redraw, ["trace"])
        self._shown: tuple | None = None
        self._redraw()
        self._layout = pn.Column(
            pn.pane.HTML(
                caption_html("explore") + headline_html(shared.explored()) + notes_html(),
                sizing_mode="stretch_width",
            ),
            self.summary,
            self.results,
            pn.pane.HTML(
                f"<h3>Search wider ranges</h3>{markdown_html(text('explore', 'wider'))}",
                sizing_mode="stretch_width",
                stylesheets=["code { overflow-wrap: anywhere; }"],  # the command line, on a phone
            ),
            pn.FlexBox(*self.ranges.values(), css_classes=["explore-ranges"]),
            self.search_button,
            self.wider,
            pn.pane.HTML("<h3>The schedule on show (advanced)</h3>", sizing_mode="stretch_width"),
            self.schedule_words,
            pn.pane.HTML(fields_html(), sizing_mode="stretch_width"),
            pn.FlexBox(*editors, css_classes=["explore-schedule"]),
            reset,
            sizing_mode="stretch_width",
        )

    def _editor(self, field_id: str) -> pn.widgets.Select:
        """A menu per value, with a short label (the full meaning is in the list above the menus)."""
        as_switches = self.state.param[field_id].default  # the override that keeps the switches' value
        options = {
            "as the switches say" if v == as_switches else v: v for v in self.state.param[field_id].objects
        }
        select = pn.widgets.Select(
            label=LABELS[field_id], options=options, value=getattr(self.state, field_id), width=230
        )
        # Both ways: the menu sets the state; a link, a preset or the reset sets the menu.
        select.param.watch(lambda event: setattr(self.state, field_id, event.new), "value")
        self.state.param.watch(lambda event: setattr(select, "value", event.new), field_id)
        return select

    def protections(self) -> tuple[tuple[str, str], ...]:
        return tuple((k, getattr(self.state, k)) for k in PROTECTIONS)

    def _redraw(self, *events) -> None:
        schedule = self.state.schedule()
        self.schedule_words.object = f"<p>{escape(schedule.words())}.</p>"
        protections = self.protections()
        if protections == self._shown:
            return
        self._shown = protections
        row = shared.explore_row(protections)
        self.summary.object = f"<p>{against_html(dict(protections), row['runs'])}:</p>"
        self.results.objects = self._result_items(row)
        self.wider.objects = []  # a wider search was for other protections

    def _result_items(self, row: dict) -> list:
        """Held or broken, per invariant, with a button that loads the smallest case."""
        items = []
        for what, name in names().items():
            items.append(pn.pane.HTML(result_html(what, name, row), sizing_mode="stretch_width"))
            if row["broken"][what]:
                button = pn.widgets.Button(
                    label=f"Load the smallest case ({name.lower()})", css_classes=["explore-load"]
                )
                button.on_click(lambda event, case=row["smallest"][what]: self.load(case))
                items.append(button)
        return items

    async def search(self, event=None) -> None:
        """Search the wider ranges the menus choose, for the reader's protections, off the page's thread
        (some seconds), saying how many schedules first."""
        space = space_with({field_id: menu.value for field_id, menu in self.ranges.items()})
        protections = self.protections()
        total = len(schedule_list(space))
        against = against_html(dict(protections), total)
        self.search_button.disabled = True
        bar = pn.pane.HTML(progress_html(0, total), sizing_mode="stretch_width")
        self.wider.objects = [pn.pane.HTML(f'<p role="status">Searching: {against}…</p>'), bar]
        told = [0, 0]  # (done, in all): written by the search's thread, read here on the page's own

        def progress(done: int, total: int) -> None:
            told[:] = done, total

        searching = asyncio.ensure_future(
            asyncio.to_thread(shared.explore_wider, protections, tuple(space.items()), progress)
        )
        try:
            while not searching.done():
                await asyncio.wait({searching}, timeout=PROGRESS_EVERY)
                if told[1]:
                    bar.object = progress_html(*told)
            row = searching.result()
        finally:
            self.search_button.disabled = False
        if protections != self.protections():
            self.wider.objects = []  # the reader changed the protections meanwhile: this answer is stale
            return
        self.wider.objects = [pn.pane.HTML(f'<p role="status">{against}:</p>'), *self._result_items(row)]

    def load(self, case: dict) -> None:
        """Replay a case in the player, at the tick it breaks."""
        self.state.apply_query(case_query(case, tab="trace"))

    def __panel__(self):
        return self._layout
