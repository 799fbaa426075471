"""Whatever JSON a reader hands over, ``load_trace`` either refuses it with TraceError or returns a trace
that every renderer draws. Hypothesis mutates valid traces: a value replaced by any JSON, a key dropped."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.render.diagram import diagram_html
from app.render.lifecycles import lifecycle_svg
from app.render.records import records_html
from app.render.text import events_table_html
from app.views.trace import now_html
from model import Switches, TraceError, dumps, load_trace, run, trace_dict

BASES = [trace_dict(run(s)) for s in (Switches(), Switches(fencing="off", pins="off", post_key="none"))]
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def paths(data, prefix=()):
    """Every place in the JSON tree, as a tuple of keys and indices."""
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from paths(v, (*prefix, k))
    elif isinstance(data, list):
        for n, v in enumerate(data[:3]):  # the first few items of a list stand for the rest
            yield from paths(v, (*prefix, n))


PLACES = [list(paths(b))[1:] for b in BASES]


def draw_everything(trace: dict) -> None:
    for tick, frame in enumerate(trace["ticks"]):
        diagram_html(trace, tick)
        events_table_html(trace, tick)
        now_html(trace, tick)
        records_html(trace, tick)
        for machine in trace["machines"]:
            lifecycle_svg(machine, frame)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_mutated_trace_is_refused_or_drawn(data):
    which = data.draw(st.integers(0, len(BASES) - 1))
    trace = json.loads(dumps(BASES[which]))
    place = data.draw(st.sampled_from(PLACES[which]))
    parent = trace
    for key in place[:-1]:
        parent = parent[key]
    if data.draw(st.booleans()) and isinstance(parent, dict):
        del parent[place[-1]]
    else:
        parent[place[-1]] = data.draw(ANY_JSON)
    try:
        loaded = load_trace(json.dumps(trace))
    except TraceError:
        return
    draw_everything(loaded)


def test_the_unmutated_traces_load_and_draw():
    for base in BASES:
        draw_everything(load_trace(dumps(base)))


def test_a_trace_larger_than_any_run_makes_is_refused_before_it_is_parsed():
    from model.trace import MAX_TRACE_CHARS

    text = dumps(BASES[0])
    padded = text[:-1] + ',"x":"' + "a" * MAX_TRACE_CHARS + '"}'
    try:
        load_trace(padded)
    except TraceError as error:
        assert "at most 4,000,000" in str(error)
    else:
        raise AssertionError("a 4 MB trace was accepted")


def test_a_key_given_twice_or_unknown_at_the_top_is_refused_by_name():
    text = dumps(BASES[0])
    for bad, words in (
        (text[:-1] + ',"end_tick":3}', "'end_tick' appears twice"),
        (text[:-1] + ',"extra":1}', "unknown key 'extra'"),
        ('{"switches":{},"trace":' + text + ',"outcome":{},"more":1}', "unknown key 'more'"),
    ):
        try:
            load_trace(bad)
        except TraceError as error:
            assert words in str(error), str(error)
        else:
            raise AssertionError(f"accepted: {words}")
    assert load_trace(text)["end_tick"] == BASES[0]["end_tick"]


def mutated(which: int, place: tuple, value) -> dict:
    trace = json.loads(dumps(BASES[which]))
    parent = trace
    for key in place[:-1]:
        parent = parent[key]
    parent[place[-1]] = value
    return trace


def test_braces_in_a_trace_s_words_are_drawn_as_they_are():
    """A journal record's step or version holding braces ("{", "{x}") is drawn, not formatted a second
    time (which raised ValueError or KeyError: issue 45)."""
    for value in ("{", "{x}", "}{"):
        for place in (("ticks", 5, "records", "journal", 0, "part", "computed_from", 0),
                      ("ticks", 5, "records", "journal", 0, "step")):  # fmt: skip
            trace = load_trace(json.dumps(mutated(0, place, value)))
            draw_everything(trace)
            assert value in diagram_html(trace, 5)


def test_an_event_of_a_kind_the_model_never_makes_is_drawn_by_its_label():
    """A store's answer of an unknown kind (``SEND[kind]`` raised KeyError: issue 45) is drawn on its own
    row, by its label."""
    trace = json.loads(dumps(BASES[0]))
    frame = next(f for f in trace["ticks"] if any(e["kind"] == "write" for e in f["events"]))
    event = next(e for e in frame["events"] if e["kind"] == "write")
    event["kind"], event["label"] = "write-bogus", "something new"
    loaded = load_trace(json.dumps(trace))
    draw_everything(loaded)
    assert "something new" in diagram_html(loaded, frame["tick"])
