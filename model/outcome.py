"""The outcome of a run: the figures the article quotes, computed from the world as the run left it.

Where SPEC.md is silent:

- ``first_accepted_current_at``: the first tick an acceptance was recorded for a digest built entirely
  from the final report version.
- ``announcement_confirmed_at``: the first tick the announcement of such an accepted digest was
  confirmed (its acknowledgement recorded).
- ``announcements``: the distinct announcements the feed shows; ``duplicate_posts``: posts beyond one per
  announcement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .invariants import built_from

if TYPE_CHECKING:
    from .simulation import Run

OUTCOME_KEYS = (
    "model_calls",
    "calls_by_attempt",
    "steps_restored",
    "stale_writes_rejected",
    "stale_writes_applied",
    "posts_applied",
    "duplicate_posts",
    "announcements",
    "first_accepted_current_at",
    "newsletter_started_at",
    "newsletter_quote",
    "announcement_confirmed_at",
    "invariants_broken",
    "finished",
    "wrong_digest_accepted",
    "newsletter_used_wrong",
)
MINIMUM_CALLS = 4  # one model call per section


def outcome_of(run: Run) -> dict:
    world = run.world
    final = world.report
    records = world.records
    current_digests = {
        a.digest_id for a in records.acceptances.records if built_from(world.candidate_of(a), final)
    }
    accepted_at = [
        a.tick for a in records.acceptances.records if a.digest_id in current_digests
    ]
    confirmed_at = [
        r.tick for r in records.effects.records if r.kind == "ack" and r.announcement in current_digests
    ]
    posts = world.feed.posts
    distinct = len({p.announcement for p in posts})
    broken = world.checker.broken()
    start = world.newsletter.start
    return {
        "model_calls": world.calls,
        "calls_by_attempt": {str(a.number): a.calls for a in world.attempts},
        "steps_restored": world.restored,
        "stale_writes_rejected": world.stale_rejected,
        "stale_writes_applied": len(world.stale_applied),
        "posts_applied": len(posts),
        "duplicate_posts": len(posts) - distinct,
        "announcements": distinct,
        "first_accepted_current_at": min(accepted_at) if accepted_at else None,
        "newsletter_started_at": start.tick if start else None,
        "newsletter_quote": start.quote if start else None,
        "announcement_confirmed_at": min(confirmed_at) if confirmed_at else None,
        "invariants_broken": broken,
        "finished": bool(current_digests and confirmed_at),
        "wrong_digest_accepted": "superseded-accepted" in broken,
        "newsletter_used_wrong": "dependant-misled" in broken,
    }
