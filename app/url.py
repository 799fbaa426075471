"""The link's grammar, without Panel and without state: a query in, values and notices out
(``read_query``); values in, a query out (``write_query``). ``ReaderState`` reads and writes its links
through these; the browser code reads what it must know of them (the tick's and the group's patterns,
the figures, the flags a page keeps, the keys) from ``browser_table``, so nothing is declared twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

from app.content import sections
from app.tabs import TAB_IDS
from app.tour import steps as tour_steps
from model import Switches
from model.schedule import SCHEDULE_IDS, ScheduleError
from model.schedule import parse as parse_schedule_value
from model.schedule import text_of as schedule_text
from model.switches import ALL_SETTINGS, allowed_values, quoted

SPEEDS = {"0.5×": 1600, "1×": 800, "2×": 400, "4×": 200}  # milliseconds per tick
MOMENT_PAUSE = 3000  # milliseconds more that Play stays on a key moment, for its caption to be read
DEFAULTS: dict[str, str] = Switches().to_dict(advanced=True)

#: Presets are chapters of the story: switch values that differ from the main trace.
PRESETS: dict[str, dict[str, str]] = {
    "main": {},
    "superseded": {"change": "after-acceptance"},
    "pins-off": {"pins": "off"},
    "stale-owner": {"fencing": "off", "change": "never"},
    "no-key": {"post_key": "none"},
    "all-off": {
        "fencing": "off",
        "checkpoints": "end-only",
        "pins": "off",
        "newsletter": "latest-finished",
        "post_key": "none",
    },
    # Outside the article: an assumption of its model switched off (RULES.md §8), on the main schedule.
    "forgotten-key": {"feed_keys": "2-ticks"},
    "undeclared-input": {"s1_reads": "s2-undeclared"},
    "controller-restart": {"controller_restart": "at-t4-in-memory"},
    "records-lost": {"records_lost": "all-at-t12"},
}
#: The chapters past the article's edge, shown on a row of their own.
OUTSIDE_ARTICLE = ("forgotten-key", "undeclared-input", "controller-restart", "records-lost")
#: A schedule param is an override: "" keeps the value the switches give (the article's schedule); any
#: other value replaces it, as the command line's schedule flags do.
AS_SWITCHES = ""
SCHEDULE_DEFAULTS: dict[str, str] = dict.fromkeys(SCHEDULE_IDS, AS_SWITCHES)
#: Flags that keep their meaning when a tour step sets the switches, the schedule and the tick.
LAYOUT_FLAGS = ("embed", "present", "print", "group")
#: The pictures an article can place in its text on their own (``?embed=1&view=timeline``), with the player.
FIGURES = ("timeline", "lifecycles", "badges")
MAX_TICK_DIGITS = 6  # longer is not a tick of any run; never handed to int()
MAX_FIELDS = 100  # a query with more is no link of ours


class BadValue(ValueError):
    """A link's value a flag cannot take; its message is the reader's notice."""


@dataclass(frozen=True)
class UrlFlag:
    """One flag of the link besides the switches and the schedule: its name in the URL, the param it sets,
    how a value is read (``read`` raises BadValue with the notice), and its default, which the link omits."""

    key: str
    attr: str
    read: Callable[[str], object]
    default: object

    def text(self, value: object) -> str:
        """The value as the link writes it: 1 or 0 for a bit, digits for a number, the name for a choice."""
        return ("1" if value else "0") if isinstance(value, bool) else str(value)


def _tick(value: str) -> int:
    if value.isascii() and value.isdigit() and len(value) <= MAX_TICK_DIGITS:
        return int(value)  # bounded: never hands a long string to int()
    raise BadValue(f"tick must be a whole number from 0; got {quoted(value)}, showing t0.")


def _one_of(allowed: tuple[str, ...], what: str) -> Callable[[str], str]:
    def read(value: str) -> str:
        if value in allowed:
            return value
        raise BadValue(f"{quoted(value)} is not {what} (allowed: {', '.join(allowed)}).")

    return read


GROUP_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")


def _group(value: str) -> str:
    if GROUP_NAME.fullmatch(value):
        return value
    raise BadValue(
        f"group must be 1 to 40 letters, digits, '-' or '_'; got {quoted(value)}, so this figure keeps its "
        "own tick."
    )


def _bit(key: str, otherwise: str = "showing the full page") -> Callable[[str], bool]:
    def read(value: str) -> bool:
        if value in ("0", "1"):
            return value == "1"
        raise BadValue(f"{key} must be 0 or 1; got {quoted(value)}, {otherwise}.")

    return read


#: The one table of the link's flags, in the order a link writes them: the served app, the converted app
#: and the tests all read and write links through it (``ReaderState.to_query``, ``ReaderState.apply_query``).
#: ``tour`` is read by ``_tour_pairs`` first, which checks the step number.
URL_FLAGS: tuple[UrlFlag, ...] = (
    UrlFlag("tick", "tick", _tick, 0),
    UrlFlag("tab", "tab", _one_of(TAB_IDS, "a view"), TAB_IDS[0]),
    UrlFlag("embed", "embed", _bit("embed"), False),
    UrlFlag("view", "view", _one_of(FIGURES, "a figure"), ""),
    UrlFlag("tour", "tour", int, 0),
    UrlFlag("present", "present", _bit("present"), False),
    UrlFlag("print", "handout", _bit("print"), False),
    UrlFlag("group", "group", _group, ""),
    UrlFlag("pause", "pause", _bit("pause", "so Play waits at each key moment"), True),
)
_FLAG = {f.key: f for f in URL_FLAGS}
#: Every param a link can set: what the served page watches to keep its address in step.
URL_PARAMS: tuple[str, ...] = (*ALL_SETTINGS, *SCHEDULE_IDS, *(f.attr for f in URL_FLAGS))
#: The flags a page keeps in its own address whatever Python writes (its layout in the article, or on a
#: projector).
PAGE_FLAGS = ("embed", "view", "group", "present")
#: A class's link (classroom.teacher): only the served explainer keeps a class.
CLASS_KEYS = ("class", "teach", "join")
#: What a key does where no control has the focus (the served app's shortcuts and the light page).
KEYS = {" ": "toggle", "ArrowLeft": "back", "ArrowRight": "forward", "Home": "first", "End": "last"}


def browser_table() -> dict:
    """What the browser code must know of the link and the keys, as JSON-able data: it reads this
    instead of declaring its own patterns (the light page from its manifest, the served app's shortcuts
    from a param)."""
    return {
        "tick": f"^\\d{{1,{MAX_TICK_DIGITS}}}$",
        "group": f"^{GROUP_NAME.pattern}$",
        "figures": list(FIGURES),
        "page_flags": list(PAGE_FLAGS),
        "plain": ["preset", "tick", *PAGE_FLAGS],  # a link the pre-render can show without Python
        "tour_plain": ["tour", *PAGE_FLAGS],  # a tour step's link, pre-rendered too
        "tour_steps": len(tour_steps()),
        # Each chapter's switches as a link writes them (its values other than the defaults): a link that
        # names exactly one chapter's is that chapter, and its pre-render is painted at once.
        "chapter_values": {n: {k: v for k, v in vs.items() if v != DEFAULTS[k]} for n, vs in PRESETS.items()},
        "keys": KEYS,
    }


def write_query(values: dict[str, str], schedule: dict[str, str], flags: dict[str, object]) -> str:
    """Only what differs from the defaults, so the main trace's link is short. In the tour the link is
    the step and the layout flags: a step sets the switches, the schedule and the tick itself (and a
    link that also named them would have them ignored, with a notice, when read back)."""
    query = {k: v for k, v in values.items() if v != DEFAULTS[k]} | schedule
    for flag in URL_FLAGS:
        if flags[flag.attr] != flag.default:
            query[flag.key] = flag.text(flags[flag.attr])
    if flags["tour"]:
        query = {k: v for k, v in query.items() if k == "tour" or k in LAYOUT_FLAGS}
    return ("?" + urlencode(query)) if query else ""


def read_query(search: str) -> _Query:
    """What a query asks for: ``.values`` (the switches), ``.schedule``, ``.flags`` and ``.notices``."""
    reading = _Query()
    try:
        pairs = parse_qsl(search.lstrip("?"), keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except ValueError:
        pairs = []
        reading.notices.append(f"this link has more than {MAX_FIELDS} values; showing the main trace.")
    pairs = _tour_pairs(pairs, reading)
    # A chapter first, wherever the link names it: a value the link names beside it changes that chapter
    # (?fencing=on&preset=stale-owner is the stale-owner chapter with fencing on, not the chapter alone).
    presets = [pair for pair in pairs if pair[0] == "preset"]
    for key, value in [*presets, *(pair for pair in pairs if pair[0] != "preset")]:
        reading.take(key, value)
    return reading


def past_the_end(tick: int, end: int) -> list[str]:
    """The notice for a tick the run does not reach (it is then shown at its end)."""
    return [f"this run ends at t{end}; showing t{end} instead of t{tick}."] if tick > end else []


def _tour_pairs(pairs: list[tuple[str, str]], reading: _Query) -> list[tuple[str, str]]:
    """A tour step's link in place of the query's own values (keeping its layout flags), if it names
    a step; a bad step number is a notice naming the allowed ones."""
    tours = [value for key, value in pairs if key == "tour"]
    if not tours:
        return pairs
    wanted = tours[0]
    numbers = [str(s.number) for s in tour_steps()]
    if wanted not in numbers:
        reading.notices.append(f"tour must be a step from 1 to {numbers[-1]}; got {quoted(wanted)}.")
        return [(k, v) for k, v in pairs if k != "tour"]
    if len(tours) > 1:
        reading.notices.append(f"'tour' is given more than once; using the first ({wanted}).")
    step = tour_steps()[int(wanted) - 1]
    kept = [(k, v) for k, v in pairs if k in LAYOUT_FLAGS]
    dropped = list(dict.fromkeys(k for k, _ in pairs if k not in LAYOUT_FLAGS and k != "tour"))
    if dropped:
        names = ", ".join(quoted(k) for k in dropped[:10])
        reading.notices.append(f"a tour step sets the switches, the schedule and the tick; ignoring {names}.")
    return [*parse_qsl(step.link.lstrip("?")), ("tour", wanted), *kept]


class _Query:
    """What a URL query asks for, read leniently: every odd value becomes a notice, never an error."""

    def __init__(self) -> None:
        self.values = dict(DEFAULTS)
        self.schedule = dict(SCHEDULE_DEFAULTS)
        self.flags = {f.attr: f.default for f in URL_FLAGS}
        self.notices: list[str] = []
        self._seen: set[str] = set()

    def take(self, key: str, value: str) -> None:
        if key in self._seen:
            self.notices.append(f"{quoted(key)} is given more than once; using the first.")
            return
        self._seen.add(key)
        if key in ALL_SETTINGS:
            self._setting(key, value)
        elif key in SCHEDULE_IDS:
            try:
                # The canonical text ("001" is 1), so the param takes it and the link normalises.
                self.schedule[key] = schedule_text(parse_schedule_value(key, value))
            except ScheduleError as error:
                self.notices.append(f"{error}; keeping the article's value.")
        elif key == "preset":  # read, never written: a link names the switches themselves
            if value in PRESETS:
                self.values.update(PRESETS[value])
            else:
                self.notices.append(f"{quoted(value)} is not a preset (allowed: {', '.join(PRESETS)}).")
        elif key in CLASS_KEYS:  # the served explainer takes these out before it reads the rest
            said = " ".join(sections("classroom")["needs the server"].split())
            if said not in self.notices:
                self.notices.append(said)
        elif key in _FLAG:
            flag = _FLAG[key]
            try:
                self.flags[flag.attr] = flag.read(value)
            except BadValue as error:
                self.notices.append(str(error))
        else:
            known = ", ".join([*ALL_SETTINGS, *SCHEDULE_IDS, *_FLAG, "preset"])
            self.notices.append(
                f"{quoted(key)} is not something the explainer understands (it knows: {known})."
            )

    def _setting(self, key: str, value: str) -> None:
        allowed = allowed_values(key)
        if value in allowed:
            self.values[key] = value
        else:
            self.notices.append(
                f"{quoted(value)} is not a value of {key} (allowed: {', '.join(allowed)}); showing "
                f"{self.values[key]}."
            )
