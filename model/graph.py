"""The graph explorer: every schedule of a space in one walk that forks where the schedules disagree and
merges where their worlds meet again.

The exhaustive explorer runs each schedule from t0. Most of that work repeats: two schedules that differ
only in where the first poster dies play the same ticks until someone first posts. Here a whole set of
schedules moves together, as a model checker walks a state graph:

- **One state for many schedules.** A node is a ``State`` (``model.state``) and the set of schedules
  (a bitmask over the space's list) whose runs are all in it after that tick. Its successors are
  ``step``'s, with ``Answering`` for the choices: it answers each of the schedule's questions
  (``schedule.READS``) for the whole set. When the schedules of the set agree, that is the answer; when
  they disagree, the step goes on with the schedules of the first answer, and is taken again from the
  node's state for each other group of schedules that agree (a state is a value: nothing to copy).
- **Equal states merge.** Nodes whose states are equal are one node, whose set is the union. From there
  on each schedule's run is the same as it would be alone, because nothing else influences a later tick.
- **A leaf is a set of schedules whose runs ended alike**: at the same tick, with the same first
  breaches, finished or not. The explorer counts and measures them per schedule, as if each had run.

What it costs (``benchmarks/explore_bench.py`` prints it): per setting of the default space a pure walk
takes about 16,000 steps (3,400 of them a fork's step taken again) where the exhaustive rerun plays about
81,000 ticks, but the ticks it saves are the cheap early ones every schedule shares; the late ticks,
where runs have diverged, are mostly its own, and each step also reads back the state it ends in (about
7 µs beside the tick's 10). So once a state stands for only a few schedules (``ALONE``) each is played
alone to its end in one working world, without a state per tick; a world whose group is one schedule
is not even read back into a state (nothing merges with it, nothing forks from it), so a state is read
only where it is merged or shared. Measured: 0.70 s of CPU a setting against 1.14 s rerun, then about
15% less (issue 64: interleaved runs of the old and new code on a loaded machine); the rules' ticks are
most of what is left (``explore_bench.py --split``).

One setting per walk. Walking settings together (reading the switches as questions too) was measured:
the twelve settings that differ only in the newsletter's rule and the post key reach 1.65× fewer states
together than apart, but their masks are twelve times wider and the walk took as long, in 3 GB.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .invariants import Breach
from .outcome import finished
from .schedule import BOUND, READS, PosterDeath, Schedule
from .simulation import play_tick, play_to_end, quiescent
from .state import State
from .switches import Switches
from .world import World

#: A state standing for this many schedules or fewer plays each alone to its end: reading and hashing a
#: state, a fork and answering for a set cost more per tick than playing a few runs one by one
#: (measured with benchmarks/explore_bench.py: see the README).
ALONE = 2


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

    @classmethod
    def of(cls, schedules: int, world: World) -> Leaf:
        """The ending of ``world``'s run, for these schedules."""
        return cls(schedules, world.tick, world.checker.first, finished(world))


@dataclass
class Walk:
    """How much work a walk took (for the benchmark and the tests)."""

    states: int = 0  # distinct (tick, state) nodes
    transitions: int = 0  # steps taken, the replays after a fork included
    forks: int = 0


def walk(
    switches: Switches, space: Space, bound: int = BOUND, alone: int = ALONE, found: Walk | None = None
) -> Iterator[Leaf]:
    """Every schedule of ``space`` under ``switches``, from t0 until each run ends (``simulation.run``'s
    rule: after the first tick that leaves the world quiescent, or at ``bound``). A state that stands
    for ``alone`` schedules or fewer plays each of them alone to its end.

    Each leaf is yielded as soon as it is found, so a walk over a large space does not hold them all
    (a leaf's set is a bitmask as long as the space). ``found``, if given, counts the work."""
    found = found or Walk()
    frontier: dict[State, list] = {State.initial(switches): [space.everything, None]}
    for tick in range(bound + 1):
        after: dict[State, list] = {}
        found.states += len(frontier)
        for state, (mask, world) in frontier.items():
            for moved, group, ended in _successors(state, world, mask, space, found):
                if ended or tick == bound:
                    moved.stopped_at_limit = not ended
                    yield Leaf.of(group, moved)
                elif alone and group & (group - 1) == 0:  # one schedule: its world plays on, unread
                    yield _alone(moved, group, space, bound)
                elif group.bit_count() <= alone:
                    yield from _each_alone(State.of(moved), moved, group, space, bound)
                elif (node := after.get(played := State.of(moved))) is None:
                    after[played] = [group, moved]
                else:
                    node[0] |= group
        frontier = after
        if not frontier:
            break


def _successors(
    state: State, world: World | None, mask: int, space: Space, found: Walk
) -> Iterator[tuple[World, int, bool]]:
    """The next tick from ``state`` for the schedules of ``mask``: one working world per group of
    schedules that answered every question of the tick alike (the end test's included), with the group
    and whether the run ended there. ``world``, if given, is in ``state`` and is used up by the first
    group. A world is read back into a state only by the caller, and only where it needs one (to merge,
    or to share among a few schedules): the state of a world that goes on alone is never read."""
    answering = Answering(space, mask)
    if world is None:
        world = state.resume(answering)
    world.schedule = answering
    found.transitions += 1
    world.tick += 1
    play_tick(world)
    ended = quiescent(world)  # may fork too: asked before the group is taken
    yield world, answering.mask, ended
    for fork in answering.forks:
        found.forks += 1
        yield from _successors(state, None, fork, space, found)


def _alone(world: World, schedule: int, space: Space, bound: int) -> Leaf:
    """One schedule (a one-bit mask) played alone from ``world`` to its end, as ``simulation.run`` does."""
    world.schedule = space.schedules[schedule.bit_length() - 1]
    play_to_end(world, world.tick + 1, bound)
    return Leaf.of(schedule, world)


def _each_alone(state: State, world: World, mask: int, space: Space, bound: int) -> Iterator[Leaf]:
    """Each schedule of ``mask`` played alone from ``state`` to its end, as ``simulation.run`` plays it:
    the first in ``world`` (which is in ``state``), each other in a world resumed from it."""
    while mask:
        lowest = mask & -mask
        mask ^= lowest
        yield _alone(world or state.resume(None), lowest, space, bound)
        world = None
