"""The model's answers that do not depend on the reader, computed once per process and shared by every
session: the sweep, the one-change table, and the runs a compare view sets beside the reader's."""

from __future__ import annotations

import json
from functools import cache, lru_cache
from pathlib import Path

from model import Switches, analyses, dumps, run, trace_dict
from model.explore import explore, explore_setting, local_mapper, source_digest
from model.schedule import Schedule

#: The explorer's results over every protection setting, written by the build (and ``./dev serve``) so a
#: page shows them at once; without the file (or for another model), one setting is explored on demand.
EXPLORED = Path(__file__).parent / "data" / "explore.json"


@cache
def sweep_rows() -> tuple[dict, ...]:
    """All 864 outcomes, in the model's documented order."""
    return tuple(analyses.sweep())


@cache
def sweep_summary() -> dict:
    return analyses.sweep_summary(list(sweep_rows()))


@cache
def one_change_rows() -> tuple:
    return tuple(analyses.one_change_at_a_time())


# Every session shares these, and a link can name millions of (switches, schedule) pairs: each cache is
# bounded. Measured: a full trace holds about 110 KB, an outcome or a from-scratch count about 3 KB; the
# bounds keep the caches under about 15 MB together while a class's few dozen links stay hits.
TRACE_CACHE = 64
SMALL_CACHE = 1024


@lru_cache(maxsize=TRACE_CACHE)
def trace_for(switches: Switches, schedule: Schedule | None = None) -> dict:
    return trace_dict(run(switches, schedule=schedule))


@lru_cache(maxsize=SMALL_CACHE)
def outcome_for(switches: Switches, schedule: Schedule | None = None) -> dict:
    return run(switches, recording=False, schedule=schedule).outcome().to_dict()


@lru_cache(maxsize=SMALL_CACHE)
def from_scratch(switches: Switches, schedule: Schedule | None = None) -> dict:
    return analyses.from_scratch(switches, schedule)


_explored: list[dict] = []  # once found, kept; until then, looked for again (``./dev serve`` writes it late)


def explored() -> dict | None:
    """The whole space's results, if a file for this very model is at hand."""
    if not _explored:
        try:
            data = json.loads(EXPLORED.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not (isinstance(data, dict) and data.get("model") == source_digest()):
            return None
        _explored.append(data)
    return _explored[0]


def write_explored(path: Path = EXPLORED) -> Path:
    """Explore the whole space on every core and write it for the app, unless this model's file is there."""
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("model") == source_digest():
            return path
    except (OSError, ValueError, AttributeError):
        pass
    mapper, close = local_mapper()
    try:
        data = explore(mapper=mapper)
    finally:
        close()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(dumps(data), encoding="ascii")
    partial.replace(path)  # readers never see half a file
    return path


if __name__ == "__main__":
    print(write_explored())


@lru_cache(maxsize=32)  # a reader's wider searches, each a few seconds
def explore_wider(protections: tuple[tuple[str, str], ...], space: tuple[tuple[str, tuple], ...]) -> dict:
    """One protection setting against a wider space (``model.explore.space_with``), run now."""
    return explore_setting(dict(protections), space=dict(space))


@lru_cache(maxsize=SMALL_CACHE)  # one row per protection setting (144), whatever a link asks
def explore_row(protections: tuple[tuple[str, str], ...]) -> dict:
    """One protection setting against every schedule: from the file when it has it, else run now (about
    a second in CPython)."""
    wanted = dict(protections)
    data = explored()
    for row in data["rows"] if data else ():
        if row["protections"] == wanted:
            return row
    return explore_setting(wanted)
