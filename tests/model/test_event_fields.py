"""Every fact an event's words state is one of its fields (issue 63, RULES.md §9), and the comparison of
two runs reads those fields: where runs part is what they did, not how it is told."""

from __future__ import annotations

import copy
import itertools
from collections import defaultdict

import pytest

from model import Switches, dumps, run, trace_dict
from model.analyses import compare_runs, did, first_divergence, told
from model.explore import SPACE
from model.schedule import ARTICLE, SILENT_POINTS
from model.switches import all_switches

#: Beside the 864: the story's faults moved (a silence before each step, one to three missed heartbeats, a
#: successor that stalls, no fault at all), so the events only such schedules make are judged too.
SCHEDULES = [
    ARTICLE.with_values({"silent_at": at, "threshold": str(threshold), "successor_stall": str(stall)})
    for at, threshold, stall in itertools.product(SILENT_POINTS, SPACE["threshold"], SPACE["successor_stall"])
]


def traces():
    for switches in all_switches():
        yield trace_dict(run(switches))
    for schedule in SCHEDULES:
        yield trace_dict(run(Switches(), schedule=schedule))


def fields_of(event: dict) -> str:
    return dumps({k: v for k, v in event.items() if k not in ("text", "label")})


def test_an_event_s_words_are_a_function_of_its_fields():
    """Two events with equal fields say the same words: no digest, quote, result, purpose or reason is in
    the words alone. The newsletter's start named its digest and quote in words only, so a flip that made
    it take another digest read "Nothing in this run changes"."""
    said = defaultdict(set)
    for trace in traces():
        for frame in trace["ticks"]:
            for event in frame["events"]:
                said[fields_of(event)].add((event["text"], event["label"]))
    ambiguous = {fields: words for fields, words in said.items() if len(words) > 1}
    assert not ambiguous, next(iter(ambiguous.items()))


def main_events() -> dict[str, dict]:
    """One event of each kind the main trace says, the first of its kind."""
    events = {}
    for frame in trace_dict(run(Switches()))["ticks"]:
        for event in frame["events"]:
            events.setdefault(event["kind"], event)
    return events


@pytest.mark.parametrize("kind", sorted(main_events()))
def test_what_an_event_did_is_every_field_but_its_words_positions_credentials_and_reasons(kind):
    """Change one field of a real event: its words, a count or a place (``call``, ``records``, a repeat's
    ``post``), a credential or a reason leave what it did as it was (the last two change how it is told);
    any other field or carried value changes what it did."""
    event = main_events()[kind]

    def changed(path: tuple, value) -> dict:
        other = copy.deepcopy(event)
        place = other
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] = value
        return other

    same_deed = [("text",), ("label",), ("call",), ("records",)]
    same_deed += [("carries", k) for k in ("token", "epoch", "pin", "key", "post")]
    for path in same_deed:
        other = changed(path, "something else")
        assert did(other) == did(event), path
        assert (told(other) == told(event)) == (path[0] != "carries"), path  # credentials are told
    for path in [("reason",), ("redo",)]:
        other = changed(path, {"code": "other"} if path == ("reason",) else [{"step": "s9", "why": "x"}])
        assert told(other) != told(event), path
    other = changed(("redo",), [dict(r, why="another") for r in event["redo"]])
    assert did(other) == did(event)  # why a step is redone is a reason
    for key in ("actor", "kind", "lane", "attempt", "step", "parts", "also", "about"):
        assert did(changed((key,), "something else")) != did(event), key
    for key in event["carries"]:
        if key not in ("token", "epoch", "pin", "key", "post"):
            assert did(changed(("carries", key), "something else")) != did(event), key
    if event["redo"]:
        assert did(changed(("redo",), event["redo"][1:])) != did(event)  # which steps are redone


def chapter(**switches: str) -> dict:
    return trace_dict(run(Switches.from_mapping(switches)))


def test_runs_part_where_the_newsletter_takes_another_digest():
    """Fencing off, then the newsletter rule changed to the latest finished digest: it takes #1's stale
    digest quoting 4.1 million instead of #2's quoting 4.7, and *Dependant not misled* breaks at t12. The
    comparison said nothing changed (issue 63)."""
    before = chapter(fencing="off")
    after = chapter(fencing="off", newsletter="latest-finished")
    comparison = compare_runs(before, after)
    assert comparison["first"] == 12
    took = {run: comparison["newsletter"][run] for run in ("before", "after")}
    assert took["before"] == {"tick": 12, "digest": "a35ac2b2", "quote": "4.7 million"}  # #2's, accepted
    assert took["after"] == {"tick": 12, "digest": "0c1ef575", "quote": "4.1 million"}  # #1's, stale
    assert comparison["invariants"] == [{"id": "dependant-misled", "before": None, "after": 12}]
    assert compare_runs(before, before)["newsletter"] is None


def test_runs_do_not_part_where_only_a_reason_or_a_credential_differs():
    """A controller that restarts with its epoch in memory gives #1's token to #2; #1's writes land at t8
    whether fencing is on (the token was given out twice) or off (nothing checks it). Only the reason
    differs, so the runs do not part there; the comparison says from which tick they are told otherwise.
    A new key for each attempt is told otherwise from t11, and only parts at t14, where the feed applies
    #3's resend again."""
    restart = {"controller_restart": "at-t4-in-memory"}
    comparison = compare_runs(chapter(**restart), chapter(**restart, fencing="off"))
    assert comparison["first"] is None and comparison["differs"] == [] and comparison["explained"][0] == 8
    assert not comparison["invariants"] and not comparison["counts"]
    keyed = compare_runs(chapter(), chapter(post_key="per-attempt"))
    assert keyed["first"] == 14 and keyed["explained"] == [11]
    assert first_divergence(chapter(), chapter(pins="off")) == 5  # the admission's pin at t0 is a credential


def test_the_sixth_invariant_is_compared_only_where_both_runs_judge_it():
    """Pins off, then section 1 reading section 2 outside its key: the sixth is judged only after, and
    breaks at t9 as *Nothing superseded accepted* does in both; it was said to be "held before" (issue 63).
    The reverse flip said "now held" while *Nothing superseded accepted* still breaks at t9."""
    before, after = chapter(pins="off"), chapter(pins="off", s1_reads="s2-undeclared")
    there = compare_runs(before, after)
    assert there["judged_once"] == [{"id": "rebuild-differs", "run": "after", "tick": 9}]
    assert "rebuild-differs" not in [i["id"] for i in there["invariants"]]
    back = compare_runs(after, before)
    assert back["judged_once"] == [{"id": "rebuild-differs", "run": "before", "tick": 9}]
    both = compare_runs(chapter(s1_reads="s2-undeclared"), chapter(s1_reads="s2-declared"))
    assert both["judged_once"] == [] and both["invariants"] == [
        {"id": "rebuild-differs", "before": 10, "after": None}
    ]
