"""An attempt: one admitted try at the work, carrying its owner token on every write.

Steps, one per tick: compute one section (a model call), assemble the candidate, request acceptance, post.
An attempt admitted to finish an effect only resends the unconfirmed intent and records the answer.

Choices where the article is silent (``model/RULES.md`` gathers them):

- An attempt about to post first looks at the effect records: if this announcement is already confirmed
  (say a rebuild produced the very digest already announced), it sends nothing and is done.
- A successor's resend does not record a second intent; it sends with its own key policy and records the
  acknowledgement.
- A woken attempt that the controller suspected keeps its old token; the controller never takes it back.
- With ``checkpoints none`` (beyond the article) nothing is journaled: a successor has nothing to restore.
- With the ``per-work`` key (beyond the article) the feed can reject a post: the attempt records the
  rejection in the effect records (so no successor resends it) and stops; the announcement is never made.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from . import lifecycles as lc
from .feed import Status
from .records import Candidate, EffectKind, EffectRecord, JournalRecord, Part, Purpose, Verdict
from .report import (
    SECTIONS,
    WORK_IDENTITY,
    ReportVersion,
    input_key,
    label,
    revenue_figure,
    versions_with_text,
)
from .requests import AskAcceptance, Post, Write
from .schedule import PosterDeath
from .switches import Checkpoints, Pins, PostKey

if TYPE_CHECKING:
    from .world import World

FOREVER = 10**9


class Phase(enum.StrEnum):
    """Where an attempt is in its own work (its lifecycle state is the controller's view of it)."""

    COMPUTE = "compute"
    ASSEMBLE = "assemble"
    ACCEPT = "accept"
    POST = "post"
    STOPPED = "stopped"


class Attempt:
    def __init__(self, number: int, token: int, pin: ReportVersion | None, purpose: Purpose, tick: int):
        self.number = number
        self.name = f"#{number}"
        self.actor = f"attempt {self.name}"
        self.token = token
        self.pin = pin
        self.purpose = purpose
        self.admitted_at = tick
        self.parts: dict[str, Part] = {}
        self.todo: list[str] = []
        self.unjournaled: list[JournalRecord] = []
        self.in_flight: Part | None = None  # a model call started but not finished (paused)
        self.candidate: Candidate | None = None
        self.announcement: str | None = None  # for finish-effect: the accepted digest to confirm
        self.phase = Phase.POST if purpose is Purpose.FINISH_EFFECT else Phase.COMPUTE
        self.alive = True
        self.silent_until: int | None = None  # silent until this tick; FOREVER once crashed or dead
        self.last_heartbeat = tick
        self.missed = 0
        self.calls = 0
        self.restored = 0

    def can_act(self, tick: int) -> bool:
        if not self.alive or self.phase is Phase.STOPPED:
            return False
        return self.silent_until is None or self.silent_until <= tick

    def may_act_after(self, world: World) -> bool:
        """Whether this attempt may still take a step after this tick: it can act next tick, or it is
        paused and will wake."""
        return self.can_act(world.tick + 1) or (self.alive and self.silent_until not in (None, FOREVER))

    # --- one step per tick -------------------------------------------------------------------------

    def act(self, world: World) -> None:
        """One step; what it needs of the stores, the controller or the feed it asks the world for."""
        if (
            self.in_flight is None
            and self.phase is not Phase.COMPUTE
            and world.silence_starts(self, self.phase)
        ):
            # Silent before a step that is not a model call: no step, so no heartbeat, until it wakes.
            world.emit(
                self.actor, "went-silent", f"{self.name} goes silent before it can {self.phase}", "silent",
                carries={"before": self.phase.value},
            )  # fmt: skip
            return
        self.last_heartbeat = world.tick
        if self.in_flight is not None:
            self._finish_call(world, self.in_flight)
        elif self.phase is Phase.COMPUTE:
            self._compute(world, self.todo[0])
        elif self.phase is Phase.ASSEMBLE:
            self._assemble(world)
        elif self.phase is Phase.ACCEPT:
            self._request_acceptance(world)
        elif self.phase is Phase.POST:
            self._post(world)
        else:
            raise AssertionError(f"{self.name} asked to act in phase {self.phase}")

    def _compute(self, world: World, step: str) -> None:
        version = self.pin if self.pin is not None else world.report
        read_hash = version.section_hash(step)
        also = world.switches.s1_reads.also_reads(step)  # beyond the article: RULES.md §8.2
        self.calls += 1
        part = Part(
            step=step,
            result_id=label("result", WORK_IDENTITY, step, read_hash, self.name),
            read_hash=read_hash,
            # The overview that also reads section 2 quotes its revenue figure.
            figure=revenue_figure(version.text(also[0] if also else step)),
            attempt=self.number,
            tick=world.tick,
            also_read=tuple((s, version.section_hash(s)) for s in also),
        )
        # The call is made and counts either way; a silence that begins now means it does not finish.
        silent = world.silence_starts(self, step)
        if world.recording:
            self._say_call(world, version, part, also, silent)
        if silent:
            self.in_flight = part
            return
        self._keep(world, part)

    def _say_call(self, world: World, version: ReportVersion, part: Part, also: tuple, silent: bool) -> None:
        """A model call in the trace's words: what it read, and whether the attempt went quiet in it."""
        step = part.step
        reads = {"reads": version.name}
        said = f"reads {version.name}"
        read_too = tuple((s, versions_with_text(s, version.section_hash(s))) for s in also)
        if also:  # beyond the article: say what else the call read, and whether its key names it
            declared = world.switches.s1_reads.declares(step)
            reads |= {"in_key": "yes" if declared else "no"}
            said += f", {' and '.join(also)} too" + ("" if declared else ", which its key does not name")
        call = world.calls
        if silent:
            kind, words, short = (
                "call-started",
                f"starts {step} (call {call}, {said}) and goes silent",
                f"{step}…",
            )
        else:
            kind, words, short = (
                "model-call",
                f"computes {step} (call {call}, {said}) → {part.result_id}",
                step,
            )
        world.emit(
            self.actor, kind, f"{self.name} {words}", short, call=call, step=step,
            carries=reads | {"result": part.result_id}, also=read_too,
        )  # fmt: skip

    def _finish_call(self, world: World, part: Part) -> None:
        self.in_flight = None
        if world.recording:  # a run without a trace need not word what it would not keep
            world.emit(
                self.actor,
                "call-finished",
                f"{self.name} finishes {part.step} → {part.result_id}",
                part.step,
                step=part.step,
                carries={"result": part.result_id},
            )
        self._keep(world, part)

    def _keep(self, world: World, part: Part) -> None:
        record = JournalRecord(
            step=part.step,
            input_hash=self._key_of(world, part) if world.switches.pins is Pins.ON else None,
            part=part,
            attempt=self.number,
            token=self.token,
            tick=world.tick,
        )
        checkpoints = world.switches.checkpoints
        if checkpoints is Checkpoints.EVERY_STEP:
            if not self._write(world, "journal", f"journal {part.step}", record):
                return
        elif checkpoints is Checkpoints.END_ONLY:
            self.unjournaled.append(record)
        self.parts[part.step] = part
        self.todo.remove(part.step)
        if not self.todo:
            self.phase = Phase.ASSEMBLE

    def _assemble(self, world: World) -> None:
        if self.unjournaled:
            # A record carries the tick it was written; its part keeps the tick it was computed.
            batch = [r._replace(tick=world.tick) for r in self.unjournaled]
            steps = " ".join(r.step for r in batch)
            if not self._write(world, "journal", f"journal {steps}", *batch):
                return
            self.unjournaled = []
        parts = tuple(self.parts[s] for s in SECTIONS)
        candidate = Candidate(
            digest_id=label("digest", *(p.result_id for p in parts)),
            parts=parts,
            pin=self.pin.name if self.pin is not None else None,
            attempt=self.number,
            token=self.token,
            tick=world.tick,
        )
        if not self._write(world, "candidates", f"candidate {candidate.digest_id}", candidate):
            return
        self.candidate = candidate
        world.lifecycles.begin("artifact", world.artifact_instance(candidate), world.tick)
        if world.recording:
            world.emit(
                self.actor,
                "assemble",
                f"{self.name} assembles candidate digest {candidate.digest_id}",
                "candidate",
                carries={"digest": candidate.digest_id},
            )
        self.phase = Phase.ACCEPT

    def _request_acceptance(self, world: World) -> None:
        verdict = world.answer(self, AskAcceptance(self.candidate))
        if verdict is Verdict.ACCEPTED:
            self.announcement = self.candidate.digest_id
            self.phase = Phase.POST
        elif verdict is Verdict.REFUSED:
            self._stop(world, lc.Happening.CANDIDATE_REFUSED)
        else:  # Verdict.REJECTED: the acceptance log refused our token, so we are fenced
            self._stop(world, lc.Happening.WRITE_REJECTED)

    def _post(self, world: World) -> None:
        announcement = self.announcement
        if world.records.confirmed(announcement):
            if world.recording:
                said = f"{self.name} finds the announcement of {announcement} confirmed"
                world.emit(self.actor, "done", said, "done", carries={"announcement": announcement})
            # A running attempt ends as the article's "post confirmed"; a suspected one that only read the
            # records takes the addition named for what it did.
            suspected = world.lifecycles.state("attempt", self.name) is lc.AttemptState.UNKNOWN
            self._stop(world, lc.Happening.FOUND_CONFIRMED if suspected else lc.Happening.POST_CONFIRMED)
            return
        key = self._key(world.switches.post_key, announcement)
        resend = world.records.pending_intent(announcement) is not None
        if not resend:
            intent = EffectRecord(announcement, EffectKind.INTENT, key, self.number, self.token, world.tick)
            if not self._write(world, "effects", f"intent to announce {announcement}", intent):
                return
            world.lifecycles.begin("effect", announcement, world.tick)
            if world.recording:
                said = f"{self.name} records the intent to announce {announcement}"
                world.emit(self.actor, "intent", said, "intent", carries={"announcement": announcement})
            world.lifecycles.move("effect", announcement, lc.Happening.SENT, world.tick)
        if not resend and world.poster_dies(self, PosterDeath.BEFORE_SEND):
            self._die(world, "before sending")
            return
        answer = world.answer(self, Post(key, announcement))
        world.emit_feed(self, announcement, key, answer, resend)
        if answer.status is Status.REJECTED:
            # Only a key shared by different announcements (per-work) gets here: the world did not change.
            rejection = EffectRecord(
                announcement, EffectKind.REJECTION, key, self.number, self.token, world.tick
            )
            if not (self._write(world, "effects", f"the feed's rejection of {announcement}", rejection)):
                return
            world.lifecycles.move("effect", announcement, lc.Happening.RECEIVER_REJECTS, world.tick)
            self._stop(world, lc.Happening.RECEIVER_REJECTS)
            return
        if not resend and world.poster_dies(self, PosterDeath.AFTER_APPLY):
            self._die(world, "before recording the acknowledgement")
            return
        ack = EffectRecord(announcement, EffectKind.ACK, key, self.number, self.token, world.tick)
        if not self._write(world, "effects", f"acknowledgement of {announcement}", ack):
            return
        world.lifecycles.move("effect", announcement, lc.Happening.RECEIVER_ANSWERS, world.tick)
        if world.recording:
            world.emit(
                self.actor, "confirmed", f"{self.name} records the acknowledgement: confirmed", "confirmed"
            )
        self._stop(world, lc.Happening.POST_CONFIRMED)

    @staticmethod
    def _key_of(world: World, part: Part) -> str:
        """A journal record's input hash: the hashes of the inputs its step declares (its own section's,
        and, beyond the article, any other it names)."""
        declared = world.switches.s1_reads.declares(part.step)
        return input_key(part.read_hash, tuple(h for s, h in part.also_read if s in declared))

    def _key(self, policy: PostKey, announcement: str) -> str | None:
        """The operation key: derived from (announcement, digest), from that and the attempt, or none."""
        if policy is PostKey.PER_OPERATION:
            return label("announce", WORK_IDENTITY, announcement)
        if policy is PostKey.PER_ATTEMPT:
            return label("announce", WORK_IDENTITY, announcement, self.name)
        if policy is PostKey.PER_WORK:
            return label("announce", WORK_IDENTITY)
        return None

    # --- helpers -----------------------------------------------------------------------------------

    def _write(self, world: World, store: str, what: str, *records) -> bool:
        """Ask a protected store to write; on a rejected write the attempt is fenced and stops."""
        applied = world.answer(self, Write(store, what, records))
        if not applied:
            self._stop(world, lc.Happening.WRITE_REJECTED)
        return applied

    def _die(self, world: World, when: str) -> None:
        self.alive = False
        self.silent_until = FOREVER
        if world.recording:
            world.emit(self.actor, "died", f"{self.name} dies {when}", "dies")

    def _stop(self, world: World, event: lc.Happening) -> None:
        self.phase = Phase.STOPPED
        world.lifecycles.move("attempt", self.name, event, world.tick)
        if not world.recording:
            return  # the rest only says why it stopped
        if event == lc.Happening.WRITE_REJECTED:
            world.emit(
                self.actor,
                "fenced",
                f"{self.name} is fenced: it may still be alive, but it may not write",
                "fenced",
            )
        elif event == lc.Happening.CANDIDATE_REFUSED:
            world.emit(self.actor, "stopped", f"{self.name} stops: its candidate was refused", "stops",
                       reason={"code": "candidate-refused"})  # fmt: skip
        elif event == lc.Happening.RECEIVER_REJECTS:
            world.emit(self.actor, "stopped", f"{self.name} stops: the feed rejected its post", "stops",
                       reason={"code": "post-rejected"})  # fmt: skip
