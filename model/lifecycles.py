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
- attempt ``UNKNOWN --found confirmed--> done``: a suspected attempt wakes, looks at the effect records
  before it posts, and finds the announcement already confirmed by a successor. It wrote nothing (so
  fencing, on or off, had nothing to refuse) and sent nothing; it only read, and stops.

Transitions marked ``beyond=True`` are reachable only beyond the article's 864 runs: with a setting
beyond its eight switches (the ``per-work`` post key, whose feed rejects a second announcement under the
same key: the effect ``unconfirmed --receiver rejects--> rejected`` and the attempt's ``post rejected``),
or on a schedule other than the article's (``found confirmed``: in the 864 no suspected attempt wakes
after its announcement was confirmed). A trace lists them only when its run could take them, so the
article's runs keep the article's machines.
"""

from __future__ import annotations

import enum
from dataclasses import KW_ONLY, dataclass


class InvalidDefinition(ValueError):
    """A machine whose table contradicts itself: checked when it is declared, not when a run trips on it."""


class TransitionNotAllowed(Exception):
    """A lifecycle move that the machine does not declare."""

    def __init__(self, machine: str, instance: str, state: str, event: str):
        super().__init__(f"{machine} {instance}: no transition {event!r} from state {state!r}")
        self.machine, self.instance, self.state, self.event = machine, instance, state, event


@dataclass(frozen=True)
class Transition:
    source: str
    event: str
    target: str
    note: str = ""
    _: KW_ONLY  # the flags are named where a transition is declared: True, True says nothing
    addition: bool = False  # not in the article's machines; the model needs it
    beyond: bool = False  # reachable only with a setting beyond the article's

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "event": self.event,
            "target": self.target,
            "note": self.note,
            "addition": self.addition,
        }


def artifact_instance(digest_id: str, attempt: int) -> str:
    """Each assembled candidate is its own artifact, named by its digest and the attempt that assembled
    it: the name its lifecycle's instance has in the trace."""
    return f"{digest_id} by #{attempt}"


@dataclass(frozen=True)
class Machine:
    name: str
    question: str
    initial: str
    states: tuple[str, ...]
    transitions: tuple[Transition, ...]

    def __post_init__(self) -> None:
        """Refuse a table that contradicts itself, as python-statemachine does at definition time: an
        initial state that is not a state, a state named twice, a transition to or from an undeclared
        state, two transitions for one (state, event) (the second would silently replace the first)."""
        if self.initial not in self.states:
            raise InvalidDefinition(
                f"{self.name}: the initial state {self.initial!r} is not among its states"
            )
        if len(set(self.states)) != len(self.states):
            raise InvalidDefinition(f"{self.name}: a state is declared twice in {self.states}")
        table = {}
        for t in self.transitions:
            if t.source not in self.states or t.target not in self.states:
                raise InvalidDefinition(f"{self.name}: transition {t} names an undeclared state")
            if (t.source, t.event) in table:
                raise InvalidDefinition(f"{self.name}: two transitions for {t.event!r} from {t.source!r}")
            table[(t.source, t.event)] = t
        object.__setattr__(self, "_table", table)

    @property
    def final_states(self) -> frozenset[str]:
        """The states with no way out: an instance there takes no more transitions."""
        return frozenset(self.states) - {t.source for t in self.transitions}

    def transition(self, instance: str, state: str, event: str) -> Transition:
        """The declared transition for ``event`` from ``state``, or TransitionNotAllowed."""
        try:
            return self._table[(state, event)]  # type: ignore[attr-defined]
        except KeyError:
            raise TransitionNotAllowed(self.name, instance, state, event) from None

    def to_dict(self, beyond: bool = True) -> dict:
        """The machine as data; ``beyond=False`` leaves out what only settings beyond the article reach."""
        transitions = [t for t in self.transitions if beyond or not t.beyond]
        reached = {self.initial} | {t.source for t in transitions} | {t.target for t in transitions}
        return {
            "name": self.name,
            "question": self.question,
            "initial": self.initial,
            "states": [s for s in self.states if s in reached],
            "transitions": [t.to_dict() for t in transitions],
        }


class AttemptState(enum.StrEnum):
    ADMITTED = "admitted"
    RUNNING = "running"
    UNKNOWN = "UNKNOWN"
    FENCED = "fenced"
    REFUSED = "refused"
    DONE = "done"
    REJECTED = "post rejected"  # beyond the article: the feed rejected its post


class ArtifactState(enum.StrEnum):
    CANDIDATE = "candidate"
    ACCEPTED = "accepted"
    REFUSED = "refused"


class EffectState(enum.StrEnum):
    INTENT_RECORDED = "intent recorded"
    UNCONFIRMED = "unconfirmed"
    CONFIRMED = "confirmed"
    REJECTED = "rejected"  # beyond the article: the feed refused a remembered key with other parameters


class Happening(enum.StrEnum):
    """The events that move the machines, named for what happened, in the article's words."""

    DISPATCH = "dispatch"
    MISSED_HEARTBEATS = "missed heartbeats"
    WRITE_REJECTED = "write rejected"
    CANDIDATE_REFUSED = "candidate refused"
    POST_CONFIRMED = "post confirmed"
    FOUND_CONFIRMED = "found confirmed"  # it looked before posting: a successor had confirmed it
    ASSESSED_RECORDED = "assessed, recorded"
    ASSESSED_REFUSED = "assessed, refused"
    INPUT_SUPERSEDED = "input superseded"
    SENT = "sent"
    RECEIVER_ANSWERS = "receiver answers"
    RECEIVER_REJECTS = "receiver rejects"


H = Happening
A = AttemptState
ATTEMPT = Machine(
    name="attempt",
    question="Is this worker allowed to act?",
    initial=A.ADMITTED,
    states=tuple(A),
    transitions=(
        Transition(A.ADMITTED, H.DISPATCH, A.RUNNING),
        Transition(A.RUNNING, H.MISSED_HEARTBEATS, A.UNKNOWN, "never success, never failure"),
        Transition(A.RUNNING, H.WRITE_REJECTED, A.FENCED, "stale token; may still be alive"),
        Transition(A.UNKNOWN, H.WRITE_REJECTED, A.FENCED, "stale token; may still be alive"),
        Transition(A.RUNNING, H.CANDIDATE_REFUSED, A.REFUSED),
        Transition(A.RUNNING, H.POST_CONFIRMED, A.DONE),
        Transition(
            A.UNKNOWN, H.CANDIDATE_REFUSED, A.REFUSED, "a suspected attempt, unfenced, refused", addition=True
        ),
        Transition(
            A.UNKNOWN, H.POST_CONFIRMED, A.DONE, "a suspected attempt, unfenced, posted", addition=True
        ),
        Transition(
            A.UNKNOWN,
            H.FOUND_CONFIRMED,
            A.DONE,
            "a suspected attempt woke; it only read",
            addition=True,
            beyond=True,
        ),
        Transition(
            A.RUNNING,
            H.RECEIVER_REJECTS,
            A.REJECTED,
            "its key names another request",
            addition=True,
            beyond=True,
        ),
        Transition(
            A.UNKNOWN,
            H.RECEIVER_REJECTS,
            A.REJECTED,
            "its key names another request",
            addition=True,
            beyond=True,
        ),
    ),
)

ARTIFACT = Machine(
    name="artifact",
    question="What is the status of this output?",
    initial=ArtifactState.CANDIDATE,
    states=tuple(ArtifactState),
    transitions=(
        Transition(
            ArtifactState.CANDIDATE,
            H.ASSESSED_RECORDED,
            ArtifactState.ACCEPTED,
            "for a named version and contract",
        ),
        Transition(ArtifactState.CANDIDATE, H.ASSESSED_REFUSED, ArtifactState.REFUSED),
        Transition(
            ArtifactState.ACCEPTED,
            H.INPUT_SUPERSEDED,
            ArtifactState.ACCEPTED,
            "history; not dependable for latest",
        ),
    ),
)

EFFECT = Machine(
    name="effect",
    question="Did the outside world change?",
    initial=EffectState.INTENT_RECORDED,
    states=tuple(EffectState),
    transitions=(
        Transition(EffectState.INTENT_RECORDED, H.SENT, EffectState.UNCONFIRMED),
        Transition(EffectState.UNCONFIRMED, H.RECEIVER_ANSWERS, EffectState.CONFIRMED),
        Transition(
            EffectState.UNCONFIRMED,
            H.RECEIVER_REJECTS,
            EffectState.REJECTED,
            "the key was used for another request",
            addition=True,
            beyond=True,
        ),
    ),
)

MACHINES = (ATTEMPT, ARTIFACT, EFFECT)
MACHINE_BY_NAME = {m.name: m for m in MACHINES}

#: Attempt states in which the attempt takes no more steps (a fenced one may still be alive): derived
#: from the table, so a way out added to one of them takes it off this list.
ATTEMPT_ENDED = ATTEMPT.final_states
