"""The durable records and the protected stores that hold them.

Every record is an immutable value (a NamedTuple: built and hashed in C, which the explorer's thousands
of states need): stores only append, and a "change" is a new record. The four
protected stores (journal, candidate store, acceptance log, effect records) share one authoritative
``Epoch``. With fencing on, a store compares the writer's owner token with the epoch and refuses an older
one; with fencing off it applies the write anyway, and the write is counted as stale.

Choices where the article is silent (``model/RULES.md`` gathers them):

- A write is one store operation. With end-only checkpoints the four section records reach the journal in
  one write (a batch), so a stale attempt that assembles is refused once, not four times.
- The journal may hold several records for one key (a stale writer with fencing off adds its own). A
  successor restores the *latest* record that matches its key.
- The attempt records (admissions) are written by the controller itself, which never carries an old
  token, so they are not a fenced store.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Generic, NamedTuple, TypeVar


class Purpose(enum.StrEnum):
    """Why the controller admitted an attempt."""

    BUILD = "build"
    REBUILD = "rebuild"  # after a correction, for the new version
    FINISH_EFFECT = "finish-effect"  # the digest is accepted; only its announcement is left


class EffectKind(enum.StrEnum):
    INTENT = "intent"
    ACK = "ack"
    REJECTION = "rejection"  # the feed's answer to a key it remembers for another request (per-work keys)


@dataclass
class Epoch:
    """The one authoritative owner epoch; the controller publishes it before admitting a successor."""

    value: int


class Admission(NamedTuple):
    """The controller's attempt record, written before the attempt is dispatched."""

    attempt: int
    work: str
    token: int
    pin: str | None  # version name ("v1"), None with pins off
    pin_hash: str | None
    purpose: Purpose
    tick: int


class Part(NamedTuple):
    """A section summary as computed: its schematic result id and what it was really computed from.

    ``read_hash`` is the content hash of the text the model call read. The stores only show it when pins
    are on; the omniscient checker always knows it. ``also_read`` is what the call read besides its own
    section, as (section, hash) pairs: nothing in the article's model (RULES.md §8.2).
    """

    step: str
    result_id: str
    read_hash: str
    figure: str | None
    attempt: int
    tick: int
    also_read: tuple[tuple[str, str], ...] = ()


class JournalRecord(NamedTuple):
    step: str
    input_hash: str | None  # the key's input hash; None with pins off (reuse by step name alone)
    part: Part
    attempt: int
    token: int
    tick: int


class Candidate(NamedTuple):
    """A finished output: assembled, not yet judged."""

    digest_id: str
    parts: tuple[Part, ...]
    pin: str | None
    attempt: int
    token: int
    tick: int

    @property
    def figure(self) -> str | None:
        """The revenue figure the digest quotes (from its s2 summary)."""
        for part in self.parts:
            if part.figure is not None:
                return part.figure
        return None


class Acceptance(NamedTuple):
    """A recorded judgement: this digest passed assessment, for a named version and contract."""

    digest_id: str
    version: str | None  # None with pins off: the transition cannot name a version
    contract: str
    attempt: int
    token: int
    tick: int


class Verdict(enum.StrEnum):
    """The acceptance transition's answer to a request."""

    ACCEPTED = "accepted"
    REFUSED = "refused"  # by the assessor or the version check
    REJECTED = "rejected"  # the owner token is stale (fencing on): not a judgement at all


class EffectRecord(NamedTuple):
    """Intent to post, or the acknowledgement of a post, for one announcement (of one accepted digest)."""

    announcement: str  # the accepted digest's id
    kind: EffectKind
    key: str | None
    attempt: int
    token: int
    tick: int


R = TypeVar("R")


class WriteResult(NamedTuple):
    applied: bool
    stale: bool  # the token was older than the epoch


@dataclass
class ProtectedStore(Generic[R]):
    """An append-only store that checks owner tokens against the shared epoch when fencing is on."""

    name: str
    epoch: Epoch
    fencing: bool
    records: list[R] = field(default_factory=list)

    def write(self, token: int, *records: R) -> WriteResult:
        stale = token < self.epoch.value
        if stale and self.fencing:
            return WriteResult(applied=False, stale=True)
        self.records.extend(records)
        return WriteResult(applied=True, stale=stale)


PROTECTED_STORES = ("journal", "candidates", "acceptances", "effects")


class Records:
    """All durable state of the work, in one place so a snapshot is a set of prefix lengths."""

    def __init__(self, first_token: int, fencing: bool):
        self.epoch = Epoch(first_token)
        self.admissions: list[Admission] = []
        self.journal: ProtectedStore[JournalRecord] = ProtectedStore("journal", self.epoch, fencing)
        self.candidates: ProtectedStore[Candidate] = ProtectedStore("candidates", self.epoch, fencing)
        self.acceptances: ProtectedStore[Acceptance] = ProtectedStore("acceptances", self.epoch, fencing)
        self.effects: ProtectedStore[EffectRecord] = ProtectedStore("effects", self.epoch, fencing)

    def store(self, name: str) -> ProtectedStore:
        return getattr(self, name)

    def lookup(self, step: str, input_hash: str | None, by_name_only: bool) -> JournalRecord | None:
        """The latest journal record matching the key (step and input hash, or step name alone)."""
        for record in reversed(self.journal.records):
            if record.step == step and (by_name_only or record.input_hash == input_hash):
                return record
        return None

    def acceptance_of(self, digest_id: str) -> Acceptance | None:
        for acceptance in self.acceptances.records:
            if acceptance.digest_id == digest_id:
                return acceptance
        return None

    def confirmed(self, announcement: str) -> bool:
        return any(r.kind is EffectKind.ACK and r.announcement == announcement for r in self.effects.records)

    def pending_intent(self, announcement: str) -> EffectRecord | None:
        """The latest intent for this announcement if no acknowledgement follows it."""
        if self.confirmed(announcement):
            return None
        for record in reversed(self.effects.records):
            if record.announcement == announcement:
                # A recorded rejection closes the intent: resending would be rejected again.
                return record if record.kind is EffectKind.INTENT else None
        return None
