"""A world between two ticks as one hashable value, and back: what the graph explorer forks and merges.

``freeze(world, intern)`` is everything that can influence a later tick or what a run reports: the
records, the feed, every actor's progress, the lifecycles' current states and the checker's memory.
Two worlds with equal frozen states continue identically under the same schedule answers, so the
explorer keeps one of them; ``thaw(state, like)`` rebuilds a world from a frozen state, as many times as
a fork needs.

Left out, because they are the same in every world of one exploration or say nothing of the future:
the switches, ``recording`` (always off here: no events, no lifecycle log) and ``restore``, which
``thaw`` copies from ``like``; the schedule, which the explorer answers for; and the tick's events.

Records are immutable values, shared between worlds rather than copied; ``Interner`` numbers each one
by its value once, so a frozen state is a tuple of small numbers and scalars, cheap to hash and compare.
``COVERED`` lists every attribute each class holds, and a test checks it against real objects, so a new
attribute cannot be forgotten here.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

from .attempt import Attempt
from .controller import Controller
from .feed import Feed
from .invariants import Checker
from .newsletter import Newsletter
from .records import Epoch, ProtectedStore, Records
from .world import Lifecycles, World

#: Every attribute of each class that a frozen state covers (a test compares them with ``vars()``).
COVERED: dict[type, frozenset[str]] = {
    World: frozenset(
        "switches recording restore schedule tick report stale_rejected stale_applied first_poster silenced "
        "poster_died stopped_at_limit events records feed controller newsletter attempts lifecycles "
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


class Interner:
    """Numbers immutable values by equality: equal records get one number, whoever made them.

    Each object is hashed by value once; after that it is known by its identity (the interner keeps
    it alive, so its ``id`` is never reused). ``objects[n]`` is the value numbered ``n``."""

    def __init__(self) -> None:
        self._by_identity: dict[int, tuple[int, object]] = {}
        self._by_value: dict[object, int] = {}
        self._lists: dict[int, tuple[list, tuple[int, ...]]] = {}
        self.objects: list[object] = []
        known = self._by_identity.get

        def number(value: object) -> int:
            """The value's number (a plain function, not ``__call__``: ``map`` calls it faster)."""
            seen = known(id(value))
            if seen is not None:
                return seen[0]
            found = self._by_value.setdefault(value, len(self.objects))
            if found == len(self.objects):
                self.objects.append(value)
            self._by_identity[id(value)] = (found, value)
            return found

        self.number = number

    def log(self, items: list) -> tuple[int, ...]:
        """The numbers of a list that only ever grows at its end (a store, the feed's posts): what was
        numbered at an earlier freeze is kept, so a tick pays only for what it appended."""
        known = self._lists.get(id(items))
        if known is not None and known[0] is items:
            numbers = known[1]
            if len(numbers) == len(items):
                return numbers
            numbers += tuple(map(self.number, items[len(numbers) :]))
        else:
            numbers = tuple(map(self.number, items))
        self._lists[id(items)] = (items, numbers)
        return numbers


_ATTEMPT_VALUES = attrgetter(
    "number", "name", "actor", "token", "purpose", "admitted_at", "announcement", "phase", "alive",
    "silent_until", "last_heartbeat", "missed", "calls", "restored",
)  # fmt: skip


def _attempt(a: Attempt, n: Callable[[object], int]) -> tuple:
    return (
        *_ATTEMPT_VALUES(a), n(a.pin), tuple(map(n, a.parts.values())), tuple(a.todo),
        tuple(map(n, a.unjournaled)), n(a.in_flight), n(a.candidate),
    )  # fmt: skip


def freeze(world: World, interner: Interner) -> tuple:
    """The world's state between ticks, as a hashable tuple (see the module's docstring)."""
    assert not world.recording, "a frozen state leaves out the trace's events: freeze runs without one"
    records, checker, owner = world.records, world.checker, world.controller.owner
    n = interner.number
    log = interner.log
    return (
        world.tick, n(world.report), world.stale_rejected, log(world.stale_applied),
        world.first_poster, world.silenced, world.poster_died, world.stopped_at_limit,
        records.epoch.value, log(records.admissions),
        log(records.journal.records), log(records.candidates.records),
        log(records.acceptances.records), log(records.effects.records),
        log(world.feed.posts), tuple(map(n, world.feed.remembered.values())), world.feed.forgotten,
        None if owner is None else world.attempts.index(owner), world.controller.rebuild_due,
        world.controller.known_from, world.controller.restarted_at,
        n(world.newsletter.start),
        tuple(_attempt(a, n) for a in world.attempts),
        tuple(tuple(states.items()) for states in world.lifecycles.states.values()),
        tuple(checker.first), tuple(map(n, checker.first.values())), log(checker.breaches),
        checker._seen, frozenset(checker.announced),
        tuple(frozenset(digests) for digests in checker.accepted_by_version.values()),
        checker._newsletter_checked,
    )  # fmt: skip


def _new(cls: type, **attributes: object):
    """An object of ``cls`` with exactly these attributes, without running its constructor."""
    obj = object.__new__(cls)
    obj.__dict__.update(attributes)
    return obj


def thaw(state: tuple, like: World, n: Interner) -> World:
    """A new world in ``state``, with ``like``'s switches, fencing and ``restore`` (its constants)."""
    (
        tick, report, stale_rejected, stale_applied, first_poster, silenced, poster_died, stopped,
        epoch_value, admissions, journal, candidates, acceptances, effects, posts, remembered, forgotten,
        owner, rebuild_due, known_from, restarted_at, start, attempts, lifecycle_states,
        first_ids, first, breaches, seen, announced, accepted_by_version, newsletter_checked,
    ) = state  # fmt: skip
    objects = n.objects
    epoch = Epoch(epoch_value)
    fencing = like.records.journal.fencing

    def store(name: str, ids: tuple) -> ProtectedStore:
        return _new(
            ProtectedStore, name=name, epoch=epoch, fencing=fencing, records=[objects[i] for i in ids]
        )

    records = _new(
        Records,
        epoch=epoch,
        admissions=[objects[i] for i in admissions],
        journal=store("journal", journal),
        candidates=store("candidates", candidates),
        acceptances=store("acceptances", acceptances),
        effects=store("effects", effects),
    )
    people = [_thaw_attempt(a, objects) for a in attempts]
    post_list = [objects[i] for i in posts]
    kept = [objects[i] for i in remembered]
    return _new(
        World,
        switches=like.switches,
        recording=False,
        restore=like.restore,
        schedule=None,
        tick=tick,
        report=objects[report],
        stale_rejected=stale_rejected,
        stale_applied=[objects[i] for i in stale_applied],
        first_poster=first_poster,
        silenced=silenced,
        poster_died=poster_died,
        stopped_at_limit=stopped,
        events=[],
        records=records,
        feed=_new(Feed, posts=post_list, remembered={r.key: r for r in kept}, forgotten=forgotten),
        controller=_new(
            Controller,
            owner=None if owner is None else people[owner],
            rebuild_due=rebuild_due,
            known_from=known_from,
            restarted_at=restarted_at,
        ),
        newsletter=_new(Newsletter, start=objects[start]),
        attempts=people,
        lifecycles=_new(
            Lifecycles,
            states={
                machine: dict(states)
                for machine, states in zip(like.lifecycles.states, lifecycle_states, strict=True)
            },
            moves=[],
            recording=False,
        ),
        checker=_new(
            Checker,
            first={i: objects[b] for i, b in zip(first_ids, first, strict=True)},
            breaches=[objects[i] for i in breaches],
            _seen=seen,
            announced=set(announced),
            accepted_by_version=dict(
                zip(like.checker.accepted_by_version, map(set, accepted_by_version), strict=True)
            ),
            _newsletter_checked=newsletter_checked,
        ),
    )


def _thaw_attempt(state: tuple, objects: list) -> Attempt:
    (
        number, name, actor, token, purpose, admitted_at, announcement, phase, alive, silent_until,
        last_heartbeat, missed, calls, restored, pin, parts, todo, unjournaled, in_flight, candidate,
    ) = state  # fmt: skip
    part_list = [objects[i] for i in parts]
    return _new(
        Attempt,
        number=number,
        name=name,
        actor=actor,
        token=token,
        pin=objects[pin],
        purpose=purpose,
        admitted_at=admitted_at,
        parts={p.step: p for p in part_list},
        todo=list(todo),
        unjournaled=[objects[i] for i in unjournaled],
        in_flight=objects[in_flight],
        candidate=objects[candidate],
        announcement=announcement,
        phase=phase,
        alive=alive,
        silent_until=silent_until,
        last_heartbeat=last_heartbeat,
        missed=missed,
        calls=calls,
        restored=restored,
    )
