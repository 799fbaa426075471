"""The reader's page without Panel or Bokeh: the light explainer of the static site.

The same ``ReaderState`` the Panel app uses, and the same renderers (``app.render``), run here in the
reader's browser through Pyodide; ``static/light.js`` paints the HTML parts this returns and passes back
what the reader clicks and presses. The build calls the very same ``parts`` to pre-render every chapter
at every tick, so the first picture is on screen before Python is, and nothing changes when it arrives.

Only the standard library, param and markdown-it-py are needed: nothing here imports Panel. The explore
page's search of wider ranges (``static/explore.js``) asks ``wider_count`` and ``wider_search`` here.
"""

from __future__ import annotations

import itertools
import json

from app.content import caption_html
from app.page import PageModel
from app.render.before_after import change_words
from app.render.diagram import ROW_SWITCH, how_to_read_html, row_switch_next
from app.render.diagram import prepare as prepare_drawing
from app.render.explore import against_html, progress_html, progress_words, wider_result_html
from app.state import is_made, made_run
from app.url import GROUP_NAME
from model import Switches
from model.explore import PROTECTIONS, explore_setting, parse_protections, schedule_list, space_with
from model.switches import SwitchError

#: The parts of the page, each painted into the element ``part-<name>`` by static/light.js; the fixed
#: ones change with the chapter or a switch, never with the tick (the build pre-renders them once).
PARTS = (
    "header",
    "tour",
    "player",
    "lead",
    "figure",
    "badges",
    "outcome",
    "legend",
    "lifecycles",
    "records",
    "switches",
)
FIXED_PARTS = ("header", "tour", "switches", "legend")
#: The player's moves: they change the tick (or the playback) only, so the fixed parts are not drawn again.
MOVES = frozenset({"first", "back", "forward", "last", "go", "toggle", "speed", "advance"})


class LightPage:
    """One reader's page: the page model (``app.page.PageModel``, which the served app's views wrap too)
    and its parts in the light page's layout: a compact header without the schedule's editor, a player
    with its line of badges, badges that explain nothing (the served app's do)."""

    def __init__(self, search: str = "") -> None:
        self.page = PageModel(steady=True)  # the page and its embed share parts: the embed keeps its height
        self.state = self.page.state
        self.tour = self.page.tour
        self.state.apply_query(search)

    @property
    def revealed(self) -> bool:
        return self.page.revealed

    def act(self, action: str, value: str = "", part: str = "") -> None:
        """A click or a key from ``part`` of the page, done by the page model."""
        self.page.act(action, value, part)

    def parts(self, fixed: bool = True) -> dict:
        """Every part's HTML (the ``fixed`` ones only if asked), and what the browser needs besides: the
        link, the tick, whether playing and how fast."""
        s, page = self.state, self.page
        parts = {
            "query": s.to_query(),
            "embed": s.embed_query(),
            "tick": s.tick,
            "end": s.end_tick,
            "playing": s.playing,
            "period": page.period(),
            "player": page.player_html(badges_always=True),
            "lead": page.lead_html(changes_only=s.present),  # a projector's: what a switch changed
            "figure": page.diagram_html(large=s.present),  # a projector's: as the served presenter's
            "badges": page.badges_html(),
            "outcome": page.outcome_html(),
            # The caption first: it says what the chips, the heavy arrow and "(added)" mean.
            "lifecycles": caption_html("lifecycles") + page.lifecycles_html(),
            "records": page.records_html(),
        }
        if fixed:
            parts |= {
                "header": page.header_html(compact=True, chapters=True, editable=False),
                "legend": how_to_read_html(),
                "tour": page.tour_html(),
                "switches": page.switches_html(),
            }
        return parts

    def story(self) -> tuple:
        """What makes the run (the switches, the schedule, the tour's step), without the tick."""
        s = self.state
        return (s.values(), s.schedule_overrides(), s.tour)

    def change_words(self, before: tuple) -> str:
        """What changed in the story since ``before`` (a ``story()``), in words; empty if nothing did."""
        if before == self.story():
            return ""
        return change_words(before[0], self.state.values(), before[1] != self.state.schedule_overrides())


#: Every page this interpreter holds, by key: one a frame, or one a ``?group=`` (a group is one state:
#: its frames share the switches, the schedule and the tick). static/light-worker.js serves every frame
#: of the site's origin from one interpreter and tells the other frames of a key what changed.
_pages: dict[str, LightPage] = {}
_frames = itertools.count(1)


def _actions(asked: str) -> list[tuple[str, str, str]]:
    """``[[action, value, part], …]`` (JSON) as tuples; anything else in it is ignored (it came from a
    browser, and a page's own act ignores what means nothing just the same)."""
    try:
        listed = json.loads(asked or "[]")
    except ValueError:
        return []
    if not isinstance(listed, list):
        return []
    return [
        (a[0], a[1], a[2])
        for a in listed
        if isinstance(a, list) and len(a) == 3 and all(isinstance(x, str) for x in a)
    ]


def start(search: str, group: str = "", actions: str = "[]") -> str:
    """A frame's page for its link's query, after the reader's ``actions`` made before Python was there,
    as JSON with the page's ``key`` (what static/light.js calls first). A frame of a ``group`` joins the
    group's page when another frame has started it: the first frame's link opens the group's story."""
    key = f"group:{group}" if GROUP_NAME.fullmatch(group or "") else f"frame:{next(_frames)}"
    page = _pages.get(key)
    if page is None:
        page = _pages[key] = LightPage(search)
    before = page.story()
    for action, value, part in _actions(actions):
        page.act(action, value, part)
    # What the other frames of a group are told (static/light-worker.js): ``moved`` as ``act`` says it.
    return json.dumps({"key": key, **page.parts(), "moved": page.story() == before})


def act(key: str, action: str, value: str, part: str = "") -> str:
    """Do what the reader asked (in ``part`` of the page ``key``) and return the page's parts, as JSON,
    with ``changed``: what the action changed in the story, in words for the other frames of a group
    (empty when it only moved the tick), and ``moved``: whether it only moved the tick or the playback
    (then the fixed parts are left out, and a frame of the group may take it for late news)."""
    page = _pages.get(key)
    if page is None:
        return start("")
    before = page.story()
    page.act(action, value, part)
    # A move of the player's leaves the fixed parts as the page has them: a step draws what a tick changes.
    moved = action in MOVES and part != "tour" and before == page.story()
    parts = page.parts(fixed=not moved)
    return json.dumps({"key": key, **parts, "changed": page.change_words(before), "moved": moved})


#: What ``warm`` does on a page nobody sees: a reader's usual first clicks (the rows of the diagram).
WARM_UP = ("fencing=off", "checkpoints=end-only", "fencing=on")


def warm() -> None:
    """Do a reader's first switches once on a page nobody shows, while Python takes over: the browser
    compiles the interpreter's hot paths into fast code only after running them, so without this the
    reader's own first switch ran on the slow first tier (about twice a later one's time). The page is
    not kept, and no frame's key is taken."""
    page = LightPage("")
    for value in WARM_UP:
        before = page.story()
        page.act("set", value, "figure")
        page.parts()
        page.change_words(before)


def prepare(key: str) -> bool:
    """Make one run a click on a row of ``key``'s diagram would ask for, while the reader reads: the first
    row whose run is not made yet (``made_run`` keeps the last 32). True if one was made (the worker asks
    again after anything waiting), False once every row's run is there or the page is gone. A click then
    draws a run already made: in the browser a new run was most of a first switch's time."""
    page = _pages.get(key)
    if page is None:
        return False
    s, values = page.state, page.state.values()
    for setting in ROW_SWITCH.values():
        switches = Switches.from_mapping({**values, setting: row_switch_next(setting, values)})
        schedule = s.schedule_for(switches)
        if not is_made(switches, schedule):
            prepare_drawing(made_run(switches, schedule)[0], large=s.present)
            return True
    return False


def close(key: str) -> None:
    """The last frame of ``key`` has gone: forget its page."""
    _pages.pop(key, None)


# --- the explore page's search of wider ranges (static/explore.js) -----------------------------------


def _wider_request(request: str) -> tuple[dict[str, str], dict[str, tuple]]:
    """``{"protections": {id: value}, "ranges": {field: choice}}`` (JSON) to the protections and the space,
    or SwitchError naming what is allowed."""
    try:
        asked = json.loads(request)
    except ValueError as error:
        raise SwitchError(f"a search is a JSON object; this is not JSON ({error})") from None
    parts = ("protections", "ranges")
    if not isinstance(asked, dict) or not all(isinstance(asked.get(k), dict) for k in parts):
        raise SwitchError('a search is {"protections": {...}, "ranges": {...}}')
    protections = parse_protections(",".join(f"{k}={v}" for k, v in asked["protections"].items()))
    if missing := [k for k in PROTECTIONS if k not in protections]:
        raise SwitchError(f"a search names every protection; missing: {', '.join(missing)}")
    return protections, space_with(asked["ranges"])


def wider_count(request: str) -> str:
    """What a search is about to do, in words, before it starts (it takes some seconds), and the bar that
    will show how far it has come, as JSON."""
    try:
        protections, space = _wider_request(request)
    except SwitchError as error:
        return json.dumps({"error": str(error)})
    total = len(schedule_list(space))
    return json.dumps(
        {"said": f"Searching: {against_html(protections, total)}…", "bar": progress_html(0, total)}
    )


def wider_search(request: str, progress=None) -> str:
    """The reader's protections against the wider space: the answer's HTML, as JSON. ``progress`` (the
    worker's, which posts it to the page) is told the schedules done, in all, and that in words, as the
    search goes."""
    try:
        protections, space = _wider_request(request)
    except SwitchError as error:
        return json.dumps({"error": str(error)})

    def told(done: int, total: int) -> None:
        progress(done, total, progress_words(done, total))

    row = explore_setting(protections, space=space, progress=None if progress is None else told)
    return json.dumps({"html": wider_result_html(protections, row, "index.html")})
