"""The controller: admissions, heartbeat suspicion, the owner epoch and the acceptance transition.

It writes an attempt's admission (identity, pin, token) before dispatching it; it marks an attempt
UNKNOWN after its second consecutive tick without a heartbeat; it publishes the next epoch before it
admits a successor, in the same tick. The acceptance transition checks the owner token (fencing on), lets
the assessor check completeness and form, and with pins on compares every part's input hash with the pin
and the pin with the current report version.

Choices where the article is silent (``model/RULES.md`` gathers them):

- Heartbeats are counted for attempts whose lifecycle is ``running``; once UNKNOWN an attempt is never
  taken back, even if it wakes and heartbeats again.
- "Its predecessor's digest was already accepted" means: an acceptance was recorded for the candidate
  the predecessor assembled. The successor is then pinned to that acceptance's version (none with pins
  off) and only finishes that announcement.
- The number of missed heartbeats before UNKNOWN is the schedule's ``threshold`` (2 in the article).
- The attempt after the schedule's silent one stalls ``successor_stall`` ticks after its admission (0 in
  the article): it takes no step, so it sends no heartbeat, until it wakes.
- The rebuild after a correction (RULES.md §4) is due when, at the correction, some digest had
  already been accepted. It is admitted once the current owner's attempt has ended (fenced, refused or
  done), in the very tick it ends. With pins off the rebuild has no pin, like every attempt.

Two rules the article leaves implicit, which the schedule explorer showed are needed (``model/RULES.md``
tells the story; ``controller=literal`` runs without them, outside the 864, whose traces neither changes):

- **Reconcile against the announced digest** (``_accepted_digest_of``): an attempt admitted only to
  finish an announcement assembled no candidate of its own. When it in turn is written off, "its
  predecessor's digest" is the accepted digest it was sent to announce, so its successor finishes that
  announcement instead of building a second digest from scratch.
- **Rebuild after a stale pin** (``request_acceptance``): when the owner's candidate is refused because
  its pin is no longer the current report version, nobody else is working on the unit; a rebuild pinned
  to the latest version is due at once, and is admitted in that same tick (the owner has just ended).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import lifecycles as lc
from .attempt import Attempt, Phase
from .records import Acceptance, Admission, Purpose, Verdict
from .report import (
    ASSESSMENT_CONTRACT,
    SECTIONS,
    VERSION_BY_NAME,
    WORK_IDENTITY,
    ReportVersion,
    input_key,
    telling_parts,
    versions_with_text,
)
from .switches import ControllerRestart, ControllerRules, Fencing, Pins

if TYPE_CHECKING:
    from .records import Candidate
    from .world import World

FIRST_TOKEN = 41
ACTOR = "controller"
#: The assessor's reasons for refusing, in the trace's words (the page has its own, content/diagram.md).
REASONS = {
    "incomplete": "incomplete",
    "not-from-pin": "{step} was not computed from the pin {pin}",
    "stale-pin": "the pin {pin} is not the current report ({report})",
}
#: Why a successor computes a step again rather than restore it (a plan event's ``redo``).
REDO_REASONS = {
    "no-record": "the journal holds no record of it",
    "other-version": "its latest record was computed from a text the pin does not have",
    "key-differs": "its latest record read the pin's text under another key (an input its key names changed)",
    "not-restoring": "the run restores nothing (the counterfactual of the article's savings)",
}


def _versions_words(read: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    """ "s2 v1": each section and the versions whose text it is."""
    return " ".join(f"{s} {' '.join(versions)}" for s, versions in read)


def _ordinal(n: int) -> str:
    """'a second' for 2 (the article's words), 'a first' for 1, 'a third' for 3, ..."""
    return "a " + {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}.get(n, f"{n}th")


class Controller:
    def __init__(self) -> None:
        self.owner: Attempt | None = None
        self.rebuild_due = False
        # Beyond the article (RULES.md §8.3): after a restart that lost its attempt records, the controller
        # knows only the attempts numbered from here; it admits a first one again at its next step.
        self.known_from = 1
        self.restarted_at: int | None = None

    def restart(self, world: World) -> None:
        """The controller restarts (beyond the article) and loses what it held in memory: its owner, its
        heartbeat counts and a rebuild it meant to admit. With the epoch and the attempt records durable it
        reads them back and only watches its attempts afresh; with them in memory it counts the epoch
        from the first token again, publishes it, and admits a first attempt as at t0."""
        durable = world.switches.controller_restart is ControllerRestart.DURABLE
        self.restarted_at = world.tick
        for attempt in world.attempts:
            attempt.missed = 0
        if durable:
            self.owner = world.attempts[-1] if world.attempts else None
            text = (f"restarts: reads back owner epoch {world.records.epoch.value} and the attempt records, "
                    "and watches every attempt afresh")  # fmt: skip
            world.emit(ACTOR, "controller-restarted", text, "restarts", reason={"code": "durable"},
                       carries={"epoch": str(world.records.epoch.value)})  # fmt: skip
            return
        self.owner, self.rebuild_due = None, False
        self.known_from = len(world.attempts) + 1
        world.records.epoch.value = FIRST_TOKEN
        text = (f"restarts with nothing: its epoch and attempt records were in memory; it publishes owner "
                f"epoch {FIRST_TOKEN} again")  # fmt: skip
        world.emit(ACTOR, "controller-restarted", text, "restarts", reason={"code": "in-memory"},
                   carries={"epoch": str(FIRST_TOKEN)})  # fmt: skip

    def _knows(self, attempt: Attempt) -> bool:
        return attempt.number >= self.known_from

    def _knows_none(self, world: World) -> bool:
        """Whether it knows of no attempt, so the next step admits a first one."""
        return self.known_from > len(world.attempts)

    # --- phase 4 of every tick ---------------------------------------------------------------------

    def act(self, world: World) -> None:
        if self._knows_none(world):  # at t0, and after a restart that lost the attempt records
            self._admit(world, None)
            return
        lifecycle, tick = world.lifecycles.states["attempt"], world.tick
        for attempt in world.attempts:
            if not self._knows(attempt):
                continue  # lost with the attempt records in a restart (beyond the article)
            if lifecycle.get(attempt.name) is not lc.AttemptState.RUNNING:
                continue
            if tick in (attempt.admitted_at, attempt.last_heartbeat, self.restarted_at):
                attempt.missed = 0  # a restarted controller starts counting from its restart
                continue
            attempt.missed += 1
            tolerated = world.schedule.missed_heartbeats_tolerated()
            if attempt.missed < tolerated:
                if world.recording:
                    world.emit(
                        ACTOR,
                        "heartbeat-missed",
                        f"{attempt.name} misses a heartbeat ({attempt.missed} of {tolerated})"
                        if tolerated > 2
                        else f"{attempt.name} misses a heartbeat",
                        f"{attempt.name} silent",
                        carries={"missed": str(attempt.missed), "tolerated": str(tolerated)},
                        about=attempt.number,
                    )
                continue
            world.lifecycles.move("attempt", attempt.name, lc.Happening.MISSED_HEARTBEATS, world.tick)
            if world.recording:
                world.emit(
                    ACTOR,
                    "unknown",
                    f"{attempt.name} misses {_ordinal(attempt.missed)} heartbeat: UNKNOWN"
                    " (neither failed nor finished)",
                    f"{attempt.name} UNKNOWN",
                    carries={"missed": str(attempt.missed), "tolerated": str(tolerated)},
                    about=attempt.number,
                )
            if attempt is self.owner:
                self._admit(world, attempt)
        if self.rebuild_due and self.owner is not None:
            if world.lifecycles.state("attempt", self.owner.name) in lc.ATTEMPT_ENDED:
                self.rebuild_due = False
                self._admit(world, None, rebuild=True)

    def note_correction(self, world: World) -> None:
        """Called by the world when the report is corrected."""
        if world.records.acceptances.records:
            self.rebuild_due = True

    def may_act_after(self, world: World) -> bool:
        """Whether the controller still has something to do (a suspicion to raise, a rebuild to admit)."""
        if self.rebuild_due or self._knows_none(world):
            return True
        lifecycle, next_tick = world.lifecycles.states["attempt"], world.tick + 1
        return any(
            self._knows(a) and lifecycle.get(a.name) is lc.AttemptState.RUNNING and not a.can_act(next_tick)
            for a in world.attempts
        )

    # --- admission ---------------------------------------------------------------------------------

    def _admit(self, world: World, predecessor: Attempt | None, rebuild: bool = False) -> None:
        records = world.records
        if any(map(self._knows, world.attempts)):  # the first attempt it knows of takes the epoch as it is
            records.epoch.value += 1
            epoch = str(records.epoch.value)
            if world.recording:
                world.emit(
                    ACTOR,
                    "epoch",
                    f"publishes owner epoch {epoch}",
                    f"epoch {epoch}",
                    carries={"epoch": epoch},
                )
        token = records.epoch.value
        number = len(world.attempts) + 1
        pins_on = world.switches.pins is Pins.ON

        accepted = self._accepted_digest_of(world, predecessor)
        if accepted is not None:
            purpose = Purpose.FINISH_EFFECT
            pin = VERSION_BY_NAME[accepted.version] if accepted.version else None
        else:
            purpose = Purpose.REBUILD if rebuild else Purpose.BUILD
            pin = world.report if pins_on else None
        admission = Admission(
            attempt=number,
            work=WORK_IDENTITY,
            token=token,
            pin=pin.name if pin else None,
            pin_hash=pin.hash if pin else None,
            purpose=purpose,
            tick=world.tick,
        )
        records.admissions.append(admission)
        attempt = Attempt(number, token, pin, purpose, world.tick)
        world.attempts.append(attempt)
        self.owner = attempt
        world.lifecycles.begin("attempt", attempt.name, world.tick)
        if world.recording:
            pin_text = f"pinned {pin.name}" if pin else "no pin"
            world.emit(
                ACTOR,
                "admission",
                f"writes the admission of {attempt.name} ({WORK_IDENTITY}, {pin_text}, token {token})"
                + (" to finish the announcement" if purpose is Purpose.FINISH_EFFECT else "")
                + (" to rebuild for the corrected report" if purpose is Purpose.REBUILD else ""),
                label=f"admit {attempt.name}",
                records=[("admissions", len(records.admissions) - 1)],
                carries={"token": str(token), "pin": pin.name if pin else "none", "purpose": purpose.value}
                | (self._finishing(world, accepted) if accepted is not None else {}),
                about=attempt.number,
            )
        if purpose is Purpose.FINISH_EFFECT:
            attempt.announcement = accepted.digest_id
        else:
            self._reconcile(world, attempt, pin)
        world.lifecycles.move("attempt", attempt.name, lc.Happening.DISPATCH, world.tick)
        if world.recording:
            world.emit(
                ACTOR, "dispatch", f"dispatches {attempt.name}", f"dispatch {attempt.name}", about=number
            )
        stall = world.schedule.stall_of(number)
        if stall:
            attempt.silent_until = world.tick + 1 + stall
            if world.recording:
                world.emit(
                    attempt.actor,
                    "stalled",
                    f"{attempt.name} stalls for {stall} ticks before its first step",
                    "stalls",
                    carries={"ticks": str(stall)},
                )

    @staticmethod
    def _finishing(world: World, accepted: Acceptance) -> dict[str, str]:
        """What a successor admitted only to finish an announcement is sent to finish: the accepted digest,
        and what the effect records hold of its post: ``none`` (nothing was sent), ``pending`` (an intent
        awaits its answer) or ``answered`` (an acknowledgement or a rejection is on record)."""
        digest = accepted.digest_id
        if world.records.pending_intent(digest) is not None:
            effect = "pending"
        elif any(r.announcement == digest for r in world.records.effects.records):
            effect = "answered"
        else:
            effect = "none"
        return {"announcement": digest, "effect": effect}

    def _accepted_digest_of(self, world: World, predecessor: Attempt | None) -> Acceptance | None:
        """The acceptance the successor of ``predecessor`` must finish announcing, if any: the one
        recorded for the predecessor's own candidate or, for a predecessor sent to finish an
        announcement, the one it carried (unless the controller runs the rules as first written)."""
        if predecessor is None:
            return None
        acceptances = world.records.acceptances.records
        if (
            predecessor.purpose is Purpose.FINISH_EFFECT
            and world.switches.controller is ControllerRules.COMPLETED
        ):
            # None when the acceptance log lost it (beyond the article, §8.4): nothing says it was accepted.
            return next((a for a in acceptances if a.digest_id == predecessor.announcement), None)
        if predecessor.candidate is None:
            return None
        for acceptance in acceptances:
            if (
                acceptance.attempt == predecessor.number
                and acceptance.digest_id == predecessor.candidate.digest_id
            ):
                return acceptance
        return None

    def _reconcile(self, world: World, attempt: Attempt, pin: ReportVersion | None) -> None:
        """Restore every section whose journal record matches the key; plan to redo the rest."""
        by_name = pin is None
        redo = []
        for step in SECTIONS:
            key_hash = None if by_name else self.key_for(world, pin, step)
            record = world.records.lookup(step, key_hash, by_name) if world.restore else None
            if record is None:
                attempt.todo.append(step)
                redo.append((step, self._why_redo(world, step, pin)))
                continue
            attempt.parts[step] = record.part
            attempt.restored += 1
            if not world.recording:
                continue
            index = world.records.journal.records.index(record)
            also = tuple((s, versions_with_text(s, h)) for s, h in record.part.also_read)
            world.emit(
                attempt.actor,
                "restore",
                f"{attempt.name} restores {step} → {record.part.result_id}"
                + (" (by step name alone)" if by_name else " (same input hash)")
                # Beyond the article: what else the restored result was computed from, which its key may
                # not name.
                + (f", computed from {_versions_words(also)} too" if also else ""),
                label=f"{step} restored",
                step=step,
                records=[("journal", index)],
                carries={"by": "step name" if by_name else "input hash", "result": record.part.result_id},
                parts=telling_parts([record.part]) or ((step, ()),),  # its version, where that matters
                also=also,
            )
        if not attempt.todo:
            attempt.phase = Phase.ASSEMBLE
        elif not world.recording:
            return
        elif attempt.restored:
            said = f"{attempt.name} must redo {', '.join(attempt.todo)}"
            world.emit(attempt.actor, "plan", said, "plan", redo=redo)
        else:
            world.emit(
                attempt.actor,
                "plan",
                f"{attempt.name} has nothing to restore: computes {', '.join(attempt.todo)}",
                "plan",
                redo=redo,
            )

    @staticmethod
    def _why_redo(world: World, step: str, pin: ReportVersion | None) -> str:
        """Why a successor must compute ``step`` again (a code of ``REDO_REASONS``): the journal holds no
        record of it, or its latest was computed from a text the pin does not have, or from the pin's text
        but under another key (an input the key names changed, beyond the article), or the run restores
        nothing (the article's counterfactual)."""
        latest = world.records.lookup(step, None, by_name_only=True)  # what a search by name would find
        if latest is None:
            return "no-record"
        if not world.restore:
            return "not-restoring"
        if pin is not None and pin.name not in versions_with_text(step, latest.part.read_hash):
            return "other-version"
        return "key-differs"

    # --- the acceptance transition -----------------------------------------------------------------

    def request_acceptance(self, world: World, attempt: Attempt, candidate: Candidate) -> Verdict:
        """Judge a candidate: accepted, refused, or rejected (stale token, fencing on)."""
        records = world.records
        fencing_on = world.switches.fencing is Fencing.ON
        if fencing_on and attempt.token < records.epoch.value:
            # The transition is a protected store: the rejected write goes through it, so it is counted
            # once; the attempt, told REJECTED, stops as fenced.
            world.write(attempt, "acceptances", f"acceptance of {candidate.digest_id}")
            return Verdict.REJECTED
        instance = world.artifact_instance(candidate)
        problem = self._assess(world, attempt, candidate)
        if problem:
            world.lifecycles.move("artifact", instance, lc.Happening.ASSESSED_REFUSED, world.tick)
            if world.recording:
                why = REASONS[problem["code"]].format(**problem)
                carried = self._carried(world, attempt) | {"digest": candidate.digest_id}
                text = f"refuses {candidate.digest_id}: {why}"
                world.emit(
                    ACTOR, "refused", text, "refused", attempt.actor, carries=carried, reason=problem,
                    parts=telling_parts(candidate.parts),
                )  # fmt: skip
            if (
                attempt is self.owner
                and self._stale_pin(world, attempt)
                and world.switches.controller is ControllerRules.COMPLETED
            ):
                self.rebuild_due = True  # admitted below, in phase 4 of this tick: the owner has ended
            return Verdict.REFUSED
        version = attempt.pin.name if attempt.pin is not None else None
        acceptance = Acceptance(
            digest_id=candidate.digest_id,
            version=version,
            contract=ASSESSMENT_CONTRACT,
            attempt=attempt.number,
            token=attempt.token,
            tick=world.tick,
        )
        if not world.write(attempt, "acceptances", f"acceptance of {candidate.digest_id}", acceptance):
            return Verdict.REJECTED
        world.lifecycles.move("artifact", instance, lc.Happening.ASSESSED_RECORDED, world.tick)
        if world.recording:
            for_what = f"for {version}" if version else "with no version to name"
            world.emit(
                ACTOR,
                "accepted",
                f"assesses {candidate.digest_id} and records its acceptance {for_what}",
                f"accepted {version or '(no version)'}",
                attempt.actor,
                records=[("acceptances", len(records.acceptances.records) - 1)],
                carries=self._carried(world, attempt) | {"digest": candidate.digest_id},
                parts=telling_parts(candidate.parts),
            )
        return Verdict.ACCEPTED

    @staticmethod
    def _carried(world: World, attempt: Attempt) -> dict[str, str]:
        """What a request for acceptance carries that the transition checks: the owner token and the pin
        (its parts are the event's own field); and the report version current as it is judged."""
        pin = attempt.pin.name if attempt.pin else "none"
        return {"token": str(attempt.token), "pin": pin, "report": world.report.name}

    def _assess(self, world: World, attempt: Attempt, candidate: Candidate) -> dict[str, str] | None:
        """The assessor (completeness and form) and, with pins on, the mechanical version check: None, or
        the reason for refusing as data (a ``code`` of ``REASONS`` and the values its words name)."""
        if tuple(p.step for p in candidate.parts) != SECTIONS:
            return {"code": "incomplete"}
        if world.switches.pins is Pins.OFF:
            return None
        pin = attempt.pin
        for part in candidate.parts:
            # The check compares what the keys name: a step's own section, and any input it declares.
            declared = world.switches.s1_reads.declares(part.step)
            read = (part.read_hash, *(h for s, h in part.also_read if s in declared))
            if read != (pin.section_hash(part.step), *(pin.section_hash(s) for s in declared)):
                return {"code": "not-from-pin", "step": part.step, "pin": pin.name}
        if self._stale_pin(world, attempt):
            return {"code": "stale-pin", "pin": pin.name, "report": world.report.name}
        return None

    @staticmethod
    def key_for(world: World, pin: ReportVersion, step: str) -> str:
        """The input hash a step's journal record must carry to be restored for ``pin``: the hashes of the
        pinned inputs the step declares (its own section's, and beyond the article any other it names)."""
        declared = world.switches.s1_reads.declares(step)
        return input_key(pin.section_hash(step), tuple(pin.section_hash(s) for s in declared))

    @staticmethod
    def _stale_pin(world: World, attempt: Attempt) -> bool:
        """Whether the attempt's pin is no longer the current report version (never, without a pin)."""
        return attempt.pin is not None and attempt.pin.name != world.report.name
