"""The param adapter: the reader's choices (switches, tick, playback) as documented params.

It asks the model for everything it shows: the trace is computed once per switch change, never per tick,
and every fact a view draws comes from that trace or from the model's analyses.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

import param

from app.content import text, title_and_body
from model import Switches, run, trace_dict
from model.switches import ALL_SETTINGS, allowed_values

SPEEDS = {"0.5×": 1600, "1×": 800, "2×": 400, "4×": 200}  # milliseconds per tick

#: Presets are chapters of the story: switch values, and the tick to start at.
PRESETS: dict[str, dict] = {
    "main": {"switches": {}},
    "superseded": {"switches": {"change": "after-acceptance"}},
    "pins-off": {"switches": {"pins": "off"}},
    "all-off": {
        "switches": {
            "fencing": "off",
            "checkpoints": "end-only",
            "pins": "off",
            "newsletter": "latest-finished",
            "post_key": "none",
        }
    },
}

EVENT_SWITCHES = ("silent", "change", "poster")
PROTECTION_SWITCHES = ("fencing", "checkpoints", "pins", "newsletter", "post_key")
ADVANCED_SWITCHES = ("unversioned",)
URL_FLAGS = ("tick", "embed", "tab", "preset")
TABS = ("trace", "compare", "sweep", "engines", "text", "glossary")


def _switch_param(setting: str) -> param.Selector:
    values = list(allowed_values(setting))
    title, body = title_and_body(text("switches", setting))
    return param.Selector(objects=values, default=values[0], label=title, doc=body)


class Explainer(param.Parameterized):
    """Everything the reader has chosen, and the model's answer for it."""

    silent = _switch_param("silent")
    fencing = _switch_param("fencing")
    checkpoints = _switch_param("checkpoints")
    change = _switch_param("change")
    pins = _switch_param("pins")
    newsletter = _switch_param("newsletter")
    poster = _switch_param("poster")
    post_key = _switch_param("post_key")
    unversioned = _switch_param("unversioned")

    tick = param.Integer(default=0, bounds=(0, None), doc="The tick on show, from t0 to the run's last tick.")
    playing = param.Boolean(default=False, doc="Whether the player advances one tick at a time by itself.")
    speed = param.Selector(objects=list(SPEEDS), default="1×", doc="How fast the player advances.")
    tab = param.Selector(objects=list(TABS), default="trace", doc="Which view is open.")
    embed = param.Boolean(default=False, doc="The compact layout for an iframe in the article.")

    trace = param.Dict(precedence=-1, doc="The model's trace for the current switches (trace_dict).")
    outcome = param.Dict(precedence=-1, doc="The model's outcome for the current switches.")
    notices = param.List(default=[], precedence=-1, doc="Messages for the reader, e.g. a bad URL value.")

    def __init__(self, **params):
        super().__init__(**params)
        self._rerun()

    # --- the model's answer ------------------------------------------------------------------------

    def switches(self) -> Switches:
        return Switches.from_mapping({k: getattr(self, k) for k in ALL_SETTINGS})

    @param.depends(*ALL_SETTINGS, watch=True)
    def _rerun(self) -> None:
        result = run(self.switches())
        with param.parameterized.batch_call_watchers(self):
            self.trace = trace_dict(result)
            self.outcome = result.outcome()
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
        if self.tick >= self.end_tick:
            self.playing = False
        else:
            self.tick += 1
            if self.tick >= self.end_tick:
                self.playing = False

    def toggle_play(self) -> None:
        if not self.playing and self.tick >= self.end_tick:
            self.tick = 0
        self.playing = not self.playing

    # --- presets and reset -------------------------------------------------------------------------

    def apply_preset(self, name: str) -> None:
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}; the presets are: {', '.join(PRESETS)}")
        values = {k: allowed_values(k)[0] for k in ALL_SETTINGS}
        values.update(PRESETS[name]["switches"])
        with param.parameterized.batch_call_watchers(self):
            self.playing = False
            self.param.update(**values)
            self.tick = 0

    def reset(self) -> None:
        self.apply_preset("main")

    def preset_name(self) -> str | None:
        """The preset the current switches match, if any."""
        now = self.switches().to_dict(advanced=True)
        for name, preset in PRESETS.items():
            values = {k: allowed_values(k)[0] for k in ALL_SETTINGS}
            values.update(preset["switches"])
            if values == now:
                return name
        return None

    # --- the URL -----------------------------------------------------------------------------------

    def to_query(self) -> str:
        """Only what differs from the defaults, so the main trace's link is short."""
        query = {k: getattr(self, k) for k in ALL_SETTINGS if getattr(self, k) != allowed_values(k)[0]}
        if self.tick:
            query["tick"] = str(self.tick)
        if self.tab != "trace":
            query["tab"] = self.tab
        if self.embed:
            query["embed"] = "1"
        return ("?" + urlencode(query)) if query else ""

    def apply_query(self, search: str) -> list[str]:
        """Set everything the query names. A bad value keeps the default and returns a notice naming the
        allowed values; unknown names are reported, never fatal."""
        notices: list[str] = []
        pairs = parse_qsl(search.lstrip("?"), keep_blank_values=True)
        values = {k: allowed_values(k)[0] for k in ALL_SETTINGS}
        tick = 0
        tab, embed = "trace", False
        for key, value in pairs:
            if key in ALL_SETTINGS:
                if value in allowed_values(key):
                    values[key] = value
                else:
                    notices.append(
                        f"'{value}' is not a value of {key} (allowed: {', '.join(allowed_values(key))});"
                        f" showing {allowed_values(key)[0]}."
                    )
            elif key == "preset":
                if value in PRESETS:
                    values.update(PRESETS[value]["switches"])
                else:
                    notices.append(f"'{value}' is not a preset (allowed: {', '.join(PRESETS)}).")
            elif key == "tick":
                if value.isdigit():
                    tick = int(value)
                else:
                    notices.append(f"tick must be a whole number from 0; got '{value}', showing t0.")
            elif key == "tab":
                if value in TABS:
                    tab = value
                else:
                    notices.append(f"'{value}' is not a view (allowed: {', '.join(TABS)}).")
            elif key == "embed":
                embed = value in ("1", "true", "yes")
            else:
                known = ", ".join([*ALL_SETTINGS, *URL_FLAGS])
                notices.append(f"'{key}' is not something the explainer understands (it knows: {known}).")
        with param.parameterized.batch_call_watchers(self):
            self.playing = False
            self.param.update(**values, tab=tab, embed=embed)
        if tick > self.end_tick:
            notices.append(f"this run ends at t{self.end_tick}; showing t{self.end_tick} instead of t{tick}.")
        self.go(tick)
        self.notices = notices
        return notices
