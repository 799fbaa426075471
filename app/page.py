"""The page, without Panel: the reader's state, what every click and key does to it, and the HTML of each
part it shows. The served app's views (``app.views``) and the light page (``app.light``) both wrap one
``PageModel``, so a rule of the page (which action does what, when the ending is shown, what a badge says
when activated) is written once and tested without a browser.

Only the standard library, param and markdown-it-py are needed, as for ``app.light``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from html import escape

import param

from app.content import caption_html, heading, markdown_html, text, title_and_body
from app.render.before_after import change_buttons, change_sentence, lead_text
from app.render.controls import header_html, lead_html, player_html, switches_html
from app.render.diagram import diagram_html, key_moments
from app.render.lifecycles import lifecycles_html
from app.render.outcome import badge_strip_html, badges_html, finished_text, outcome_html
from app.render.records import records_html
from app.state import MOMENT_PAUSE, PRESETS, SPEEDS, ReaderState
from app.tour import TourCard
from app.url import OUTSIDE_ARTICLE
from model.analyses import compare_runs
from model.schedule import FIELD_BY_ID

# What every session showing the same run at the same tick draws alike, drawn once: a class's phones all
# show the teacher's, and the diagram was a third of a phone's step in the server's Python. Keyed by the
# traces' identities (every session of a process takes a run's trace from one cache: app.state.made_run)
# and kept with them, so an identity is not reused while its entry lives.
_DRAWN: OrderedDict[tuple, tuple] = OrderedDict()
DRAWN_KEPT = 64  # drawings: about 15 kB each, and the traces they keep are those sessions show anyway


def drawn_once(kind: str, trace: dict, before: dict | None, args: tuple, draw: Callable[[], object]):
    """``draw()``, or what it gave for the same ``kind``, traces and ``args`` while that is kept."""
    key = (kind, id(trace), id(before), args)
    kept = _DRAWN.get(key)
    if kept is not None and kept[0] is trace and kept[1] is before:
        _DRAWN.move_to_end(key)
        return kept[2]
    made = draw()
    _DRAWN[key] = (trace, before, made)
    if len(_DRAWN) > DRAWN_KEPT:
        _DRAWN.popitem(last=False)
    return made


class PageModel(param.Parameterized):
    """One reader's page. ``act`` is the only way a click or a key changes it; the ``*_html`` methods are
    the parts, each for the layout options a view of it has."""

    state = param.ClassSelector(class_=ReaderState, constant=True, doc="The reader's choices and the run.")
    revealed = param.Boolean(default=False, doc="The reader asked to see the ending before the last tick.")
    explanation = param.String(default="", doc="What the badge the reader activated says (HTML).")
    advanced_open = param.Boolean(default=False, doc="Whether the advanced settings are shown.")
    waiting = param.Boolean(
        default=False,
        doc="A tour question waits for its answer: the parts that would tell what comes after the tick "
        "(the scrubber's marks) redraw when it is asked and when it is answered.",
    )
    steady = param.Boolean(
        default=False,
        doc="Fold the ending, so the outcome keeps one height from the first tick to the last (an embed's "
        "frame, which should not grow as the reader steps; the diagram always keeps the room its run "
        "needs). The served app does for ?embed=1; the light page always, its page and its embed sharing "
        "their parts.",
    )

    @property
    def keeps_height(self) -> bool:
        """Whether the parts keep the height the whole run needs (``steady``, or the served ``?embed=1``)."""
        return self.steady or self.state.embed

    def __init__(self, state: ReaderState | None = None, **params) -> None:
        super().__init__(state=state or ReaderState(), **params)
        self._compared: tuple = (None, None, None)  # (before, trace, their comparison), by identity
        self.tour = TourCard(self.state)
        # Registered before any view's watcher, so a view redraws a tour step already begun.
        self.state.param.watch(lambda event: self._new_step(), ["tour"])
        self.state.param.watch(self._forget, ["trace"])

    def _new_step(self) -> None:
        self.tour.new_step()
        self.waiting = self.question_waits

    def _forget(self, *events) -> None:
        """Another run: its ending is not revealed, and no badge has been asked about."""
        self.param.update(revealed=False, explanation="")

    # --- what the reader does ------------------------------------------------------------------------

    def act(self, action: str, value: str = "", part: str = "") -> None:
        """A click or a key from ``part`` of the page. The tour's card has buttons of its own ("back" there
        is not the player's); every other action means the same wherever it comes from. Anything unknown,
        or a value not allowed, is ignored: it came from a browser."""
        s = self.state
        if part == "tour":
            self.tour.act(action, value)
            self.waiting = self.question_waits
        elif action == "preset":
            if value in PRESETS:
                s.apply_preset(value)
        elif action == "set":  # a switch, from the panel or a row of the diagram
            s.set_switch(value)
        elif action == "compare":  # the reader hides the run before the last switch
            if value == "off":
                s.before = None
        elif action == "reveal":
            self.revealed = True
        elif action == "explain":
            self.explain(value)
        elif action == "advanced":
            self.advanced_open = value == "open"
        elif action == "article-schedule":
            s.reset_schedule()
        elif action == "edit-schedule":
            s.tab = "explore"
        elif action == "advance":  # one tick of playback (the timer is the page's)
            s.advance()
        else:
            s.player_action(action, value)

    @property
    def ending_shown(self) -> bool:
        """The outcome says how the run ends only at its last tick, or once the reader asked: a class can
        predict first."""
        return self.revealed or self.state.tick >= self.state.end_tick

    def explain(self, badge: str) -> None:
        """Say what a badge means and where it broke, and go to that tick (the end, for "finished")."""
        s = self.state
        if badge not in {*(i["id"] for i in s.trace["invariants"]), "finished"}:
            return
        title, body = title_and_body(text("invariants", badge))
        if badge == "finished":
            s.go(s.end_tick)
            said = finished_text(s.outcome, s.trace, s.tick)
            detail = f"At the end of this run: {'finished' if s.outcome['finished'] else 'not finished'}."
            if s.outcome.get("stopped_at_limit") is not None:
                detail += f" The run was stopped at t{s.outcome['stopped_at_limit']}, the limit of a run."
        else:
            breach = next(i["breach"] for i in s.trace["invariants"] if i["id"] == badge)
            said = "broken" if breach else "held"
            detail = (
                f"Broken at t{breach['tick']} by {breach['actor']}: {breach['detail']}."
                if breach
                else "Held for the whole run."
            )
            if breach:
                s.go(breach["tick"])
        self.explanation = (
            f'<div class="explain" role="status"><h3>{escape(title)} — {said}</h3>{markdown_html(body)}'
            f"<p><strong>{escape(detail)}</strong></p></div>"
        )

    # --- what the page shows -------------------------------------------------------------------------

    def header_html(
        self,
        compact: bool = False,
        chapters: bool = True,
        editable: bool = True,
        outside: bool = True,
        menu_only: bool = False,
    ) -> str:
        """The title (with its one sentence unless compact), what was wrong with the link, the chapters'
        menu (a compact header keeps it only if ``chapters``; those outside the article only if
        ``outside``) with the link into the tour, and a note when the run is not on the article's
        schedule (outside the tour). ``menu_only``: the menu and the link alone (presenter mode's line
        under the diagram)."""
        s = self.state
        if compact:
            title = f'<h1 class="compact">{escape(heading("page-title"))}</h1>'
        else:
            intro = markdown_html(text("captions", "intro"))
            title = f'<h1>{escape(heading("title"))}</h1><div class="intro">{intro}</div>'
        shown = [p for p in PRESETS if outside or p not in OUTSIDE_ARTICLE] if not compact or chapters else []
        # In the tour the step's card says what run it set up, and a way back to the article's schedule
        # would undo the step under its question: no note.
        schedule = s.schedule().words() if s.schedule_changes() and not s.tour else None
        # The tour in the same layout: a projector's tour asks in the room's type.
        tour = ("?present=1&tour=1" if s.present else "?tour=1") if shown and not s.tour else ""
        if menu_only:
            title, notices, schedule = "", [], None  # the header above says them
        else:
            notices = s.notices
        return header_html(title, notices, shown, s.preset_name(), schedule, editable, OUTSIDE_ARTICLE, tour)

    def lead_html(self, changes_only: bool = False) -> str:
        """The sentence between the player and the diagram: what the reader's last switch changed, while
        the run before is kept, or else the chapter's words. In the tour, the step's card says what to
        watch: nothing here (the place keeps its height through every step all the same).
        ``changes_only`` (a projector's, which a presenter narrates): only what a switch changed, in the
        tour too, and while a question waits only which switch (where the runs part would answer it)."""
        s = self.state
        comparison = self.comparison()
        if changes_only:
            if comparison is None:
                return lead_html("")
            if self.question_waits:
                return lead_html(change_sentence(comparison))
            return lead_html(lead_text(comparison), change_buttons(comparison, s.tick))
        if s.tour:
            return lead_html("")
        if comparison is not None:
            return lead_html(lead_text(comparison), change_buttons(comparison, s.tick))
        preset = s.preset_name()
        return lead_html(text("presets", preset) if preset else text("captions", "own-run"))

    @property
    def question_waits(self) -> bool:
        """A tour question is asked and not yet answered: nothing may show what happens after the tick."""
        return bool(self.state.tour) and not self.tour.verdict

    def moments(self) -> list[tuple[int, str, str]]:
        """The run's key moments, with where it parts from the run before a switch while that is kept; while
        a tour question waits, only those up to the tick on show (the rest would give the answer away)."""
        s = self.state

        def made() -> list:
            comparison = self.comparison()
            return key_moments(s.trace, comparison["first"] if comparison else None)

        moments = drawn_once("moments", s.trace, s.before, (), made)
        return [m for m in moments if m[0] <= s.tick or not self.question_waits]  # a copy of the kept list

    def period(self) -> int:
        """How long Play stays on the tick on show, in milliseconds: longer on a key moment, unless the
        reader turned the pause off or presents (a presenter narrates)."""
        s = self.state
        moment = s.pause and not s.present and any(t == s.tick for t, *_ in self.moments())
        return SPEEDS[s.speed] + (MOMENT_PAUSE if moment else 0)

    def player_html(self, figure: bool = False, badges_always: bool = False, keys: bool = True) -> str:
        """The player, with the run's key moments as marks on its scrubber; a figure's has only the buttons
        and the scrubber. Otherwise a strip of badges follows (on narrow screens only, unless
        ``badges_always``) and, without that strip, the keys' line."""
        s = self.state
        if figure:
            return player_html(s.tick, s.end_tick, s.playing, s.speed, [], keys=False, moments=self.moments())
        strip = badge_strip_html(s.trace, s.tick, s.outcome, always=badges_always)
        speeds, keys = list(SPEEDS), keys and not badges_always
        return player_html(s.tick, s.end_tick, s.playing, s.speed, speeds, keys, self.moments()) + strip

    def badges_html(self, interactive: bool = False) -> str:
        s = self.state
        badges = badges_html(s.trace, s.tick, s.outcome, interactive=interactive)
        explained = f'<div class="explanation">{self.explanation}</div>' if interactive else ""
        return f"<h2>{escape(heading('invariants'))}</h2>{badges}{explained}"

    def outcome_html(self, lead: bool = False) -> str:
        """The outcome so far and, once shown, the ending: folded in an embed, which keeps its height."""
        s = self.state
        caption = caption_html("outcome", "outcome") if lead else ""
        ending = outcome_html(
            s.outcome, s.trace, s.tick, reveal=self.ending_shown, offer=True, folded=self.keeps_height
        )
        return caption + ending

    def comparison(self) -> dict | None:
        """The model's comparison of the run before the reader's last switch with this one, while it is
        kept (``ReaderState.before``)."""
        s = self.state
        if s.before is None:
            return None
        before, trace, comparison = self._compared  # every part of a redraw asks; compare once
        if before is not s.before or trace is not s.trace:
            comparison = compare_runs(s.before, s.trace)
            self._compared = (s.before, s.trace, comparison)
        return comparison

    def diagram_html(self, large: bool = False) -> str:
        """The diagram at the tick; after a switch, the run before it as a faint layer of the same
        drawing, and the tick where the two part marked on the axis. The tick's sentence keeps the height
        of the run's longest, so stepping moves nothing under it."""
        s = self.state

        def draw() -> str:
            comparison = self.comparison()
            return diagram_html(
                s.trace,
                s.tick,
                large=large,
                before=s.before,
                parts_at=comparison["first"] if comparison else None,
                legend=False,  # under "How to read the diagram", one click away
                reserve=True,
            )

        return drawn_once("diagram", s.trace, s.before, (s.tick, large), draw)

    def lifecycles_html(self, animate: bool = False) -> str:
        return lifecycles_html(self.state.trace, self.state.tick, animate=animate)

    def records_html(self) -> str:
        return records_html(self.state.trace, self.state.tick)

    def switches_html(self) -> str:
        """Every setting by role; a switch whose value the schedule replaces says so."""
        s = self.state
        replaced = frozenset(FIELD_BY_ID[k].switch for k in s.schedule_changes()) - {None}
        return switches_html(s.values(), self.advanced_open, replaced)

    def tour_html(self) -> str:
        return self.tour.html()
