"""What an attempt asks of others during its step (RULES.md §4): the world (``World.answer``) gives each
request to the one that answers it and returns the answer. An attempt never calls a store, the controller
or the feed itself, so its module imports none of them.

An attempt's step is a plain call, at most one a tick: nothing it asks outlives the step, and between
ticks its progress is data (its phase, what it still has to do, a call in flight).
"""

from __future__ import annotations

from typing import NamedTuple

from .records import Candidate


class Write(NamedTuple):
    """Write ``records`` to a protected store under the attempt's owner token; the answer is whether the
    store applied it (a store that has seen a newer epoch rejects it, with fencing on)."""

    store: str
    what: str
    records: tuple = ()


class AskAcceptance(NamedTuple):
    """Ask the controller to accept a candidate; the answer is a ``Verdict``."""

    candidate: Candidate


class Post(NamedTuple):
    """Send an announcement to the external feed with an operation key (or none); the answer is the feed's
    ``Answer``."""

    key: str | None
    announcement: str


Request = Write | AskAcceptance | Post
