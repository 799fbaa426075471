"""The two rules the article leaves implicit (model/RULES.md), what they fix, and what they leave alone.

Each hole was found by the explorer; its smallest case is replayed here under the rules as first written
(``controller=literal``) and under the completed rules."""

from __future__ import annotations

import pytest

from model import lifecycles as lc
from model.cli import format_outcome
from model.records import Purpose
from model.schedule import ARTICLE, BOUND, PosterDeath
from model.simulation import run
from model.switches import Switches, all_switches
from model.trace import trace_dict

#: The explorer's smallest "stranded" case: #1 is never suspected and finishes on v1 after the correction.
STRANDED = ARTICLE.replace(silent_at="none", poster_death=PosterDeath.NONE)
#: The explorer's smallest double acceptance: #2 is sent to finish #1's announcement and is itself lost.
SENT_TO_ANNOUNCE = ARTICLE.replace(
    silent_at="post", threshold=1, correction_at=None, poster_death=PosterDeath.NONE, successor_stall=2
)


def _run(schedule, **switches):
    return run(Switches(**switches), schedule=schedule)


def test_a_refused_stale_pin_strands_the_work_under_the_literal_rules_only():
    literal = _run(STRANDED, controller="literal")
    assert not literal.outcome().finished and len(literal.world.attempts) == 1

    completed = _run(STRANDED)
    outcome = completed.outcome()
    assert outcome.finished and not outcome.invariants_broken
    one, two = completed.world.attempts
    # #2 is admitted in the very tick #1's candidate is refused, pinned to the latest version.
    refused_at = next(
        m.tick for m in completed.world.lifecycles.moves if m.event == lc.Happening.CANDIDATE_REFUSED
    )
    assert two.admitted_at == refused_at and two.pin.name == "v2" and two.purpose is Purpose.REBUILD
    assert two.token == one.token + 1


def test_a_successor_of_an_attempt_sent_to_announce_finishes_that_announcement():
    literal = _run(SENT_TO_ANNOUNCE, checkpoints="none", controller="literal")
    assert literal.outcome().invariants_broken == ["double-acceptance"]
    assert literal.world.attempts[2].purpose is Purpose.BUILD  # #3 built a second digest of v1

    completed = _run(SENT_TO_ANNOUNCE, checkpoints="none")
    outcome = completed.outcome()
    assert outcome.finished and not outcome.invariants_broken
    one, two, three = completed.world.attempts
    assert two.purpose is three.purpose is Purpose.FINISH_EFFECT
    assert three.announcement == two.announcement == one.candidate.digest_id
    assert three.calls == 0 and outcome.model_calls == 4


@pytest.mark.parametrize("unversioned", ["fail-open", "fail-closed"])
def test_neither_rule_moves_any_of_the_864(unversioned):
    """Every one of the 864 (with either advanced newsletter setting) has the same trace, tick by tick,
    under the rules as first written and the completed rules: the fixes act only off the article's path."""
    for switches in all_switches(unversioned):
        completed = trace_dict(run(switches))
        literal = trace_dict(run(switches.replace(controller="literal")))
        assert completed["ticks"] == literal["ticks"], switches
        assert completed["invariants"] == literal["invariants"]
        assert completed["end_tick"] == literal["end_tick"]


def test_a_suspected_attempt_that_only_read_the_records_is_named_for_it():
    """#2 of the sent-to-announce case wakes after #3 confirmed the announcement: it wrote and sent
    nothing, so its move is "found confirmed", not the posting addition."""
    result = _run(SENT_TO_ANNOUNCE, checkpoints="none")
    (move,) = [
        m for m in result.world.lifecycles.moves if m.instance == "#2" and m.target == lc.AttemptState.DONE
    ]
    assert (move.source, move.event, move.addition) == ("UNKNOWN", "found confirmed", True)
    assert result.world.feed.posts[0].attempt == 3
    machine = next(m for m in trace_dict(result)["machines"] if m["name"] == "attempt")
    assert any(t["event"] == "found confirmed" for t in machine["transitions"])
    # The article's runs keep the article's machine.
    article = next(m for m in trace_dict(run())["machines"] if m["name"] == "attempt")
    assert all(t["event"] != "found confirmed" for t in article["transitions"])


def test_a_run_the_bound_stops_says_so():
    stopped = run(bound=10).outcome()
    assert stopped.stopped_at_limit == 10 and not stopped.finished
    assert stopped.to_dict()["stopped_at_limit"] == 10
    assert format_outcome(stopped)[-1].split(None, 1)[1] == "no: stopped at t10, the limit"
    ended = run().outcome()
    assert ended.stopped_at_limit is None and "stopped_at_limit" not in ended.to_dict()
    assert run(recording=False).end_tick < BOUND
