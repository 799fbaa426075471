"""The world of the worked example as data: the records, the feed, the actors, the lifecycles, the
checker, the events said so far, and what the schedule's faults have done. The tick protocol that moves
it is ``model.simulation``; the actors read it and ask it to write (``World.write``), and say what they
did through ``World.emit``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from . import lifecycles as lc
from .attempt import FOREVER, Attempt
from .controller import FIRST_TOKEN, Controller
from .feed import Answer, Feed, Status
from .invariants import Checker
from .newsletter import Newsletter
from .records import Candidate, JournalRecord, Records, WriteResult
from .report import V1, telling_parts
from .requests import AskAcceptance, Request, Write
from .schedule import PosterDeath, Schedule
from .switches import Fencing, Switches


def _parts_of(record: object) -> tuple:
    """The parts a record holds: a journal record's one part, a candidate's four, else none."""
    if isinstance(record, JournalRecord):
        return (record.part,)
    if isinstance(record, Candidate):
        return record.parts
    return ()


def _record_words(store: str, written: tuple) -> str:
    """What a write holds, in words without ids: the journal's steps, or the kind of record."""
    if store == "journal":
        return " ".join(r.step for r in written)
    if store == "effects" and written:
        return {"intent": "the intent", "ack": "the answer", "rejection": "the rejection"}[written[0].kind]
    return {
        "candidates": "the candidate",
        "acceptances": "the acceptance",
        "admissions": "the admission",
    }.get(store, store)


def _written(store: str, written: tuple) -> dict[str, str]:
    """Which digest a write of a candidate or an acceptance is about, or which announcement a write of an
    effect record is about, as the event's own field (the journal's steps are its ``record``)."""
    if store in ("candidates", "acceptances") and written:
        return {"digest": written[0].digest_id}
    if store == "effects" and written:
        return {"announcement": written[0].announcement}
    return {}


#: A lost record, in words (one of them; an "s" is added for more).
LOST_WORDS = {"journal": "journal record", "acceptances": "acceptance", "effects": "effect record"}


class StaleWrite(NamedTuple):
    """One write a protected store applied although its token was older than the epoch (fencing off).

    A write is one store operation: an end-only journal batch is one stale write of several records."""

    tick: int
    attempt: int
    store: str
    indices: tuple[int, ...]  # the records it added
    token: int
    epoch: int


class Event(NamedTuple):
    """Something that happened: who did it, what kind of thing, in words, and what it touched.

    ``lane`` is whose step it was: a store's answer to a write, and the feed's answer to a post, belong to
    the writer's lane, so a picture can draw the message from the writer to the actor that answered;
    ``label`` is a few characters for a timeline.
    """

    actor: str
    kind: str
    text: str
    label: str
    lane: str
    call: int | None = None
    records: tuple[tuple[str, int], ...] = ()
    #: As strings: the credentials the message carried that its receiver checks (the owner ``token`` and
    #: the store's ``epoch``, the ``pin``, the operation ``key``), and what the event did that no other
    #: field says (the ``digest``, ``result`` or ``announcement`` its words name, what a call ``reads``...:
    #: RULES.md §9). Every fact the words state is a field.
    carries: tuple[tuple[str, str], ...] = ()
    #: As data, for a reader that must not parse ``text`` or ``label``: the attempt whose row the event is
    #: drawn in, the section step it is about, and a refusal's reason (its ``code`` and the values it names).
    attempt: int | None = None
    step: str | None = None
    reason: tuple[tuple[str, str], ...] = ()
    #: The parts whose version matters, as (step, versions): what a record or a request holds, or what a
    #: successor restored; and (beyond the article, §8.2) the other sections a call or a restored result
    #: read, with the versions whose text that was.
    parts: tuple[tuple[str, tuple[str, ...]], ...] = ()
    also: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: The attempt a controller's event is about (suspected, admitted, dispatched), drawn in its own row.
    about: int | None = None
    #: A successor's plan: each step it must compute again, and why (``controller.REDO_REASONS``).
    redo: tuple[tuple[str, str], ...] = ()


class Move(NamedTuple):
    tick: int
    machine: str
    instance: str
    source: str | None
    event: str
    target: str
    addition: bool = False


class Lifecycles:
    """The current state of every attempt, artifact and effect, each moved only by declared transitions."""

    def __init__(self, recording: bool = True) -> None:
        self.states: dict[str, dict[str, str]] = {m.name: {} for m in lc.MACHINES}
        self.moves: list[Move] = []
        self.recording = recording  # without a trace, moves are checked but not logged

    def begin(self, machine: str, instance: str, tick: int) -> None:
        initial = lc.MACHINE_BY_NAME[machine].initial
        self.states[machine][instance] = initial
        if self.recording:
            self.moves.append(Move(tick, machine, instance, None, "begin", initial))

    def move(self, machine: str, instance: str, event: str, tick: int) -> None:
        source = self.states[machine][instance]
        transition = lc.MACHINE_BY_NAME[machine].transition(instance, source, event)
        self.states[machine][instance] = transition.target
        if self.recording:
            self.moves.append(
                Move(tick, machine, instance, source, event, transition.target, transition.addition)
            )

    def state(self, machine: str, instance: str) -> str | None:
        return self.states[machine].get(instance)


@dataclass
class World:
    switches: Switches
    recording: bool = True
    restore: bool = True  # False: a successor restores nothing (the from-scratch counterfactual)
    schedule: Schedule | None = None  # None: the one the switches choose
    tick: int = 0
    report: object = V1
    stale_rejected: int = 0
    stale_applied: list[StaleWrite] = field(default_factory=list)
    first_poster: int | None = None
    silenced: bool = False  # the schedule's silence has begun (it happens once)
    poster_died: bool = False
    stopped_at_limit: bool = False  # the run's bound stopped it before it ended by itself
    events: list[Event] = field(default_factory=list)
    # What storage lost (RULES.md §8.4), as (store, record): gone from the system, still known to the
    # all-seeing observer, so an outcome can say an acceptance or a confirmation happened before the loss.
    lost: list[tuple[str, object]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.records = Records(FIRST_TOKEN, self.switches.fencing is Fencing.ON)
        self.feed = Feed()
        self.controller = Controller()
        self.newsletter = Newsletter()
        self.attempts: list[Attempt] = []
        self.lifecycles = Lifecycles(self.recording)
        self.checker = Checker()
        if self.schedule is None:
            self.schedule = Schedule.of(self.switches)

    @property
    def calls(self) -> int:
        """Model calls made so far, by every attempt."""
        return sum(a.calls for a in self.attempts)

    @property
    def restored(self) -> int:
        """Steps restored from the journal so far, by every attempt."""
        return sum(a.restored for a in self.attempts)

    # --- what actors tell the world ----------------------------------------------------------------

    def emit(
        self,
        actor: str,
        kind: str,
        text: str,
        label: str = "",
        lane: str = "",
        call=None,
        records=(),
        carries: dict[str, str] | None = None,
        step: str | None = None,
        reason: dict[str, str] | None = None,
        *,
        parts: tuple = (),
        also: tuple = (),
        about: int | None = None,
        redo: tuple = (),
    ) -> None:
        if self.recording:
            said = tuple((carries or {}).items())
            lane = lane or actor
            attempt = next((a.number for a in self.attempts if a.actor == lane), None)
            self.events.append(
                Event(actor, kind, text, label or kind, lane, call, tuple(records), said, attempt, step,
                      tuple((reason or {}).items()), tuple(parts), tuple(also), about, tuple(redo))
            )  # fmt: skip

    def silence_starts(self, attempt: Attempt, point: str) -> bool:
        """Whether the schedule's silence begins now, as ``attempt`` starts ``point``; if so, it has."""
        if self.silenced or not self.schedule.silences(attempt.number, point):
            return False
        self.silenced = True
        length = self.schedule.silence_length()
        if length is None:
            attempt.silent_until = FOREVER
            attempt.alive = False  # a crashed attempt never comes back
        else:
            attempt.silent_until = self.tick + length
        return True

    def poster_dies(self, attempt: Attempt, point: PosterDeath) -> bool:
        """Whether the first attempt to post dies at this point of its post (once, and only that one)."""
        if self.first_poster is None:
            self.first_poster = attempt.number
        if self.poster_died or self.first_poster != attempt.number or not self.schedule.poster_dies_at(point):
            return False
        self.poster_died = True
        return True

    def lose_records(self, stores: tuple[str, ...]) -> None:
        """Beyond the article (RULES.md §8.4): these stores' records vanish, as if their storage failed.
        Each store gets a new, empty list (a list that only grows is what a frozen state and a trace's
        frames may count on; a new one is simply new). The feed, outside, keeps what it applied."""
        lost = []
        for name in stores:
            store = self.records.store(name)
            if store.records:
                lost.append(
                    f"{len(store.records)} {LOST_WORDS[name]}{'' if len(store.records) == 1 else 's'}"
                )
            self.lost.extend((name, record) for record in store.records)
            store.records = []
        said = ", ".join(lost) or "nothing yet"
        actor = "journal" if stores == ("journal",) else "stores"
        code = "journal" if actor == "journal" else "all"
        text = f"loses its records: {said}"
        self.emit(actor, "records-lost", text, "records lost", lane="stores", carries={"lost": said},
                  reason={"code": code})  # fmt: skip

    def answer(self, attempt: Attempt, request: Request):
        """An attempt's request, answered by the one it is addressed to: a write by its store (whether it
        was applied), a request for acceptance by the controller (a ``Verdict``), a post by the external
        feed (its ``Answer``). The attempt waits for nothing: the answer comes back in the same step."""
        if isinstance(request, Write):
            return self.write(attempt, request.store, request.what, *request.records)
        if isinstance(request, AskAcceptance):
            return self.controller.request_acceptance(self, attempt, request.candidate)
        return self.feed.receive(request.key, (request.announcement,), attempt.number, self.tick)

    def write(self, attempt: Attempt, store: str, what: str, *records) -> bool:
        """A write to a protected store under ``attempt``'s owner token: applied or rejected, counted and
        said in the trace. The answer to an attempt's ``Write``, and how the controller records a verdict."""
        result = self.records.store(store).write(attempt.token, *records)
        self.note_write(attempt, store, what, result, records)
        return result.applied

    def note_write(
        self, attempt: Attempt, store: str, what: str, result: WriteResult, written: tuple
    ) -> None:
        """Count what a protected store did with a write, and say so in the trace."""
        # Stale is judged by who owns the work, which the model knows: the attempt admitted last. A token
        # older than the epoch is the only way to be stale in the article's model; past it, a controller
        # that restarted without its epoch can give the owner a token an older attempt holds (§8.3).
        applied, stale = result
        reissued = applied and not stale and attempt is not self.attempts[-1]
        if not applied:
            self.stale_rejected += 1
        elif not (stale or reissued) and not self.recording:
            return  # the usual write of a run without a trace: nothing more to count or say
        n = len(written)
        records = self.records.store(store).records
        epoch = self.records.epoch.value
        where = tuple((store, i) for i in range(len(records) - n, len(records)))
        if applied and (stale or reissued):
            indices = tuple(index for _, index in where)
            self.stale_applied.append(
                StaleWrite(self.tick, attempt.number, store, indices, attempt.token, epoch)
            )
        if not self.recording:
            return
        carries = {"record": _record_words(store, written), "token": str(attempt.token), "epoch": str(epoch)}
        carries |= _written(store, written)
        parts = telling_parts(part for r in written for part in _parts_of(r))
        if not result.applied:
            text = f"rejects {attempt.name}'s write ({what}): token {attempt.token} < epoch {epoch}"
            self.emit(store, "write-rejected", text, "rejected", attempt.actor, carries=carries, parts=parts)
        elif result.stale or reissued:
            text = (
                f"applies {attempt.name}'s write ({what}) carrying token {attempt.token} under epoch {epoch}"
            )
            owner = self.attempts[-1]
            if reissued:
                text += f", though {owner.name} now owns the work with that token"
            self.emit(
                store,
                "stale-write-applied",
                text,
                "stale write",
                attempt.actor,
                records=where,
                carries=carries,
                parts=parts,
                # The reissued token is why the write passed a check only where there was a check: with
                # fencing off it would have landed whatever its token (the reason is then fencing's).
                reason={"code": "token-reissued", "owner": owner.name}
                if reissued and self.switches.fencing is Fencing.ON
                else None,
            )
        elif n:
            text = f"records {what} (token {attempt.token})"
            self.emit(
                store, "write", text, "saved", attempt.actor, records=where, carries=carries, parts=parts
            )

    def emit_feed(self, attempt: Attempt, announcement: str, key, answer: Answer, resend: bool) -> None:
        if not self.recording:
            return
        key_text = f"key {key}" if key else "no key"
        verb = "resends" if resend else "posts"
        if answer.status is Status.APPLIED:
            text = f"applies post {answer.post_number} from {attempt.name} ({verb}, {key_text})"
            label = f"post {answer.post_number}"
            where = (("feed_posts", answer.post_number - 1),)
        elif answer.status is Status.REPEAT:
            text = f"returns its stored answer to {attempt.name} ({key_text}): post {answer.post_number}"
            label = "stored answer"
            where = ()
        else:
            text = f"rejects {attempt.name}'s request ({key_text}): {answer.reason}"
            label = "rejected"
            where = ()
        # The feed answers, in the posting attempt's lane: a picture draws the post from the one to the other.
        carries = {"key": key or "none", "announcement": announcement, "resend": "yes" if resend else "no"}
        if answer.status is Status.REPEAT:
            carries["post"] = str(answer.post_number)  # the post whose answer it returns
        # Why a keyed post was applied again: the feed had forgotten its key (beyond the article).
        reason = {"code": "key-forgotten"} if answer.forgotten else None
        self.emit(
            "feed", f"post-{answer.status}", text, label, attempt.actor, records=where, carries=carries,
            reason=reason,
        )  # fmt: skip

    # --- lookups the actors and the checker share --------------------------------------------------

    @staticmethod
    def artifact_instance(candidate: Candidate) -> str:
        return lc.artifact_instance(candidate.digest_id, candidate.attempt)

    def ever(self, store: str) -> list:
        """A store's records as the run wrote them: those storage lost (beyond the article, §8.4), then
        those it holds. What happened is a fact of the run even where the system has forgotten it."""
        return [record for name, record in self.lost if name == store] + self.records.store(store).records

    def candidate_of(self, acceptance) -> Candidate:
        for candidate in self.ever("candidates"):
            if candidate.digest_id == acceptance.digest_id and candidate.attempt == acceptance.attempt:
                return candidate
        raise LookupError(f"no candidate {acceptance.digest_id} by #{acceptance.attempt} for this acceptance")

    def candidate_by_digest(self, digest_id: str) -> Candidate:
        for candidate in reversed(self.records.candidates.records):
            if candidate.digest_id == digest_id:
                return candidate
        raise LookupError(f"no candidate with digest {digest_id}")
