"""The param adapter: the reader's choices (switches, tick, playback, view) as documented params.

It asks the model for everything it shows: the trace is computed once per switch change, never per tick,
and every fact a view draws comes from that trace or from the model's analyses. The switch params are
made from the model's declared settings (``model.switches.SETTINGS``), so a new switch needs nothing here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

import param

from app.content import text, title_and_body
from app.tabs import TAB_IDS
from app.tour import steps as tour_steps
from model import Switches, run, trace_dict
from model.schedule import FIELDS as SCHEDULE_FIELDS
from model.schedule import SCHEDULE_IDS, Schedule, ScheduleError
from model.schedule import parse as parse_schedule_value
from model.schedule import text_of as schedule_text
from model.switches import ALL_SETTINGS, SETTINGS, allowed_values, quoted

SPEEDS = {"0.5×": 1600, "1×": 800, "2×": 400, "4×": 200}  # milliseconds per tick
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
}
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
        """The value as the link writes it: 1 for on, digits for a number, the name for a choice."""
        return "1" if value is True else str(value)


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


def _bit(key: str) -> Callable[[str], bool]:
    def read(value: str) -> bool:
        if value in ("0", "1"):
            return value == "1"
        raise BadValue(f"{key} must be 0 or 1; got {quoted(value)}, showing the full page.")

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
)
_FLAG = {f.key: f for f in URL_FLAGS}
#: Every param a link can set: what the served page watches to keep its address in step.
URL_PARAMS: tuple[str, ...] = (*ALL_SETTINGS, *SCHEDULE_IDS, *(f.attr for f in URL_FLAGS))


def _switch_param(setting: str) -> param.Selector:
    values = list(allowed_values(setting))
    title, body = title_and_body(text("switches", setting))
    return param.Selector(objects=values, default=values[0], label=title, doc=body)


def _schedule_param(f) -> param.Selector:
    return param.Selector(objects=[AS_SWITCHES, *f.choices()], default=AS_SWITCHES, label=f.id, doc=f.help)


_Settings = param.parameterized_class(
    "_Settings",
    {s.id: _switch_param(s.id) for s in SETTINGS} | {f.id: _schedule_param(f) for f in SCHEDULE_FIELDS},
)


class ReaderState(_Settings):
    """Everything the reader has chosen, and the model's answer for it."""

    tick = param.Integer(default=0, bounds=(0, None), doc="The tick on show, from t0 to the run's last tick.")
    playing = param.Boolean(default=False, doc="Whether the player advances one tick at a time by itself.")
    speed = param.Selector(objects=list(SPEEDS), default="1×", doc="How fast the player advances.")
    tab = param.Selector(objects=list(TAB_IDS), default=TAB_IDS[0], doc="Which view is open.")
    embed = param.Boolean(default=False, doc="The compact layout for an iframe in the article.")
    view = param.Selector(
        objects=["", *FIGURES], default="", doc="One picture alone with the player (a figure in the article)."
    )

    tour = param.Integer(default=0, bounds=(0, None), doc="The guided tour's step on show (0: no tour).")
    present = param.Boolean(default=False, doc="Presenter mode: large type for a projector, one screen.")
    handout = param.Boolean(default=False, doc="The printable handout (?print=1): two A4 pages at most.")
    group = param.String(
        default="",
        doc="Frames of one page that share a tick (?group=NAME): a step in one moves them all (same origin).",
    )

    trace = param.Dict(precedence=-1, doc="The model's trace for the current switches (trace_dict).")
    outcome = param.Dict(precedence=-1, doc="The model's outcome for the current switches (Outcome.to_dict).")
    notices = param.List(default=[], precedence=-1, doc="Messages for the reader, e.g. a bad URL value.")

    def __init__(self, **params):
        super().__init__(**params)
        self._rerun()

    # --- the model's answer ------------------------------------------------------------------------

    def switches(self) -> Switches:
        return Switches.from_mapping(self.values())

    def values(self) -> dict[str, str]:
        return {k: getattr(self, k) for k in ALL_SETTINGS}

    def schedule_overrides(self) -> dict[str, str]:
        """The schedule values the reader (or a link) set, as text."""
        return {k: getattr(self, k) for k in SCHEDULE_IDS if getattr(self, k) != AS_SWITCHES}

    def schedule(self) -> Schedule:
        """The run's schedule: the switches' own, with the reader's overrides."""
        return Schedule.of(self.switches()).with_values(self.schedule_overrides())

    def schedule_changes(self) -> dict[str, str]:
        """The schedule values that differ from the switches' own (an override may repeat one)."""
        return self.schedule().differences(Schedule.of(self.switches()))

    def set_switch(self, choice: str) -> bool:
        """Set one switch from ``setting=value`` (what a control sends); anything else is ignored."""
        setting, _, value = choice.partition("=")
        if setting in ALL_SETTINGS and value in allowed_values(setting):
            self.param.update(**{setting: value})
            return True
        return False

    def reset_schedule(self) -> None:
        """Back to the schedule the switches give: the article's."""
        self.param.update(**SCHEDULE_DEFAULTS)

    @param.depends(*ALL_SETTINGS, *SCHEDULE_IDS, watch=True)
    def _rerun(self) -> None:
        result = run(self.switches(), schedule=self.schedule())
        with param.parameterized.batch_call_watchers(self):
            self.trace = trace_dict(result)
            self.outcome = result.outcome().to_dict()
            self.playing = self.playing and self.tick < self.end_tick
            if self.tick > self.end_tick:
                self.tick = self.end_tick

    @property
    def end_tick(self) -> int:
        return self.trace["end_tick"]

    @property
    def frame(self) -> dict:
        return self.trace["ticks"][self.tick]

    # --- playback ----------------------------------------------------------------------------------

    def go(self, tick: int) -> None:
        self.tick = max(0, min(self.end_tick, tick))

    def move_by(self, delta: int) -> None:
        self.playing = False
        self.go(self.tick + delta)

    def advance(self) -> None:
        """One tick of playback; stops at the end."""
        self.go(self.tick + 1)
        if self.tick >= self.end_tick:
            self.playing = False

    def toggle_play(self) -> None:
        if not self.playing and self.tick >= self.end_tick:
            self.tick = 0
        self.playing = not self.playing

    # --- presets -----------------------------------------------------------------------------------

    def player_action(self, action: str, value: str = "") -> bool:
        """What a player's button, a key or the scrubber asks: first, back, forward, last, toggle (play or
        pause), go (``value`` a tick), speed (``value`` one of SPEEDS). Anything else, or a value that is
        no tick or speed, is ignored (False): it came from a browser."""
        moves = {"first": -self.end_tick, "back": -1, "forward": 1, "last": self.end_tick}
        if action in moves:
            self.move_by(moves[action])
        elif action == "toggle":
            self.toggle_play()
        elif action == "go" and value.isascii() and value.isdigit() and len(value) <= MAX_TICK_DIGITS:
            self.playing = False
            self.go(int(value))
        elif action == "speed" and value in SPEEDS:
            self.speed = value
        else:
            return False
        return True

    def apply_preset(self, name: str) -> None:
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}; the presets are: {', '.join(PRESETS)}")
        with param.parameterized.batch_call_watchers(self):
            self.playing = False
            self.param.update(**{**DEFAULTS, **SCHEDULE_DEFAULTS, **PRESETS[name]})
            self.tick = 0

    def preset_name(self) -> str | None:
        """The preset the current switches match, if any."""
        if self.schedule_changes():
            return None  # a preset is a chapter of the article's schedule
        now = self.values()
        return next((name for name, values in PRESETS.items() if {**DEFAULTS, **values} == now), None)

    # --- the URL -----------------------------------------------------------------------------------

    def to_query(self) -> str:
        """Only what differs from the defaults, so the main trace's link is short. In the tour the link is
        the step and the layout flags: a step sets the switches, the schedule and the tick itself (and a
        link that also named them would have them ignored, with a notice, when read back)."""
        query = {k: v for k, v in self.values().items() if v != DEFAULTS[k]} | self.schedule_overrides()
        for flag in URL_FLAGS:
            value = getattr(self, flag.attr)
            if value != flag.default:
                query[flag.key] = flag.text(value)
        if self.tour:
            query = {k: v for k, v in query.items() if k == "tour" or k in LAYOUT_FLAGS}
        return ("?" + urlencode(query)) if query else ""

    # --- the tour ----------------------------------------------------------------------------------

    def go_to_step(self, number: int) -> None:
        """Open a step of the tour: its switches, schedule and tick (the layout flags stay as they are)."""
        kept = {
            f.key: f.text(getattr(self, f.attr))
            for f in URL_FLAGS
            if f.key in LAYOUT_FLAGS and getattr(self, f.attr) != f.default
        }
        self.apply_query(f"?tour={number}&" + urlencode(kept))

    def leave_tour(self) -> None:
        """Out of the tour, keeping the switches the step set."""
        self.tour = 0

    def apply_query(self, search: str) -> list[str]:
        """Set everything the query names. Whatever the query holds, this never fails: a bad value keeps
        the default and returns a notice naming the allowed values; unknown and repeated names are
        reported too. Notices are plain text: a view must escape them."""
        reading = _Query()
        try:
            pairs = parse_qsl(search.lstrip("?"), keep_blank_values=True, max_num_fields=MAX_FIELDS)
        except ValueError:
            pairs = []
            reading.notices.append(f"this link has more than {MAX_FIELDS} values; showing the main trace.")
        pairs = _tour_pairs(pairs, reading)
        for key, value in pairs:
            reading.take(key, value)
        with param.parameterized.batch_call_watchers(self):
            self.playing = False
            flags = dict(reading.flags)
            tick = flags.pop("tick")  # set once the run is known, so it can be checked against its end
            self.param.update(**reading.values, **reading.schedule, **flags)
        if tick > self.end_tick:
            reading.notices.append(
                f"this run ends at t{self.end_tick}; showing t{self.end_tick} instead of t{tick}."
            )
        self.go(tick)
        self.notices = reading.notices
        return reading.notices


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
                f"{allowed[0]}."
            )
