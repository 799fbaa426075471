"""The graph explorer against the runs it stands for: its questions read what they say they read, and
every schedule of a walk ends as its own run from t0 does (the states it walks: ``test_state.py``)."""

from __future__ import annotations

import inspect
import itertools
import random

import pytest

from model.explore import (
    SPACE,
    explore,
    explore_setting,
    protection_settings,
    schedule_list,
)
from model.graph import ALONE, Answering, Space, Walk, walk
from model.schedule import FIELDS, LATEST, READS, SILENT_POINTS, PosterDeath, Schedule
from model.simulation import run
from model.switches import Switches

# Settings that differ in every protection, so each protection's branches are walked.
SAMPLE = [protection_settings()[i] for i in (0, 53, 77, 143)]


def random_schedule(rng: random.Random) -> Schedule:
    """Any schedule the fields allow, each value drawn from ``rng``."""
    values = {f.id: rng.choice(f.choices()) for f in FIELDS}
    return Schedule().with_values(values)


def _arguments(question: str) -> list[tuple]:
    """Every argument a question can be asked with in a run."""
    return {
        "silences": [(a, p) for a in (1, 2, 3, 4) for p in SILENT_POINTS],
        "corrects_at": [(t,) for t in range(LATEST + 3)],
        "corrects_after": [(t,) for t in range(LATEST + 3)],
        "poster_dies_at": [(p,) for p in PosterDeath],
        "stall_of": [(a,) for a in (1, 2, 3, 4, 5)],
    }.get(question, [()])


def test_each_question_reads_only_the_values_it_declares():
    """Two schedules that agree on a question's declared values give it the same answer, whatever else
    differs: the walk asks it once per combination of those values."""
    rng = random.Random(19)
    for question, fields in READS.items():
        for _ in range(300):
            one, other = random_schedule(rng), random_schedule(rng)
            other = other.replace(**{f: getattr(one, f) for f in fields})
            for args in _arguments(question):
                assert getattr(one, question)(*args) == getattr(other, question)(*args), (question, args)


def test_the_walks_schedule_answers_every_question_the_schedule_has():
    functions = inspect.getmembers(Answering, inspect.isfunction)
    questions = {n for n, _ in functions if not n.startswith("_")}
    assert questions == set(READS)
    assert all(callable(getattr(Schedule, q)) for q in questions)


def test_an_answer_the_set_disagrees_on_forks_it():
    space = Space(schedule_list())
    answering = Answering(space, space.everything)
    first = answering.corrects_at(4)
    assert answering.forks, "schedules correcting at t4 and the others cannot go on together"
    members = [space.schedules[i] for i in range(len(space.schedules)) if answering.mask >> i & 1]
    assert {s.corrects_at(4) for s in members} == {first}
    assert answering.mask | sum(answering.forks) == space.everything
    assert answering.mask & sum(answering.forks) == 0


@pytest.mark.parametrize(
    ("protections", "alone"),
    [(SAMPLE[0], 0), (SAMPLE[1], 0), (SAMPLE[1], ALONE), (SAMPLE[2], 64)],
    ids=lambda v: ",".join(v.values()) if isinstance(v, dict) else f"alone={v}",
)
@pytest.mark.slow
def test_every_schedule_of_a_walk_ends_as_its_own_run_does(protections, alone):
    """Each schedule's ending in the walk (its tick, its first breaches, finished or not) is what
    running it alone from t0 gives: in a pure walk (``alone=0``), and when worlds that stand for few
    schedules play each alone to its end."""
    switches = Switches(**protections)
    space = Space(schedule_list())
    found = Walk()
    ending_of = {}
    for leaf in walk(switches, space, alone=alone, found=found):
        for number in range(len(space.schedules)):
            if leaf.schedules >> number & 1:
                assert number not in ending_of, "a schedule ended twice"
                ending_of[number] = (leaf.end_tick, leaf.first, leaf.finished)
    assert len(ending_of) == len(space.schedules)
    for number, schedule in enumerate(space.schedules):
        alone = run(switches, recording=False, schedule=schedule)
        assert ending_of[number] == (alone.end_tick, alone.world.checker.first, alone.outcome().finished)
    assert found.states < len(space.schedules) * 4, "the walk should share most ticks"


@pytest.mark.parametrize(
    "protections",
    [SAMPLE[2], pytest.param(SAMPLE[3], marks=pytest.mark.slow)],
    ids=lambda p: ",".join(p.values()),
)
def test_both_modes_give_the_same_row(protections):
    assert explore_setting(protections) == explore_setting(protections, exhaustive=True)


@pytest.mark.slow
def test_both_modes_agree_on_a_wider_space_too():
    """Beyond the default space (longer silences, another attempt silent, a late stall), where the runs
    are longer and the bound is nearer."""
    space = dict(SPACE) | {
        "silent_attempt": (1, 2),
        "silent_for": (4, 10, 25),
        "correction_at": (None, 5, 30),
        "successor_stall": (0, 7),
        "silent_at": ("s2", "accept", "post", "none"),
    }
    fixed = {"fencing": "on", "pins": "on", "checkpoints": "every-step", "newsletter": "current-accepted"}
    assert explore(fixed, space=space) == explore(fixed, space=space, exhaustive=True)


def test_a_walk_at_the_bound_stops_as_a_run_does():
    """With a bound before runs end, every schedule is stopped there, as ``run(bound=...)`` stops it."""
    switches = Switches()
    space = Space(schedule_list({k: v[:2] for k, v in SPACE.items()}))
    leaves = list(walk(switches, space, bound=6))
    assert leaves and all(leaf.end_tick <= 6 for leaf in leaves)
    for leaf in leaves:
        number = (leaf.schedules & -leaf.schedules).bit_length() - 1
        alone = run(switches, recording=False, schedule=space.schedules[number], bound=6)
        assert (leaf.end_tick, leaf.first, leaf.finished) == (
            alone.end_tick,
            alone.world.checker.first,
            alone.outcome().finished,
        )


def test_combinations_cover_every_schedule_once():
    space = Space(schedule_list())
    for fields in [*READS.values(), ("threshold", "silent_at")]:
        masks = [mask for _, mask in space.combinations(fields)]
        assert sum(masks) == space.everything
        assert all(a & b == 0 for a, b in itertools.combinations(masks, 2))
