"""The tick protocol (RULES.md §4), written once, here; the world it moves is ``model.world``.

Within a tick, in this order:

1. the world: the report correction of this tick; a paused attempt wakes;
2. the newsletter (from t12 until it has started) looks at the records and starts if its rule admits it;
3. the attempts, in ascending number, each taking at most one step;
4. the controller: suspicion, the next epoch and a successor, or the rebuild after a correction;

then the invariants are checked and, when recording, the tick's frame is kept.

An attempt's step asks for what it needs (``model.requests``: a write, an acceptance, a post) and the
world answers each at once, by the store, the controller or the feed it is addressed to
(``World.answer``).

A run ends after the first tick after which nothing can happen: no actor may act later (each says so
itself, ``may_act_after``: an attempt that can act or will wake, the controller with a suspicion to
raise or a rebuild to admit, the newsletter before t12), and the report's correction is not ahead.
The bound is ``schedule.BOUND`` (t120): a schedule names no event after t40 (``schedule.LATEST``), and
the longest run a schedule can make (a correction at t40, then a rebuild that goes silent for 40
ticks) ends before t100; a run the bound stops says so in its outcome.

When things go wrong is the run's ``Schedule`` (``schedule.py``): the one the switches choose, unless a
schedule is given.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from . import lifecycles as lc
from .outcome import Outcome, outcome_of
from .report import V2
from .schedule import BOUND, Schedule
from .switches import Switches
from .trace import Frames
from .world import World


def world_phase(world: World) -> None:
    """Phase 1: the report correction of this tick; the feed forgets keys past its retention (beyond the
    article); a paused attempt wakes."""
    if world.schedule.corrects_at(world.tick):
        world.report = V2
        world.emit("report", "report-corrected", "is corrected to v2 (revenue 4.1 → 4.7 million)", "v2")
        for acceptance in world.records.acceptances.records:
            if acceptance.version is not None and acceptance.version != world.report.name:
                instance = world.artifact_instance(world.candidate_of(acceptance))
                world.lifecycles.move("artifact", instance, lc.Happening.INPUT_SUPERSEDED, world.tick)
        world.controller.note_correction(world)
    if world.switches.controller_restart.tick == world.tick:  # beyond the article: RULES.md §8.3
        world.controller.restart(world)
    if world.switches.records_lost.tick == world.tick:  # beyond the article: RULES.md §8.4
        world.lose_records(world.switches.records_lost.stores)
    if (kept_for := world.switches.feed_keys.ticks) is not None:  # beyond the article: RULES.md §8.1
        for r in world.feed.forget(world.tick, kept_for):
            words = f"forgets the key {r.key}, kept {kept_for} ticks"
            carried = {"key": r.key, "kept": str(kept_for)}
            world.emit("feed", "key-forgotten", words, "forgets key", carries=carried)
    for attempt in world.attempts:
        if attempt.alive and attempt.silent_until == world.tick:
            attempt.silent_until = None
            world.emit(attempt.actor, "woke", f"{attempt.name} wakes and carries on where it was", "wakes")


def play_tick(world: World) -> None:
    """One tick of the protocol, phases 1 to 4, then the invariants."""
    world.events = []
    world_phase(world)
    world.newsletter.act(world)
    for attempt in list(world.attempts):
        if attempt.can_act(world.tick):
            attempt.act(world)
    world.controller.act(world)
    world.checker.check(world)


def quiescent(world: World) -> bool:
    """Nothing can happen after this tick: no actor may act later, and the report's correction is not
    still ahead. Each actor says for itself whether it may act after the tick (``may_act_after``). The
    schedule is asked last, only of a world where no actor may act: the explorer's sets of schedules then
    split on the correction only where it decides the end."""
    if world.newsletter.may_act_after(world) or world.controller.may_act_after(world):
        return False
    for attempt in world.attempts:
        if attempt.may_act_after(world):
            return False
    return not world.schedule.corrects_after(world.tick)


@dataclass
class Run:
    """A finished run: its switches, the world as it ended, and (when recorded) one frame per tick."""

    switches: Switches
    world: World
    frames: list[dict]
    end_tick: int

    @property
    def schedule(self) -> Schedule:
        return self.world.schedule

    @property
    def custom_schedule(self) -> Schedule | None:
        """The run's schedule when it is not the one its switches choose (the article's), else None."""
        return None if self.schedule == Schedule.of(self.switches) else self.schedule

    def outcome(self) -> Outcome:
        return outcome_of(self.world)


def run(
    switches: Switches | None = None,
    recording: bool = True,
    restore: bool = True,
    schedule: Schedule | None = None,
    bound: int = BOUND,
) -> Run:
    """Simulate one combination of the switches from t0 to its end.

    ``recording=False`` keeps no frames and no event texts (for sweeps). ``restore=False`` is a
    counterfactual outside the switches: every successor recomputes every section instead of restoring
    any from the journal (the article's "rebuilding everything would have cost 4"). ``schedule`` replaces
    the schedule the switches choose (``Schedule.of(switches)``). ``bound`` is the last tick the run may
    reach; a run still going then is stopped there, and its outcome says so."""
    world = World(switches or Switches(), recording, restore, schedule)
    frames: list[dict] = []
    snapshot = Frames(world) if recording else None
    play_to_end(world, 0, bound, (lambda: frames.append(snapshot())) if snapshot else None)
    return Run(world.switches, world, frames, world.tick)


def play_to_end(
    world: World, first_tick: int, bound: int = BOUND, after_tick: Callable[[], None] | None = None
) -> None:
    """Play ticks from ``first_tick`` until the first one after which the world is quiescent, or until
    ``bound`` (the world is then ``stopped_at_limit``); ``after_tick`` is called after each."""
    for tick in range(first_tick, bound + 1):
        world.tick = tick
        play_tick(world)
        if after_tick is not None:
            after_tick()
        if quiescent(world):
            return
    world.stopped_at_limit = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """A batch of runs with Python's cyclic garbage collector paused; afterwards it is on again as before.

    A run allocates many small objects and keeps most of them until it ends; a batch that keeps its
    runs (864 traces in a list) makes the collector scan a heap that only grows, over and over, for
    garbage that is not there. Paused, the batch leaves whatever cycles it made to the collector's next
    automatic pass (the 864 runs leave none: reference counting frees everything they drop)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
