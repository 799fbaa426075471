"""The explainer: ``panel serve app/explainer.py`` serves it at /explainer.

The page is composed of views (``app/views``), each drawing one part from the reader's state
(``app.state.ReaderState``): the presets on top; the switches on the left; the player, then the tabs of
``app.tabs``; the badges and the outcome on the right. ``?embed=1`` gives a compact layout.
"""

from __future__ import annotations

import functools
from pathlib import Path

import panel as pn

from app.content import heading, text
from app.page import PageModel
from app.palette import css_variables
from app.render.controls import notice_html, tabs_html
from app.render.handout import handout_html
from app.state import URL_PARAMS, ReaderState
from app.tabs import TAB_IDS, TABS
from app.views.action_html import ActionHTML
from app.views.badges import Badges, OutcomeView
from app.views.controls import Header, Player, SwitchPanel
from app.views.part import PageView
from app.views.screen import Screen
from app.views.shortcuts import Helpers, Presenter
from app.views.tour import TourPanel
from app.views.trace import TraceView

CSS = [css_variables()] + [
    Path(__file__).with_name(n).read_text(encoding="utf-8") for n in ("explainer.css", "diagrams.css")
]
# When the server goes away (restarted, say) the page cannot change any more: say so in words, with a
# button that reloads the page at its link (which keeps the switches and the tick).
DISCONNECTED = (
    f"{' '.join(text('captions', 'disconnected').split())} "
    '<button type="button" class="reload" onclick="location.reload()">Reload the page</button>'
)
pn.extension(raw_css=CSS, design="native", notifications=True, disconnect_notification=DISCONNECTED)


class ExplainerApp:
    """One reader's page: the state, the views over it, and the URL kept in step with it."""

    def __init__(self, state: ReaderState | None = None):
        self.classroom = None  # a teacher's page's part in its class (classroom.teacher), if it is one
        self.page = page = PageModel(state)
        self.state = s = page.state
        self.header = Header(page=page)
        self.player = Player(page=page)
        self.badges = Badges(page=page)
        self.outcome = OutcomeView(page=page)
        # The keys, the back button, the group, and the handout the browser prints from any view (kept in
        # step with the run on show).
        self.helpers = Helpers(self._on_key, html=self.handout(), css="\n".join(CSS), margin=0)
        s.param.watch(self._tell_helpers, ["tick", "group"])
        s.param.watch(lambda event: setattr(self.helpers, "html", self.handout()), ["trace", "notices"])
        self.tour = TourPanel(page=page)
        self.tour_slot = pn.Column(sizing_mode="stretch_width", css_classes=["tour-slot"])
        self._present_main: pn.Column | None = None  # the presenter layout's diagram column, once built
        self._present_side_column: pn.Column | None = None  # and its side column
        self._present_menu: Header | None = None  # and its line of chapters under the diagram
        s.param.watch(self._show_tour, ["tour"])
        self._show_tour()
        # The tab bar is a WAI-ARIA tablist; a view is built the first time its tab opens, and only on the
        # layout that has tabs: a phone in a class, a figure or the presenter never shows them, and a view
        # built for nothing would redraw at every tick all the same (three panes of the trace tab: most of
        # what a phone's step cost the server).
        self.views: dict[str, pn.viewable.Viewer] = {}
        self.tab_bar = ActionHTML(self._on_tab, sizing_mode="stretch_width")
        self.tab_panel = pn.Column(sizing_mode="stretch_width", css_classes=["tab-panel"])
        s.param.watch(self._push_url, [*URL_PARAMS, "playing"])  # a pause writes the tick it stopped at
        self._last_query: str | None = None
        self._applying_url = False

    @functools.cached_property
    def switches(self) -> SwitchPanel:
        """The switches' panel of the layouts that fold it under the diagram (the embed, the presenter),
        built by them: the reader's page opens its own in the Switches tab, and a panel nobody sees would
        be drawn again at every switch all the same."""
        return SwitchPanel(page=self.page)

    def start_class(self, link) -> None:
        """Make this page a class's teacher's page (its card beside the diagram). A student's link is the
        phones' own page (``/join/CODE``, classroom.channel); one that reaches the app is pointed there."""
        if link.role != "teacher":
            self.state.notices = [*self.state.notices, f"a class is joined at /join/{link.code}, not here."]
            return
        from classroom.teacher import TeacherCard  # only a class page needs the database

        self.classroom = TeacherCard(self, link.code, link.secret)
        self._show_tour()
        # The page's address names the class (a new class's code and key): written once the browser has
        # loaded the page, whose own address would otherwise overwrite it.
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.onload(self.classroom.start)
        else:
            self.classroom.start()

    def class_named(self) -> None:
        """The class is known (found, or just made): the page's link names it."""
        self._last_query = None
        self._push_url()

    def layout(self) -> pn.viewable.Viewable:
        if self.state.view:
            return self._figure_layout()
        if self.state.handout:
            return self._handout_layout()
        if self.state.present:
            return self._present_layout()
        if self.state.embed:
            return self._embed_layout()
        # One lesson per screen: the chapter, the player, the lead, the diagram and, beside it, the tour's
        # question and the badges. Everything else is under the diagram, a tab away. One component draws
        # them all (app.views.screen): each component of its own made the page slower to become usable.
        self.player.keys = False  # named under "How to read the diagram": the diagram needs the height
        self.state.param.watch(self._show_tab, ["tab"])
        self._draw_tab_bar()
        # The open tab's view is under the first screen: built once the browser has the page, which is
        # interactive sooner for it (benchmarks/app_bench.py). At once where nothing is served (a test).
        pn.state.onload(self._show_tab)
        trace = TraceView(page=self.page, compact=True)
        parts = {
            "header": self.header.html,
            "player": self.player.html,
            "diagram": trace.diagram,
            "badges": self.badges.html,
            "outcome": self.outcome.pane,
            "tabs": self.tab_bar,
        }
        return pn.Column(
            self.helpers,
            Screen(parts, tour=self.tour_slot, below=self.tab_panel),
            sizing_mode="stretch_width",
            css_classes=["explainer"],
        )

    def _embed_layout(self) -> pn.viewable.Viewable:
        # The chapter's title and words, the player with its line of badges, the timeline, the outcome so far,
        # and the switches folded away: about 900 px at 700 px wide.
        self.header.compact = self.outcome.compact = self.player.badges_always = True
        self.header.chapters = False
        controls = pn.Card(self.switches, title="Switches", collapsed=True, sizing_mode="stretch_width")
        trace = TraceView(page=self.page, compact=True)
        # One height whatever the chapter, the tick or a switch (explainer.css's :host(.embed) rules, as the
        # light embed's): the lead and the tick's sentence keep five lines, the diagram a fixed room.
        trace.diagram.css_classes = [*trace.diagram.css_classes, "embed"]
        return pn.Column(
            self.helpers,
            self.header,
            self.tour_slot,
            self.player,
            trace,
            self.outcome,
            controls,
            sizing_mode="stretch_width",
            css_classes=["explainer", "embed"],
        )

    def _present_controls(self) -> pn.Column:
        """Presenter mode's line under the diagram: the switches, folded, then the chapters' menu (the
        article's only) and the tour's link. A 720 px high screen has no line to spare for them above the
        tallest tick of a chapter."""
        self._present_menu = Header(page=self.page, compact=True, outside=False, menu_only=True)
        # A named toggle, not a Card: its header button has no accessible name in Panel 1.10.
        show = pn.widgets.Toggle(
            label="Show the switches",
            value=False,
            width=260,
            css_classes=["show-switches"],
            stylesheets=[".bk-btn { font-size: 1rem; min-height: 1.6em; }"],  # the root's size, as every word
        )
        panel = pn.Column(self.switches, visible=False, sizing_mode="stretch_width")
        show.param.watch(lambda event: setattr(panel, "visible", event.new), "value")
        line = pn.Row(show, self._present_menu, sizing_mode="stretch_width")
        return pn.Column(line, panel, sizing_mode="stretch_width")

    def _present_side(self) -> pn.Column:
        """Beside the diagram (which writes out every event of the tick): in the tour its question first,
        the room's point of discussion, then the badges. A card longer than the screen scrolls in its
        column, so the page (and the diagram) never moves under it; its width is ``_side_width``'s."""
        self._present_side_column = pn.Column(
            self.tour_slot, self.badges, styles=self._side_styles(), css_classes=["side"]
        )
        return self._present_side_column

    def _side_styles(self) -> dict[str, str]:
        """The side column's width: with the badges alone, twenty of their own words, leaving the run its
        room. With a card beside the diagram (the tour's question, a class's), twenty-two of the room's
        type (rem: presenter.js sets it, 18 px at 1280 wide, 24 px at 1920), so a step's question, its
        answers and the button that checks them are on one screen at 1280×720 and 1920×1080; the run beside
        it is drawn a little smaller rather than cut."""
        width = "22rem" if self.state.tour or self.classroom is not None else "20em"
        return {"flex": f"0 0 {width}", "width": width, "max-height": "100vh", "overflow-y": "auto",
                "position": "sticky", "top": "0"}  # fmt: skip

    def _present_layout(self) -> pn.viewable.Viewable:
        """For a projector (1280×720 and up): the player, the badges and the timeline on one screen in
        large type; the switches and the chapters beneath, every control a button or a key."""
        self.header.compact, self.header.chapters, self.player.keys = True, False, False
        controls = self._present_controls()
        # The lead says what a switch changed (a presenter narrates the rest): nothing until one is flipped.
        trace = TraceView(page=self.page, compact=True, large=True)
        # Every word at least the root's size (24 px at 1920 wide, 18 px at 1280: presenter.js), which the
        # stylesheet's :host(.present) rules set inside each part's shadow root.
        parts = [self.header.html, self._present_menu.html, self.player.html, self.badges.html,
                 self.tour.html, trace.diagram]  # fmt: skip
        if self.classroom is not None:  # the class's card is the tour card's, in the room's type size
            parts += [self.classroom.card, self.classroom.join]
        for part in parts:
            part.css_classes = [*part.css_classes, "present"]
        # The switches and the chapters come right under the diagram, which is drawn to the width it has.
        main = self._present_main = pn.Column(self.player, trace, controls)
        self._fit_present_to_tour()
        side = self._present_side()
        return pn.Column(
            self.helpers,
            Presenter(),
            self.header,
            # A gap between them: the speed's menu ended against the badges' heading at 1920.
            pn.FlexBox(
                main,
                side,
                flex_wrap="wrap",
                align_items="flex-start",
                gap="0 12px",
                sizing_mode="stretch_width",
            ),
            sizing_mode="stretch_width",
            css_classes=["explainer", "present"],
        )

    def handout(self) -> str:
        s = self.state
        schedule = s.schedule().words() if s.schedule_changes() else None
        return handout_html(s.trace, s.outcome, s.switches().to_dict(advanced=True), schedule, s.notices)

    def _handout_layout(self) -> pn.viewable.Viewable:
        """The printable handout (?print=1): the run on at most two A4 pages, in words and tables."""
        handout = pn.pane.HTML(self.handout(), sizing_mode="stretch_width")
        self.state.param.watch(lambda event: setattr(handout, "object", self.handout()), ["trace", "notices"])
        return pn.Column(
            self.helpers,  # the main landmark, the back button, and the same print as any view
            handout,
            sizing_mode="stretch_width",
            css_classes=["explainer", "handout"],
        )

    def _figure_layout(self) -> pn.viewable.Viewable:
        """One picture with a compact player (no speeds, no line of badges: each figure shows one thing
        once), for an article that places its figures in its text."""
        self.player.figure = True
        figure = {
            "timeline": lambda: TraceView(page=self.page, compact=True, lead=False),
            "lifecycles": lambda: TraceView(page=self.page, lifecycles_only=True),
            "badges": lambda: self.badges,
        }[self.state.view]()
        return pn.Column(
            self.helpers, self._notices(), self.player, figure, sizing_mode="stretch_width",
            css_classes=["explainer", "embed", f"figure-{self.state.view}"],
        )  # fmt: skip

    def _notices(self) -> pn.pane.HTML:
        """The link's notices in a line of their own, for the layouts that have no header to hold them."""
        pane = pn.pane.HTML(notice_html(self.state.notices), sizing_mode="stretch_width", margin=0)
        self.state.param.watch(lambda event: setattr(pane, "object", notice_html(event.new)), ["notices"])
        return pane

    # --- tabs, keys and the URL --------------------------------------------------------------------

    def view(self, tab_id: str) -> pn.viewable.Viewer:
        """The view of a tab, built on first use (most readers never open most tabs)."""
        if tab_id not in self.views:
            view = next(t for t in TABS if t.id == tab_id).view
            # A part of the page shares its page model (the switches' panel keeps the advanced fold there).
            shared = issubclass(view, PageView)
            self.views[tab_id] = view(page=self.page) if shared else view(state=self.state)
        return self.views[tab_id]

    def _show_tour(self, *events) -> None:
        if self.classroom is not None:  # a class's card takes the tour card's place
            self.tour_slot.objects = [self.classroom]
        else:
            self.tour_slot.objects = [self.tour] if self.state.tour else []
        if self._present_main is not None:
            self._fit_present_to_tour()

    def _fit_present_to_tour(self) -> None:
        """The presenter's diagram column is a whole run's width, except in the tour: then the question
        and its answers stand beside it on one screen of a 1280×720 projector too (the diagram's strip
        scrolls sideways and keeps the asked tick in view), the chapters' menu goes (the step chose
        the chapter) and the badges move to the player's line (the side column is the question's). A
        class's card stands beside the diagram in or out of the tour."""
        tour = bool(self.state.tour)
        beside = tour or self.classroom is not None
        self._present_main.styles = {"flex": f"1 1 {560 if beside else 1150}px", "min-width": "400px"}
        if self._present_side_column is not None:
            self._present_side_column.styles = self._side_styles()
        self._present_menu.chapters, self.player.badges_always = not tour, beside
        self.badges.html.visible = not beside  # on the player's line, not a second time in the side column

    def _on_tab(self, action: str, value: str) -> None:
        if action == "tab" and value in TAB_IDS:
            self.state.tab = value

    def _draw_tab_bar(self) -> None:
        self.tab_bar.html = tabs_html([(t.id, t.title) for t in TABS], self.state.tab)

    def _show_tab(self, *events) -> None:
        self._draw_tab_bar()
        self.tab_panel.objects = [self.view(self.state.tab)]

    def _tell_helpers(self, *events) -> None:
        """The browser's helper needs the tick only to share it with the page's group (?group=NAME): on a
        page without one, a step would send every session's browser a message for nothing (a class's
        phones are hundreds of sessions)."""
        if self.state.group or self.helpers.group:
            self.helpers.param.update(tick=self.state.tick, group=self.state.group)

    def _on_key(self, action: str, msg: dict) -> None:
        if action == "hidden":
            self.state.playing = False
        elif action == "url" and isinstance(msg.get("search"), str):
            self.apply_url(msg["search"])
        else:
            value = msg.get("value")
            self.player.act(action, value if isinstance(value, str) else "")

    def _push_url(self, *events) -> None:
        if self.state.playing or self._applying_url:
            return  # one history entry per pause, not one per tick; none for a URL being applied
        query = self.state.to_query()
        if self.classroom is not None and (kept := self.classroom.query()):
            query = f"{query}&{kept}" if query else f"?{kept}"
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


def _local_resources(doc) -> None:
    """Panel's styles from this server, whichever process made the document. Under ``--num-procs`` a
    page's request and its websocket may reach different processes; the one that answers the websocket
    makes the document anew without the page's resource settings, and Panel then pointed every style at
    its CDN (3 of 8 page loads): the page went outside the server."""
    from panel.io.resources import LOCAL_DIST

    rel = pn.state.rel_path
    doc._template_variables.setdefault("dist_url", f"{rel}/{LOCAL_DIST}" if rel else LOCAL_DIST)


def create_app(search: str | None = None) -> pn.viewable.Viewable:
    """A fresh page for one reader; ``search`` is the URL query (read from the browser when served)."""
    from classroom.teacher import split_class_link

    served = pn.state.curdoc is not None and pn.state.curdoc.session_context is not None
    if served:
        _local_resources(pn.state.curdoc)
    app = ExplainerApp()
    if search is None and pn.state.location is not None:
        search = pn.state.location.search
    search, class_link = split_class_link(search or "")
    app.apply_url(search)
    if class_link is not None:
        app.start_class(class_link)
    page = app.layout()
    page.explainer = app  # for tests and the benchmark
    if served:
        from app.serving import release_memory  # only a served page has a session to end

        pn.state.on_session_destroyed(release_memory)
    return page


if __name__.startswith("bokeh_app"):  # run by `panel serve app/explainer.py`, not imported
    create_app().servable(title=heading("page-title"))
