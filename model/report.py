"""The report the work summarises, its two versions, and the schematic labels the example uses.

A version is named by the content hash of its sections (sha256, shown shortened). Version v2 differs from
v1 in section 2 only: the revenue figure. The texts are this project's own stand-ins; only their hashes
and the figure in section 2 matter to the model.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache

WORK_IDENTITY = "digest/q3-report"
SECTIONS = ("s1", "s2", "s3", "s4")
ASSESSMENT_CONTRACT = "digest-contract/1"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@cache
def label(*parts: object) -> str:
    """A schematic 8-hex identifier derived from what made it (same inputs, same label).

    Cached: it is a pure function of its parts, and a sweep asks for the same few hundred labels."""
    return sha256("\x1f".join(str(p) for p in parts))[:8]


def short(digest: str | None) -> str | None:
    """How hashes are shown: the first 8 hex digits."""
    return None if digest is None else digest[:8]


_REVENUE = re.compile(r"(\d+(?:\.\d+)?) million")


@cache
def revenue_figure(text: str) -> str | None:
    """The revenue figure a summary of ``text`` quotes, e.g. '4.7 million'; None if the text has none.

    Cached: a pure function of the text, and there are only a handful of texts."""
    match = _REVENUE.search(text)
    return match.group(0) if match else None


@dataclass(frozen=True)
class ReportVersion:
    """One immutable snapshot of the report: an attempt pinned to it reads exactly these bytes."""

    name: str
    sections: tuple[tuple[str, str], ...]

    @property
    def hash(self) -> str:
        return _VERSION_HASH[self.name]

    def text(self, section: str) -> str:
        return _SECTION_TEXT[(self.name, section)]

    def section_hash(self, section: str) -> str:
        return _SECTION_HASH[(self.name, section)]


_COMMON = {
    "s1": "Overview. The quarter closed with the new warehouse running at full capacity.",
    "s3": "Operations. Delivery times fell by a day on average across all regions.",
    "s4": "Outlook. Hiring continues in support; no new markets are planned this year.",
}
V1 = ReportVersion(
    "v1",
    tuple(
        (s, _COMMON.get(s, "Results. Revenue for the quarter was 4.1 million, ahead of plan."))
        for s in SECTIONS
    ),
)
V2 = ReportVersion(
    "v2",
    tuple(
        (s, _COMMON.get(s, "Results. Revenue for the quarter was 4.7 million, ahead of plan."))
        for s in SECTIONS
    ),
)
VERSIONS = (V1, V2)
VERSION_BY_NAME = {v.name: v for v in VERSIONS}

# Texts and hashes are looked up once at import: the model asks for them thousands of times in a sweep.
_SECTION_TEXT = {(v.name, s): t for v in VERSIONS for s, t in v.sections}
_SECTION_HASH = {(v.name, s): sha256(t) for v in VERSIONS for s, t in v.sections}
_VERSION_HASH = {v.name: sha256("".join(_SECTION_HASH[(v.name, s)] for s in SECTIONS)) for v in VERSIONS}
#: For the omniscient checker: which versions have exactly this section text.
VERSIONS_WITH_TEXT = {
    (s, h): tuple(v.name for v in VERSIONS if _SECTION_HASH[(v.name, s)] == h)
    for (_, s), h in _SECTION_HASH.items()
}


def versions_with_text(section: str, text_hash: str) -> tuple[str, ...]:
    """The versions whose ``section`` has exactly this text ("v1", or "v1 v2" when both say it)."""
    return VERSIONS_WITH_TEXT.get((section, text_hash), ())


def input_key(own_hash: str, declared: tuple[str, ...]) -> str:
    """A step's key: its own section's hash, or, when it declares other inputs too, a hash over all of
    them (``declared`` holds their hashes, in section order)."""
    return sha256(own_hash + "".join(declared)) if declared else own_hash


def telling_parts(parts) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The parts whose version matters: each part whose input is the text of exactly one version, as
    (step, (version,)); none when every part reads the same in every version. What a version check
    compares, and what a picture labels a message with."""
    telling = []
    for part in parts:
        versions = VERSIONS_WITH_TEXT.get((part.step, part.read_hash), ())
        if len(versions) == 1:
            telling.append((part.step, versions))
    return tuple(telling)
