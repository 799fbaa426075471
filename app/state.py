"""The param adapter: the reader's choices (switches, tick, playback, view) as documented params.

It asks the model for everything it shows: the trace is computed once per switch change, never per tick,
and every fact a view draws comes from that trace or from the model's analyses. The switch params are
made from the model's declared settings (``model.switches.SETTINGS``), so a new switch needs nothing here.
"""

from __future__ import annotations

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
URL_FLAGS = ("tick", "embed", "view", "tab", "preset", "tour", "present", "print")
#: Flags that keep their meaning when a tour step sets the switches, the schedule and the tick.
LAYOUT_FLAGS = ("embed", "present", "print")
#: The pictures an article can place in its text on their own (``?embed=1&view=timeline``), with the player.
FIGURES = ("timeline", "lifecycles", "badges")
MAX_TICK_DIGITS = 6  # longer is not a tick of any run; never handed to int()
MAX_FIELDS = 100  # a query with more is no link of ours


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


class Explainer(_Settings):
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

    def step(self, delta: int) -> None:
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
        """Only what differs from the defaults, so the main trace's link is short."""
        query = {k: v for k, v in self.values().items() if v != DEFAULTS[k]} | self.schedule_overrides()
        if self.tick:
            query["tick"] = str(self.tick)
        if self.tab != TAB_IDS[0]:
            query["tab"] = self.tab
        if self.embed:
            query["embed"] = "1"
        if self.view:
            query["view"] = self.view
        if self.tour:
            query["tour"] = str(self.tour)
        if self.present:
            query["present"] = "1"
        if self.handout:
            query["print"] = "1"
        return ("?" + urlencode(query)) if query else ""

    # --- the tour ----------------------------------------------------------------------------------

    def go_to_step(self, number: int) -> None:
        """Open a step of the tour: its switches, schedule and tick (the layout flags stay as they are)."""
        flags = "".join(f"&{k}=1" for k, on in (("embed", self.embed), ("present", self.present)) if on)
        self.apply_query(f"?tour={number}{flags}")

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
            self.param.update(
                **reading.values,
                **reading.schedule,
                tab=reading.tab,
                embed=reading.embed,
                view=reading.view,
                tour=reading.tour,
                present=reading.present,
                handout=reading.handout,
            )
        if reading.tick > self.end_tick:
            reading.notices.append(
                f"this run ends at t{self.end_tick}; showing t{self.end_tick} instead of t{reading.tick}."
            )
        self.go(reading.tick)
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
        self.tick, self.tab, self.embed, self.view = 0, TAB_IDS[0], False, ""
        self.tour, self.present, self.handout = 0, False, False
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
        elif key == "preset":
            if value in PRESETS:
                self.values.update(PRESETS[value])
            else:
                self.notices.append(f"{quoted(value)} is not a preset (allowed: {', '.join(PRESETS)}).")
        elif key == "tick":
            if value.isascii() and value.isdigit() and len(value) <= MAX_TICK_DIGITS:
                self.tick = int(value)
            else:
                self.notices.append(f"tick must be a whole number from 0; got {quoted(value)}, showing t0.")
        elif key == "tab":
            if value in TAB_IDS:
                self.tab = value
            else:
                self.notices.append(f"{quoted(value)} is not a view (allowed: {', '.join(TAB_IDS)}).")
        elif key == "view":
            if value in FIGURES:
                self.view = value
            else:
                self.notices.append(f"{quoted(value)} is not a figure (allowed: {', '.join(FIGURES)}).")
        elif key == "embed":
            if value in ("0", "1"):
                self.embed = value == "1"
            else:
                self.notices.append(f"embed must be 0 or 1; got {quoted(value)}, showing the full page.")
        elif key == "tour":
            self.tour = int(value)  # _tour_pairs has checked it
        elif key in ("present", "print"):
            if value in ("0", "1"):
                setattr(self, "handout" if key == "print" else key, value == "1")
            else:
                self.notices.append(f"{key} must be 0 or 1; got {quoted(value)}, showing the full page.")
        else:
            known = ", ".join([*ALL_SETTINGS, *SCHEDULE_IDS, *URL_FLAGS])
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
