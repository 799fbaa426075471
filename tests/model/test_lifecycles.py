from __future__ import annotations

import pytest

from model import TransitionNotAllowed, all_switches, run
from model.lifecycles import (
    ARTIFACT,
    ATTEMPT,
    ATTEMPT_ENDED,
    EFFECT,
    MACHINE_BY_NAME,
    InvalidDefinition,
    Machine,
    Transition,
)


def test_the_three_machines_are_the_articles():
    article = {m.name: m.to_dict(beyond=False) for m in (ATTEMPT, ARTIFACT, EFFECT)}
    assert article["attempt"]["states"] == ["admitted", "running", "UNKNOWN", "fenced", "refused", "done"]
    assert article["artifact"]["states"] == ["candidate", "accepted", "refused"]
    assert article["effect"]["states"] == ["intent recorded", "unconfirmed", "confirmed"]
    additions = [
        (t["source"], t["event"], t["target"])
        for m in article.values()
        for t in m["transitions"]
        if t["addition"]
    ]
    assert additions == [("UNKNOWN", "candidate refused", "refused"), ("UNKNOWN", "post confirmed", "done")]


def test_beyond_the_article_only_the_feeds_rejection_and_a_read_only_ending_are_added():
    beyond = [
        (m.name, t.source, t.event, t.target)
        for m in (ATTEMPT, ARTIFACT, EFFECT)
        for t in m.transitions
        if t.beyond
    ]
    assert beyond == [
        ("attempt", "UNKNOWN", "found confirmed", "done"),
        ("attempt", "running", "receiver rejects", "post rejected"),
        ("attempt", "UNKNOWN", "receiver rejects", "post rejected"),
        ("effect", "unconfirmed", "receiver rejects", "rejected"),
    ]
    assert all(t.addition for m in (ATTEMPT, EFFECT) for t in m.transitions if t.beyond)


def test_an_undeclared_move_raises_a_named_error():
    with pytest.raises(TransitionNotAllowed) as error:
        ATTEMPT.transition("#1", "UNKNOWN", "dispatch")
    assert "UNKNOWN" in str(error.value) and "dispatch" in str(error.value)
    with pytest.raises(TransitionNotAllowed):
        EFFECT.transition("x", "confirmed", "sent")


def test_only_declared_transitions_occur_in_all_864_runs():
    used = set()
    for switches in all_switches():
        r = run(switches)
        states = {}
        for frame in r.frames:
            for move in frame["moves"]:
                machine = MACHINE_BY_NAME[move["machine"]]
                key = (move["machine"], move["instance"])
                if move["event"] == "begin":
                    assert move["target"] == machine.initial and key not in states
                else:
                    assert states[key] == move["source"]
                    transition = machine.transition(move["instance"], move["source"], move["event"])
                    assert transition.target == move["target"]
                    assert transition.addition == move["addition"]
                    used.add((move["machine"], move["source"], move["event"]))
                states[key] = move["target"]
            for machine, instances in frame["lifecycles"].items():
                for instance, state in instances.items():
                    assert states[(machine, instance)] == state
    declared = {
        (m.name, t.source, t.event)
        for m in (ATTEMPT, ARTIFACT, EFFECT)
        for t in m.transitions
        if not t.beyond
    }
    # Every declared transition is exercised somewhere, except two a live owner never takes in this
    # schedule: only suspected attempts hold stale tokens, and the owner is always pinned to the current
    # version when it asks for acceptance.
    assert declared - used == {
        ("attempt", "running", "write rejected"),
        ("attempt", "running", "candidate refused"),
    }


@pytest.mark.parametrize(
    "initial,states,transitions,words",
    [
        ("gone", ("a", "b"), [("a", "go", "b")], "initial state 'gone' is not among"),
        ("a", ("a", "b", "a"), [("a", "go", "b")], "declared twice"),
        ("a", ("a", "b"), [("a", "go", "c")], "undeclared state"),
        ("a", ("a", "b", "c"), [("a", "go", "b"), ("a", "go", "c")], "two transitions for 'go' from 'a'"),
    ],
)
def test_a_table_that_contradicts_itself_is_refused_when_declared(initial, states, transitions, words):
    with pytest.raises(InvalidDefinition, match=words):
        Machine("m", "?", initial, states, tuple(Transition(*t) for t in transitions))


def test_the_flags_of_a_transition_are_named_where_it_is_declared():
    with pytest.raises(TypeError):
        Transition("a", "go", "b", "a note", True)  # which flag would True be?
    assert Transition("a", "go", "b", addition=True).beyond is False


def test_the_final_states_are_those_with_no_way_out():
    machine = Machine(
        "m", "?", "a", ("a", "b", "c", "d"), (Transition("a", "x", "b"), Transition("b", "y", "b"))
    )
    assert machine.final_states == {"c", "d"}  # b loops back to itself: it has a way out


def test_an_attempt_in_an_ended_state_takes_no_more_steps_in_any_of_the_864():
    """ATTEMPT_ENDED is derived from the table; the runs agree: once there, an attempt is never moved,
    and an attempt that is not there by the end of a finished run has a way on."""
    for switches in all_switches():
        ended = {}
        for frame in run(switches).frames:
            for move in frame["moves"]:
                if move["machine"] != "attempt":
                    continue
                assert move["instance"] not in ended, (switches, move, ended)
                if move["target"] in ATTEMPT_ENDED:
                    ended[move["instance"]] = frame["tick"]
    assert ATTEMPT_ENDED == {"fenced", "refused", "done", "post rejected"}
