"""The five invariants, judged after every tick by an omniscient checker.

The checker knows what no actor does: the text each part was really computed from (``Part.read_hash``),
even with pins off, when the stores keep no input hashes. Each invariant has an id, a one-line meaning, and
on its first breach a report of the tick, the actor and the records that broke it.

"Built entirely from version V" means every part's input text is V's text for that section. Section 1, 3
and 4 read the same in v1 and v2, so a part computed from either counts for both.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .report import SECTIONS, VERSIONS, ReportVersion

if TYPE_CHECKING:
    from .records import Candidate
    from .simulation import World

MEANINGS: dict[str, str] = {
    "duplicate-effect": "the feed applied one intended announcement more than once",
    "stale-write": "a protected store applied a write carrying an owner token older than the epoch",
    "superseded-accepted": "an acceptance was recorded for a digest with a part whose input is not "
    "the text of the report version current at that tick",
    "dependant-misled": "the newsletter started on a digest that was never accepted, or one with a part "
    "whose input is not the text of the report version current when it started",
    "double-acceptance": "two different digests were accepted that are both built entirely from one "
    "report version",
}
INVARIANT_IDS: tuple[str, ...] = tuple(MEANINGS)


class Standing(enum.StrEnum):
    """An invariant at a tick: held so far, or broken at or before it."""

    HELD = "held"
    BROKEN = "broken"


FINISHED_MEANING = (
    "at the end, a digest built from the final report version is accepted and its announcement confirmed"
)


def built_from(candidate: Candidate, version: ReportVersion) -> bool:
    return (
        all(p.read_hash == version.section_hash(p.step) for p in candidate.parts)
        and tuple(p.step for p in candidate.parts) == SECTIONS
    )


def stale_parts(candidate: Candidate, version: ReportVersion) -> list[str]:
    return [p.step for p in candidate.parts if p.read_hash != version.section_hash(p.step)]


@dataclass(frozen=True)
class Breach:
    invariant: str
    tick: int
    actor: str
    records: tuple[tuple[str, int], ...]
    detail: str

    def to_dict(self) -> dict:
        return {
            "id": self.invariant,
            "tick": self.tick,
            "actor": self.actor,
            "records": [list(r) for r in self.records],
            "detail": self.detail,
        }


class Checker:
    """Looks at what each tick added and keeps the first breach of every invariant."""

    def __init__(self) -> None:
        self.first: dict[str, Breach] = {}
        self.breaches: list[Breach] = []
        self._seen = {"posts": 0, "stale": 0, "acceptances": 0}
        self._announced: set[str] = set()
        self._accepted_by_version: dict[str, set[str]] = {v.name: set() for v in VERSIONS}
        self._newsletter_checked = False

    def broken(self) -> list[str]:
        return sorted(self.first)

    def _breach(self, breach: Breach) -> None:
        self.breaches.append(breach)
        self.first.setdefault(breach.invariant, breach)

    def check(self, world: World) -> None:
        posts = world.feed.posts
        if (
            len(posts) == self._seen["posts"]
            and len(world.stale_applied) == self._seen["stale"]
            and len(world.records.acceptances.records) == self._seen["acceptances"]
            and (self._newsletter_checked or world.newsletter.start is None)
        ):
            return  # nothing new since the last tick (most ticks): nothing to judge
        tick = world.tick
        for post in posts[self._seen["posts"] :]:
            if post.announcement in self._announced:
                self._breach(
                    Breach(
                        "duplicate-effect",
                        tick,
                        f"attempt #{post.attempt}",
                        (("feed_posts", post.number - 1),),
                        f"post {post.number} announces {post.announcement} again",
                    )
                )
            self._announced.add(post.announcement)
        self._seen["posts"] = len(posts)

        for stale in world.stale_applied[self._seen["stale"] :]:
            self._breach(
                Breach(
                    "stale-write",
                    tick,
                    f"attempt #{stale.attempt}",
                    tuple((stale.store, index) for index in stale.indices),
                    f"the {stale.store} applied a write carrying token {stale.token} "
                    f"under epoch {stale.epoch}",
                )
            )
        self._seen["stale"] = len(world.stale_applied)

        acceptances = world.records.acceptances.records
        for index in range(self._seen["acceptances"], len(acceptances)):
            acceptance = acceptances[index]
            candidate = world.candidate_of(acceptance)
            stale = stale_parts(candidate, world.report)
            where = (("acceptances", index),)
            if stale:
                self._breach(
                    Breach(
                        "superseded-accepted",
                        tick,
                        "controller",
                        where,
                        f"{acceptance.digest_id} was accepted with {', '.join(stale)} not computed "
                        f"from {world.report.name}",
                    )
                )
            for version in VERSIONS:
                if built_from(candidate, version):
                    accepted = self._accepted_by_version[version.name]
                    accepted.add(acceptance.digest_id)
                    if len(accepted) == 2:
                        self._breach(
                            Breach(
                                "double-acceptance",
                                tick,
                                "controller",
                                where,
                                f"two different digests accepted, both built entirely from {version.name}",
                            )
                        )
        self._seen["acceptances"] = len(acceptances)

        start = world.newsletter.start
        if start is not None and not self._newsletter_checked:
            self._newsletter_checked = True
            candidate = world.candidate_by_digest(start.digest_id)
            never_accepted = world.records.acceptance_of(start.digest_id) is None
            stale = stale_parts(candidate, world.report)
            if never_accepted or stale:
                why = (
                    "it was never accepted"
                    if never_accepted
                    else (f"its {', '.join(stale)} was not computed from {world.report.name}")
                )
                self._breach(
                    Breach(
                        "dependant-misled",
                        tick,
                        "newsletter",
                        (("candidates", world.records.candidates.records.index(candidate)),),
                        f"it started on {start.digest_id}, quoting {start.quote}, but {why}",
                    )
                )
