from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model import Switches, TraceError, all_switches, dumps, load_trace, run, trace_dict

ALL = list(all_switches())


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(ALL))
def test_same_switches_give_byte_identical_json_and_it_round_trips(switches):
    text = dumps(trace_dict(run(switches)))
    assert dumps(trace_dict(run(switches))) == text
    assert dumps(load_trace(text)) == text


def test_cli_shaped_json_loads_too():
    r = run(Switches())
    text = dumps({"switches": r.switches.to_dict(), "trace": trace_dict(r), "outcome": r.outcome().to_dict()})
    assert load_trace(text)["end_tick"] == 14


def _main():
    return json.loads(dumps(trace_dict(run(Switches()))))


@pytest.mark.parametrize(
    "break_it,message",
    [
        (lambda d: "not json", "not JSON"),
        (lambda d: d.pop("ticks"), "missing ticks"),
        (lambda d: d.update(format="other/9"), "trace.format"),
        (lambda d: d["switches"].update(fencing="sometimes"), "fencing must be one of on, off"),
        (lambda d: d["switches"].update(colour="red"), "unknown switch 'colour'"),
        (lambda d: d["ticks"][3].update(tick=7), "trace.ticks[3].tick: expected 3"),
        (
            lambda d: d["ticks"][5]["lifecycles"]["attempt"].update({"#1": "asleep"}),
            "not a state of the attempt machine",
        ),
        (lambda d: d["ticks"][2].update(epoch="41"), "trace.ticks[2].epoch: expected a whole number"),
        (lambda d: "[" * 100_000 + "]" * 100_000, "nested deeper"),
        (lambda d: d.update(work={"a": json.loads("[" * 900 + "]" * 900)}), "trace.work: expected a string"),
        (lambda d: '{"format": ' + "7" * 4301 + "}", "not a trace"),
        (lambda d: d["ticks"][1].update(lifecycles=[]), "trace.ticks[1].lifecycles: expected an object"),
        (lambda d: d["ticks"][1].update(events=[1, "two"]), "trace.ticks[1].events[0]: expected an object"),
        (lambda d: d["ticks"][1]["events"][0].update(lane="attempt #" + "9" * 5000), "not a lane"),
        (lambda d: d["ticks"][1]["records"]["journal"].append({"step": "s1"}), "records.journal[1]: missing"),
        (lambda d: d["invariants"].pop(), "one report for each"),
        (lambda d: d["machines"][0]["transitions"][0].update(target="nowhere"), "undeclared state"),
        (lambda d: d["ticks"][0].update(report_figure=None), "report_figure: expected a string, got null"),
        (lambda d: d["ticks"][0]["events"][0].update(records=[["journal"]]), "expected a list of two"),
        (lambda d: d["ticks"][0]["attempts"][0].update(alive=1), "alive: expected true or false"),
        (
            lambda d: d["ticks"][2]["invariants"].update({"stale-write": "fine"}),
            "expected 'held' or 'broken'",
        ),
        (lambda d: d.update(end_tick=3), "trace.end_tick"),
        (lambda d: d["ticks"].clear(), "at least one tick"),
    ],
)
def test_a_malformed_trace_is_rejected_with_a_clear_message(break_it, message):
    data = _main()
    result = break_it(data)
    text = result if isinstance(result, str) else json.dumps(data)
    with pytest.raises(TraceError) as error:
        load_trace(text)
    assert message in str(error.value)
