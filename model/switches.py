"""The eight switches of the worked example, plus the two advanced settings.

Each switch is an Enum whose values are exactly the ids the article and RULES.md use. The first member of
every Enum is the main trace's value, so ``Switches()`` *is* the main trace.

Each setting's role is declared once, in ``SETTINGS``: an *event* (what happens to the work), a
*protection* (what the system does about it) or *advanced*. Everything that groups settings (the app's
panels, the 864 matrix's axes, ``event_combinations``, ``protected_counterpart``) derives from it, so a
new switch is a new Enum, a row in ``SETTINGS``, a field of ``Switches`` and a section in
``content/switches.md``, and nothing else.

The order of all 864 combinations is fixed and documented: ``itertools.product`` over the switches in the
order of ``SWITCH_IDS`` (the order of RULES.md §2), each Enum in its declared order. The first
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
    NONE = "none"  # beyond the article: nothing is journaled, so a successor rebuilds from scratch


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
    """Whether the first attempt to post dies after the feed applied the post, before the acknowledgement."""

    DIES = "dies"
    SURVIVES = "survives"


class PostKey(enum.Enum):
    """The key sent with the post."""

    PER_OPERATION = "per-operation"
    PER_ATTEMPT = "per-attempt"
    NONE = "none"
    PER_WORK = "per-work"  # beyond the article: one key for every announcement of the unit of work


class Unversioned(enum.Enum):
    """What the strict newsletter rule does when records carry no version (pins off)."""

    FAIL_OPEN = "fail-open"
    FAIL_CLOSED = "fail-closed"


class ControllerRules(enum.Enum):
    """Which controller rules run: the completed ones (the default), or the rules as first written.

    The rules as first written left two holes that the schedule explorer found (see
    ``model/RULES.md``, "Two rules the article leaves implicit"); ``literal`` keeps them, outside the
    864, so that what the explorer found can still be replayed and shown."""

    COMPLETED = "completed"
    LITERAL = "literal"


class FeedKeys(enum.Enum):
    """How long the outside feed remembers an operation key. The article assumes the whole run (its §13
    lists a pruned key as a failure outside the model); the shorter ones step past it."""

    WHOLE_RUN = "whole-run"
    EIGHT_TICKS = "8-ticks"
    TWO_TICKS = "2-ticks"

    @property
    def ticks(self) -> int | None:
        """For how many ticks a key is kept after it was first seen; None: for the whole run."""
        return None if self is FeedKeys.WHOLE_RUN else int(self.value.split("-")[0])


class SectionOneReads(enum.Enum):
    """What section 1's summary reads. The article's model has each summary read only its own section
    (its §16, assumption 2); past it, the overview also quotes the revenue from section 2, with section 2
    outside its key (the article's §13.5, an undeclared input) or inside it (the remedy)."""

    OWN_SECTION = "own-section"
    S2_UNDECLARED = "s2-undeclared"
    S2_DECLARED = "s2-declared"

    def also_reads(self, step: str) -> tuple[str, ...]:
        """The sections a step reads besides its own."""
        return ("s2",) if step == "s1" and self is not SectionOneReads.OWN_SECTION else ()

    def declares(self, step: str) -> tuple[str, ...]:
        """The sections besides its own that a step's key names."""
        return self.also_reads(step) if self is SectionOneReads.S2_DECLARED else ()


class ControllerRestart(enum.Enum):
    """Whether the controller restarts. The article's never fails and keeps its records on reliable storage
    (its §16, assumption 9, and §13.9); past it, the controller restarts at t4 and loses what it holds in
    memory, with the owner epoch and the attempt records durable (the remedy) or in memory with the rest."""

    NEVER = "never"
    DURABLE = "at-t4-durable"
    IN_MEMORY = "at-t4-in-memory"

    @property
    def tick(self) -> int | None:
        """The tick at whose start the controller restarts; None: it never does."""
        return None if self is ControllerRestart.NEVER else 4


class RecordsLost(enum.Enum):
    """Whether durable records are lost. The article assumes stable storage (its §13.10: durable work is
    only as durable as its records); past it, the journal is lost at t4 or t12, or at t12 the journal,
    the acceptance log and the effect records together."""

    NEVER = "never"
    JOURNAL_AT_T4 = "journal-at-t4"
    JOURNAL_AT_T12 = "journal-at-t12"
    ALL_AT_T12 = "all-at-t12"

    @property
    def tick(self) -> int | None:
        """The tick at whose start the records are lost; None: they never are."""
        return None if self is RecordsLost.NEVER else int(self.value.rsplit("-t", 1)[1])

    @property
    def stores(self) -> tuple[str, ...]:
        """The protected stores whose records are lost."""
        if self is RecordsLost.ALL_AT_T12:
            return ("journal", "acceptances", "effects")
        return () if self is RecordsLost.NEVER else ("journal",)


class SwitchError(ValueError):
    """A switch id or value that does not exist; the message names the allowed ones."""


QUOTE = 60  # characters of a reader's value that a message quotes back


def quoted(value: object) -> str:
    """A value as a message quotes it: repr, cut to its first QUOTE characters (a link or a command line
    can carry anything, and a message should not repeat thousands of characters of it)."""
    text = value if isinstance(value, str) else repr(value)
    more = f" (and {len(text) - QUOTE} more characters)" if len(text) > QUOTE else ""
    return repr(text[:QUOTE]) + more


class Role(enum.StrEnum):
    """What a setting is, in the article's terms."""

    EVENT = "event"  # what happens to the work: the schedule of the story
    PROTECTION = "protection"  # what the system writes down and checks
    ADVANCED = "advanced"  # outside the eight switches (and the 864)


@dataclass(frozen=True)
class Setting:
    """One setting: its id, its values, its role and a short label for tight places (axes, chips)."""

    id: str
    values: type[enum.Enum]
    role: Role
    short: str
    beyond: tuple[str, ...] = ()  # values outside the article's eight switches (and so outside the 864)
    # An assumption of the article's model made a switch: a trace names it only when it is changed, so the
    # traces of the 864 are the same bytes as before it existed.
    assumption: bool = False

    @property
    def article_values(self) -> tuple[enum.Enum, ...]:
        """The members the article names, in declared order: the axes of the 864."""
        return tuple(m for m in self.values if m.value not in self.beyond)


#: Every setting, in RULES.md order (which fixes the order of the 864); within a role, this is also the
#: order in which a page shows them.
SETTINGS: tuple[Setting, ...] = (
    Setting("silent", Silent, Role.EVENT, "silent worker"),
    Setting("fencing", Fencing, Role.PROTECTION, "fencing"),
    Setting("checkpoints", Checkpoints, Role.PROTECTION, "checkpoints", beyond=("none",)),
    Setting("change", Change, Role.EVENT, "input change"),
    Setting("pins", Pins, Role.PROTECTION, "version pins"),
    Setting("newsletter", NewsletterRule, Role.PROTECTION, "newsletter rule"),
    Setting("poster", Poster, Role.EVENT, "posting worker"),
    Setting("post_key", PostKey, Role.PROTECTION, "post key", beyond=("per-work",)),
    Setting("unversioned", Unversioned, Role.ADVANCED, "unversioned records"),
    Setting("controller", ControllerRules, Role.ADVANCED, "controller rules"),
    Setting(
        "feed_keys", FeedKeys, Role.ADVANCED, "feed's key memory", ("8-ticks", "2-ticks"), assumption=True
    ),
    Setting(
        "controller_restart",
        ControllerRestart,
        Role.ADVANCED,
        "controller restart",
        ("at-t4-durable", "at-t4-in-memory"),
        assumption=True,
    ),
    Setting(
        "records_lost",
        RecordsLost,
        Role.ADVANCED,
        "records lost",
        ("journal-at-t4", "journal-at-t12", "all-at-t12"),
        assumption=True,
    ),
    Setting(
        "s1_reads",
        SectionOneReads,
        Role.ADVANCED,
        "what section 1 reads",
        ("s2-undeclared", "s2-declared"),
        assumption=True,
    ),
)
SETTING_BY_ID: dict[str, Setting] = {s.id: s for s in SETTINGS}


def ids_of(role: Role) -> tuple[str, ...]:
    """The ids of the settings with this role, in declared order."""
    return tuple(s.id for s in SETTINGS if s.role is role)


#: The eight switch ids in RULES.md order, each with its Enum.
SWITCHES: dict[str, type[enum.Enum]] = {s.id: s.values for s in SETTINGS if s.role is not Role.ADVANCED}
SWITCH_IDS: tuple[str, ...] = tuple(SWITCHES)
ALL_SETTINGS: dict[str, type[enum.Enum]] = {s.id: s.values for s in SETTINGS}


def allowed_values(setting_id: str) -> tuple[str, ...]:
    """The values a setting accepts, in declared order (the article's first, then any beyond them)."""
    return tuple(member.value for member in _enum_for(setting_id))


def article_values(setting_id: str) -> tuple[str, ...]:
    """The values the article gives a setting: the ones the 864 combine."""
    _enum_for(setting_id)
    return tuple(member.value for member in SETTING_BY_ID[setting_id].article_values)


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
        f"{setting_id} must be one of {', '.join(allowed_values(setting_id))}; got {quoted(value)}"
    )


@dataclass(frozen=True)
class Switches:
    """One combination of the eight switches and the advanced settings. The defaults are the main trace."""

    silent: Silent = Silent.PAUSED
    fencing: Fencing = Fencing.ON
    checkpoints: Checkpoints = Checkpoints.EVERY_STEP
    change: Change = Change.DURING_OUTAGE
    pins: Pins = Pins.ON
    newsletter: NewsletterRule = NewsletterRule.CURRENT_ACCEPTED
    poster: Poster = Poster.DIES
    post_key: PostKey = PostKey.PER_OPERATION
    unversioned: Unversioned = Unversioned.FAIL_OPEN
    controller: ControllerRules = ControllerRules.COMPLETED
    feed_keys: FeedKeys = FeedKeys.WHOLE_RUN
    controller_restart: ControllerRestart = ControllerRestart.NEVER
    records_lost: RecordsLost = RecordsLost.NEVER
    s1_reads: SectionOneReads = SectionOneReads.OWN_SECTION

    def __post_init__(self) -> None:
        # Accept plain string ids too, so Switches(fencing="off") works; anything else is refused by name.
        for f in fields(self):
            object.__setattr__(self, f.name, parse_value(f.name, getattr(self, f.name)))
        # Hashed once: every state of a run holds its switches, and the explorer hashes states by the
        # thousand (each of the fourteen enums' hashes is a Python call).
        object.__setattr__(self, "_hash", hash(self._values()))

    def _values(self) -> tuple:
        return tuple(getattr(self, f.name) for f in fields(self))

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        # Rebuilt from its values, so a copy in another process hashes with that process's string hashes.
        return (Switches, self._values())

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

    def to_dict(self, advanced: bool = False, assumptions: bool = True) -> dict[str, str]:
        """The eight ids (``post_key`` last) to their string values; ``advanced`` adds the advanced
        settings, and ``assumptions=False`` leaves out an assumption of the article the run keeps (what a
        trace writes, so the 864's traces stay the bytes they were before such a switch existed)."""
        ids = tuple(ALL_SETTINGS) if advanced else SWITCH_IDS
        return {
            key: getattr(self, key).value
            for key in ids
            if assumptions
            or not (SETTING_BY_ID[key].assumption and getattr(self, key) is next(iter(ALL_SETTINGS[key])))
        }

    def beyond_article(self) -> bool:
        """Whether a setting has a value beyond the article's (and so this run is outside the 864)."""
        return any(getattr(self, s.id).value in s.beyond for s in SETTINGS)

    def differences(self, other: Switches) -> dict[str, tuple[str, str]]:
        """Settings whose values differ: ``{id: (mine, theirs)}``."""
        return {
            key: (getattr(self, key).value, getattr(other, key).value)
            for key in ALL_SETTINGS
            if getattr(self, key) is not getattr(other, key)
        }


if tuple(f.name for f in fields(Switches)) != tuple(ALL_SETTINGS):  # a setting added in one place only
    raise AssertionError("Switches' fields and SETTINGS must name the same settings in the same order")

MAIN_TRACE = Switches()


def all_switches(unversioned: Unversioned | str = Unversioned.FAIL_OPEN) -> Iterator[Switches]:
    """Every one of the 2·2·2·3·2·3·2·3 = 864 combinations, in the documented order."""
    unversioned = parse_value("unversioned", unversioned)
    for values in itertools.product(*(SETTING_BY_ID[k].article_values for k in SWITCH_IDS)):
        yield Switches(**dict(zip(SWITCH_IDS, values, strict=True)), unversioned=unversioned)


def event_combinations(base: Switches = MAIN_TRACE) -> Iterator[Switches]:
    """The 2·3·2 = 12 event combinations with the protections of ``base``, in declared order."""
    events = ids_of(Role.EVENT)
    for values in itertools.product(*(SETTING_BY_ID[k].article_values for k in events)):
        yield base.replace(**dict(zip(events, values, strict=True)))


def protected_counterpart(switches: Switches) -> Switches:
    """The same events with every protection (and the advanced setting) at its default: all on."""
    return Switches(**{k: getattr(switches, k) for k in ids_of(Role.EVENT)})
