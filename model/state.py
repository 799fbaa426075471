"""The model as a transition system: a world between two ticks is a ``State``, an immutable value, and
``step(state, choices)`` plays the next tick from it and returns the state after it.

A ``State`` holds everything that can influence a later tick or what a run reports: the setting (the
switches, and whether successors may restore), the records, the feed, every actor's progress, the
lifecycles' current states, the checker's memory, and whether the run has ended. It holds only immutable
values (tuples, frozensets, frozen records, numbers and strings), so it is hashable: two equal states
continue identically under the same choices, which is what lets the explorer merge them (``model.graph``).
Left out: the tick's events (``step`` returns them, and builds them only when asked) and the schedule,
which is ``step``'s second argument.

Inside ``step`` the actors' rules read and write a working world (``model.world``): ``State.resume``
builds one from the value, the tick protocol (``simulation.play_tick``, the only code that plays a tick)
moves it, and ``State.of`` reads the value back. The working world lives for one step and is never
shared, so ``step`` is a pure function of its arguments. A run (``simulation.run``) keeps one working
world for all its ticks instead, which is the same protocol without a copy per tick.

``COVERED`` lists every attribute each class of the working world holds, and a test checks it against
real objects, so a new attribute must be named here (and then read by ``State.of``, or a step forgets it).
"""

from __future__ import annotations

from operator import attrgetter
from typing import NamedTuple

from . import lifecycles as lc
from .attempt import Attempt
from .controller import Controller
from .feed import Feed
from .invariants import Checker
from .newsletter import Newsletter
from .records import Epoch, ProtectedStore, Records
from .report import VERSIONS
from .switches import Fencing, Switches
from .world import Event, Lifecycles, World

#: Every attribute of each class that a state covers (a test compares them with ``vars()``); the world's
#: ``schedule``, ``recording`` and ``events`` are what a step is given and gives back, not its state.
COVERED: dict[type, frozenset[str]] = {
    World: frozenset(
        "switches recording restore schedule tick report stale_rejected stale_applied first_poster silenced "
        "poster_died stopped_at_limit events lost records feed controller newsletter attempts lifecycles "
        "checker".split()
    ),
    Attempt: frozenset(
        "number name actor token pin purpose admitted_at parts todo unjournaled in_flight candidate "
        "announcement phase alive silent_until last_heartbeat missed calls restored".split()
    ),
    Records: frozenset("epoch admissions journal candidates acceptances effects".split()),
    ProtectedStore: frozenset("name epoch fencing records".split()),
    Feed: frozenset("posts remembered forgotten".split()),
    Controller: frozenset("owner rebuild_due known_from restarted_at".split()),
    Newsletter: frozenset(["start"]),
    Lifecycles: frozenset("states moves recording".split()),
    Checker: frozenset("first breaches _seen announced accepted_by_version _newsletter_checked".split()),
}

_STORES = ("journal", "candidates", "acceptances", "effects")
_STORE_RECORDS = tuple(attrgetter(f"{name}.records") for name in _STORES)  # each store's list, read directly
_MACHINES = tuple(m.name for m in lc.MACHINES)
_VERSIONS = tuple(v.name for v in VERSIONS)


class AttemptState(NamedTuple):
    """An attempt's progress as a value: where it is in its work and what it has made so far."""

    number: int
    token: int
    pin: object  # a ReportVersion, or None with pins off
    purpose: object
    admitted_at: int
    parts: tuple  # the parts it holds, in the order it got them
    todo: tuple[str, ...]
    unjournaled: tuple
    in_flight: object
    candidate: object
    announcement: str | None
    phase: object
    alive: bool
    silent_until: int | None
    last_heartbeat: int
    missed: int
    calls: int
    restored: int


# An attempt's fields before its parts, and from what is in flight on, are its attributes as they are.
_ATTEMPT_FIELDS = AttemptState._fields
_ATTEMPT_SCALARS = attrgetter(*_ATTEMPT_FIELDS[: _ATTEMPT_FIELDS.index("parts")])
_ATTEMPT_PROGRESS = attrgetter(*_ATTEMPT_FIELDS[_ATTEMPT_FIELDS.index("in_flight") :])


class State(NamedTuple):
    """The world between two ticks, as one hashable value (see the module's docstring). ``tick`` is the
    last tick played (-1 before t0); ``ended`` says nothing can happen after it."""

    switches: Switches
    restore: bool
    tick: int
    report: object
    stale_rejected: int
    first_poster: int | None
    silenced: bool
    poster_died: bool
    stopped_at_limit: bool
    stale_applied: tuple
    lost: tuple  # what storage lost, as (store, record)
    epoch: int
    admissions: tuple
    stores: tuple[tuple, ...]  # the journal, the candidates, the acceptances, the effect records
    posts: tuple
    remembered: tuple  # the feed's keys, in the order first seen
    forgotten: tuple[str, ...]
    owner: int | None  # the owner's place among the attempts
    rebuild_due: bool
    known_from: int
    restarted_at: int | None
    start: object  # the newsletter's start, once it has started
    attempts: tuple[AttemptState, ...]
    lifecycles: tuple[tuple[tuple[str, str], ...], ...]  # per machine, each instance's state
    first: tuple  # the first breach of each invariant, as (invariant, breach) pairs
    breaches: tuple
    seen: tuple[int, int, int]
    announced: frozenset[str]
    accepted_by_version: tuple[frozenset[str], ...]
    newsletter_checked: bool
    ended: bool = False

    @classmethod
    def initial(cls, switches: Switches, restore: bool = True) -> State:
        """The world before t0: nothing admitted, nothing written."""
        return cls.of(World(switches, recording=False, restore=restore, tick=-1))

    @classmethod
    def of(cls, world: World, ended: bool = False) -> State:
        """The working world's state, as a value."""
        records, checker, controller = world.records, world.checker, world.controller
        owner = controller.owner
        return cls(
            *_WORLD_SCALARS(world),
            tuple(world.stale_applied),
            tuple(world.lost),
            records.epoch.value,
            tuple(records.admissions),
            tuple(tuple(records_of(records)) for records_of in _STORE_RECORDS),
            tuple(world.feed.posts),
            tuple(world.feed.remembered.values()),
            world.feed.forgotten,
            None if owner is None else world.attempts.index(owner),
            controller.rebuild_due,
            controller.known_from,
            controller.restarted_at,
            world.newsletter.start,
            tuple(map(_attempt_state, world.attempts)),
            tuple(tuple(states.items()) for states in world.lifecycles.states.values()),
            tuple(checker.first.items()),
            tuple(checker.breaches),
            checker._seen,
            frozenset(checker.announced),
            tuple(map(frozenset, checker.accepted_by_version.values())),
            checker._newsletter_checked,
            ended,
        )

    def resume(self, schedule, recording: bool = False) -> World:
        """A new working world in this state, whose questions ``schedule`` answers."""
        epoch = Epoch(self.epoch)
        fencing = self.switches.fencing is Fencing.ON
        stores = {
            name: _new(ProtectedStore, name=name, epoch=epoch, fencing=fencing, records=list(records))
            for name, records in zip(_STORES, self.stores, strict=True)
        }
        people = list(map(_resume_attempt, self.attempts))
        return _new(
            World,
            switches=self.switches,
            recording=recording,
            restore=self.restore,
            schedule=schedule,
            tick=self.tick,
            report=self.report,
            stale_rejected=self.stale_rejected,
            stale_applied=list(self.stale_applied),
            lost=list(self.lost),
            first_poster=self.first_poster,
            silenced=self.silenced,
            poster_died=self.poster_died,
            stopped_at_limit=self.stopped_at_limit,
            events=[],
            records=_new(Records, epoch=epoch, admissions=list(self.admissions), **stores),
            feed=_new(
                Feed,
                posts=list(self.posts),
                remembered={r.key: r for r in self.remembered},
                forgotten=self.forgotten,
            ),
            controller=_new(
                Controller,
                owner=None if self.owner is None else people[self.owner],
                rebuild_due=self.rebuild_due,
                known_from=self.known_from,
                restarted_at=self.restarted_at,
            ),
            newsletter=_new(Newsletter, start=self.start),
            attempts=people,
            lifecycles=_new(
                Lifecycles,
                states=dict(zip(_MACHINES, map(dict, self.lifecycles), strict=True)),
                moves=[],
                recording=recording,
            ),
            checker=_new(
                Checker,
                first=dict(self.first),
                breaches=list(self.breaches),
                _seen=self.seen,
                announced=set(self.announced),
                accepted_by_version=dict(zip(_VERSIONS, map(set, self.accepted_by_version), strict=True)),
                _newsletter_checked=self.newsletter_checked,
            ),
        )


#: The state's first fields are the world's attributes of the same names, as they are.
_WORLD_SCALARS = attrgetter(*State._fields[: State._fields.index("stale_applied")])


def step(state: State, choices, recording: bool = False) -> tuple[State, tuple[Event, ...]]:
    """The next tick from ``state``, with ``choices`` answering the schedule's questions (a ``Schedule``,
    or the explorer's ``Answering`` for a set of schedules): the state after it, and the tick's events
    (none unless ``recording``). ``state`` is not changed: with a ``Schedule`` for choices, a step is a
    pure function (an ``Answering`` keeps which schedules answered how, which is what it is for). The
    state after says whether the run has ended (``simulation.quiescent``, asked of the same choices)."""
    if state.ended:
        raise ValueError(f"the run ended at t{state.tick}: there is no next tick")
    return advance(state.resume(choices, recording))


def advance(world: World) -> tuple[State, tuple[Event, ...]]:
    """``step`` on a working world that nothing else will read: it is moved to the next tick and ends in
    the state returned. The explorer goes on with the world a state came from, rather than a copy."""
    from .simulation import play_tick, quiescent  # the protocol imports the world, which this extends

    world.tick += 1
    play_tick(world)
    return State.of(world, quiescent(world)), tuple(world.events)


def _attempt_state(a: Attempt) -> AttemptState:
    return AttemptState(
        *_ATTEMPT_SCALARS(a), tuple(a.parts.values()), tuple(a.todo), tuple(a.unjournaled),
        *_ATTEMPT_PROGRESS(a),
    )  # fmt: skip


def _resume_attempt(a: AttemptState) -> Attempt:
    attributes = a._asdict()
    name = f"#{a.number}"
    attributes.update(
        name=name,
        actor=f"attempt {name}",
        parts={p.step: p for p in a.parts},
        todo=list(a.todo),
        unjournaled=list(a.unjournaled),
    )
    return _new(Attempt, **attributes)


def _new(cls: type, **attributes: object):
    """An object of ``cls`` with exactly these attributes, without running its constructor."""
    obj = object.__new__(cls)
    obj.__dict__ = attributes  # the keywords' dict is new for each call: it becomes the object's own
    return obj
