"""The world of the worked example and the tick protocol (RULES.md §4), written once, here.

Within a tick, in this order:

1. the world: the report correction of this tick; a paused attempt wakes;
2. the newsletter (from t12 until it has started) looks at the records and starts if its rule admits it;
3. the attempts, in ascending number, each taking at most one step;
4. the controller: suspicion, the next epoch and a successor, or the rebuild after a correction;

then the invariants are checked and, when recording, the tick's frame is kept.

A run ends after the first tick after which nothing can happen: no attempt can act, the controller has
nothing pending, and no scheduled event (a wake, the correction, the newsletter becoming ready) lies
ahead. The bound is ``schedule.BOUND`` (t120): a schedule names no event after t40 (``schedule.LATEST``),
and the longest run a schedule can make (a correction at t40, then a rebuild that goes silent for 40
ticks) ends before t100; a run the bound stops says so in its outcome.

When things go wrong is the run's ``Schedule`` (``schedule.py``): the one the switches choose, unless a
schedule is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import lifecycles as lc
from .attempt import FOREVER, Attempt
from .controller import FIRST_TOKEN, Controller
from .feed import Answer, Feed, Status
from .invariants import Checker
from .newsletter import READY_AT, Newsletter
from .outcome import Outcome, outcome_of
from .records import Candidate, Records, WriteResult
from .report import V1, V2
from .schedule import BOUND, PosterDeath, Schedule
from .switches import Fencing, Switches
from .trace import Frames


@dataclass(frozen=True)
class StaleWrite:
    """One write a protected store applied although its token was older than the epoch (fencing off).

    A write is one store operation: an end-only journal batch is one stale write of several records."""

    tick: int
    attempt: int
    store: str
    indices: tuple[int, ...]  # the records it added
    token: int
    epoch: int


@dataclass(frozen=True)
class Event:
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


@dataclass(frozen=True)
class Move:
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
        transition = lc.MACHINE_BY_NAME[machine].step(instance, source, event)
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
        self, actor: str, kind: str, text: str, label: str = "", lane: str = "", call=None, records=()
    ) -> None:
        if self.recording:
            self.events.append(Event(actor, kind, text, label or kind, lane or actor, call, tuple(records)))

    def silence_starts(self, attempt: Attempt, point: str) -> bool:
        """Whether the schedule's silence begins now, as ``attempt`` starts ``point``; if so, it has."""
        schedule = self.schedule
        if self.silenced or attempt.number != schedule.silent_attempt or point != schedule.silent_at:
            return False
        self.silenced = True
        if schedule.silent_for is None:
            attempt.silent_until = FOREVER
            attempt.alive = False  # a crashed attempt never comes back
        else:
            attempt.silent_until = self.tick + schedule.silent_for
        return True

    def poster_dies(self, attempt: Attempt, point: PosterDeath) -> bool:
        """Whether the first attempt to post dies at this point of its post (once, and only that one)."""
        if self.first_poster is None:
            self.first_poster = attempt.number
        if self.poster_died or self.first_poster != attempt.number or self.schedule.poster_death is not point:
            return False
        self.poster_died = True
        return True

    def note_write(self, attempt: Attempt, store: str, what: str, result: WriteResult, n: int) -> None:
        """Count what a protected store did with a write, and say so in the trace."""
        records = self.records.store(store).records
        epoch = self.records.epoch.value
        where = tuple((store, i) for i in range(len(records) - n, len(records)))
        if not result.applied:
            self.stale_rejected += 1
        elif result.stale:
            indices = tuple(index for _, index in where)
            self.stale_applied.append(
                StaleWrite(self.tick, attempt.number, store, indices, attempt.token, epoch)
            )
        if not self.recording:
            return
        if not result.applied:
            text = f"rejects {attempt.name}'s write ({what}): token {attempt.token} < epoch {epoch}"
            self.emit(store, "write-rejected", text, "rejected", attempt.actor)
        elif result.stale:
            text = (
                f"applies {attempt.name}'s write ({what}) carrying token {attempt.token} under epoch {epoch}"
            )
            self.emit(store, "stale-write-applied", text, "stale write", attempt.actor, records=where)
        elif n:
            text = f"records {what} (token {attempt.token})"
            self.emit(store, "write", text, "saved", attempt.actor, records=where)

    def emit_feed(self, attempt: Attempt, announcement: str, key, answer: Answer, resend: bool) -> None:
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
        self.emit("feed", f"post-{answer.status}", text, label, attempt.actor, records=where)

    # --- lookups the actors and the checker share --------------------------------------------------

    @staticmethod
    def artifact_instance(candidate: Candidate) -> str:
        """Each assembled candidate is its own artifact, named by its digest and who assembled it."""
        return f"{candidate.digest_id} by #{candidate.attempt}"

    def candidate_of(self, acceptance) -> Candidate:
        for candidate in self.records.candidates.records:
            if candidate.digest_id == acceptance.digest_id and candidate.attempt == acceptance.attempt:
                return candidate
        raise LookupError(f"no candidate {acceptance.digest_id} by #{acceptance.attempt} for this acceptance")

    def candidate_by_digest(self, digest_id: str) -> Candidate:
        for candidate in reversed(self.records.candidates.records):
            if candidate.digest_id == digest_id:
                return candidate
        raise LookupError(f"no candidate with digest {digest_id}")

    # --- the tick protocol -------------------------------------------------------------------------

    def world_phase(self) -> None:
        if self.tick == self.schedule.correction_at:
            self.report = V2
            self.emit("report", "report-corrected", "is corrected to v2 (revenue 4.1 → 4.7 million)", "v2")
            for acceptance in self.records.acceptances.records:
                if acceptance.version is not None and acceptance.version != self.report.name:
                    instance = self.artifact_instance(self.candidate_of(acceptance))
                    self.lifecycles.move("artifact", instance, lc.Happening.INPUT_SUPERSEDED, self.tick)
            self.controller.note_correction(self)
        for attempt in self.attempts:
            if attempt.alive and attempt.silent_until == self.tick:
                attempt.silent_until = None
                self.emit(attempt.actor, "woke", f"{attempt.name} wakes and carries on where it was", "wakes")

    def step(self) -> None:
        self.events = []
        self.world_phase()
        self.newsletter.act(self)
        for attempt in list(self.attempts):
            if attempt.can_act(self.tick):
                attempt.act(self)
        self.controller.act(self)
        self.checker.check(self)

    def quiescent(self) -> bool:
        """Nothing can happen after this tick."""
        later = self.tick + 1
        if any(
            a.can_act(later) or (a.alive and a.silent_until not in (None, FOREVER)) for a in self.attempts
        ):
            return False
        if self.controller.pending(self):
            return False
        correction_at = self.schedule.correction_at
        if correction_at is not None and correction_at > self.tick:
            return False
        return not (self.newsletter.start is None and self.tick < READY_AT)


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
    for tick in range(bound + 1):
        world.tick = tick
        world.step()
        if snapshot is not None:
            frames.append(snapshot())
        if world.quiescent():
            break
    else:
        world.stopped_at_limit = True
    return Run(world.switches, world, frames, world.tick)
