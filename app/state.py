"""The param adapter: the reader's choices (switches, tick, playback, view) as documented params.

It asks the model for everything it shows: the trace is computed once per switch change, never per tick,
and every fact a view draws comes from that trace or from the model's analyses. The switch params are
made from the model's declared settings (``model.switches.SETTINGS``), so a new switch needs nothing here.
How a link is read and written (its flags, presets, notices) is ``app.url``'s: pure functions this uses.
"""

from __future__ import annotations

from contextlib import contextmanager
from urllib.parse import parse_qsl, urlencode

import param

from app.content import text, title_and_body
from app.tabs import TAB_IDS
from app.url import (  # noqa: F401  (PRESETS, SPEEDS, FIGURES, URL_PARAMS: where the app imports them from)
    AS_SWITCHES,
    DEFAULTS,
    FIGURES,
    LAYOUT_FLAGS,
    MAX_TICK_DIGITS,
    MOMENT_PAUSE,
    PRESETS,
    SCHEDULE_DEFAULTS,
    SPEEDS,
    URL_FLAGS,
    URL_PARAMS,
    past_the_end,
    read_query,
    write_query,
)
from model import Switches, run, trace_dict
from model.schedule import FIELDS as SCHEDULE_FIELDS
from model.schedule import SCHEDULE_IDS, Schedule
from model.switches import ALL_SETTINGS, SETTINGS, allowed_values

#: The last runs made, by their switches and schedule. The model is deterministic, so a switch flipped
#: back, or a setting another page of this process showed, is the same run: it is made once, and is the
#: same dict (the renderers keep what they work out of a run by its identity). Nothing changes a trace.
_MADE: dict[tuple[Switches, Schedule], tuple[dict, dict]] = {}


def is_made(switches: Switches, schedule: Schedule) -> bool:
    """Whether ``made_run`` holds this run already."""
    return (switches, schedule) in _MADE


def made_run(switches: Switches, schedule: Schedule) -> tuple[dict, dict]:
    """The run's trace and outcome (``trace_dict``, ``Outcome.to_dict``), made once of the last 32."""
    made = _MADE.pop((switches, schedule), None)
    if made is None:
        result = run(switches, schedule=schedule)
        made = trace_dict(result), result.outcome().to_dict()
        if len(_MADE) >= 32:
            _MADE.pop(next(iter(_MADE)))
    _MADE[switches, schedule] = made  # the newest last: the oldest goes first
    return made


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
    pause = param.Boolean(
        default=True, doc="Whether Play waits at each key moment for its caption to be read (?pause=0: not)."
    )
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
    before = param.Dict(
        default=None,
        allow_None=True,
        precedence=-1,
        doc="The run as it was before the reader's last change of a switch or the schedule (its trace), "
        "kept beside the new one until the reader dismisses it or opens another chapter, link or tour step.",
    )

    def __init__(self, **params):
        self._new_story = True  # the first run is compared with nothing
        super().__init__(**params)
        self._rerun()
        self._new_story = False

    @contextmanager
    def new_story(self):
        """Changes that open another story (a chapter, a link, a tour step): the run they make is not
        compared with the one before."""
        self._new_story = True
        try:
            yield
        finally:
            self._new_story = False
        self.before = None

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
        return self.schedule_for(self.switches())

    def schedule_for(self, switches: Switches) -> Schedule:
        """The schedule a run of ``switches`` has here (after a switch, say): theirs, with the reader's
        overrides."""
        return Schedule.of(switches).with_values(self.schedule_overrides())

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
        trace, outcome = made_run(self.switches(), self.schedule())
        previous = self.trace
        with param.parameterized.batch_call_watchers(self):
            if previous is not None and not self._new_story:
                self.before = previous
            self.trace = trace
            self.outcome = outcome
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
        elif action == "pause" and value in ("on", "off"):
            self.pause = value == "on"
        else:
            return False
        return True

    def apply_preset(self, name: str) -> None:
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}; the presets are: {', '.join(PRESETS)}")
        with self.new_story(), param.parameterized.batch_call_watchers(self):
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
        """The link to what is on show (``app.url.write_query``)."""
        flags = {f.attr: getattr(self, f.attr) for f in URL_FLAGS}
        return write_query(self.values(), self.schedule_overrides(), flags)

    def embed_query(self) -> str:
        """The link an article embeds: a chapter's run by the chapter's name (the site's pre-render paints
        it at once, and the link says what it shows), else the switches' values as ``to_query``."""
        query, preset = self.to_query(), self.preset_name()
        if preset is None:
            return query
        kept = [(k, v) for k, v in parse_qsl(query.removeprefix("?")) if k not in ALL_SETTINGS]
        return "?" + urlencode([("preset", preset), *kept])

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
        """Set everything the query names (``app.url.read_query``). Whatever the query holds, this never
        fails: a bad value keeps the default and returns a notice naming the allowed values; unknown and
        repeated names are reported too. Notices are plain text: a view must escape them."""
        reading = read_query(search)
        with self.new_story(), param.parameterized.batch_call_watchers(self):
            self.playing = False
            flags = dict(reading.flags)
            tick = flags.pop("tick")  # set once the run is known, so it can be checked against its end
            self.param.update(**reading.values, **reading.schedule, **flags)
        notices = [*reading.notices, *past_the_end(tick, self.end_tick)]
        self.go(tick)
        self.notices = notices
        return notices
