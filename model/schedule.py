"""The schedule: the timings the article's worked example fixes, as one record a reader can change.

The 864 runs share one schedule: attempt #1 goes silent as it starts s3 (t3) and, paused, wakes five
ticks later (t8); two missed heartbeats make an attempt UNKNOWN; the report is corrected at t4 or t12 (or
never); the first poster dies after the feed applied its post. Three of the eight switches (``silent``,
``change``, ``poster``) choose among those timings; ``Schedule.of(switches)`` is the schedule they
choose, and a run with it is the article's run, byte for byte.

A ``Schedule`` given to ``simulation.run`` replaces the one the switches choose. The command line and the
app layer it the same way: the switches give the article's schedule, and every schedule flag that is
named replaces its value.

Choices where the article is silent:

- The silence begins as an attempt *starts* a step. If the step is a section, the model call is made and
  counts, and the attempt finishes it when it wakes (the article's s3). Any other step (assemble, accept,
  post) is not taken until the attempt wakes; a tick without a step is a tick without a heartbeat.
- ``silent_for`` counts ticks from the tick the silence began; ``None`` is never (crashed).
- ``successor_stall``: the attempt after the silent one takes no step for that many ticks after its
  admission (a slow start, the second silence), then carries on with the token it was admitted with.
- ``poster_death``: the first attempt to post dies *before sending* (its intent is recorded, the feed
  never heard of it), *after the feed applied* the post and before the acknowledgement, or not at all.
- Faults (the explorer's second measure of a counterexample) are the things that go wrong: the silence,
  the stall, the poster's death and the correction, one each.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from .report import SECTIONS
from .switches import Change, Poster, Silent, SwitchError, Switches, quoted

LATEST = 40  # the latest tick a schedule can name (a correction, a silence's length)
#: The last tick of any run: past a schedule's last event, with room for a rebuild, a silence and a stall.
BOUND = 120


class ScheduleError(SwitchError):
    """A schedule value out of range; the message names the allowed values."""


class PosterDeath(enum.Enum):
    """Where the first poster dies, if it does."""

    AFTER_APPLY = "after-apply"
    BEFORE_SEND = "before-send"
    NONE = "none"


#: The steps at which a silence can begin: the four sections, then the other steps of an attempt.
SILENT_POINTS: tuple[str, ...] = (*SECTIONS, "assemble", "accept", "post", "none")
NEVER = "never"


@dataclass(frozen=True)
class Field:
    """One schedule value: its id, its range, whether ``never`` (None) is allowed, and a line of help."""

    id: str
    low: int | None
    high: int | None
    never: bool
    help: str
    switch: str | None = None  # the event switch whose timing this value replaces, if any

    def choices(self) -> list[str]:
        """Every value, as text (for a menu)."""
        if self.id == "silent_at":
            return list(SILENT_POINTS)
        if self.id == "poster_death":
            return [p.value for p in PosterDeath]
        return [str(n) for n in range(self.low, self.high + 1)] + ([NEVER] if self.never else [])

    def allowed(self) -> str:
        if self.id == "silent_at":
            return ", ".join(SILENT_POINTS)
        if self.id == "poster_death":
            return ", ".join(p.value for p in PosterDeath)
        words = f"a whole number from {self.low} to {self.high}"
        return words + (f", or {NEVER}" if self.never else "")


FIELDS: tuple[Field, ...] = (
    Field("silent_attempt", 1, 3, False, "which attempt goes silent", "silent"),
    Field("silent_at", None, None, False, "the step at which it goes silent (none: no silence)", "silent"),
    Field("silent_for", 1, LATEST, True, "how many ticks it stays silent (never: it crashed)", "silent"),
    Field("threshold", 1, 5, False, "missed heartbeats before an attempt is presumed lost"),
    Field(
        "correction_at",
        0,
        LATEST,
        True,
        "the tick the report is corrected to v2 (never: not at all)",
        "change",
    ),
    Field("poster_death", None, None, False, "where the first poster dies", "poster"),
    Field("successor_stall", 0, 10, False, "ticks the silent attempt's successor takes no step"),
)
FIELD_BY_ID: dict[str, Field] = {f.id: f for f in FIELDS}
SCHEDULE_IDS: tuple[str, ...] = tuple(FIELD_BY_ID)

#: The article's timings that the switches choose among (RULES.md §3).
_SILENT_FOR = {Silent.PAUSED: 5, Silent.CRASHED: None}  # t3 + 5 = t8
_CORRECTION_AT = {Change.DURING_OUTAGE: 4, Change.NEVER: None, Change.AFTER_ACCEPTANCE: 12}
_POSTER_DEATH = {Poster.DIES: PosterDeath.AFTER_APPLY, Poster.SURVIVES: PosterDeath.NONE}


#: The values each of the schedule's questions reads (the methods under "the choices the world asks"):
#: the graph explorer answers a question for a whole set of schedules by asking it once per combination
#: of these values (a test checks that no other value changes an answer).
READS: dict[str, tuple[str, ...]] = {
    "silences": ("silent_attempt", "silent_at"),
    "silence_length": ("silent_for",),
    "missed_heartbeats_tolerated": ("threshold",),
    "corrects_at": ("correction_at",),
    "corrects_after": ("correction_at",),
    "poster_dies_at": ("poster_death",),
    "stall_of": ("silent_attempt", "successor_stall"),
}


@dataclass(frozen=True)
class Schedule:
    """When things go wrong. The defaults are the main trace's schedule."""

    silent_attempt: int = 1
    silent_at: str = "s3"
    silent_for: int | None = 5
    threshold: int = 2
    correction_at: int | None = 4
    poster_death: PosterDeath = PosterDeath.AFTER_APPLY
    successor_stall: int = 0

    def __post_init__(self) -> None:
        for f in FIELDS:
            object.__setattr__(self, f.id, parse(f.id, getattr(self, f.id)))

    @classmethod
    def of(cls, switches: Switches) -> Schedule:
        """The article's schedule for these switches (their ``silent``, ``change`` and ``poster``)."""
        return cls(
            silent_for=_SILENT_FOR[switches.silent],
            correction_at=_CORRECTION_AT[switches.change],
            poster_death=_POSTER_DEATH[switches.poster],
        )

    # --- the choices the world asks of its schedule -------------------------------------------------
    # Every schedule decision the world takes is one of these questions, asked when it arises; nothing
    # else in the model reads a schedule's values. An explorer that branches can answer them here.

    def silences(self, attempt: int, point: str) -> bool:
        """Whether attempt number ``attempt`` goes silent as it starts ``point``."""
        return attempt == self.silent_attempt and point == self.silent_at

    def silence_length(self) -> int | None:
        """How many ticks a silence lasts once it has begun (None: it never wakes)."""
        return self.silent_for

    def missed_heartbeats_tolerated(self) -> int:
        """How many missed heartbeats in a row make an attempt UNKNOWN."""
        return self.threshold

    def corrects_at(self, tick: int) -> bool:
        """Whether the report is corrected at ``tick``."""
        return tick == self.correction_at

    def corrects_after(self, tick: int) -> bool:
        """Whether a correction is still ahead after ``tick``."""
        return self.correction_at is not None and self.correction_at > tick

    def poster_dies_at(self, point: PosterDeath) -> bool:
        """Whether the first poster dies at this point of its post."""
        return self.poster_death is point

    def stall_of(self, attempt: int) -> int:
        """How many ticks attempt number ``attempt`` stalls before its first step (the silent one's
        successor may stall; no other does)."""
        return self.successor_stall if attempt == self.silent_attempt + 1 else 0

    def replace(self, **changes: object) -> Schedule:
        for key in changes:
            _field(key)
        return replace(self, **changes)

    def with_values(self, values: Mapping[str, object]) -> Schedule:
        """This schedule with ``{id: value}`` replacing its values (strings as the CLI and URLs give them)."""
        return self.replace(**{key: parse(key, value) for key, value in values.items()})

    def to_dict(self) -> dict[str, object]:
        """Ids to JSON values: numbers, ``None`` for never, strings for the named points."""
        return {f.id: _plain(getattr(self, f.id)) for f in FIELDS}

    def differences(self, base: Schedule) -> dict[str, str]:
        """Ids whose values differ from ``base``, to the text a flag or a URL gives them."""
        return {
            f.id: text_of(getattr(self, f.id)) for f in FIELDS if getattr(self, f.id) != getattr(base, f.id)
        }

    def faults(self) -> int:
        """How many things go wrong: a silence, a stall, a poster's death, a correction."""
        return (
            (self.silent_at != "none")
            + (self.successor_stall > 0)
            + (self.poster_death is not PosterDeath.NONE)
            + (self.correction_at is not None)
        )

    def words(self) -> str:
        """The schedule in one sentence."""
        parts = []
        if self.silent_at == "none":
            parts.append("no attempt goes silent")
        else:
            how = "never wakes" if self.silent_for is None else f"wakes {_ticks(self.silent_for)} later"
            parts.append(f"#{self.silent_attempt} goes silent at {self.silent_at} and {how}")
        if self.successor_stall:
            parts.append(f"#{self.silent_attempt + 1} stalls {_ticks(self.successor_stall)} after admission")
        one = self.threshold == 1
        parts.append(
            f"{self.threshold} missed heartbeat{'' if one else 's'} make{'s' if one else ''} it UNKNOWN"
        )
        parts.append(
            "the report is never corrected"
            if self.correction_at is None
            else f"the report is corrected at t{self.correction_at}"
        )
        parts.append(
            {
                PosterDeath.AFTER_APPLY: "the first poster dies after the feed applied its post",
                PosterDeath.BEFORE_SEND: "the first poster dies before sending",
                PosterDeath.NONE: "no poster dies",
            }[self.poster_death]
        )
        return "; ".join(parts)


if tuple(f.name for f in fields(Schedule)) != tuple(FIELD_BY_ID):
    raise AssertionError("Schedule's fields and FIELDS must name the same values in the same order")


def _ticks(n: int) -> str:
    return f"{n} tick" if n == 1 else f"{n} ticks"


def _field(field_id: str) -> Field:
    try:
        return FIELD_BY_ID[field_id]
    except KeyError:
        raise ScheduleError(
            f"unknown schedule value {quoted(field_id)}; the schedule's values are: {', '.join(FIELD_BY_ID)}"
        ) from None


def _plain(value: object) -> object:
    return value.value if isinstance(value, enum.Enum) else value


def text_of(value: object) -> str:
    """A value as a flag or a URL writes it."""
    if value is None:
        return NEVER
    return str(_plain(value))


def parse(field_id: str, value: object) -> object:
    """Turn a value (typed, or text from a flag or a URL) into the schedule's value, or raise ScheduleError
    naming the allowed values."""
    f = _field(field_id)
    if field_id == "poster_death":
        for member in PosterDeath:
            if value is member or value == member.value:
                return member
    elif field_id == "silent_at":
        if value in SILENT_POINTS:
            return value
    elif value is None or value == NEVER:
        if f.never:
            return None
    else:
        number = value
        if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 3:
            number = int(value)
        if type(number) is int and f.low <= number <= f.high:
            return number
    raise ScheduleError(f"{field_id} must be {f.allowed()}; got {quoted(value)}")


ARTICLE = Schedule()  # the main trace's schedule
