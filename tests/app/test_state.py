"""The param adapter: every switch reaches the model, presets say what they set, the URL is parsed."""

from __future__ import annotations

from urllib.parse import urlencode

import param
import pytest

from app.state import PRESETS, URL_FLAGS, URL_PARAMS, ReaderState
from model import Switches, run, trace_dict
from model.schedule import FIELD_BY_ID, SCHEDULE_IDS, Schedule
from model.switches import ALL_SETTINGS, Fencing, allowed_values


@pytest.mark.parametrize("setting", ALL_SETTINGS)
def test_each_switch_reaches_the_model(setting):
    state = ReaderState()
    for value in allowed_values(setting)[1:]:
        state.param.update(**{setting: value})
        expected = run(Switches(**{setting: value}))
        assert state.trace["switches"][setting] == value
        assert state.trace == trace_dict(expected)
        assert state.outcome == expected.outcome().to_dict()


def test_every_param_is_documented():
    for name, p in ReaderState.param.objects().items():
        if name != "name":
            assert p.doc, name


def test_the_trace_is_computed_once_per_switch_change_not_per_tick():
    state = ReaderState()
    traces = []
    state.param.watch(lambda e: traces.append(e.new), "trace")
    for tick in range(state.end_tick + 1):
        state.go(tick)
    assert traces == []
    state.fencing = "off"
    assert len(traces) == 1


def test_a_run_is_made_once_for_its_switches_and_schedule_and_is_the_model_s():
    """A switch flipped back shows the very run it showed (made once: the renderers keep what they work
    out of a run by its identity), and a schedule of its own is another run, the model's."""
    state = ReaderState()
    first = state.trace
    state.fencing = "off"
    assert state.trace is not first and state.trace == trace_dict(run(Switches(fencing=Fencing.OFF)))
    state.fencing = "on"
    assert state.trace is first
    state.apply_query("?silent_at=post")
    assert state.trace is not first
    assert state.trace == trace_dict(run(Switches(), schedule=Schedule(silent_at="post")))
    assert ReaderState().trace is first  # another reader of the process: the same run


@pytest.mark.parametrize("name", PRESETS)
def test_presets_set_what_they_say(name):
    state = ReaderState(fencing="off", tick=3)
    state.apply_preset(name)
    expected = {k: allowed_values(k)[0] for k in ALL_SETTINGS} | PRESETS[name]
    assert state.switches().to_dict(advanced=True) == expected
    assert state.tick == 0 and state.preset_name() == name


def test_superseded_preset_runs_the_articles_second_trace():
    state = ReaderState()
    state.apply_preset("superseded")
    assert (
        state.outcome["newsletter_started_at"]
        == run(Switches(change="after-acceptance")).outcome().to_dict()["newsletter_started_at"]
    )


def test_reset_returns_to_the_main_trace():
    state = ReaderState(pins="off", post_key="none")
    state.apply_preset("main")
    assert state.switches() == Switches()


def test_playback_steps_and_stops_at_the_end():
    state = ReaderState()
    state.toggle_play()
    assert state.playing
    for _ in range(100):
        state.advance()
    assert state.tick == state.end_tick and not state.playing
    state.toggle_play()  # play again from the end starts over
    assert state.tick == 0 and state.playing
    state.move_by(1)
    assert state.tick == 1 and not state.playing
    state.move_by(-5)
    assert state.tick == 0


def test_url_round_trip():
    state = ReaderState()
    assert state.apply_query("?fencing=off&silent=paused&change=never&tick=11") == []
    assert (state.fencing, state.change, state.tick) == ("off", "never", 11)
    query = state.to_query()
    assert query == "?fencing=off&change=never&tick=11"
    other = ReaderState()
    other.apply_query(query)
    assert other.switches() == state.switches() and other.tick == 11


def test_a_group_of_figures_travels_in_the_link():
    state = ReaderState()
    assert state.apply_query("?embed=1&view=timeline&group=article-2&tick=3") == []
    assert state.group == "article-2" and "group=article-2" in state.to_query()


@pytest.mark.parametrize(
    "query,words",
    [
        ("?fencing=maybe", ["maybe", "fencing", "on, off"]),
        ("?post_key=random", ["per-operation, per-attempt, none"]),
        ("?tick=-3", ["whole number"]),
        ("?tick=99", ["ends at t14"]),
        ("?colour=red", ["colour", "silent"]),
        ("?preset=chapter9", ["main, superseded, pins-off, stale-owner, no-key, all-off"]),
        ("?tab=nowhere", ["trace, switches, compare, sweep, explore, engines, text, glossary"]),
        ("?silent_at=lunch", ["silent_at", "s1, s2, s3, s4, assemble, accept, post, none", "lunch"]),
        ("?threshold=0", ["threshold", "from 1 to 5"]),
        ("?correction_at=" + "9" * 5000, ["correction_at", "never", "more characters"]),
        ("?group=my figures!", ["group", "letters, digits", "my figures!"]),
    ],
)
def test_bad_url_values_fall_back_with_a_notice(query, words):
    state = ReaderState()
    notices = state.apply_query(query)
    assert len(notices) == 1 and state.notices == notices
    for word in words:
        assert word in notices[0]
    assert state.switches() == Switches()
    assert state.schedule() == Schedule.of(Switches())


def test_a_schedule_travels_in_the_link_and_changes_the_run():
    state = ReaderState()
    assert (
        state.apply_query(
            "?checkpoints=none&silent_at=post&threshold=1&correction_at=never&successor_stall=2"
        )
        == []
    )
    assert state.schedule() == Schedule(silent_at="post", threshold=1, correction_at=None, successor_stall=2)
    assert state.trace["schedule"] == state.schedule().to_dict()
    assert state.preset_name() is None
    other = ReaderState()
    other.apply_query(state.to_query())
    assert other.trace == state.trace
    other.apply_preset("main")
    assert other.schedule() == Schedule() and "schedule" not in other.trace


def test_url_preset_and_embed():
    state = ReaderState()
    state.apply_query("?preset=pins-off&embed=1&tab=compare")
    assert state.pins == "off" and state.embed and state.tab == "compare"


@pytest.mark.parametrize("value", ["²", "³", "①", "٣", "1" * 5000, "-1", "1e3", " 3", ""])
def test_odd_ticks_fall_back_to_t0_with_a_notice(value):
    state = ReaderState()
    notices = state.apply_query("?" + urlencode({"tick": value}))
    assert state.tick == 0 and len(notices) == 1 and "whole number" in notices[0]
    assert len(notices[0]) < 200  # a long value is quoted short


def test_markup_in_a_value_stays_text_and_short():
    state = ReaderState()
    notices = state.apply_query(
        "?" + urlencode({"fencing": "![x](http://host/beacon.png)", "preset": "[log in](https://x)"})
    )
    assert len(notices) == 2 and any("![x](http://host/beacon.png)" in n for n in notices)


@pytest.mark.parametrize(
    "query,words", [("?embed=2", ["embed must be 0 or 1"]), ("?pins=off&pins=on", ["more than once"])]
)
def test_embed_values_and_repeated_keys_are_reported(query, words):
    state = ReaderState()
    notices = state.apply_query(query)
    assert len(notices) == 1 and all(w in notices[0] for w in words)
    assert not state.embed


@pytest.mark.parametrize("first,second", [("off", "on"), ("on", "off")])
def test_a_repeated_name_runs_the_first_value_as_the_notice_says(first, second):
    state = ReaderState()
    notices = state.apply_query(f"?pins={first}&pins={second}")
    assert notices == ["'pins' is given more than once; using the first."]
    assert state.pins == first and state.trace is not None
    assert state.switches().pins.value == first


def test_a_query_with_very_many_fields_is_refused_with_a_notice_not_an_error():
    state = ReaderState()
    notices = state.apply_query("?" + "&".join(f"k{i}=1" for i in range(500)))
    assert notices and state.switches() == Switches()


@pytest.mark.parametrize("key", SCHEDULE_IDS)
def test_a_schedule_value_with_leading_zeros_is_read_as_its_number_and_the_link_normalises(key):
    """A param accepts only the canonical text; the query reader hands it that, whatever zeros lead."""
    field = FIELD_BY_ID[key]
    if field.low is None:
        return  # a named point (silent_at, poster_death) has no digits to pad
    number = max(field.low, 1) if key != "successor_stall" else 2
    state = ReaderState()
    for padded in (f"0{number}", f"00{number}"):
        notices = state.apply_query(f"?{key}={padded}")
        assert notices == [] and getattr(state, key) == str(number)
        assert f"{key}={number}" in state.to_query() and padded not in state.to_query()
    state.apply_query(f"?{key}=00")
    assert getattr(state, key) in ("0", "")  # 0 where the field allows it, else a notice and the default


def test_a_tour_link_reports_what_it_overrides_and_repeats():
    state = ReaderState()
    notices = state.apply_query("?tour=2&tour=5&fencing=off&embed=1")
    assert state.tour == 2 and state.embed
    assert any("'tour' is given more than once" in n for n in notices)
    assert any("ignoring 'fencing'" in n for n in notices)
    assert state.apply_query("?tour=3") == []


def _another_value(state: ReaderState, name: str):
    """A value of the param ``name`` other than its current one, or None when it has no other."""
    p = state.param[name]
    current = getattr(state, name)
    if isinstance(p, param.Boolean):
        return not current
    if isinstance(p, param.Integer):
        return 3 if name != "tour" else 2
    if isinstance(p, param.Selector):
        return next((v for v in p.objects if v != current), None)
    if isinstance(p, param.String):
        return current + "x"
    return None


@pytest.mark.parametrize(
    "name", [n for n, p in ReaderState.param.objects().items() if p.precedence != -1 and n != "name"]
)
def test_the_url_table_covers_every_param_a_link_writes(name):
    """A param that changes the link is in URL_PARAMS (which the served page watches), and a link written
    with it reads back to the same value; one that does not change the link is no URL param."""
    state = ReaderState()
    value = _another_value(state, name)
    if value is None:
        pytest.skip(f"{name} has one value")
    before = state.to_query()
    setattr(state, name, value)
    if name == "tour":
        state.go_to_step(value)  # a step sets its switches and tick too
    written = state.to_query()
    assert (written != before) == (name in URL_PARAMS), (name, written)
    if name in URL_PARAMS:
        other = ReaderState()
        assert other.apply_query(written) == []
        assert getattr(other, name) == getattr(state, name)


def test_every_url_flag_is_read_and_refused_with_a_notice():
    for flag in URL_FLAGS:
        if flag.key == "tour":
            continue  # the tour's step is read before the table (test_tour)
        notices = ReaderState().apply_query(f"?{flag.key}=%3Cnope%3E")
        assert len(notices) == 1, (flag.key, notices)
        assert "<nope>" in notices[0], notices  # the reader's own value, quoted
        assert flag.key in notices[0] or "allowed" in notices[0], notices  # and what it is about


def test_the_served_page_watches_every_url_param(monkeypatch):
    """Changing any param a link carries asks the page to write its address (a missing name here once
    left ``view`` and ``print`` out of the address)."""
    from app import explainer

    calls = []
    monkeypatch.setattr(explainer.ExplainerApp, "_push_url", lambda self, *events: calls.append(events))
    app = explainer.ExplainerApp()
    for name in URL_PARAMS:
        value = _another_value(app.state, name)
        if value is None:
            continue
        calls.clear()
        setattr(app.state, name, value)
        assert calls, name


@pytest.mark.parametrize("query", ["?fencing=on&preset=stale-owner", "?preset=stale-owner&fencing=on"])
def test_a_value_named_beside_a_chapter_changes_that_chapter_in_either_order(query):
    """The chapter is read first wherever the link names it, so a value beside it is never dropped
    (``?fencing=on&preset=stale-owner`` used to show the chapter alone, without a word)."""
    state = ReaderState()
    assert state.apply_query(query) == []
    chapter = ReaderState()
    chapter.apply_preset("stale-owner")
    assert state.fencing == "on" != chapter.fencing
    assert state.switches() == chapter.switches().replace(fencing="on")


def test_a_bad_value_beside_a_chapter_says_what_is_shown():
    """``?preset=stale-owner&fencing=maybe`` shows the chapter's fencing (off), and the notice says so
    (it said "showing on")."""
    state = ReaderState()
    notices = state.apply_query("?preset=stale-owner&fencing=maybe")
    assert state.fencing == "off" and len(notices) == 1
    assert notices[0].endswith("showing off.") and "maybe" in notices[0]
