"""The graph explorer: every schedule of a space in one walk that forks where the schedules disagree and
merges where their worlds meet again.

The exhaustive explorer runs each schedule from t0. Most of that work repeats: two schedules that differ
only in where the first poster dies play the same ticks until someone first posts. Here a whole set of
schedules moves together, as a model checker walks a state graph:

- **One world for many schedules.** A node is a world and the set of schedules (a bitmask over the
  space's list) whose runs are all in that world at that tick. The world's schedule is ``Answering``:
  it answers each of the schedule's questions (``schedule.READS``) for the whole set. When the schedules
  of the set agree, that is the answer; when they disagree, the world goes on with the schedules of the
  first answer, and the tick is played again from the node's state, in a copy, for each other group of
  schedules that agree.
- **Equal worlds merge.** After each tick every node's world is frozen (``model.state``); nodes whose
  frozen states are equal are one node, whose set is the union. From there on each schedule's run is the
  same as it would be alone, because nothing else influences a later tick.
- **A leaf is a set of schedules whose runs ended alike**: at the same tick, with the same first
  breaches, finished or not. The explorer counts and measures them per schedule, as if each had run.

What it costs, measured (``benchmarks/explore_bench.py`` prints it): a walk plays about a fifth of the
ticks the exhaustive rerun plays, but the ticks it saves are the cheap early ones every schedule shares;
the late ticks, where runs have diverged, are mostly its own. Each state also costs a freeze, and each
fork a thaw and a replayed tick. So on the default space the two modes take about the same time, and
once a world stands for only a few schedules (``ALONE``) each is played alone to its end, which makes
the walk the faster of the two on wider spaces. A walk that wins by far would need a freeze that costs
next to nothing (a world whose records are shared, persistent values, so that a state is a handful of
references) and forks that need no replay: a step that returns at each question the schedule is asked,
its continuation as data, so a world can be copied in the middle of a tick (an attempt's step is a plain
call now, but its Python frame is still mid-step when it asks).

One setting per walk. Walking settings together (reading the switches as questions too) was measured:
the twelve settings that differ only in the newsletter's rule and the post key reach 1.65× fewer states
together than apart, but their masks are twelve times wider and the walk took as long, in 3 GB.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .invariants import Breach
from .outcome import outcome_of
from .schedule import BOUND, READS, PosterDeath, Schedule
from .simulation import play_tick, play_to_end, quiescent
from .state import Interner, freeze, thaw
from .switches import Switches
from .world import World

#: A world standing for this many schedules or fewer plays each alone to its end: a freeze, a fork and the
#: world's schedule answering for a set cost more per tick than playing a few runs one by one
#: (measured with benchmarks/explore_bench.py: see the README).
ALONE = 4


class Space:
    """The schedules of a space as bits: schedule ``i`` is bit ``i``. For a question and its arguments,
    the schedules that give each answer are a mask (``partition``), worked out once per walk."""

    def __init__(self, schedules: Sequence[Schedule]) -> None:
        self.schedules = tuple(schedules)
        self.everything = (1 << len(self.schedules)) - 1
        self._combinations: dict[tuple[str, ...], tuple[tuple[Schedule, int], ...]] = {}
        self._partitions: dict[tuple, tuple[tuple[object, int], ...]] = {}

    def combinations(self, fields: tuple[str, ...]) -> tuple[tuple[Schedule, int], ...]:
        """For each combination of these fields' values: the first schedule with it, and the mask of all."""
        known = self._combinations.get(fields)
        if known is None:
            masks: dict[tuple, int] = {}
            first: dict[tuple, Schedule] = {}
            for number, schedule in enumerate(self.schedules):
                values = tuple(getattr(schedule, f) for f in fields)
                masks[values] = masks.get(values, 0) | 1 << number
                first.setdefault(values, schedule)
            known = self._combinations[fields] = tuple((first[v], masks[v]) for v in masks)
        return known

    def partition(self, question: str, args: tuple) -> tuple[tuple[object, int], ...]:
        """Each answer to ``question(*args)`` and the mask of the schedules that give it: asked once per
        combination of the values the question reads (``READS``)."""
        known = self._partitions.get((question, args))
        if known is None:
            groups: dict[object, int] = {}
            for schedule, mask in self.combinations(READS[question]):
                answer = getattr(schedule, question)(*args)
                groups[answer] = groups.get(answer, 0) | mask
            known = self._partitions[(question, args)] = tuple(groups.items())
        return known


class Answering:
    """The schedule of a world that stands for a set of schedules at once (``mask``).

    A question every schedule of the set answers alike gets that answer. When they disagree, this world
    goes on with the schedules that give the first answer met, and the others are left in ``forks`` (one
    mask per other answer): each must play the tick again from where it began, in its own copy."""

    def __init__(self, space: Space, mask: int) -> None:
        self.space = space
        self.mask = mask
        self.forks: list[int] = []

    def _ask(self, question: str, *args: object):
        mine = self.mask
        groups: list[tuple[object, int]] = []
        for answer, members in self.space.partition(question, args):
            if found := members & mine:
                if found == mine:
                    return answer  # the whole set agrees (the usual case)
                groups.append((answer, found))
        (answer, self.mask), *others = groups
        self.forks.extend(mask for _, mask in others)
        return answer

    def silences(self, attempt: int, point: str) -> bool:
        return self._ask("silences", attempt, point)

    def silence_length(self) -> int | None:
        return self._ask("silence_length")

    def missed_heartbeats_tolerated(self) -> int:
        return self._ask("missed_heartbeats_tolerated")

    def corrects_at(self, tick: int) -> bool:
        return self._ask("corrects_at", tick)

    def corrects_after(self, tick: int) -> bool:
        return self._ask("corrects_after", tick)

    def poster_dies_at(self, point: PosterDeath) -> bool:
        return self._ask("poster_dies_at", point)

    def stall_of(self, attempt: int) -> int:
        return self._ask("stall_of", attempt)


@dataclass(frozen=True)
class Leaf:
    """Schedules (a mask) whose runs ended alike: at ``end_tick``, with these first breaches."""

    schedules: int
    end_tick: int
    first: dict[str, Breach]
    finished: bool


@dataclass
class Walk:
    """How much work a walk took (for the benchmark and the tests)."""

    states: int = 0  # distinct (tick, world) nodes
    transitions: int = 0  # ticks played, the replays after a fork included
    forks: int = 0


def walk(
    switches: Switches, space: Space, bound: int = BOUND, alone: int = ALONE, found: Walk | None = None
) -> Iterator[Leaf]:
    """Every schedule of ``space`` under ``switches``, from t0 until each run ends (``simulation.run``'s
    rule: after the first tick that leaves the world quiescent, or at ``bound``). A world that stands
    for ``alone`` schedules or fewer plays each of them alone to its end.

    Each leaf is yielded as soon as it is found, so a walk over a large space does not hold them all
    (a leaf's set is a bitmask as long as the space). ``found``, if given, counts the work."""
    interner = Interner()
    like = World(switches, recording=False)  # the constants every world of the walk shares
    found = found or Walk()
    start = freeze(like, interner)
    frontier: dict[tuple, list] = {start: [thaw(start, like, interner), space.everything]}
    for tick in range(bound + 1):
        after: dict[tuple, list] = {}
        found.states += len(frontier)
        for state, (world, mask) in frontier.items():
            frozen: tuple[World | None, tuple] = (None, ())
            for played, group in _play(state, world, mask, tick, like, interner, space, found):
                for settled, ended in _settle(played, group, space):
                    if ended or tick == bound:
                        played.stopped_at_limit = not ended
                        first, finished = dict(played.checker.first), outcome_of(played).finished
                        yield Leaf(settled, tick, first, finished)
                        continue
                    if frozen[0] is not played:  # groups that only disagreed on ending share a world
                        frozen = (played, freeze(played, interner))
                    if settled.bit_count() <= alone:
                        yield from _each_alone(frozen[1], settled, like, interner, space, bound)
                        continue
                    node = after.get(frozen[1])
                    if node is None:
                        after[frozen[1]] = [played, settled]
                    else:
                        node[1] |= settled
        frontier = after
        if not frontier:
            break


def _each_alone(
    state: tuple, mask: int, like: World, interner: Interner, space: Space, bound: int
) -> Iterator[Leaf]:
    """Each schedule of ``mask`` played alone from ``state`` to its end, as ``simulation.run`` plays it."""
    while mask:
        lowest = mask & -mask
        mask ^= lowest
        world = thaw(state, like, interner)
        world.schedule = space.schedules[lowest.bit_length() - 1]
        play_to_end(world, world.tick + 1, bound)
        yield Leaf(lowest, world.tick, world.checker.first, outcome_of(world).finished)


def _play(
    state: tuple,
    world: World,
    mask: int,
    tick: int,
    like: World,
    interner: Interner,
    space: Space,
    found: Walk,
) -> Iterator[tuple[World, int]]:
    """Tick ``tick`` for the schedules of ``mask``, from ``world`` (in ``state``): one world per group of
    schedules that answered every question of the tick alike."""
    answering = world.schedule = Answering(space, mask)
    world.tick = tick
    found.transitions += 1
    play_tick(world)
    yield world, answering.mask
    for fork in answering.forks:
        found.forks += 1
        copy = thaw(state, like, interner)
        yield from _play(state, copy, fork, tick, like, interner, space, found)


def _settle(world: World, mask: int, space: Space) -> Iterator[tuple[int, bool]]:
    """Whether the run ends after this tick, per group of schedules that agree (a correction still ahead
    keeps some going). Nothing here changes the world, so the groups share it."""
    answering = world.schedule = Answering(space, mask)
    ended = quiescent(world)
    yield answering.mask, ended
    for fork in answering.forks:
        yield from _settle(world, fork, space)
