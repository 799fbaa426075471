"""The model as a transition system: a ``State`` holds everything a later tick reads, ``step`` is a pure
function of a state and the schedule's choices, and stepping from the initial state is the run."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from model.outcome import outcome_of
from model.schedule import PosterDeath, Schedule
from model.simulation import run
from model.state import COVERED, State, step
from model.switches import Switches, all_switches
from tests.model.test_graph import SAMPLE, random_schedule

# The article's 864, and one of each setting beyond it (RULES.md §8).
SETTINGS = [
    *all_switches(),
    Switches(feed_keys="2-ticks", post_key="per-attempt"),
    Switches(controller_restart="at-t4-in-memory"),
    Switches(controller_restart="at-t4-durable", fencing="off"),
    Switches(records_lost="all-at-t12"),
    Switches(records_lost="journal-at-t4", checkpoints="end-only"),
    Switches(s1_reads="s2-undeclared"),
    Switches(post_key="per-work", poster="survives"),
]


schedules = st.randoms(use_true_random=False).map(random_schedule)


def _stepped(switches: Switches, schedule: Schedule, ticks: int) -> State:
    """The state after ``ticks`` ticks (fewer if the run ends first), stepped from the initial one."""
    state = State.initial(switches)
    while not state.ended and state.tick + 1 < ticks:
        state, _ = step(state, schedule)
    return state


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(SETTINGS), schedules, st.integers(0, 40))
def test_step_is_a_pure_function_of_a_state_and_its_choices(switches, schedule, ticks):
    """The same state and choices give the same state and events, and the state given is unchanged."""
    state = _stepped(switches, schedule, ticks)
    assume(not state.ended)
    before, fingerprint = copy.deepcopy(state), hash(state)
    first = step(state, schedule, recording=True)
    assert step(state, schedule, recording=True) == first
    assert step(state, schedule) == (first[0], ())  # events are built only when asked for
    assert state == before and hash(state) == fingerprint
    assert first[0].tick == state.tick + 1


@pytest.mark.parametrize("protections", SAMPLE, ids=lambda p: ",".join(p.values()))
def test_stepping_from_the_initial_state_is_the_run(protections):
    """Each tick's events are the run's, in order, and the run ends where the stepping ends."""
    rng = random.Random(3)
    switches = Switches(**protections)
    for schedule in [Schedule(), *(random_schedule(rng) for _ in range(8))]:
        played = run(switches, schedule=schedule)
        state, said = State.initial(switches), []
        while not state.ended:
            state, events = step(state, schedule, recording=True)
            said.append([(e.actor, e.kind, e.text, e.label, e.lane, e.attempt, e.step) for e in events])
        keys = ("actor", "kind", "text", "label", "lane", "attempt", "step")
        assert said == [[tuple(e[k] for k in keys) for e in frame["events"]] for frame in played.frames]
        assert state == State.of(run(switches, recording=False, schedule=schedule).world, ended=True)
        assert outcome_of(state.resume(schedule)) == played.outcome()


def test_a_state_covers_every_attribute_of_every_object():
    """A new attribute on any class of the world must be added to ``model.state`` (or this fails)."""
    for protections in SAMPLE:
        for schedule in (Schedule(), Schedule(silent_for=None, poster_death=PosterDeath.BEFORE_SEND)):
            world = run(Switches(**protections), recording=False, schedule=schedule).world
            records = world.records
            stores = [records.store(s) for s in ("journal", "candidates", "acceptances", "effects")]
            for obj in [world, *world.attempts, records, *stores, world.feed, world.controller,
                        world.newsletter, world.lifecycles, world.checker]:  # fmt: skip
                assert set(vars(obj)) == COVERED[type(obj)], type(obj).__name__


@pytest.mark.parametrize("protections", SAMPLE, ids=lambda p: ",".join(p.values()))
def test_a_resumed_world_goes_on_exactly_as_the_one_its_state_was_read_from(protections):
    rng = random.Random(7)
    switches = Switches(**protections)
    for schedule in [Schedule(), *(random_schedule(rng) for _ in range(6))]:
        whole = run(switches, recording=False, schedule=schedule)
        for stop in (0, 3, 6, 9):
            state = _stepped(switches, schedule, stop + 1)
            assert State.of(state.resume(schedule), state.ended) == state
            while not state.ended:
                state, _ = step(state, schedule)
            assert state == State.of(whole.world, ended=True)


def test_states_that_differ_in_anything_are_unequal():
    before = _stepped(Switches(), Schedule(), 9)
    changes = [
        lambda w: setattr(w.attempts[0], "missed", w.attempts[0].missed + 1),
        lambda w: w.attempts[-1].todo.append("s9"),
        lambda w: setattr(w.records.epoch, "value", w.records.epoch.value + 1),
        lambda w: w.checker.announced.add("d-elsewhere"),
        lambda w: w.records.journal.records.append(w.records.journal.records[0]),
        lambda w: setattr(w.controller, "owner", w.attempts[0]),
        lambda w: setattr(w, "silenced", not w.silenced),
        lambda w: setattr(w, "restore", False),
    ]
    for change in changes:
        world = before.resume(Schedule())
        change(world)
        assert State.of(world) != before


def test_an_ended_run_has_no_next_tick():
    state = _stepped(Switches(), Schedule(), 200)
    assert state.ended and state.tick == run(Switches()).end_tick
    with pytest.raises(ValueError, match=f"ended at t{state.tick}"):
        step(state, Schedule())
