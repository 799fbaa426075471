"""The external feed: nothing can roll a post back, and it deduplicates only by operation key.

It follows the receive recipe of the article's section 8: for one key, the lookup, the parameter check,
the post and the remembering of its answer are one unit that nothing else on that key interleaves with
(in this single-threaded model, one method call). A repeat gets the stored answer; the same key with other
parameters is rejected; a request without a key is always applied. Keys are kept for the whole run, as
the article assumes, unless the run's ``feed_keys`` setting steps past it (``forget``). The feed never
looks at owner tokens.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import NamedTuple


class Post(NamedTuple):
    number: int
    announcement: str  # the digest announced
    key: str | None
    attempt: int
    tick: int


class Status(enum.StrEnum):
    APPLIED = "applied"
    REPEAT = "repeat"  # the stored answer, again
    REJECTED = "rejected"  # a remembered key with other parameters


class Answer(NamedTuple):
    """What the feed says to a request."""

    status: Status
    post_number: int | None
    reason: str = ""
    forgotten: bool = False  # applied anew because the feed had forgotten the key (beyond the article)


class Remembered(NamedTuple):
    key: str
    params: tuple
    answer: Answer
    tick: int


@dataclass
class Feed:
    posts: list[Post] = field(default_factory=list)
    # Keys in the order first seen (dicts keep insertion order), so snapshots list them deterministically.
    remembered: dict[str, Remembered] = field(default_factory=dict)
    forgotten: tuple[str, ...] = ()  # keys pruned so far (RULES.md §8.1), in the order they went

    def receive(self, key: str | None, params: tuple, attempt: int, tick: int) -> Answer:
        if key is not None:
            saved = self.remembered.get(key)
            if saved is not None:
                if saved.params != params:
                    return Answer(Status.REJECTED, None, "different request for a remembered key")
                return Answer(Status.REPEAT, saved.answer.post_number)
        post = Post(len(self.posts) + 1, params[0], key, attempt, tick)
        self.posts.append(post)
        answer = Answer(Status.APPLIED, post.number, forgotten=key is not None and key in self.forgotten)
        if key is not None:
            self.remembered[key] = Remembered(key, params, answer, tick)
        return answer

    def forget(self, tick: int, kept_for: int) -> list[Remembered]:
        """Prune every key first seen ``kept_for`` ticks ago or more (RULES.md §8.1): a request with it
        is a new request from now on. Returns what was forgotten, in the order the keys were first seen."""
        gone = [r for r in self.remembered.values() if tick - r.tick >= kept_for]
        for r in gone:
            del self.remembered[r.key]
        self.forgotten += tuple(r.key for r in gone)
        return gone
