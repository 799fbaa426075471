"""The model's answers that do not depend on the reader, computed once per process and shared by every
session: the sweep, the one-change table, and the runs a compare view sets beside the reader's."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from functools import cache, lru_cache
from pathlib import Path

from model import Switches, analyses, dumps, run, trace_dict
from model.cli import BriefParser
from model.explore import explore, explore_setting, local_mapper, source_digest
from model.schedule import Schedule

#: The explorer's results over every protection setting, kept in the repository for the model they name
#: (``model.explore.source_digest``), so a fresh clone's build and ``./dev serve`` need not spend a minute
#: and a half exploring. ``python -m app.shared --refresh`` writes them again after a change to the model's
#: code (a test says when they are stale). ``EXPLORED`` is the working copy the app, the build and the app
#: wheel read: the committed file when it is this model's, else explored anew.
COMMITTED = Path(__file__).parent / "explore-results.json"
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


def _current(path: Path) -> dict | None:
    """The results in ``path`` if they are this very model's, else None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("model") == source_digest() else None


def explored() -> dict | None:
    """The whole space's results, if a file for this very model is at hand."""
    if not _explored:
        data = _current(EXPLORED) or _current(COMMITTED)
        if data is None:
            return None
        _explored.append(data)
    return _explored[0]


def write_explored(path: Path | None = None) -> Path:
    """The whole space's results for this model at ``path`` (default ``EXPLORED``): kept if there, else
    copied from the committed file if that is this model's, else explored on every core."""
    path = path or EXPLORED
    if _current(path) is None:
        _write(path, dumps(_current(COMMITTED) or _explore_everything()))
    return path


def _explore_everything() -> dict:
    mapper, close = local_mapper()
    try:
        return explore(mapper=mapper)
    finally:
        close()


def committed_text(data: dict) -> str:
    """The committed file's text: one value a line, so a change to the model shows in a diff as the rows
    it changed."""
    return dumps(data, indent=1) + "\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(text, encoding="ascii")
    partial.replace(path)  # readers never see half a file


def main(argv: list[str] | None = None) -> None:
    parser = BriefParser(
        prog="python -m app.shared",
        description="Make sure the explorer's results for this model are at hand for the app and the build.",
        allow_abbrev=False,
    )
    parser.add_argument(
        "--refresh",
        action="store_true",
        help="explore every schedule and write the results to commit (app/explore-results.json)",
    )
    if parser.parse_args(argv).refresh:
        _write(COMMITTED, committed_text(_explore_everything()))
    print(write_explored())


if __name__ == "__main__":
    main()


#: A reader's wider searches, each a few seconds: the last ones kept, newest last. Searches run in
#: threads of their own (app.views.explore), so the cache is read and written under a lock.
_WIDER: OrderedDict[tuple, dict] = OrderedDict()
_WIDER_LOCK = threading.Lock()
WIDER_KEPT = 32


def explore_wider(
    protections: tuple[tuple[str, str], ...], space: tuple[tuple[str, tuple], ...], progress=None
) -> dict:
    """One protection setting against a wider space (``model.explore.space_with``): a search made
    lately, or run now, telling ``progress`` how far it has come (``model.explore.explore_setting``)."""
    key = (protections, space)
    with _WIDER_LOCK:
        if (row := _WIDER.get(key)) is not None:
            _WIDER.move_to_end(key)
            return row
    row = explore_setting(dict(protections), space=dict(space), progress=progress)
    with _WIDER_LOCK:
        _WIDER[key] = row
        while len(_WIDER) > WIDER_KEPT:
            _WIDER.popitem(last=False)
    return row


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
