"""The three lifecycles of the article, as declared transition tables kept apart.

ATTEMPT answers "is this worker allowed to act?", ARTIFACT "what is the status of this output?", EFFECT
"did the outside world change?". Each is data (states and transitions) that a view can draw as it is.
A move that is not declared raises TransitionNotAllowed.

Transitions marked ``addition=True`` are not in the article's machines; the model needs them and names
them so that the page can show them as additions:

- attempt ``UNKNOWN --candidate refused--> refused``: with fencing off, a suspected attempt that wakes
  carries on, and its candidate can be refused by the assessor (pins on, stale pin).
- attempt ``UNKNOWN --post confirmed--> done``: with fencing off, a suspected attempt that wakes can go on
  to post, and its post is confirmed. The controller never takes an attempt back from UNKNOWN.
"""

from __future__ import annotations

from dataclasses import dataclass


class TransitionNotAllowed(Exception):
    """A lifecycle move that the machine does not declare."""

    def __init__(self, machine: str, instance: str, state: str, event: str):
        super().__init__(
            f"{machine} {instance}: no transition {event!r} from state {state!r}"
        )
        self.machine, self.instance, self.state, self.event = machine, instance, state, event


@dataclass(frozen=True)
class Transition:
    source: str
    event: str
    target: str
    note: str = ""
    addition: bool = False

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "event": self.event,
            "target": self.target,
            "note": self.note,
            "addition": self.addition,
        }


@dataclass(frozen=True)
class Machine:
    name: str
    question: str
    initial: str
    states: tuple[str, ...]
    transitions: tuple[Transition, ...]

    def __post_init__(self) -> None:
        table = {}
        for t in self.transitions:
            if t.source not in self.states or t.target not in self.states:
                raise ValueError(f"{self.name}: transition {t} names an undeclared state")
            table[(t.source, t.event)] = t
        object.__setattr__(self, "_table", table)

    def step(self, instance: str, state: str, event: str) -> Transition:
        """The declared transition for ``event`` from ``state``, or TransitionNotAllowed."""
        try:
            return self._table[(state, event)]  # type: ignore[attr-defined]
        except KeyError:
            raise TransitionNotAllowed(self.name, instance, state, event) from None

    def allows(self, state: str, event: str) -> bool:
        return (state, event) in self._table  # type: ignore[attr-defined]

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "question": self.question,
            "initial": self.initial,
            "states": list(self.states),
            "transitions": [t.to_dict() for t in self.transitions],
        }


# Attempt events: the name of each event is what happened, in the article's words.
DISPATCH = "dispatch"
MISSED_HEARTBEATS = "missed heartbeats"
WRITE_REJECTED = "write rejected"
CANDIDATE_REFUSED = "candidate refused"
POST_CONFIRMED = "post confirmed"

ATTEMPT = Machine(
    name="attempt",
    question="Is this worker allowed to act?",
    initial="admitted",
    states=("admitted", "running", "UNKNOWN", "fenced", "refused", "done"),
    transitions=(
        Transition("admitted", DISPATCH, "running"),
        Transition("running", MISSED_HEARTBEATS, "UNKNOWN", "never success, never failure"),
        Transition("running", WRITE_REJECTED, "fenced", "stale token; may still be alive"),
        Transition("UNKNOWN", WRITE_REJECTED, "fenced", "stale token; may still be alive"),
        Transition("running", CANDIDATE_REFUSED, "refused"),
        Transition("running", POST_CONFIRMED, "done"),
        Transition(
            "UNKNOWN", CANDIDATE_REFUSED, "refused", "a suspected attempt, unfenced, refused", True
        ),
        Transition("UNKNOWN", POST_CONFIRMED, "done", "a suspected attempt, unfenced, posted", True),
    ),
)

ASSESSED_RECORDED = "assessed, recorded"
ASSESSED_REFUSED = "assessed, refused"
INPUT_SUPERSEDED = "input superseded"

ARTIFACT = Machine(
    name="artifact",
    question="What is the status of this output?",
    initial="candidate",
    states=("candidate", "accepted", "refused"),
    transitions=(
        Transition("candidate", ASSESSED_RECORDED, "accepted", "for a named version and contract"),
        Transition("candidate", ASSESSED_REFUSED, "refused"),
        Transition("accepted", INPUT_SUPERSEDED, "accepted", "history; not dependable for latest"),
    ),
)

SENT = "sent"
RECEIVER_ANSWERS = "receiver answers"

EFFECT = Machine(
    name="effect",
    question="Did the outside world change?",
    initial="intent recorded",
    states=("intent recorded", "unconfirmed", "confirmed"),
    transitions=(
        Transition("intent recorded", SENT, "unconfirmed"),
        Transition("unconfirmed", RECEIVER_ANSWERS, "confirmed"),
    ),
)

MACHINES = (ATTEMPT, ARTIFACT, EFFECT)
MACHINE_BY_NAME = {m.name: m for m in MACHINES}

#: Attempt states in which the attempt takes no more steps (a fenced one may still be alive).
ATTEMPT_ENDED = frozenset({"fenced", "refused", "done"})
