"""The newsletter: a dependant that is ready at t12, takes one digest, quotes its revenue figure, and
never looks again.

Its three admission rules:

- ``current-accepted``: an accepted digest whose acceptance names the current report version (the
  article's strict rule, "dependable for the latest input"). When records carry no version (pins off) the
  rule cannot be checked; the advanced setting decides: ``fail-open`` behaves as ``any-accepted``,
  ``fail-closed`` waits, and can never prove freshness.
- ``any-accepted``: the latest acceptance in the log.
- ``latest-finished``: the latest candidate in the candidate store, judged or not.

It only reads the records as they stand at the start of its turn (phase 2 of the tick protocol), so an
acceptance recorded in tick t is seen from tick t+1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .report import revenue_figure
from .switches import NewsletterRule, Pins, Unversioned

if TYPE_CHECKING:
    from .records import Candidate
    from .world import World

READY_AT = 12
ACTOR = "newsletter"
#: Why it waits (a wait event's reason ``code``: the rule it applies, or ``unversioned`` when the strict rule
#: fails closed for want of versions).
WAIT_REASONS = {
    "unversioned": "no record carries a version, so freshness cannot be proved (fail-closed)",
    "current-accepted": "no digest is accepted for {report}",
    "any-accepted": "no digest is accepted yet",
    "latest-finished": "no candidate is finished yet",
}


class Start(NamedTuple):
    tick: int
    digest_id: str
    quote: str | None
    rule: str  # the rule as applied ("any-accepted" when current-accepted failed open)
    report_version: str  # what the report said when it started
    report_figure: str | None


class Newsletter:
    def __init__(self) -> None:
        self.start: Start | None = None

    def effective_rule(self, world: World) -> NewsletterRule | None:
        """The rule in force; None when the strict rule fails closed for want of versions."""
        rule = world.switches.newsletter
        if rule is NewsletterRule.CURRENT_ACCEPTED and world.switches.pins is Pins.OFF:
            if world.switches.unversioned is Unversioned.FAIL_CLOSED:
                return None
            return NewsletterRule.ANY_ACCEPTED
        return rule

    def may_act_after(self, world: World) -> bool:
        """Whether the newsletter may still start for a reason of its own: it is not ready before t12.
        From t12 it looks every tick, but it sees only what others write: once no one else may act, what
        it sees cannot change."""
        return self.start is None and world.tick < READY_AT

    def act(self, world: World) -> None:
        if self.start is not None or world.tick < READY_AT:
            return
        rule = self.effective_rule(world)
        candidate = self._choose(world, rule)
        if candidate is None:
            if not world.recording:
                return
            code = "unversioned" if rule is None else rule.value
            why = WAIT_REASONS[code].format(report=world.report.name)
            reason = {"code": code} | (
                {"report": world.report.name} if "{report}" in WAIT_REASONS[code] else {}
            )
            world.emit(ACTOR, "newsletter-wait", f"waits: {why}", "waits", reason=reason)
            return
        self.start = Start(
            tick=world.tick,
            digest_id=candidate.digest_id,
            quote=candidate.figure,
            rule=rule.value,
            report_version=world.report.name,
            report_figure=revenue_figure(world.report.text("s2")),
        )
        world.emit(
            ACTOR,
            "newsletter-start",
            f"starts on digest {candidate.digest_id}, quoting {candidate.figure}"
            f" (the report says {world.report.name}, {self.start.report_figure})",
            f"quotes {candidate.figure}",
            # What it took and what the report said, as fields (its ``report_figure`` follows from the
            # version; with no figure in the digest, ``quote`` is "none").
            carries={
                "digest": candidate.digest_id,
                "quote": candidate.figure or "none",
                "report": world.report.name,
            },
        )

    def _choose(self, world: World, rule: NewsletterRule | None) -> Candidate | None:
        records = world.records
        if rule is None:
            return None
        if rule is NewsletterRule.LATEST_FINISHED:
            return records.candidates.records[-1] if records.candidates.records else None
        acceptances = records.acceptances.records
        if rule is NewsletterRule.CURRENT_ACCEPTED:
            acceptances = [a for a in acceptances if a.version == world.report.name]
        if not acceptances:
            return None
        return world.candidate_of(acceptances[-1])
