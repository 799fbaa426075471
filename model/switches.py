"""The eight switches of the worked example, plus the one advanced setting.

Each switch is an Enum whose values are exactly the ids the article and SPEC.md use. The first member of
every Enum is the main trace's value, so ``Switches()`` *is* the main trace.

The order of all 864 combinations is fixed and documented: ``itertools.product`` over the switches in the
order of ``SWITCH_IDS`` (the order of SPEC.md section 2), each Enum in its declared order. The first
combination is the main trace; the last switch (``post_key``) varies fastest.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields


class Silent(enum.Enum):
    """What attempt #1 really did when it went silent at t3."""

    PAUSED = "paused"
    CRASHED = "crashed"


class Fencing(enum.Enum):
    """Whether every protected store compares the writer's owner token with the epoch."""

    ON = "on"
    OFF = "off"


class Checkpoints(enum.Enum):
    """Whether an attempt journals each section as it finishes it, or all of them when it assembles."""

    EVERY_STEP = "every-step"
    END_ONLY = "end-only"


class Change(enum.Enum):
    """When the report is corrected to v2: at t4, never, or at t12."""

    DURING_OUTAGE = "during-outage"
    NEVER = "never"
    AFTER_ACCEPTANCE = "after-acceptance"


class Pins(enum.Enum):
    """Whether records carry input hashes and acceptance compares them with the pin."""

    ON = "on"
    OFF = "off"


class NewsletterRule(enum.Enum):
    """Which digest the dependant newsletter is allowed to take."""

    CURRENT_ACCEPTED = "current-accepted"
    ANY_ACCEPTED = "any-accepted"
    LATEST_FINISHED = "latest-finished"


class Poster(enum.Enum):
    """Whether the first attempt that posts dies after the feed applied the post, before the acknowledgement."""

    DIES = "dies"
    SURVIVES = "survives"


class PostKey(enum.Enum):
    """The key sent with the post."""

    PER_OPERATION = "per-operation"
    PER_ATTEMPT = "per-attempt"
    NONE = "none"


class Unversioned(enum.Enum):
    """What the strict newsletter rule does when records carry no version (pins off)."""

    FAIL_OPEN = "fail-open"
    FAIL_CLOSED = "fail-closed"


class SwitchError(ValueError):
    """A switch id or value that does not exist; the message names the allowed ones."""


#: The eight switch ids in SPEC.md order, each with its Enum.
SWITCHES: dict[str, type[enum.Enum]] = {
    "silent": Silent,
    "fencing": Fencing,
    "checkpoints": Checkpoints,
    "change": Change,
    "pins": Pins,
    "newsletter": NewsletterRule,
    "poster": Poster,
    "post_key": PostKey,
}
SWITCH_IDS: tuple[str, ...] = tuple(SWITCHES)
#: The advanced setting that lies outside the eight.
ADVANCED: dict[str, type[enum.Enum]] = {"unversioned": Unversioned}
ALL_SETTINGS: dict[str, type[enum.Enum]] = {**SWITCHES, **ADVANCED}


def allowed_values(setting_id: str) -> tuple[str, ...]:
    """The values a setting accepts, in declared order."""
    return tuple(member.value for member in _enum_for(setting_id))


def _enum_for(setting_id: str) -> type[enum.Enum]:
    try:
        return ALL_SETTINGS[setting_id]
    except KeyError:
        raise SwitchError(
            f"unknown switch {setting_id!r}; the switches are: {', '.join(ALL_SETTINGS)}"
        ) from None


def parse_value(setting_id: str, value: object) -> enum.Enum:
    """Turn ``value`` (a string id or an Enum member) into the setting's Enum member, or raise SwitchError."""
    enum_type = _enum_for(setting_id)
    if isinstance(value, enum_type):
        return value
    for member in enum_type:
        if member.value == value:
            return member
    raise SwitchError(
        f"{setting_id} must be one of {', '.join(allowed_values(setting_id))}; got {value!r}"
    )


@dataclass(frozen=True)
class Switches:
    """One combination of the eight switches and the advanced setting. The defaults are the main trace."""

    silent: Silent = Silent.PAUSED
    fencing: Fencing = Fencing.ON
    checkpoints: Checkpoints = Checkpoints.EVERY_STEP
    change: Change = Change.DURING_OUTAGE
    pins: Pins = Pins.ON
    newsletter: NewsletterRule = NewsletterRule.CURRENT_ACCEPTED
    poster: Poster = Poster.DIES
    post_key: PostKey = PostKey.PER_OPERATION
    unversioned: Unversioned = Unversioned.FAIL_OPEN

    def __post_init__(self) -> None:
        # Accept plain string ids too, so Switches(fencing="off") works; anything else is refused by name.
        for f in fields(self):
            object.__setattr__(self, f.name, parse_value(f.name, getattr(self, f.name)))

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> Switches:
        """Build from ``{id: value}``; unknown ids and values raise SwitchError naming the allowed ones."""
        for key in values:
            _enum_for(key)
        return cls(**{key: parse_value(key, value) for key, value in values.items()})

    def replace(self, **changes: object) -> Switches:
        current = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in changes:
            _enum_for(key)
        current.update(changes)
        return Switches(**current)

    def to_dict(self, advanced: bool = False) -> dict[str, str]:
        """The eight ids (``post_key`` last) to their string values; ``advanced`` adds ``unversioned``."""
        ids = tuple(ALL_SETTINGS) if advanced else SWITCH_IDS
        return {key: getattr(self, key).value for key in ids}

    def differences(self, other: Switches) -> dict[str, tuple[str, str]]:
        """Settings whose values differ: ``{id: (mine, theirs)}``."""
        return {
            key: (getattr(self, key).value, getattr(other, key).value)
            for key in ALL_SETTINGS
            if getattr(self, key) is not getattr(other, key)
        }


MAIN_TRACE = Switches()


def all_switches(unversioned: Unversioned | str = Unversioned.FAIL_OPEN) -> Iterator[Switches]:
    """Every one of the 2·2·2·3·2·3·2·3 = 864 combinations, in the documented order."""
    unversioned = parse_value("unversioned", unversioned)
    for values in itertools.product(*(list(e) for e in SWITCHES.values())):
        yield Switches(*values, unversioned=unversioned)


#: The switches that are events (what happens), not protections.
EVENT_IDS = ("silent", "change", "poster")


def event_combinations(base: Switches = MAIN_TRACE) -> Iterator[Switches]:
    """The 2·3·2 = 12 event combinations with the protections of ``base``, in declared order."""
    for silent, change, poster in itertools.product(Silent, Change, Poster):
        yield base.replace(silent=silent, change=change, poster=poster)
