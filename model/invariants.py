"""The five invariants, judged after every tick by an omniscient checker.

The checker knows what no actor does: the text each part was really computed from (``Part.read_hash``),
even with pins off, when the stores keep no input hashes. Each invariant has an id, a one-line meaning, and
on its first breach a report of the tick, the actor and the records that broke it.

"Built entirely from version V" means every part's input text is V's text for that section. Section 1, 3
and 4 read the same in v1 and v2, so a part computed from either counts for both.

Beyond the article (RULES.md §8.2) a step may read more than its own section. The five invariants judge a
part by its own section, as the article defines them, so they cannot see that; a sixth,
``rebuild-differs``, compares each acceptance with what a build from scratch would make. It is judged in
every run and shown (``shown_invariants``) only where a step reads past its section, so the 864's traces
and outcomes stay what they were; over the 864 it breaks exactly where ``superseded-accepted`` does.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .report import SECTIONS, VERSIONS, ReportVersion

if TYPE_CHECKING:
    from .newsletter import Start
    from .records import Acceptance, Candidate
    from .world import World

MEANINGS: dict[str, str] = {
    "duplicate-effect": "the feed applied one intended announcement more than once",
    "stale-write": "a protected store applied a write from an attempt that no longer owns the work (in "
    "the article's model, one carrying an owner token older than the epoch)",
    "superseded-accepted": "an acceptance was recorded for a digest with a part whose input is not "
    "the text of the report version current at that tick",
    "dependant-misled": "the newsletter started on a digest that was never accepted, or one with a part "
    "whose input is not the text of the report version current when it started",
    "double-acceptance": "two different digests were accepted that are both built entirely from one "
    "report version",
}
INVARIANT_IDS: tuple[str, ...] = tuple(MEANINGS)
#: Beyond the article: judged in every run, shown only where a step reads past its own section.
BEYOND_MEANINGS: dict[str, str] = {
    "rebuild-differs": "an acceptance was recorded for a digest that differs from what a build from "
    "scratch of the report version current at that tick would make: a part read some text, its own section "
    "or another, that is not that version's",
}
ALL_MEANINGS = MEANINGS | BEYOND_MEANINGS


def shown_invariants(switches) -> tuple[str, ...]:
    """The invariants a run's trace and outcome report: the article's five, and the sixth where a step
    reads beyond its own section (a run that can break it while the five hold)."""
    return INVARIANT_IDS + (tuple(BEYOND_MEANINGS) if switches.s1_reads.also_reads("s1") else ())


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


def unlike_scratch(candidate: Candidate, version: ReportVersion) -> list[str]:
    """The parts a build from scratch of ``version`` would compute differently: each part that read some
    text, its own section's or another's, that is not ``version``'s. (The model knows what every call
    read; a real system knows only what the keys name.)"""
    return [
        p.step
        for p in candidate.parts
        if p.read_hash != version.section_hash(p.step)
        or any(h != version.section_hash(s) for s, h in p.also_read)
    ]


class Breach(NamedTuple):
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


@dataclass(frozen=True)
class News:
    """What a tick added that an invariant may be judged on: the feed's new posts, the protected stores'
    new stale writes, the new acceptances (with their index in the log), and the newsletter's start on the
    tick it started."""

    tick: int
    posts: tuple
    stale_writes: tuple
    acceptances: tuple[tuple[int, Acceptance], ...]
    newsletter_start: Start | None

    def __bool__(self) -> bool:
        return bool(self.posts or self.stale_writes or self.acceptances or self.newsletter_start)


class Checker:
    """Looks at what each tick added and keeps the first breach of every invariant.

    One small check per invariant (``CHECKS``), each fed only what is new this tick; a tick that added
    nothing (most ticks) is not judged at all. Two checks remember what earlier ticks added: which
    announcements the feed has posted, and which digests were accepted for each report version."""

    def __init__(self) -> None:
        self.first: dict[str, Breach] = {}
        self.breaches: list[Breach] = []
        self._seen = (0, 0, 0)  # how many posts, stale writes and acceptances were judged already
        self.announced: set[str] = set()
        self.accepted_by_version: dict[str, set[str]] = {v.name: set() for v in VERSIONS}
        self._newsletter_checked = False

    def broken(self) -> list[str]:
        return sorted(self.first)

    def _counts(self, world: World) -> tuple[int, int, int]:
        return len(world.feed.posts), len(world.stale_applied), len(world.records.acceptances.records)

    def news(self, world: World) -> News:
        """What the world holds that the last call had not seen."""
        posts, stale, acceptances = self._seen
        start = world.newsletter.start
        news = News(
            tick=world.tick,
            posts=tuple(world.feed.posts[posts:]),
            stale_writes=tuple(world.stale_applied[stale:]),
            acceptances=tuple(enumerate(world.records.acceptances.records[acceptances:], start=acceptances)),
            newsletter_start=None if self._newsletter_checked else start,
        )
        self._seen = self._counts(world)
        self._newsletter_checked = start is not None
        return news

    def check(self, world: World) -> None:
        if self._seen == self._counts(world) and (self._newsletter_checked or world.newsletter.start is None):
            return  # nothing new (most ticks): no need to gather it
        news = self.news(world)
        if not news:
            return
        for judge, judged in _JUDGED:
            if not getattr(news, judged):
                continue  # nothing of the kind this check judges was added (each judges one kind)
            for breach in judge(self, news, world):
                self.breaches.append(breach)
                self.first.setdefault(breach.invariant, breach)


def duplicate_effect(checker: Checker, news: News, world: World) -> Iterator[Breach]:
    for post in news.posts:
        if post.announcement in checker.announced:
            where = (("feed_posts", post.number - 1),)
            detail = f"post {post.number} announces {post.announcement} again"
            yield Breach("duplicate-effect", news.tick, f"attempt #{post.attempt}", where, detail)
        checker.announced.add(post.announcement)


def stale_write(checker: Checker, news: News, world: World) -> Iterator[Breach]:
    for stale in news.stale_writes:
        where = tuple((stale.store, index) for index in stale.indices)
        detail = f"the {stale.store} applied a write carrying token {stale.token} under epoch {stale.epoch}"
        if stale.token >= stale.epoch:  # beyond the article (RULES.md §8.3): a token given out twice
            detail += f" from #{stale.attempt}, which no longer owns the work"
        yield Breach("stale-write", news.tick, f"attempt #{stale.attempt}", where, detail)


def superseded_accepted(checker: Checker, news: News, world: World) -> Iterator[Breach]:
    said = "{digest} was accepted with {parts} not computed from {version}"
    yield from _acceptances_judged(news, world, "superseded-accepted", stale_parts, said)


def rebuild_differs(checker: Checker, news: News, world: World) -> Iterator[Breach]:
    said = (
        "{digest} was accepted, but a build of {version} from scratch would compute {parts} from other text"
    )
    yield from _acceptances_judged(news, world, "rebuild-differs", unlike_scratch, said)


def _acceptances_judged(
    news: News, world: World, invariant: str, wrong_parts, detail: str
) -> Iterator[Breach]:
    """A breach for each acceptance of this tick whose candidate has parts ``wrong_parts`` finds wrong for
    the report version current now, told in ``detail``'s words."""
    for index, acceptance in news.acceptances:
        wrong = wrong_parts(world.candidate_of(acceptance), world.report)
        if wrong:
            said = detail.format(
                digest=acceptance.digest_id, parts=", ".join(wrong), version=world.report.name
            )
            yield Breach(invariant, news.tick, "controller", (("acceptances", index),), said)


def double_acceptance(checker: Checker, news: News, world: World) -> Iterator[Breach]:
    for index, acceptance in news.acceptances:
        candidate = world.candidate_of(acceptance)
        for version in VERSIONS:
            if built_from(candidate, version):
                accepted = checker.accepted_by_version[version.name]
                accepted.add(acceptance.digest_id)
                if len(accepted) == 2:
                    detail = f"two different digests accepted, both built entirely from {version.name}"
                    yield Breach(
                        "double-acceptance", news.tick, "controller", (("acceptances", index),), detail
                    )


def dependant_misled(checker: Checker, news: News, world: World) -> Iterator[Breach]:
    start = news.newsletter_start
    if start is None:
        return
    candidate = world.candidate_by_digest(start.digest_id)
    # What the run did, not what the log still holds: an acceptance since lost (RULES.md §8.4) was made.
    never_accepted = not any(a.digest_id == start.digest_id for a in world.ever("acceptances"))
    stale = stale_parts(candidate, world.report)
    if never_accepted or stale:
        why = "it was never accepted" if never_accepted else (
            f"its {', '.join(stale)} was not computed from {world.report.name}")  # fmt: skip
        where = (("candidates", world.records.candidates.records.index(candidate)),)
        detail = f"it started on {start.digest_id}, quoting {start.quote}, but {why}"
        yield Breach("dependant-misled", news.tick, "newsletter", where, detail)


#: One check per invariant, run in this order on each tick's news (the order decides only which of two
#: breaches found in one tick is listed first).
CHECKS: dict[str, Callable[[Checker, News, World], Iterator[Breach]]] = {
    "duplicate-effect": duplicate_effect,
    "stale-write": stale_write,
    "superseded-accepted": superseded_accepted,
    "double-acceptance": double_acceptance,
    "dependant-misled": dependant_misled,
    "rebuild-differs": rebuild_differs,
}
assert set(CHECKS) == set(ALL_MEANINGS)
#: What each check judges, a field of ``News``: a check is skipped on a tick that added none of it.
_JUDGES_NEWS = {
    "duplicate-effect": "posts",
    "stale-write": "stale_writes",
    "superseded-accepted": "acceptances",
    "double-acceptance": "acceptances",
    "dependant-misled": "newsletter_start",
    "rebuild-differs": "acceptances",
}
_JUDGED = tuple((judge, _JUDGES_NEWS[invariant]) for invariant, judge in CHECKS.items())
