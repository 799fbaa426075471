"""The outcome of a run: the figures the article quotes, computed from the world as the run left it.

Where the article is silent (``model/RULES.md`` gathers the rules):

- ``first_accepted_current_at``: the first tick an acceptance was recorded for a digest built entirely
  from the final report version.
- ``announcement_confirmed_at``: the first tick the announcement of such an accepted digest (one built
  from the final version) was confirmed, its acknowledgement recorded. An announcement of a digest built
  from a superseded input may be confirmed and still not count here.
- ``announcements``: the distinct announcements the feed shows; ``duplicate_posts``: posts beyond one per
  announcement.
- ``stopped_at_limit``: the tick at which the run's bound (``schedule.BOUND``) stopped a run that had
  not ended by itself, else None. It is written into the JSON only when set, so the JSON of every run
  that ends by itself (all 864 among them) is what it was before the bound was said.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from .invariants import built_from, shown_invariants, unlike_scratch
from .records import EffectKind
from .report import SECTIONS, VERSION_BY_NAME

if TYPE_CHECKING:
    from .world import World

#: The fewest model calls the work can take: one per section.
MINIMUM_CALLS = len(SECTIONS)


@dataclass(frozen=True)
class Outcome:
    """The figures of one run. Field order is the JSON key order (``to_dict``)."""

    model_calls: int
    calls_by_attempt: dict[str, int]
    steps_restored: int
    stale_writes_rejected: int  # writes a protected store refused
    stale_writes_applied: int  # writes a protected store applied with an old token (fencing off)
    posts_applied: int
    duplicate_posts: int
    announcements: int
    first_accepted_current_at: int | None
    newsletter_started_at: int | None
    newsletter_quote: str | None
    announcement_confirmed_at: int | None  # of a digest built from the final version
    invariants_broken: list[str]
    finished: bool
    wrong_digest_accepted: bool
    newsletter_used_wrong: bool
    stopped_at_limit: int | None = None

    def to_dict(self) -> dict:
        data = asdict(self)
        if data["stopped_at_limit"] is None:
            del data["stopped_at_limit"]
        return data


#: The keys every outcome's JSON has (``stopped_at_limit`` is added only when a run was stopped).
OUTCOME_KEYS: tuple[str, ...] = tuple(k for k in Outcome.__dataclass_fields__ if k != "stopped_at_limit")


def finished_words(outcome: dict) -> str:
    """Whether a run finished, in words: "yes", "no", or "no: stopped at t120, the limit"."""
    if outcome["finished"]:
        return "yes"
    stopped = outcome.get("stopped_at_limit")
    return "no" if stopped is None else f"no: stopped at t{stopped}, the limit"


def _current_digests(world: World) -> set[str]:
    """The accepted digests built entirely from the report as it is now."""
    acceptances = world.records.acceptances.records
    return {a.digest_id for a in acceptances if built_from(world.candidate_of(a), world.report)}


def _confirmations(world: World, current: set[str]) -> Iterator:
    """The acknowledgements recorded for announcements of ``current`` digests."""
    return (
        r for r in world.records.effects.records if r.kind is EffectKind.ACK and r.announcement in current
    )


def finished(world: World) -> bool:
    """Whether the work is done: a digest of the current report is accepted and its announcement confirmed
    (``Outcome.finished``, without the rest of the outcome: the explorer asks it of every ending)."""
    return next(_confirmations(world, _current_digests(world)), None) is not None


def newsletter_unlike_scratch(world: World) -> bool:
    """Whether the newsletter started on a digest that a build from scratch of the report version current
    when it started would not make (beyond the article, §8.2: a part read text, its own section's or
    another's, that is not that version's). The article's five judge a part by its own section only."""
    start = world.newsletter.start
    if start is None:
        return False
    candidate = world.candidate_by_digest(start.digest_id)
    return bool(unlike_scratch(candidate, VERSION_BY_NAME[start.report_version]))


def outcome_of(world: World) -> Outcome:
    current_digests = _current_digests(world)
    # When a current digest was first accepted and its announcement first confirmed, whether or not the
    # records that say so survived: a digest is current by what it was built from, which outlives them.
    ever_current = current_digests | {
        a.digest_id for a in world.ever("acceptances") if built_from(world.candidate_of(a), world.report)
    }
    accepted_at = [a.tick for a in world.ever("acceptances") if a.digest_id in ever_current]
    confirmed_at = [
        r.tick for r in world.ever("effects") if r.kind is EffectKind.ACK and r.announcement in ever_current
    ]
    posts = world.feed.posts
    distinct = len({p.announcement for p in posts})
    shown = shown_invariants(world.switches)  # the sixth only where a step can break it alone (§8.2)
    broken = [i for i in world.checker.broken() if i in shown]
    start = world.newsletter.start
    return Outcome(
        model_calls=world.calls,
        calls_by_attempt={str(a.number): a.calls for a in world.attempts},
        steps_restored=world.restored,
        stale_writes_rejected=world.stale_rejected,
        stale_writes_applied=len(world.stale_applied),
        posts_applied=len(posts),
        duplicate_posts=len(posts) - distinct,
        announcements=distinct,
        first_accepted_current_at=min(accepted_at) if accepted_at else None,
        newsletter_started_at=start.tick if start else None,
        newsletter_quote=start.quote if start else None,
        announcement_confirmed_at=min(confirmed_at) if confirmed_at else None,
        invariants_broken=broken,
        finished=finished(world),  # by the records at the end: what the system can still show
        # A digest a fresh build of its version would not make, accepted: by a stale part's input, or
        # (beyond the article, where the sixth check is shown) by an input its key does not name.
        wrong_digest_accepted=bool({"superseded-accepted", "rebuild-differs"} & set(broken)),
        # Misled as the article judges it or (beyond the article, where the sixth check is shown) by a
        # digest a fresh build would not make, as ``wrong_digest_accepted`` counts the sixth too.
        newsletter_used_wrong="dependant-misled" in broken
        or ("rebuild-differs" in shown and newsletter_unlike_scratch(world)),
        stopped_at_limit=world.tick if world.stopped_at_limit else None,
    )
